/* SPDX-License-Identifier: MIT */
/*
 * The kernel's own filesystems that act on processes.  Mounted where a
 * scope grants a directory whole (or an expanded directory holds their
 * mount point), they would hand the child what the caller keeps there.
 * POSIX message queues (mqueue): a queue of the caller's opened by path
 * reads and sends its messages, and once a rule grants the mount's root,
 * mq_open(3) works too (it goes through the kernel's own mount of the same
 * root).  Each mqueue mount is denied, as if the scope named it, but where
 * the scope names the mount point itself: then its own rule decides, on a
 * rule of its own, so that mq_open(3) finds it at the root.  Named so (not
 * denied), a queue is the child's by name too; else the seccomp filter
 * refuses mq_open(3) and mq_unlink(3), which the kernel's own mount would
 * refuse an open of only after making the queue, and an unlink never (no
 * path hook sees it): a child removed the caller's queues and made its
 * own in their names.
 *
 * Not control groups: a delegated group's cgroup.freeze or cgroup.kill
 * stops the caller too, but their mounts lie in sysfs, whose directory
 * times prove nothing (stamps.c): every spawn would compile again.  A
 * scope makes them read-only by naming them (sbxspawn(7)).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/internal.h"
#include "lib/compiler.h"

static const struct {
	const char *type;
	enum sbx_mode mode;
} kinds[] = {
	{ "mqueue", SBX_MODE_DENY },
};

static bool named(const struct sbx_scope *scope, const char *path)
{
	for (size_t i = 0; i < scope->nrules; i++)
		if (!strcmp(scope->rules[i].path, path))
			return true;
	return false;
}

static int mode_of(const char *type)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].type, type))
			return (int)kinds[i].mode;
	return -1;
}

int sbx__kernelfs_rules(const struct mounts *m, const struct sbx_scope *scope,
                        struct sbx_scope_rule **out, size_t *n)
{
	size_t count = 0;

	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < m->npoints; i++)
		count += mode_of(m->points[i]->type) >= 0;
	if (!count)
		return 0;
	if (!(*out = calloc(count, sizeof(**out))))
		return ENOMEM;
	for (size_t i = 0; i < m->npoints; i++) {
		const struct mount *mt = m->points[i];
		int mode = mode_of(mt->type);

		if (mode < 0 || !strcmp(mt->point, "/") || named(scope, mt->point))
			continue;
		(*out)[(*n)++] = (struct sbx_scope_rule){ .mode = (enum sbx_mode)mode,
		                                          .path = (char *)mt->point };
	}
	return 0;
}

bool sbx__kernelfs_mqueue_granted(const struct mounts *m, const struct sbx_scope *scope)
{
	for (size_t i = 0; i < m->npoints; i++) {
		const struct mount *mt = m->points[i];

		if (strcmp(mt->type, "mqueue"))
			continue;
		for (size_t k = 0; k < scope->nrules; k++)
			if (scope->rules[k].mode != SBX_MODE_DENY && !strcmp(scope->rules[k].path, mt->point))
				return true;
	}
	return false;
}

void sbx__kernelfs_mark(const struct mounts *m, struct tree *t)
{
	for (size_t i = 0; i < m->npoints; i++) {
		const struct mount *mt = m->points[i];
		struct node *n;

		if (mode_of(mt->type) == SBX_MODE_DENY &&
		    (n = (struct node *)sbx__tree_find(t, mt->point)) && n->path && n->mode >= 0 &&
		    n->mode != SBX_MODE_DENY)
			n->flags |= NODE_OWN_RULE;
	}
}

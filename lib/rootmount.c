/* SPDX-License-Identifier: MIT */
/*
 * The mount a chroot's table leaves out.  The kernel lists only the mounts
 * whose point lies beneath the reader's root: in a chroot whose root is a
 * directory, not a mount point, the mount that holds the root is not among
 * them, and nothing would say where "/" and all beneath it are.  That
 * mount is added here as statx(2) sees it at "/", with the root as its
 * own root in its filesystem.
 *
 * Paths in that filesystem are then told from the root, not from the
 * filesystem's own root, which cannot be seen from inside.  That is sound
 * only where no other mount in the table is of the same filesystem: its
 * root, which the table gives from the filesystem's own, could not be
 * compared with a path told from the chroot's, and a bind mount could show
 * a denied path again under a name no place would match.  There the table
 * stays as it is, and nothing beneath the root is granted (the compile
 * says so).  A layer the table names by a path, placed after this, is told
 * from the chroot's root as every other path there is.  Outside the root
 * the domain grants nothing: a child that leaves the chroot finds no rule
 * on its way.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "lib/compiler.h"

static bool shows(const struct view *v, unsigned maj, unsigned min)
{
	return v->dev_major == maj && v->dev_minor == min;
}

int sbx__mounts_root(struct mounts *m)
{
	struct statx sx;
	struct mount *grown;
	size_t cap = m->n;

	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].point, "/"))
			return 0;
	if (statx(AT_FDCWD, "/", AT_STATX_DONT_SYNC, STATX_TYPE | STATX_MNT_ID, &sx))
		return errno == ENOMEM ? ENOMEM : 0;
	if (!(sx.stx_mask & STATX_MNT_ID))
		return 0;
	for (size_t i = 0; i < m->n; i++)
		if (shows(&m->v[i].own, sx.stx_dev_major, sx.stx_dev_minor))
			return 0;
	if (!(grown = sbx__grow(m->v, &cap, m->n + 1, sizeof(*m->v))))
		return ENOMEM;
	m->v = grown;
	m->v[m->n++] = (struct mount){ .id = sx.stx_mnt_id, .point = "/", .type = "",
	                               .own = { .dev_major = sx.stx_dev_major,
	                                        .dev_minor = sx.stx_dev_minor, .rel = "/" } };
	return 0;
}

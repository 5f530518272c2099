/*
 * The compiler: a scope of denials, re-admissions and read-only paths into
 * a Landlock ruleset.
 *
 * Landlock only grants, and the rights of every rule on a path's ancestors
 * add up.  So a node of the scope's tree that has restricted paths below it
 * gets only the rights common to its whole subtree, and is "expanded": it is
 * listed, and each entry that does not lead to a configured path gets the
 * node's own rights on a rule of its own.  With only denials this is the
 * design's walk: the ancestors of a denial get nothing, their other entries
 * get everything.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "internal.h"
#include "lib/compiler.h"

static atomic_int said_unconfined;

static int no_landlock(const struct sbx_scope *scope, struct sbx_ruleset *out, int why)
{
	if (scope->flags & SBX_SCOPE_REQUIRE)
		return ENOTSUP;
	out->confinement = SBX_OUTCOME_UNCONFINED;
	if (!atomic_exchange(&said_unconfined, 1))
		sbx__event(scope, SBX_EVENT_UNCONFINED, why, NULL, NULL,
		           "this kernel has no Landlock (%s): commands run unconfined%s",
		           why == ENOSYS ? "not built in" : "disabled at boot; add lsm=...,landlock",
		           "; ask for SBX_SCOPE_REQUIRE to refuse instead");
	return 0;
}

/* The rights of each kind of grant at this ABI. */
static struct rights rights_at(int abi)
{
	return (struct rights){ .dir = sbx__fs_rights_known(abi) &
	                               ~(LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK),
	                        .file = sbx__fs_rights_file(abi),
	                        .read = sbx__fs_rights_read(abi) };
}

/* Every configured path, in its filesystem, with the scope's mode there. */
static int place_all(struct compiler *cc)
{
	const struct sbx_scope *scope = cc->scope;

	if (!(cc->places = calloc(scope->nrules + 1, sizeof(*cc->places))))
		return ENOMEM;
	for (size_t i = 0; i < scope->nrules; i++) {
		struct fs_place *p = &cc->places[cc->nplaces];

		if (!sbx__place_path(cc, cc->resolved[i], p))
			continue;
		p->mode = sbx__tree_mode_at(cc->root, cc->resolved[i]);
		p->rights = sbx__mode_rights(&cc->rights, p->mode);
		cc->nplaces++;
	}
	return 0;
}

/* Where the tree's paths are: the mount table, the inodes of the tree's
 * own paths, and each configured path's place in its filesystem. */
static int survey(struct compiler *cc)
{
	int err;

	/* Without the mount table no second name can be told apart: fail
	 * rather than grant blind. */
	if ((err = sbx__mounts_read(&cc->table)))
		return err;
	cc->mounts = cc->table.v;
	cc->nmounts = cc->table.n;
	if ((err = sbx__idents_collect(cc, cc->root)))
		return err;
	return place_all(cc);
}

/* The ruleset descriptor with its controls and ports: false when it is
 * refused (out says why; the child will say so). */
static bool open_ruleset(struct compiler *cc)
{
	struct sbx_ruleset *out = cc->out;

	if (!sbx__controls_settle(cc->scope, out))
		return false; /* under SBX_SCOPE_STRICT */
	out->fd = sbx__ruleset_create(out->abi, sbx__controls_net(out->controls),
	                              sbx__controls_scoped(out->controls));
	if (out->fd < 0) {
		/* Landlock is there and said no. */
		out->error = -out->fd;
		out->refused_call = "landlock_create_ruleset";
		out->fd = -1;
		out->confinement = SBX_OUTCOME_REFUSED;
		return false;
	}
	sbx__controls_add_ports(cc, cc->scope);
	return true;
}

/* Emits the grants of the whole tree, from the root directory down. */
static int emit_all(struct compiler *cc)
{
	int rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), err;
	struct stat st;

	if (rootfd < 0 || fstat(rootfd, &st)) {
		err = errno;
		if (rootfd >= 0)
			close(rootfd);
		return err;
	}
	strcpy(cc->path, "/");
	sbx__emit(cc, cc->root, rootfd, &st, 0);
	close(rootfd);
	if (cc->err)
		return cc->err;
	for (size_t i = 0; i < cc->nplaces; i++)
		if (cc->places[i].mode != SBX_MODE_ALLOW)
			sbx__aliases_warn(cc, cc->root, &cc->places[i]);
	return 0;
}

static void compiler_free(struct compiler *cc)
{
	if (!cc)
		return;
	sbx__tree_free(cc->root);
	free(cc->resolved);
	for (size_t i = 0; i < cc->nidents; i++)
		free(cc->idents[i].path);
	free(cc->idents);
	free(cc->places);
	sbx__mounts_free(&cc->table);
	free(cc);
}

/* The stages in order: the configured paths resolved into the tree, the
 * tree placed among the mounts, the ruleset opened, the grants emitted. */
static int run(struct compiler *cc)
{
	const struct sbx_scope *scope = cc->scope;
	struct sbx_ruleset *out = cc->out;
	int err;

	clock_gettime(CLOCK_REALTIME, &cc->started);
	/* Opened before anything is read: a mount made from here on shows in
	 * poll() (the compile opens what is mounted now, a later compile
	 * might not). */
	out->mounts_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	cc->rights = rights_at(out->abi);
	if ((err = sbx__tree_build(scope, cc->root, cc->resolved, out)))
		return err;
	sbx__tree_settle(cc->root, cc->rights.dir, &cc->rights);
	if (cc->root->nkids && (err = survey(cc)))
		return err;
	if (!open_ruleset(cc))
		return 0;
	if ((err = emit_all(cc)))
		return err;
	out->confinement = out->ndropped ? SBX_OUTCOME_NARROWED : SBX_OUTCOME_CONFINED;
	out->reusable = out->reusable && !out->ndropped && out->mounts_fd >= 0;
	return 0;
}

int sbx__ruleset_compile(const struct sbx_scope *scope, struct sbx_ruleset *out)
{
	int kernel_abi = sbx__landlock_abi();
	struct compiler *cc;
	int err = ENOMEM;

	*out = (struct sbx_ruleset){ .fd = -1, .mounts_fd = -1, .reusable = true,
	                             .kernel_abi = kernel_abi > 0 ? kernel_abi : 0,
	                             .poll_lock = PTHREAD_MUTEX_INITIALIZER };
	if (kernel_abi == -ENOSYS || kernel_abi == -EOPNOTSUPP)
		return no_landlock(scope, out, -kernel_abi);
	if (kernel_abi < 0) {
		/* Present, as far as anyone can tell, and refusing. */
		out->confinement = SBX_OUTCOME_REFUSED;
		out->error = -kernel_abi;
		out->refused_call = "landlock_create_ruleset(VERSION)";
		return 0;
	}
	out->abi = scope->abi_cap && scope->abi_cap < kernel_abi ? scope->abi_cap : kernel_abi;
	if ((cc = calloc(1, sizeof(*cc))) && (cc->root = sbx__node_new("", 0)) &&
	    (cc->resolved = calloc(scope->nrules + 1, sizeof(*cc->resolved)))) {
		cc->scope = scope;
		cc->out = out;
		err = run(cc);
	}
	if (err)
		sbx__ruleset_release(out);
	compiler_free(cc);
	return err;
}

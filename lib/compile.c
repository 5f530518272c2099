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

int sbx__ruleset_compile(const struct sbx_scope *scope, struct sbx_ruleset *out)
{
	int kernel_abi = sbx__landlock_abi();
	struct compiler *cc = NULL;
	struct node *root = NULL;
	char (*resolved)[PATH_MAX] = NULL;
	struct stat st;
	int err = ENOMEM, rootfd;

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

	if (!(cc = calloc(1, sizeof(*cc))) || !(root = node_new("", 0)) ||
	    !(resolved = calloc(scope->nrules + 1, sizeof(*resolved))))
		goto fail;
	cc->scope = scope;
	cc->out = out;
	clock_gettime(CLOCK_REALTIME, &cc->started);
	/* Opened before anything is read: a mount made from here on shows in
	 * poll() (the compile opens what is mounted now, a later compile
	 * might not). */
	out->mounts_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	cc->rights.dir = sbx__fs_rights_known(out->abi) &
	                 ~(LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK);
	cc->rights.file = sbx__fs_rights_file(out->abi);
	cc->rights.read = sbx__fs_rights_read(out->abi);
	if ((err = build_tree(scope, root, resolved, out)))
		goto fail;
	tree_settle(root, cc->rights.dir, &cc->rights);
	if (root->nkids) {
		char path[PATH_MAX] = "/";

		/* Without the mount table no second name can be told apart:
		 * fail rather than grant blind. */
		if ((err = read_mounts(&cc->table)))
			goto fail;
		cc->mounts = cc->table.v;
		cc->nmounts = cc->table.n;

		if ((err = collect_idents(cc, root, path, sizeof(path))))
			goto fail;
		if (cc->nidents)
			qsort(cc->idents, cc->nidents, sizeof(*cc->idents), by_inode);
		if (!(cc->places = calloc(scope->nrules + 1, sizeof(*cc->places)))) {
			err = ENOMEM;
			goto fail;
		}
		for (size_t i = 0; i < scope->nrules; i++)
			if (place_of(cc, resolved[i], &cc->places[cc->nplaces])) {
				cc->places[cc->nplaces].mode = mode_at(root, resolved[i]);
				cc->places[cc->nplaces].rights =
					mode_rights(&cc->rights, cc->places[cc->nplaces].mode);
				cc->nplaces++;
			}
	}

	if (!settle_controls(scope, out)) {
		err = 0; /* refused, under SBX_SCOPE_STRICT: the child will say so */
		goto fail;
	}
	out->fd = sbx__ruleset_create(out->abi, net_rights(out->controls), scopes(out->controls));
	if (out->fd < 0) {
		/* Landlock is there and said no: the child will say so. */
		out->error = -out->fd;
		out->refused_call = "landlock_create_ruleset";
		out->fd = -1;
		out->confinement = SBX_OUTCOME_REFUSED;
		err = 0;
		goto fail;
	}
	add_ports(cc, scope);
	rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || fstat(rootfd, &st)) {
		err = errno;
		if (rootfd >= 0)
			close(rootfd);
		goto fail;
	}
	strcpy(cc->path, "/");
	emit(cc, root, rootfd, &st, 0);
	close(rootfd);
	if ((err = cc->err))
		goto fail;

	for (size_t i = 0; i < cc->nplaces; i++)
		if (cc->places[i].mode != SBX_MODE_ALLOW)
			check_aliases(cc, root, &cc->places[i]);
	out->confinement = out->ndropped ? SBX_OUTCOME_NARROWED : SBX_OUTCOME_CONFINED;
	out->reusable = out->reusable && !out->ndropped && out->mounts_fd >= 0;
	err = 0;
	goto done;
fail:
	if (err)
		sbx__ruleset_release(out);
done:
	node_free(root);
	free(resolved);
	if (cc) {
		for (size_t i = 0; i < cc->nidents; i++)
			free(cc->idents[i].path);
		free(cc->idents);
		free(cc->places);
		free_mounts(&cc->table);
	}
	free(cc);
	return err;
}

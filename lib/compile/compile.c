/* SPDX-License-Identifier: MIT */
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
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "lib/internal.h"
#include "lib/hiding.h"
#include "lib/compiler.h"
#include "lib/confine.h"

static atomic_int said_unconfined;

static int no_landlock(const struct sbx_scope *scope, struct sbx_ruleset *out, int why)
{
	int err;

	if (scope->flags & SBX_SCOPE_REQUIRE)
		return ENOTSUP;
	out->confinement = SBX_OUTCOME_UNCONFINED;
	/* What needs no Landlock (seccomp, ids, capabilities) is applied all
	 * the same. */
	if ((err = sbx__controls_settle(scope, out)) > 0)
		return err;
	if (err < 0)
		return 0; /* refused: a control asked for strictly is not there */
	if (sbx__wants(scope, SBX_EVENT_UNCONFINED) && !atomic_exchange(&said_unconfined, 1))
		sbx__event(scope, SBX_EVENT_UNCONFINED, why, NULL, NULL,
		           "this kernel has no Landlock (%s): commands run unconfined%s",
		           why == ENOSYS ? "not built in" : "disabled at boot; add lsm=...,landlock",
		           "; ask for SBX_SCOPE_REQUIRE to refuse instead");
	return 0;
}

/* The rights of each kind of grant at this ABI: connecting to unix
 * sockets withheld from all, where the scope names the sockets that may
 * be (sockets.c). */
static struct rights rights_at(const struct sbx_scope *scope, int abi)
{
	uint64_t keep = ~(sbx__sockets_withheld(scope, abi) ? LANDLOCK_ACCESS_FS_RESOLVE_UNIX : 0);

	/* Connecting to a socket changes nothing on the filesystem: a
	 * read-only path keeps it (ABI 9). */
	uint64_t connect = sbx__fs_rights_known(abi) & LANDLOCK_ACCESS_FS_RESOLVE_UNIX;

	return (struct rights){ .dir = sbx__fs_rights_known(abi) & keep &
	                               ~(LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK),
	                        .file = sbx__fs_rights_file(abi) & keep,
	                        .read = (sbx__fs_rights_read(abi) | connect) & keep };
}

/* No room to keep a descriptor out of the caller's way: the compile serves
 * the one spawn or exec it was made for, and keeps nothing (what it kept
 * so far, it closes itself when it is released). */
static int become_once(struct sbx_ruleset *out)
{
	if (out->mounts_kept)
		sbx__fds_forget(out->mounts_fd, &out->mounts_lost);
	out->mounts_kept = false;
	out->once = out->unwatched = true;
	out->reusable = false;
	return 0;
}

/* The ruleset descriptor with its controls and ports: 0, -1 when it is
 * refused (out says why; the child will say so), or an error number. */
static int open_ruleset(struct compiler *cc)
{
	struct sbx_ruleset *out = cc->out;
	int fd, err = 0;

	if ((err = sbx__controls_settle(cc->scope, out)))
		return err; /* -1: refused, under SBX_SCOPE_STRICT */
	sbx__fds_begin();
	fd = sbx__ruleset_create(out->abi, out->net, sbx__controls_scoped(out->controls));
	if (fd >= 0 && !out->once && (err = sbx__fds_keep(&fd, true, &out->fd_lost)) == EMFILE)
		err = become_once(out);
	if (err)
		close(fd);
	else
		out->fd = fd;
	sbx__fds_end();
	if (err)
		return err;
	if (fd == -EMFILE || fd == -ENFILE || fd == -ENOMEM)
		return -fd; /* the caller's resources, not Landlock's verdict */
	if (fd < 0) {
		/* Landlock is there and said no. */
		out->error = -fd;
		out->refusal = (struct refusal){ SBX_REFUSED_LANDLOCK, "landlock_create_ruleset", NULL };
		out->fd = -1;
		out->confinement = SBX_OUTCOME_REFUSED;
		return -1;
	}
	sbx__controls_add_ports(cc, cc->scope);
	sbx__sockets_add(cc);
	return 0;
}

/* The calling thread's mount table (a thread may have a mount namespace of
 * its own; /proc/self is the thread-group leader's), opened before
 * anything is read: a mount made from then on shows in poll() (the compile
 * opens what is mounted now, a later compile might not).  The compile
 * reads the table through it; reading does not consume the change that
 * poll() reports.  Kept at once, as every descriptor the library keeps is
 * made (fds.c: a spawn in another thread must never see it at a number
 * its file actions name), but for one exec.  No table (no /proc) is said
 * where one is needed. */
static int open_mounts(struct compiler *cc)
{
	struct sbx_ruleset *out = cc->out;
	struct stat st;
	int err = 0;

	sbx__fds_begin();
	out->mounts_fd = open("/proc/thread-self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (out->mounts_fd < 0)
		out->mounts_fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (out->mounts_fd < 0)
		err = errno == ENOENT ? 0 : errno;
	else if (fstat(out->mounts_fd, &st))
		err = errno;
	else if (!out->once &&
	         (err = sbx__fds_keep(&out->mounts_fd, false, &out->mounts_lost)) == EMFILE)
		err = become_once(out);
	else
		out->mounts_kept = !err && !out->once;
	if (err && out->mounts_fd >= 0 && !out->mounts_kept) {
		close(out->mounts_fd);
		out->mounts_fd = -1;
	}
	sbx__fds_end();
	if (err || out->mounts_fd < 0)
		return err;
	out->mounts_dev = st.st_dev;
	out->mounts_ino = st.st_ino;
	out->mounts_ns = sbx__mount_ns();
	return sbx__mounts_read(&cc->mounts, out->mounts_fd);
}

/* A scope that restricts no path, and hides none, needs the table no
 * more. */
static int keep_mounts(struct compiler *cc)
{
	struct sbx_ruleset *out = cc->out;
	bool needed = cc->tree.restricts || out->ncovers;

	if (out->mounts_fd < 0)
		return needed ? ENOENT : 0;
	if (!needed) {
		if (out->mounts_kept)
			sbx__fds_close(out->mounts_fd, &out->mounts_lost);
		else
			close(out->mounts_fd);
		out->mounts_fd = -1;
		out->mounts_kept = false;
	}
	return 0;
}

/* Whether this compile hides what it can (hide.c): not where a child could
 * not keep a cover in place or hold what it held before (no seccomp filter
 * to close setns(2) and its kin; no mount table to find second names),
 * nor where a user namespace would change what a child is beyond its view
 * of ids (another user's ids asked for, or ambient capabilities, which a
 * new user namespace empties), nor where the denials are to be logged (the
 * audit log has Landlock's, not a cover's).  Under SBX_SCOPE_HIDE, a
 * failed compile. */
static bool hiding_on(struct compiler *cc)
{
	const struct sbx_scope *scope = cc->scope;
	char why[160];
	bool user = geteuid() != 0, ambient = false;

	for (int cap = 0; user && cap < 64 && !ambient; cap++)
		ambient = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) == 1;
	if (cc->out->expand_all)
		snprintf(why, sizeof(why), "a descriptor or the working directory the child holds "
		                           "reaches one");
	else if (sbx__hide_unavailable(scope, why, sizeof(why)))
		;
	/* A child can make only the mounts it can name private: covers made
	 * in the mount holding a chroot's root would reach the caller's
	 * namespace (where the table was not read, it is not known: the
	 * child finds out). */
	else if (cc->mounts.root_unmounted)
		snprintf(why, sizeof(why), "the root is no mount point (a chroot): no mount the child "
		                           "makes could be kept from the caller's namespace");
	/* A compile the caller asked for before its spawns (the one that
	 * fails early), or an explanation, learns it from a child now; a
	 * spawn's learns it from its own child, which starts again expanded
	 * where it cannot. */
	else if (cc->probe && sbx__hide_probe(why, sizeof(why), cc->out->snapshot) == 0)
		;
	else if (!sbx__seccomp_supported() || !sbx__seccomp_kernel())
		snprintf(why, sizeof(why), "no seccomp filter can be installed here");
	else if (cc->out->mounts_fd < 0)
		snprintf(why, sizeof(why), "no mount table (/proc)");
	else if (user && scope->ids)
		snprintf(why, sizeof(why), "the child is to run as another user");
	else if (scope->flags & SBX_SCOPE_LOG_DENIALS)
		snprintf(why, sizeof(why), "SBX_SCOPE_LOG_DENIALS: the kernel logs what Landlock "
		                           "denies, and a cover denies nothing it sees");
	else if (ambient)
		snprintf(why, sizeof(why), "this process has ambient capabilities, which a user "
		                           "namespace would take from the child");
	else
		return true;
	for (size_t i = 0; (scope->flags & SBX_SCOPE_HIDE) && i < scope->nrules; i++)
		if (scope->rules[i].mode == SBX_MODE_DENY) {
			sbx__event(scope, SBX_EVENT_HIDING, 0, scope->rules[i].path, NULL,
			           "%s cannot be hidden: %s; SBX_SCOPE_HIDE: nothing runs",
			           scope->rules[i].path, why);
			cc->err = EINVAL;
			break;
		}
	return false;
}

/* The tree of the scope's paths, and of those it gets without naming them
 * (kernelfs.c), less the denials hidden instead. */
static int build_tree(struct compiler *cc)
{
	struct hider *h = &cc->hider;
	struct sbx_scope_rule *implicit;
	size_t nimplicit;
	int err = sbx__kernelfs_rules(&cc->mounts, cc->scope, &implicit, &nimplicit);

	*h = (struct hider){ .scope = cc->scope, .out = cc->out, .mounts = &cc->mounts,
	                     .on = hiding_on(cc) };
	if (!err && cc->err)
		err = cc->err;
	if (!err)
		err = sbx__tree_build(cc->scope, implicit, nimplicit, &cc->rights, h, &cc->tree);
	if (!err) {
		sbx__kernelfs_mark(&cc->mounts, &cc->tree);
		cc->out->mqueue_granted = sbx__kernelfs_mqueue_granted(&cc->mounts, cc->scope);
	}
	free(implicit);
	return err;
}

/* The paths of the scope the tree left out, by their index in the scope,
 * for what is said later of the directories they name (frozen.c); those
 * that led into a denial through a symlink are among the dropped too. */
static int keep_unapplied(struct compiler *cc)
{
	struct sbx_ruleset *out = cc->out;

	if (!cc->tree.nignored)
		return 0;
	if (!(out->unapplied = malloc(cc->tree.nignored * sizeof(*out->unapplied))))
		return ENOMEM;
	for (size_t i = 0; i < cc->tree.nignored && !cc->err; i++) {
		const struct sbx_scope_rule *r = cc->tree.ignored[i];

		out->unapplied[out->nunapplied++] = (size_t)(r - cc->scope->rules);
		if (r->mode != SBX_MODE_DENY)
			sbx__drop_left_out(cc, r->path);
	}
	return cc->err;
}

/* A compile that fails says where (the directory it worked on, or the
 * mount table), and for which configured path (one beneath that directory;
 * every restricted one needs the table), for nothing runs.  A denial
 * refused under SBX_SCOPE_STRICT (EINVAL) was said already. */
static void failed(const struct compiler *cc, int err)
{
	const char *where = cc->path[0] ? cc->path
	                    : cc->tree.restricts ? "/proc/thread-self/mountinfo" : "/";
	const struct node *n = cc->path[0] ? sbx__tree_find(&cc->tree, cc->path) : &cc->tree.root;
	const char *because = n ? (n->path && n->mode != SBX_MODE_ALLOW ? n->path
	                                                               : sbx__tree_restricted_beneath(n))
	                        : NULL;

	const char *remedy = err == EMFILE ? " (a compile needs 3 free descriptors: close some, or raise "
	                                     "RLIMIT_NOFILE)"
	                                   : "";

	if (err == EINVAL)
		return;
	if (because)
		sbx__event(cc->scope, SBX_EVENT_FAILED, err, where, because,
		           "the scope could not be compiled: %s, on the way to %s: %s%s", where, because,
		           strerror(err), remedy);
	else
		sbx__event(cc->scope, SBX_EVENT_FAILED, err, where, NULL,
		           "the scope could not be compiled: %s: %s%s", where, strerror(err), remedy);
}

/* The covers settled (hide.c); where second names were covered and no
 * denial was, the filter that keeps covers in place closes its calls now. */
static int hide_settle(struct compiler *cc)
{
	struct sbx_ruleset *out = cc->out;
	int err = sbx__hide_settle(&cc->hider);

	if (err || !out->ncovers || (out->closed & SBX_CLOSE_NAMESPACE))
		return err;
	out->closed |= SBX_CLOSE_NAMESPACE;
	return (out->filter = sbx__seccomp_filter(out->closed)) ? 0 : errno;
}

/* What is bound back into a cover, granted by a rule of its own where the
 * ruleset restricts anything: Landlock passes over a mount point's own
 * rule on its way up (the cover's, and what the cover sits on), so the
 * grant of the directory a cover hides never reaches a bind inside it. */
static int grant_binds(struct compiler *cc)
{
	struct sbx_ruleset *out = cc->out;
	const struct judge j = { .rs = out, .scope = cc->scope, .dir = "/",
	                         .file_rights = cc->rights.file };
	int err = 0;

	for (size_t i = 0; i < out->nbinds && !err && cc->tree.restricts; i++) {
		const struct cover *b = &out->binds[i];
		int fd = open(b->path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		struct statx sx;

		if (fd < 0)
			return errno == ENOENT ? ESTALE : errno;
		if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_INO, &sx) ||
		    !is_cover(b, &sx))
			err = ESTALE;
		else
			err = sbx__grant(&j, fd, b->dir, cc->rights.dir, b->path + 1);
		close(fd);
	}
	return err < 0 ? -err : err;
}

/* The stages in order: the configured paths into the tree, the tree placed
 * among the mounts, the ruleset opened, the grants emitted. */
static int run(struct compiler *cc)
{
	struct sbx_ruleset *out = cc->out;
	int err;

	clock_gettime(CLOCK_REALTIME, &cc->started);
	cc->rights = rights_at(cc->scope, out->abi);
	out->file_rights = cc->rights.file;
	if (!(err = open_mounts(cc)) && !(err = build_tree(cc)))
		err = keep_unapplied(cc);
	/* Without the table no second name can be told apart: fail rather
	 * than grant blind. */
	if ((err = err ? err : cc->err) || (err = keep_mounts(cc)))
		return err;
	if (cc->tree.restricts && (err = sbx__places_build(&cc->mounts, &cc->tree, &cc->rights)))
		return err;
	if ((err = open_ruleset(cc)))
		return err < 0 ? 0 : err;
	err = sbx__emit(cc);
	sbx__drop_summary(cc);
	if (err)
		return err;
	if (cc->refused) {
		out->confinement = SBX_OUTCOME_REFUSED;
		return 0;
	}
	sbx__mounts_warn_aliases(&cc->mounts, &cc->tree, cc->scope, &cc->hider);
	if ((err = cc->hider.err) || (err = hide_settle(cc)) || (err = grant_binds(cc)))
		return err;
	out->confinement = out->ndropped ? SBX_OUTCOME_NARROWED : SBX_OUTCOME_CONFINED;
	out->reusable = out->reusable && !out->once && (!cc->tree.restricts || out->mounts_fd >= 0);
	return 0;
}

/* Everything a compile made: its descriptors, its watches and covers, its
 * lists.  The compile's own undoing, and the end of every kept ruleset. */
void sbx__ruleset_release(struct sbx_ruleset *rs)
{
	if (rs->once) {
		/* Never kept (compile.c), so never lost: ours to close. */
		if (rs->fd >= 0)
			close(rs->fd);
		if (rs->mounts_fd >= 0)
			close(rs->mounts_fd);
	} else {
		sbx__fds_close(rs->fd, &rs->fd_lost);
		sbx__fds_close(rs->mounts_fd, &rs->mounts_lost);
	}
	sbx__notify_release(rs);
	sbx__hide_release(rs);
	free(rs->absent);
	for (unsigned i = 0; i < rs->ndropped; i++)
		free(rs->dropped[i]);
	free(rs->dropped);
	free(rs->unapplied);
	rs->unapplied = NULL;
	rs->nunapplied = 0;
	for (size_t i = 0; i < rs->ndirs; i++) {
		free(rs->dirs[i].path);
		free(rs->dirs[i].because);
		sbx__listing_free(&rs->dirs[i].kept);
	}
	free(rs->dirs);
	rs->filter = NULL; /* the process's: kept (seccomp.c) */
	free(rs->refused_text);
	rs->refused_text = NULL;
	rs->fd = rs->mounts_fd = rs->notify_fd = -1;
	rs->dropped = NULL;
	rs->ndropped = 0;
	rs->dirs = NULL;
	rs->ndirs = rs->dirs_cap = 0;
}

int sbx__ruleset_compile(const struct sbx_scope *scope, int how, struct sbx_ruleset *out)
{
	int kernel_abi = sbx__landlock_abi();
	bool once = how & SBX_COMPILE_ONCE;
	struct compiler *cc;
	int err = ENOMEM;

	*out = (struct sbx_ruleset){ .fd = -1, .mounts_fd = -1, .notify_fd = -1, .reusable = !once,
	                             .once = once, .unwatched = once || (how & SBX_COMPILE_UNWATCHED),
	                             .snapshot = (how & SBX_COMPILE_SNAPSHOT) != 0,
	                             .expand_all = (how & SBX_COMPILE_EXPAND) != 0,
	                             .kernel_abi = kernel_abi > 0 ? kernel_abi : 0 };
	if (kernel_abi == -ENOSYS || kernel_abi == -EOPNOTSUPP)
		return no_landlock(scope, out, -kernel_abi);
	if (kernel_abi < 0) {
		/* Present, as far as anyone can tell, and refusing. */
		out->confinement = SBX_OUTCOME_REFUSED;
		out->error = -kernel_abi;
		out->refusal = (struct refusal){ SBX_REFUSED_LANDLOCK, "landlock_create_ruleset(VERSION)",
		                                 NULL };
		return 0;
	}
	out->abi = scope->abi_cap && scope->abi_cap < kernel_abi ? scope->abi_cap : kernel_abi;
	if ((cc = calloc(1, sizeof(*cc)))) {
		cc->scope = scope;
		cc->out = out;
		cc->probe = how & (SBX_COMPILE_SNAPSHOT | SBX_COMPILE_PROBE);
		err = run(cc);
		if (err)
			failed(cc, err);
		sbx__closer_flush(&cc->closer);
		sbx__tree_free(&cc->tree);
		sbx__mounts_free(&cc->mounts);
		free(cc->idents);
		free(cc);
	}
	if (err)
		sbx__ruleset_release(out);
	return err;
}

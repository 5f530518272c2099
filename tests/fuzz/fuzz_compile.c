/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness over the scope API and the compiler.
 *
 * Each input builds a small random tree (directories, files, symlinks that
 * point down, up and away) and a random scope over it (deny, allow and
 * read-only, absolute and relative paths with "..", "." and "//", missing
 * names, an ABI cap).  The compile runs for real (the ruleset is created,
 * nothing is spawned) while a test-only hook records every grant.  The
 * oracle (fuzz_oracle.c) then checks, for every file and directory of the
 * tree:
 *
 *   safety:   the rights its ancestors' grants add up to never exceed what the
 *             scope asks for it (nothing at all where it is denied);
 *   liveness: where no configured path lies below it, it gets everything the
 *             scope asks for it.
 *
 * Directories with a configured path below them are "expanded": they get
 * only the rights common to their subtree, which is the design's trade.
 *
 * Some inputs race the compile as another process would: a denied path is
 * swapped (RENAME_EXCHANGE) with another entry of the tree while the
 * compile has listed its directory and not yet opened what it listed; or,
 * where the harness may mount, a denied directory is bind-mounted over
 * another directory of the tree.  Names then say little: the oracle checks
 * the inodes instead, that none that a denied path named before the race
 * got a grant (and, for a mount, safety by path, but not liveness under
 * the second name, which an expanded directory does not grant).
 *
 * Others race a kept compile: the scope is compiled through the cache a
 * spawn uses, the denied path is swapped with another entry (an atomic
 * save, a directory moved beneath a denial), and the cache asked again.
 * Whatever it hands back, reused or compiled anew, grants no inode that a
 * denied path names now.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "lib/internal.h"
#include "tests/fuzz/fuzz.h"

/* ---- the input -------------------------------------------------------- */

struct input {
	const uint8_t *p;
	size_t n;
};

static unsigned next(struct input *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static const char *const names[] = { "a", "b", "c", "d" };
#define PICK(in, arr) (arr[next(in) % (sizeof(arr) / sizeof(arr[0]))])

/* ---- the tree ------------------------------------------------------------ */

static char root[64];

static int rm_entry(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return 0;
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *e;
		char sub[PATH_MAX];

		while (d && (e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
			rm_entry(sub);
		}
		if (d)
			closedir(d);
		return rmdir(path);
	}
	return unlink(path);
}

static void build_tree(struct input *in)
{
	char dirs[16][PATH_MAX];
	int ndirs = 1, count = (int)(next(in) % 14);
	static const char *const targets[] = { "..", "../a", "a", "b/c", "/tmp", "nowhere", "." };

	rm_entry(root);
	mkdir(root, 0755);
	strcpy(dirs[0], root);
	for (int i = 0; i < count; i++) {
		const char *parent = dirs[next(in) % (unsigned)ndirs];
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/%s", parent, PICK(in, names));
		switch (next(in) % 4) {
		case 0:
			if (mkdir(path, 0755) == 0 && ndirs < 16)
				strcpy(dirs[ndirs++], path);
			break;
		case 1:
			/* Never through a link made before: nothing outside the
			 * root is made. */
			close(open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
			break;
		case 2:
			if (symlink(PICK(in, targets), path))
				break;
			break;
		default:
			break;
		}
	}
}

/* A path for a rule: absolute below the root or relative to it (the cwd). */
static void make_path(struct input *in, char *out, size_t size)
{
	static const char *const parts[] = { "a", "b", "c", "d", "..", ".", "", "zz" };
	int n = (int)(next(in) % 4);

	snprintf(out, size, "%s", next(in) % 3 ? root : "");
	for (int i = 0; i < n; i++) {
		size_t len = strlen(out);

		snprintf(out + len, size - len, "%s%s", len ? "/" : "", PICK(in, parts));
	}
	if (!*out)
		strcpy(out, ".");
	if (next(in) % 5 == 0)
		strncat(out, "/", size - strlen(out) - 1);
}

/* ---- the grants ------------------------------------------------------ */

static void record(const char *path, uint64_t access, bool dir, dev_t dev, ino_t ino, void *arg)
{
	struct grants *g = arg;

	(void)dir;
	if (g->n < sizeof(g->v) / sizeof(g->v[0])) {
		snprintf(g->v[g->n].path, PATH_MAX, "%s", path);
		g->v[g->n].dev = dev;
		g->v[g->n].ino = ino;
		g->v[g->n++].access = access;
	}
}

/* ---- races -------------------------------------------------------------- */

/* What an input asks of the world around the compile. */
static struct race {
	int kind;               /* 0 none, 1 exchange during the compile, 2 bind mount,
	                         * 3 exchange after a kept compile */
	char listed[PATH_MAX];  /* the directory whose listing starts the exchange */
	char a[PATH_MAX], b[PATH_MAX];
	bool done;
	struct stat denied[8];  /* what the denied paths were before it */
	int ndenied;
} race;

static bool can_mount;


/* The last dropped grant's reason, for the report. */
static char last_drop[PATH_MAX + 256];

static void quiet(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	if (ev->kind == SBX_EVENT_DROPPED)
		snprintf(last_drop, sizeof(last_drop), "%s", ev->message);
	if (ev->kind == SBX_EVENT_EXPAND && race.kind == 1 && !race.done &&
	    !strcmp(ev->path, race.listed)) {
		race.done = true;
		syscall(SYS_renameat2, AT_FDCWD, race.a, AT_FDCWD, race.b, 2 /* EXCHANGE */);
	}
}

/* ---- racing the compile ------------------------------------------------ */

static void collect(const char *path, char (*out)[PATH_MAX], int *n, int cap)
{
	struct stat st;
	DIR *d;
	struct dirent *e;

	if (*n >= cap || lstat(path, &st))
		return;
	snprintf(out[(*n)++], PATH_MAX, "%s", path);
	if (!S_ISDIR(st.st_mode) || !(d = opendir(path)))
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			char sub[PATH_MAX];

			snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
			collect(sub, out, n, cap);
		}
	closedir(d);
}

/* Picks what the input's race does, and remembers what the denied paths
 * were before it. */
static void plan_race(struct input *in, const struct model *m)
{
	static char entries[64][PATH_MAX];
	int n = 0, kind = (int)(next(in) % 4);
	const char *victim = NULL;

	memset(&race, 0, sizeof(race));
	for (size_t i = 0; i < m->scope->nrules && race.ndenied < 8; i++) {
		const char *p = m->scope->rules[i].path;

		if (desired_mode(m, p) == SBX_MODE_DENY && lstat(p, &race.denied[race.ndenied]) == 0) {
			race.ndenied++;
			/* Only what the harness made is moved: a path of the
			 * scope may lead out of the root (.., a symlink). */
			if (!victim && covers(root, p) && strcmp(root, p))
				victim = p;
		}
	}
	collect(root, entries, &n, 64);
	if (next(in) % 3 == 0)
		kind = 3;
	if (!victim || n < 2 || (kind != 1 && kind != 3 && !(kind == 2 && can_mount)))
		return;
	snprintf(race.b, sizeof(race.b), "%s", victim);
	snprintf(race.a, sizeof(race.a), "%s", entries[1 + next(in) % (unsigned)(n - 1)]);
	if (covers(race.a, race.b) || covers(race.b, race.a))
		return;
	snprintf(race.listed, sizeof(race.listed), "%s", race.a);
	*strrchr(race.listed, '/') = '\0';
	race.kind = kind;
	if (kind == 2) {
		struct stat a, b;

		/* A bind mount of the denial over another directory. */
		if (lstat(race.a, &a) || lstat(race.b, &b) || !S_ISDIR(a.st_mode) || !S_ISDIR(b.st_mode) ||
		    mount(race.b, race.a, NULL, MS_BIND, NULL))
			race.kind = 0;
	}
}

static void end_race(void)
{
	if (race.kind == 2)
		umount2(race.a, MNT_DETACH);
}

/* Whether a path the scope re-admits or makes read-only names (dev, ino)
 * now: by the scope's own words, that inode is granted. */
static bool named_otherwise(const struct sbx_scope *scope, dev_t dev, ino_t ino)
{
	struct stat st;

	for (size_t i = 0; i < scope->nrules; i++)
		if (scope->rules[i].mode != SBX_MODE_DENY && stat(scope->rules[i].path, &st) == 0 &&
		    st.st_dev == dev && st.st_ino == ino)
			return true;
	return false;
}

/* Whether a cover of the compile's is on grant g: on its very inode (the
 * child covers that inode, or refuses to run where the cover's path names
 * another: cover.c), or above the path it was granted at.  What a hidden
 * denial holds is hidden whatever the grants beneath it, and a grant
 * anywhere else is no more than the rest of the tree gets. */
static bool covered(const struct sbx_ruleset *rs, const struct grant *g)
{
	/* A seal takes no grant away but writes. */
	for (size_t i = 0; rs && i < rs->ncovers; i++)
		if (!rs->covers[i].ro &&
		    ((makedev(rs->covers[i].dev_major, rs->covers[i].dev_minor) == g->dev &&
		      rs->covers[i].ino == g->ino) ||
		     (covers(rs->covers[i].path, g->path) && !bound(rs, g->path))))
			return true;
	return false;
}

/* Whatever raced, no inode a denied path named before it got a grant,
 * unless a path the scope grants names it too, or a cover hides it. */
static void check_inodes(const struct sbx_scope *scope, const struct sbx_ruleset *rs,
                         const struct grants *g)
{
	for (size_t i = 0; i < g->n; i++)
		for (int k = 0; k < race.ndenied; k++)
			if (g->v[i].dev == race.denied[k].st_dev && g->v[i].ino == race.denied[k].st_ino &&
			    !named_otherwise(scope, g->v[i].dev, g->v[i].ino) &&
			    !covered(rs, &g->v[i])) {
				fprintf(stderr, "UNSAFE after a race (%d: %s, %s): %s was granted %#llx, "
				        "and is what a denied path named\n", race.kind, race.a, race.b,
				        g->v[i].path, (unsigned long long)g->v[i].access);
				abort();
			}
}

/* The kept compile of the scope, the swap, and the cache asked again:
 * no grant of what it hands back, added since or made at first, reaches
 * an inode a denied path names after the swap. */
static void race_kept(const struct sbx_scope *scope, struct grants *g)
{
	struct sbx_ruleset *first, *then;
	struct stat now[8];
	int n = 0;

	if (sbx__scope_get(scope, false, false, &first))
		return;
	if (syscall(SYS_renameat2, AT_FDCWD, race.a, AT_FDCWD, race.b, 2 /* EXCHANGE */)) {
		sbx__scope_put(first);
		return;
	}
	for (size_t i = 0; i < scope->nrules && n < 8; i++)
		if (desired_mode(&(struct model){ .scope = scope }, scope->rules[i].path) == SBX_MODE_DENY &&
		    lstat(scope->rules[i].path, &now[n]) == 0)
			n++;
	if (sbx__scope_get(scope, false, false, &then) == 0) {
		if (then == first)
			for (size_t i = 0; i < g->n; i++)
				for (int k = 0; k < n; k++)
					if (g->v[i].dev == now[k].st_dev && g->v[i].ino == now[k].st_ino &&
					    !named_otherwise(scope, g->v[i].dev, g->v[i].ino) &&
					    !covered(first, &g->v[i])) {
						fprintf(stderr, "UNSAFE reuse after a swap (%s, %s): %s "
						        "was granted %#llx, and a denied path names it now\n",
						        race.a, race.b, g->v[i].path,
						        (unsigned long long)g->v[i].access);
						abort();
					}
		sbx__scope_put(then);
	}
	sbx__scope_put(first);
	syscall(SYS_renameat2, AT_FDCWD, race.a, AT_FDCWD, race.b, 2);
}

/* ---- the harness ------------------------------------------------------- */

static void remove_root(void)
{
	if (chdir("/") == 0)
		rm_entry(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct grants g;
	struct input in = { data, size };
	sbx_scopeattr_t attr;
	struct sbx_ruleset rs;
	struct model m;
	int nrules, abi;
	char path[PATH_MAX];
	static char given[8][PATH_MAX];

	if (!root[0]) {
		snprintf(root, sizeof(root), "/tmp/sbxfuzz.%d", getpid());
		mkdir(root, 0755);
		atexit(remove_root);
		/* Mounts of its own, in a namespace of its own, where it may. */
		can_mount = geteuid() == 0 && unshare(CLONE_NEWNS) == 0 &&
		            mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0;
	}
	if (sbx__landlock_abi() <= 0)
		return 0; /* the compile would not get as far as the tree */
	build_tree(&in);
	if (chdir(root))
		abort();
	if (sbx_scopeattr_init(&attr))
		abort();
	sbx_scopeattr_setlogger(&attr, quiet, NULL);
	nrules = (int)(next(&in) % 6) + 1;
	for (int i = 0; i < nrules; i++) {
		int mode = (int)(next(&in) % 3);

		make_path(&in, path, sizeof(path));
		if ((mode == 0 ? sbx_scopeattr_adddeny : mode == 1 ? sbx_scopeattr_addallow
		                                                   : sbx_scopeattr_addreadonly)(&attr, path) == 0)
			snprintf(given[attr.__scope->nrules - 1], sizeof(given[0]), "%s", path);
	}
	abi = (int)(next(&in) % 8);
	sbx_scopeattr_setabi(&attr, abi);

	g.n = 0;
	attr.__scope->trace = record;
	attr.__scope->trace_arg = &g;
	m = (struct model){ .scope = attr.__scope, .g = &g };
	plan_race(&in, &m);
	if (race.kind == 3) {
		race_kept(attr.__scope, &g);
		sbx_scopeattr_destroy(&attr);
		return 0;
	}
	/* The input's length picks how: kept, for one exec, unwatched (no
	 * watch, no handle), or both: the grants must be the same. */
	if (sbx__ruleset_compile(attr.__scope, (int)(size & 3), &rs) == 0 &&
	    (rs.confinement == SBX_OUTCOME_CONFINED || rs.confinement == SBX_OUTCOME_NARROWED) &&
	    race.kind) {
		if (getenv("SBXFUZZ_DEBUG"))
			for (size_t i = 0; i < attr.__scope->nrules; i++)
				fprintf(stderr, "rule %d %s -> %s\n", (int)attr.__scope->rules[i].mode,
				        given[i], attr.__scope->rules[i].path);
		if (getenv("SBXFUZZ_DEBUG"))
			for (size_t i = 0; i < g.n; i++)
				fprintf(stderr, "grant %#llx %s (%llu)\n", (unsigned long long)g.v[i].access,
				        g.v[i].path, (unsigned long long)g.v[i].ino);
		check_inodes(attr.__scope, &rs, &g);
		if (race.kind == 1 && race.done)
			syscall(SYS_renameat2, AT_FDCWD, race.a, AT_FDCWD, race.b, 2);
	} else if (rs.confinement == SBX_OUTCOME_CONFINED || rs.confinement == SBX_OUTCOME_NARROWED) {
		/* Nothing changes the tree during a compile; other processes may
		 * change the directories above it, which is not the tree's
		 * business. */
		for (unsigned i = 0; i < rs.ndropped; i++)
			if (covers(root, rs.dropped[i]) && !led_to(attr.__scope, rs.dropped[i])) {
				fprintf(stderr, "NARROWED with nothing racing it: %s\n", last_drop);
				abort();
			}
		m = (struct model){ .scope = attr.__scope, .rs = &rs, .g = &g,
		                    .dir = sbx__fs_rights_known(rs.abi) &
		                           ~(LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK),
		                    .file = sbx__fs_rights_file(rs.abi),
		                    .read = sbx__fs_rights_read(rs.abi) };
		if (getenv("SBXFUZZ_DEBUG")) {
			for (size_t i = 0; i < attr.__scope->nrules; i++)
				fprintf(stderr, "rule %d %s -> %s\n", (int)attr.__scope->rules[i].mode,
				        given[i], attr.__scope->rules[i].path);
			for (size_t i = 0; i < g.n; i++)
				fprintf(stderr, "grant %#llx %s\n", (unsigned long long)g.v[i].access, g.v[i].path);
		}
		check_resolution(attr.__scope, given);
		walk(&m, root);
		check_inodes(attr.__scope, &rs, &g);
	}
	end_race();
	sbx__ruleset_release(&rs);
	sbx_scopeattr_destroy(&attr);
	return 0;
}

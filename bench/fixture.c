/* SPDX-License-Identifier: MIT */
/*
 * The fixture: a temporary tree shaped like a user's files (a home with
 * .ssh and 50 projects; a directory of 1,000 entries), made at start and
 * removed at exit; the denial lists of the two scopes over it; and
 * scope_make(), which every section's scopes come from.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "fixture.h"

/* ---- the fixture: a temporary tree shaped like a user's files --------- */

char fixture_root[PATH_MAX];

void join(char *out, const char *dir, const char *name)
{
	if (snprintf(out, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
		die("path too long: %s/%s", dir, name);
}

void make_dir(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		die("mkdir %s: %s", path, strerror(errno));
}

/* count entries named prefix0000...; every `dir_every'-th a directory
 * (0: none), the others empty files. */
void make_entries(const char *dir, const char *prefix, int count, int dir_every)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char name[NAME_MAX];

	if (dfd < 0)
		die("%s: %s", dir, strerror(errno));
	for (int i = 0; i < count; i++) {
		int fd;

		snprintf(name, sizeof(name), "%s%04d", prefix, i);
		if (dir_every && i % dir_every == 0) {
			if (mkdirat(dfd, name, 0755) && errno != EEXIST)
				die("mkdir %s/%s: %s", dir, name, strerror(errno));
			continue;
		}
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			die("create %s/%s: %s", dir, name, strerror(errno));
		close(fd);
	}
	close(dfd);
}

void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		syncfs(fd);
		close(fd);
	}
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

void remove_tree(const char *path)
{
	nftw(path, remove_one, 64, FTW_DEPTH | FTW_PHYS);
}

static void remove_base(void)
{
	if (fixture_root[0])
		remove_tree(fixture_root);
}

/* Where the fixture goes: BENCH_TMPDIR, else /var/tmp, else /tmp.  Not
 * /tmp first: other processes churn it, and every entry created or removed
 * beside the fixture's ancestors changes what a compile lists, so a reused
 * compile goes stale and the rule count moves between spawns. */
static const char *fixture_parent(void)
{
	const char *dir = getenv("BENCH_TMPDIR");

	if (dir && *dir)
		return dir;
	return access("/var/tmp", W_OK | X_OK) ? "/tmp" : "/var/tmp";
}

void make_base(void)
{
	char tmpl[PATH_MAX];

	snprintf(tmpl, sizeof(tmpl), "%s/sbxbench.XXXXXX", fixture_parent());
	if (!mkdtemp(tmpl))
		die("mkdtemp %s: %s", tmpl, strerror(errno));
	/* Canonical, so that the floor lists what the compiler lists. */
	if (!realpath(tmpl, fixture_root))
		die("%s: %s", tmpl, strerror(errno));
	atexit(remove_base);
}

/* The denials of the ~100-rule scope: three of 50 projects and the .ssh
 * of a home with 60 entries (the projects among them). */
char *deny_home[4];
/* The ~1000-rule scope: one entry of a directory of 1,000. */
char *deny_wide[1];

void make_fixture(void)
{
	static const char *const denied_projects[] = { "p0007", "p0021", "p0042" };
	char home[PATH_MAX], dir[PATH_MAX], path[PATH_MAX];

	join(home, fixture_root, "home");
	make_dir(home);
	join(dir, home, ".ssh");
	make_dir(dir);
	make_entries(dir, "key", 3, 0);
	deny_home[3] = xstrdup(dir);
	join(dir, home, "projects");
	make_dir(dir);
	make_entries(dir, "p", NPROJECTS, 1);
	for (int i = 0; i < 3; i++) {
		join(path, dir, denied_projects[i]);
		deny_home[i] = xstrdup(path);
	}
	/* .ssh and projects are two of the home's 60 entries. */
	make_entries(home, ".e", NHOME - 2, 2);

	join(dir, fixture_root, "wide");
	make_dir(dir);
	make_entries(dir, "e", NWIDE, 2);
	join(path, dir, "e0000");
	deny_wide[0] = xstrdup(path);
}

/* ---- scopes ------------------------------------------------------------ */

void scope_make_way(sbx_scopeattr_t *s, char *const *deny, int n, bool compile, int flags)
{
	int err = sbx_scopeattr_init(s);

	for (int i = 0; !err && i < n; i++)
		err = sbx_scopeattr_adddeny(s, deny[i]);
	if (!err)
		err = sbx_scopeattr_setlogger(s, quiet_logger, NULL);
	if (!err)
		err = sbx_scopeattr_setflags(s, flags);
	if (!err && compile)
		err = sbx_scopeattr_compile(s);
	if (err)
		die("scope: %s", sbx_strerror(err));
}

void scope_make(sbx_scopeattr_t *s, char *const *deny, int n, bool compile)
{
	scope_make_way(s, deny, n, compile, SBX_SCOPE_EXPAND);
}

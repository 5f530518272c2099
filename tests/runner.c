/* SPDX-License-Identifier: MIT */
/* One runner for every suite, in Check's fork mode. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/common.h"

/* A file with several names directly in a directory every test scope
 * lists (the trees live in /var/tmp, or /tmp) is dropped by each compile,
 * rightly: it may be a second name of something denied.  The tests that
 * count dropped grants, or expect a confined outcome or a reuse, then
 * fail; said first, so that the failures are not a mystery. */
static void note_linked_files(void)
{
	static const char *const dirs[] = { "/", "/var", "/var/tmp", "/tmp" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;
		struct stat st;

		while (d && (e = readdir(d)))
			if (!fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
			    !S_ISDIR(st.st_mode) && st.st_nlink > 1)
				printf("NOTE: %s%s%s has %lu names (hard links): every scope that lists "
				       "%s drops it, and the tests that count dropped grants or expect a "
				       "confined outcome fail; move it elsewhere to run them\n",
				       dirs[i], strcmp(dirs[i], "/") ? "/" : "", e->d_name,
				       (unsigned long)st.st_nlink, dirs[i]);
		if (d)
			closedir(d);
	}
}

/* What a run left in dir (its trees, a killed run's too), removed. */
static void empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			rm_rf(join(dir, e->d_name));
	if (d)
		closedir(d);
}

/* The directory for the test trees (tests/common.c): one per user and
 * build tree, in /var/tmp, made by the first run and kept (emptied at the
 * start and end of each).  The trees' ancestors are then changed by no
 * other suite: another checkout's runs use a directory of their own, and
 * /var/tmp changes no more when one starts or ends (a compile that lists
 * /var/tmp would be reused less, and a test that counts on reuse fail).
 * Searchable by the other users the tests become. */
static const char *make_run_dir(void)
{
	static char dir[64];
	unsigned hash = 2166136261u;
	struct stat st;

	for (const char *p = TOP_BUILDDIR; *p; p++)
		hash = (hash ^ (unsigned char)*p) * 16777619u;
	snprintf(dir, sizeof(dir), "/var/tmp/sbxsuite-%lu-%08x", (unsigned long)getuid(), hash);
	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(dir, sizeof(dir), "/tmp/sbxsuite-%lu-%08x", (unsigned long)getuid(), hash);
		if (mkdir(dir, 0755) && errno != EEXIST)
			goto fail;
	}
	/* Ours, a directory, not a link someone planted. */
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != getuid() || chmod(dir, 0755))
		goto fail;
	empty(dir);
	if (setenv("SBX_TEST_DIR", dir, 1))
		goto fail;
	return dir;
fail:
	perror(dir);
	exit(EXIT_FAILURE);
}

/* SBX_TEST_MUTATE=landlock, seccomp or hide: the protection switched off
 * under the whole run, by a filter of the runner's own that makes its
 * system call return 0 and do nothing (landlock_restrict_self; seccomp's
 * SET_MODE_FILTER with a program, which leaves the library's probe with a
 * NULL one as it was; the mounts that hide a denial in the child).  tests/mutation.sh runs the suite so and holds
 * every test whose subject the protection is to failing (tests/mutations). */
static void mutate(void)
{
	const char *what = getenv("SBX_TEST_MUTATE");
	int nr = 0;

	if (!what || !*what)
		return;
	if (!strcmp(what, "hide")) {
		if (mutate_hiding()) {
			fprintf(stderr, "SBX_TEST_MUTATE=hide: the filter that switches it off could "
			                "not be installed\n");
			exit(EXIT_FAILURE);
		}
		printf("MUTATION: hide switched off under the whole run: the library's mounts "
		       "(MS_SILENT) return 0 and do nothing\n");
		return;
	}
	if (!strcmp(what, "landlock"))
		nr = 446; /* landlock_restrict_self, the same in every ABI */
	else if (!strcmp(what, "seccomp"))
		nr = SYS_seccomp;
	if (!nr || mutate_filter(nr, nr == SYS_seccomp)) {
		fprintf(stderr, "SBX_TEST_MUTATE=%s: %s\n", what,
		        nr ? "the filter that switches it off could not be installed"
		           : "landlock or seccomp");
		exit(EXIT_FAILURE);
	}
	printf("MUTATION: %s switched off under the whole run: %s returns 0 and does nothing\n",
	       what, nr == SYS_seccomp ? "seccomp(SET_MODE_FILTER) of a program"
	                               : "landlock_restrict_self");
}

/* After Check's own line: how many tests said SKIP (say_skip counted them
 * in the run's directory), and again whether Landlock was there. */
static void summary(const char *run_dir, int ran, int failed, int abi)
{
	FILE *f = fopen(join(run_dir, ".skips"), "re");
	char line[4096], names[65536] = " ";
	int lines = 0, tests = 0;

	while (f && fgets(line, sizeof(line), f)) {
		char name[256];
		size_t len = strcspn(line + 5, " :(");

		lines++;
		snprintf(name, sizeof(name), " %.*s ", (int)len, line + 5);
		if (!strstr(names, name) && strlen(names) + strlen(name) < sizeof(names)) {
			strcat(names, name + 1);
			tests++;
		}
	}
	if (f)
		fclose(f);
	printf("checks: %d ran, %d failed; %d of them said SKIP (%d lines above, each with its "
	       "reason), the rest ran whole\n", ran, failed, tests, lines);
	if (abi <= 0)
		printf("Landlock: absent (%s): what needs it was not tested; this run says SKIP\n",
		       no_landlock_why());
}

int main(void)
{
	SRunner *sr;
	int failed, ran, abi = landlock_abi();
	const char *run_dir = make_run_dir();

	mutate();

	/* The suite's own search path: a caller's may hold a directory that
	 * this user cannot search (then a lookup ends in EACCES, rightly). */
	setenv("PATH", "/usr/local/bin:/usr/bin:/bin", 1);
	sr = srunner_create(suite_file_actions());

	srunner_add_suite(sr, suite_spawn());
	srunner_add_suite(sr, suite_spawn_edges());
	srunner_add_suite(sr, suite_migrate());
	srunner_add_suite(sr, suite_system());
	srunner_add_suite(sr, suite_system_calls());
	srunner_add_suite(sr, suite_childenv());
#if SBX_BUILD_LANDLOCK
	srunner_add_suite(sr, suite_concurrency());
	srunner_add_suite(sr, suite_fork());
	srunner_add_suite(sr, suite_scope());
	srunner_add_suite(sr, suite_confine());
	srunner_add_suite(sr, suite_outcomes());
	srunner_add_suite(sr, suite_sbxrun());
	srunner_add_suite(sr, suite_controls());
	srunner_add_suite(sr, suite_channels());
	srunner_add_suite(sr, suite_terminal());
	srunner_add_suite(sr, suite_errors());
	srunner_add_suite(sr, suite_escape());
	srunner_add_suite(sr, suite_hide());
	srunner_add_suite(sr, suite_hide_held());
	srunner_add_suite(sr, suite_hide_ways());
	srunner_add_suite(sr, suite_hide_race());
	srunner_add_suite(sr, suite_hide_short());
	srunner_add_suite(sr, suite_hide_moment());
	srunner_add_suite(sr, suite_hide_bind());
	srunner_add_suite(sr, suite_hide_seal());
	srunner_add_suite(sr, suite_hide_kept());
	srunner_add_suite(sr, suite_chroot());
	srunner_add_suite(sr, suite_usability());
	srunner_add_suite(sr, suite_clients());
	srunner_add_suite(sr, suite_processes());
	srunner_add_suite(sr, suite_processes_kernel());
	srunner_add_suite(sr, suite_said());
	srunner_add_suite(sr, suite_explain());
	srunner_add_suite(sr, suite_denials());
	srunner_add_suite(sr, suite_network());
	srunner_add_suite(sr, suite_lifetime());
	srunner_add_suite(sr, suite_tree());
#else
	/* The portable build: the suites that apply to it. */
	srunner_add_suite(sr, suite_scope());
	srunner_add_suite(sr, suite_portable());
#endif
	printf("build: %s; %s; %s\n", SBX_BUILD_KIND, SBX_BUILD_LIBC, SBX_BUILD_HOST);
	if (abi > 0)
		printf("Landlock: ABI %d, enforcing\n", abi);
	else
		printf("Landlock: absent (%s); every test that needs it prints SKIP\n",
		       no_landlock_why());
	note_linked_files();
	/* Each test's result as it ends, each line written at once: where the
	 * watchdog (tests/watchdog.c) stops a hang, the log shows how far the
	 * suite came. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	ran = srunner_ntests_run(sr);
	srunner_free(sr);
	summary(run_dir, ran, failed, abi);
	empty(run_dir);
	/* Without Landlock most of the suite proved nothing: automake says
	 * SKIP, not PASS, unless something failed. */
	return failed ? EXIT_FAILURE : abi <= 0 ? 77 : EXIT_SUCCESS;
}

/* SPDX-License-Identifier: MIT */
/* A caller in a chroot whose root is a directory, not a mount point (a
 * build runner's jail): the mount table it reads lists no mount at "/",
 * and its child cannot make its mounts private (the mount holding the
 * root is not in reach).  A scope still confines there: the denial is
 * expanded, everything else is reachable, and a demand to hide is refused
 * saying why.  The jail holds a copy of the helper fsop, and the host's
 * libraries bound in. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"
#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })

/* src copied to dst, executable. */
static void copy_program(const char *src, const char *dst)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out;
	char buf[65536];
	ssize_t n;

	ck_assert_msg(in >= 0, "%s: %s", src, strerror(errno));
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	ck_assert_msg(out >= 0, "%s: %s", dst, strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ck_assert_int_eq(write(out, buf, (size_t)n), n);
	ck_assert_int_eq(n, 0);
	close(in);
	close(out);
}

/* What fsop read PATH printed last, run under scope in the jail ("ok",
 * "EACCES", ...), or "spawn: ERR" where nothing ran. */
static const char *verdict(const sbx_scopeattr_t *scope, const char *path)
{
	static char said[64];
	char *out = NULL, *line;
	int status = run_scoped(scope, ARGV("/fsop", "read", (char *)path), &out);

	if (status <= -1000) {
		snprintf(said, sizeof(said), "spawn: %s", sbx_strerror(-1000 - status));
	} else {
		while (out && (line = strrchr(out, '\n')) && !line[1])
			*line = '\0';
		line = out ? strrchr(out, '\n') : NULL;
		snprintf(said, sizeof(said), "%s", line ? line + 1 : out ? out : "(nothing)");
	}
	free(out);
	return said;
}

/* In the jail: each step's verdict against what it must be; the number of
 * the first that differs (its line on stderr), or 0. */
static int in_jail(void)
{
	sbx_scopeattr_t deny, hide;
	sbx_outcome_t oc;
	const char *v;
	int step = 0;

#define EXPECT(got, want)                                                                     \
	do {                                                                                  \
		step++;                                                                       \
		if (strcmp((v = (got)), (want))) {                                           \
			fprintf(stderr, "in the jail, step %d: %s, not %s\n", step, v, want); \
			return step;                                                          \
		}                                                                             \
	} while (0)

	if (sbx_scopeattr_init(&deny) || sbx_scopeattr_init(&hide) || sbx_scopeattr_adddeny(&deny, "/d") ||
	    sbx_scopeattr_adddeny(&hide, "/d") || sbx_scopeattr_setflags(&hide, SBX_SCOPE_HIDE))
		return fprintf(stderr, "the scopes cannot be made\n"), 101;
	sbx_scopeattr_setevents(&deny, 0);
	sbx_scopeattr_setevents(&hide, 0);
	/* The positive control: with no scope the secret is read. */
	EXPECT(verdict(NULL, "/d/secret"), "ok");
	/* Denied, and the rest of the jail reachable (the table's missing
	 * root dropped every grant: EACCES everywhere). */
	EXPECT(verdict(&deny, "/d/secret"), "EACCES");
	EXPECT(verdict(&deny, "/ok/file"), "ok");
	step++;
	if (sbx_outcome_get(&oc) || oc.confinement != SBX_OUTCOME_CONFINED || oc.expanded != 1 || oc.hidden) {
		fprintf(stderr, "in the jail, step %d: %s, %u expanded, %u hidden\n", step,
		        sbx_outcome_name(oc.confinement), oc.expanded, oc.hidden);
		return step;
	}
	/* Hiding demanded: refused, nothing run. */
	EXPECT(verdict(&hide, "/d/secret"), "spawn: Invalid argument");
	sbx_scopeattr_destroy(&deny);
	sbx_scopeattr_destroy(&hide);
	return 0;
#undef EXPECT
}

/* The host's programs and libraries, shown in the jail: each directory
 * bound there, each symlink (a merged /usr's /lib) made again. */
static void jail_share(const char *jail)
{
	static const char *const shared[] = { "usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32",
		                              NULL };
	char target[4096], *to;
	struct stat st;
	ssize_t n;

	for (const char *const *d = shared; *d; d++) {
		char host[64];

		snprintf(host, sizeof(host), "/%s", *d);
		if (lstat(host, &st))
			continue;
		to = (char *)join(jail, *d);
		if (S_ISLNK(st.st_mode)) {
			ck_assert_int_gt(n = readlink(host, target, sizeof(target) - 1), 0);
			target[n] = '\0';
			ck_assert_int_eq(symlink(target, to), 0);
		} else if (S_ISDIR(st.st_mode)) {
			ck_assert_int_eq(mkdir(to, 0755), 0);
			ck_assert_msg(mount(host, to, NULL, MS_BIND | MS_REC, NULL) == 0, "bind %s: %s", host,
			              strerror(errno));
		}
	}
}

/* A jail (returned, malloc'd): a directory of a tmpfs, in a mount
 * namespace of this test's own, with the host's programs and libraries,
 * /proc and /dev/null in it, as a build runner's has.  Its root lies in a
 * filesystem no other mount in it is of.  NULL, with a SKIP line, where
 * it cannot be made. */
static char *jail_make(const char *test)
{
	char *top, *jail;

	if (geteuid()) {
		say_skip("SKIP %s: chroot(2) needs CAP_SYS_CHROOT (run as root)\n", test);
		return NULL;
	}
	if (private_mounts(test) != MOUNT_NS_PLAIN)
		return NULL;
	top = make_tmpdir();
	ck_assert_msg(mount("jail", top, "tmpfs", 0, "mode=0755") == 0, "tmpfs: %s", strerror(errno));
	ck_assert_int_ge(asprintf(&jail, "%s/jail", top), 0);
	free(top);
	ck_assert_int_eq(mkdir(jail, 0755), 0);
	for (const char *const *d = (const char *const[]){ "d", "ok", "proc", "dev", NULL }; *d; d++)
		ck_assert_int_eq(mkdir(join(jail, *d), 0755), 0);
	jail_share(jail);
	copy_program(FSOP, join(jail, "fsop"));
	write_file(join(jail, "d/secret"), "the-secret\n", 0644);
	write_file(join(jail, "ok/file"), "ok\n", 0644);
	write_file(join(jail, "dev/null"), "", 0644);
	ck_assert_msg(mount("proc", join(jail, "proc"), "proc", 0, NULL) == 0 &&
	                  mount("/dev/null", join(jail, "dev/null"), NULL, MS_BIND, NULL) == 0,
	              "mount: %s", strerror(errno));
	return jail;
}

/* The jail gone: its tmpfs detached with every mount in it (never a
 * removal that would walk into the host's directories bound there), and
 * the directory it was on removed. */
static void jail_end(char *jail)
{
	char *top = dirname(jail);

	ck_assert_int_eq(umount2(top, MNT_DETACH), 0);
	ck_assert_int_eq(rmdir(top), 0);
	free(jail);
}

/* steps, run in a child chrooted into jail: 0, or the step that failed. */
static int jailed(const char *jail, int (*steps)(void))
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (chroot(jail) || chdir("/")) {
			fprintf(stderr, "chroot: %s\n", strerror(errno));
			_exit(100);
		}
		_exit(steps());
	}
	status = wait_status(pid);
	ck_assert_msg(WIFEXITED(status), "in the jail: status %#x", (unsigned)status);
	return WEXITSTATUS(status);
}

START_TEST(test_chroot_not_a_mount)
{
	char *jail = jail_make(__func__);

	if (!jail)
		return;
	ck_assert_msg(jailed(jail, in_jail) == 0, "in the jail: its stderr above says the step");
	jail_end(jail);
}
END_TEST

/* Where another mount in the jail is of the root's filesystem, where the
 * root lies in it cannot be told, nor so whether that mount shows a
 * denial again: here it does (a bind of the denied directory), and the
 * secret stays out of reach through it. */
static int through_alias(void)
{
	sbx_scopeattr_t deny;
	char *out = NULL;
	int status;

	/* The positive control: the bind shows the secret. */
	status = run_scoped(NULL, ARGV("/fsop", "read", "/alias/secret"), &out);
	if (status || !out || !strstr(out, "the-secret"))
		return fprintf(stderr, "unconfined: %d: %s\n", status, out ? out : ""), 1;
	free(out);
	if (sbx_scopeattr_init(&deny) || sbx_scopeattr_adddeny(&deny, "/d"))
		return 2;
	sbx_scopeattr_setevents(&deny, 0);
	status = run_scoped(&deny, ARGV("/fsop", "read", "/alias/secret"), &out);
	if (out && strstr(out, "the-secret"))
		return fprintf(stderr, "ESCAPE: read through the bind: %s\n", out), 3;
	free(out);
	sbx_scopeattr_destroy(&deny);
	return 0;
}

START_TEST(test_chroot_second_name)
{
	char *jail = jail_make(__func__);

	if (!jail)
		return;
	ck_assert_int_eq(mkdir(join(jail, "alias"), 0755), 0);
	ck_assert_int_eq(mount(join(jail, "d"), join(jail, "alias"), NULL, MS_BIND, NULL), 0);
	ck_assert_msg(jailed(jail, through_alias) == 0, "in the jail: its stderr above says why");
	jail_end(jail);
}
END_TEST

Suite *suite_chroot(void)
{
	Suite *su = suite_create("chroot");
	TCase *tc = tcase_create("jail");

	untimed(tc);
	tcase_add_test(tc, test_chroot_not_a_mount);
	tcase_add_test(tc, test_chroot_second_name);
	suite_add_tcase(su, tc);
	return su;
}

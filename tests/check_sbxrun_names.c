/* SPDX-License-Identifier: MIT */
/* sbxrun, continued (check_sbxrun.c): how it reads what it is given (an
 * ambiguous prefix, option syntax, a tilde, names escaped when said), the
 * command it cannot run, other uids, an absent denial, privilege, no
 * Landlock, its build, and sbxrun inside sbxrun. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"
#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"

static int sbxrun(char *const argv[], char **out)
{
	return run_scoped(NULL, argv, out);
}

static void ambiguous(const char *prefix, const char *const *candidates, const char *trace)
{
	char *argv[] = { SBXRUN, (char *)prefix, "touch", (char *)trace, NULL };
	char *out;

	ck_assert_int_eq(sbxrun(argv, &out), 125);
	ck_assert_msg(strstr(out, "is ambiguous"), "%s: %s", prefix, out);
	for (; *candidates; candidates++)
		ck_assert_msg(strstr(out, *candidates), "%s: %s not named in: %s", prefix, *candidates, out);
	ck_assert_ptr_nonnull(strstr(out, "Try 'sbxrun --help'"));
	ck_assert_int_ne(access(trace, F_OK), 0);
	free(out);
}

START_TEST(test_sbxrun_ambiguous_prefix)
{
	static const char *const no[] = { "--no-tcp-bind", "--no-tcp-connect", "--no-abstract-unix",
		                          "--no-signal", "--no-unix-connect", "--no-io-uring",
		                          "--no-network", NULL };
	static const char *const tcp[] = { "--no-tcp-bind", "--no-tcp-connect", NULL };
	static const char *const allow_tcp[] = { "--allow-tcp-bind", "--allow-tcp-connect", NULL };
	struct tree t;
	char *out;

	tree_make(&t);
	ambiguous("--no", no, join(t.top, "ran"));
	ambiguous("--no-", no, join(t.top, "ran"));
	ambiguous("--no-tcp", tcp, join(t.top, "ran"));
	/* Only the options it is a prefix of. */
	char *argv[] = { SBXRUN, "--no-tcp", "true", NULL };
	ck_assert_int_eq(sbxrun(argv, &out), 125);
	ck_assert_ptr_null(strstr(out, "--no-signal"));
	free(out);
	ambiguous("--allow-tcp", allow_tcp, join(t.top, "ran"));
	tree_free(&t);
}
END_TEST

/* sbxrun's own messages name what it was given: a name with a newline
 * is escaped there as in the library's events, and makes no second line. */
START_TEST(test_sbxrun_names_escaped)
{
	char *out;

	char *user[] = { SBXRUN, "--uid", "x\nsbxrun: forged", "true", NULL };
	ck_assert_int_eq(sbxrun(user, &out), 125);
	ck_assert_str_eq(out, "sbxrun: --uid takes a user name or number, not 'x\\nsbxrun: forged'\n"
	                      "Try 'sbxrun --help' for more information.\n");
	free(out);
	char *missing[] = { SBXRUN, "--quiet", "--", "/nonexistent\nsbxrun: forged\x1b[2J", NULL };
	ck_assert_int_eq(sbxrun(missing, &out), 127);
	ck_assert_str_eq(out, "sbxrun: /nonexistent\\nsbxrun: forged\\x1b[2J: No such file or "
	                      "directory\n");
	free(out);
	/* C1 (CSI, U+009B, a terminal's escape in one character), a byte that
	 * is no UTF-8, a sequence cut short: escaped; a letter beyond ASCII
	 * (U+00E9) printed as it is. */
	char *c1[] = { SBXRUN, "--quiet", "--", "/nonexistent\xc2\x9b" "2J\xff\xe2\x82-\xc3\xa9", NULL };
	ck_assert_int_eq(sbxrun(c1, &out), 127);
	ck_assert_str_eq(out, "sbxrun: /nonexistent\\xc2\\x9b2J\\xff\\xe2\\x82-\xc3\xa9: No such file or "
	                      "directory\n");
	free(out);
	/* A right-to-left override (U+202E) and a line separator (U+2028):
	 * escaped, each byte. */
	char *bidi[] = { SBXRUN, "--quiet", "--", "/nonexistent\xe2\x80\xae" "cod\xe2\x80\xa8x", NULL };
	ck_assert_int_eq(sbxrun(bidi, &out), 127);
	ck_assert_str_eq(out, "sbxrun: /nonexistent\\xe2\\x80\\xaecod\\xe2\\x80\\xa8x: No such file or "
	                      "directory\n");
	free(out);
}
END_TEST

/* "~" at the start of a path option's value, "--deny=~/x" included (the
 * shell leaves a "~" after "=" as it is): the home directory, as the shell
 * would have expanded "--deny ~/x"; "~user" that user's; a user with no
 * home refused with a line saying why, never a literal "~" denied. */
START_TEST(test_sbxrun_tilde)
{
	char home[4200], key[4300], *out;
	struct tree t;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	snprintf(home, sizeof(home), "%s/home", t.top);
	snprintf(key, sizeof(key), "%s/.ssh/key", home);
	ck_assert(mkdir(home, 0755) == 0 && mkdir(join(home, ".ssh"), 0700) == 0);
	write_file(key, "the-secret\n", 0600);
	ck_assert_int_eq(setenv("HOME", home, 1), 0);
	/* The control: no scope, the key reads. */
	char *plain[] = { SBXRUN, "--quiet", FSOP, "read", key, NULL };
	ck_assert_int_eq(sbxrun(plain, &out), 0);
	free(out);
	char *eq[] = { SBXRUN, "--quiet", "--deny=~/.ssh", FSOP, "read", key, NULL };
	ck_assert_int_eq(sbxrun(eq, &out), 1);
	ck_assert_msg(!strstr(out, "the-secret"), "%s", out);
	free(out);
	char *apart[] = { SBXRUN, "--quiet", "--readonly", "~", "--deny", "~/.ssh", FSOP, "read", key, NULL };
	ck_assert_int_eq(sbxrun(apart, &out), 1);
	free(out);
	char *nouser[] = { SBXRUN, "--deny=~sbx-no-such-user/.ssh", "true", NULL };
	ck_assert_int_eq(sbxrun(nouser, &out), 125);
	ck_assert_msg(strstr(out, "sbxrun: --deny ~sbx-no-such-user/.ssh: no user 'sbx-no-such-user' has a "
	                          "home directory"), "%s", out);
	free(out);
	tree_free(&t);
}
END_TEST

/* A command the scope denies: the line names the denial that holds it,
 * by path and found on PATH, expanded (EACCES, 126) and hidden (not found
 * there, 127); a command that is not there at all is only not found. */
START_TEST(test_sbxrun_denied_command)
{
	static const char *const ways[] = { "--expand", "--hide" };
	char prog[4200], path[8400], want[4400], *out;
	struct tree t;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	snprintf(prog, sizeof(prog), "%s/prog", t.other);
	write_file(prog, "#!/bin/sh\necho ran\n", 0755);
	snprintf(want, sizeof(want), "is in the denial %s\n", t.other);
	char *plain[] = { SBXRUN, "--quiet", prog, NULL };
	ck_assert_int_eq(sbxrun(plain, &out), 0);
	ck_assert_str_eq(out, "ran\n");
	free(out);
	for (size_t w = 0; w < 2; w++) {
		int status = w ? 127 : 126;
		char *by_path[] = { SBXRUN, "--quiet", (char *)ways[w], "--deny", t.other, prog, NULL };
		char *by_name[] = { SBXRUN, "--quiet", (char *)ways[w], "--deny", t.other, "prog", NULL };
		char *absent[] = { SBXRUN, "--quiet", (char *)ways[w], "--deny", t.other, "sbx-no-such-prog", NULL };

		/* Where no denial can be hidden (SBXSPAWN_EXPAND, user
		 * namespaces refused), --hide runs nothing (its scope is not
		 * compiled: EINVAL). */
		if (w && sbxrun(by_path, &out) == 125 && strstr(out, "could not be compiled")) {
			say_skip("SKIP %s (hidden): no denial can be hidden here (SBXSPAWN_EXPAND, or user "
			         "namespaces refused): --hide runs nothing\n", __func__);
			free(out);
			break;
		}
		if (w)
			free(out);
		ck_assert_int_eq(sbxrun(by_path, &out), status);
		ck_assert_msg(strstr(out, want) && !strstr(out, "ran"), "%s", out);
		free(out);
		snprintf(path, sizeof(path), "%s:%s", t.other, getenv("PATH"));
		ck_assert_int_eq(setenv("PATH", path, 1), 0);
		ck_assert_int_eq(sbxrun(by_name, &out), status);
		ck_assert_msg(!strncmp(out, "sbxrun: prog: ", 14) && strstr(out, want), "%s", out);
		free(out);
		ck_assert_int_eq(sbxrun(absent, &out), 127);
		ck_assert_msg(!strstr(out, "denial"), "%s", out);
		free(out);
		ck_assert_int_eq(setenv("PATH", path + strlen(t.other) + 1, 1), 0);
	}
	tree_free(&t);
}
END_TEST

/* --uid where the child could not take the ids (no CAP_SETUID and
 * CAP_SETGID: a regular user, or root without them): refused before
 * anything is said of the ids, with one line saying what it needs. */
START_TEST(test_sbxrun_uid_unprivileged)
{
	char *out;
	char *as_user[] = { SBXRUN, "--uid", "root", "/bin/echo", "ran", NULL };
	char *as_root[] = { "setpriv", "--bounding-set", "-setuid,-setgid", "--", SBXRUN, "--uid", "nobody",
	                    "/bin/echo", "ran", NULL };

	ck_assert_int_eq(sbxrun(geteuid() ? as_user : as_root, &out), 125);
	ck_assert_msg(!strncmp(out, "sbxrun: --uid: running a command as another user needs the "
	                            "capabilities to change ids", strlen("sbxrun: --uid: running a "
	                            "command as another user needs the capabilities to change ids")) &&
	                  !strstr(out, "\nran\n") && !strstr(out, "commands run as root") && !strstr(out, "setgroups"),
	              "%s", out);
	free(out);
}
END_TEST

/* A denial of a path that is not there (mistyped, as often as not) is
 * said, once, naming it; --quiet, wherever it stands, leaves it out. */
START_TEST(test_sbxrun_absent_denial)
{
	char ghost[4200], want[4400], *out;
	struct tree t;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	snprintf(ghost, sizeof(ghost), "%s/.shh", t.top);
	snprintf(want, sizeof(want), "sbxrun: --deny %s: not there (mistyped?): the command can "
	         "neither reach nor make it\n", ghost);
	char *told[] = { SBXRUN, "--expand", "--deny", ghost, "--deny", t.other, "/bin/echo", "ran", NULL };
	ck_assert_int_eq(sbxrun(told, &out), 0);
	ck_assert_msg(strstr(out, want) && !strstr(strstr(out, want) + strlen(want), "not there") &&
	                  strstr(out, "ran\n"),
	              "%s", out);
	free(out);
	char *quiet[] = { SBXRUN, "--deny", ghost, "--quiet", "/bin/echo", "ran", NULL };
	ck_assert_int_eq(sbxrun(quiet, &out), 0);
	ck_assert_str_eq(out, "ran\n");
	free(out);
	/* From the environment (--env), not typed here: not said as --deny. */
	ck_assert_int_eq(setenv("ABS_SBX_DENY", ghost, 1), 0);
	char *env[] = { SBXRUN, "--expand", "--env", "ABS_SBX", "/bin/echo", "ran", NULL };
	ck_assert_int_eq(sbxrun(env, &out), 0);
	ck_assert_msg(!strstr(out, "--deny") && strstr(out, "ran\n"), "%s", out);
	free(out);
	tree_free(&t);
}
END_TEST

START_TEST(test_sbxrun_option_syntax)
{
	struct tree t;
	char *out, deny_eq[4200], den_eq[4200];

	REQUIRE_LANDLOCK();
	tree_make(&t);
	/* An unambiguous prefix means its option. */
	char *den[] = { SBXRUN, "--expa", "--den", t.other, FSOP, "read", t.secret, NULL };
	ck_assert_int_eq(sbxrun(den, &out), 1);
	ck_assert_ptr_nonnull(strstr(out, "EACCES"));
	free(out);
	/* The argument after "=", with the full name or a prefix. */
	snprintf(deny_eq, sizeof(deny_eq), "--deny=%s", t.other);
	char *eq[] = { SBXRUN, deny_eq, FSOP, "read", t.secret, NULL };
	ck_assert_int_eq(sbxrun(eq, &out), 1);
	ck_assert_msg(strstr(out, "EACCES") || strstr(out, "ENOENT"), "%s", out); /* hidden: ENOENT */
	free(out);
	snprintf(den_eq, sizeof(den_eq), "--den=%s", t.other);
	char *peq[] = { SBXRUN, den_eq, FSOP, "read", t.secret, NULL };
	ck_assert_int_eq(sbxrun(peq, &out), 1);
	ck_assert_msg(strstr(out, "EACCES") || strstr(out, "ENOENT"), "%s", out); /* hidden: ENOENT */
	free(out);
	/* An exact name wins over the longer options it is a prefix of:
	 * --allow, not --allow-tcp-bind or --allow-tcp-connect. */
	char *exact[] = { SBXRUN, "--deny", t.projects, "--allow", t.other, FSOP, "read", t.secret, NULL };
	ck_assert_int_eq(sbxrun(exact, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "the-secret"));
	free(out);
	/* A missing argument names the option, by its full name. */
	char *missing[] = { SBXRUN, "--den", NULL };
	ck_assert_int_eq(sbxrun(missing, &out), 125);
	ck_assert_ptr_nonnull(strstr(out, "'--deny'"));
	ck_assert_ptr_nonnull(strstr(out, "argument"));
	free(out);
	/* An argument to an option that takes none. */
	char *extra[] = { SBXRUN, "--strict=yes", "true", NULL };
	ck_assert_int_eq(sbxrun(extra, &out), 125);
	ck_assert_ptr_nonnull(strstr(out, "'--strict'"));
	free(out);
	/* Options end at the first operand and after "--". */
	char *operand[] = { SBXRUN, "--quiet", "echo", "--no", NULL };
	ck_assert_int_eq(sbxrun(operand, &out), 0);
	ck_assert_str_eq(out, "--no\n");
	free(out);
	char *dashes[] = { SBXRUN, "--", "--no", NULL };
	ck_assert_int_eq(sbxrun(dashes, &out), 127);
	free(out);
	/* Unknown options, long and short. */
	char *unknown[] = { SBXRUN, "--frobnicate=1", "true", NULL };
	ck_assert_int_eq(sbxrun(unknown, &out), 125);
	ck_assert_ptr_nonnull(strstr(out, "unknown option '--frobnicate=1'"));
	free(out);
	char *shrt[] = { SBXRUN, "-d", t.other, "true", NULL };
	ck_assert_int_eq(sbxrun(shrt, &out), 125);
	ck_assert_ptr_nonnull(strstr(out, "unknown option '-d'"));
	free(out);
	tree_free(&t);
}
END_TEST

/* --uid, --gid, --drop-caps: a command started by root keeps nothing of
 * it; without them, sbxrun says what the command keeps. */
START_TEST(test_sbxrun_privilege)
{
	char *out;

	REQUIRE_LANDLOCK();
	if (geteuid() != 0) {
		say_skip("SKIP %s: needs root, to have privilege to keep or drop\n", __func__);
		return;
	}
	char *kept[] = { SBXRUN, "--deny", "/srv/sbx-none", FSOP, "openw",
	                 "/proc/sys/kernel/core_pattern", NULL };
	ck_assert_int_eq(sbxrun(kept, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "sbxrun: confined commands run as root (uid 0)"));
	ck_assert_ptr_nonnull(strstr(out, "--uid/--gid"));
	free(out);
	char *dropped[] = { SBXRUN, "--uid", "nobody", "--drop-caps", "--deny", "/srv/sbx-none",
	                    FSOP, "openw", "/proc/sys/kernel/core_pattern", NULL };
	if (nobody_can_run(FSOP, __func__, "--uid nobody")) {
		ck_assert_int_eq(sbxrun(dropped, &out), 1);
		/* Nothing said of privilege: the denial's absence alone. */
		ck_assert_str_eq(out, "sbxrun: --deny /srv/sbx-none: not there (mistyped?): the command "
		                      "can neither reach nor make it\nEACCES\n");
		free(out);
	}
	char *numbers[] = { SBXRUN, "--uid", "65534", "--gid", "65534", "--drop-caps", "/bin/sh",
	                    "-c", "id -u; id -g; id -G; grep CapEff /proc/self/status", NULL };
	ck_assert_int_eq(sbxrun(numbers, &out), 0);
	ck_assert_str_eq(out, "65534\n65534\n65534\nCapEff:\t0000000000000000\n");
	free(out);
	char *lonely[] = { SBXRUN, "--gid", "65534", "true", NULL };
	ck_assert_int_eq(sbxrun(lonely, &out), 125);
	ck_assert_ptr_nonnull(strstr(out, "--gid needs --uid"));
	free(out);
	char *bad[] = { SBXRUN, "--uid", "no-such-user-here", "true", NULL };
	ck_assert_int_eq(sbxrun(bad, &out), 125);
	free(out);
	char *status[] = { SBXRUN, "--status", NULL };
	ck_assert_int_eq(sbxrun(status, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "privilege: uid 0, with capabilities"));
	free(out);
}
END_TEST

START_TEST(test_sbxrun_without_landlock)
{
	struct tree t;
	char *out;

	tree_make(&t);
	seccomp_fail(SYS_landlock_create_ruleset, ENOSYS);
	char *status[] = { SBXRUN, "--status", NULL };
	ck_assert_int_eq(sbxrun(status, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "Landlock: absent: not built into this kernel"));
	free(out);
	/* Unconfined, said once ... */
	char *open_[] = { SBXRUN, "--deny", t.other, FSOP, "read", t.secret, NULL };
	ck_assert_int_eq(sbxrun(open_, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "run unconfined"));
	free(out);
	/* ... or refused with --require. */
	char *req[] = { SBXRUN, "--require", "--deny", t.other, FSOP, "read", t.secret, NULL };
	ck_assert_int_eq(sbxrun(req, &out), 125);
	ck_assert_ptr_nonnull(strstr(out, "no Landlock"));
	ck_assert_ptr_null(strstr(out, "the-secret"));
	free(out);
	tree_free(&t);
}
END_TEST

/* --version and --status say which build this is: Landlock, the C
 * library, the host. */
START_TEST(test_sbxrun_build)
{
	const char *want = "build: Landlock; " SBX_BUILD_LIBC "; " SBX_BUILD_HOST "\n";
	char *out;

	char *version[] = { SBXRUN, "--version", NULL };
	ck_assert_int_eq(sbxrun(version, &out), 0);
	ck_assert_msg(strstr(out, want) != NULL, "no \"%s\" in: %s", want, out);
	free(out);
	char *status[] = { SBXRUN, "--status", NULL };
	ck_assert_int_eq(sbxrun(status, &out), 0);
	ck_assert_msg(!strncmp(out, want, strlen(want)), "\"%s\" does not begin: %s", want, out);
	free(out);
}
END_TEST

START_TEST(test_sbxrun_nested)
{
	struct tree t;
	char *out;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	/* An inner sbxrun that denies nothing, or re-admits the denied path,
	 * cannot widen what the outer one allowed. */
	char *inner[] = { SBXRUN, "--expand", "--deny", t.other, SBXRUN, "--readonly", "/", FSOP, "read",
	                  t.secret, NULL };
	ck_assert_int_eq(sbxrun(inner, &out), 1);
	ck_assert_ptr_nonnull(strstr(out, "EACCES"));
	free(out);
	char *readmit[] = { SBXRUN, "--expand", "--deny", t.other, SBXRUN, "--allow", t.other, FSOP, "read",
	                    t.secret, NULL };
	ck_assert_int_eq(sbxrun(readmit, &out), 1);
	ck_assert_ptr_nonnull(strstr(out, "EACCES"));
	free(out);
	tree_free(&t);
}
END_TEST

void sbxrun_names_tests(TCase *tc)
{
	tcase_add_test(tc, test_sbxrun_build);
	tcase_add_test(tc, test_sbxrun_ambiguous_prefix);
	tcase_add_test(tc, test_sbxrun_names_escaped);
	tcase_add_test(tc, test_sbxrun_tilde);
	tcase_add_test(tc, test_sbxrun_denied_command);
	tcase_add_test(tc, test_sbxrun_uid_unprivileged);
	tcase_add_test(tc, test_sbxrun_absent_denial);
	tcase_add_test(tc, test_sbxrun_option_syntax);
	tcase_add_test(tc, test_sbxrun_privilege);
	tcase_add_test(tc, test_sbxrun_without_landlock);
	tcase_add_test(tc, test_sbxrun_nested);
}

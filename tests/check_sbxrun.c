/* SPDX-License-Identifier: MIT */
/* sbx_execve / sbx_execvpe, and the sbxrun launcher built on them. */
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

static void quiet(const sbx_event_t *ev, void *arg)
{
	(void)ev;
	(void)arg;
}

/* ---- sbx_execve ------------------------------------------------------------ */

/* Forks; the child runs fn and exits with what it returns. */
static int in_child(int (*fn)(const struct tree *), const struct tree *t)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(fn(t));
	return wait_status(pid);
}

static int execve_denied(const struct tree *t)
{
	sbx_scopeattr_t s;
	char *argv[] = { FSOP, "read", (char *)t->secret, NULL };
	int fd = open("/dev/null", O_WRONLY);

	dup2(fd, 1);
	sbx_scopeattr_init(&s);
	sbx_scopeattr_adddeny(&s, t->other);
	sbx_execve(FSOP, &s, argv, environ);
	return 99;
}

static int execve_missing(const struct tree *t)
{
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	char *argv[] = { "x", NULL };
	int err;

	sbx_scopeattr_init(&s);
	sbx_scopeattr_adddeny(&s, t->other);
	err = sbx_execvpe("sbx-no-such-program", &s, argv, environ);
	if (err != ENOENT || sbx_outcome_get(&oc) || oc.stage != SBX_STAGE_EXEC ||
	    oc.confinement != SBX_OUTCOME_CONFINED)
		return 2;
	/* The exec failed after confinement: this process is confined now
	 * (the denial hidden, as root an empty directory covers it). */
	return open(t->secret, O_RDONLY) < 0 &&
	               (errno == EACCES || (oc.hidden && errno == ENOENT)) ? 0 : 3;
}

static int execve_refused(const struct tree *t)
{
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	char *argv[] = { FSOP, NULL };
	int err;

	sbx_scopeattr_init(&s);
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	sbx_scopeattr_adddeny(&s, t->other);
	/* Expanded: a hidden denial is covered before Landlock refuses
	 * (sbx_execve(3)). */
	expand_way(&s);
	seccomp_fail(SYS_landlock_restrict_self, EPERM);
	err = sbx_execve(FSOP, &s, argv, environ);
	if (err != SBX_EREFUSED || sbx_outcome_get(&oc) || oc.confinement != SBX_OUTCOME_REFUSED ||
	    oc.error != EPERM)
		return 2;
	/* Refused before anything was applied: still unconfined. */
	return open(t->secret, O_RDONLY) >= 0 ? 0 : 3;
}

START_TEST(test_execve_states)
{
	struct tree t;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	ck_assert_int_eq(WEXITSTATUS(in_child(execve_denied, &t)), 1);
	ck_assert_int_eq(WEXITSTATUS(in_child(execve_missing, &t)), 0);
	ck_assert_int_eq(WEXITSTATUS(in_child(execve_refused, &t)), 0);
	tree_free(&t);
}
END_TEST

/* The refused child's own exit status, seen as the kernel reports it in
 * SIGCHLD before the library reaps the child. */
static volatile sig_atomic_t chld_status = -1, chld_code;

static void on_chld(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)ctx;
	chld_status = si->si_status;
	chld_code = si->si_code;
}

START_TEST(test_refused_child_exit_status)
{
	struct tree t;
	sbx_scopeattr_t s;
	struct sigaction sa = { .sa_sigaction = on_chld, .sa_flags = SA_SIGINFO };
	char *argv[] = { FSOP, NULL };
	pid_t pid;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	/* A first spawn, so that only the refused child signals below. */
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, NULL, argv, environ), 0);
	wait_status(pid);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	sbx_scopeattr_init(&s);
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	sbx_scopeattr_adddeny(&s, t.other);
	seccomp_fail(SYS_landlock_restrict_self, EPERM);
	ck_assert_int_eq(sbx_posix_spawn(&pid, FSOP, NULL, NULL, &s, argv, environ), SBX_EREFUSED);
	ck_assert_int_eq(chld_code, CLD_EXITED);
	ck_assert_int_eq(chld_status, SBX_EXIT_REFUSED);
	ck_assert_int_ne(SBX_EXIT_REFUSED, 127);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

/* ---- sbxrun ------------------------------------------------------------------ */

static int sbxrun(char *const argv[], char **out)
{
	return run_scoped(NULL, argv, out);
}

START_TEST(test_sbxrun_statuses)
{
	struct tree t;
	char *out;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	/* The command's own status, and 128+N for a signal. */
	char *own[] = { SBXRUN, "--deny", t.other, "--", "sh", "-c", "exit 7", NULL };
	ck_assert_int_eq(sbxrun(own, &out), 7);
	free(out);
	char *sig[] = { SBXRUN, "--deny", t.other, "sh", "-c", "kill -TERM $$", NULL };
	ck_assert_int_eq(sbxrun(sig, &out), 128 + SIGTERM);
	free(out);
	/* 127: not found. */
	char *nf[] = { SBXRUN, "--deny", t.other, "sbx-no-such-program", NULL };
	ck_assert_int_eq(sbxrun(nf, &out), 127);
	ck_assert_ptr_nonnull(strstr(out, "sbxrun: sbx-no-such-program: No such file or directory"));
	free(out);
	/* 126: found, cannot be executed. */
	char *nx[] = { SBXRUN, "/etc/passwd", NULL };
	ck_assert_int_eq(sbxrun(nx, &out), 126);
	free(out);
	/* ... including a program the scope denies. */
	write_file(join(t.other, "tool"), "#!/bin/sh\necho ran\n", 0755);
	char *dx[] = { SBXRUN, "--expand", "--deny", t.other, (char *)join(t.other, "tool"), NULL };
	ck_assert_int_eq(sbxrun(dx, &out), 126);
	ck_assert_ptr_null(strstr(out, "ran"));
	free(out);
	/* 125: sbxrun itself: bad options, no command, a refused ruleset. */
	char *bad[] = { SBXRUN, "--frobnicate", "true", NULL };
	ck_assert_int_eq(sbxrun(bad, &out), 125);
	ck_assert_ptr_nonnull(strstr(out, "--help"));
	free(out);
	char *none[] = { SBXRUN, "--deny", t.other, NULL };
	ck_assert_int_eq(sbxrun(none, &out), 125);
	free(out);
	char *abi[] = { SBXRUN, "--abi", "12", "true", NULL };
	ck_assert_int_eq(sbxrun(abi, &out), 125);
	free(out);
	char *missing[] = { SBXRUN, "--deny", NULL };
	ck_assert_int_eq(sbxrun(missing, &out), 125);
	free(out);
	tree_free(&t);
}
END_TEST

/* --env PREFIX: the environment convention, as a program that reads it
 * takes it; added to the options; a variable that cannot be applied is
 * named; the command sees none of them. */
START_TEST(test_sbxrun_env)
{
	struct tree t;
	char *out, deny[4200], allow[4200];

	REQUIRE_LANDLOCK();
	tree_make(&t);
	snprintf(deny, sizeof(deny), "T_RUN_DENY=%s", t.projects);
	snprintf(allow, sizeof(allow), "T_RUN_ALLOW=%s", t.other);
	/* Re-admitted inside the environment's denial, which an option's
	 * denial adds to. */
	char *read[] = { "env", deny, allow, "T_RUN_QUIET=1", SBXRUN, "--env", "T_RUN", "--deny",
		         t.third, FSOP, "read", t.secret, NULL };
	ck_assert_int_eq(sbxrun(read, &out), 0);
	free(out);
	char *mine[] = { "env", deny, allow, SBXRUN, "--env", "T_RUN", FSOP, "read",
		         (char *)join(t.mine, "file"), NULL };
	ck_assert_int_eq(sbxrun(mine, &out), 1);
	/* Hidden, the re-admission bound back into its cover: not there. */
	ck_assert_msg(strstr(out, "EACCES") || strstr(out, "ENOENT"), "%s", out);
	free(out);
	char *third[] = { "env", allow, SBXRUN, "--deny", t.third, "--env", "T_RUN", FSOP, "read",
		          (char *)join(t.third, "file"), NULL };
	ck_assert_int_eq(sbxrun(third, &out), 1);
	free(out);
	char *seen[] = { "env", deny, "T_RUN_OTHER=kept", SBXRUN, "--env", "T_RUN", "sh", "-c",
		         "env | grep '^T_RUN_'", NULL };
	ck_assert_int_eq(sbxrun(seen, &out), 0);
	ck_assert_ptr_null(strstr(out, "T_RUN_DENY"));
	ck_assert_ptr_nonnull(strstr(out, "T_RUN_OTHER=kept"));
	free(out);
	char *bad[] = { "env", deny, "T_RUN_TMPDIR=/nonexistent/tmp", SBXRUN, "--env", "T_RUN",
		        "true", NULL };
	ck_assert_int_eq(sbxrun(bad, &out), 125);
	ck_assert_ptr_nonnull(strstr(out, "sbxrun: T_RUN_TMPDIR: /nonexistent/tmp: No such file"));
	free(out);
	char *nothing[] = { "env", "T_RUN_DENY=::", SBXRUN, "--env", "T_RUN", FSOP, "read",
		            t.secret, NULL };
	ck_assert_int_eq(sbxrun(nothing, &out), 0);
	free(out);
	tree_free(&t);
}
END_TEST

START_TEST(test_sbxrun_refused)
{
	struct tree t;
	char *out;
	char *argv[] = { SBXRUN, "--quiet", "--deny", NULL, FSOP, "read", NULL, NULL };

	REQUIRE_LANDLOCK();
	tree_make(&t);
	argv[3] = t.other;
	argv[6] = t.secret;
	seccomp_fail(SYS_landlock_restrict_self, EPERM);
	ck_assert_int_eq(sbxrun(argv, &out), SBX_EXIT_REFUSED);
	/* One line, even with --quiet, and the command never ran. */
	ck_assert_ptr_nonnull(strstr(out, "sbxrun: " FSOP ": not run: Landlock refused the ruleset"));
	ck_assert_ptr_null(strstr(out, "the-secret"));
	ck_assert_ptr_null(strstr(out, "ok"));
	ck_assert_int_eq((int)(strchr(out, '\n') - out), (int)strlen(out) - 1);
	free(out);
	tree_free(&t);
}
END_TEST

START_TEST(test_sbxrun_options)
{
	struct tree t;
	char *out;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	char *deny[] = { SBXRUN, "--expand", "--deny", t.other, FSOP, "read", t.secret, NULL };
	ck_assert_int_eq(sbxrun(deny, &out), 1);
	ck_assert_ptr_nonnull(strstr(out, "EACCES"));
	free(out);
	char *allow[] = { SBXRUN, "--deny", t.projects, "--allow", t.other, FSOP, "read", t.secret, NULL };
	ck_assert_int_eq(sbxrun(allow, &out), 0);
	free(out);
	char *ro[] = { SBXRUN, "--readonly", t.other, FSOP, "write", t.secret, NULL };
	ck_assert_int_eq(sbxrun(ro, &out), 1);
	ck_assert_ptr_nonnull(strstr(out, "EACCES") ? out : strstr(out, "EROFS")); /* sealed */
	free(out);
	/* --abi 1: cross-directory links are refused outright. */
	char *abi[] = { SBXRUN, "--abi", "1", "--deny", t.other, FSOP, "link",
	                (char *)join(t.mine, "file"), (char *)join(t.third, "l"), NULL };
	ck_assert_int_eq(sbxrun(abi, &out), 1);
	ck_assert_ptr_nonnull(strstr(out, "EXDEV"));
	free(out);
	/* --require on a kernel with Landlock: runs. */
	char *req[] = { SBXRUN, "--require", "--deny", t.other, "true", NULL };
	ck_assert_int_eq(sbxrun(req, &out), 0);
	free(out);
	/* --quiet silences warnings: a denial of / is ignored, and said so unless quiet. */
	char *loud[] = { SBXRUN, "--deny", "/", "true", NULL };
	ck_assert_int_eq(sbxrun(loud, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "sbxrun: not denying /"));
	free(out);
	char *hush[] = { SBXRUN, "--quiet", "--deny", "/", "true", NULL };
	ck_assert_int_eq(sbxrun(hush, &out), 0);
	ck_assert_str_eq(out, "");
	free(out);
	char *help[] = { SBXRUN, "--help", NULL };
	ck_assert_int_eq(sbxrun(help, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "Usage: sbxrun [OPTIONS] [--] COMMAND [ARG]..."));
	free(out);
	char *version[] = { SBXRUN, "--version", NULL };
	ck_assert_int_eq(sbxrun(version, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "sbxrun (libsbxspawn) " PACKAGE_VERSION));
	free(out);
	char *status[] = { SBXRUN, "--status", NULL };
	ck_assert_int_eq(sbxrun(status, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "Landlock: enforcing, ABI"));
	ck_assert_ptr_nonnull(strstr(out, "read_file"));
	ck_assert_ptr_nonnull(strstr(out, "no_new_privs: can be set"));
	free(out);
	tree_free(&t);
}
END_TEST

/* A first run's child plants a symlink where the scope lets it write,
 * pointing into the denial; the next run with the same options builds its
 * scope anew, and must not take that path for a re-admission of what the
 * link points at: it says so and leaves it out, or, --strict, runs
 * nothing. */
START_TEST(test_sbxrun_planted_symlink)
{
	struct tree t;
	char *out, cache[4096], plant[8192], said[8192], target[4096];
	ssize_t n;

	REQUIRE_LANDLOCK();
	tree_make(&t);
	mkdir(join(t.top, "scratch"), 0755);
	snprintf(cache, sizeof(cache), "%s/scratch/cache", t.top);
	snprintf(plant, sizeof(plant), "ln -s %s %s", t.other, cache);
	char *first[] = { SBXRUN, "--deny", t.projects, "--allow", t.mine, "--allow", cache, "--",
		          "sh", "-c", plant, NULL };
	ck_assert_int_eq(sbxrun(first, &out), 0);
	free(out);
	n = readlink(cache, target, sizeof(target) - 1);
	ck_assert_int_gt(n, 0);
	target[n] = '\0';
	ck_assert_str_eq(target, t.other);
	/* The next run: the secret stays denied, by its name and the link's. */
	char *next[] = { SBXRUN, "--deny", t.projects, "--allow", t.mine, "--allow", cache, "--",
		         FSOP, "read", t.secret, NULL };
	ck_assert_int_eq(sbxrun(next, &out), 1);
	ck_assert_msg(!strstr(out, "the-secret"), "ESCAPE: the second run read the secret:\n%s", out);
	ck_assert_msg(strstr(out, "EACCES") || strstr(out, "ENOENT"), "%s", out);
	snprintf(said, sizeof(said), "sbxrun: not re-admitting %s: it leads through a symlink to %s",
	         cache, t.other);
	ck_assert_msg(strstr(out, said), "not said: %s\nin:\n%s", said, out);
	free(out);
	char *via[] = { SBXRUN, "--deny", t.projects, "--allow", t.mine, "--allow", cache, "--",
		        FSOP, "read", (char *)join(cache, "secret"), NULL };
	ck_assert_int_eq(sbxrun(via, &out), 1);
	ck_assert_ptr_null(strstr(out, "the-secret"));
	free(out);
	/* What is re-admitted as written still is. */
	char *mine[] = { SBXRUN, "--quiet", "--deny", t.projects, "--allow", t.mine, "--allow", cache,
		         "--", FSOP, "read", (char *)join(t.mine, "file"), NULL };
	ck_assert_int_eq(sbxrun(mine, &out), 0);
	free(out);
	/* --strict: nothing runs. */
	char *strict[] = { SBXRUN, "--strict", "--deny", t.projects, "--allow", t.mine, "--allow",
		           cache, "--", FSOP, "read", t.secret, NULL };
	ck_assert_int_eq(sbxrun(strict, &out), 125);
	ck_assert_ptr_null(strstr(out, "the-secret"));
	ck_assert_ptr_nonnull(strstr(out, "--strict: nothing runs")); /* the option, not the flag */
	ck_assert_ptr_nonnull(strstr(out, "not run: the scope could not be compiled"));
	free(out);
	tree_free(&t);
}
END_TEST

/* An ambiguous prefix is a usage error naming every option it could mean,
 * and nothing runs: the command would leave a file behind. */
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

Suite *suite_sbxrun(void)
{
	Suite *s = suite_create("sbxrun");
	TCase *tc = tcase_create("launcher");

	untimed(tc);
	tcase_add_test(tc, test_execve_states);
	tcase_add_test(tc, test_refused_child_exit_status);
	tcase_add_test(tc, test_sbxrun_statuses);
	tcase_add_test(tc, test_sbxrun_build);
	tcase_add_test(tc, test_sbxrun_refused);
	tcase_add_test(tc, test_sbxrun_env);
	tcase_add_test(tc, test_sbxrun_options);
	tcase_add_test(tc, test_sbxrun_planted_symlink);
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
	suite_add_tcase(s, tc);
	return s;
}

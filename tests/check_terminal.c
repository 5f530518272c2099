/* SPDX-License-Identifier: MIT */
/* The terminal a scoped child inherits: input pushed into it (TIOCSTI, and
 * TIOCLINUX on a virtual console) fails, whatever the scope, and what a
 * program otherwise does with its terminal (modes, window size, job
 * control) works.  Each test gives a child a new pseudo-terminal as its
 * standard input and controlling terminal, and looks at what the terminal
 * holds afterwards: what the shell that owns it would read and run. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "tests/common.h"

#define TTY HELPER_DIR "/tty"
#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"
#define PAYLOAD "echo pwned\n"

/* A pseudo-terminal: the master, and the slave kept open here (not as a
 * controlling terminal), so that what its input holds outlives the child. */
struct pty {
	int master, slave;
	char name[64];
};

static void pty_open(struct pty *p)
{
	p->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	ck_assert_int_ge(p->master, 0);
	ck_assert_int_eq(grantpt(p->master), 0);
	ck_assert_int_eq(unlockpt(p->master), 0);
	ck_assert_int_eq(ptsname_r(p->master, p->name, sizeof(p->name)), 0);
	p->slave = open(p->name, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	ck_assert_int_ge(p->slave, 0);
	ck_assert_int_eq(fcntl(p->master, F_SETFL, O_NONBLOCK), 0);
}

static void pty_close(struct pty *p)
{
	close(p->master);
	close(p->slave);
}

/* What fd gives within ms milliseconds (the master's echo comes through
 * the kernel's work queue: later than the input itself), "" for nothing. */
static const char *pending(int fd, int ms)
{
	static char buf[2][256];
	static int next;
	char *b = buf[next++ % 2];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t len = 0;
	ssize_t n;

	b[0] = '\0';
	while (len < 255 && poll(&pfd, 1, len ? 50 : ms) > 0 &&
	       (n = read(fd, b + len, 255 - len)) > 0)
		len += (size_t)n;
	b[len] = '\0';
	return b;
}

/* argv run in a session of its own, p's slave its standard input and
 * controlling terminal, under scope (NULL: posix_spawn's semantics); its
 * output's last line, and its exit status in *status. */
static const char *on_terminal(const sbx_scopeattr_t *scope, const struct pty *p,
                               char *const argv[], int *status)
{
	static char verdict[4096];
	sbx_file_actions_t fa;
	posix_spawnattr_t attr;
	int out = memfd_create("sbxtty", MFD_CLOEXEC), err;
	pid_t pid;
	ssize_t n;

	ck_assert_int_ge(out, 0);
	sbx_file_actions_init(&fa);
	/* A session leader opening a terminal makes it its controlling one. */
	sbx_file_actions_addopen(&fa, 0, p->name, O_RDWR, 0);
	sbx_file_actions_adddup2(&fa, out, 1);
	sbx_file_actions_adddup2(&fa, out, 2);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
	err = sbx_posix_spawn(&pid, argv[0], &fa, &attr, scope, argv, environ);
	ck_assert_msg(err == 0, "spawn: %s", sbx_strerror(err));
	*status = wait_status(pid);
	sbx_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	n = pread(out, verdict, sizeof(verdict) - 1, 0);
	close(out);
	verdict[n > 0 ? n : 0] = '\0';
	while (n > 0 && verdict[n - 1] == '\n')
		verdict[--n] = '\0';
	return strrchr(verdict, '\n') ? strrchr(verdict, '\n') + 1 : verdict;
}

/* The helper's operation op on a new terminal: its verdict ("ok", an
 * errno's name), and in *input what the terminal's input then holds. */
static const char *tty_op(const sbx_scopeattr_t *scope, const char *op, const char **input)
{
	static char verdict[64];
	char *argv[] = { TTY, (char *)op, PAYLOAD, NULL };
	struct pty p;
	int status;

	pty_open(&p);
	snprintf(verdict, sizeof(verdict), "%s", on_terminal(scope, &p, argv, &status));
	if (WIFSIGNALED(status))
		snprintf(verdict, sizeof(verdict), "signal %d", WTERMSIG(status));
	/* The input first: the shell's read, the line it would run. */
	if (input)
		*input = pending(p.slave, strcmp(verdict, "ok") ? 200 : 1000);
	pty_close(&p);
	return verdict;
}

/* The scope of every test: a denial, so that Landlock is there too where
 * the kernel has it. */
static void scope_make(sbx_scopeattr_t *s, char **dir)
{
	*dir = make_tmpdir();
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(s, *dir), 0);
}

static void scope_free(sbx_scopeattr_t *s, char *dir)
{
	sbx_scopeattr_destroy(s);
	rm_rf(dir);
	free(dir);
}

/* Whether the i386 entry is served here: where it is not, the helper
 * dies of a signal, and that part of a test is skipped. */
static bool i386_served(const char *verdict, const char *test)
{
#if defined(__x86_64__)
	if (strncmp(verdict, "signal", 6) != 0)
		return true;
	say_skip("SKIP %s (the i386 entry): int $0x80 is not served here (%s)\n", test,
	        verdict);
#else
	(void)verdict;
	say_skip("SKIP %s (the i386 entry): not an x86_64 machine\n", test);
#endif
	return false;
}

/* Without a scope, the attack works: the payload lands in the terminal's
 * input, by each road the scoped tests close.  Else those would prove
 * nothing. */
START_TEST(test_injection_unconfined)
{
	const char *input, *v;
	struct pty p;
	int status;
	char *argv[] = { TTY, "inject", PAYLOAD, NULL };

	ck_assert_str_eq(tty_op(NULL, "inject", &input), "ok");
	ck_assert_str_eq(input, PAYLOAD);
	ck_assert_str_eq(tty_op(NULL, "inject-high", &input), "ok");
	ck_assert_str_eq(input, PAYLOAD);
	v = tty_op(NULL, "inject-i386", &input);
	if (i386_served(v, __func__)) {
		ck_assert_str_eq(v, "ok");
		ck_assert_str_eq(input, PAYLOAD);
	}
	/* The master, where a terminal emulator reads, sees the echo. */
	pty_open(&p);
	ck_assert_str_eq(on_terminal(NULL, &p, argv, &status), "ok");
	ck_assert_ptr_nonnull(strstr(pending(p.master, 2000), "echo pwned"));
	pty_close(&p);
	/* TIOCLINUX reaches the terminal, which is no virtual console. */
	ck_assert_str_ne(tty_op(NULL, "tioclinux", NULL), "EPERM");
}
END_TEST

/* With any scope, each road fails with EPERM and the terminal holds
 * nothing: no input, no echo. */
START_TEST(test_injection_refused)
{
	sbx_scopeattr_t s;
	const char *input, *v;
	struct pty p;
	char *dir;
	int status;
	char *argv[] = { TTY, "inject", PAYLOAD, NULL };

	if (!filters_here(__func__))
		return;
	scope_make(&s, &dir);
	ck_assert_str_eq(tty_op(&s, "inject", &input), "EPERM");
	ck_assert_str_eq(input, "");
	/* The command as 64 bits, its high half set: the kernel reads 32. */
	ck_assert_str_eq(tty_op(&s, "inject-high", &input), "EPERM");
	ck_assert_str_eq(input, "");
	/* A 64-bit program may make 32-bit system calls, with other numbers. */
	v = tty_op(&s, "inject-i386", &input);
	if (i386_served(v, __func__)) {
		ck_assert_str_eq(v, "EPERM");
		ck_assert_str_eq(input, "");
	}
	ck_assert_str_eq(tty_op(&s, "tioclinux", NULL), "EPERM");
	pty_open(&p);
	ck_assert_str_eq(on_terminal(&s, &p, argv, &status), "EPERM");
	ck_assert_int_eq(WEXITSTATUS(status), 1);
	ck_assert_str_eq(pending(p.master, 300), "");
	ck_assert_str_eq(pending(p.slave, 0), "");
	pty_close(&p);
	/* A snapshot carries the same filter. */
	ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
	ck_assert_str_eq(tty_op(&s, "inject", &input), "EPERM");
	ck_assert_str_eq(input, "");
	scope_free(&s, dir);
}
END_TEST

/* As the report had it: another uid, every capability dropped. */
START_TEST(test_injection_refused_nobody)
{
	sbx_scopeattr_t s;
	const char *input;
	char *dir;

	if (!filters_here(__func__))
		return;
	if (geteuid() != 0) {
		say_skip("SKIP %s: becoming uid 65534 needs root\n", __func__);
		return;
	}
	if (!nobody_can_run(TTY, __func__, "uid 65534"))
		return;
	scope_make(&s, &dir);
	ck_assert_int_eq(sbx_scopeattr_setids(&s, 65534, 65534), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_DROP_CAPS), 0);
	ck_assert_str_eq(tty_op(&s, "inject", &input), "EPERM");
	ck_assert_str_eq(input, "");
	ck_assert_str_eq(tty_op(&s, "use", NULL), "ok");
	scope_free(&s, dir);
}
END_TEST

/* Where the kernel has no Landlock, the child runs unconfined, and the
 * terminal is closed all the same. */
START_TEST(test_injection_refused_without_landlock)
{
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	const char *input;
	char *dir;

	if (!filters_here(__func__))
		return;
	/* Before the first spawn, so that the once-per-process probe sees it. */
	seccomp_fail(SYS_landlock_create_ruleset, ENOSYS);
	scope_make(&s, &dir);
	ck_assert_str_eq(tty_op(&s, "inject", &input), "EPERM");
	ck_assert_str_eq(input, "");
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_UNCONFINED);
	scope_free(&s, dir);
}
END_TEST

/* sbx_execve, through sbxrun: the same filter. */
START_TEST(test_injection_refused_sbxrun)
{
	char *argv[] = { SBXRUN, TTY, "inject", PAYLOAD, NULL };
	struct pty p;
	int status;

	char *st[] = { SBXRUN, "--status", NULL };
	char *out;

	if (!filters_here(__func__))
		return;
	pty_open(&p);
	ck_assert_str_eq(on_terminal(NULL, &p, argv, &status), "EPERM");
	ck_assert_int_eq(WEXITSTATUS(status), 1);
	ck_assert_str_eq(pending(p.slave, 200), "");
	pty_close(&p);
	/* And --status says so. */
	ck_assert_int_eq(run_scoped(NULL, st, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "terminal: input pushed into it (TIOCSTI, TIOCLINUX) "
	                                  "fails for every command\n"));
	free(out);
}
END_TEST

static int terminal_warnings;

static void count_terminal(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	if (ev->kind == SBX_EVENT_DOWNGRADED && ev->path && !strcmp(ev->path, "terminal"))
		terminal_warnings++;
}

/* Where the kernel takes no filter (here: seccomp(2) fails with EINVAL, as
 * on a kernel without seccomp filters), the terminal stays open, one
 * warning per process says so, and spawns go on, SBX_SCOPE_STRICT too. */
START_TEST(test_no_filters_warned)
{
	sbx_scopeattr_t s;
	const char *input;
	char *dir;

	/* Before the first spawn, so that the once-per-process probe sees it. */
	seccomp_fail(SYS_seccomp, EINVAL);
	scope_make(&s, &dir);
	ck_assert_int_eq(sbx_scopeattr_setlogger(&s, count_terminal, NULL), 0);
	ck_assert_str_eq(tty_op(&s, "inject", &input), "ok");
	ck_assert_str_eq(input, PAYLOAD);
	ck_assert_int_eq(terminal_warnings, 1);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_STRICT), 0);
	ck_assert_str_eq(tty_op(&s, "use", NULL), "ok");
	ck_assert_int_eq(terminal_warnings, 1);
	scope_free(&s, dir);
}
END_TEST

/* Everything else a program does with its terminal: raw mode and back, the
 * window size, the foreground process group handed to a job and back. */
START_TEST(test_terminal_use)
{
	sbx_scopeattr_t s;
	char *dir;

	/* What it shows is that the filter lets these through; an emulator
	 * installs no filter, and passes not every terminal request on. */
	if (emulated()) {
		say_skip("SKIP %s: the emulator (qemu-user) installs no seccomp filter, and "
		        "does not pass every terminal request through\n", __func__);
		return;
	}
	ck_assert_str_eq(tty_op(NULL, "use", NULL), "ok");
	scope_make(&s, &dir);
	ck_assert_str_eq(tty_op(&s, "use", NULL), "ok");
	scope_free(&s, dir);
}
END_TEST

Suite *suite_terminal(void)
{
	Suite *s = suite_create("terminal");
	TCase *tc = tcase_create("injection");

	untimed(tc);
	tcase_add_test(tc, test_injection_unconfined);
	tcase_add_test(tc, test_injection_refused);
	tcase_add_test(tc, test_injection_refused_nobody);
	tcase_add_test(tc, test_injection_refused_without_landlock);
	tcase_add_test(tc, test_injection_refused_sbxrun);
	tcase_add_test(tc, test_no_filters_warned);
	tcase_add_test(tc, test_terminal_use);
	suite_add_tcase(s, tc);
	return s;
}

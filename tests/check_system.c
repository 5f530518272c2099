/* SPDX-License-Identifier: MIT */
/* sbx_system beside the C library's system(3), four ways each time: the C
 * library's, sbx_system with no scope, with a fresh scope and with a
 * compiled one (each denying a directory the command never goes near).
 * They must agree on the status and errno: exit codes, death by signal, a
 * missing or unexecutable shell, a NULL command, the caller's signals while
 * the command runs, calls at once from two threads, a cancelled call.  A
 * refused scope is the one place where they part: -1, SBX_EREFUSED. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

enum { LIBC, SBX_NULL, SBX_FRESH, SBX_COMPILED, WAYS };
static const char *const way_name[] = { "system(3)", "sbx_system, NULL scope",
	                                "sbx_system, a fresh scope",
	                                "sbx_system, a compiled scope" };

static sbx_scopeattr_t fresh, compiled;
static char *top, *unrelated;

static void scope_make(sbx_scopeattr_t *s)
{
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(s, unrelated), 0);
	/* Nothing said but what stops a command: the privilege notice as root
	 * is not what these tests are about. */
	ck_assert_int_eq(sbx_scopeattr_setevents(s, SBX_EVENTS_QUIET), 0);
}

static void setup(void)
{
	/* What the environment ignored (nohup: SIGHUP; a background job of a
	 * shell without job control: SIGINT, SIGQUIT) is not these tests':
	 * system(3) hands the caller's dispositions on, and a command meant
	 * to die of SIGHUP would live. */
	for (int sig = 1; sig < 32; sig++) {
		struct sigaction sa;

		if (sigaction(sig, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			signal(sig, SIG_DFL);
	}
	top = make_tmpdir();
	unrelated = make_tmpdir();
	scope_make(&fresh);
	scope_make(&compiled);
	ck_assert_int_eq(sbx_scopeattr_compile(&compiled), 0);
}

static void teardown(void)
{
	sbx_scopeattr_destroy(&fresh);
	sbx_scopeattr_destroy(&compiled);
	rm_rf(unrelated);
	rm_rf(top);
	free(unrelated);
	free(top);
}

static int way(int w, const char *command)
{
	switch (w) {
	case LIBC:
		return system(command);
	case SBX_NULL:
		return sbx_system(command, NULL);
	case SBX_FRESH:
		return sbx_system(command, &fresh);
	default:
		return sbx_system(command, &compiled);
	}
}

struct result {
	int status, err;
};

/* The way the others are held to: glibc's system(3), the reference.
 * Another C library's differs where glibc chose (musl: -1 for a shell not
 * run, no cleanup of a cancelled call), and is left out there, said. */
static int ref;

#ifdef __GLIBC__
#define REFERENCE() (ref = LIBC)
#else
#define REFERENCE()                                                                      \
	(ref = SBX_NULL,                                                                 \
	 say_skip("SKIP %s (system(3)): this C library's system(3) is not the "     \
	         "reference, glibc's: the sbx_system ways are held to each other\n", __func__))
#endif

/* Runs command every way and asserts they agree; the C library's result. */
static struct result agree(const char *command)
{
	struct result r[WAYS];

	for (int w = ref; w < WAYS; w++) {
		errno = 0;
		r[w].status = way(w, command);
		r[w].err = errno;
	}
	for (int w = ref + 1; w < WAYS; w++)
		ck_assert_msg(r[w].status == r[ref].status && r[w].err == r[ref].err,
		              "%s: %s gave status %#x, errno %d; %s %#x, errno %d",
		              command ? command : "NULL", way_name[w], (unsigned)r[w].status,
		              r[w].err, way_name[ref], (unsigned)r[ref].status, r[ref].err);
	return r[ref];
}

START_TEST(test_exit_codes)
{
	static const int codes[] = { 0, 1, 2, 3, 42, 125, 126, 127, 128, 255 };
	char command[64];

	REFERENCE();
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		struct result r;

		snprintf(command, sizeof(command), "exit %d", codes[i]);
		r = agree(command);
		ck_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == codes[i]);
		ck_assert_int_eq(r.err, 0);
	}
	/* Exit 127 of a command not found is the shell's own, as ever. */
	ck_assert_int_eq(WEXITSTATUS(agree("no-such-command-anywhere 2>/dev/null").status), 127);
}
END_TEST

/* Signals that end a process without a core, so that no core helper runs. */
START_TEST(test_death_by_signal)
{
	static const int sigs[] = { SIGTERM, SIGKILL, SIGHUP, SIGUSR1, SIGPIPE, SIGALRM };
	char command[64];

	REFERENCE();
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct result r;

		snprintf(command, sizeof(command), "kill -%d $$", sigs[i]);
		r = agree(command);
		ck_assert(WIFSIGNALED(r.status) && WTERMSIG(r.status) == sigs[i]);
	}
}
END_TEST

START_TEST(test_null_command)
{
	struct result r;

	REFERENCE();
	r = agree(NULL);

	ck_assert_int_eq(r.status, 1);
	ck_assert_int_eq(r.err, 0);
}
END_TEST

/* /bin/sh gone (an empty directory mounted where it lies), then there but
 * not executable (a device bound over it): the status of a shell that
 * exited 127, errno saying why; a NULL command says 0. */
START_TEST(test_missing_shell)
{
	char sh[PATH_MAX], dir[PATH_MAX];
	struct result r;

	REFERENCE();
	if (emulated() && ref == LIBC) {
		ref = SBX_NULL;
		say_skip("SKIP %s (system(3)): under an emulator the C library's posix_spawn "
		        "cannot tell a failed exec (0, and a child that exits 127): the sbx_system "
		        "ways are held to each other\n", __func__);
	}
	if (private_mounts(__func__) == MOUNT_NS_NONE)
		return;
	ck_assert_ptr_nonnull(realpath("/bin/sh", sh));
	snprintf(dir, sizeof(dir), "%s", sh);
	*strrchr(dir, '/') = '\0';
	ck_assert_int_eq(mount("none", dir, "tmpfs", 0, "size=4k"), 0);
	r = agree("exit 0");
	ck_assert_int_eq(r.status, 127 << 8);
	ck_assert_int_eq(r.err, ENOENT);
	r = agree(NULL);
	ck_assert_int_eq(r.status, 0);
	ck_assert_int_eq(r.err, ENOENT);
	ck_assert_int_eq(umount2(dir, MNT_DETACH), 0);

	ck_assert_int_eq(mount("/dev/null", sh, NULL, MS_BIND, NULL), 0);
	r = agree("exit 0");
	ck_assert_int_eq(r.status, 127 << 8);
	ck_assert_int_eq(r.err, EACCES);
	r = agree(NULL);
	ck_assert_int_eq(r.status, 0);
}
END_TEST

/* A scope that denies the shell itself (the case sbx_system(3)'s example
 * reports): the status of a shell that exited 127, errno saying why, the
 * denial expanded (EACCES) or hidden (ENOENT: not there). */
START_TEST(test_shell_denied)
{
	static const int ways[] = { SBX_SCOPE_EXPAND, 0 };
	char sh[PATH_MAX], dir[PATH_MAX];

	REQUIRE_LANDLOCK();
	ck_assert_ptr_nonnull(realpath("/bin/sh", sh));
	snprintf(dir, sizeof(dir), "%s", sh);
	*strrchr(dir, '/') = '\0';
	for (size_t w = 0; w < 2; w++) {
		sbx_scopeattr_t s;
		int status;

		ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
		sbx_scopeattr_setlogger(&s, quiet, NULL);
		ck_assert_int_eq(sbx_scopeattr_setflags(&s, ways[w]), 0);
		ck_assert_int_eq(sbx_scopeattr_adddeny(&s, dir), 0);
		errno = 0;
		status = sbx_system("exit 0", &s);
		ck_assert_int_eq(status, 127 << 8);
		ck_assert_msg(errno == EACCES || errno == ENOENT, "errno %d", errno);
		sbx_scopeattr_destroy(&s);
	}
}
END_TEST

/* ---- the caller's signals --------------------------------------------- */

static volatile sig_atomic_t interrupts, children;

static void on_int(int sig)
{
	(void)sig;
	interrupts++;
}

static void on_chld(int sig)
{
	(void)sig;
	children++;
}

static void handle(int sig, void (*fn)(int))
{
	struct sigaction sa = { .sa_handler = fn };

	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(sig, &sa, NULL), 0);
}

static void (*disposition(int sig))(int)
{
	struct sigaction sa;

	ck_assert_int_eq(sigaction(sig, NULL, &sa), 0);
	return sa.sa_handler;
}

static char *slurp(const char *path)
{
	char *buf = calloc(1, 4096);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	ck_assert_ptr_nonnull(buf);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_ge(read(fd, buf, 4095), 0);
	close(fd);
	return buf;
}

/* Whether the set named field ("SigIgn", ...) of a /proc status holds sig. */
static int has(const char *status, const char *field, int sig)
{
	const char *at = strstr(status, field);
	unsigned long long set;

	ck_assert_ptr_nonnull(at);
	ck_assert_int_eq(sscanf(at + strlen(field), ":%llx", &set), 1);
	return (set >> (sig - 1)) & 1;
}

/* While the command runs, the caller ignores SIGINT and SIGQUIT and blocks
 * SIGCHLD (its own /proc status, read by the command, and a SIGINT the
 * command sends it); the shell has the caller's mask and its SIGINT at
 * the default.  After, everything is as it was, and SIGCHLD comes once. */
START_TEST(test_caller_signals)
{
	char caller[WAYS][4096], shell[WAYS][4096], command[8192];
	const char *caller_file = join(top, "caller"), *shell_file = join(top, "shell");
	sigset_t usr1, now;

	REFERENCE();
	handle(SIGINT, on_int);
	handle(SIGCHLD, on_chld);
	ck_assert_int_eq(sigaction(SIGQUIT, &(struct sigaction){ .sa_handler = SIG_IGN }, NULL), 0);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, &usr1, NULL), 0);
	/* The masks are read as bits, or not at all: until the spawn's own
	 * blocking of every signal is over in the caller, the shell may see
	 * that; the shell blocks signals of its own around its forks. */
	snprintf(command, sizeof(command),
	         "grep -E '^Sig(Blk|Ign|Cgt)' /proc/$PPID/status > %s; "
	         "grep -E '^Sig(Blk|Ign|Cgt)' /proc/$$/status > %s; kill -INT $PPID; exit 7",
	         caller_file, shell_file);
	for (int w = ref; w < WAYS; w++) {
		char *text;

		interrupts = children = 0;
		errno = 0;
		ck_assert_int_eq(way(w, command), 7 << 8);
		ck_assert_int_eq(errno, 0);
		ck_assert_msg(interrupts == 0, "%s: the caller caught SIGINT", way_name[w]);
		ck_assert_msg(children == 1, "%s: SIGCHLD came %d times", way_name[w], (int)children);
		ck_assert(disposition(SIGINT) == on_int);
		ck_assert(disposition(SIGQUIT) == SIG_IGN);
		ck_assert_int_eq(sigprocmask(SIG_BLOCK, NULL, &now), 0);
		ck_assert(sigismember(&now, SIGUSR1) && !sigismember(&now, SIGCHLD));
		text = slurp(caller_file);
		ck_assert_msg(has(text, "SigBlk", SIGCHLD) && has(text, "SigBlk", SIGUSR1),
		              "%s: the caller's mask while it ran: %s", way_name[w], text);
		snprintf(caller[w], sizeof(caller[w]), "%s", strstr(text, "SigIgn"));
		free(text);
		text = slurp(shell_file);
		snprintf(shell[w], sizeof(shell[w]), "%s", strstr(text, "SigIgn"));
		free(text);
		ck_assert_msg(!strcmp(caller[w], caller[ref]), "the caller, %s:\n%s\n%s:\n%s",
		              way_name[w], caller[w], way_name[ref], caller[ref]);
		ck_assert_msg(!strcmp(shell[w], shell[ref]), "the shell, %s:\n%s\n%s:\n%s",
		              way_name[w], shell[w], way_name[ref], shell[ref]);
	}
	/* What was read, as the kernel says it: SIGINT and SIGQUIT ignored,
	 * SIGCHLD and SIGUSR1 blocked in the caller; the shell has its SIGINT
	 * back, and SIGQUIT ignored as the caller had it.  (The shell's mask
	 * is its own by then: it sets one as it starts.) */
	ck_assert(has(caller[ref], "SigIgn", SIGINT) && has(caller[ref], "SigIgn", SIGQUIT));
	ck_assert(!has(shell[ref], "SigIgn", SIGINT) && has(shell[ref], "SigIgn", SIGQUIT));
}
END_TEST

/* ---- two calls at once, a cancelled call ------------------------------- */

struct call {
	int way;
	const char *command;
	int status;
	const char *ready; /* the FIFO the command opens once it runs */
};

static void *call_thread(void *arg)
{
	struct call *c = arg;
	int fd;

	c->status = way(c->way, c->command);
	/* A command that never ran never opens ready: its reader, opened
	 * and left with nothing, reads nothing instead of waiting for good. */
	if (c->ready && (fd = open(c->ready, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) >= 0)
		close(fd);
	return NULL;
}

/* A FIFO's reading end, opened before the call that writes it starts: a
 * writer never finds no reader (call_thread's, which says a command never
 * ran, opens it without waiting). */
static int fifo_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	return fd;
}

/* Reads fd whole: returns once a writer came and went (the command reached
 * that point, or the call that would have run it returned). */
static void fifo_read(int fd, char *buf, size_t size)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n, len = 0;

	for (;;) {
		/* No writer yet: poll waits (a FIFO says no hang-up before one). */
		if (poll(&p, 1, -1) < 0) {
			ck_assert_int_eq(errno, EINTR);
			continue;
		}
		if ((n = read(fd, buf + len, size - 1 - (size_t)len)) > 0)
			len += n;
		else if (n == 0 || (errno != EAGAIN && errno != EINTR))
			break;
	}
	buf[len] = '\0';
	close(fd);
}

static void fifo_write(const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "go\n", 3), 3);
	close(fd);
}

/* A command that says it runs (echo SAID > ready) and waits on go (then
 * runs AFTER), each a FIFO made in top; SIGINT caught meanwhile. */
static void waiting_command(char ready[4096], char go[4096], char command[8192], const char *said,
                            const char *after)
{
	snprintf(ready, 4096, "%s", join(top, "ready"));
	snprintf(go, 4096, "%s", join(top, "go"));
	ck_assert_int_eq(mkfifo(ready, 0600), 0);
	ck_assert_int_eq(mkfifo(go, 0600), 0);
	snprintf(command, 8192, "echo %s > %s; read x < %s; %s", said, ready, go, after);
	handle(SIGINT, on_int);
}

/* A second call, made and ended while a first one runs, leaves SIGINT
 * ignored for the first; the last to end gives the handler back. */
START_TEST(test_concurrent_calls)
{
	char ready[4096], go[4096], command[8192], buf[64];

	SKIP_IF_EMULATED_THREADS();
	REFERENCE();
	waiting_command(ready, go, command, "", "exit 5");
	for (int w = ref; w < WAYS; w++) {
		struct call first = { .way = w, .command = command, .ready = ready };
		pthread_t thread;

		int rfd = fifo_open(ready);

		ck_assert_int_eq(pthread_create(&thread, NULL, call_thread, &first), 0);
		fifo_read(rfd, buf, sizeof(buf)); /* the first's command runs */
		ck_assert(disposition(SIGINT) == SIG_IGN);
		ck_assert_int_eq(way(w, "exit 0"), 0);
		ck_assert_msg(disposition(SIGINT) == SIG_IGN,
		              "%s: a call that ended gave SIGINT back while another ran", way_name[w]);
		fifo_write(go);
		ck_assert_int_eq(pthread_join(thread, NULL), 0);
		ck_assert_int_eq(first.status, 5 << 8);
		ck_assert(disposition(SIGINT) == on_int);
	}
}
END_TEST

/* Cancelled while it waits: the shell is killed and reaped, and SIGINT
 * and the mask are the caller's again. */
START_TEST(test_cancelled)
{
	char ready[4096], go[4096], command[8192], buf[64];

	SKIP_IF_EMULATED_THREADS();
	REFERENCE();
	waiting_command(ready, go, command, "$$", "exit 0");
	for (int w = ref; w < WAYS; w++) {
		struct call c = { .way = w, .command = command, .ready = ready };
		pthread_t thread;
		void *ret = NULL;
		pid_t shell;
		int rfd = fifo_open(ready);

		ck_assert_int_eq(pthread_create(&thread, NULL, call_thread, &c), 0);
		fifo_read(rfd, buf, sizeof(buf));
		shell = (pid_t)atoi(buf);
		ck_assert_int_gt(shell, 0);
		ck_assert_int_eq(pthread_cancel(thread), 0);
		ck_assert_int_eq(pthread_join(thread, &ret), 0);
		ck_assert_msg(ret == PTHREAD_CANCELED, "%s: not cancelled", way_name[w]);
		/* Reaped: a zombie would still answer. */
		ck_assert_msg(kill(shell, 0) == -1 && errno == ESRCH, "%s: shell %d is still there",
		              way_name[w], (int)shell);
		ck_assert(disposition(SIGINT) == on_int);
	}
}
END_TEST

/* ---- where the scope keeps the shell from running ----------------------- */

/* -1 and errno, never a status: a command can exit 125 (a refused child's
 * status) or 127 (the shell not run). */
static void assert_stopped(const char *command, const sbx_scopeattr_t *scope, int err)
{
	int status;

	errno = 0;
	status = sbx_system(command, scope);
	ck_assert_msg(status == (command ? -1 : 0) && errno == err,
	              "%s: status %#x, errno %d (%s); wanted %d, errno %d", command ? command : "NULL",
	              (unsigned)status, errno, sbx_strerror(errno), command ? -1 : 0, err);
	ck_assert(disposition(SIGINT) == on_int);
}

START_TEST(test_refused)
{
#if SBX_BUILD_LANDLOCK
	sbx_outcome_t o;

	REQUIRE_LANDLOCK();
	handle(SIGINT, on_int);
	seccomp_fail(SYS_landlock_restrict_self, EPERM);
	assert_stopped("exit 0", &fresh, SBX_EREFUSED);
	ck_assert_int_eq(sbx_outcome_get(&o), 0);
	ck_assert_int_eq(o.confinement, SBX_OUTCOME_REFUSED);
	assert_stopped("exit 0", &compiled, SBX_EREFUSED);
	assert_stopped(NULL, &fresh, SBX_EREFUSED);
#else
	sbx_scopeattr_t other_uid;

	/* The portable build refuses what only a confining build does. */
	handle(SIGINT, on_int);
	scope_make(&other_uid);
	ck_assert_int_eq(sbx_scopeattr_setids(&other_uid, 65534, 65534), 0);
	assert_stopped("exit 0", &other_uid, SBX_EREFUSED);
	assert_stopped(NULL, &other_uid, SBX_EREFUSED);
	sbx_scopeattr_destroy(&other_uid);
	/* And a kernel without Landlock under SBX_SCOPE_REQUIRE. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&fresh, SBX_SCOPE_REQUIRE), 0);
	assert_stopped("exit 0", &fresh, ENOTSUP);
#endif
	/* The statuses they are told from. */
	ck_assert_int_eq(sbx_system("exit 125", NULL), 125 << 8);
	ck_assert_int_eq(sbx_system("exit 127", NULL), 127 << 8);
}
END_TEST

/* A scope that is not one (destroyed) stops it too. */
START_TEST(test_scope_invalid)
{
	sbx_scopeattr_t gone;

	handle(SIGINT, on_int);
	scope_make(&gone);
	sbx_scopeattr_destroy(&gone);
	assert_stopped("exit 0", &gone, EINVAL);
}
END_TEST

/* And the scope holds: what it denies, the command cannot read. */
START_TEST(test_confined)
{
	char command[8192];

	REQUIRE_LANDLOCK();
	write_file(join(unrelated, "secret"), "the-secret\n", 0644);
	snprintf(command, sizeof(command), "cat %s > /dev/null 2>&1", join(unrelated, "secret"));
	ck_assert_int_eq(system(command), 0);
	ck_assert_int_eq(sbx_system(command, NULL), 0);
	ck_assert_int_eq(sbx_system(command, &fresh), 1 << 8);
	ck_assert_int_eq(sbx_system(command, &compiled), 1 << 8);
}
END_TEST

Suite *suite_system(void)
{
	Suite *s = suite_create("system");
	TCase *tc = tcase_create("three ways");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_exit_codes);
	tcase_add_test(tc, test_death_by_signal);
	tcase_add_test(tc, test_null_command);
	tcase_add_test(tc, test_missing_shell);
	tcase_add_test(tc, test_shell_denied);
	tcase_add_test(tc, test_caller_signals);
	tcase_add_test(tc, test_concurrent_calls);
	tcase_add_test(tc, test_cancelled);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_scope_invalid);
	tcase_add_test(tc, test_confined);
	suite_add_tcase(s, tc);
	return s;
}

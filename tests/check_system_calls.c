/* SPDX-License-Identifier: MIT */
/* sbx_system beside the C library's system(3), four ways each time
 * (tests/system.h), where the caller does more than wait: its signals
 * while the command runs (what it ignores, blocks and catches), calls at
 * once from two threads, and a call cancelled. */
#include "config.h"

#include "tests/system.h"


/* ---- the caller's signals --------------------------------------------- */

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

Suite *suite_system_calls(void)
{
	Suite *s = suite_create("system-calls");
	TCase *tc = tcase_create("three ways");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_caller_signals);
	tcase_add_test(tc, test_concurrent_calls);
	tcase_add_test(tc, test_cancelled);
	suite_add_tcase(s, tc);
	return s;
}

/* SPDX-License-Identifier: MIT */
/* Runs one test program under a watchdog: the suite's only bound on time.
 *
 *   tests/watchdog PROGRAM [ARGS...]            (automake's LOG_COMPILER)
 *
 * No test case has a time limit of its own: a busy machine makes a test
 * slow, never wrong.  A test that hangs is caught here, once, around the
 * whole program: after SBX_TEST_WATCHDOG seconds (default 1800; CI gives the
 * sanitizer and emulator stages more) it says what every process of the
 * program is doing (its state, the kernel's wait channel and stack, and
 * with gdb each thread's backtrace, which names the test), kills them all
 * and exits 99, which automake counts as an error: a hang fails, never
 * passes.  Otherwise it exits as the program did.
 *
 * The program is its child, started as it would be without the watchdog:
 * the same standard input, signal dispositions and mask, process group. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The parent of pid, from /proc/PID/stat (after the command's ")"), or -1. */
static pid_t parent_of(pid_t pid, char *state)
{
	char path[64], buf[1024], *close;
	FILE *f;
	size_t n;
	long ppid = -1;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (!(f = fopen(path, "re")))
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if ((close = strrchr(buf, ')')) && sscanf(close + 1, " %c %ld", state, &ppid) == 2)
		return (pid_t)ppid;
	return -1;
}

/* The processes descended from pid (pid first), into out; their number. */
static int descendants(pid_t pid, pid_t *out, int max)
{
	int n = 0;

	out[n++] = pid;
	for (int i = 0; i < n; i++) {
		DIR *d = opendir("/proc");
		struct dirent *e;

		while (d && (e = readdir(d)) && n < max) {
			pid_t p = (pid_t)atol(e->d_name);
			char state;

			if (p > 0 && parent_of(p, &state) == out[i])
				out[n++] = p;
		}
		if (d)
			closedir(d);
	}
	return n;
}

/* /proc/PID/what, its NULs as spaces, after title. */
static void print_file(pid_t pid, const char *what, const char *title)
{
	char path[64], buf[4096];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, what);
	if (!(f = fopen(path, "re")))
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	printf("%s%s%s", title, buf, n && buf[n - 1] == '\n' ? "" : "\n");
}

static void describe(pid_t pid)
{
	pid_t procs[256];
	int n = descendants(pid, procs, 256);

	for (int i = 0; i < n; i++) {
		char state = '?', cmd[256];

		parent_of(procs[i], &state);
		printf("\n--- pid %ld, state %c\n", (long)procs[i], state);
		print_file(procs[i], "cmdline", "command: ");
		print_file(procs[i], "wchan", "waiting in: ");
		print_file(procs[i], "stack", "");
		fflush(stdout);
		snprintf(cmd, sizeof(cmd),
		         "command -v gdb >/dev/null && timeout 60 gdb -p %ld -batch -nx "
		         "-ex 'thread apply all bt' 2>&1 | grep -E '^(Thread|#)' | head -n 80",
		         (long)procs[i]);
		if (system(cmd) != 0)
			printf("(no backtrace: gdb is absent or could not attach)\n");
	}
}

static void kill_all(pid_t pid)
{
	pid_t procs[256];
	int n;

	/* Again until none is left: a process may fork while it is killed. */
	while ((n = descendants(pid, procs, 256)) > 1 || kill(pid, 0) == 0) {
		for (int i = 0; i < n; i++)
			kill(procs[i], SIGKILL);
		if (waitpid(pid, NULL, WNOHANG) == pid)
			break;
		usleep(1000);
	}
}

int main(int argc, char **argv)
{
	const char *env = getenv("SBX_TEST_WATCHDOG");
	long limit = env && atol(env) > 0 ? atol(env) : 1800;
	struct timespec start, now;
	sigset_t chld, old;
	pid_t pid;
	int status;

	if (argc < 2) {
		fprintf(stderr, "usage: watchdog PROGRAM [ARGS...]\n");
		return 2;
	}
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &old);
	if ((pid = fork()) < 0) {
		perror("watchdog: fork");
		return 99;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp(argv[1], argv + 1);
		fprintf(stderr, "watchdog: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct timespec left;
		long spent;

		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		spent = now.tv_sec - start.tv_sec;
		if (spent >= limit) {
			printf("WATCHDOG: %s still running after %ld s (SBX_TEST_WATCHDOG): a hang. The "
			       "last test reported above finished; what each process does now:\n",
			       argv[1], limit);
			describe(pid);
			kill_all(pid);
			fflush(stdout);
			return 99;
		}
		left = (struct timespec){ .tv_sec = limit - spent };
		if (sigtimedwait(&chld, NULL, &left) < 0 && errno != EAGAIN && errno != EINTR) {
			perror("watchdog: sigtimedwait");
			return 99;
		}
	}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, "watchdog: %s killed by signal %d (%s)\n", argv[1], WTERMSIG(status),
		        strsignal(WTERMSIG(status)));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}

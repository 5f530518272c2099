/* SPDX-License-Identifier: MIT */
/* What a program does with the terminal on its descriptor 0, its
 * controlling one: one operation, its result on stdout as "ok" or the
 * errno's name, and exit status 0 or 1.
 *
 *   inject TEXT         TEXT pushed into the terminal's input (TIOCSTI)
 *   inject-high TEXT    the same, the command with its high 32 bits set
 *   inject-i386 TEXT    the same through the i386 entry (int $0x80)
 *   tioclinux           TIOCLINUX, asking the shift state (harmless)
 *   use                 what a shell or an editor does: modes (raw and
 *                       back), the window size, the foreground process
 *                       group handed to a job and taken back */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "compat/compat.h"
#include "tests/i386_entry.h"

static int done(int r)
{
	if (r < 0) {
		printf("%s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
		return 1;
	}
	printf("ok\n");
	return 0;
}

/* Each byte of text, by the way asked. */
static int inject(const char *how, const char *text)
{
	for (const char *c = text; *c; c++) {
		long r;

		if (!strcmp(how, "inject"))
			r = ioctl(0, TIOCSTI, c);
		else if (!strcmp(how, "inject-high"))
			/* The kernel reads the command as 32 bits. */
			r = syscall(SYS_ioctl, 0, (unsigned long)TIOCSTI | ~0xffffffffUL, c);
		else {
#if defined(__x86_64__)
			/* The i386 entry passes 32-bit pointers: the byte
			 * below 4 GiB. */
			static char *low;

			if (!low && (low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0)) ==
			                MAP_FAILED)
				return -1;
			*low = *c;
			i386_entry_faults_kill();
			__asm__ volatile("int $0x80"
			                 : "=a"(r)
			                 : "a"(54 /* ioctl */), "b"(0), "c"(TIOCSTI), "d"(low)
			                 : "memory");
			if (r < 0) {
				errno = (int)-r;
				r = -1;
			}
#else
			errno = ENOSYS;
			r = -1;
#endif
		}
		if (r < 0)
			return -1;
	}
	return 0;
}

/* A job in a process group of its own, given the terminal, which it
 * keeps until it ends; then the terminal back, as a shell takes it
 * (ignoring SIGTTOU, for it is in the background by then). */
static int job_control(void)
{
	pid_t me = getpgrp(), job;
	int status, given[2];
	char c;

	if (pipe(given) < 0 || (job = fork()) < 0)
		return -1;
	if (job == 0) {
		/* Told when it has the terminal: waits for that, not for time. */
		close(given[1]);
		setpgid(0, 0);
		if (read(given[0], &c, 1) != 1)
			_exit(2);
		_exit(tcgetpgrp(0) == getpid() ? 0 : 1);
	}
	close(given[0]);
	setpgid(job, job);
	if (tcsetpgrp(0, job) < 0 || write(given[1], "", 1) != 1 || waitpid(job, &status, 0) != job)
		return -1;
	close(given[1]);
	signal(SIGTTOU, SIG_IGN);
	if (tcsetpgrp(0, me) < 0 || tcgetpgrp(0) != me)
		return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

static int use(void)
{
	struct termios saved, raw, now;
	struct winsize ws = { .ws_row = 33, .ws_col = 111 }, got;

	if (tcgetattr(0, &saved) < 0)
		return -1;
	raw = saved;
	cfmakeraw(&raw);
	if (tcsetattr(0, TCSANOW, &raw) < 0 || tcgetattr(0, &now) < 0)
		return -1;
	if (now.c_lflag & (ICANON | ECHO)) {
		errno = EPROTO;
		return -1;
	}
	if (tcsetattr(0, TCSADRAIN, &saved) < 0 || tcflush(0, TCIFLUSH) < 0 || tcdrain(0) < 0)
		return -1;
	if (ioctl(0, TIOCSWINSZ, &ws) < 0 || ioctl(0, TIOCGWINSZ, &got) < 0)
		return -1;
	if (got.ws_row != 33 || got.ws_col != 111) {
		errno = EPROTO;
		return -1;
	}
	if (tcgetsid(0) != getsid(0) || tcgetpgrp(0) != getpgrp())
		return -1;
	return job_control();
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "", *a = argc > 2 ? argv[2] : "";

	if (!strncmp(op, "inject", 6))
		return done(inject(op, a));
	if (!strcmp(op, "tioclinux")) {
		char sub = 6; /* TIOCL_GETSHIFTSTATE */
		return done(ioctl(0, TIOCLINUX, &sub));
	}
	if (!strcmp(op, "use"))
		return done(use());
	fprintf(stderr, "tty: unknown operation %s\n", op);
	return 2;
}

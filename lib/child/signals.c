/* SPDX-License-Identifier: MIT */
/*
 * The child's signals, first of its steps: no handler of the parent's may
 * run in it (it would run on the parent's memory), so each one caught is
 * reset to its default before any signal is let through; ignored ones
 * stay ignored, as with posix_spawn, unless POSIX_SPAWN_SETSIGDEF.  Raw
 * system calls only.
 */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#ifdef HAVE_SYS_SINGLE_THREADED_H
#include <sys/single_threaded.h>
#endif

#include "compat/kernel.h"
#include "lib/internal.h"
#include "lib/child.h"

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif

/* Whether the C library's posix_spawn leaves its own signal sig (one that
 * sigaction(3) cannot read) ignored: glibc's always; musl's, where the
 * C library caught it, as the kernel tells. */
CHILD static bool libc_signal_ignored(int sig)
{
#ifdef __GLIBC__
	(void)sig;
	return true;
#else
	unsigned long act[4] = { 0 };

	return sys(SYS_rt_sigaction, sig, 0, (long)act, KERNEL_SIGSET_SIZE) == 0 &&
	       act[0] != (unsigned long)SIG_DFL;
#endif
}

/* The number after key in text, in base 16 (exactly 16 digits, a mask
 * of 64 signals) or 10, or false. */
CHILD static bool status_field(const char *text, long got, const char *key, size_t klen,
                               int base, uint64_t *out)
{
	const char *p = NULL;
	int digits = 0;

	for (long i = 0; !p && i + (long)klen <= got; i++)
		if (!strncmp(text + i, key, klen))
			p = text + i + klen;
	for (*out = 0; p && (*p == ' ' || *p == '\t'); p++)
		;
	for (int v; p && (v = *p >= '0' && *p <= '9'                 ? *p - '0'
	                      : base == 16 && *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
	                                                             : -1) >= 0;
	     p++, digits++)
		*out = *out * (uint64_t)base + (uint64_t)v;
	return p && (base == 16 ? digits == 16 : digits > 0 && digits < 16) && *p == '\n';
}

/* From /proc/self/status: the signals caught (a handler of the process's)
 * and, where threads is not NULL, how many threads the process has.  One
 * read tells which of 64 sigaction(2) calls are worth making; only those
 * are asked then: under an emulator (qemu-user) the kernel shows the
 * emulator's own handlers, a superset, and the answer comes from asking.
 * false where it cannot be read (no /proc, no descriptor free, a line not
 * found). */
CHILD static bool read_status(uint64_t *caught, uint64_t *threads)
{
	char buf[4096];
	long fd = sys(SYS_openat, AT_FDCWD, (long)"/proc/self/status", O_RDONLY | O_CLOEXEC, 0);
	long n = 0, got = 0;
	struct statfs fs;

	if (fd < 0)
		return false;
	/* The kernel's word only: a /proc that is no procfs (a file put
	 * there) says nothing. */
	if (sys(SYS_fstatfs, fd, (long)&fs, 0, 0) < 0 || fs.f_type != PROC_SUPER_MAGIC) {
		(void)sys(SYS_close, fd, 0, 0, 0);
		return false;
	}
	while (got < (long)sizeof(buf) - 1 &&
	       (n = sys(SYS_read, fd, (long)(buf + got), (long)sizeof(buf) - 1 - got, 0)) > 0)
		got += n;
	(void)sys(SYS_close, fd, 0, 0, 0);
	buf[got] = '\0';
	return n >= 0 && status_field(buf, got, "\nSigCgt:", 8, 16, caught) &&
	       (!threads || status_field(buf, got, "\nThreads:", 9, 10, threads));
}

/* The parent, every signal blocked, where it is its process's one thread:
 * nothing but its own code can change its handlers until the clone (no
 * handler runs in it, and no completion of the kernel's run in its name
 * sets one), so what it reads now is what the child starts with.  /proc's
 * entries of a process that lives on are cached, where a new child's are
 * made at its first look (tens of microseconds).  A task that shares the
 * handlers without being a thread (clone(2) with CLONE_SIGHAND but not
 * CLONE_THREAD) is not seen: sbx_posix_spawn(3) says so. */
bool sbx__parent_alone(uint64_t *caught)
{
	uint64_t threads = 0;

#ifdef HAVE_SYS_SINGLE_THREADED_H
	/* A process that made a thread once (the C library's word) is not
	 * asked: it would read its status for nothing at each spawn. */
	if (!__libc_single_threaded)
		return false;
#endif
	return _NSIG - 1 <= 64 && read_status(caught, &threads) && threads == 1;
}

/* No handler of the parent may run in the child: it would run on the
 * parent's memory.  Ignored signals stay ignored unless SETSIGDEF. */
CHILD void sbx__reset_signals(short flags, const sigset_t *sigdefault,
                              const uint64_t *known_caught)
{
	/* Kernel sigactions of SIG_DFL and SIG_IGN: the handler comes first in
	 * the layout of every architecture but mips, and the rest is zero. */
	static const unsigned long dfl[4] = { (unsigned long)SIG_DFL };
	static const unsigned long ign[4] = { (unsigned long)SIG_IGN };
	uint64_t caught = known_caught ? *known_caught : 0;
	bool known = known_caught || (_NSIG - 1 <= 64 && read_status(&caught, NULL));

	for (int sig = 1; sig < _NSIG; sig++) {
		unsigned long now[4] = { 0 };
		const unsigned long *set = NULL;

		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		if ((flags & POSIX_SPAWN_SETSIGDEF) && sigismember(sigdefault, sig))
			set = dfl;
		else if (sig >= 32 && sig < SIGRTMIN)
			/* The C library's own signals: as its posix_spawn. */
			set = libc_signal_ignored(sig) ? ign : NULL;
		/* Read from the kernel, not through sigaction(3): musl's takes a
		 * lock for SIGABRT, which a fork in another thread holds, and a
		 * child copied at that moment would wait for it forever with
		 * every signal blocked (a sanitizer's sigaction takes its own).
		 * A signal the kernel shows uncaught is not asked for. */
		else if ((!known || (caught >> (sig - 1) & 1)) &&
		         sys(SYS_rt_sigaction, sig, 0, (long)now, KERNEL_SIGSET_SIZE) == 0 &&
		         now[0] != (unsigned long)SIG_IGN && now[0] != (unsigned long)SIG_DFL)
			set = dfl;
		if (set)
			(void)sys(SYS_rt_sigaction, sig, (long)set, 0, KERNEL_SIGSET_SIZE);
	}
}

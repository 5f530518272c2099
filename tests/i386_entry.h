/* SPDX-License-Identifier: MIT */
/* What the tests that make system calls through the i386 entry (int $0x80)
 * of an x86_64 kernel share. */
#ifndef SBX_TESTS_I386_ENTRY_H
#define SBX_TESTS_I386_ENTRY_H

#include <signal.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The fault of an entry that is not served must end the process by its
 * signal, which the test reads: a sanitizer's handler would turn it into
 * an exit of its own.  Raw, past the sanitizer's interception. */
static inline void i386_entry_faults_kill(void)
{
	struct {
		void *handler;
		unsigned long flags;
		void *restorer;
		unsigned long long mask;
	} sa = { SIG_DFL, 0, NULL, 0 };

	syscall(SYS_rt_sigaction, SIGSEGV, &sa, NULL, 8);
}

#endif

/* SPDX-License-Identifier: MIT */
/* The kernel's audit log, as the denial tests change and read it
 * (audit.c). */
#ifndef SBX_TESTS_AUDIT_H
#define SBX_TESTS_AUDIT_H

#include <stdbool.h>
#include <stdint.h>

#include "compat/kernel.h"

/* AUDIT_GET of the log's status into *st, or AUDIT_SET of what st->mask
 * names: 0, or the errno. */
int audit_status(int type, struct audit_status *st);

/* Takes the log for one test: waits for the machine's lock (another run's
 * test holding it), undoes what a run that died holding it left changed,
 * and records the log as it is now: 0 with *st that status, or the errno
 * (nothing taken).  Every take is followed by a give. */
int audit_take(struct audit_status *st);

/* Puts back the switch, the backlog limit and its wait as the take found
 * them, and lets the lock go. */
void audit_give(void);

/* The log carries every process's records: a burst of another's, on a
 * busy machine, takes some of ours with it, and sbxrun's report then says
 * it may miss some.  A test runs its command again where that happened,
 * AUDIT_RUNS times in all, and says so where every run lost some. */
#define AUDIT_RUNS 3

/* Whether sbxrun's report in out says records were lost while its
 * command ran. */
bool audit_lossy(const char *out);

/* The kernel's count of the records it lost (0 where it cannot be read). */
uint32_t audit_lost(void);

/* Whether the kernel's count moved during the last audit_reported run: a
 * report that says records were lost is believed only then. */
extern bool audit_lost_meanwhile;

/* sbxrun's report of argv (run_scoped's status and *out), the run made
 * again while it says records were lost and the kernel did lose some. */
int audit_reported(char *const argv[], char **out);

/* A report that says records were lost while the kernel lost none is
 * wrong, and fails the test; where the kernel did lose some in every run,
 * the test ends with a SKIP line: the report was right to miss them. */
/* Where every run's report lost records (and the kernel's count says it
 * did), a SKIP line for the part of test named what, which goes on
 * without it: true then. */
bool audit_lossy_part(const char *test, const char *out, const char *what);

#define SKIP_IF_LOSSY(out)                                                                \
	do {                                                                              \
		if (audit_lossy(out)) {                                                   \
			ck_assert_msg(audit_lost_meanwhile, "the report says records were " \
			              "lost, and the kernel lost none: %s", out);         \
			say_skip("SKIP %s: the audit log lost records in each of %d runs " \
			         "(it is the machine's: another process's burst)\n",      \
			         __func__, AUDIT_RUNS);                                   \
			free(out);                                                        \
			return;                                                           \
		}                                                                         \
	} while (0)

#endif

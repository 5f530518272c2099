/* SPDX-License-Identifier: MIT */
/* A build runner's jail for the chroot suite (tests/jail.c). */
#ifndef SBX_TESTS_JAIL_H
#define SBX_TESTS_JAIL_H

#include <stdbool.h>

/* Whether an ext4 image can be made and loop-mounted here; a SKIP line
 * for test where not. */
bool loop_mounts(const char *test);
/* What program loads (its interpreter lists them, as ldd(1) asks it to),
 * copied into the jail at the same paths: no mount of the host's needed. */
void jail_libraries(const char *jail, const char *program);
/* A jail (malloc'd) with /d/secret ("the-secret"), /ok/file, fsop at
 * /fsop, /proc and /dev/null, on a tmpfs, an ext4 image, or the machine's
 * disk (with /sys); NULL, with a SKIP line, where it cannot be made or
 * Landlock is not enforced. */
enum jail_on { JAIL_TMPFS, JAIL_IMAGE, JAIL_DISK };
char *jail_make(const char *test, enum jail_on on);
/* The jail gone, every mount in it with it; frees jail. */
void jail_end(char *jail);
/* path (absolute) made in the jail, with every directory on its way. */
void jail_mkdirs(const char *jail, const char *path);
/* steps, run in a child chrooted into jail: 0, or the step that failed. */
int jailed(const char *jail, int (*steps)(void));

/* In the jail: path read by fsop with no scope, its bytes holding want
 * (where given): 0, or 1 with a line on stderr (a positive control). */
int readable(const char *path, const char *want);
/* In the jail: path read by fsop under a scope denying /d; run_scoped's
 * status, and fsop's output into *out (freed by the caller). */
int denied_read(const char *path, char **out);

#endif

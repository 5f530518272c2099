/* SPDX-License-Identifier: MIT */
/* How an escape attempt (escape.c, escape_uring.c) says what each step
 * did: "STEP ok" or "STEP ERRNO" a line, the verdict last, and what a read
 * obtains on stderr, where a leak shows. */
#ifndef SBX_TESTS_HELPERS_STEPS_H
#define SBX_TESTS_HELPERS_STEPS_H

/* An errno's name ("EACCES"). */
const char *name(int err);
/* Reports one step; returns r so calls can be chained in conditions. */
long step(const char *what, long r);
/* The verdict line, then the exit status: 0 when the attempt succeeded. */
int verdict(long r);
/* Reads fd from its start and shows what came out. */
long dump(int fd);
/* Opened as fd (the result of what), then read. */
long try_read(const char *what, int fd);
int open_and_dump(const char *what, int fd);

/* The io_uring attempts (escape_uring.c): a ring set up by hand, with no
 * library; "unavailable" where the helper was built without the kernel's
 * <linux/io_uring.h>. */
int uring_openat(char **a);
int uring_renameat(char **a);
int uring_install(char **a);

#endif /* SBX_TESTS_HELPERS_STEPS_H */

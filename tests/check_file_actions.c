/* SPDX-License-Identifier: MIT */
/* sbx_file_actions_*: the add-time checks of glibc's posix_spawn_file_actions_*. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tests/common.h"

static const int fds[] = { -1000, -1, 0, 1, 2, 1023, 1024, 4095, 4096, 1 << 20, 0x7fffffff };
#define NFDS (int)(sizeof(fds) / sizeof(fds[0]))

/* What glibc answers when an action naming fd is added: the call itself
 * under glibc; elsewhere its rule (EBADF unless 0 <= fd < RLIMIT_NOFILE),
 * for other C libraries check less (musl: only fd < 0) or lack the call. */
#ifdef __GLIBC__
#define GLIBC(call, fd) (call)
#else
#define GLIBC(call, fd) glibc_rule(fd)
static int glibc_rule(int fd)
{
	long maxfd = sysconf(_SC_OPEN_MAX);

	return fd >= 0 && (maxfd < 0 || fd < maxfd) ? 0 : EBADF;
}
#endif

START_TEST(test_fd_ranges_match_glibc)
{
	posix_spawn_file_actions_t g;
	sbx_file_actions_t s;

#ifndef __GLIBC__
	say_skip("SKIP %s (the comparison with the C library): it is not glibc; checked "
	        "against glibc's rule instead\n", __func__);
#endif
	posix_spawn_file_actions_init(&g);
	sbx_file_actions_init(&s);
	for (int i = 0; i < NFDS; i++) {
		int fd = fds[i];

		errno = 77;
		ck_assert_int_eq(sbx_file_actions_addopen(&s, fd, "/x", O_RDONLY, 0),
		                 GLIBC(posix_spawn_file_actions_addopen(&g, fd, "/x", O_RDONLY, 0), fd));
		ck_assert_int_eq(sbx_file_actions_addclose(&s, fd),
		                 GLIBC(posix_spawn_file_actions_addclose(&g, fd), fd));
		ck_assert_int_eq(sbx_file_actions_adddup2(&s, fd, 1),
		                 GLIBC(posix_spawn_file_actions_adddup2(&g, fd, 1), fd));
		ck_assert_int_eq(sbx_file_actions_adddup2(&s, 1, fd),
		                 GLIBC(posix_spawn_file_actions_adddup2(&g, 1, fd), fd));
		/* glibc checks nothing of fchdir's descriptor when it is added. */
		ck_assert_int_eq(sbx_file_actions_addfchdir(&s, fd),
		                 GLIBC(posix_spawn_file_actions_addfchdir_np(&g, fd), 0));
		ck_assert_int_eq(sbx_file_actions_addclosefrom(&s, fd),
		                 GLIBC(posix_spawn_file_actions_addclosefrom_np(&g, fd), fd));
		ck_assert_int_eq(sbx_file_actions_addtcsetpgrp(&s, fd),
		                 GLIBC(posix_spawn_file_actions_addtcsetpgrp_np(&g, fd), fd));
		ck_assert_int_eq(errno, 77);
	}
	ck_assert_int_eq(sbx_file_actions_addchdir(&s, "/"),
	                 GLIBC(posix_spawn_file_actions_addchdir_np(&g, "/"), 0));
	ck_assert_int_gt(s.__used, 10);
	sbx_file_actions_destroy(&s);
	posix_spawn_file_actions_destroy(&g);
}
END_TEST

START_TEST(test_limit_follows_rlimit)
{
	posix_spawn_file_actions_t g;
	sbx_file_actions_t s;
	struct rlimit rl = { 64, 64 };

	/* Validity is judged against RLIMIT_NOFILE when the action is added. */
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
		/* valgrind keeps descriptors of its own at the top of the range */
		say_skip("SKIP %s: cannot lower RLIMIT_NOFILE here (%s)\n", __func__,
		        strerror(errno));
		return;
	}
	posix_spawn_file_actions_init(&g);
	sbx_file_actions_init(&s);
	ck_assert_int_eq(sbx_file_actions_addclose(&s, 63), 0);
	ck_assert_int_eq(sbx_file_actions_addclose(&s, 64), EBADF);
	ck_assert_int_eq(GLIBC(posix_spawn_file_actions_addclose(&g, 64), 64), EBADF);
	sbx_file_actions_destroy(&s);
	posix_spawn_file_actions_destroy(&g);
}
END_TEST

START_TEST(test_destroy_and_reuse)
{
	sbx_file_actions_t s;

	sbx_file_actions_init(&s);
	for (int i = 0; i < 1000; i++)
		ck_assert_int_eq(sbx_file_actions_addopen(&s, 3, "/some/path", O_RDONLY, 0), 0);
	ck_assert_int_eq(s.__used, 1000);
	ck_assert_int_eq(sbx_file_actions_destroy(&s), 0);
	ck_assert_int_eq(sbx_file_actions_init(&s), 0);
	ck_assert_int_eq(s.__used, 0);
	ck_assert_int_eq(sbx_file_actions_destroy(&s), 0);
}
END_TEST

Suite *suite_file_actions(void)
{
	Suite *s = suite_create("file_actions");
	TCase *tc = tcase_create("add");

	untimed(tc);
	tcase_add_test(tc, test_fd_ranges_match_glibc);
	tcase_add_test(tc, test_limit_follows_rlimit);
	tcase_add_test(tc, test_destroy_and_reuse);
	suite_add_tcase(s, tc);
	return s;
}

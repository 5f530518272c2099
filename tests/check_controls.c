/* SPDX-License-Identifier: MIT */
/* Controls beyond the filesystem: TCP ports, IPC scoping, io_uring, and
 * what happens where the ABI cannot enforce one; the privilege a child
 * keeps: check_privilege.c. */
#include "config.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "tests/controls.h"

#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"

/* A listening loopback TCP socket; its port in *port. */
static int listen_tcp(unsigned *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(fd, 16), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	*port = ntohs(sin.sin_port);
	return fd;
}

/* A port nothing listens on, free to bind. */
static unsigned free_port(void)
{
	unsigned port;
	int fd = listen_tcp(&port);

	close(fd);
	return port;
}

/* Whether io_uring works here without the library (the control): where
 * something else refuses it (kernel.io_uring_disabled, a container's
 * seccomp profile), a SKIP line says so and the library's EPERM proves
 * nothing. */
static bool uring_works(const char *test)
{
	const char *v = fs(NULL, "io_uring", "");

	if (!strcmp(v, "ok"))
		return true;
	say_skip("SKIP %s (io_uring): refused here without the library too (%s: "
	        "kernel.io_uring_disabled, or a seccomp profile of the machine's)\n", test, v);
	return false;
}

START_TEST(test_tcp_connect)
{
	sbx_scopeattr_t s;
	struct seen seen;
	unsigned ok, no;
	int a, b;

	REQUIRE_LANDLOCK();
	if (landlock_abi() < 4) {
		say_skip("SKIP %s: TCP control needs Landlock ABI 4\n", __func__);
		return;
	}
	a = listen_tcp(&ok);
	b = listen_tcp(&no);
	scope_make(&s, &seen, 0);
	ck_assert_int_eq(sbx_scopeattr_allowtcp(&s, SBX_TCP_CONNECT, ok), 0);
	ck_assert_str_eq(fs(&s, "connect", num(ok)), "ok");
	ck_assert_str_eq(fs(&s, "connect", num(no)), "EACCES");
	/* io_uring goes with a TCP control: its socket operations pass beside
	 * the filter that closes the other roads to TCP. */
	ck_assert_int_eq(controls_enforced(), SBX_SCOPE_NO_TCP_CONNECT | SBX_SCOPE_NO_IO_URING);
	if (uring_works(__func__))
		ck_assert_str_eq(fs(&s, "io_uring", ""), "EPERM");
	/* Binding is not what was asked about. */
	ck_assert_str_eq(fs(&s, "bind", num(free_port())), "ok");
	ck_assert_str_eq(fs(NULL, "connect", num(no)), "ok");
	ck_assert_int_eq(sbx_scopeattr_allowtcp(&s, 0, 80), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_allowtcp(&s, SBX_TCP_CONNECT, 65536), EINVAL);
	sbx_scopeattr_destroy(&s);
	close(a);
	close(b);
}
END_TEST

START_TEST(test_tcp_bind)
{
	sbx_scopeattr_t s;
	struct seen seen;
	unsigned ok = free_port(), no = free_port();

	REQUIRE_LANDLOCK();
	if (landlock_abi() < 4) {
		say_skip("SKIP %s: TCP control needs Landlock ABI 4\n", __func__);
		return;
	}
	scope_make(&s, &seen, SBX_SCOPE_NO_TCP_BIND);
	ck_assert_str_eq(fs(&s, "bind", num(ok)), "EACCES");
	ck_assert_int_eq(sbx_scopeattr_allowtcp(&s, SBX_TCP_BIND, ok), 0);
	ck_assert_str_eq(fs(&s, "bind", num(ok)), "ok");
	ck_assert_str_eq(fs(&s, "bind", num(no)), "EACCES");
	/* bind(2) is denied, but listen(2) on a socket never bound still takes
	 * a port: the control is not enforced in full, and says so. */
	ck_assert_int_eq(controls_enforced(), SBX_SCOPE_NO_IO_URING);
	if (uring_works(__func__))
		ck_assert_str_eq(fs(&s, "io_uring", ""), "EPERM");
	ck_assert_int_ge(seen.downgraded, 1);
	ck_assert_str_eq(seen.name, "tcp_bind");
	ck_assert_ptr_nonnull(strstr(seen.message, "listen(2)"));
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* The roads to TCP that Landlock's bind and connect rights do not see:
 * MPTCP, a connect hidden in a send (TCP Fast Open), listen(2) on a socket
 * never bound.  Closed by seccomp where they can be; where one cannot be,
 * the control is not reported enforced, and STRICT refuses. */
START_TEST(test_tcp_other_roads)
{
	sbx_scopeattr_t s;
	struct seen seen;
	unsigned ok, no;
	int a = listen_tcp(&ok), b = listen_tcp(&no);
	char *argv[] = { FSOP, "listen", "0", NULL }, *out;

	REQUIRE_LANDLOCK();
	if (landlock_abi() < 4) {
		say_skip("SKIP %s: TCP control needs Landlock ABI 4\n", __func__);
		return;
	}
	/* No TCP at all: every road is closed, and both controls hold. */
	scope_make(&s, &seen, SBX_SCOPE_NO_TCP_BIND | SBX_SCOPE_NO_TCP_CONNECT | SBX_SCOPE_STRICT);
	ck_assert_str_eq(fs(&s, "mptcp-connect", num(no)), "EACCES");
	ck_assert_str_eq(fs(&s, "mptcp-bind", num(free_port())), "EACCES");
	ck_assert_str_eq(fs(&s, "fastopen", num(no)), "EACCES");
	ck_assert_str_eq(fs(&s, "listen", "0"), "EACCES");
	ck_assert_int_eq(controls_enforced(),
	                 SBX_SCOPE_NO_TCP_BIND | SBX_SCOPE_NO_TCP_CONNECT | SBX_SCOPE_NO_IO_URING);
	ck_assert_int_eq(seen.downgraded, 0);
	sbx_scopeattr_destroy(&s);

	/* Connect denied but to one port: MPTCP and Fast Open are closed
	 * (Fast Open even to that port: its address is beyond a filter's
	 * view), a plain connect to the port works. */
	scope_make(&s, &seen, SBX_SCOPE_STRICT);
	ck_assert_int_eq(sbx_scopeattr_allowtcp(&s, SBX_TCP_CONNECT, ok), 0);
	ck_assert_str_eq(fs(&s, "mptcp-connect", num(no)), "EPROTONOSUPPORT");
	ck_assert_str_eq(fs(&s, "fastopen", num(no)), "EACCES");
	ck_assert_str_eq(fs(&s, "fastopen", num(ok)), "EACCES");
	ck_assert_str_eq(fs(&s, "connect", num(ok)), "ok");
	ck_assert_int_eq(controls_enforced(), SBX_SCOPE_NO_TCP_CONNECT | SBX_SCOPE_NO_IO_URING);
	sbx_scopeattr_destroy(&s);

	/* Bind denied, connect free: listen(2) still takes a port, which no
	 * filter can tell from a listen on a bound socket.  A warning by
	 * default; under STRICT, a refusal. */
	scope_make(&s, &seen, SBX_SCOPE_NO_TCP_BIND);
	ck_assert_str_eq(fs(&s, "mptcp-bind", num(free_port())), "EPROTONOSUPPORT");
	ck_assert_str_eq(fs(&s, "listen", "0"), "ok");
	ck_assert_int_eq(controls_enforced() & SBX_SCOPE_NO_TCP_BIND, 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_NO_TCP_BIND | SBX_SCOPE_STRICT), 0);
	ck_assert_int_eq(run_scoped(&s, argv, &out), -1000 - SBX_EREFUSED);
	ck_assert_ptr_nonnull(strstr(out, "listen(2)"));
	free(out);
	sbx_scopeattr_destroy(&s);
	close(a);
	close(b);
}
END_TEST

START_TEST(test_controls_without_landlock)
{
	sbx_scopeattr_t s;
	struct seen seen;
	sbx_outcome_t oc;

	/* Before the first spawn, so that the once-per-process probe sees it. */
	seccomp_fail(SYS_landlock_create_ruleset, ENOSYS);
	scope_make(&s, &seen, SBX_SCOPE_NO_IO_URING | SBX_SCOPE_NO_TCP_CONNECT);
	if (uring_works(__func__))
		ck_assert_str_eq(fs(&s, "io_uring", ""), "EPERM");
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_UNCONFINED);
	ck_assert_int_eq(oc.controls, SBX_SCOPE_NO_IO_URING);
	ck_assert_int_ge(seen.downgraded, 1); /* tcp_connect needs Landlock */
	if (geteuid() == 0 && nobody_can_run(FSOP, __func__, "another uid")) {
		ck_assert_int_eq(sbx_scopeattr_setids(&s, 65534, 65534), 0);
		ck_assert_str_eq(fs(&s, "openw", "/proc/sys/kernel/core_pattern"), "EACCES");
	}
	sbx_scopeattr_destroy(&s);
}
END_TEST

START_TEST(test_signal_scope)
{
	sbx_scopeattr_t s;
	struct seen seen;
	char parent[16];

	REQUIRE_LANDLOCK();
	if (landlock_abi() < 6) {
		say_skip("SKIP %s: scoping needs Landlock ABI 6\n", __func__);
		return;
	}
	snprintf(parent, sizeof(parent), "%d", getpid());
	scope_make(&s, &seen, 0);
	ck_assert_str_eq(fs(&s, "kill", parent), "ok");
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_NO_SIGNAL), 0);
	/* The program that started it is outside its domain. */
	ck_assert_str_eq(fs(&s, "kill", parent), "EPERM");
	ck_assert_int_eq(controls_enforced(), SBX_SCOPE_NO_SIGNAL);
	sbx_scopeattr_destroy(&s);
}
END_TEST

START_TEST(test_abstract_unix_scope)
{
	sbx_scopeattr_t s;
	struct seen seen;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char name[64];
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	socklen_t len;

	REQUIRE_LANDLOCK();
	if (landlock_abi() < 6) {
		say_skip("SKIP %s: scoping needs Landlock ABI 6\n", __func__);
		return;
	}
	snprintf(name, sizeof(name), "@sbxspawn-test-%d", getpid());
	memcpy(sun.sun_path + 1, name + 1, strlen(name) - 1);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(name));
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, len), 0);
	ck_assert_int_eq(listen(fd, 4), 0);
	scope_make(&s, &seen, 0);
	ck_assert_str_eq(fs(&s, "unix", name), "ok");
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_NO_ABSTRACT_UNIX), 0);
	ck_assert_str_eq(fs(&s, "unix", name), "EPERM");
	ck_assert_int_eq(controls_enforced(), SBX_SCOPE_NO_ABSTRACT_UNIX);
	sbx_scopeattr_destroy(&s);
	close(fd);
}
END_TEST

START_TEST(test_io_uring)
{
	sbx_scopeattr_t s;
	struct seen seen;
	const char *open_verdict;

	REQUIRE_LANDLOCK();
	scope_make(&s, &seen, 0);
	open_verdict = fs(&s, "io_uring", NULL);
	if (strcmp(open_verdict, "ok") != 0) {
		say_skip("SKIP %s: io_uring is off on this machine (%s)\n", __func__, open_verdict);
		return;
	}
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_NO_IO_URING), 0);
	ck_assert_str_eq(fs(&s, "io_uring", NULL), "EPERM");
	ck_assert_int_eq(controls_enforced(), SBX_SCOPE_NO_IO_URING);
	/* The same filter through sbx_execve, in sbxrun. */
	char *argv[] = { SBXRUN, "--no-io-uring", FSOP, "io_uring", NULL };
	char *out;
	ck_assert_int_eq(run_scoped(NULL, argv, &out), 1);
	ck_assert_ptr_nonnull(strstr(out, "EPERM"));
	free(out);
	sbx_scopeattr_destroy(&s);
}
END_TEST

START_TEST(test_downgrades)
{
	sbx_scopeattr_t s;
	struct seen seen;
	unsigned no;
	int fd;
	char *out;
	char parent[16];

	REQUIRE_LANDLOCK();
	fd = listen_tcp(&no);
	snprintf(parent, sizeof(parent), "%d", getpid());
	/* Capped below ABI 4, the TCP control is not enforced: a warning, and
	 * the rest of the scope holds. */
	scope_make(&s, &seen, SBX_SCOPE_NO_TCP_CONNECT | SBX_SCOPE_NO_IO_URING);
	sbx_scopeattr_setabi(&s, 3);
	ck_assert_str_eq(fs(&s, "connect", num(no)), "ok");
	ck_assert_int_eq(seen.downgraded, 1);
	ck_assert_str_eq(seen.name, "tcp_connect");
	ck_assert_str_eq(seen.message, "not enforced: tcp_connect (needs Landlock ABI 4); the rest of "
	                               "the scope is (SBX_SCOPE_STRICT refuses instead)");
	ck_assert_int_eq(controls_enforced(), SBX_SCOPE_NO_IO_URING);
	/* Strict: refused, nothing runs. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_NO_TCP_CONNECT | SBX_SCOPE_STRICT), 0);
	char *argv[] = { FSOP, "connect", (char *)num(no), NULL };
	ck_assert_int_eq(run_scoped(&s, argv, &out), -1000 - SBX_EREFUSED);
	ck_assert_ptr_nonnull(strstr(out, "sbxspawn: " FSOP ": not run: SBX_SCOPE_STRICT refuses a "
	                                  "control not enforced in full: tcp_connect: needs Landlock "
	                                  "ABI 4\n"));
	ck_assert_ptr_null(strstr(out, "ok"));
	free(out);
	sbx_scopeattr_destroy(&s);

	/* Capped at 5, signals cannot be scoped. */
	if (landlock_abi() >= 6) {
		scope_make(&s, &seen, SBX_SCOPE_NO_SIGNAL);
		sbx_scopeattr_setabi(&s, 5);
		ck_assert_str_eq(fs(&s, "kill", parent), "ok");
		ck_assert_int_eq(seen.downgraded, 1);
		ck_assert_int_eq(controls_enforced(), 0);
		sbx_scopeattr_destroy(&s);
	} else {
		say_skip("SKIP %s (signals capped at ABI 5): this kernel's Landlock is ABI %d, below "
		         "the 6 that scopes signals\n", __func__, landlock_abi());
	}

	/* Pathname unix sockets need ABI 9. */
	scope_make(&s, &seen, SBX_SCOPE_NO_UNIX_CONNECT);
	ck_assert_str_eq(fs(&s, "read", "/etc/passwd"), "ok");
	if (landlock_abi() >= 9) {
		ck_assert_int_eq(seen.downgraded, 0);
		ck_assert_int_eq(controls_enforced(), SBX_SCOPE_NO_UNIX_CONNECT);
	} else {
		ck_assert_int_eq(seen.downgraded, 1);
		ck_assert_str_eq(seen.name, "unix_connect");
		ck_assert_ptr_nonnull(strstr(seen.message, "(needs Landlock ABI 9)"));
	}
	sbx_scopeattr_destroy(&s);
	close(fd);
}
END_TEST

START_TEST(test_unix_socket_in_denied_dir)
{
	struct tree t;
	sbx_scopeattr_t s;
	struct seen seen;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char path[4096];

	REQUIRE_LANDLOCK();
	tree_make(&t);
	snprintf(path, sizeof(path), "%s/sock", t.other);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	ck_assert_int_eq(listen(fd, 4), 0);
	scope_make(&s, &seen, 0);
	expand_way(&s);
	sbx_scopeattr_adddeny(&s, t.other);
	/* Before ABI 9 connecting is not a filesystem right: a documented
	 * limit.  From ABI 9 the denial covers the socket. */
	ck_assert_str_eq(fs(&s, "unix", path), landlock_abi() >= 9 ? "EACCES" : "ok");
	sbx_scopeattr_destroy(&s);
	close(fd);
	tree_free(&t);
}
END_TEST

START_TEST(test_sbxrun_controls)
{
	unsigned ok, no;
	int a, b;
	char *out, parent[16];

	REQUIRE_LANDLOCK();
	if (landlock_abi() < 6) {
		say_skip("SKIP %s: needs Landlock ABI 6\n", __func__);
		return;
	}
	a = listen_tcp(&ok);
	b = listen_tcp(&no);
	snprintf(parent, sizeof(parent), "%d", getpid());
	char *conn[] = { SBXRUN, "--allow-tcp-connect", (char *)num(ok), FSOP, "connect", (char *)num(no), NULL };
	ck_assert_int_eq(run_scoped(NULL, conn, &out), 1);
	ck_assert_ptr_nonnull(strstr(out, "EACCES"));
	free(out);
	conn[5] = (char *)num(ok);
	ck_assert_int_eq(run_scoped(NULL, conn, &out), 0);
	free(out);
	char *nc[] = { SBXRUN, "--no-tcp-connect", FSOP, "connect", (char *)num(ok), NULL };
	ck_assert_int_eq(run_scoped(NULL, nc, &out), 1);
	free(out);
	char *nb[] = { SBXRUN, "--no-tcp-bind", FSOP, "bind", (char *)num(free_port()), NULL };
	ck_assert_int_eq(run_scoped(NULL, nb, &out), 1);
	free(out);
	unsigned port = free_port();
	char *ab[] = { SBXRUN, "--allow-tcp-bind", (char *)num(port), FSOP, "bind", (char *)num(port), NULL };
	ck_assert_int_eq(run_scoped(NULL, ab, &out), 0);
	free(out);
	char *sig[] = { SBXRUN, "--no-signal", FSOP, "kill", parent, NULL };
	ck_assert_int_eq(run_scoped(NULL, sig, &out), 1);
	ck_assert_ptr_nonnull(strstr(out, "EPERM"));
	free(out);
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char name[64];
	int u = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(name, sizeof(name), "@sbxrun-test-%d", getpid());
	memcpy(sun.sun_path + 1, name + 1, strlen(name) - 1);
	ck_assert_int_eq(bind(u, (struct sockaddr *)&sun,
	                      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(name))), 0);
	ck_assert_int_eq(listen(u, 4), 0);
	char *au[] = { SBXRUN, "--no-abstract-unix", FSOP, "unix", name, NULL };
	ck_assert_int_eq(run_scoped(NULL, au, &out), 1);
	ck_assert_ptr_nonnull(strstr(out, "EPERM"));
	free(out);
	char *strict[] = { SBXRUN, "--strict", "--abi", "3", "--no-tcp-connect", "true", NULL };
	ck_assert_int_eq(run_scoped(NULL, strict, &out), 125);
	ck_assert_ptr_nonnull(strstr(out, "not enforced in full: tcp_connect: needs Landlock ABI 4"));
	free(out);
	char *uc[] = { SBXRUN, "--no-unix-connect", "true", NULL };
	ck_assert_int_eq(run_scoped(NULL, uc, &out), 0);
	if (landlock_abi() < 9)
		ck_assert_ptr_nonnull(strstr(out, "not enforced: unix_connect"));
	free(out);
	char *status[] = { SBXRUN, "--status", NULL };
	ck_assert_int_eq(run_scoped(NULL, status, &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "controls enforceable:"));
	ck_assert_ptr_nonnull(strstr(out, "tcp-connect"));
	ck_assert_ptr_nonnull(strstr(out, "io-uring"));
	free(out);
	close(a);
	close(b);
	close(u);
}
END_TEST

Suite *suite_controls(void)
{
	Suite *s = suite_create("controls");
	TCase *tc = tcase_create("beyond-fs");

	untimed(tc);
	tcase_add_test(tc, test_tcp_connect);
	tcase_add_test(tc, test_tcp_bind);
	tcase_add_test(tc, test_tcp_other_roads);
	privilege_tests(tc);
	tcase_add_test(tc, test_controls_without_landlock);
	tcase_add_test(tc, test_signal_scope);
	tcase_add_test(tc, test_abstract_unix_scope);
	tcase_add_test(tc, test_io_uring);
	tcase_add_test(tc, test_downgrades);
	tcase_add_test(tc, test_unix_socket_in_denied_dir);
	tcase_add_test(tc, test_sbxrun_controls);
	suite_add_tcase(s, tc);
	return s;
}

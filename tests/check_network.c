/* SPDX-License-Identifier: MIT */
/* SBX_SCOPE_NO_NETWORK: the harness's second road out.  Each road is
 * shown open without the library first (a datagram delivered, a socket
 * made), then closed under the scope; a unix socket stays; a TCP port the
 * scope allows is the one way left (a local proxy). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "tests/common.h"

#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"

/* A loopback socket of family and type, bound to a port the kernel picks
 * (and listening, for a stream): its descriptor, *port set; -1 where this
 * machine has no such address. */
static int loopback(int family, int type, unsigned *port)
{
	struct sockaddr_storage ss = { .ss_family = (sa_family_t)family };
	socklen_t len = family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	int fd = socket(family, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (family == AF_INET6)
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
	else
		((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, len) ||
	    (type == SOCK_STREAM && listen(fd, 4)) || getsockname(fd, (struct sockaddr *)&ss, &len)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
	                                 : ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

/* How many datagrams wait on fd (each read away). */
static int delivered(int fd)
{
	char c;
	int n = 0;

	while (recv(fd, &c, 1, MSG_DONTWAIT) == 1)
		n++;
	return n;
}

static void unheard(const sbx_event_t *ev, void *arg)
{
	(void)ev;
	(void)arg;
}

static void no_network(sbx_scopeattr_t *s)
{
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(s, SBX_SCOPE_NO_NETWORK), 0);
}

/* UDP on IPv4 and IPv6 to a receiver of the caller's: delivered without
 * the scope, refused at socket(2) with it, and nothing arrives. */
START_TEST(test_no_network_udp)
{
	sbx_scopeattr_t s;
	unsigned port;
	int fd;

	REQUIRE_LANDLOCK();
	no_network(&s);
	for (int v = 0; v < 2; v++) {
		const char *family = v ? "6" : "4";

		if ((fd = loopback(v ? AF_INET6 : AF_INET, SOCK_DGRAM, &port)) < 0) {
			say_skip("SKIP %s (IPv%s): no loopback address of that family here\n",
			         __func__, family);
			continue;
		}
		ck_assert_str_eq(fsop_verdict(NULL, "udp", family, num(port)), "ok");
		ck_assert_int_eq(delivered(fd), 1);
		ck_assert_str_eq(fsop_verdict(&s, "udp", family, num(port)), "EACCES");
		ck_assert_int_eq(delivered(fd), 0);
		close(fd);
	}
	/* io_uring, whose socket operations pass beside the filter, goes too:
	 * no ring is made. */
	ck_assert_int_eq(controls_enforced() & (SBX_SCOPE_NO_NETWORK | SBX_SCOPE_NO_IO_URING),
	                 SBX_SCOPE_NO_NETWORK | SBX_SCOPE_NO_IO_URING);
	if (!strcmp(fsop_verdict(NULL, "io_uring", NULL, NULL), "ok"))
		ck_assert_str_eq(fsop_verdict(&s, "io_uring", NULL, NULL), "EPERM");
	else
		say_skip("SKIP %s (io_uring): refused here without the library too\n", __func__);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* Every other family: each made without the library where this caller
 * may (raw and packet sockets need root), refused with it; a unix socket
 * and a unix pair stay. */
START_TEST(test_no_network_families)
{
	static const struct {
		const char *what, *args;
	} roads[] = {
		{ "raw ICMP", "2,3,1" },          /* AF_INET, SOCK_RAW, IPPROTO_ICMP */
		{ "raw ICMPv6", "10,3,58" },      /* AF_INET6, SOCK_RAW, IPPROTO_ICMPV6 */
		{ "ping", "2,2,1" },              /* AF_INET, SOCK_DGRAM, IPPROTO_ICMP */
		{ "packet", "17,3,768" },         /* AF_PACKET, SOCK_RAW, ETH_P_ALL */
		{ "netlink", "16,3,0" },          /* AF_NETLINK, SOCK_RAW, NETLINK_ROUTE */
		{ "TCP", "2,1,0" },               /* no port allowed: no inet socket at all */
		{ "SCTP", "10,5,132" },           /* AF_INET6, SOCK_SEQPACKET */
	};
	sbx_scopeattr_t s;
	int shown = 0;

	REQUIRE_LANDLOCK();
	no_network(&s);
	for (size_t i = 0; i < sizeof(roads) / sizeof(roads[0]); i++) {
		const char *without = fsop_verdict(NULL, "socket", roads[i].args, NULL);

		if (strcmp(without, "ok")) {
			say_skip("SKIP %s (%s): refused here without the library too (%s)\n",
			         __func__, roads[i].what, without);
			continue;
		}
		shown++;
		ck_assert_msg(!strcmp(fsop_verdict(&s, "socket", roads[i].args, NULL), "EACCES"),
		              "%s: made under the scope", roads[i].what);
	}
	ck_assert_int_ge(shown, 2); /* netlink and TCP are anyone's */
	ck_assert_str_eq(fsop_verdict(&s, "socket", "1,1,0", NULL), "ok");
	ck_assert_str_eq(fsop_verdict(&s, "socketpair", "1", NULL), "ok");
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A tun device: with CAP_NET_ADMIN a child attaches one and writes
 * packets into the host's stack, no inet socket needed (the interface
 * brought up through a unix socket's ioctls).  Refused with the scope. */
START_TEST(test_no_network_tun)
{
	sbx_scopeattr_t s;
	const char *without;

	REQUIRE_LANDLOCK();
	if (strcmp(without = fsop_verdict(NULL, "tun", NULL, NULL), "ok")) {
		say_skip("SKIP %s: no tun device can be made here without the library either (%s: "
		         "it needs CAP_NET_ADMIN and /dev/net/tun)\n", __func__, without);
		return;
	}
	no_network(&s);
	ck_assert_str_eq(fsop_verdict(&s, "tun", NULL, NULL), "EPERM");
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* The proxy: a TCP port allowed is the one road left; another port is
 * refused by Landlock, UDP by the filter. */
START_TEST(test_no_network_proxy_port)
{
	sbx_scopeattr_t s;
	unsigned proxy, other, dns;
	int a, b, u;

	REQUIRE_LANDLOCK();
	if (landlock_abi() < 4) {
		say_skip("SKIP %s: a TCP port needs Landlock ABI 4\n", __func__);
		return;
	}
	ck_assert_int_ge(a = loopback(AF_INET, SOCK_STREAM, &proxy), 0);
	ck_assert_int_ge(b = loopback(AF_INET, SOCK_STREAM, &other), 0);
	ck_assert_int_ge(u = loopback(AF_INET, SOCK_DGRAM, &dns), 0);
	ck_assert_str_eq(fsop_verdict(NULL, "connect", num(other), NULL), "ok");
	no_network(&s);
	/* (listen(2) on a socket never bound takes a port: said, as ever
	 * where TCP is allowed at all.) */
	sbx_scopeattr_setlogger(&s, unheard, NULL);
	ck_assert_int_eq(sbx_scopeattr_allowtcp(&s, SBX_TCP_CONNECT, proxy), 0);
	ck_assert_str_eq(fsop_verdict(&s, "connect", num(proxy), NULL), "ok");
	ck_assert_str_eq(fsop_verdict(&s, "connect", num(other), NULL), "EACCES");
	ck_assert_str_eq(fsop_verdict(&s, "bind", num(other + 1), NULL), "EACCES");
	ck_assert_str_eq(fsop_verdict(&s, "udp", "4", num(dns)), "EACCES");
	ck_assert_int_eq(delivered(u), 0);
	ck_assert_int_eq(controls_enforced() & (SBX_SCOPE_NO_NETWORK | SBX_SCOPE_NO_TCP_CONNECT),
	                 SBX_SCOPE_NO_NETWORK | SBX_SCOPE_NO_TCP_CONNECT);
	sbx_scopeattr_destroy(&s);
	close(a);
	close(b);
	close(u);
}
END_TEST

/* A unix socket listening at dir/name: its descriptor. */
static int listening_unix(const char *dir, const char *name, char *path, size_t cap)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(path, cap, "%s/%s", dir, name);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	ck_assert_int_eq(listen(fd, 8), 0);
	return fd;
}

/* The controls a downgrade event named, in one string. */
static void downgrades_heard(const sbx_event_t *ev, void *arg)
{
	char *heard = arg;

	if (ev->kind == SBX_EVENT_DOWNGRADED && ev->path &&
	    strlen(heard) + strlen(ev->path) + 2 < 256) {
		strcat(heard, ev->path);
		strcat(heard, " ");
	}
}

/* A proxy on a unix socket: both sockets reached without the scope; with
 * it, the one named stays and, from ABI 9, the other is refused.  Below
 * ABI 9 the control is said not enforced, and refused under
 * SBX_SCOPE_STRICT, never passed over in silence. */
START_TEST(test_no_network_proxy_socket)
{
	char *dir = make_tmpdir(), proxy[4096], other[4096], heard[256] = "";
	sbx_scopeattr_t s;
	int a, b, flags;

	REQUIRE_LANDLOCK();
	a = listening_unix(dir, "proxy.sock", proxy, sizeof(proxy));
	b = listening_unix(dir, "other.sock", other, sizeof(other));
	ck_assert_str_eq(fsop_verdict(NULL, "unix", proxy, NULL), "ok");
	ck_assert_str_eq(fsop_verdict(NULL, "unix", other, NULL), "ok");
	no_network(&s);
	ck_assert_int_eq(sbx_scopeattr_allowsocket(&s, NULL), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_allowsocket(&s, ""), ENOENT);
	ck_assert_int_eq(sbx_scopeattr_allowsocket(&s, proxy), 0);
	ck_assert_int_eq(sbx_scopeattr_getflags(&s, &flags), 0);
	ck_assert_int_eq(flags, SBX_SCOPE_NO_NETWORK | SBX_SCOPE_NO_UNIX_CONNECT);
	sbx_scopeattr_setlogger(&s, downgrades_heard, heard);
	ck_assert_str_eq(fsop_verdict(&s, "unix", proxy, NULL), "ok");
	if (landlock_abi() >= 9) {
		ck_assert_str_eq(fsop_verdict(&s, "unix", other, NULL), "EACCES");
		ck_assert_int_eq(controls_enforced() & SBX_SCOPE_NO_UNIX_CONNECT,
		                 SBX_SCOPE_NO_UNIX_CONNECT);
	} else {
		ck_assert_msg(strstr(heard, "unix_connect"), "heard: %s", heard);
		ck_assert_int_eq(controls_enforced() & SBX_SCOPE_NO_UNIX_CONNECT, 0);
		say_skip("SKIP %s (the other socket refused): needs Landlock ABI 9, this kernel has "
		         "%d\n", __func__, landlock_abi());
		ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_NO_NETWORK |
		                                                SBX_SCOPE_NO_UNIX_CONNECT |
		                                                SBX_SCOPE_STRICT), 0);
		ck_assert_int_eq(run_scoped(&s, (char *[]){ "true", NULL }, NULL), -1000 - SBX_EREFUSED);
	}
	sbx_scopeattr_destroy(&s);
	close(a);
	close(b);
	rm_rf(dir);
	free(dir);
}
END_TEST

/* sbxrun --allow-unix-socket: the same, said or refused with --strict. */
START_TEST(test_sbxrun_proxy_socket)
{
	char *dir = make_tmpdir(), proxy[4096], *out;
	char *argv[] = { SBXRUN, "--no-network", "--allow-unix-socket", proxy, "--",
		         HELPER_DIR "/fsop", "unix", proxy, NULL };
	char *strict[] = { SBXRUN, "--strict", "--allow-unix-socket", proxy, "--", "true", NULL };
	int a;

	REQUIRE_LANDLOCK();
	a = listening_unix(dir, "proxy.sock", proxy, sizeof(proxy));
	ck_assert_int_eq(run_scoped(NULL, argv, &out), 0);
	ck_assert_msg(strstr(out, "ok"), "%s", out);
	if (landlock_abi() < 9)
		ck_assert_msg(strstr(out, "not enforced: unix_connect"), "%s", out);
	free(out);
	ck_assert_int_eq(run_scoped(NULL, strict, &out), landlock_abi() < 9 ? SBX_EXIT_REFUSED : 0);
	free(out);
	close(a);
	rm_rf(dir);
	free(dir);
}
END_TEST

/* sbxrun --no-network sending a datagram to port: what it printed. */
static char *run_sbxrun_udp(const char *port)
{
	char *argv[] = { SBXRUN, "--no-network", "--", HELPER_DIR "/fsop", "udp", "4",
		         (char *)port, NULL };
	char *out = NULL;

	ck_assert_int_eq(run_scoped(NULL, argv, &out), 1);
	return out;
}

/* sbxrun --no-network: the same refusal, and --status names the control. */
START_TEST(test_sbxrun_no_network)
{
	unsigned port;
	char *out;
	int fd;

	REQUIRE_LANDLOCK();
	ck_assert_int_ge(fd = loopback(AF_INET, SOCK_DGRAM, &port), 0);
	out = run_sbxrun_udp(num(port));
	ck_assert_msg(strstr(out, "EACCES"), "%s", out);
	free(out);
	ck_assert_int_eq(delivered(fd), 0);
	ck_assert_int_eq(run_scoped(NULL, (char *[]){ SBXRUN, "--status", NULL }, &out), 0);
	ck_assert_msg(strstr(out, " network"), "%s", out);
	free(out);
	close(fd);
}
END_TEST


Suite *suite_network(void)
{
	Suite *s = suite_create("network");
	TCase *tc = tcase_create("no-network");
	untimed(tc);

	tcase_add_test(tc, test_no_network_udp);
	tcase_add_test(tc, test_no_network_families);
	tcase_add_test(tc, test_no_network_tun);
	tcase_add_test(tc, test_no_network_proxy_port);
	tcase_add_test(tc, test_sbxrun_no_network);
	tcase_add_test(tc, test_no_network_proxy_socket);
	tcase_add_test(tc, test_sbxrun_proxy_socket);
	suite_add_tcase(s, tc);
	return s;
}

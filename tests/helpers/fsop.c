/* SPDX-License-Identifier: MIT */
/* One filesystem operation, its result on stdout as "ok" or the errno's
 * name, and exit status 0 or 1: the C program the confinement tests run. */
#define _GNU_SOURCE
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <net/if.h>
#ifdef HAVE_LINUX_IF_TUN_H
#include <linux/if_tun.h>
#else
/* The kernel's stable interface (Debian's musl-gcc sees no <linux/...>). */
#define TUNSETIFF _IOW('T', 202, int)
#define IFF_TUN 0x0001
#define IFF_NO_PI 0x1000
#endif
#include <termios.h>
#include <unistd.h>

#include "compat/compat.h"
#include "compat/landlock.h"

/* A TCP socket to 127.0.0.1:port, bound or connected. */
static int tcp(const char *port, int do_bind)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)),
	                           .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	return do_bind ? bind(fd, (struct sockaddr *)&sin, sizeof(sin))
	               : connect(fd, (struct sockaddr *)&sin, sizeof(sin));
}

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

/* The other roads to TCP: an MPTCP socket connected or bound, a connect
 * hidden in sendto(MSG_FASTOPEN), listen(2) on a socket never bound (it
 * prints the port it was given). */
static int tcp_other(const char *how, const char *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)),
	                           .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int mptcp = !strncmp(how, "mptcp", 5);
	int fd = socket(AF_INET, SOCK_STREAM, mptcp ? IPPROTO_MPTCP : 0);

	if (fd < 0)
		return -1;
	if (!strcmp(how, "mptcp-connect"))
		return connect(fd, (struct sockaddr *)&sin, sizeof(sin));
	if (!strcmp(how, "mptcp-bind"))
		return bind(fd, (struct sockaddr *)&sin, sizeof(sin));
	if (!strcmp(how, "fastopen"))
		return sendto(fd, "x", 1, MSG_FASTOPEN, (struct sockaddr *)&sin, sizeof(sin)) < 0 ? -1 : 0;
	if (listen(fd, 1) || getsockname(fd, (struct sockaddr *)&sin, &len))
		return -1;
	fprintf(stderr, "listening on port %u\n", ntohs(sin.sin_port));
	return 0;
}

/* A datagram "x" sent to port of the loopback address, IPv4 or IPv6
 * (family "4" or "6"): the road a DNS query takes. */
static int udp_send(const char *family, const char *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port)),
	                           .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6,
	                             .sin6_port = htons((uint16_t)atoi(port)),
	                             .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int six = !strcmp(family, "6"), fd = socket(six ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return -1;
	return sendto(fd, "x", 1, 0, six ? (struct sockaddr *)&sin6 : (struct sockaddr *)&sin,
	              six ? sizeof(sin6) : sizeof(sin)) < 0 ? -1 : 0;
}

/* Connects to a unix socket; an abstract one when name starts with '@'. */
static int unix_connect(const char *name)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	socklen_t len;

	strncpy(sun.sun_path, name, sizeof(sun.sun_path) - 1);
	if (name[0] == '@')
		sun.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(name) + (name[0] != '@'));
	return fd < 0 ? -1 : connect(fd, (struct sockaddr *)&sun, len);
}

static const char *name(int err)
{
	switch (err) {
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EXDEV: return "EXDEV";
	case ENOTTY: return "ENOTTY";
	case EEXIST: return "EEXIST";
	case ENOTDIR: return "ENOTDIR";
	case EISDIR: return "EISDIR";
	case ECONNREFUSED: return "ECONNREFUSED";
	default: return strerrorname_np(err) ? strerrorname_np(err) : "E?";
	}
}

static int done(int r)
{
	if (r < 0) {
		printf("%s\n", name(errno));
		return 1;
	}
	printf("ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "", *a = argc > 2 ? argv[2] : "", *b = argc > 3 ? argv[3] : "";
	char buf[4096];
	int fd;

	if (!strcmp(op, "read")) {
		if ((fd = open(a, O_RDONLY)) < 0)
			return done(-1);
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		if (n >= 0) {
			buf[n] = '\0';
			fprintf(stderr, "%s", buf);
		}
		return done(n < 0 ? -1 : 0);
	}
	if (!strcmp(op, "layer-read")) {
		/* layer-read FILE [FLAGS]: a Landlock layer of the command's
		 * own that grants no read (restricted with FLAGS), then the
		 * read: its denial is that layer's, logged as the kernel logs
		 * a layer's denials in the program that made it. */
		struct sbx_landlock_ruleset_attr ra = { .handled_access_fs = LANDLOCK_ACCESS_FS_READ_FILE };
		int rs = (int)sbx_landlock_create_ruleset(&ra, sizeof(ra), 0);

		if (rs < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    sbx_landlock_restrict_self(rs, (uint32_t)strtoul(b, NULL, 0)))
			return done(-1);
		return done(open(a, O_RDONLY | O_CLOEXEC));
	}
	if (!strcmp(op, "openw"))
		return done(open(a, O_WRONLY | O_CLOEXEC)); /* opened, nothing written */
	if (!strcmp(op, "regain-openw")) {
		/* What a program keeps, taken up again: uid 0 where it may set
		 * it, then the opening. */
		if (setresuid(0, 0, 0) < 0)
			return done(-1);
		return done(open(a, O_WRONLY | O_CLOEXEC));
	}
	if (!strcmp(op, "write")) {
		if ((fd = open(a, O_WRONLY | O_APPEND)) < 0)
			return done(-1);
		return done(write(fd, "w\n", 2) == 2 ? 0 : -1);
	}
	if (!strcmp(op, "create"))
		return done(open(a, O_WRONLY | O_CREAT | O_EXCL, 0644));
	if (!strcmp(op, "truncate"))
		return done(truncate(a, 0));
	if (!strcmp(op, "mkdir"))
		return done(mkdir(a, 0755));
	if (!strcmp(op, "unlink"))
		return done(unlink(a));
	if (!strcmp(op, "rename"))
		return done(rename(a, b));
	if (!strcmp(op, "link"))
		return done(link(a, b));
	if (!strcmp(op, "symlink"))
		return done(symlink(a, b));
	if (!strcmp(op, "list")) {
		/* The names to stderr, "entry NAME" ("." and ".." left out),
		 * before the verdict. */
		DIR *d = opendir(a);
		struct dirent *e;
		int r;

		while (d && (e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				fprintf(stderr, "entry %s\n", e->d_name);
		fflush(stderr);
		r = done(d ? 0 : -1);
		if (d)
			closedir(d);
		return r;
	}
	if (!strcmp(op, "exec")) {
		execv(a, argv + 2);
		return done(-1);
	}
	if (!strcmp(op, "ioctl")) {
		struct termios t;
		if ((fd = open(a, O_RDONLY)) < 0)
			return done(-1);
		return done(ioctl(fd, TCGETS, &t));
	}
	if (!strcmp(op, "connect"))
		return done(tcp(a, 0));
	if (!strcmp(op, "bind"))
		return done(tcp(a, 1));
	if (!strcmp(op, "mptcp-connect") || !strcmp(op, "mptcp-bind") || !strcmp(op, "fastopen") ||
	    !strcmp(op, "listen"))
		return done(tcp_other(op, a));
	if (!strcmp(op, "unix"))
		return done(unix_connect(a));
	if (!strcmp(op, "udp"))
		return done(udp_send(a, b));
	if (!strcmp(op, "socket")) {
		/* family,type,protocol as numbers */
		int family = 0, type = 0, protocol = 0;

		sscanf(a, "%d,%d,%d", &family, &type, &protocol);
		return done(socket(family, type, protocol));
	}
	if (!strcmp(op, "tun")) {
		/* A tun device made and attached (it goes with the descriptor). */
		struct ifreq ifr = { .ifr_flags = IFF_TUN | IFF_NO_PI };

		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "sbxtun%%d");
		if ((fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC)) < 0)
			return done(-1);
		return done(ioctl(fd, TUNSETIFF, &ifr));
	}
	if (!strcmp(op, "socketpair")) {
		int pair[2];

		return done(socketpair(atoi(a), SOCK_STREAM, 0, pair));
	}
	if (!strcmp(op, "kill"))
		return done(kill((pid_t)atoi(a), SIGCONT));
	if (!strcmp(op, "io_uring")) {
		/* io_uring_setup(1, params): 0x78 bytes of zeroed parameters */
		unsigned char params[0x78] = { 0 };
		return done((int)syscall(425, 1, params));
	}
	if (!strcmp(op, "fds")) {
		/* Prints what every open descriptor leads to. */
		DIR *d = opendir("/proc/self/fd");
		struct dirent *e;
		while ((e = readdir(d))) {
			char link[300], target[4096];
			ssize_t n;
			snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
			n = readlink(link, target, sizeof(target) - 1);
			if (n > 0) {
				target[n] = '\0';
				printf("%s %s\n", e->d_name, target);
			}
		}
		closedir(d);
		return 0;
	}
	if (!strcmp(op, "sysv-shm")) {
		/* A System V segment, by key: what it holds, on stderr. */
		int id = shmget((key_t)strtol(a, NULL, 0), 0, 0);
		const char *p = id < 0 ? NULL : shmat(id, NULL, SHM_RDONLY);
		if (!p || p == (void *)-1)
			return done(-1);
		fprintf(stderr, "%.64s", p);
		return done(0);
	}
	if (!strcmp(op, "mqueue")) {
		/* A POSIX message queue, by name: its first message, on stderr. */
		mqd_t q = mq_open(a, O_RDONLY | O_NONBLOCK);
		ssize_t n = q == (mqd_t)-1 ? -1 : mq_receive(q, buf, sizeof(buf) - 1, NULL);
		if (n < 0)
			return done(-1);
		fprintf(stderr, "%.*s", (int)n, buf);
		return done(0);
	}
	fprintf(stderr, "fsop: unknown operation %s\n", op);
	return 2;
}

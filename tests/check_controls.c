/* SPDX-License-Identifier: MIT */
/* Controls beyond the filesystem: TCP ports, IPC scoping, io_uring, and
 * what happens where the ABI cannot enforce one. */
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
#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"
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

struct seen {
	int downgraded;
	char name[256];    /* the control, the last event's path */
	char message[512]; /* and why it is not enforced in full */
};

static void record(const sbx_event_t *ev, void *arg)
{
	struct seen *s = arg;

	if (ev->kind == SBX_EVENT_DOWNGRADED) {
		s->downgraded++;
		snprintf(s->name, sizeof(s->name), "%s", ev->path);
		snprintf(s->message, sizeof(s->message), "%s", ev->message);
	}
}

static void scope_make(sbx_scopeattr_t *s, struct seen *seen, int flags)
{
	memset(seen, 0, sizeof(*seen));
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	ck_assert_int_eq(sbx_scopeattr_setlogger(s, record, seen), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(s, flags), 0);
}

/* What prog, a copy of fsop, says of one operation. */
static const char *fs_prog(const sbx_scopeattr_t *scope, const char *prog, const char *op,
                           const char *a)
{
	static char verdict[64];
	char *argv[] = { (char *)prog, (char *)op, (char *)a, NULL };
	char *out = NULL;
	int status = run_scoped(scope, argv, &out);

	ck_assert_msg(status == 0 || status == 1, "fsop %s %s: status %d: %s", op, a, status, out);
	/* The verdict is the last line ("read" prints the file before it). */
	while (*out && out[strlen(out) - 1] == '\n')
		out[strlen(out) - 1] = '\0';
	snprintf(verdict, sizeof(verdict), "%s", strrchr(out, '\n') ? strrchr(out, '\n') + 1 : out);
	free(out);
	return verdict;
}

static const char *fs(const sbx_scopeattr_t *scope, const char *op, const char *a)
{
	return fs_prog(scope, FSOP, op, a);
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

/* ---- privilege ----------------------------------------------------------- */

static int privileged_events;

static void count_privileged(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	privileged_events += ev->kind == SBX_EVENT_PRIVILEGED;
}

static int kept_privilege(void)
{
	sbx_outcome_t oc;

	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	return oc.privilege;
}

/* A line of the child's /proc/self/status, as it was when it ran. */
static char *status_line(const sbx_scopeattr_t *s, const char *key)
{
	char *argv[] = { "/bin/cat", "/proc/self/status", NULL }, *out, *line, *end;
	static char found[256];

	ck_assert_int_eq(run_scoped(s, argv, &out), 0);
	line = strstr(out, key);
	ck_assert_ptr_nonnull(line);
	end = strchr(line, '\n');
	snprintf(found, sizeof(found), "%.*s", (int)(end ? end - line : (long)strlen(line)), line);
	free(out);
	return found;
}

/* A child running as root reconfigures the kernel past any Landlock
 * domain: the core dump helper runs outside every domain.  Without its
 * capabilities it still owns /proc/sys; under another uid it does not. */
START_TEST(test_privilege)
{
	const char *core = "/proc/sys/kernel/core_pattern";
	sbx_scopeattr_t s;
	struct seen seen;

	REQUIRE_LANDLOCK();
	if (geteuid() != 0) {
		say_skip("SKIP %s: needs root, to have privilege to keep or drop\n", __func__);
		return;
	}
	scope_make(&s, &seen, 0);
	ck_assert_int_eq(sbx_scopeattr_setlogger(&s, count_privileged, NULL), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, "/srv/sbx-nothing-here"), 0);
	/* Kept: said once per process, and in every outcome. */
	ck_assert_str_eq(fs(&s, "openw", core), "ok");
	ck_assert_int_eq(kept_privilege(), SBX_PRIVILEGE_ROOT | SBX_PRIVILEGE_CAPS);
	ck_assert_str_eq(fs(&s, "openw", core), "ok");
	ck_assert_int_eq(privileged_events, 1);

	/* Capabilities dropped, every set of them, for good: uid 0 still owns
	 * core_pattern. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_DROP_CAPS), 0);
	ck_assert_str_eq(fs(&s, "openw", core), "ok");
	ck_assert_int_eq(kept_privilege(), SBX_PRIVILEGE_ROOT);
	ck_assert_str_eq(status_line(&s, "CapBnd"), "CapBnd:\t0000000000000000");
	ck_assert_str_eq(status_line(&s, "CapEff"), "CapEff:\t0000000000000000");
	ck_assert_str_eq(status_line(&s, "CapAmb"), "CapAmb:\t0000000000000000");

	/* Another uid and gid, no groups: nothing of root's is left. */
	if (nobody_can_run(FSOP, __func__, "another uid")) {
		ck_assert_int_eq(sbx_scopeattr_setids(&s, 65534, 65534), 0);
		ck_assert_str_eq(fs(&s, "openw", core), "EACCES");
		ck_assert_int_eq(kept_privilege(), 0);
		ck_assert_str_eq(status_line(&s, "Uid"), "Uid:\t65534\t65534\t65534\t65534");
		ck_assert_str_eq(status_line(&s, "Groups"), "Groups:\t ");
		ck_assert_str_eq(status_line(&s, "CapPrm"), "CapPrm:\t0000000000000000");
	}
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A caller whose real uid is 0 and whose effective uid is set aside (as a
 * daemon does with seteuid) starts programs as root: under no_new_privs
 * the exec takes the real uid back, and the bounding set fills the
 * permitted capabilities.  Said, and taken away as for root. */
START_TEST(test_privilege_real_root)
{
	const char *core = "/proc/sys/kernel/core_pattern";
	sbx_scopeattr_t s;
	struct seen seen;

	REQUIRE_LANDLOCK();
	if (geteuid() != 0) {
		say_skip("SKIP %s: needs root, to set its effective uid aside\n", __func__);
		return;
	}
	if (!nobody_can_run(FSOP, __func__, "an effective uid of 65534"))
		return;
	ck_assert_int_eq(setresuid(0, 65534, 0), 0);
	scope_make(&s, &seen, 0);
	ck_assert_int_eq(sbx_scopeattr_setlogger(&s, count_privileged, NULL), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, "/srv/sbx-nothing-here"), 0);
	/* The program keeps the real uid 0 (and, before Linux 6.16, runs
	 * with it as its effective uid too) and every capability permitted:
	 * it takes uid 0 back and owns core_pattern. */
	ck_assert_ptr_nonnull(strstr(status_line(&s, "Uid"), "Uid:\t0\t"));
	ck_assert_int_eq(kept_privilege(), SBX_PRIVILEGE_ROOT | SBX_PRIVILEGE_CAPS);
	ck_assert_int_eq(privileged_events, 1);
	ck_assert_str_ne(status_line(&s, "CapPrm"), "CapPrm:\t0000000000000000");
	ck_assert_str_eq(fs(&s, "regain-openw", core), "ok");

	/* Every capability dropped, though none was effective here. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_DROP_CAPS), 0);
	ck_assert_int_eq(kept_privilege(), SBX_PRIVILEGE_ROOT | SBX_PRIVILEGE_CAPS); /* the last */
	ck_assert_str_eq(status_line(&s, "CapPrm"), "CapPrm:\t0000000000000000");
	ck_assert_str_eq(status_line(&s, "CapBnd"), "CapBnd:\t0000000000000000");
	ck_assert_int_eq(kept_privilege(), SBX_PRIVILEGE_ROOT);
	/* Its real uid is still 0, which it may take as its effective one:
	 * root without capabilities, who owns /proc/sys (said: ROOT). */
	ck_assert_str_eq(fs(&s, "regain-openw", core), "ok");

	/* Another uid: that needs CAP_SETUID, which is permitted only. */
	ck_assert_int_eq(sbx_scopeattr_setids(&s, 65534, 65534), 0);
	ck_assert_str_eq(fs(&s, "regain-openw", core), "EPERM");
	ck_assert_int_eq(kept_privilege(), 0);
	ck_assert_str_eq(status_line(&s, "Uid"), "Uid:\t65534\t65534\t65534\t65534");
	sbx_scopeattr_destroy(&s);

	/* sbxrun --status says the same of itself. */
	char *status[] = { SBXRUN, "--status", NULL }, *out;
#if defined(__SANITIZE_ADDRESS__)
	/* Its effective uid not its real one, sbxrun is not dumpable: the
	 * sanitizer in it can read neither its options nor, at exit, its own
	 * memory (LeakSanitizer's fatal error, exit 1). */
	say_skip("SKIP %s (sbxrun --status): under the address sanitizer, a program whose "
	        "effective uid is not its real one cannot run its leak check\n", __func__);
	(void)status;
	(void)out;
#else
	ck_assert_int_eq(run_scoped(NULL, status, &out), 0);
	ck_assert_msg(strstr(out, "privilege: uid 0, with capabilities") != NULL, "%s", out);
	free(out);
#endif
	/* Root again, as the sanitizer's leak check at exit needs. */
	ck_assert_int_eq(setresuid(0, 0, 0), 0);
}
END_TEST

#ifndef CAP_SETGID
#define CAP_SETGID 6
#endif
#ifndef CAP_SETUID
#define CAP_SETUID 7
#endif

/* A copy of fsop in dir, with the file capability cap_dac_read_search+ep
 * (security.capability, revision 2): NULL, said, where the filesystem
 * keeps none. */
static const char *fsop_with_file_cap(const char *dir, const char *test)
{
	struct { uint32_t magic_etc; struct { uint32_t permitted, inheritable; } data[2]; } fcap = {
		htole32(0x02000000 /* VFS_CAP_REVISION_2 */ | 0x1 /* VFS_CAP_FLAGS_EFFECTIVE */),
		{ { htole32(UINT32_C(1) << CAP_DAC_READ_SEARCH), 0 }, { 0, 0 } }
	};
	static char copy[4096];
	char buf[65536];
	int in = open(FSOP, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	snprintf(copy, sizeof(copy), "%s/fsop-cap", dir);
	out = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	ck_assert_int_ge(in, 0);
	ck_assert_int_ge(out, 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ck_assert_int_eq(write(out, buf, (size_t)n), n);
	ck_assert_int_eq(n, 0);
	close(in);
	ck_assert_int_eq(close(out), 0);
	if (setxattr(copy, "security.capability", &fcap, sizeof(fcap), 0)) {
		say_skip("SKIP %s: no file capability on %s: %s\n", test, copy, strerror(errno));
		return NULL;
	}
	return copy;
}

/* What a program with the file capability cap_dac_read_search+ep made of
 * its privilege: whether it read a file only root may read, its permitted
 * and effective sets, and what the outcome said the child kept. */
struct file_cap_run {
	char read[64];
	char prm[64];
	char eff[64];
	int privilege;
};

static void run_file_cap(const sbx_scopeattr_t *s, const char *prog, const char *secret,
                         struct file_cap_run *run)
{
	char *argv[] = { (char *)prog, "read", "/proc/self/status", NULL }, *out, *line;

	memset(run, 0, sizeof(*run));
	snprintf(run->read, sizeof(run->read), "%s", fs_prog(s, prog, "read", secret));
	run->privilege = kept_privilege();
	ck_assert_int_eq(run_scoped(s, argv, &out), 0);
	if ((line = strstr(out, "CapPrm:")))
		snprintf(run->prm, sizeof(run->prm), "%.*s", (int)strcspn(line, "\n"), line);
	if ((line = strstr(out, "CapEff:")))
		snprintf(run->eff, sizeof(run->eff), "%.*s", (int)strcspn(line, "\n"), line);
	free(out);
}

static void assert_nothing_kept(const struct file_cap_run *run)
{
	ck_assert_str_eq(run->read, "EACCES");
	ck_assert_str_eq(run->prm, "CapPrm:\t0000000000000000");
	ck_assert_str_eq(run->eff, "CapEff:\t0000000000000000");
	ck_assert_int_eq(run->privilege, 0);
}

/* A daemon: uid and gid 1, CAP_SETUID, CAP_SETGID and CAP_DAC_READ_SEARCH
 * kept permitted only across the change, as PR_SET_KEEPCAPS allows.  Run
 * in a process of its own, which has no way back to root; runs[0] with
 * the ids of s, runs[1] with none. */
static void run_as_daemon(const char *deny, const char *prog, const char *secret,
                          struct file_cap_run runs[2])
{
	struct __user_cap_header_struct head = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	int p[2];
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		sbx_scopeattr_t s;
		struct seen seen;

		close(p[0]);
		data[0].permitted = UINT32_C(1) << CAP_SETUID | UINT32_C(1) << CAP_SETGID |
		                    UINT32_C(1) << CAP_DAC_READ_SEARCH;
		if (prctl(PR_SET_KEEPCAPS, 1L, 0L, 0L, 0L) || setgroups(0, NULL) ||
		    setresgid(1, 1, 1) || setresuid(1, 1, 1) || syscall(SYS_capset, &head, data))
			_exit(2);
		scope_make(&s, &seen, 0);
		ck_assert_int_eq(sbx_scopeattr_adddeny(&s, deny), 0);
		ck_assert_int_eq(sbx_scopeattr_setids(&s, 65534, 65534), 0);
		run_file_cap(&s, prog, secret, &runs[0]);
		ck_assert_int_eq(sbx_scopeattr_setids(&s, (uid_t)-1, (gid_t)-1), 0);
		run_file_cap(&s, prog, secret, &runs[1]);
		sbx_scopeattr_destroy(&s);
		_exit(write(p[1], runs, 2 * sizeof(*runs)) == (ssize_t)(2 * sizeof(*runs)) ? 0 : 3);
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], runs, 2 * sizeof(*runs)), (ssize_t)(2 * sizeof(*runs)));
	close(p[0]);
	ck_assert_int_eq(wait_status(pid), 0);
}

/* Capabilities the caller holds permitted only, as root under
 * PR_SET_KEEPCAPS or a daemon that kept them across setuid: no_new_privs
 * lets a program's file capability take back whatever is still permitted
 * at its exec.  Another uid passes none of them on; without one, a
 * program that can take them back is said. */
START_TEST(test_privilege_file_caps)
{
	struct file_cap_run runs[2];
	const char *prog;
	char *dir, *deny, secret[4096];
	sbx_scopeattr_t s;
	struct seen seen;

	REQUIRE_LANDLOCK();
	if (geteuid() != 0) {
		say_skip("SKIP %s: needs root, to give a program a file capability\n", __func__);
		return;
	}
	/* The program and a file only root may read, in a directory apart
	 * from the denial: only the permissions keep the file. */
	dir = make_tmpdir();
	deny = make_tmpdir();
	ck_assert_int_eq(chmod(dir, 0755), 0);
	snprintf(secret, sizeof(secret), "%s/secret", dir);
	write_file(secret, "root's only\n", 0600);
	if (!(prog = fsop_with_file_cap(dir, __func__)) ||
	    !nobody_can_run(prog, __func__, "a program with a file capability"))
		goto out;
	scope_make(&s, &seen, 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, deny), 0);
	/* The file capability works: root's programs keep it. */
	ck_assert_str_eq(fs_prog(&s, prog, "read", secret), "ok");

	/* Root under PR_SET_KEEPCAPS: the change to uid 65534 leaves its
	 * permitted set, which the file capability would draw on. */
	ck_assert_int_eq(prctl(PR_SET_KEEPCAPS, 1L, 0L, 0L, 0L), 0);
	ck_assert_int_eq(sbx_scopeattr_setids(&s, 65534, 65534), 0);
	run_file_cap(&s, prog, secret, &runs[0]);
	assert_nothing_kept(&runs[0]);
	ck_assert_int_eq(prctl(PR_SET_KEEPCAPS, 0L, 0L, 0L, 0L), 0);
	sbx_scopeattr_destroy(&s);

	/* A daemon's permitted set: from one other uid to the next, the
	 * kernel clears nothing. */
	run_as_daemon(deny, prog, secret, runs);
	assert_nothing_kept(&runs[0]);
	/* Without another uid, the program takes CAP_DAC_READ_SEARCH back
	 * from the permitted set, and that is said. */
	ck_assert_str_eq(runs[1].read, "ok");
	ck_assert_str_eq(runs[1].eff, "CapEff:\t0000000000000004");
	ck_assert_int_eq(runs[1].privilege, SBX_PRIVILEGE_CAPS);
out:
	free(dir);
	free(deny);
}
END_TEST

/* A change of ids the caller may not make: the program does not run, and
 * the refusal says which step failed. */
START_TEST(test_privilege_refused)
{
	char *argv[] = { FSOP, "read", "/etc/hostname", NULL }, *out;
	sbx_scopeattr_t s;
	struct seen seen;

	REQUIRE_LANDLOCK();
	if (geteuid() == 0 && setresuid(65534, 65534, 65534)) {
		say_skip("SKIP %s: cannot become an unprivileged user\n", __func__);
		return;
	}
	scope_make(&s, &seen, 0);
	ck_assert_int_eq(sbx_scopeattr_setids(&s, 0, 0), 0);
	ck_assert_int_eq(run_scoped(&s, argv, &out), -1000 - SBX_EREFUSED);
	ck_assert_ptr_nonnull(strstr(out, "not run: its confinement could not be applied: setgroups"));
	free(out);
	ck_assert_int_eq(sbx_scopeattr_setids(&s, 1, (gid_t)-1), EINVAL);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* Without Landlock the child runs unconfined, and what needs no Landlock
 * is applied all the same: the io_uring filter, another uid. */
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
	tcase_add_test(tc, test_privilege);
	tcase_add_test(tc, test_privilege_real_root);
	tcase_add_test(tc, test_privilege_refused);
	tcase_add_test(tc, test_privilege_file_caps);
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

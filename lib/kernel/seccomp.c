/* SPDX-License-Identifier: MIT */
/*
 * The seccomp filters the library installs, for what Landlock does not
 * mediate:
 *
 * - io_uring off: a ring takes file and socket operations past the view of
 *   anything that watches system calls (here: this very filter);
 * - under a TCP control, the roads to TCP that Landlock's bind and connect
 *   rights do not see: a stream socket on IPv4 or IPv6 of any protocol but
 *   TCP itself (MPTCP, SMC, SCTP: Landlock's rights are TCP's alone, and
 *   the first two carry TCP), a socket of the SMC family (which falls back
 *   to TCP), a connect hidden in a send (TCP Fast Open, x32's own numbers
 *   for sendmsg and sendmmsg included), and, where no TCP at all is
 *   allowed, the TCP socket itself (listen(2) on an unbound one would take
 *   a port without bind(2)).  A list of what TCP is, not of what it is not:
 *   a stream protocol the kernel learns later is closed too;
 * - for every scoped spawn, the terminal: ioctl(TIOCSTI) pushes input into
 *   a terminal the child inherits, which the shell that started it reads
 *   and runs, unconfined, once the child is gone; TIOCLINUX does the same
 *   on a virtual console (its selection set, then pasted).  TIOCLINUX's
 *   subcommand is a byte its argument points to, which a filter cannot
 *   read: it fails whole (a confined program has no business with the
 *   console's selection, blanking or keyboard modes either).  The command
 *   is compared as the kernel reads it, as 32 bits: set high bits change
 *   nothing.  Every other ioctl passes (modes, window size, job control);
 * - for every scoped spawn unless it keeps them, other processes: their
 *   resource limits (prlimit(2): RLIMIT_FSIZE 0 or RLIMIT_CPU kills the
 *   caller, RLIMIT_CORE lets it dump core where a child reads it), their
 *   priority, CPU affinity, I/O priority and scheduling.  The kernel lets a
 *   process of the same user do all that, and names them by number only:
 *   the child's own threads and children are refused with the caller, its
 *   own process (pid 0) is not.  A process group or a user (setpriority,
 *   ioprio_set) holds the caller too: refused whole.  With them: a perf
 *   event on any process but its own (perf_event_open's pid not 0: a root
 *   child samples the caller's stack, or sends it SIGTRAP), and a process
 *   made the caller's child (clone(2) with CLONE_PARENT: the caller gets
 *   its SIGCHLD and reaps a pid it never started, under SBX_SCOPE_NO_SIGNAL
 *   too).  clone3(2) hands its flags over in memory, which a filter cannot
 *   read: it says ENOSYS, and the C library falls back to clone(2);
 * - for every scoped spawn, mount_setattr(2): Landlock refuses a domain
 *   mount, umount, remount, pivot_root and move_mount, and not this, by
 *   which a root child makes the caller's mounts read-only, or changes
 *   their propagation;
 * - for every child that hides a denial in a mount namespace of its own
 *   (hide.c), what reaches past a cover without crossing it, which a root
 *   child could do: setns(2) into a namespace it holds from before (the
 *   caller's), open_tree(2) and open_tree_attr(2) (a copy of a mount
 *   without what is mounted on it), fsopen(2), fsmount(2) and fspick(2) (a
 *   filesystem mounted anew, detached), open_by_handle_at(2) (an inode by
 *   its handle, no path at all), fanotify_init(2) (a filesystem's every
 *   open, handed over as a descriptor).  Landlock refuses it mount,
 *   umount, move_mount and pivot_root;
 * - for every scoped spawn whose scope names no mqueue mount (kernelfs.c),
 *   POSIX message queues by name: mq_open(3) made the queue before the
 *   kernel's own mount refused the open, and mq_unlink(3) passes no hook
 *   Landlock has (fail with EACCES, as a denied open does);
 * - for every scoped spawn unless it keeps them, keyrings: a child holds
 *   its caller's session keyring by possession, which another user ID
 *   keeps, and its user's keyring (add_key, request_key, keyctl fail);
 * - under SBX_SCOPE_NO_NETWORK, every socket but a unix one: socket(2)
 *   and socketpair(2) of any other family (UDP, raw and packet sockets,
 *   netlink, vsock, ...), and an inet socket that is not a stream; an inet
 *   stream socket too, unless the scope allows a TCP port (Landlock's TCP
 *   rights then hold it to the ports allowed; the stream rules above keep
 *   it TCP's).  32-bit socketcall(2) fails whole for socket and
 *   socketpair: its arguments cannot be read, a unix socket's neither.
 *   And a tun or tap device attached (ioctl TUNSETIFF, TUNSETQUEUE): a
 *   child with CAP_NET_ADMIN writes packets into the host's stack through
 *   one, configured by a unix socket's ioctls;
 * - under SBX_SCOPE_LOG_DENIALS, a Landlock layer of the child's own that
 *   would not log as the scope's does: the kernel blames a denial on the
 *   youngest layer that denies, and one made without
 *   LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON logs nothing after its exec,
 *   one with _LOG_SAME_EXEC_OFF nothing before, one with
 *   _LOG_SUBDOMAINS_OFF nothing of the layers beneath it: each would keep
 *   its denials from the log the caller reads.  A layer made with
 *   LOG_NEW_EXEC_ON alone (of the three) passes.
 *
 * A filter is made of what the scope closes (and the defaults every scope
 * has), as a list of rules "system call nr, its arguments matching, fails
 * with errno", for the native architecture and its compat one (whose
 * socketcall(2) hides its arguments: it fails whole for the calls a rule
 * would look into).  Every call the child makes passes it, and the kernel
 * compiles it at each install: the architecture is looked at once, the
 * number is found among the few the rules name by halving (JGE), and only
 * a call some rule names reads its arguments.  Built once per process for
 * each set of closures (sbx__seccomp_filter).
 */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "compat/landlock.h"
#include "lib/internal.h"
#include "lib/bpf.h"

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef AF_SMC
#define AF_SMC 43
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
/* The terminal's injecting commands: the same numbers in every ABI of the
 * two architectures (the generic ones; x86 shares them). */
#define IOCTL_TIOCSTI 0x5412U
#define IOCTL_TIOCLINUX 0x541cU
/* _IOW('T', 202, int) and _IOW('T', 217, int): a tun device attached. */
#define IOCTL_TUNSETIFF 0x400454caU
#define IOCTL_TUNSETQUEUE 0x400454d9U

/* System call numbers of the two ABIs of each architecture. */
struct abi {
	unsigned arch;
	unsigned mask;     /* x32 calls carry bit 30 */
	int socket, sendto, sendmsg, sendmmsg, socketcall; /* -1: none */
	int sendmsg2, sendmmsg2; /* another number for the same call: x32's own */
	int ioctl, ioctl2;
	/* what acts on another process, by its pid (or a group's, a user's) */
	int prlimit, setpriority, setaffinity, setscheduler, setparam, setattr, ioprio_set;
	int add_key, request_key, keyctl;
	int clone, perf_event_open;
	int mq_open, mq_unlink;
	int setns, open_by_handle_at, fanotify_init;
	int socketpair;
};

#if defined(__x86_64__)
static const struct abi abis[2] = {
	{ AUDIT_ARCH_X86_64, 0xbfffffffU, 41, 44, 46, 307, -1, 518, 538, 16, 514,
	  302, 141, 203, 144, 142, 314, 251, 248, 249, 250, 56, 298, 240, 241, 308, 304, 300, 53 },
	{ AUDIT_ARCH_I386, 0xffffffffU, 359, 369, 370, 345, 102, -1, -1, 54, -1,
	  340, 97, 241, 156, 154, 351, 289, 286, 287, 288, 120, 336, 277, 278, 346, 342, 338, 360 },
};
#elif defined(__aarch64__)
static const struct abi abis[2] = {
	{ AUDIT_ARCH_AARCH64, 0xffffffffU, 198, 206, 211, 269, -1, -1, -1, 29, -1,
	  261, 140, 122, 119, 118, 274, 30, 217, 218, 219, 220, 241, 180, 181, 268, 265, 262, 199 },
	{ AUDIT_ARCH_ARM, 0xffffffffU, 281, 290, 296, 374, 102, -1, -1, 54, -1,
	  369, 97, 241, 156, 154, 380, 314, 309, 310, 311, 120, 364, 274, 275, 375, 371, 367, 288 },
};
#define HAVE_ABIS 1
#endif
#if defined(__x86_64__)
#define HAVE_ABIS 1
#endif

/* io_uring_setup, io_uring_enter and io_uring_register are 425 to 427 in
 * every ABI of the two architectures. */
#define IO_URING_FIRST 425
#define IO_URING_LAST 427
/* clone3, mount_setattr and landlock_restrict_self likewise: 435, 442,
 * 446; and open_tree, fsopen,
 * fsmount, fspick and open_tree_attr: 428, 430, 432, 433, 467. */
#define NR_CLONE3 435
#define NR_MOUNT_SETATTR 442
#define NR_LANDLOCK_RESTRICT_SELF 446
static const int nr_new_mounts[] = { 428, 430, 432, 433, 467 };
#ifndef CLONE_PARENT
#define CLONE_PARENT 0x00008000
#endif

bool sbx__seccomp_supported(void)
{
#ifdef HAVE_ABIS
	return true;
#else
	return false;
#endif
}

/* Whether the kernel takes a filter from this process: one read from NULL
 * fails with EFAULT where it would be taken; EINVAL says the kernel has
 * no filters, ENOSYS no seccomp (an emulator's answer too), anything else
 * a filter above this process that forbids seccomp(2).  Asked once per
 * process; a child inherits what it would meet. */
bool sbx__seccomp_kernel(void)
{
	static atomic_int known; /* 0: not asked; 1: takes filters; 2: does not */
	int k = atomic_load(&known), saved = errno;

	if (!k) {
		long r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0L, NULL);

		k = r < 0 && errno == EFAULT ? 1 : 2;
		errno = saved;
		atomic_store(&known, k);
	}
	return k == 1;
}

/* Other processes, named by pid: refused but pid 0 (the calling one). */
static void other_processes(struct prog *p, const struct abi *a)
{
	const struct test other = { 0, ~0U, { 0 }, 1, true };
	const struct test other_who = { 1, ~0U, { 0 }, 1, true };
	/* setpriority(2): PRIO_PROCESS 0, then PRIO_PGRP and PRIO_USER;
	 * ioprio_set(2): IOPRIO_WHO_PROCESS 1, then _PGRP and _USER. */
	const struct test prio_process = { 0, ~0U, { 0 }, 1, false };
	const struct test prio_groups = { 0, ~0U, { 1, 2 }, 2, false };
	const struct test io_process = { 0, ~0U, { 1 }, 1, false };
	const struct test io_groups = { 0, ~0U, { 2, 3 }, 2, false };
	/* clone(2)'s flags, the first argument in every ABI here. */
	const struct test parent = { 0, CLONE_PARENT, { CLONE_PARENT }, 1, false };
	/* perf_event_open(attr, pid, cpu, group_fd, flags) */
	const struct test other_event = { 1, ~0U, { 0 }, 1, true };

	sbx__bpf_rule(p, a->prlimit, &other, 1, EPERM);
	sbx__bpf_rule(p, a->setaffinity, &other, 1, EPERM);
	sbx__bpf_rule(p, a->setscheduler, &other, 1, EPERM);
	sbx__bpf_rule(p, a->setparam, &other, 1, EPERM);
	sbx__bpf_rule(p, a->setattr, &other, 1, EPERM);
	sbx__bpf_rule(p, a->setpriority, &prio_groups, 1, EPERM);
	sbx__bpf_rule(p, a->setpriority, (const struct test[]){ prio_process, other_who }, 2, EPERM);
	sbx__bpf_rule(p, a->ioprio_set, &io_groups, 1, EPERM);
	sbx__bpf_rule(p, a->ioprio_set, (const struct test[]){ io_process, other_who }, 2, EPERM);
	sbx__bpf_rule(p, a->perf_event_open, &other_event, 1, EPERM);
	sbx__bpf_rule(p, a->clone, &parent, 1, EPERM);
	sbx__bpf_rule(p, NR_CLONE3, NULL, 0, ENOSYS);
}

/* The rules of one ABI, after A was loaded with its masked number. */
static void rules_for(struct prog *p, const struct abi *a, int closed)
{
	const struct test inet = { 0, ~0U, { AF_INET, AF_INET6 }, 2, false };
	const struct test smc = { 0, ~0U, { AF_SMC }, 1, false };
	const struct test stream = { 1, 0xf, { SOCK_STREAM }, 1, false };
	const struct test tcp = { 2, ~0U, { 0, IPPROTO_TCP, IPPROTO_MPTCP }, 3, false };
	const struct test not_tcp = { 2, ~0U, { 0, IPPROTO_TCP }, 2, true };
	const struct test socketcalls = { 0, ~0U, { 1 /* SOCKET */, 11 /* SENDTO */, 16 /* SENDMSG */ },
		                          3, false };
	const struct test mmsg = { 0, ~0U, { 20 /* SENDMMSG */ }, 1, false };
	const struct test pairs = { 0, ~0U, { 8 /* SOCKETPAIR */ }, 1, false };
	const struct test injects = { 1, ~0U, { IOCTL_TIOCSTI, IOCTL_TIOCLINUX }, 2, false };
	const struct test tun = { 1, ~0U, { IOCTL_TUNSETIFF, IOCTL_TUNSETQUEUE }, 2, false };

	if (closed & SBX_CLOSE_TERMINAL) {
		sbx__bpf_rule(p, a->ioctl, &injects, 1, EPERM);
		sbx__bpf_rule(p, a->ioctl2, &injects, 1, EPERM);
	}
	if (closed & SBX_CLOSE_PROCESSES)
		other_processes(p, a);
	if (closed & SBX_CLOSE_MOUNTS)
		sbx__bpf_rule(p, NR_MOUNT_SETATTR, NULL, 0, EPERM);
	if (closed & SBX_CLOSE_NAMESPACE) {
		sbx__bpf_rule(p, a->setns, NULL, 0, EPERM);
		sbx__bpf_rule(p, a->open_by_handle_at, NULL, 0, EPERM);
		sbx__bpf_rule(p, a->fanotify_init, NULL, 0, EPERM);
		for (size_t i = 0; i < sizeof(nr_new_mounts) / sizeof(nr_new_mounts[0]); i++)
			sbx__bpf_rule(p, nr_new_mounts[i], NULL, 0, EPERM);
	}
	if (closed & SBX_CLOSE_MQUEUE) {
		sbx__bpf_rule(p, a->mq_open, NULL, 0, EACCES);
		sbx__bpf_rule(p, a->mq_unlink, NULL, 0, EACCES);
	}
	if (closed & SBX_CLOSE_KEYRINGS) {
		sbx__bpf_rule(p, a->add_key, NULL, 0, EPERM);
		sbx__bpf_rule(p, a->request_key, NULL, 0, EPERM);
		sbx__bpf_rule(p, a->keyctl, NULL, 0, EPERM);
	}
	if (closed & SBX_CLOSE_LOG_OFF) {
		/* Its logging flags must be the scope's own: the log on after
		 * the exec too, neither off flag. */
		const struct test log_off = { 1, LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF |
		                                 LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON |
		                                 LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF,
		                              { LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON }, 1, true };

		sbx__bpf_rule(p, NR_LANDLOCK_RESTRICT_SELF, &log_off, 1, EPERM);
	}
	if (closed & SBX_CLOSE_IO_URING)
		for (int nr = IO_URING_FIRST; nr <= IO_URING_LAST; nr++)
			sbx__bpf_rule(p, nr, NULL, 0, EPERM);
	if (closed & SBX_CLOSE_NETWORK) {
		const struct test not_local = { 0, ~0U, { AF_UNIX, AF_INET, AF_INET6 }, 3, true };
		const struct test not_unix = { 0, ~0U, { AF_UNIX }, 1, true };
		const struct test not_stream = { 1, 0xf, { SOCK_STREAM }, 1, true };

		sbx__bpf_rule(p, a->socket, &not_local, 1, EACCES);
		sbx__bpf_rule(p, a->socket, (const struct test[]){ inet, not_stream }, 2, EACCES);
		sbx__bpf_rule(p, a->socketpair, &not_unix, 1, EACCES);
		/* A tun or tap device attached: packets written into the
		 * host's stack, the interface configured through a unix
		 * socket's ioctls (a child with CAP_NET_ADMIN). */
		sbx__bpf_rule(p, a->ioctl, &tun, 1, EPERM);
		sbx__bpf_rule(p, a->ioctl2, &tun, 1, EPERM);
	}
	if (closed & SBX_CLOSE_INET)
		sbx__bpf_rule(p, a->socket, &inet, 1, EACCES);
	if (closed & SBX_CLOSE_TCP)
		sbx__bpf_rule(p, a->socket, (const struct test[]){ inet, stream, tcp }, 3, EACCES);
	if (closed & SBX_CLOSE_STREAMS) {
		sbx__bpf_rule(p, a->socket, (const struct test[]){ inet, stream, not_tcp }, 3, EPROTONOSUPPORT);
		sbx__bpf_rule(p, a->socket, &smc, 1, EAFNOSUPPORT);
	}
	if (closed & SBX_CLOSE_FASTOPEN) {
		const struct test flags3 = { 3, MSG_FASTOPEN, { MSG_FASTOPEN }, 1, false };
		const struct test flags2 = { 2, MSG_FASTOPEN, { MSG_FASTOPEN }, 1, false };

		sbx__bpf_rule(p, a->sendto, &flags3, 1, EACCES);
		sbx__bpf_rule(p, a->sendmsg, &flags2, 1, EACCES);
		sbx__bpf_rule(p, a->sendmmsg, &flags3, 1, EACCES);
		sbx__bpf_rule(p, a->sendmsg2, &flags2, 1, EACCES);
		sbx__bpf_rule(p, a->sendmmsg2, &flags3, 1, EACCES);
	}
	/* socketcall(2) hands its arguments over in memory: its socket and
	 * send calls fail whole where a rule would have to read them. */
	if (a->socketcall >= 0 && (closed & (SBX_CLOSE_TCP | SBX_CLOSE_STREAMS | SBX_CLOSE_FASTOPEN |
	                                     SBX_CLOSE_NETWORK | SBX_CLOSE_INET))) {
		sbx__bpf_rule(p, a->socketcall, &socketcalls, 1, EAFNOSUPPORT);
		sbx__bpf_rule(p, a->socketcall, &mmsg, 1, EAFNOSUPPORT);
	}
	if (a->socketcall >= 0 && (closed & SBX_CLOSE_NETWORK))
		sbx__bpf_rule(p, a->socketcall, &pairs, 1, EAFNOSUPPORT);
}

/* The filter for what `closed' (SBX_CLOSE_*) asks, or NULL (errno: ENOMEM,
 * E2BIG past a jump's reach, or ENOTSUP on an architecture it does not
 * know). */
static struct sock_fprog *build(int closed)
{
#ifdef HAVE_ABIS
	struct prog p = { 0 };
	struct sock_fprog *prog;
	size_t skip_native;

	/* arch: the native ABI, the compat one, or (never met) anything
	 * else, which is let through.  Past the native rules with a jump of
	 * its own, whose reach is not a conditional jump's 255. */
	sbx__bpf_emit(&p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
	sbx__bpf_emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, abis[0].arch, 1, 0));
	sbx__bpf_emit(&p, (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, 0));
	skip_native = p.n - 1;
	sbx__bpf_emit(&p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
	if (abis[0].mask != ~0U)
		sbx__bpf_emit(&p, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, abis[0].mask));
	rules_for(&p, &abis[0], closed);
	sbx__bpf_assemble(&p);
	if (!p.err)
		p.v[skip_native].k = (unsigned)(p.n - skip_native - 1);
	sbx__bpf_emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, abis[1].arch, 1, 0));
	sbx__bpf_emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	sbx__bpf_emit(&p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
	rules_for(&p, &abis[1], closed);
	sbx__bpf_assemble(&p);
	if (p.err || !(prog = malloc(sizeof(*prog)))) {
		free(p.v);
		errno = p.err ? p.err : ENOMEM;
		return NULL;
	}
	*prog = (struct sock_fprog){ .len = (unsigned short)p.n, .filter = p.v };
	return prog;
#else
	(void)closed;
	errno = ENOTSUP;
	return NULL;
#endif
}

/* Each filter built once per process, by what it closes, and kept for the
 * process's life: every ruleset that closes the same shares it, and none
 * has to outlive another's release.  Built outside any lock; of two
 * threads building the same one, the second frees its own. */
static struct sock_fprog *_Atomic built[SBX_CLOSE_ALL + 1];

const struct sock_fprog *sbx__seccomp_filter(int closed)
{
	struct sock_fprog *prog, *none = NULL;

	if (closed < 0 || closed > SBX_CLOSE_ALL) {
		errno = EINVAL;
		return NULL;
	}
	if ((prog = atomic_load(&built[closed])))
		return prog;
	if (!(prog = build(closed)))
		return NULL;
	if (!atomic_compare_exchange_strong(&built[closed], &none, prog)) {
		free(prog->filter);
		free(prog);
		prog = none;
	}
	return prog;
}

/* SPDX-License-Identifier: MIT */
/*
 * Controls beyond the filesystem: which of the scope's network, scoping
 * and io_uring controls this kernel enforces, by Landlock or by seccomp,
 * and in full or not; the allowed TCP ports.  A control enforced in part is
 * not reported as enforced: it is a warning naming what stays open, or with
 * SBX_SCOPE_STRICT a refusal.  And, asked or not, what every scoped child
 * is refused: input pushed into its terminal (TIOCSTI, TIOCLINUX), and
 * unless the scope keeps them, other processes' limits and scheduling, and
 * keyrings.
 */
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "compat/landlock.h"
#include "lib/internal.h"
#include "lib/compiler.h"

/* What a compile decides about the controls. */
struct settle {
	const struct sbx_scope *scope;
	struct sbx_ruleset *out;
	bool seccomp;      /* this architecture's filters are known */
	const char *short_of; /* the first control not enforced in full */
	const char *short_why; /* and why */
};

/* A control not enforced in full: a warning, or under SBX_SCOPE_STRICT
 * the reason for a refusal. */
static void short_of(struct settle *s, const char *control, const char *why)
{
	if (!s->short_of) {
		s->short_of = control;
		s->short_why = why;
	}
	if (!(s->scope->flags & SBX_SCOPE_STRICT))
		sbx__event(s->scope, SBX_EVENT_DOWNGRADED, ENOTSUP, control, NULL,
		           "not enforced: %s (%s); the rest of the scope is (SBX_SCOPE_STRICT refuses "
		           "instead)", control, why);
}

static void settle_io_uring(struct settle *s)
{
	if (!(s->scope->flags & SBX_SCOPE_NO_IO_URING))
		return;
	if (s->seccomp)
		s->out->closed |= SBX_CLOSE_IO_URING;
	else
		short_of(s, "io_uring", "needs seccomp on x86_64 or aarch64");
}

static atomic_int said_defaults;

/* What every scope closes, unless it keeps it: no flag asks for it.  Where
 * no filter can be installed (an architecture whose filters are not known,
 * a kernel without seccomp filters, an emulator), one warning per process
 * says so, and the spawn goes on: SBX_SCOPE_STRICT refuses what a scope
 * asks for, and no scope asks for these.  A filter the kernel takes here
 * and refuses in the child still makes a refusal. */
static void settle_defaults(struct settle *s)
{
	int flags = s->scope->flags;

	if (s->seccomp && sbx__seccomp_kernel())
		s->out->closed |= SBX_CLOSE_TERMINAL | SBX_CLOSE_MOUNTS |
		                  (s->out->ncovers ? SBX_CLOSE_NAMESPACE : 0) |
		                  (s->out->mqueue_granted ? 0 : SBX_CLOSE_MQUEUE) |
		                  (flags & SBX_SCOPE_TUNE_PROCESSES ? 0 : SBX_CLOSE_PROCESSES) |
		                  (flags & SBX_SCOPE_SHARE_KEYRINGS ? 0 : SBX_CLOSE_KEYRINGS);
	else if (!atomic_exchange(&said_defaults, 1))
		sbx__event(s->scope, SBX_EVENT_DOWNGRADED, ENOTSUP, "terminal", NULL,
		           "not enforced: terminal, processes, keyrings, mounts, queues (a child may "
		           "push input into its terminal with TIOCSTI, change the limits and "
		           "scheduling of the caller, use its keyrings, change the attributes of its "
		           "mounts, remove its message queues: needs "
		           "seccomp filters, on x86_64 or aarch64); the rest of the scope is");
}

/* No network: seccomp refuses every socket but a unix one, and io_uring,
 * whose socket operations pass beside it; the TCP ports the scope allows
 * keep inet stream sockets, which Landlock holds to those ports (below:
 * the TCP rights are set as if both TCP controls were asked for). */
static void settle_network(struct settle *s)
{
	if (!(s->scope->flags & SBX_SCOPE_NO_NETWORK))
		return;
	if (!s->seccomp) {
		short_of(s, "network", "needs seccomp on x86_64 or aarch64");
		return;
	}
	s->out->closed |= SBX_CLOSE_NETWORK | SBX_CLOSE_IO_URING |
	                  (s->scope->nports ? 0 : SBX_CLOSE_INET);
	s->out->controls |= SBX_SCOPE_NO_NETWORK;
	/* From ABI 10, Landlock's UDP rights too, with no port granted: a
	 * second layer under the filter. */
	if (s->out->abi >= 10)
		s->out->net |= LANDLOCK_ACCESS_NET_BIND_UDP | LANDLOCK_ACCESS_NET_CONNECT_SEND_UDP;
}

/* Landlock mediates bind(2) and connect(2) on TCP sockets, from ABI 4;
 * seccomp closes what passes beside them, and io_uring, whose socket
 * operations pass beside seccomp, goes with it. */
static void settle_tcp(struct settle *s)
{
	int want = s->scope->flags & (SBX_SCOPE_NO_TCP_BIND | SBX_SCOPE_NO_TCP_CONNECT);
	struct sbx_ruleset *out = s->out;

	/* No network but for the ports allowed: both TCP controls; none
	 * allowed, no inet socket is made at all, whatever the ABI. */
	if ((s->scope->flags & SBX_SCOPE_NO_NETWORK) && s->seccomp) {
		if (!s->scope->nports && out->abi < 4)
			return;
		want = SBX_SCOPE_NO_TCP_BIND | SBX_SCOPE_NO_TCP_CONNECT;
	}
	if (!want)
		return;
	if (out->abi < 4) {
		if (want & SBX_SCOPE_NO_TCP_BIND)
			short_of(s, "tcp_bind", "needs Landlock ABI 4");
		if (want & SBX_SCOPE_NO_TCP_CONNECT)
			short_of(s, "tcp_connect", "needs Landlock ABI 4");
		return;
	}
	out->net |= (want & SBX_SCOPE_NO_TCP_BIND ? LANDLOCK_ACCESS_NET_BIND_TCP : 0) |
	            (want & SBX_SCOPE_NO_TCP_CONNECT ? LANDLOCK_ACCESS_NET_CONNECT_TCP : 0);
	if (!s->seccomp) {
		short_of(s, "tcp", "other stream protocols (MPTCP, SMC) and TCP Fast Open need seccomp on "
		                   "x86_64 or aarch64");
		return;
	}
	out->closed |= SBX_CLOSE_STREAMS | SBX_CLOSE_IO_URING;
	if (want & SBX_SCOPE_NO_TCP_CONNECT) {
		out->closed |= SBX_CLOSE_FASTOPEN;
		out->controls |= SBX_SCOPE_NO_TCP_CONNECT;
	}
	if (!(want & SBX_SCOPE_NO_TCP_BIND))
		return;
	/* listen(2) on an unbound socket takes a port without bind(2); only
	 * a TCP socket that cannot be made at all closes that, and only a
	 * scope that allows no TCP at all can ask for it. */
	if (want == (SBX_SCOPE_NO_TCP_BIND | SBX_SCOPE_NO_TCP_CONNECT) && !s->scope->nports) {
		out->closed |= SBX_CLOSE_TCP;
		out->controls |= SBX_SCOPE_NO_TCP_BIND;
	} else {
		short_of(s, "tcp_bind", "listen(2) on an unbound TCP socket still takes a port others "
		                        "can reach; only a scope that allows no TCP at all closes that");
	}
}

static void settle_landlock(struct settle *s, int flag, int abi, const char *control,
                            const char *why)
{
	if (!(s->scope->flags & flag))
		return;
	if (s->out->abi >= abi)
		s->out->controls |= flag;
	else
		short_of(s, control, why);
}

/* Logging past the exec is not a confinement: where the kernel cannot, a
 * warning says so, and SBX_SCOPE_STRICT refuses nothing for it. */
static void settle_logging(struct settle *s)
{
	if (!(s->scope->flags & SBX_SCOPE_LOG_DENIALS) || !s->out->abi)
		return; /* without Landlock, nothing is denied: the notice says so */
	if (s->out->abi >= 7) {
		s->out->restrict_flags |= LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON;
		s->out->controls |= SBX_SCOPE_LOG_DENIALS;
		/* A layer of the child's own that turns the log off hides
		 * its denials from the reader (where filters are taken). */
		if (s->seccomp && sbx__seccomp_kernel())
			s->out->closed |= SBX_CLOSE_LOG_OFF;
	} else {
		sbx__event(s->scope, SBX_EVENT_DOWNGRADED, ENOTSUP, "log_denials", NULL,
		           "not enforced: log_denials (the kernel logs what a program is denied "
		           "after its exec from Landlock ABI 7 on); the rest of the scope is");
	}
}

int sbx__controls_settle(const struct sbx_scope *scope, struct sbx_ruleset *out)
{
	struct settle s = { .scope = scope, .out = out, .seccomp = sbx__seccomp_supported() };

	settle_defaults(&s);
	settle_network(&s);
	settle_tcp(&s);
	settle_io_uring(&s);
	settle_landlock(&s, SBX_SCOPE_NO_ABSTRACT_UNIX, 6, "abstract_unix", "needs Landlock ABI 6");
	settle_landlock(&s, SBX_SCOPE_NO_SIGNAL, 6, "signal", "needs Landlock ABI 6");
	settle_landlock(&s, SBX_SCOPE_NO_UNIX_CONNECT, 9, "unix_connect", "needs Landlock ABI 9");
	settle_logging(&s);
	if (s.short_of && (scope->flags & SBX_SCOPE_STRICT)) {
		out->confinement = SBX_OUTCOME_REFUSED;
		out->error = EOPNOTSUPP;
		out->refusal = (struct refusal){ SBX_REFUSED_STRICT, s.short_of, s.short_why };
		return -1;
	}
	if (out->closed & SBX_CLOSE_IO_URING)
		out->controls |= SBX_SCOPE_NO_IO_URING;
	if (out->closed && !(out->filter = sbx__seccomp_filter(out->closed)))
		return errno;
	return 0;
}

uint64_t sbx__controls_scoped(int enforced)
{
	return (enforced & SBX_SCOPE_NO_ABSTRACT_UNIX ? LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET : 0) |
	       (enforced & SBX_SCOPE_NO_SIGNAL ? LANDLOCK_SCOPE_SIGNAL : 0);
}

/* The allowed ports, each a grant like any other: one that cannot be added
 * is dropped (that port stays denied). */
void sbx__controls_add_ports(struct compiler *cc, const struct sbx_scope *scope)
{
	for (size_t i = 0; i < scope->nports; i++) {
		uint64_t access = ((scope->ports[i].access & SBX_TCP_BIND) ? LANDLOCK_ACCESS_NET_BIND_TCP : 0) |
		                  ((scope->ports[i].access & SBX_TCP_CONNECT) ? LANDLOCK_ACCESS_NET_CONNECT_TCP : 0);
		char name[32];
		int r;

		if (!(access &= cc->out->net))
			continue;
		r = sbx__ruleset_add_port(cc->out->fd, scope->ports[i].port, access);
		if (r == 0) {
			cc->out->rules++;
			continue;
		}
		snprintf(name, sizeof(name), "tcp port %u", scope->ports[i].port);
		strcpy(cc->path, "");
		sbx__drop(cc, name, -r, DROP_FAILED);
	}
}

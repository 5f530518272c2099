/*
 * Controls beyond the filesystem: which of the scope's network, scoping
 * and io_uring controls this ABI enforces, and the allowed TCP ports.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "compat/landlock.h"
#include "internal.h"
#include "lib/compiler.h"

static const struct {
	int flag;
	int abi;          /* the first ABI that enforces it; 0: seccomp */
	const char *name; /* as the refusal line and the event say it */
} control_table[] = {
	{ SBX_SCOPE_NO_TCP_BIND, 4, "tcp_bind (needs Landlock ABI 4)" },
	{ SBX_SCOPE_NO_TCP_CONNECT, 4, "tcp_connect (needs Landlock ABI 4)" },
	{ SBX_SCOPE_NO_ABSTRACT_UNIX, 6, "abstract_unix (needs Landlock ABI 6)" },
	{ SBX_SCOPE_NO_SIGNAL, 6, "signal (needs Landlock ABI 6)" },
	{ SBX_SCOPE_NO_UNIX_CONNECT, 9, "unix_connect (needs Landlock ABI 9)" },
	{ SBX_SCOPE_NO_IO_URING, 0, "io_uring (needs x86_64 or aarch64)" },
};

/* Decides which requested controls this ABI enforces; each one it cannot
 * is a warning, or with SBX_SCOPE_STRICT a refusal (false). */
bool sbx__controls_settle(const struct sbx_scope *scope, struct sbx_ruleset *out)
{
	for (size_t i = 0; i < sizeof(control_table) / sizeof(control_table[0]); i++) {
		int flag = control_table[i].flag, abi = control_table[i].abi;
		const char *name = control_table[i].name;

		if (!(scope->flags & flag))
			continue;
		if (abi ? out->abi >= abi : sbx__io_uring_filter() != NULL) {
			out->controls |= flag;
			continue;
		}
		if (scope->flags & SBX_SCOPE_STRICT) {
			out->confinement = SBX_OUTCOME_REFUSED;
			out->error = EOPNOTSUPP;
			out->refused_call = name;
			return false;
		}
		sbx__event(scope, SBX_EVENT_DOWNGRADED, ENOTSUP, name, NULL,
		           "not enforced: %s; the rest of the scope is (SBX_SCOPE_STRICT refuses instead)",
		           name);
	}
	return true;
}

uint64_t sbx__controls_net(int enforced)
{
	return (enforced & SBX_SCOPE_NO_TCP_BIND ? LANDLOCK_ACCESS_NET_BIND_TCP : 0) |
	       (enforced & SBX_SCOPE_NO_TCP_CONNECT ? LANDLOCK_ACCESS_NET_CONNECT_TCP : 0);
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
	uint64_t handled = sbx__controls_net(cc->out->controls);

	for (size_t i = 0; i < scope->nports; i++) {
		uint64_t access = ((scope->ports[i].access & SBX_TCP_BIND) ? LANDLOCK_ACCESS_NET_BIND_TCP : 0) |
		                  ((scope->ports[i].access & SBX_TCP_CONNECT) ? LANDLOCK_ACCESS_NET_CONNECT_TCP : 0);
		char name[32];
		int r;

		if (!(access &= handled))
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

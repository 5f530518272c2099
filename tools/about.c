/* SPDX-License-Identifier: MIT */
/* What sbxrun says of itself without running anything: --help's text, and
 * --status (what this kernel and this build enforce). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if SBX_BUILD_LANDLOCK
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "compat/kernel.h"
#include "compat/landlock.h"
#endif
#include "lib/escape.h"
#include "lib/hiding.h"
#include "lib/internal.h"
#include "sbxspawn/sbxspawn.h"
#include "tools/refusing.h"
#include "tools/rlimit.h"
#include "tools/tilde.h"
#if SBX_BUILD_LANDLOCK
#include <sys/wait.h>

#include "tools/denials.h"
#include "tools/lifetime.h"
#endif
#include "tools/about.h"
#include "tools/said.h"

const struct control_option sbxrun_controls[] = {
	{ "no-tcp-bind", SBX_SCOPE_NO_TCP_BIND, 4 },
	{ "no-tcp-connect", SBX_SCOPE_NO_TCP_CONNECT, 4 },
	{ "no-abstract-unix", SBX_SCOPE_NO_ABSTRACT_UNIX, 6 },
	{ "no-signal", SBX_SCOPE_NO_SIGNAL, 6 },
	{ "no-unix-connect", SBX_SCOPE_NO_UNIX_CONNECT, 9 },
	{ "no-io-uring", SBX_SCOPE_NO_IO_URING, 0 },
	{ "no-network", SBX_SCOPE_NO_NETWORK, 0 },
	{ "strict", SBX_SCOPE_STRICT, -1 },
};
const size_t sbxrun_ncontrols = sizeof(sbxrun_controls) / sizeof(sbxrun_controls[0]);

const char sbxrun_usage[] =
	"Usage: sbxrun [OPTIONS] [--] COMMAND [ARG]...\n"
	"Run COMMAND inside a Landlock filesystem boundary.\n"
	"\n"
	"  --deny PATH      no access at all beneath PATH\n"
	"  --allow PATH     re-admit PATH inside a denial, with full access\n"
	"  --readonly PATH  read and execute beneath PATH, no writes\n"
	"  --require        fail (status 125) where the kernel has no Landlock\n"
	"  --abi N          enforce what Landlock ABI N would, no more\n"
	"\n"
	"  --no-tcp-bind            deny binding TCP ports (but those allowed below)\n"
	"  --no-tcp-connect         deny connecting to TCP ports (but those allowed below)\n"
	"  --allow-tcp-bind PORT    allow binding PORT; every other port is denied\n"
	"  --allow-tcp-connect PORT allow connecting to PORT; every other port is denied\n"
	"  --no-abstract-unix       no abstract unix sockets outside the command's domain\n"
	"  --no-signal              no signals to processes outside the command's domain\n"
	"  --no-unix-connect        no pathname unix sockets outside granted paths (ABI 9)\n"
	"  --allow-unix-socket PATH connect to the socket PATH (or those beneath the\n"
	"                           directory PATH) and to no other bound to a path (ABI 9)\n"
	"  --no-io-uring            io_uring fails with EPERM\n"
	"  --no-network             no socket but a unix one (UDP, raw, packet, netlink);\n"
	"                           TCP only to the ports --allow-tcp-* names\n"
	"  --strict                 refuse (125) if a control above is beyond this kernel\n"
	"\n"
	"  --unsetenv NAME  leave NAME out of COMMAND's environment: a name, a\n"
	"                   pattern (AWS_*), or @secrets (TOKEN, KEY, SSH_AUTH_SOCK, ...)\n"
	"  --setenv NAME VALUE  set NAME in COMMAND's environment\n"
	"  --clearenv       none of sbxrun's environment, only what --setenv sets\n"
	"\n"
	"  --uid USER       run COMMAND as USER (a name or a number), with no\n"
	"                   supplementary groups: a command running as root can\n"
	"                   reconfigure the kernel past any Landlock boundary\n"
	"  --gid GROUP      and as GROUP (default: USER's own group)\n"
	"  --drop-caps      drop every capability, for good\n"
	"  --rlimit NAME=SOFT[:HARD]  a resource limit for COMMAND (nofile, cpu, as,\n"
	"                   nproc, ...): SOFT:HARD, SOFT:, :HARD, or one value for\n"
	"                   both; each a number or unlimited\n"
	"  --cgroup DIR     COMMAND joins the cgroup v2 directory DIR before its exec\n"
	"\n"
	"  --timeout DURATION  end COMMAND and its tree after DURATION (seconds, or\n"
	"                   with s, m, h, d), and exit 124\n"
	"  --keep-tree      leave what COMMAND started running when it ends (by\n"
	"                   default every process it started ends with it)\n"
	"  --die-with-parent  end COMMAND and its tree when sbxrun's caller ends\n"
	"\n"
	"  --share-keyrings   let COMMAND use keyrings (refused by default: it would\n"
	"                     share the caller's session keyring whatever its user)\n"
	"  --tune-processes   let COMMAND change other processes' limits, priority,\n"
	"                     CPU affinity, I/O priority, scheduling and perf events by\n"
	"                     pid, and use CLONE_PARENT and clone3 (refused by default:\n"
	"                     the caller's among them; its own by pid 0 work)\n"
	"\n"
	"  --hide           every denial hidden in COMMAND's own mount namespace (an\n"
	"                   empty mount over it, nothing above it frozen), or fail\n"
	"                   (125) where one cannot be; by default each is hidden where\n"
	"                   it can be, and expanded where not\n"
	"  --expand         every denial expanded: the directories above it frozen\n"
	"  --listable       directories on the way to a restricted path can be listed\n"
	"                   (names beneath a denial show, never what they hold)\n"
	"  --tmpdir DIR     TMPDIR=DIR for COMMAND, and DIR allowed: where a denial\n"
	"                   freezes /tmp, a directory of its own for temporary files\n"
	"\n"
	"  --env PREFIX     also PREFIX_DENY, _ALLOW, _READONLY, _TMPDIR, _UNSETENV,\n"
	"                   _LISTABLE, _REQUIRE, _STRICT, _HIDE, _EXPAND, _QUIET,\n"
	"                   _NO_NETWORK from the environment, as\n"
	"                   programs that read them do (sbx_scopeattr_readenv(3));\n"
	"                   COMMAND does not see them\n"
	"  --quiet          no warnings (a refusal is still reported)\n"
	"  --log-denials    the kernel logs what COMMAND is denied to the audit log\n"
	"  --report-denials after COMMAND ends, print each access it was denied, as\n"
	"                   the audit log has it (root: CAP_AUDIT_READ; audit on);\n"
	"                   sbxrun stays, COMMAND runs as its child\n"
	"  --status         tell what this kernel enforces, run nothing\n"
	"  --explain        the operands are paths, not a command: for each, one line\n"
	"                   says what a command may do there under the scope given,\n"
	"                   and which option decides it; run nothing\n"
	"  --help           this text\n"
	"  --version        the version\n"
	"\n"
	"PATH options repeat.  Exit status: 125 if sbxrun fails, 126 if COMMAND\n"
	"cannot be executed, 127 if it is not found, else COMMAND's own.\n";

/* ---- --status ------------------------------------------------------------ */

/* Which build this is: Landlock or portable, the C library, the host. */
void sbxrun_print_build(void)
{
	printf("build: %s; %s; %s\n", SBX_BUILD_KIND, SBX_BUILD_LIBC, SBX_BUILD_HOST);
}

#if SBX_BUILD_LANDLOCK
static const struct {
	const char *name;
	uint64_t bit;
	int abi;
} fs_rights[] = {
	{ "execute", LANDLOCK_ACCESS_FS_EXECUTE, 1 },
	{ "write_file", LANDLOCK_ACCESS_FS_WRITE_FILE, 1 },
	{ "read_file", LANDLOCK_ACCESS_FS_READ_FILE, 1 },
	{ "read_dir", LANDLOCK_ACCESS_FS_READ_DIR, 1 },
	{ "remove_dir", LANDLOCK_ACCESS_FS_REMOVE_DIR, 1 },
	{ "remove_file", LANDLOCK_ACCESS_FS_REMOVE_FILE, 1 },
	{ "make_char", LANDLOCK_ACCESS_FS_MAKE_CHAR, 1 },
	{ "make_dir", LANDLOCK_ACCESS_FS_MAKE_DIR, 1 },
	{ "make_reg", LANDLOCK_ACCESS_FS_MAKE_REG, 1 },
	{ "make_sock", LANDLOCK_ACCESS_FS_MAKE_SOCK, 1 },
	{ "make_fifo", LANDLOCK_ACCESS_FS_MAKE_FIFO, 1 },
	{ "make_block", LANDLOCK_ACCESS_FS_MAKE_BLOCK, 1 },
	{ "make_sym", LANDLOCK_ACCESS_FS_MAKE_SYM, 1 },
	{ "refer", LANDLOCK_ACCESS_FS_REFER, 2 },
	{ "truncate", LANDLOCK_ACCESS_FS_TRUNCATE, 3 },
	{ "ioctl_dev", LANDLOCK_ACCESS_FS_IOCTL_DEV, 5 },
	{ "resolve_unix", LANDLOCK_ACCESS_FS_RESOLVE_UNIX, 9 },
};

static void list_rights(int abi)
{
	for (size_t i = 0; i < sizeof(fs_rights) / sizeof(fs_rights[0]); i++)
		if (fs_rights[i].abi <= abi)
			printf(" %s", fs_rights[i].name);
	printf("\n");
}

/* What a command started by this process keeps of its privilege, unless
 * --uid/--gid and --drop-caps take it away. */
static void status_privilege(void)
{
	struct __user_cap_header_struct head = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	bool caps = syscall(SYS_capget, &head, data) == 0 && (data[0].permitted || data[1].permitted);
	uid_t r = 0, e = 0, s = 0, uid;

	/* Under no_new_privs an exec takes the real uid back where the
	 * effective one differs: a real uid 0 makes the command root. */
	getresuid(&r, &e, &s);
	uid = r == 0 ? 0 : e;
	if (uid != 0 && !caps)
		printf("privilege: none (uid %u, no capabilities)\n", (unsigned)uid);
	else
		printf("privilege: uid %u%s: a command keeps it and can reconfigure the kernel past "
		       "any Landlock boundary; --uid/--gid and --drop-caps take it away\n",
		       (unsigned)uid, caps ? ", with capabilities" : "");
}

/* Whether a filter can keep a command from pushing input into its
 * terminal: the library's filters are known on these two architectures,
 * and a kernel that takes filters from this process reads one from NULL
 * (EFAULT). */
static void status_terminal(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
	bool filters = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0L, NULL) < 0 && errno == EFAULT;
#else
	bool filters = false;
#endif

	if (filters) {
		printf("terminal: input pushed into it (TIOCSTI, TIOCLINUX) fails for every command\n");
		printf("processes: other processes' limits, priority, affinity, scheduling and perf "
		       "events are refused, and CLONE_PARENT (--tune-processes keeps them)\n");
		printf("keyrings: refused (--share-keyrings keeps them)\n");
		printf("mounts: mount_setattr fails for every command\n");
		printf("message queues: mq_open and mq_unlink fail unless an mqueue mount is "
		       "allowed by name\n");
	} else {
		printf("terminal, processes, keyrings, mounts, message queues: a command may push "
		       "input into its terminal (TIOCSTI), change the caller's limits and scheduling, "
		       "use its keyrings, change its mounts' attributes and remove its queues: no "
		       "seccomp filter can be installed here\n");
	}
}

/* Whether a denial can be hidden here: a child tries. */
static void status_hiding(void)
{
	char why[256];
	int can = sbx__hide_probe(why, sizeof(why), true);

	if (can > 0)
		printf("hiding: works (%s): a denial is covered there, a read-only path sealed, "
		       "nothing above either frozen\n", why);
	else if (can < 0)
		printf("hiding: %s: each command's child tries, and expands what it cannot hide\n",
		       why);
	else
		printf("hiding: unavailable (%s): every denial is expanded, the directories above it "
		       "frozen\n", why);
}

int sbxrun_status(int require)
{
	long abi = sbx_landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	int err = errno;
	long errata;

	sbxrun_print_build();
	if (abi <= 0) {
		printf("Landlock: absent: %s\n",
		       err == ENOSYS ? "not built into this kernel (ENOSYS); commands run unconfined"
		       : err == EOPNOTSUPP ? "built in but disabled at boot (EOPNOTSUPP); add landlock to the lsm= kernel parameter"
		                           : strerror(err));
	} else {
		printf("Landlock: enforcing, ABI %ld\n", abi);
		printf("filesystem rights mediated:");
		list_rights((int)abi);
		printf("filesystem rights granted nowhere: make_char make_block\n");
		printf("controls enforceable:");
		for (size_t i = 0; i < sbxrun_ncontrols; i++) {
			int need = sbxrun_controls[i].abi;
#if defined(__x86_64__) || defined(__aarch64__)
			bool seccomp = true;
#else
			bool seccomp = false;
#endif
			if (need > 0 ? abi >= need : need == 0 && seccomp)
				printf(" %s", sbxrun_controls[i].option + 3);
		}
		printf("\n");
		if (abi >= 4)
			printf("controls in part: tcp-bind denies bind(2), but listen(2) on a socket never "
			       "bound still takes a port, unless no TCP at all is allowed (with "
			       "--no-tcp-connect and no --allow-tcp-* port)\n");
		errata = sbx_landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_ERRATA);
		if (errata >= 0)
			printf("errata fixed: %#lx\n", errata);
		else
			printf("errata: not reported by this kernel\n");
	}
	status_privilege();
	status_terminal();
	status_hiding();
	if (prctl(PR_GET_NO_NEW_PRIVS, 0L, 0L, 0L, 0L) == 1)
		printf("no_new_privs: already set on this process\n");
	else if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) == 0)
		printf("no_new_privs: can be set\n");
	else
		printf("no_new_privs: cannot be set (%s): confinement would be refused\n", strerror(errno));
	return abi <= 0 && require ? EXIT_FAILED : 0;
}
#else
/* The portable build confines nothing, whatever the kernel has. */
int sbxrun_status(int require)
{
	sbxrun_print_build();
	printf("Landlock: not in this build (portable): commands run unconfined%s\n",
	       require ? "; --require refuses them (status 125)" : "");
	printf("controls enforceable: none\n");
	printf("hiding: not in this build: nothing is denied\n");
	return require ? EXIT_FAILED : 0;
}
#endif


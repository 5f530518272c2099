/* SPDX-License-Identifier: MIT */
/*
 * sbxrun: start COMMAND under a scope, for programs that cannot be
 * relinked; when it ends, or its time is up, end every process it started
 * (tools/lifetime.c).  With --keep-tree alone, confine this process and
 * become COMMAND: the pid stays the same.  Exit statuses follow env(1)
 * and timeout(1): 124 when COMMAND timed out, 125 when sbxrun itself
 * fails, 126 when COMMAND cannot be executed, 127 when it is not found;
 * else COMMAND's own, or the signal that ended it.
 */
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

#define EXIT_FAILED 125
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND 127

extern char **environ;

static const char usage_text[] =
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

/* One line on stderr, "sbxrun: " and the message, whatever the names in
 * it (a path given to an option, the command): escaped as the library's
 * events are, so that no name makes a second line. */
static __attribute__((format(printf, 1, 0))) void say_v(const char *fmt, va_list ap)
{
	char raw[4096], line[4 * sizeof(raw)];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	sbx__escape(raw, line, sizeof(line));
	fprintf(stderr, "sbxrun: %s\n", line);
}

static __attribute__((format(printf, 1, 2))) void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_v(fmt, ap);
	va_end(ap);
}

static _Noreturn __attribute__((format(printf, 1, 2))) void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_v(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'sbxrun --help' for more information.\n");
	exit(EXIT_FAILED);
}

static const struct {
	const char *option;
	int flag;
	int abi; /* 0: seccomp, x86_64 and aarch64 */
} control_options[] = {
	{ "no-tcp-bind", SBX_SCOPE_NO_TCP_BIND, 4 },
	{ "no-tcp-connect", SBX_SCOPE_NO_TCP_CONNECT, 4 },
	{ "no-abstract-unix", SBX_SCOPE_NO_ABSTRACT_UNIX, 6 },
	{ "no-signal", SBX_SCOPE_NO_SIGNAL, 6 },
	{ "no-unix-connect", SBX_SCOPE_NO_UNIX_CONNECT, 9 },
	{ "no-io-uring", SBX_SCOPE_NO_IO_URING, 0 },
	{ "no-network", SBX_SCOPE_NO_NETWORK, 0 },
	{ "strict", SBX_SCOPE_STRICT, -1 },
};

static int flag_named(const char *option)
{
	for (size_t i = 0; i < sizeof(control_options) / sizeof(control_options[0]); i++)
		if (!strcmp(control_options[i].option, option))
			return control_options[i].flag;
	return 0;
}

static unsigned parse_port(const char *arg)
{
	char *end;
	long port;

	errno = 0;
	port = strtol(arg, &end, 10);
	if (errno || *end || !*arg || port < 0 || port > 65535)
		fail("a TCP port is a number from 0 to 65535, not '%s'", arg);
	return (unsigned)port;
}

/* ---- --status ------------------------------------------------------------ */

/* Which build this is: Landlock or portable, the C library, the host. */
static void print_build(void)
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

	if (sbx__hide_probe(why, sizeof(why)))
		printf("hiding: works (%s): a denial is covered there, nothing above it frozen\n", why);
	else
		printf("hiding: unavailable (%s): every denial is expanded, the directories above it "
		       "frozen\n", why);
}

static int status(int require)
{
	long abi = sbx_landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	int err = errno;
	long errata;

	print_build();
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
		for (size_t i = 0; i < sizeof(control_options) / sizeof(control_options[0]); i++) {
			int need = control_options[i].abi;
#if defined(__x86_64__) || defined(__aarch64__)
			bool seccomp = true;
#else
			bool seccomp = false;
#endif
			if (need > 0 ? abi >= need : need == 0 && seccomp)
				printf(" %s", control_options[i].option + 3);
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
static int status(int require)
{
	print_build();
	printf("Landlock: not in this build (portable): commands run unconfined%s\n",
	       require ? "; --require refuses them (status 125)" : "");
	printf("controls enforceable: none\n");
	printf("hiding: not in this build: nothing is denied\n");
	return require ? EXIT_FAILED : 0;
}
#endif

/* ---- the options ----------------------------------------------------------- */

/* What the options ask for.  The scope holds most of it; the rest decides
 * what sbxrun does besides. */
struct settings {
	sbx_scopeattr_t scope;
	bool require;
	bool status;
	bool explain;
	bool report;
	bool quiet;
	bool uid_set, gid_set;
	uid_t uid;
	gid_t gid;
	/* --timeout, --keep-tree, --die-with-parent */
	long long timeout_ns;
	bool keep_tree, die_with_parent;
	/* The --deny paths not there (said once the options are read). */
	char *absent[8];
	int nabsent;
};

/* The library names its own calls and flags as remedies; the user of this
 * command typed options: each named as the option that does it. */
static const struct {
	const char *library, *option;
} said_as[] = {
	{ "SBX_SCOPE_STRICT", "--strict" },
	{ "SBX_SCOPE_REQUIRE", "--require" },
	{ "SBX_SCOPE_LISTABLE", "--listable" },
	{ "SBX_SCOPE_DROP_CAPS", "--drop-caps" },
	{ "SBX_SCOPE_SHARE_KEYRINGS", "--share-keyrings" },
	{ "SBX_SCOPE_TUNE_PROCESSES", "--tune-processes" },
	{ "SBX_SCOPE_HIDE", "--hide" },
	{ "SBX_SCOPE_EXPAND", "--expand" },
	{ "SBX_SCOPE_LOG_DENIALS", "--log-denials" },
	{ "sbx_scopeattr_setids(3)", "--uid/--gid" },
	{ "sbx_scopeattr_setids", "--uid/--gid" },
	{ "sbx_scopeattr_settmpdir(3)", "--tmpdir DIR" },
	{ "sbx_scopeattr_explain(3)", "--explain PATH" },
};

/* m, with the library's names of calls and flags said as the options that
 * do them, in one line: "sbxrun: ", or another head. */
static void as_options(const char *m, char *line, size_t cap)
{
	size_t len = 0;

	while (*m && len < cap - 32) {
		size_t i, n = sizeof(said_as) / sizeof(said_as[0]);

		for (i = 0; i < n && strncmp(m, said_as[i].library, strlen(said_as[i].library)); i++)
			;
		if (i < n) {
			len += (size_t)snprintf(line + len, cap - len, "%s", said_as[i].option);
			m += strlen(said_as[i].library);
		} else {
			line[len++] = *m++;
		}
	}
	line[len] = '\0';
}

static void print_said(FILE *f, const char *head, const char *m)
{
	/* Written whole, in one line: stderr is unbuffered. */
	char line[20000];

	as_options(m, line, sizeof(line));
	fprintf(f, "%s%s\n", head, line);
}

static void logger(const sbx_event_t *ev, void *arg)
{
	const struct settings *set = arg;

	/* What the library's default logger prints, and the privilege notice
	 * too: a user of sbxrun can act on it (--uid, --drop-caps).  Not an
	 * item that could not be added: sbxrun says that itself, naming the
	 * option (--tmpdir DIR: ...). */
	if ((!sbx__default_says(ev) && ev->kind != SBX_EVENT_PRIVILEGED) ||
	    ev->kind == SBX_EVENT_LIST ||
	    (set->quiet && ev->kind != SBX_EVENT_REFUSED && ev->kind != SBX_EVENT_FAILED))
		return;
	print_said(stderr, "sbxrun: ", ev->message);
}

static int add_flags(sbx_scopeattr_t *scope, int flags)
{
	int have;

	sbx_scopeattr_getflags(scope, &have);
	return sbx_scopeattr_setflags(scope, have | flags);
}

/* Whether the child can take other ids: its confinement calls setgroups,
 * setresgid and setresuid, which need CAP_SETGID and CAP_SETUID
 * (permitted: the library makes them effective).  Asked before anything
 * is said of the ids, which a refusal would make untrue. */
static bool may_change_ids(void)
{
#if SBX_BUILD_LANDLOCK
	struct { uint32_t version; int pid; } head = { 0x20080522 /* v3 */, 0 };
	struct { uint32_t effective, permitted, inheritable; } data[2];
	const uint32_t setgid_setuid = (1U << 6) | (1U << 7);

	if (syscall(SYS_capget, &head, data) < 0)
		return true; /* let the child say what it meets */
	return (data[0].permitted & setgid_setuid) == setgid_setuid;
#else
	return true;
#endif
}

/* A --deny of a path that is not there protects a name (mistyped, as
 * often as not): said, once the options are read (--quiet may come
 * last).  The command can neither reach nor make it.  Not one that came
 * from the environment (--env), which the user did not type here. */
static void said_absent(struct settings *set)
{
	for (int i = 0; i < set->nabsent; i++) {
		if (!set->quiet && set->absent[i])
			say("--deny %s: not there (mistyped?): the command can neither reach nor make it",
			    set->absent[i]);
		free(set->absent[i]);
	}
	set->nabsent = 0;
}

/* The options' handlers, all of one type: name is the option's full name,
 * arg its argument (NULL for an option without one), and each uses what it
 * needs.  A nonzero return is an sbx error. */

/* A path option's value, its leading "~" expanded (tools/tilde.c): or
 * sbxrun stops, saying why. */
static const char *path_of(const char *name, const char *arg)
{
	static char expanded[PATH_MAX];
	char why[512];
	const char *path = tilde_expand(arg, expanded, sizeof(expanded), why, sizeof(why));

	if (!path)
		fail("--%s %s: %s", name, arg, why);
	return path;
}

static int add_deny(struct settings *set, const char *name, const char *arg)
{
	const char *path = path_of(name, arg);
	struct stat st;

	if (lstat(path, &st) && errno == ENOENT && set->nabsent < 8)
		set->absent[set->nabsent++] = strdup(path);
	return sbx_scopeattr_adddeny(&set->scope, path);
}

static int add_allow(struct settings *set, const char *name, const char *arg)
{
	return sbx_scopeattr_addallow(&set->scope, path_of(name, arg));
}

static int add_readonly(struct settings *set, const char *name, const char *arg)
{
	return sbx_scopeattr_addreadonly(&set->scope, path_of(name, arg));
}

static int set_require(struct settings *set, const char *name, const char *arg)
{
	set->require = true;
	return add_flags(&set->scope, SBX_SCOPE_REQUIRE);
}

static int set_abi(struct settings *set, const char *name, const char *arg)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || *end || n < 1 || n > 9)
		fail("--abi takes a Landlock ABI from 1 to 9, not '%s'", arg);
	return sbx_scopeattr_setabi(&set->scope, (int)n);
}

static int set_quiet(struct settings *set, const char *name, const char *arg)
{
	set->quiet = true;
	return 0;
}

static int set_status(struct settings *set, const char *name, const char *arg)
{
	set->status = true;
	return 0;
}

static int set_explain(struct settings *set, const char *name, const char *arg)
{
	set->explain = true;
	return 0;
}

static int log_denials(struct settings *set, const char *name, const char *arg)
{
	return add_flags(&set->scope, SBX_SCOPE_LOG_DENIALS);
}

static int set_report(struct settings *set, const char *name, const char *arg)
{
	set->report = true;
	return add_flags(&set->scope, SBX_SCOPE_LOG_DENIALS);
}

static int show_help(struct settings *set, const char *name, const char *arg)
{
	fputs(usage_text, stdout);
	exit(0);
}

static int show_version(struct settings *set, const char *name, const char *arg)
{
	printf("sbxrun (libsbxspawn) %s\n", PACKAGE_VERSION);
	print_build();
	exit(0);
}

static int allow_tcp_bind(struct settings *set, const char *name, const char *arg)
{
	return sbx_scopeattr_allowtcp(&set->scope, SBX_TCP_BIND, parse_port(arg));
}

static int allow_tcp_connect(struct settings *set, const char *name, const char *arg)
{
	return sbx_scopeattr_allowtcp(&set->scope, SBX_TCP_CONNECT, parse_port(arg));
}

/* The command's lifetime (tools/lifetime.c): --timeout DURATION,
 * --keep-tree, --die-with-parent. */
static int set_lifetime(struct settings *set, const char *name, const char *arg)
{
#if SBX_BUILD_LANDLOCK
	if (!strcmp(name, "keep-tree"))
		set->keep_tree = true;
	else if (!strcmp(name, "die-with-parent"))
		set->die_with_parent = true;
	else if (lifetime_duration(arg, &set->timeout_ns))
		fail("--timeout %s: a duration is a number of seconds (a fraction too), with s, m, "
		     "h or d after it for another unit", arg);
	return 0;
#else
	(void)set;
	(void)arg;
	fail("--%s: not in this build (portable): sbxrun becomes the command here, and the "
	     "tree is left", name);
#endif
}

/* --rlimit NAME=SOFT[:HARD] (tools/rlimit.c). */
static int set_rlimit(struct settings *set, const char *name, const char *arg)
{
	struct rlimit limit;
	char why[256];
	int resource;

	if (rlimit_parse(arg, &resource, &limit, why, sizeof(why)))
		fail("--%s %s: %s", name, arg, why);
	return sbx_scopeattr_setrlimit(&set->scope, resource, &limit);
}

/* --cgroup DIR: a cgroup v2 directory the command joins before its exec. */
static int set_cgroup(struct settings *set, const char *name, const char *arg)
{
	int fd = open(path_of(name, arg), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		fail("--%s %s: %s", name, arg, strerror(errno));
	return sbx_scopeattr_setcgroup(&set->scope, fd);
}

static int allow_unix_socket(struct settings *set, const char *name, const char *arg)
{
	return sbx_scopeattr_allowsocket(&set->scope, path_of(name, arg));
}

/* The command's environment (sbx_scopeattr_addenv): --unsetenv PATTERN
 * (@secrets: the named set), --setenv NAME VALUE, --clearenv. */
static int unset_env(struct settings *set, const char *name, const char *arg)
{
	return sbx_scopeattr_addenv(&set->scope, SBX_ENV_UNSET, arg);
}

static int set_env(struct settings *set, const char *name, const char *arg)
{
	return sbx_scopeattr_addenv(&set->scope, SBX_ENV_SET, arg);
}

static int clear_env(struct settings *set, const char *name, const char *arg)
{
	return sbx_scopeattr_addenv(&set->scope, SBX_ENV_CLEAR, NULL);
}

static int set_uid(struct settings *set, const char *name, const char *arg)
{
	struct passwd *pw = getpwnam(arg);
	char *end;
	unsigned long n;

	errno = 0;
	if (!pw && ((n = strtoul(arg, &end, 10)), errno || *end || !*arg || n >= (uid_t)-1))
		fail("--uid takes a user name or number, not '%s'", arg);
	if (!pw)
		pw = getpwuid((uid_t)n);
	set->uid = pw ? pw->pw_uid : (uid_t)n;
	set->uid_set = true;
	if (!set->gid_set && pw)
		set->gid = pw->pw_gid;
	else if (!set->gid_set)
		set->gid = (gid_t)set->uid;
	return 0;
}

static int set_gid(struct settings *set, const char *name, const char *arg)
{
	struct group *gr = getgrnam(arg);
	char *end;
	unsigned long n;

	errno = 0;
	if (!gr && ((n = strtoul(arg, &end, 10)), errno || *end || !*arg || n >= (gid_t)-1))
		fail("--gid takes a group name or number, not '%s'", arg);
	set->gid = gr ? gr->gr_gid : (gid_t)n;
	set->gid_set = true;
	return 0;
}

static int drop_caps(struct settings *set, const char *name, const char *arg)
{
	return add_flags(&set->scope, SBX_SCOPE_DROP_CAPS);
}

static int set_listable(struct settings *set, const char *name, const char *arg)
{
	return add_flags(&set->scope, SBX_SCOPE_LISTABLE);
}

/* How denials are made: one way, the other refused (sbx_scopeattr_setflags
 * says EINVAL to both). */
static int set_way(struct settings *set, const char *name, const char *arg)
{
	int flags = 0, want = !strcmp(name, "hide") ? SBX_SCOPE_HIDE : SBX_SCOPE_EXPAND;

	sbx_scopeattr_getflags(&set->scope, &flags);
	if (flags & (SBX_SCOPE_HIDE | SBX_SCOPE_EXPAND) & ~want)
		fail("--hide and --expand ask for opposite ways: give one");
	return add_flags(&set->scope, want);
}

/* What every command is refused unless asked: kept. */
static int keep_keyrings(struct settings *set, const char *name, const char *arg)
{
	return add_flags(&set->scope, SBX_SCOPE_SHARE_KEYRINGS);
}

static int keep_processes(struct settings *set, const char *name, const char *arg)
{
	return add_flags(&set->scope, SBX_SCOPE_TUNE_PROCESSES);
}

/* A directory for the command's temporary files, where a denial under
 * /tmp would freeze /tmp: re-admitted, and named by TMPDIR. */
static int set_tmpdir(struct settings *set, const char *name, const char *arg)
{
	return sbx_scopeattr_settmpdir(&set->scope, path_of(name, arg));
}

/* The scope from the environment convention, as a program that reads it
 * under this prefix would take it: so a user sets the same variables for
 * a program built without the library.  The command runs inside this
 * scope, and is not to read it again (a scope compiled inside another,
 * unlistable, would be refused). */
static int read_env(struct settings *set, const char *name, const char *arg)
{
	int err = sbx_scopeattr_readenv(&set->scope, arg, NULL, NULL), flags = 0;

	if (!err)
		err = sbx_env_unset(arg);
	sbx_scopeattr_getflags(&set->scope, &flags);
	set->require = (flags & SBX_SCOPE_REQUIRE) != 0;
	return err;
}

/* The flags of control_options, each its own option. */
static int set_control(struct settings *set, const char *name, const char *arg)
{
	return add_flags(&set->scope, flag_named(name));
}

static const struct option_spec {
	const char *name;
	int takes_arg; /* how many: 0, 1, or 2 (joined NAME=VALUE, as --setenv's) */
	int (*handle)(struct settings *set, const char *name, const char *arg);
} options[] = {
	{ "deny", true, add_deny },
	{ "allow", true, add_allow },
	{ "readonly", true, add_readonly },
	{ "require", false, set_require },
	{ "abi", true, set_abi },
	{ "quiet", false, set_quiet },
	{ "status", false, set_status },
	{ "explain", false, set_explain },
	{ "log-denials", false, log_denials },
	{ "report-denials", false, set_report },
	{ "help", false, show_help },
	{ "version", false, show_version },
	{ "allow-tcp-bind", true, allow_tcp_bind },
	{ "allow-tcp-connect", true, allow_tcp_connect },
	{ "allow-unix-socket", true, allow_unix_socket },
	{ "rlimit", true, set_rlimit },
	{ "cgroup", true, set_cgroup },
	{ "timeout", true, set_lifetime },
	{ "keep-tree", false, set_lifetime },
	{ "die-with-parent", false, set_lifetime },
	{ "no-tcp-bind", false, set_control },
	{ "no-tcp-connect", false, set_control },
	{ "no-abstract-unix", false, set_control },
	{ "no-signal", false, set_control },
	{ "no-unix-connect", false, set_control },
	{ "no-io-uring", false, set_control },
	{ "no-network", false, set_control },
	{ "unsetenv", true, unset_env },
	{ "setenv", 2, set_env },
	{ "clearenv", false, clear_env },
	{ "strict", false, set_control },
	{ "uid", true, set_uid },
	{ "gid", true, set_gid },
	{ "drop-caps", false, drop_caps },
	{ "listable", false, set_listable },
	{ "hide", false, set_way },
	{ "expand", false, set_way },
	{ "share-keyrings", false, keep_keyrings },
	{ "tune-processes", false, keep_processes },
	{ "tmpdir", true, set_tmpdir },
	{ "env", true, read_env },
};

#define N_OPTIONS (sizeof(options) / sizeof(options[0]))

static bool has_prefix(const struct option_spec *opt, const char *prefix, size_t len)
{
	return strncmp(opt->name, prefix, len) == 0;
}

static _Noreturn void ambiguous(const char *prefix, size_t len)
{
	/* Room for every name in the table, each with its "--" and ", ". */
	char names[1024];
	size_t used = 0;

	names[0] = '\0';
	for (size_t i = 0; i < N_OPTIONS && used < sizeof(names); i++)
		if (has_prefix(&options[i], prefix, len))
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s--%s",
			                         used ? ", " : "", options[i].name);
	fail("option '--%.*s' is ambiguous: %s", (int)len, prefix, names);
}

/* The option that name (len characters, without its "--") means: the one
 * spelt so, or else the only one it is a prefix of. */
static const struct option_spec *find_option(const char *arg, const char *name, size_t len)
{
	const struct option_spec *found = NULL;
	int candidates = 0;

	for (size_t i = 0; len > 0 && i < N_OPTIONS; i++) {
		if (!has_prefix(&options[i], name, len))
			continue;
		if (options[i].name[len] == '\0')
			return &options[i];
		found = &options[i];
		candidates++;
	}
	if (candidates > 1)
		ambiguous(name, len);
	if (!found)
		fail("unknown option '%s'", arg);
	return found;
}

/* Applies the option at argv[i], "--name" or "--name=value"; an option that
 * takes an argument and has no "=" takes the next one, whatever it looks
 * like.  Returns the index of the argument after those used. */
static int parse_option(struct settings *set, int argc, char **argv, int i)
{
	const char *name = argv[i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct option_spec *opt = find_option(argv[i], name, len);
	const char *arg = NULL;
	char *joined = NULL;
	int err;

	i++;
	if (opt->takes_arg == 2) {
		/* NAME VALUE: two arguments, handed on as one NAME=VALUE */
		if (eq || i + 1 >= argc || strchr(argv[i], '=') || !*argv[i])
			fail("--%s takes two arguments, NAME (without '=') and VALUE", opt->name);
		if (!(arg = joined = malloc(strlen(argv[i]) + strlen(argv[i + 1]) + 2)))
			fail("%s", strerror(ENOMEM));
		strcpy(stpcpy(stpcpy(joined, argv[i]), "="), argv[i + 1]);
		i += 2;
	} else if (opt->takes_arg) {
		if (eq)
			arg = eq + 1;
		else if (i < argc)
			arg = argv[i++];
		else
			fail("option '--%s' requires an argument", opt->name);
	} else if (eq) {
		fail("option '--%s' takes no argument", opt->name);
	}
	if ((err = opt->handle(set, opt->name, arg)) && arg)
		fail("--%s %s: %s", opt->name, arg, sbx_strerror(err));
	if (err)
		fail("--%s: %s", opt->name, sbx_strerror(err));
	free(joined);
	return i;
}

/* Fills set from the options; returns the index of the command, argc if
 * there is none.  The options end at "--" or at the first operand ("-"
 * is one), so that the command's own options are its own. */
static int parse_options(struct settings *set, int argc, char **argv)
{
	int i = 1, err;

	if ((err = sbx_scopeattr_init(&set->scope)))
		fail("%s", sbx_strerror(err));
	sbx_scopeattr_setlogger(&set->scope, logger, set);
	while (i < argc && argv[i][0] == '-' && argv[i][1] != '\0') {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (argv[i][1] != '-')
			fail("unknown option '%s'", argv[i]);
		i = parse_option(set, argc, argv, i);
	}
	if (set->gid_set && !set->uid_set)
		fail("%s", "--gid needs --uid");
	if (set->uid_set && !may_change_ids())
		fail("--uid: running a command as another user needs the capabilities to change "
		     "ids (CAP_SETUID, CAP_SETGID: root), which this uid %lu lacks: run sbxrun as "
		     "root, or leave --uid out", (unsigned long)getuid());
	if (set->uid_set && (err = sbx_scopeattr_setids(&set->scope, set->uid, set->gid)))
		fail("--uid: %s", sbx_strerror(err));
	said_absent(set);
	return i;
}

/* ---- main ------------------------------------------------------------------ */

/* Why argv[0] did not run (err, and the outcome of the try), said, as
 * sbxrun's exit status. */
static int not_run(const sbx_scopeattr_t *scope, const char *program, char **argv, int err)
{
	const char *denial;
	sbx_outcome_t outcome;

	if (err == SBX_EREFUSED)
		return EXIT_FAILED; /* reported already, through the logger */
	if (err == ENOTSUP) {
		say("%s: not run: %s has no Landlock and --require was given", argv[0],
		    SBX_BUILD_LANDLOCK ? "this kernel" : "this build (portable)");
		return EXIT_FAILED;
	}
	/* A scope that could not be compiled is sbxrun's failure; an exec
	 * that failed is the command's, as env(1) tells them apart. */
	if (sbx_outcome_get(&outcome) == 0 && outcome.stage != SBX_STAGE_EXEC) {
		say("%s: not run: the scope could not be compiled: %s", argv[0], sbx_strerror(err));
		return EXIT_FAILED;
	}
	if ((err == EACCES || err == ENOENT) && program && (denial = refusing_denial(scope, program)))
		say("%s: %s: %s is in the denial %s", argv[0], sbx_strerror(err), program, denial);
	else
		say("%s: %s", argv[0], sbx_strerror(err));
	return err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
}

/* Becomes argv[0]; only a failure returns, as sbxrun's exit status. */
static int run(sbx_scopeattr_t *scope, char **argv)
{
	char program[PATH_MAX];
	bool found = refusing_locate(scope, argv[0], program, sizeof(program));

	return not_run(scope, found ? program : NULL, argv, sbx_execvpe(argv[0], scope, argv, environ));
}

#if SBX_BUILD_LANDLOCK
/* A line of the denial report: the names in it are the audit log's, which
 * the command chose (a carriage return, a terminal's escape sequence, a
 * line of the report's own): escaped. */
static void said_line(const char *line)
{
	char shown[4 * 3 * 4096 + 1];

	/* As it is: not through print_said, whose option names would
	 * rewrite a name that holds a library's (a file SBX_SCOPE_HIDE). */
	sbx__escape(line, shown, sizeof(shown));
	fprintf(stderr, "sbxrun: %s\n", shown);
}
#endif

/* A tree sbxrun ends is one whose confined command cannot signal sbxrun:
 * one that could kill or stop it would leave its tree running.  Where
 * Landlock scopes signals (ABI 6, and no lower cap), the command signals
 * nothing outside its domain (--no-signal); below, it can, as sbxrun(1)
 * says.  A command with no scope at all is not confined, and stays so
 * (nothing said of a boundary it does not have). */
static void guard_tree(const struct settings *set, sbx_scopeattr_t *scope)
{
#if SBX_BUILD_LANDLOCK
	long abi = sbx_landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	int cap = 0, empty = 1;

	sbx_scopeattr_getabi(scope, &cap);
	sbx_scopeattr_isempty(scope, &empty);
	if (!set->keep_tree && !empty && abi >= 6 && (!cap || cap >= 6))
		add_flags(scope, SBX_SCOPE_NO_SIGNAL);
#else
	(void)set;
	(void)scope;
#endif
}

#if SBX_BUILD_LANDLOCK
/* What the forked child of run_child does: today's sbxrun. */
struct command {
	sbx_scopeattr_t *scope;
	char **argv;
};

static int become(void *arg)
{
	struct command *c = arg;

	return run(c->scope, c->argv);
}
#endif

/* argv[0] in a child of sbxrun's, its tree ended with it (unless kept),
 * its time limited; sbxrun's exit is the command's (tools/lifetime.c). */
static int run_child(const struct settings *set, sbx_scopeattr_t *scope, char **argv)
{
#if SBX_BUILD_LANDLOCK
	struct lifetime l = { set->timeout_ns, set->keep_tree, set->die_with_parent };
	struct command c = { scope, argv };
	bool timed_out;
	int status = 0, err;

	/* Where sbxrun cannot adopt (qemu-user refuses it), what outlives
	 * its parent is not found: said in sbxrun(1), not in the command's
	 * output. */
	if (!set->keep_tree)
		lifetime_adopt();
	err = lifetime_run(&l, become, &c, &status, &timed_out);

	if (err == ESRCH && set->die_with_parent) {
		say("%s: not run: sbxrun's caller has ended (--die-with-parent)", argv[0]);
		return EXIT_FAILED;
	}
	if (err) {
		say("%s: not run: fork: %s", argv[0], strerror(err));
		return EXIT_FAILED;
	}
	return lifetime_exit(status, timed_out);
#else
	(void)set;
	return run(scope, argv);
#endif
}

/* --report-denials: argv[0] as a child, and what it was denied after it
 * ends; its exit status, or a shell's for one a signal ended (128 + N). */
static int run_reporting(const struct settings *set, sbx_scopeattr_t *scope, char **argv)
{
#if SBX_BUILD_LANDLOCK
	struct lifetime l = { set->timeout_ns, set->keep_tree, set->die_with_parent };
	char program[PATH_MAX];
	bool timed_out = false;
	int status = 0, err = denials_run(scope, argv, said_line, as_options, &l, &status, &timed_out);

	if (err == ESRCH && set->die_with_parent) {
		say("%s: not run: sbxrun's caller has ended (--die-with-parent)", argv[0]);
		return EXIT_FAILED;
	}
	if (err)
		return not_run(scope, refusing_locate(scope, argv[0], program, sizeof(program)) ? program : NULL,
		               argv, err);
	return timed_out ? LIFETIME_TIMED_OUT
	       : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
#else
	(void)set;
	say("%s", "no denial report: this build confines nothing (portable)");
	return run(scope, argv);
#endif
}

/* --explain: one line a path, on standard output; 125 where one could not
 * be explained (said on standard error). */
static int explain(sbx_scopeattr_t *scope, char **paths)
{
	int status = 0;

	for (; *paths; paths++) {
		sbx_explanation_t x;
		char shown[4 * 4096 + 4];
		int err = sbx_scopeattr_explain(scope, *paths, &x);

		sbx__escape(*paths, shown, sizeof(shown) - 2);
		if (err) {
			say("%s: %s", *paths, sbx_strerror(err));
			status = EXIT_FAILED;
			continue;
		}
		strcat(shown, ": ");
		print_said(stdout, shown, x.message);
	}
	return status;
}

int main(int argc, char **argv)
{
	/* Static: alive until exit, whichever way sbxrun leaves. */
	static struct settings set;
	int command = parse_options(&set, argc, argv);

	if (set.status)
		return status(set.require);
	if (set.explain && command >= argc)
		fail("%s", "--explain needs a path");
	if (set.explain)
		return explain(&set.scope, argv + command);
	if (command >= argc)
		fail("%s", "no command given");
	if (set.keep_tree && !set.timeout_ns && !set.die_with_parent && !set.report)
		return run(&set.scope, argv + command);
	guard_tree(&set, &set.scope);
	if (set.report)
		return run_reporting(&set, &set.scope, argv + command);
	return run_child(&set, &set.scope, argv + command);
}

/* SPDX-License-Identifier: MIT */
/* sbxrun's options: each one's handler, the table that names them (a
 * prefix of one is that one), and the settings they fill. */
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
#include "tools/about.h"
#include "tools/options.h"
#include "tools/said.h"

static int flag_named(const char *option)
{
	for (size_t i = 0; i < sbxrun_ncontrols; i++)
		if (!strcmp(sbxrun_controls[i].option, option))
			return sbxrun_controls[i].flag;
	return 0;
}

static unsigned parse_port(const char *arg)
{
	char *end;
	long port;

	errno = 0;
	port = strtol(arg, &end, 10);
	if (errno || *end || !*arg || port < 0 || port > 65535)
		sbxrun_fail("a TCP port is a number from 0 to 65535, not '%s'", arg);
	return (unsigned)port;
}


/* The scope's logger: what a user of sbxrun must read. */
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
	sbxrun_print_said(stderr, "sbxrun: ", ev->message);
}

int sbxrun_add_flags(sbx_scopeattr_t *scope, int flags)
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
			sbxrun_say("--deny %s: not there (mistyped?): the command can neither reach nor make it",
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
		sbxrun_fail("--%s %s: %s", name, arg, why);
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
	return sbxrun_add_flags(&set->scope, SBX_SCOPE_REQUIRE);
}

static int set_abi(struct settings *set, const char *name, const char *arg)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || *end || n < 1 || n > 9)
		sbxrun_fail("--abi takes a Landlock ABI from 1 to 9, not '%s'", arg);
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
	return sbxrun_add_flags(&set->scope, SBX_SCOPE_LOG_DENIALS);
}

static int set_report(struct settings *set, const char *name, const char *arg)
{
	set->report = true;
	return sbxrun_add_flags(&set->scope, SBX_SCOPE_LOG_DENIALS);
}

static int show_help(struct settings *set, const char *name, const char *arg)
{
	fputs(sbxrun_usage, stdout);
	exit(0);
}

static int show_version(struct settings *set, const char *name, const char *arg)
{
	printf("sbxrun (libsbxspawn) %s\n", PACKAGE_VERSION);
	sbxrun_print_build();
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
		sbxrun_fail("--timeout %s: a duration is a number of seconds (a fraction too), with s, m, "
		     "h or d after it for another unit", arg);
	return 0;
#else
	(void)set;
	(void)arg;
	sbxrun_fail("--%s: not in this build (portable): sbxrun becomes the command here, and the "
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
		sbxrun_fail("--%s %s: %s", name, arg, why);
	return sbx_scopeattr_setrlimit(&set->scope, resource, &limit);
}

/* --cgroup DIR: a cgroup v2 directory the command joins before its exec. */
static int set_cgroup(struct settings *set, const char *name, const char *arg)
{
	int fd = open(path_of(name, arg), O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		sbxrun_fail("--%s %s: %s", name, arg, strerror(errno));
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

/* A number an id option names where no name matched (--uid, --gid). */
static unsigned long id_number(const char *option, const char *what, const char *arg)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(arg, &end, 10);
	if (errno || *end || !*arg || n >= (uid_t)-1)
		sbxrun_fail("%s takes a %s name or number, not '%s'", option, what, arg);
	return n;
}

static int set_uid(struct settings *set, const char *name, const char *arg)
{
	struct passwd *pw = getpwnam(arg);
	unsigned long n = pw ? 0 : id_number("--uid", "user", arg);

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
	unsigned long n = gr ? 0 : id_number("--gid", "group", arg);

	set->gid = gr ? gr->gr_gid : (gid_t)n;
	set->gid_set = true;
	return 0;
}

static int drop_caps(struct settings *set, const char *name, const char *arg)
{
	return sbxrun_add_flags(&set->scope, SBX_SCOPE_DROP_CAPS);
}

static int set_listable(struct settings *set, const char *name, const char *arg)
{
	return sbxrun_add_flags(&set->scope, SBX_SCOPE_LISTABLE);
}

/* How denials are made: one way, the other refused (sbx_scopeattr_setflags
 * says EINVAL to both). */
static int set_way(struct settings *set, const char *name, const char *arg)
{
	int flags = 0, want = !strcmp(name, "hide") ? SBX_SCOPE_HIDE : SBX_SCOPE_EXPAND;

	sbx_scopeattr_getflags(&set->scope, &flags);
	if (flags & (SBX_SCOPE_HIDE | SBX_SCOPE_EXPAND) & ~want)
		sbxrun_fail("--hide and --expand ask for opposite ways: give one");
	return sbxrun_add_flags(&set->scope, want);
}

/* What every command is refused unless asked: kept. */
static int keep_keyrings(struct settings *set, const char *name, const char *arg)
{
	return sbxrun_add_flags(&set->scope, SBX_SCOPE_SHARE_KEYRINGS);
}

static int keep_processes(struct settings *set, const char *name, const char *arg)
{
	return sbxrun_add_flags(&set->scope, SBX_SCOPE_TUNE_PROCESSES);
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

/* The flags of sbxrun_controls, each its own option. */
static int set_control(struct settings *set, const char *name, const char *arg)
{
	return sbxrun_add_flags(&set->scope, flag_named(name));
}

const struct sbxrun_option sbxrun_options[] = {
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

const size_t sbxrun_noptions = sizeof(sbxrun_options) / sizeof(sbxrun_options[0]);

/* Fills set from the options; returns the index of the command, argc if
 * there is none.  The options end at "--" or at the first operand ("-"
 * is one), so that the command's own options are its own. */
int sbxrun_parse_options(struct settings *set, int argc, char **argv)
{
	int i = 1, err;

	if ((err = sbx_scopeattr_init(&set->scope)))
		sbxrun_fail("%s", sbx_strerror(err));
	sbx_scopeattr_setlogger(&set->scope, logger, set);
	/* A refused command's line, which the library's child writes, is
	 * sbxrun's too. */
	set->scope.__scope->speaker = "sbxrun";
	set->scope.__scope->words = sbxrun_as_options;
	while (i < argc && argv[i][0] == '-' && argv[i][1] != '\0') {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (argv[i][1] != '-')
			sbxrun_fail("unknown option '%s'", argv[i]);
		i = sbxrun_option_at(set, argc, argv, i);
	}
	if (set->gid_set && !set->uid_set)
		sbxrun_fail("%s", "--gid needs --uid");
	if (set->uid_set && !may_change_ids())
		sbxrun_fail("--uid: running a command as another user needs the capabilities to change "
		     "ids (CAP_SETUID, CAP_SETGID: root), which this uid %lu lacks: run sbxrun as "
		     "root, or leave --uid out", (unsigned long)getuid());
	if (set->uid_set && (err = sbx_scopeattr_setids(&set->scope, set->uid, set->gid)))
		sbxrun_fail("--uid: %s", sbx_strerror(err));
	said_absent(set);
	return i;
}


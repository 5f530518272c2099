/*
 * sbxrun: confine this process with a scope, then become COMMAND.
 *
 * For programs that cannot be relinked: the pid stays the same, so signals
 * and exit statuses need no forwarding.  Exit statuses follow env(1) and
 * timeout(1): 125 when sbxrun itself fails, 126 when COMMAND cannot be
 * executed, 127 when it is not found.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "sbxspawn/sbxspawn.h"

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
	"  --no-io-uring            io_uring fails with EPERM\n"
	"  --strict                 refuse (125) if a control above is beyond this kernel\n"
	"\n"
	"  --quiet          no warnings (a refusal is still reported)\n"
	"  --status         tell what this kernel enforces, run nothing\n"
	"  --help           this text\n"
	"  --version        the version\n"
	"\n"
	"PATH options repeat.  Exit status: 125 if sbxrun fails, 126 if COMMAND\n"
	"cannot be executed, 127 if it is not found, else COMMAND's own.\n";

static int quiet;

static void logger(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	if (ev->kind == SBX_EVENT_EXPAND || (quiet && ev->kind != SBX_EVENT_REFUSED))
		return;
	fprintf(stderr, "sbxrun: %s\n", ev->message);
}

static _Noreturn __attribute__((format(printf, 1, 2))) void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "sbxrun: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'sbxrun --help' for more information.\n");
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

static int status(int require)
{
	long abi = sbx_landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	int err = errno;
	long errata;

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
		errata = sbx_landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_ERRATA);
		if (errata >= 0)
			printf("errata fixed: %#lx\n", errata);
		else
			printf("errata: not reported by this kernel\n");
	}
	if (prctl(PR_GET_NO_NEW_PRIVS, 0L, 0L, 0L, 0L) == 1)
		printf("no_new_privs: already set on this process\n");
	else if (prctl(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) == 0)
		printf("no_new_privs: can be set\n");
	else
		printf("no_new_privs: cannot be set (%s): confinement would be refused\n", strerror(errno));
	return abi <= 0 && require ? EXIT_FAILED : 0;
}

/* ---- main ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	enum { OPT_DENY = 256, OPT_ALLOW, OPT_READONLY, OPT_REQUIRE, OPT_ABI, OPT_QUIET,
	       OPT_STATUS, OPT_HELP, OPT_VERSION, OPT_ALLOW_BIND, OPT_ALLOW_CONNECT, OPT_FLAG };
	static const struct option options[] = {
		{ "deny", required_argument, NULL, OPT_DENY },
		{ "allow", required_argument, NULL, OPT_ALLOW },
		{ "readonly", required_argument, NULL, OPT_READONLY },
		{ "require", no_argument, NULL, OPT_REQUIRE },
		{ "abi", required_argument, NULL, OPT_ABI },
		{ "quiet", no_argument, NULL, OPT_QUIET },
		{ "status", no_argument, NULL, OPT_STATUS },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "allow-tcp-bind", required_argument, NULL, OPT_ALLOW_BIND },
		{ "allow-tcp-connect", required_argument, NULL, OPT_ALLOW_CONNECT },
		/* The flags, each its own option: found by name below. */
		{ "no-tcp-bind", no_argument, NULL, OPT_FLAG },
		{ "no-tcp-connect", no_argument, NULL, OPT_FLAG },
		{ "no-abstract-unix", no_argument, NULL, OPT_FLAG },
		{ "no-signal", no_argument, NULL, OPT_FLAG },
		{ "no-unix-connect", no_argument, NULL, OPT_FLAG },
		{ "no-io-uring", no_argument, NULL, OPT_FLAG },
		{ "strict", no_argument, NULL, OPT_FLAG },
		{ NULL, 0, NULL, 0 },
	};
	/* Static: alive until exit, whichever way sbxrun leaves. */
	static sbx_scopeattr_t scope;
	sbx_outcome_t outcome;
	int opt, index, err, require = 0, want_status = 0, flags;
	char *end;
	long abi;

	if ((err = sbx_scopeattr_init(&scope)))
		fail("%s", sbx_strerror(err));
	sbx_scopeattr_setlogger(&scope, logger, NULL);
	opterr = 0;
	/* "+": the first operand is the command; its options are its own. */
	while ((opt = getopt_long(argc, argv, "+", options, &index)) != -1) {
		switch (opt) {
		case OPT_FLAG:
			sbx_scopeattr_getflags(&scope, &flags);
			err = sbx_scopeattr_setflags(&scope, flags | flag_named(options[index].name));
			break;
		case OPT_ALLOW_BIND:
		case OPT_ALLOW_CONNECT:
			err = sbx_scopeattr_allowtcp(&scope, opt == OPT_ALLOW_BIND ? SBX_TCP_BIND : SBX_TCP_CONNECT,
			                             parse_port(optarg));
			break;
		case OPT_DENY:
			err = sbx_scopeattr_adddeny(&scope, optarg);
			break;
		case OPT_ALLOW:
			err = sbx_scopeattr_addallow(&scope, optarg);
			break;
		case OPT_READONLY:
			err = sbx_scopeattr_addreadonly(&scope, optarg);
			break;
		case OPT_REQUIRE:
			require = 1;
			sbx_scopeattr_getflags(&scope, &flags);
			err = sbx_scopeattr_setflags(&scope, flags | SBX_SCOPE_REQUIRE);
			break;
		case OPT_ABI:
			errno = 0;
			abi = strtol(optarg, &end, 10);
			if (errno || *end || abi < 1 || abi > 9)
				fail("--abi takes a Landlock ABI from 1 to 9, not '%s'", optarg);
			err = sbx_scopeattr_setabi(&scope, (int)abi);
			break;
		case OPT_QUIET:
			quiet = 1;
			break;
		case OPT_STATUS:
			want_status = 1;
			break;
		case OPT_HELP:
			fputs(usage_text, stdout);
			return 0;
		case OPT_VERSION:
			printf("sbxrun (libsbxspawn) %s\n", PACKAGE_VERSION);
			return 0;
		default:
			if (optopt && optopt < 256)
				fail("unknown option '-%c'", optopt);
			fail("unknown option or missing argument: '%s'", argv[optind - 1]);
		}
		if (err)
			fail("%s", sbx_strerror(err));
	}
	if (want_status)
		return status(require);
	if (optind >= argc)
		fail("%s", "no command given");

	err = sbx_execvpe(argv[optind], &scope, argv + optind, environ);
	/* Only failures come back. */
	if (err == SBX_EREFUSED)
		return EXIT_FAILED; /* reported already, through the logger */
	if (err == ENOTSUP) {
		fprintf(stderr, "sbxrun: %s: not run: this kernel has no Landlock and --require was given\n",
		        argv[optind]);
		return EXIT_FAILED;
	}
	/* A scope that could not be compiled is sbxrun's failure; an exec
	 * that failed is the command's, as env(1) tells them apart. */
	if (sbx_outcome_get(&outcome) == 0 && outcome.stage != SBX_STAGE_EXEC) {
		fprintf(stderr, "sbxrun: %s: not run: the scope could not be compiled: %s\n",
		        argv[optind], sbx_strerror(err));
		return EXIT_FAILED;
	}
	fprintf(stderr, "sbxrun: %s: %s\n", argv[optind], sbx_strerror(err));
	return err == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
}

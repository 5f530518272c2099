/* SPDX-License-Identifier: MIT */
/* Deny lists that real programs can live with: directories that stay
 * listable, scopes nested in scopes, frozen directories announced, the
 * harmless devices under a read-only path, strictness, and a busy directory
 * that is not a storm of warnings. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"
#define NESTED HELPER_DIR "/nested"
#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"

static struct tree t;

/* What the logger saw. */
static struct {
	int kind[16];
	char path[16][4096], path2[16][4096], text[16][4096];
	int error[16];
} seen;

static void logger(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	if (ev->kind < 16) {
		seen.kind[ev->kind]++;
		snprintf(seen.path[ev->kind], sizeof(seen.path[0]), "%s", ev->path ? ev->path : "");
		snprintf(seen.path2[ev->kind], sizeof(seen.path2[0]), "%s", ev->path2 ? ev->path2 : "");
		snprintf(seen.text[ev->kind], sizeof(seen.text[0]), "%s", ev->message);
		seen.error[ev->kind] = ev->error;
	}
}

static void setup(void)
{
	memset(&seen, 0, sizeof(seen));
	tree_make(&t);
}

static void teardown(void)
{
	tree_free(&t);
}

static void scope_new(sbx_scopeattr_t *s, int flags)
{
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	sbx_scopeattr_setlogger(s, logger, NULL);
	ck_assert_int_eq(sbx_scopeattr_setflags(s, flags), 0);
}

/* Runs argv under scope: its exit status, its output in *out (kept until
 * the next call). */
static int run(const sbx_scopeattr_t *s, char *const argv[], const char **out)
{
	static char *last;

	free(last);
	last = NULL;
	return run_scoped(s, argv, out ? &last : NULL) + (out ? (*out = last, 0) : 0);
}

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })

static char *fmt_cmd(const char *f, ...) __attribute__((format(printf, 1, 2)));
/* A formatted string in a static ring of buffers. */
static char *fmt_cmd(const char *f, ...)
{
	static char ring[8][8192];
	static int next;
	char *b = ring[next++ % 8];
	va_list ap;

	va_start(ap, f);
	vsnprintf(b, sizeof(ring[0]), f, ap);
	va_end(ap);
	return b;
}

/* ---- 1. listable ------------------------------------------------------------ */

START_TEST(test_listable)
{
	sbx_scopeattr_t s;
	const char *out;

	REQUIRE_LANDLOCK();
	scope_new(&s, 0);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	/* By default the ancestors of a denial cannot be listed. */
	ck_assert_int_eq(run(&s, ARGV(FSOP, "list", "/"), &out), 1);
	ck_assert_int_eq(run(&s, ARGV(FSOP, "list", t.projects), NULL), 1);
	sbx_scopeattr_destroy(&s);
	/* Listable: / and the way down list; the denied directory's names
	 * show, its contents never. */
	scope_new(&s, SBX_SCOPE_LISTABLE);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	ck_assert_int_eq(run(&s, ARGV("/bin/ls", "/"), &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "usr"));
	ck_assert_int_eq(run(&s, ARGV("/bin/ls", t.projects), &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "other"));
	ck_assert_int_eq(run(&s, ARGV("/bin/ls", t.other), &out), 0);
	ck_assert_str_eq(out, "secret\n");
	ck_assert_int_eq(run(&s, ARGV(FSOP, "read", t.secret), &out), 1);
	ck_assert_ptr_null(strstr(out, "the-secret"));
	/* Nothing more than listing: no file can be made there. */
	ck_assert_int_eq(run(&s, ARGV(FSOP, "create", (char *)join(t.projects, "new")), NULL), 1);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* ---- 2. nesting -------------------------------------------------------------- */

/* A confined process building a narrower scope for its children: under a
 * listable scope it works, two and three levels deep, through the library
 * and through sbxrun, with every level's denials enforced. */
START_TEST(test_nested_scopes)
{
	sbx_scopeattr_t s;
	const char *out;
	char *tf = (char *)join(t.third, "file"), *mf = (char *)join(t.mine, "file");

	REQUIRE_LANDLOCK();
	scope_new(&s, SBX_SCOPE_LISTABLE);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	/* Two levels: the outer denial and the inner one both hold. */
	ck_assert_int_eq(run(&s, ARGV(NESTED, "-d", t.third, FSOP, "read", mf), &out), 0);
	ck_assert_int_eq(run(&s, ARGV(NESTED, "-d", t.third, FSOP, "read", tf), &out), 1);
	ck_assert_int_eq(run(&s, ARGV(NESTED, "-d", t.third, FSOP, "read", t.secret), &out), 1);
	/* Three levels, the middle one listable too. */
	ck_assert_int_eq(run(&s, ARGV(NESTED, "-l", "-d", t.third, NESTED, "-d", t.mine, FSOP, "read",
	                              (char *)join(t.projects, "README")), &out), 0);
	ck_assert_int_eq(run(&s, ARGV(NESTED, "-l", "-d", t.third, NESTED, "-d", t.mine, FSOP, "read",
	                              mf), &out), 1);
	/* The same with sbxrun, three levels. */
	ck_assert_int_eq(run(NULL, ARGV(SBXRUN, "--quiet", "--listable", "--deny", t.other, SBXRUN,
	                                "--quiet", "--listable", "--deny", t.third, SBXRUN, "--quiet",
	                                "--deny", t.mine, "/bin/sh", "-c",
	                                fmt_cmd("cat %s; cat %s; cat %s; cat %s/README", t.secret, tf,
	                                        mf, t.projects)),
	                 &out), 0);
	ck_assert_ptr_null(strstr(out, "the-secret"));
	ck_assert_ptr_null(strstr(out, "third\n"));
	ck_assert_ptr_null(strstr(out, "mine\n"));
	ck_assert_ptr_nonnull(strstr(out, "readme"));
	sbx_scopeattr_destroy(&s);

	/* Under a scope that is not listable, an inner scope that must expand
	 * what the outer one froze is refused at compile time, saying why and
	 * what to do: never a child that cannot execute. */
	scope_new(&s, 0);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	ck_assert_int_eq(run(&s, ARGV(NESTED, "-d", t.third, FSOP, "read", mf), &out), 125);
	ck_assert_ptr_nonnull(strstr(out, "not run: the Landlock domain this process runs in forbids "
	                                  "listing: open(O_DIRECTORY): / ("));
	ck_assert_ptr_nonnull(strstr(out, "make the enclosing scope listable"));
	ck_assert_int_eq(run(&s, ARGV(SBXRUN, "--quiet", "--deny", t.third, FSOP, "read", mf), &out),
	                 125);
	ck_assert_ptr_nonnull(strstr(out, "--listable"));
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* ---- 3. frozen directories ------------------------------------------------- */

START_TEST(test_frozen_announced)
{
	sbx_scopeattr_t s;
	sbx_file_actions_t fa;
	char *env[] = { NULL, NULL }, var[4096];
	pid_t pid;

	REQUIRE_LANDLOCK();
	/* TMPDIR holds a denial: the child can make no temporary file there,
	 * and one event says so, naming it and why. */
	snprintf(var, sizeof(var), "TMPDIR=%s", t.projects);
	env[0] = var;
	scope_new(&s, 0);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, ARGV("true"), env), 0);
	wait_status(pid);
	ck_assert_int_eq(seen.kind[SBX_EVENT_FROZEN], 1);
	ck_assert_str_eq(seen.path[SBX_EVENT_FROZEN], t.projects);
	ck_assert_str_eq(seen.path2[SBX_EVENT_FROZEN], t.other);
	/* Once per compile, not per spawn. */
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, ARGV("true"), env), 0);
	wait_status(pid);
	ck_assert_int_eq(seen.kind[SBX_EVENT_FROZEN], 1);
	sbx_scopeattr_destroy(&s);

	/* The working directory a chdir action gives the child. */
	memset(&seen, 0, sizeof(seen));
	scope_new(&s, 0);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	sbx_file_actions_init(&fa);
	sbx_file_actions_addchdir(&fa, t.projects);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", &fa, NULL, &s, ARGV("true"), environ), 0);
	wait_status(pid);
	ck_assert_int_eq(seen.kind[SBX_EVENT_FROZEN], 1);
	ck_assert_str_eq(seen.path[SBX_EVENT_FROZEN], t.projects);
	sbx_file_actions_destroy(&fa);
	sbx_scopeattr_destroy(&s);

	/* The caller's own working directory, frozen, then read-only. */
	char here[4096];
	ck_assert_ptr_nonnull(getcwd(here, sizeof(here)));
	ck_assert_int_eq(chdir(t.projects), 0);
	memset(&seen, 0, sizeof(seen));
	scope_new(&s, 0);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, ARGV("true"), environ), 0);
	wait_status(pid);
	ck_assert_int_eq(seen.kind[SBX_EVENT_FROZEN], 1);
	ck_assert_str_eq(seen.path[SBX_EVENT_FROZEN], t.projects);
	ck_assert_str_eq(seen.path2[SBX_EVENT_FROZEN], t.other);
	sbx_scopeattr_destroy(&s);
	memset(&seen, 0, sizeof(seen));
	scope_new(&s, 0);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, t.top), 0);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, ARGV("true"), environ), 0);
	wait_status(pid);
	ck_assert_int_eq(seen.kind[SBX_EVENT_FROZEN], 1);
	ck_assert_str_eq(seen.path[SBX_EVENT_FROZEN], t.projects);
	ck_assert_str_eq(seen.path2[SBX_EVENT_FROZEN], t.top);
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(chdir(here), 0);

	/* The remedy: sbxrun --tmpdir, a directory the scope grants. */
	{
		char *tmp = (char *)join(t.mine, "tmp"), cmd[8192];
		const char *out;

		mkdir(tmp, 0755);
		snprintf(cmd, sizeof(cmd), "TMPDIR=%s exec %s --quiet --expand --deny %s -- mktemp",
		         t.projects, SBXRUN, t.other);
		ck_assert_int_eq(run(NULL, ARGV("/bin/sh", "-c", cmd), &out), 1);
		snprintf(cmd, sizeof(cmd), "TMPDIR=%s exec %s --quiet --expand --tmpdir %s --deny %s -- "
		         "mktemp", t.projects, SBXRUN, tmp, t.other);
		ck_assert_int_eq(run(NULL, ARGV("/bin/sh", "-c", cmd), &out), 0);
		ck_assert_int_eq(strncmp(out, tmp, strlen(tmp)), 0);
	}
}
END_TEST

/* ---- 4. the harmless devices under a read-only path ------------------------ */

/* The README's example, a real configure script (made by autoconf: a C
 * compiler found, a program compiled and run, a header checked, a file
 * written), from the directory it may write, through sbxrun.  Read-only
 * /tmp is said, and --tmpdir is the remedy. */
static void readme_configure(const char *configure)
{
	char *tmp = (char *)join(t.mine, "tmp"), *out;

	write_file(join(t.mine, "configure.ac"),
	           "AC_INIT([probe], [1])\nAC_PROG_CC\nAC_CHECK_HEADERS([stdio.h])\n"
	           "AC_CONFIG_FILES([probe.txt])\nAC_OUTPUT\n", 0644);
	write_file(join(t.mine, "probe.txt.in"), "made by @PACKAGE_NAME@\n", 0644);
	if (run_scoped_cwd(NULL, t.mine, ARGV("/bin/sh", "-c", "autoconf 2>&1"), NULL) != 0 ||
	    access(configure, X_OK)) {
		say_skip("SKIP test_readonly_devices (a real configure): no autoconf here\n");
		return;
	}
	mkdir(tmp, 0755);
	unsetenv("TMPDIR");
	/* /tmp is read-only: the compiler cannot make its files there. */
	ck_assert_int_ne(run_scoped_cwd(NULL, t.mine,
	                                ARGV(SBXRUN, "--readonly", "/", "--allow", t.mine, "--",
	                                     "./configure"),
	                                &out), 0);
	/* (", HOME" where HOME is /tmp as well.) */
	ck_assert_msg(strstr(out, "sbxrun: /tmp (the temporary directory") &&
	              strstr(out, ") is read-only, in /: the command can create nothing there; "
	                          "give it a TMPDIR the scope grants (--tmpdir DIR)\n"),
	              "%s", out);
	free(out);
	ck_assert_int_eq(run_scoped_cwd(NULL, t.mine,
	                                ARGV(SBXRUN, "--readonly", "/", "--allow", t.mine, "--tmpdir",
	                                     tmp, "--", "./configure"),
	                                &out), 0);
	ck_assert_msg(strstr(out, "checking whether the C compiler works... yes"), "%s", out);
	ck_assert_ptr_null(strstr(out, "is read-only"));
	free(out);
	ck_assert_int_eq(access(join(t.mine, "probe.txt"), R_OK), 0);
}

START_TEST(test_readonly_devices)
{
	sbx_scopeattr_t s;
	const char *out;
	char *configure = (char *)join(t.mine, "configure");

	REQUIRE_LANDLOCK();
	scope_new(&s, 0);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, "/"), 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, t.mine), 0);
	ck_assert_int_eq(run(&s, ARGV(FSOP, "write", "/dev/null", "x"), NULL), 0);
	ck_assert_int_eq(run(&s, ARGV(FSOP, "write", "/dev/zero", "x"), NULL), 0);
	ck_assert_int_eq(run(&s, ARGV(FSOP, "write", "/dev/urandom", "x"), NULL), 0);
	ck_assert_int_eq(run(&s, ARGV(FSOP, "write", "/dev/random", "x"), NULL), 0);
	ck_assert_int_eq(run(&s, ARGV(FSOP, "openw", "/dev/full"), NULL), 0);
	/* The rest stays read-only. */
	ck_assert_int_eq(run(&s, ARGV(FSOP, "create", (char *)join(t.third, "x")), NULL), 1);
	sbx_scopeattr_destroy(&s);
	readme_configure(configure);
	/* Named, a device is what the scope says of it. */
	scope_new(&s, 0);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, "/"), 0);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, "/dev/null"), 0);
	ck_assert_int_eq(run(&s, ARGV(FSOP, "write", "/dev/null", "x"), &out), 1);
	ck_assert_int_eq(run(&s, ARGV(FSOP, "write", "/dev/zero", "x"), NULL), 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* ---- 5. strictness and errors that name their path ------------------------ */

START_TEST(test_strict_ignored_denial)
{
	sbx_scopeattr_t s;
	pid_t pid;

	REQUIRE_LANDLOCK();
	/* Ignored with a warning by default ... */
	scope_new(&s, 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, "/"), 0);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, ARGV("true"), environ), 0);
	wait_status(pid);
	ck_assert_int_eq(seen.kind[SBX_EVENT_IGNORED_DENY], 1);
	/* ... fatal under SBX_SCOPE_STRICT: EINVAL, the event names it,
	 * nothing runs. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_STRICT), 0);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, ARGV("true"), environ),
	                 EINVAL);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_str_eq(seen.path[SBX_EVENT_IGNORED_DENY], "/");
	ck_assert_int_eq(sbx_scopeattr_compile(&s), EINVAL);
	sbx_scopeattr_destroy(&s);
	/* sbxrun: status 125, the path named. */
	{
		const char *out;

		ck_assert_int_eq(run(NULL, ARGV(SBXRUN, "--strict", "--deny", "/", "true"), &out), 125);
		ck_assert_ptr_nonnull(strstr(out, "not denying /"));
	}
}
END_TEST

/* A compile that fails for want of descriptors (fewer than 3 free) says
 * where it was. */
START_TEST(test_compile_error_names_path)
{
	sbx_scopeattr_t s;
	struct rlimit rl, was;
	pid_t pid;
	int err, lowest;

	REQUIRE_LANDLOCK();
	scope_new(&s, 0);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	getrlimit(RLIMIT_NOFILE, &rl);
	was = rl;
	lowest = open("/dev/null", O_RDONLY | O_CLOEXEC);
	close(lowest);
	rl.rlim_cur = (rlim_t)lowest + 2; /* two free at most */
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	err = sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, ARGV("true"), environ);
	ck_assert_int_eq(err, EMFILE);
	ck_assert_ptr_nonnull(strstr(seen.text[SBX_EVENT_FAILED], "needs 3 free descriptors"));
	ck_assert_int_eq(seen.kind[SBX_EVENT_FAILED], 1);
	ck_assert_int_eq(seen.error[SBX_EVENT_FAILED], EMFILE);
	ck_assert_int_eq(seen.path[SBX_EVENT_FAILED][0], '/');
	ck_assert_str_eq(seen.path2[SBX_EVENT_FAILED], t.other); /* what it was compiling for */
	sbx_scopeattr_destroy(&s);
	/* The teardown walks the tree to remove it: it needs descriptors. */
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &was), 0);
}
END_TEST

/* ---- 7. a busy directory is one line, not a storm ------------------------- */

/* A logger that sends every event on to the default one, and, when the
 * busy directory is listed, removes most of what the listing holds: the
 * entries vanish between listing and opening, as another process's files
 * do in a busy /tmp. */
static const char *busy_dir;
static int root_listed;

static void busy_logger(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	root_listed += ev->kind == SBX_EVENT_EXPAND && !strcmp(ev->path, "/");
	if (ev->kind == SBX_EVENT_EXPAND && !strcmp(ev->path, busy_dir))
		for (int i = 0; i < 200; i++)
			if (i % 4)
				unlink(join(busy_dir, fmt_cmd("f%d", i)));
	sbx_logger_default(ev, NULL);
}

START_TEST(test_churn_one_line)
{
	char busy[4096], buf[1 << 16];
	int fd = memfd_create("stderr", 0), saved = dup(2), summaries = 0, others = 0;
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	ssize_t n;
	pid_t pid;

	REQUIRE_LANDLOCK();
	snprintf(busy, sizeof(busy), "%s/busy", t.top);
	mkdir(busy, 0755);
	for (int i = 0; i < 200; i++)
		write_file(join(busy, fmt_cmd("f%d", i)), "", 0644);
	busy_dir = busy;
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	sbx_scopeattr_setlogger(&s, busy_logger, NULL);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, join(busy, "denied")), 0);
	dup2(fd, 2);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, ARGV("true"), environ), 0);
	dup2(saved, 2);
	wait_status(pid);
	/* The outcome lists every one ... */
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_uint_eq(oc.dropped, 150);
	/* ... and the default logger says nothing of them, not one line a
	 * name: the next spawn lists the directory again (a snapshot, which
	 * keeps them unreachable, says one line: check_said.c). */
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	for (char *p = buf; *p; p = strchr(p, '\n') + 1) {
		char *end = strchr(p, '\n');

		summaries += strstr(p, "entries of") && strstr(p, "entries of") < end;
		others += strstr(p, "stays unreachable") && strstr(p, "stays unreachable") < end;
	}
	ck_assert_msg(summaries == 0 && others == 0, "%s", buf);

	/* What vanished is gone from the directory, which the next spawn
	 * lists again, with no new compile: the busy directory is not a
	 * compile at every spawn. */
	ck_assert_int_eq(root_listed, 1);
	dup2(fd, 2);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, ARGV("true"), environ), 0);
	dup2(saved, 2);
	wait_status(pid);
	ck_assert_int_eq(root_listed, 1);
	/* Listed again, the directory holds what the spawn grants: narrowed
	 * no more. */
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_CONFINED);
	ck_assert_uint_eq(oc.dropped, 0);
	/* A name that comes back, the directory quiet now, is granted by
	 * that listing. */
	busy_dir = "";
	write_file(join(busy, "f1"), "back\n", 0644);
	const char *out;
	ck_assert_int_eq(run(&s, ARGV("/bin/cat", (char *)join(busy, "f1")), &out), 0);
	ck_assert_str_eq(out, "back\n");
	ck_assert_int_eq(root_listed, 1);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* Files come and go in a busy directory between spawns: an unlinked grant
 * needs no new compile (the kernel said it was unlinked), a grant renamed
 * away does (it may be beneath a denial now), and whatever holds a name
 * afterwards is judged anew. */
static int compiles;

static void count_compiles(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	compiles += ev->kind == SBX_EVENT_EXPAND && !strcmp(ev->path, "/");
}

/* Whether this process may open file handles (open_by_handle_at needs
 * CAP_DAC_READ_SEARCH in the effective set). */
static bool handles_open(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	unsigned long long eff = 0;
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	if (f)
		fclose(f);
	return eff & (1ULL << 2); /* CAP_DAC_READ_SEARCH */
}

START_TEST(test_busy_dir_between_spawns)
{
	char busy[4096], denied[4096];
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	const char *out;

	REQUIRE_LANDLOCK();
	snprintf(busy, sizeof(busy), "%s/busy", t.top);
	snprintf(denied, sizeof(denied), "%s/denied", busy);
	mkdir(busy, 0755);
	mkdir(denied, 0755);
	for (int i = 0; i < 8; i++)
		write_file(join(busy, fmt_cmd("f%d", i)), fmt_cmd("file %d\n", i), 0644);
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	expand_way(&s);
	sbx_scopeattr_setlogger(&s, count_compiles, NULL);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, denied), 0);
	ck_assert_int_eq(run(&s, ARGV("/bin/cat", (char *)join(busy, "f0")), &out), 0);
	ck_assert_int_eq(compiles, 1);
	/* A scope's first compile at a spawn watches nothing (most such
	 * scopes serve one spawn): an unlinked grant then means a compile,
	 * which watches, as every later one of the scope does. */
	ck_assert_int_eq(unlink(join(busy, "f5")), 0);
	ck_assert_int_eq(run(&s, ARGV("/bin/cat", (char *)join(busy, "f0")), &out), 0);
	ck_assert_int_eq(compiles, 2);
	compiles = 1;

	/* Unlinked, and one replaced by a new file of the same name. */
	ck_assert_int_eq(unlink(join(busy, "f1")), 0);
	ck_assert_int_eq(unlink(join(busy, "f3")), 0);
	write_file(join(busy, "f3"), "new 3\n", 0644);
	ck_assert_int_eq(run(&s, ARGV("/bin/cat", (char *)join(busy, "f3")), &out), 0);
	ck_assert_str_eq(out, "new 3\n");
	/* An unlinked grant is forgotten only where its inode is shown to
	 * have no name left, by a file handle, which only a caller with
	 * CAP_DAC_READ_SEARCH may open: any other compiles again. */
	if (!handles_open()) {
		say_skip("SKIP %s (reuse after an unlink): this caller cannot open file "
		        "handles (no CAP_DAC_READ_SEARCH): it compiles again\n", __func__);
		ck_assert_int_eq(compiles, 2);
		compiles = 1;
	}
	ck_assert_int_eq(compiles, 1);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_CONFINED);

	/* Renamed into the denial: compiled anew, and what it holds is not
	 * reachable there. */
	ck_assert_int_eq(rename(join(busy, "f2"), join(denied, "f2")), 0);
	ck_assert_int_eq(run(&s, ARGV("/bin/cat", (char *)join(denied, "f2")), &out), 1);
	ck_assert_int_eq(compiles, 2);

	/* Renamed away, then its name made and unlinked again: the first
	 * word on the name is the rename, and that decides. */
	ck_assert_int_eq(run(&s, ARGV("/bin/true"), &out), 0);
	ck_assert_int_eq(rename(join(busy, "f4"), join(denied, "f4")), 0);
	write_file(join(busy, "f4"), "decoy\n", 0644);
	ck_assert_int_eq(unlink(join(busy, "f4")), 0);
	ck_assert_int_eq(run(&s, ARGV("/bin/cat", (char *)join(denied, "f4")), &out), 1);
	ck_assert_int_eq(compiles, 3);
	sbx_scopeattr_destroy(&s);
}
END_TEST

Suite *suite_usability(void)
{
	Suite *su = suite_create("usability");
	TCase *tc = tcase_create("deny-lists");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_listable);
	tcase_add_test(tc, test_nested_scopes);
	tcase_add_test(tc, test_frozen_announced);
	tcase_add_test(tc, test_readonly_devices);
	tcase_add_test(tc, test_strict_ignored_denial);
	tcase_add_test(tc, test_compile_error_names_path);
	tcase_add_test(tc, test_churn_one_line);
	tcase_add_test(tc, test_busy_dir_between_spawns);
	suite_add_tcase(su, tc);
	return su;
}

/* SPDX-License-Identifier: MIT */
/* What the library says on its own, through the default logger, and in
 * which words: only what a user must act on, once; the directories where
 * users are hit (the temporary one, the working one, the home directory);
 * what the caller typed, named as typed. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"
#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"
#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })

static struct tree t;

/* What reached the scope's logger, by kind; the default logger hears it
 * too, where forward is set. */
static struct {
	int count[32];
	char path[32][4096], path2[32][4096], text[32][4096];
	int error[32];
	bool forward;
} seen;

static void logger(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	if (ev->kind > 0 && ev->kind < 32) {
		seen.count[ev->kind]++;
		snprintf(seen.path[ev->kind], sizeof(seen.path[0]), "%s", ev->path ? ev->path : "");
		snprintf(seen.path2[ev->kind], sizeof(seen.path2[0]), "%s", ev->path2 ? ev->path2 : "");
		snprintf(seen.text[ev->kind], sizeof(seen.text[0]), "%s", ev->message);
		seen.error[ev->kind] = ev->error;
	}
	if (seen.forward)
		sbx_logger_default(ev, NULL);
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

static void scope_new(sbx_scopeattr_t *s)
{
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	ck_assert_int_eq(sbx_scopeattr_setlogger(s, logger, NULL), 0);
}

/* This process's fd 2, caught in a file until said() gives it back with
 * what was written there (children spawned meanwhile write there too). */
static int caught = -1, saved_stderr = -1;

static void catch_stderr(void)
{
	fflush(stderr);
	caught = memfd_create("stderr", 0);
	ck_assert_int_ge(caught, 0);
	saved_stderr = dup(2);
	ck_assert_int_eq(dup2(caught, 2), 2);
}

static const char *said(void)
{
	static char text[1 << 16];
	ssize_t n;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	n = pread(caught, text, sizeof(text) - 1, 0);
	text[n > 0 ? n : 0] = '\0';
	close(caught);
	return text;
}

/* How many lines of text hold needle. */
static int lines_with(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; *p;) {
		const char *end = strchr(p, '\n'), *hit = strstr(p, needle);

		if (!end)
			end = p + strlen(p);
		n += hit && hit < end;
		p = *end ? end + 1 : end;
	}
	return n;
}

static int spawn_wait(const sbx_scopeattr_t *s, char *const argv[])
{
	pid_t pid;
	int err = sbx_posix_spawn(&pid, argv[0], NULL, NULL, s, argv, environ);

	return err ? -1000 - err : wait_status(pid);
}

/* ---- the default logger: what it prints -------------------------------- */

/* Run as root, a confined child could reach past the boundary: the event
 * says so, to a logger that keeps data; the default logger does not print
 * it (its remedy is the calling program's, and a tool's users cannot act
 * on it), and sbxrun, whose user can, does. */
START_TEST(test_said_privilege_to_loggers_only)
{
	sbx_scopeattr_t s;
	const char *text;
	char *out;

	REQUIRE_LANDLOCK();
	if (geteuid() != 0) {
		say_skip("SKIP %s: needs root, for a child that keeps privilege\n", __func__);
		return;
	}
	scope_new(&s);
	seen.forward = true;
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	catch_stderr();
	ck_assert_int_eq(spawn_wait(&s, ARGV("/bin/true")), 0);
	text = said();
	ck_assert_int_eq(seen.count[SBX_EVENT_PRIVILEGED], 1);
	ck_assert_msg(!strstr(text, "root"), "the default logger printed: %s", text);
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(run_scoped(NULL, ARGV(SBXRUN, "--deny", t.other, "/bin/true"), &out), 0);
	ck_assert_msg(lines_with(out, "sbxrun: confined commands run as root") == 1, "%s", out);
	ck_assert_ptr_nonnull(strstr(out, "--uid/--gid"));
	free(out);
}
END_TEST

/* A scope from an empty list asks nothing of a child: nothing about a
 * boundary is said for it, to any logger; sbxrun with no path says
 * nothing either. */
START_TEST(test_said_nothing_for_empty_scope)
{
	sbx_scopeattr_t s;
	int empty = 0;
	char *out;

	REQUIRE_LANDLOCK();
	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_addlist(&s, SBX_DENY, "::"), 0);
	ck_assert_int_eq(sbx_scopeattr_isempty(&s, &empty), 0);
	ck_assert_int_eq(empty, 1);
	ck_assert_int_eq(spawn_wait(&s, ARGV("/bin/true")), 0);
	for (int k = 1; k < 32; k++)
		ck_assert_msg(!seen.count[k], "event %d for an empty scope: %s", k, seen.text[k]);
	sbx_scopeattr_destroy(&s);
	char var[] = "SAID_SBX_DENY=::";
	ck_assert_int_eq(putenv(var), 0);
	ck_assert_int_eq(run_scoped(NULL, ARGV(SBXRUN, "--env", "SAID_SBX", "/bin/echo", "ran"), &out),
	                 0);
	ck_assert_str_eq(out, "ran\n");
	free(out);
	ck_assert_int_eq(run_scoped(NULL, ARGV(SBXRUN, "/bin/echo", "ran"), &out), 0);
	ck_assert_str_eq(out, "ran\n");
	free(out);
}
END_TEST

/* Denying one program of a directory of hard links (as /usr/bin holds
 * them): its other names, and each other file of several names that the
 * expansion leaves out, are each an event for loggers, and the default
 * logger says them in one line.  Expanded: hiding needs no listing. */
START_TEST(test_said_links_in_one_line)
{
	char bin[4200], prog[4300], name[4300];
	sbx_scopeattr_t s;
	const char *text;

	REQUIRE_LANDLOCK();
	snprintf(bin, sizeof(bin), "%s/bin", t.top);
	snprintf(prog, sizeof(prog), "%s/prog", bin);
	ck_assert_int_eq(mkdir(bin, 0755), 0);
	write_file(prog, "#!/bin/sh\n", 0755);
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "%s/prog%d", bin, i);
		ck_assert_int_eq(link(prog, name), 0);
	}
	for (int i = 0; i < 6; i++) {
		char other[4400];

		snprintf(name, sizeof(name), "%s/tool%d", bin, i);
		write_file(name, "#!/bin/sh\n", 0755);
		snprintf(other, sizeof(other), "%s/tool%d-link", bin, i);
		ck_assert_int_eq(link(name, other), 0);
	}
	scope_new(&s);
	seen.forward = true;
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_EXPAND), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, prog), 0);
	catch_stderr();
	ck_assert_int_eq(spawn_wait(&s, ARGV("/bin/true")), 0);
	text = said();
	/* Each to a logger: 3 other names and their line, 12 drops and theirs. */
	ck_assert_int_eq(seen.count[SBX_EVENT_ALIAS], 4);
	ck_assert_int_eq(seen.count[SBX_EVENT_DROPPED], 13);
	ck_assert_msg(lines_with(text, "hard link") == 1 && lines_with(text, "sbxspawn: ") == 1, "%s", text);
	ck_assert_msg(strstr(text, "is also ") && strstr(text, "(3 hard links): those names are not granted; "
	                                                       "and 12 entries of ") &&
	                  strstr(text, "(the outcome lists them all)"),
	              "%s", text);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A refused child says so on its standard error; the spawn's event goes
 * to loggers that keep data, and the default logger does not say it a
 * second time. */
START_TEST(test_said_refusal_once)
{
	sbx_scopeattr_t s;
	const char *text;

	REQUIRE_LANDLOCK();
	scope_new(&s);
	seen.forward = true;
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	ck_assert_int_eq(sbx_scopeattr_setevents(&s, SBX_EVENTS_ALL &
	                                                 ~SBX_EVENT_BIT(SBX_EVENT_PRIVILEGED) &
	                                                 ~SBX_EVENT_BIT(SBX_EVENT_FROZEN)),
	                 0);
	seccomp_fail(SYS_landlock_restrict_self, EPERM);
	catch_stderr();
	ck_assert_int_eq(spawn_wait(&s, ARGV("/bin/true")), -1000 - SBX_EREFUSED);
	text = said();
	ck_assert_int_eq(seen.count[SBX_EVENT_REFUSED], 1);
	ck_assert_msg(lines_with(text, "not run") == 1, "said %d times: %s",
	              lines_with(text, "not run"), text);
	ck_assert_msg(lines_with(text, "sbxspawn: /bin/true: not run: Landlock refused the ruleset: "
	                               "landlock_restrict_self: ") == 1,
	              "not the child's line: %s", text);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* Entries that vanish while a busy directory is compiled: the event, and
 * for a spawn's compile (listed again by the next spawn) no line; for a
 * snapshot, which keeps them unreachable, one line that says so. */
static const char *busy_dir;

static const char *fmt_name(int i)
{
	static char ring[4][32];
	static int next;
	char *b = ring[next++ % 4];

	snprintf(b, sizeof(ring[0]), "f%d", i);
	return b;
}

static void busy_logger(const sbx_event_t *ev, void *arg)
{
	if (ev->kind == SBX_EVENT_EXPAND && busy_dir && !strcmp(ev->path, busy_dir))
		for (int i = 0; i < 40; i++)
			if (i % 4)
				unlink(join(busy_dir, fmt_name(i)));
	logger(ev, arg);
}

START_TEST(test_said_vanished_only_when_kept)
{
	char busy[4096];
	const char *text;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	snprintf(busy, sizeof(busy), "%s/busy", t.top);
	ck_assert_int_eq(mkdir(busy, 0755), 0);
	for (int snapshot = 0; snapshot < 2; snapshot++) {
		for (int i = 0; i < 40; i++)
			write_file(join(busy, fmt_name(i)), "", 0644);
		memset(&seen, 0, sizeof(seen));
		seen.forward = true;
		busy_dir = busy;
		ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
		sbx_scopeattr_setlogger(&s, busy_logger, NULL);
		sbx_scopeattr_setevents(&s, SBX_EVENTS_ALL & ~SBX_EVENT_BIT(SBX_EVENT_PRIVILEGED));
		ck_assert_int_eq(sbx_scopeattr_adddeny(&s, join(busy, "denied")), 0);
		catch_stderr();
		if (snapshot)
			ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
		else
			ck_assert_int_eq(spawn_wait(&s, ARGV("/bin/true")), 0);
		text = said();
		busy_dir = NULL;
		ck_assert_int_eq(seen.count[SBX_EVENT_VANISHED], 1);
		ck_assert_ptr_nonnull(strstr(seen.text[SBX_EVENT_VANISHED], "30 entries of"));
		if (snapshot) {
			ck_assert_msg(lines_with(text, "30 entries of") == 1, "%s", text);
			ck_assert_ptr_nonnull(strstr(text, "every spawn with this snapshot"));
		} else {
			ck_assert_msg(!text[0], "printed for a spawn's compile: %s", text);
			ck_assert_ptr_nonnull(strstr(seen.text[SBX_EVENT_VANISHED],
			                             "the next spawn lists the directory again"));
		}
		sbx_scopeattr_destroy(&s);
	}
}
END_TEST

/* ---- the directories where users are hit --------------------------------- */

/* Spawns true under s with envp, working in cwd: its wait status. */
static int spawn_in(const sbx_scopeattr_t *s, const char *cwd, char *const envp[])
{
	sbx_file_actions_t fa;
	pid_t pid;
	int err;

	sbx_file_actions_init(&fa);
	sbx_file_actions_addchdir(&fa, cwd);
	err = sbx_posix_spawn(&pid, "/bin/true", &fa, NULL, s, ARGV("true"), envp);
	sbx_file_actions_destroy(&fa);
	return err ? -1000 - err : wait_status(pid);
}

/* A denial beneath the home directory freezes it: said like the working
 * directory and TMPDIR, once, short, with the remedies that help (not a
 * re-admission: nothing re-admitted gives a frozen directory new entries;
 * nor a denial of the files instead: their directory's ancestors freeze
 * all the same), and the listing flag where it cannot be listed. */
START_TEST(test_said_home_frozen)
{
	char home[4200], tmpdir[4200];
	char *env[] = { home, tmpdir, NULL };
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	snprintf(home, sizeof(home), "HOME=%s", t.projects);
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", t.mine);
	for (int listable = 0; listable < 2; listable++) {
		memset(&seen, 0, sizeof(seen));
		scope_new(&s);
		expand_way(&s);
		ck_assert_int_eq(sbx_scopeattr_setflags(&s, (listable ? SBX_SCOPE_LISTABLE : 0) | SBX_SCOPE_EXPAND), 0);
		ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
		ck_assert_int_eq(spawn_in(&s, t.mine, env), 0);
		ck_assert_int_eq(seen.count[SBX_EVENT_FROZEN], 1);
		ck_assert_str_eq(seen.path[SBX_EVENT_FROZEN], t.projects);
		ck_assert_str_eq(seen.path2[SBX_EVENT_FROZEN], t.other);
		ck_assert_ptr_nonnull(strstr(seen.text[SBX_EVENT_FROZEN], "(HOME) is frozen by the denial"));
		ck_assert_ptr_nonnull(strstr(seen.text[SBX_EVENT_FROZEN], "whatever is re-admitted"));
		ck_assert_ptr_nonnull(strstr(seen.text[SBX_EVENT_FROZEN], "keep what it denies elsewhere, "
		                                                          "or give the command another HOME"));
		ck_assert_msg((strstr(seen.text[SBX_EVENT_FROZEN], "SBX_SCOPE_LISTABLE") != NULL) ==
		              !listable, "%s", seen.text[SBX_EVENT_FROZEN]);
		ck_assert_msg(strlen(seen.text[SBX_EVENT_FROZEN]) < strlen(t.projects) +
		                                                     strlen(t.other) + 200,
		              "not short: %s", seen.text[SBX_EVENT_FROZEN]);
		/* Once per scope. */
		ck_assert_int_eq(spawn_in(&s, t.mine, env), 0);
		ck_assert_int_eq(seen.count[SBX_EVENT_FROZEN], 1);
		sbx_scopeattr_destroy(&s);
	}
	/* Working in it as well: one line, for both. */
	memset(&seen, 0, sizeof(seen));
	scope_new(&s);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	ck_assert_int_eq(spawn_in(&s, t.projects, env), 0);
	ck_assert_int_eq(seen.count[SBX_EVENT_FROZEN], 1);
	ck_assert_ptr_nonnull(strstr(seen.text[SBX_EVENT_FROZEN], "(the working directory, HOME)"));
	ck_assert_ptr_nonnull(strstr(seen.text[SBX_EVENT_FROZEN], "or run the command elsewhere with "
	                                                          "another HOME"));
	sbx_scopeattr_destroy(&s);
	/* A home directory a scope makes read-only is what it asked for: not
	 * said (a working directory there is: the command writes where it
	 * runs). */
	memset(&seen, 0, sizeof(seen));
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=/usr");
	scope_new(&s);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, t.top), 0);
	ck_assert_int_eq(spawn_in(&s, "/usr", env), 0);
	ck_assert_msg(!seen.count[SBX_EVENT_FROZEN], "%s", seen.text[SBX_EVENT_FROZEN]);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A denial the compile does not apply (of /, which would stop every
 * program) restricts nothing: no directory is said to lie in it. */
START_TEST(test_said_nothing_of_unapplied_denial)
{
	char tmpdir[4200];
	char *env[] = { tmpdir, NULL };
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", t.mine);
	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, "/"), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	ck_assert_int_eq(spawn_in(&s, t.third, env), 0);
	ck_assert_int_eq(seen.count[SBX_EVENT_IGNORED_DENY], 1);
	ck_assert_msg(!seen.count[SBX_EVENT_FROZEN], "%s", seen.text[SBX_EVENT_FROZEN]);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A scope read from the environment speaks of its variables: the remedy
 * of a frozen directory names PREFIX_LISTABLE, which the tool's user sets,
 * not the C library's SBX_SCOPE_LISTABLE. */
START_TEST(test_said_in_the_variables_words)
{
	char home[4200], tmpdir[4200], deny[4200];
	char *env[] = { home, tmpdir, deny, "TOOL_SBX_EXPAND=1", NULL };
	sbx_scopeattr_t s;
	int any = 0;

	REQUIRE_LANDLOCK();
	snprintf(home, sizeof(home), "HOME=%s", t.projects);
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", t.mine);
	snprintf(deny, sizeof(deny), "TOOL_SBX_DENY=%s", t.other);
	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "TOOL_SBX", env, &any), 0);
	ck_assert_int_eq(any, 1);
	ck_assert_int_eq(spawn_in(&s, t.mine, env), 0);
	ck_assert_int_eq(seen.count[SBX_EVENT_FROZEN], 1);
	ck_assert_msg(strstr(seen.text[SBX_EVENT_FROZEN], "TOOL_SBX_LISTABLE") &&
	                      !strstr(seen.text[SBX_EVENT_FROZEN], "SBX_SCOPE_"),
	              "%s", seen.text[SBX_EVENT_FROZEN]);
	sbx_scopeattr_destroy(&s);
	/* The same scope made in C says the C names. */
	memset(&seen, 0, sizeof(seen));
	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_EXPAND), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	ck_assert_int_eq(spawn_in(&s, t.mine, env), 0);
	ck_assert_msg(strstr(seen.text[SBX_EVENT_FROZEN], "SBX_SCOPE_LISTABLE") != NULL, "%s",
	              seen.text[SBX_EVENT_FROZEN]);
	sbx_scopeattr_destroy(&s);
	/* A refused child's own line too (strictly, a control above this
	 * ABI): in the variables' words. */
	if (landlock_abi() < 9) {
		char *strict[] = { deny, "TOOL_SBX_STRICT=1", NULL }, *out = NULL;
		int flags = 0;

		scope_new(&s);
		ck_assert_int_eq(sbx_scopeattr_readenv(&s, "TOOL_SBX", strict, &any), 0);
		ck_assert_int_eq(sbx_scopeattr_getflags(&s, &flags), 0);
		ck_assert_int_eq(sbx_scopeattr_setflags(&s, flags | SBX_SCOPE_NO_UNIX_CONNECT), 0);
		ck_assert_int_eq(run_scoped(&s, (char *[]){ "true", NULL }, &out), -1000 - SBX_EREFUSED);
		ck_assert_msg(strstr(out, "not run: TOOL_SBX_STRICT refuses") && !strstr(out, "SBX_SCOPE_"),
		              "%s", out);
		free(out);
		sbx_scopeattr_destroy(&s);
		/* The longest prefix there may be (200 bytes): the line still
		 * says what refused, and why. */
		char prefix[201], on[220], paths[4400], *longest[] = { on, paths, NULL };

		memset(prefix, 'P', 200);
		prefix[200] = '\0';
		snprintf(on, sizeof(on), "%s_STRICT=1", prefix);
		snprintf(paths, sizeof(paths), "%s_DENY=%s", prefix, t.other);
		scope_new(&s);
		ck_assert_int_eq(sbx_scopeattr_readenv(&s, prefix, longest, &any), 0);
		ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_STRICT | SBX_SCOPE_NO_UNIX_CONNECT),
		                 0);
		ck_assert_int_eq(run_scoped(&s, (char *[]){ "true", NULL }, &out), -1000 - SBX_EREFUSED);
		ck_assert_msg(strstr(out, "P_STRICT refuses a control not enforced in full: unix_connect: "
		                          "needs Landlock ABI 9"),
		              "%s", out);
		free(out);
		sbx_scopeattr_destroy(&s);
	}
}
END_TEST

/* A scope whose only denial is one the compile does not apply restricts
 * nothing, and keeps its compile like any other: the line is said once,
 * not at every spawn (a build tool's DENY=/ said it at every job). */
START_TEST(test_said_unapplied_denial_once)
{
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, "/"), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(spawn_in(&s, t.third, environ), 0);
	ck_assert_int_eq(seen.count[SBX_EVENT_IGNORED_DENY], 1);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* ---- the caller's words ------------------------------------------------- */

/* An item of a list, a temporary directory, that cannot be added: named in
 * the caller's words (a label), else the library's, never its constants;
 * and through the environment convention, once, by its variable. */
START_TEST(test_said_labels)
{
	char *missing = (char *)join(t.top, "missing");
	char var[4200];
	sbx_scopeattr_t s;

	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_addlist(&s, SBX_DENY, missing), 0);
	ck_assert_int_eq(sbx_scopeattr_settmpdir(&s, missing), ENOENT);
	ck_assert_int_eq(seen.count[SBX_EVENT_LIST], 1);
	ck_assert_str_eq(seen.path[SBX_EVENT_LIST], missing);
	ck_assert_str_eq(seen.path2[SBX_EVENT_LIST], "the temporary directory");
	ck_assert_ptr_nonnull(strstr(seen.text[SBX_EVENT_LIST], "the temporary directory: "));
	ck_assert_ptr_nonnull(strstr(seen.text[SBX_EVENT_LIST], "is as it was"));
	ck_assert_ptr_null(strstr(seen.text[SBX_EVENT_LIST], "SBX_"));
	ck_assert_int_eq(sbx_scopeattr_setlabel(&s, SBX_TMPDIR, "build.tmpdir"), 0);
	ck_assert_int_eq(sbx_scopeattr_setlabel(&s, SBX_READONLY, "build.readonly"), 0);
	ck_assert_int_eq(sbx_scopeattr_settmpdir(&s, t.secret), ENOTDIR);
	ck_assert_int_eq(seen.count[SBX_EVENT_LIST], 2);
	ck_assert_msg(!strncmp(seen.text[SBX_EVENT_LIST], "build.tmpdir: ", 14), "%s",
	              seen.text[SBX_EVENT_LIST]);
	{
		char big[5000];

		memset(big, 'x', sizeof(big) - 1);
		big[0] = '/';
		big[sizeof(big) - 1] = '\0';
		ck_assert_int_eq(sbx_scopeattr_addlist(&s, SBX_READONLY, big), ENAMETOOLONG);
		ck_assert_int_eq(seen.count[SBX_EVENT_LIST], 3);
		ck_assert_msg(!strncmp(seen.text[SBX_EVENT_LIST], "build.readonly: /xxx", 20), "%s",
		              seen.text[SBX_EVENT_LIST]);
		ck_assert_int_eq(sbx_scopeattr_addlist(&s, SBX_ALLOW, big), ENAMETOOLONG);
		ck_assert_msg(!strncmp(seen.text[SBX_EVENT_LIST], "the re-admission list: /xxx", 27),
		              "%s", seen.text[SBX_EVENT_LIST]);
	}
	ck_assert_int_eq(sbx_scopeattr_setlabel(&s, SBX_TMPDIR, NULL), 0);
	ck_assert_int_eq(sbx_scopeattr_setlabel(&s, 0, "x"), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_setlabel(&s, SBX_TMPDIR + 1, "x"), EINVAL);
	/* The convention names its variable, once. */
	memset(&seen, 0, sizeof(seen));
	snprintf(var, sizeof(var), "LBL_SBX_TMPDIR=%s", missing);
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "LBL_SBX", (char *[]){ var, NULL }, NULL), ENOENT);
	ck_assert_int_eq(seen.count[SBX_EVENT_ENV], 1);
	ck_assert_int_eq(seen.count[SBX_EVENT_LIST], 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* sbxrun names its own option, once. */
START_TEST(test_said_sbxrun_option)
{
	char *out;

	ck_assert_int_eq(run_scoped(NULL, ARGV(SBXRUN, "--tmpdir", (char *)join(t.top, "missing"),
	                                       "/bin/true"), &out), 125);
	ck_assert_msg(lines_with(out, "No such file or directory") == 1 &&
	                  lines_with(out, "sbxrun: --tmpdir ") == 1 && !strstr(out, "SBX_"),
	              "%s", out);
	free(out);
}
END_TEST

/* Through sbxrun, from elsewhere and from the home directory: one short
 * line that the home directory is frozen, naming sbxrun's own option for
 * listing; the command that lists it fails, and the line said why. */
START_TEST(test_said_sbxrun_home)
{
	const char *where[] = { t.mine, t.projects };
	char cmd[16384];
	char *out;

	REQUIRE_LANDLOCK();
	for (int i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "cd %s && HOME=%s exec %s --expand --deny %s -- ls %s", where[i],
		         t.projects, SBXRUN, t.other, t.projects);
		ck_assert_int_ne(run_scoped(NULL, ARGV("/bin/sh", "-c", cmd), &out), 0);
		ck_assert_msg(lines_with(out, "is frozen") == 1, "%s", out);
		ck_assert_msg(lines_with(out, "HOME) is frozen by the denial") == 1, "%s", out);
		ck_assert_msg(lines_with(out, "nor listed (--listable)") == 1, "%s", out);
		ck_assert_msg(!strstr(out, "SBX_SCOPE"), "a library name: %s", out);
		ck_assert_msg(lines_with(out, "Permission denied") == 1, "%s", out);
		free(out);
	}
}
END_TEST

Suite *suite_said(void)
{
	Suite *su = suite_create("said");
	TCase *tc = tcase_create("default-logger");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_said_privilege_to_loggers_only);
	tcase_add_test(tc, test_said_nothing_for_empty_scope);
	tcase_add_test(tc, test_said_refusal_once);
	tcase_add_test(tc, test_said_links_in_one_line);
	tcase_add_test(tc, test_said_vanished_only_when_kept);
	tcase_add_test(tc, test_said_home_frozen);
	tcase_add_test(tc, test_said_sbxrun_home);
	tcase_add_test(tc, test_said_nothing_of_unapplied_denial);
	tcase_add_test(tc, test_said_unapplied_denial_once);
	tcase_add_test(tc, test_said_in_the_variables_words);
	tcase_add_test(tc, test_said_labels);
	tcase_add_test(tc, test_said_sbxrun_option);
	suite_add_tcase(su, tc);
	return su;
}

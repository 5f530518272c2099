/* SPDX-License-Identifier: MIT */
/* What every client of the library wrote by hand, in the library: choosing
 * events, a list of paths in one call, a temporary directory the scope
 * grants, a refusal known at compile time, outcomes in words. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"
#define NESTED HELPER_DIR "/nested"

static struct tree t;

/* What the logger saw, by kind. */
static struct {
	int count[32];
	char path[32][4096];
	char text[32][4096];
	int error[32];
} seen;

static void logger(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	if (ev->kind < 0 || ev->kind >= 32)
		return;
	seen.count[ev->kind]++;
	snprintf(seen.path[ev->kind], sizeof(seen.path[0]), "%s", ev->path ? ev->path : "");
	snprintf(seen.text[ev->kind], sizeof(seen.text[0]), "%s", ev->message);
	seen.error[ev->kind] = ev->error;
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

/* Runs argv under scope with envp, its output in *out: the exit status. */
static int run_env(const sbx_scopeattr_t *scope, char *const argv[], char *const envp[],
                   char **out)
{
	sbx_file_actions_t fa;
	char path[] = "/tmp/sbxclients.XXXXXX";
	int fd = mkstemp(path), status, err;
	pid_t pid;
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	unlink(path);
	sbx_file_actions_init(&fa);
	sbx_file_actions_adddup2(&fa, fd, 1);
	sbx_file_actions_adddup2(&fa, fd, 2);
	err = sbx_posix_spawn(&pid, argv[0], &fa, NULL, scope, argv, envp);
	sbx_file_actions_destroy(&fa);
	ck_assert_msg(err == 0, "spawn of %s: %s", argv[0], sbx_strerror(err));
	status = wait_status(pid);
	*out = calloc(1, 65536);
	ck_assert_ptr_nonnull(*out);
	n = pread(fd, *out, 65535, 0);
	ck_assert_int_ge(n, 0);
	close(fd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---- 1. choosing events ------------------------------------------------- */

/* The working directory frozen (a denial beneath it): one SBX_EVENT_FROZEN,
 * which the mask lets through or not; the outcome records the spawn all
 * the same. */
START_TEST(test_events_mask)
{
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	char *argv[] = { FSOP, "read", t.secret, NULL };
	unsigned mask;

	REQUIRE_LANDLOCK();
	scope_new(&s);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_getevents(&s, &mask), 0);
	ck_assert_uint_eq(mask, SBX_EVENTS_ALL); /* today's behaviour */
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	ck_assert_int_eq(sbx_scopeattr_setevents(&s, 0), 0);
	ck_assert_int_eq(sbx_scopeattr_getevents(&s, &mask), 0);
	ck_assert_uint_eq(mask, 0);
	ck_assert_int_eq(run_scoped_cwd(&s, t.projects, argv, NULL), 1);
	for (int k = 0; k < 32; k++)
		ck_assert_msg(seen.count[k] == 0, "event %d delivered under mask 0: %s", k, seen.text[k]);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_CONFINED);
	ck_assert_uint_gt(oc.rules, 0);

	/* Only the frozen directory: said, and nothing else. */
	ck_assert_int_eq(sbx_scopeattr_setevents(&s, SBX_EVENT_BIT(SBX_EVENT_FROZEN)), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.third), 0); /* a new scope: said anew */
	ck_assert_int_eq(run_scoped_cwd(&s, t.projects, argv, NULL), 1);
	ck_assert_int_eq(seen.count[SBX_EVENT_FROZEN], 1);
	ck_assert_str_eq(seen.path[SBX_EVENT_FROZEN], t.projects);
	ck_assert_int_eq(seen.count[SBX_EVENT_EXPAND], 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* The default logger prints what the mask lets through, and nothing under
 * mask 0: a child of this test spawns with it, its stderr a terminal (a
 * pseudo-terminal's far end) of a type.  The frozen directory is advice
 * for a person: with its stderr a file, or a terminal whose TERM is empty,
 * "dumb" or unset (as a tool's output tests drive one), the same spawn
 * says nothing of it. */
START_TEST(test_events_mask_default_logger)
{
	char *argv[] = { FSOP, "read", t.secret, NULL };
	/* TERM in each round: a person's, then the same masked, a file, and
	 * the three terminals no person reads. */
	const char *terms[] = { "xterm", "xterm", "xterm", "", "dumb", NULL };

	REQUIRE_LANDLOCK();
	for (int round = 0; round < 6; round++) {
		bool masked = round == 1, terminal = round != 2, person = round == 0;
		char path[] = "/tmp/sbxclients.XXXXXX", text[4096] = "";
		int fd = -1, far = -1, status;
		ssize_t n, got = 0;
		pid_t pid;

		if (terminal) {
			ck_assert_int_ge(fd = posix_openpt(O_RDWR | O_NOCTTY), 0);
			ck_assert(grantpt(fd) == 0 && unlockpt(fd) == 0);
			ck_assert_int_ge(far = open(ptsname(fd), O_RDWR | O_NOCTTY), 0);
		} else {
			ck_assert_int_ge(far = mkstemp(path), 0);
			unlink(path);
		}
		ck_assert_int_ge(pid = fork(), 0);
		if (pid == 0) {
			sbx_scopeattr_t s;

			dup2(far, 2);
			if (round < 5 ? setenv("TERM", terms[round], 1) : unsetenv("TERM"))
				_exit(5);
			if (chdir(t.projects) || sbx_scopeattr_init(&s) ||
			    sbx_scopeattr_setflags(&s, SBX_SCOPE_EXPAND) ||
			    sbx_scopeattr_adddeny(&s, t.other) ||
			    sbx_scopeattr_setevents(&s, masked ? 0 : SBX_EVENTS_ALL))
				_exit(3);
			_exit(run_scoped(&s, argv, NULL) == 1 ? 0 : 4);
		}
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_int_eq(WEXITSTATUS(status), 0);
		if (terminal) {
			/* What the child wrote waits on the near end; nothing
			 * more comes once it ended. */
			close(far);
			fcntl(fd, F_SETFL, O_NONBLOCK);
			while ((n = read(fd, text + got, sizeof(text) - 1 - (size_t)got)) > 0)
				got += n;
			close(fd);
		} else {
			ck_assert_int_ge(got = pread(far, text, sizeof(text) - 1, 0), 0);
			close(far);
		}
		text[got] = '\0';
		if (masked)
			ck_assert_msg(!text[0], "printed under mask 0: %s", text);
		else if (person)
			ck_assert_msg(strstr(text, "is frozen"), "the frozen directory unsaid: %s", text);
		else
			ck_assert_msg(!strstr(text, "is frozen"), "advice where no person reads (%s, "
			              "TERM %s): %s", terminal ? "a terminal" : "a file",
			              round < 5 ? terms[round] : "unset", text);
	}
}
END_TEST

/* An event said once per process (the privilege notice) is not used up by
 * a scope whose mask kept it out: the next scope that lets it through
 * hears it.  And it is one short line. */
START_TEST(test_privilege_notice)
{
	sbx_scopeattr_t quiet, loud;
	char *argv[] = { "/bin/true", NULL };

	REQUIRE_LANDLOCK();
	if (geteuid() != 0) {
		say_skip("SKIP test_privilege_notice: a regular user's commands keep no privilege "
		        "to be told of\n");
		return;
	}
	scope_new(&quiet);
	scope_new(&loud);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&quiet, t.other), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&loud, t.other), 0);
	ck_assert_int_eq(sbx_scopeattr_setevents(&quiet, SBX_EVENTS_ALL &
	                                         ~SBX_EVENT_BIT(SBX_EVENT_PRIVILEGED)), 0);
	ck_assert_int_eq(run_scoped(&quiet, argv, NULL), 0);
	ck_assert_int_eq(seen.count[SBX_EVENT_PRIVILEGED], 0);
	ck_assert_int_eq(run_scoped(&loud, argv, NULL), 0);
	ck_assert_int_eq(seen.count[SBX_EVENT_PRIVILEGED], 1);
	ck_assert_msg(strlen(seen.text[SBX_EVENT_PRIVILEGED]) <= 100, "%zu characters: %s",
	              strlen(seen.text[SBX_EVENT_PRIVILEGED]), seen.text[SBX_EVENT_PRIVILEGED]);
	ck_assert_int_eq(run_scoped(&loud, argv, NULL), 0);
	ck_assert_int_eq(seen.count[SBX_EVENT_PRIVILEGED], 1); /* once per process */
	sbx_scopeattr_destroy(&quiet);
	sbx_scopeattr_destroy(&loud);
}
END_TEST

/* ---- 2. a list of paths in one call ------------------------------------- */

START_TEST(test_addlist)
{
	sbx_scopeattr_t s;
	char list[16384], *long_item;
	char *read_secret[] = { FSOP, "read", t.secret, NULL };
	char *read_third[] = { FSOP, "read", (char *)join(t.third, "file"), NULL };
	char *write_mine[] = { FSOP, "create", (char *)join(t.mine, "new"), NULL };

	REQUIRE_LANDLOCK();
	scope_new(&s);
	/* Empty items skipped, as PATH's are not (there they mean "."). */
	snprintf(list, sizeof(list), ":%s::%s:", t.other, t.third);
	ck_assert_int_eq(sbx_scopeattr_addlist(&s, SBX_DENY, list), 0);
	ck_assert_int_eq(sbx_scopeattr_addlist(&s, SBX_READONLY, t.mine), 0);
	ck_assert_int_eq(sbx_scopeattr_addlist(&s, SBX_ALLOW, ""), 0);
	ck_assert_int_eq(run_scoped(&s, read_secret, NULL), 1);
	ck_assert_int_eq(run_scoped(&s, read_third, NULL), 1);
	ck_assert_int_ne(run_scoped(&s, write_mine, NULL), 0);
	sbx_scopeattr_destroy(&s);

	/* All or nothing: an item that cannot be added (too long a name),
	 * after one that could, adds neither; the event names the item. */
	scope_new(&s);
	long_item = malloc(5000);
	ck_assert_ptr_nonnull(long_item);
	memset(long_item, 'x', 4999);
	long_item[0] = '/';
	long_item[4999] = '\0';
	snprintf(list, sizeof(list), "%s:%s", t.other, long_item);
	ck_assert_int_eq(sbx_scopeattr_addlist(&s, SBX_DENY, list), ENAMETOOLONG);
	ck_assert_int_eq(seen.count[SBX_EVENT_LIST], 1);
	ck_assert_int_eq(seen.error[SBX_EVENT_LIST], ENAMETOOLONG);
	ck_assert_int_eq(strncmp(seen.path[SBX_EVENT_LIST], "/xxx", 4), 0);
	ck_assert_ptr_nonnull(strstr(seen.text[SBX_EVENT_LIST], "nothing of the list was added"));
	ck_assert_int_eq(run_scoped(&s, read_secret, NULL), 0); /* t.other was not added */
	free(long_item);

	ck_assert_int_eq(sbx_scopeattr_addlist(&s, 0, t.other), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_addlist(&s, SBX_READONLY + 1, t.other), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_addlist(&s, SBX_DENY, NULL), EINVAL);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* ---- 3. a temporary directory the scope grants -------------------------- */

/* The child's own TMPDIR, inside a denial: re-admitted, in its
 * environment, written in. */
START_TEST(test_settmpdir)
{
	sbx_scopeattr_t s;
	char tmp[4096], tmp2[4096], *out;
	char *sh[] = { "/bin/sh", "-c",
		       "env | grep -c '^TMPDIR='; echo \"$TMPDIR\"; echo x > \"$TMPDIR/made\"", NULL };
	char *with[] = { "TMPDIR=/nowhere", "PATH=/usr/bin:/bin", "TMPDIR=/again", NULL };
	char *without[] = { "PATH=/usr/bin:/bin", NULL };
	char want[8192];

	REQUIRE_LANDLOCK();
	snprintf(tmp, sizeof(tmp), "%s/tmp", t.other);
	snprintf(tmp2, sizeof(tmp2), "%s/tmp2", t.other);
	ck_assert_int_eq(mkdir(tmp, 0755) | mkdir(tmp2, 0755), 0);
	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	ck_assert_int_eq(sbx_scopeattr_settmpdir(&s, join(t.projects, "none")), ENOENT);
	ck_assert_int_eq(sbx_scopeattr_settmpdir(&s, join(t.projects, "README")), ENOTDIR);
	ck_assert_int_eq(sbx_scopeattr_settmpdir(&s, tmp2), 0);
	ck_assert_int_eq(sbx_scopeattr_settmpdir(&s, tmp), 0); /* replaces tmp2 */

	/* Replaced where the caller's envp had it (twice: once left), added
	 * where it had not; written in. */
	ck_assert_int_eq(run_env(&s, sh, with, &out), 0);
	snprintf(want, sizeof(want), "1\n%s\n", tmp);
	ck_assert_str_eq(out, want);
	free(out);
	ck_assert_int_eq(access(join(tmp, "made"), F_OK), 0);
	unlink(join(tmp, "made"));
	ck_assert_int_eq(run_env(&s, sh, without, &out), 0);
	ck_assert_str_eq(out, want);
	free(out);
	ck_assert_int_eq(access(join(tmp, "made"), F_OK), 0);
	/* Its TMPDIR is granted, so nothing said of it being frozen. */
	ck_assert_int_eq(seen.count[SBX_EVENT_FROZEN], 0);

	/* tmp2 is no longer re-admitted: the denial holds it. */
	char *into_tmp2[] = { FSOP, "create", (char *)join(tmp2, "made"), NULL };
	ck_assert_int_ne(run_env(&s, into_tmp2, without, &out), 0);
	free(out);

	/* Removed: the caller's environment as it was. */
	ck_assert_int_eq(sbx_scopeattr_settmpdir(&s, NULL), 0);
	ck_assert_int_ne(run_env(&s, sh, with, &out), 0);
	ck_assert_msg(!strstr(out, tmp) && (strstr(out, "/again\n") || strstr(out, "/nowhere\n")),
	              "%s", out);
	free(out);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* The frozen TMPDIR is said once per scope, at the first spawn where it is
 * frozen: not at every spawn, and not where the child's TMPDIR is another,
 * granted directory. */
START_TEST(test_frozen_once_per_scope)
{
	sbx_scopeattr_t s;
	char tmpdir_frozen[4200], tmpdir_granted[4200], *out;
	char *argv[] = { "/bin/true", NULL };

	REQUIRE_LANDLOCK();
	snprintf(tmpdir_frozen, sizeof(tmpdir_frozen), "TMPDIR=%s", t.projects);
	snprintf(tmpdir_granted, sizeof(tmpdir_granted), "TMPDIR=%s", t.mine);
	char *frozen_env[] = { tmpdir_frozen, NULL }, *granted_env[] = { tmpdir_granted, NULL };

	scope_new(&s);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	ck_assert_int_eq(run_env(&s, argv, granted_env, &out), 0);
	free(out);
	ck_assert_int_eq(seen.count[SBX_EVENT_FROZEN], 0);
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(run_env(&s, argv, frozen_env, &out), 0);
		free(out);
	}
	ck_assert_int_eq(seen.count[SBX_EVENT_FROZEN], 1);
	ck_assert_str_eq(seen.path[SBX_EVENT_FROZEN], t.projects);
	ck_assert_ptr_nonnull(strstr(seen.text[SBX_EVENT_FROZEN], "sbx_scopeattr_settmpdir"));
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* ---- 4. a refusal known at compile time --------------------------------- */

/* Inside a scope that forbids listing, a narrower nested scope is refused
 * at every spawn: its compile says so, with the remedy, and a build tool
 * that compiles at its start stops there. */
START_TEST(test_compile_refused_early)
{
	sbx_scopeattr_t outer;
	char *inner[] = { NESTED, "-c", "-d", t.third, "/bin/true", NULL };
	char *out;

	REQUIRE_LANDLOCK();
	scope_new(&outer);
	expand_way(&outer);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&outer, t.other), 0);
	ck_assert_int_eq(run_scoped(&outer, inner, &out), 124);
	/* In words true of a compile, which runs nothing. */
	ck_assert_msg(strstr(out, "the scope is refused") && strstr(out, "SBX_SCOPE_LISTABLE") &&
	                      strstr(out, "nested: compile: the scope's confinement is refused") &&
	                      strstr(out, "nothing runs under it") &&
	                      !strstr(out, "program did not run"),
	              "%s", out);
	free(out);
	/* The same through sbx_scopeattr_fromenv, at the start: one line of
	 * the library's, naming the variables, with the remedy; the switch it
	 * names is the enclosing scope's (made in C here), not one of the
	 * tool's variables (CLI_SBX_LISTABLE would change nothing). */
	char *fromenv[] = { NESTED, "-e", "CLI_SBX", "/bin/true", NULL };
	const char *line;

	ck_assert_int_eq(setenv("CLI_SBX_DENY", t.third, 1), 0);
	ck_assert_int_eq(run_scoped(&outer, fromenv, &out), 124);
	ck_assert_msg((line = strstr(out, "sbxspawn: ")) && !strstr(line + 1, "sbxspawn: ") &&
	                  strstr(out, "CLI_SBX_*: no command could run under the scope they make: "
	                              "the scope is refused") &&
	                  strstr(out, "SBX_SCOPE_LISTABLE") && !strstr(out, "CLI_SBX_LISTABLE") &&
	                  strstr(out, "nested: fromenv: the scope's confinement is refused"),
	              "%s", out);
	free(out);
	/* Listable, the same nested scope compiles and runs. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&outer, SBX_SCOPE_LISTABLE | SBX_SCOPE_EXPAND), 0);
	ck_assert_int_eq(run_scoped(&outer, inner, &out), 0);
	free(out);
	ck_assert_int_eq(run_scoped(&outer, fromenv, &out), 0);
	free(out);
	sbx_scopeattr_destroy(&outer);
}
END_TEST

/* ---- 5. words --------------------------------------------------------- */

START_TEST(test_names)
{
	ck_assert_str_eq(sbx_outcome_name(SBX_OUTCOME_NONE), "none");
	ck_assert_str_eq(sbx_outcome_name(SBX_OUTCOME_CONFINED), "confined");
	ck_assert_str_eq(sbx_outcome_name(SBX_OUTCOME_NARROWED), "narrowed");
	ck_assert_str_eq(sbx_outcome_name(SBX_OUTCOME_UNCONFINED), "unconfined");
	ck_assert_str_eq(sbx_outcome_name(SBX_OUTCOME_REFUSED), "refused");
	ck_assert_str_eq(sbx_outcome_name(-1), "unknown");
	ck_assert_str_eq(sbx_outcome_name(SBX_OUTCOME_REFUSED + 1), "unknown");
	ck_assert_str_eq(sbx_stage_name(SBX_STAGE_NONE), "none");
	ck_assert_str_eq(sbx_stage_name(SBX_STAGE_SETUP), "setup");
	ck_assert_str_eq(sbx_stage_name(SBX_STAGE_ATTR), "attribute");
	ck_assert_str_eq(sbx_stage_name(SBX_STAGE_FILE_ACTION), "file action");
	ck_assert_str_eq(sbx_stage_name(SBX_STAGE_CONFINE), "confinement");
	ck_assert_str_eq(sbx_stage_name(SBX_STAGE_EXEC), "exec");
	ck_assert_str_eq(sbx_stage_name(SBX_STAGE_EXEC + 1), "unknown");
	/* And the library's own error number, which strerror does not know. */
	ck_assert_ptr_nonnull(strstr(sbx_strerror(SBX_EREFUSED), "refused"));
}
END_TEST

Suite *suite_clients(void)
{
	Suite *s = suite_create("clients");
	TCase *tc = tcase_create("glue");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_events_mask);
	tcase_add_test(tc, test_events_mask_default_logger);
	tcase_add_test(tc, test_privilege_notice);
	tcase_add_test(tc, test_addlist);
	tcase_add_test(tc, test_settmpdir);
	tcase_add_test(tc, test_frozen_once_per_scope);
	tcase_add_test(tc, test_compile_refused_early);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return s;
}

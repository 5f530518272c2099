/* SPDX-License-Identifier: MIT */
/* libsbxspawn-testing, every call on the real kernel: each provocation
 * gives the outcome its page promises, the guards refuse where they say,
 * and the readers and assertions read what a spawn left.  Its own runner:
 * the provocations change the process for good, so every test runs in a
 * process of its own (Check's fork mode), and the runner itself never
 * spawns with a scope (that would cache the library's ABI probe in every
 * test it forks). */
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

#include "compat/landlock.h"
#include "sbxspawn/testing.h"
#include "tests/emulated.h"

#define GUARD HELPER_DIR "/testing_guard"
#define ASSERTS HELPER_DIR "/testing_asserts"
#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"

extern char **environ;

/* ---- fixtures ------------------------------------------------------------ */

/* T/projects/{mine,other,third}, each with a file; other's is the secret.
 * In the build directory, not /var/tmp or /tmp: every directory above a
 * denial is listed at each compile, and an entry that vanishes meanwhile
 * is a dropped grant.  The main suite, run beside this one by make -j,
 * makes and removes its trees in /var/tmp all along; these tests count
 * dropped grants, and must not see its trees come and go, nor make its
 * see theirs. */
struct tree {
	char top[4096], projects[4096], mine[4096], other[4096], third[4096];
	char secret[4096], mine_file[4096], third_file[4096];
};

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void tree_make(struct tree *t)
{
	snprintf(t->top, sizeof(t->top), "%s/sbxtesting.XXXXXX", TOP_BUILDDIR);
	ck_assert_ptr_nonnull(mkdtemp(t->top));
	snprintf(t->projects, sizeof(t->projects), "%s/projects", t->top);
	snprintf(t->mine, sizeof(t->mine), "%s/mine", t->projects);
	snprintf(t->other, sizeof(t->other), "%s/other", t->projects);
	snprintf(t->third, sizeof(t->third), "%s/third", t->projects);
	snprintf(t->secret, sizeof(t->secret), "%s/secret", t->other);
	snprintf(t->mine_file, sizeof(t->mine_file), "%s/file", t->mine);
	snprintf(t->third_file, sizeof(t->third_file), "%s/file", t->third);
	ck_assert_int_eq(mkdir(t->projects, 0755), 0);
	ck_assert_int_eq(mkdir(t->mine, 0755), 0);
	ck_assert_int_eq(mkdir(t->other, 0755), 0);
	ck_assert_int_eq(mkdir(t->third, 0755), 0);
	write_file(t->secret, "the-secret\n");
	write_file(t->mine_file, "mine\n");
	write_file(t->third_file, "third\n");
}

static void tree_free(const struct tree *t)
{
	unlink(t->secret);
	unlink(t->mine_file);
	unlink(t->third_file);
	rmdir(t->mine);
	rmdir(t->other);
	rmdir(t->third);
	rmdir(t->projects);
	rmdir(t->top);
}

/* A logger that keeps the last event of each kind.  With `beneath' set,
 * only the grants dropped beneath it count: every directory above the
 * tree is listed too, and one that holds a file with hard links (left by
 * anything on the machine) or an entry that vanishes drops a grant there
 * that is no part of the test. */
struct seen {
	int count[8], error[8];
	char path[8][256];
	const char *beneath;
};

static bool is_beneath(const char *path, const char *top)
{
	size_t n = strlen(top);

	return path && !strncmp(path, top, n) && (path[n] == '/' || !path[n]);
}

static void record(const sbx_event_t *ev, void *arg)
{
	struct seen *s = arg;

	if (ev->kind <= 0 || ev->kind >= 8)
		return;
	if (ev->kind == SBX_EVENT_DROPPED && s->beneath && !is_beneath(ev->path, s->beneath))
		return;
	s->count[ev->kind]++;
	s->error[ev->kind] = ev->error;
	snprintf(s->path[ev->kind], sizeof(s->path[0]), "%s", ev->path ? ev->path : "");
}

/* The expanded way: the grants dropped here are those of the walk that
 * lists the directories above a denial (a hidden one lists none). */
static void scope_make(sbx_scopeattr_t *s, struct seen *seen, const char *deny)
{
	memset(seen, 0, sizeof(*seen));
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	ck_assert_int_eq(sbx_scopeattr_setlogger(s, record, seen), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(s, SBX_SCOPE_EXPAND), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(s, deny), 0);
}

/* How many of the last spawn's dropped grants lie beneath top. */
static unsigned dropped_beneath(const char *top)
{
	sbx_outcome_t o;
	unsigned n = 0;

	ck_assert_int_eq(sbx_outcome_get(&o), 0);
	for (unsigned i = 0; i < o.dropped && o.dropped_paths; i++)
		n += is_beneath(o.dropped_paths[i], top);
	return n;
}

/* The last spawn confined, with no grant dropped beneath top (one dropped
 * above it, for the machine's own reasons, narrows it without touching
 * the test). */
static void assert_confined_beneath(const char *top)
{
	sbx_outcome_t o;

	ck_assert_int_eq(sbx_outcome_get(&o), 0);
	ck_assert_msg(o.confinement == SBX_OUTCOME_CONFINED ||
	                      (o.confinement == SBX_OUTCOME_NARROWED && !dropped_beneath(top)),
	              "the last spawn was %s, with %u grants dropped beneath %s",
	              sbx_testing_confinement_name(o.confinement), dropped_beneath(top), top);
}

/* `cat path' under scope, stdout and stderr captured: the spawn's error,
 * else cat's exit code, and what it said. */
struct cat {
	int err, code;
	char *text;
};

static struct cat cat(const sbx_scopeattr_t *scope, const char *path)
{
	char *argv[] = { "cat", (char *)path, NULL };
	sbx_file_actions_t fa;
	struct cat c = { 0, -1, NULL };
	int fd, status;
	pid_t pid;

	ck_assert_int_eq(sbx_testing_capture_open(&fd), 0);
	ck_assert_int_eq(sbx_file_actions_init(&fa), 0);
	ck_assert_int_eq(sbx_file_actions_adddup2(&fa, fd, 1), 0);
	ck_assert_int_eq(sbx_file_actions_adddup2(&fa, fd, 2), 0);
	c.err = sbx_posix_spawnp(&pid, "cat", &fa, NULL, scope, argv, environ);
	sbx_file_actions_destroy(&fa);
	if (!c.err) {
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		c.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	ck_assert_int_eq(sbx_testing_capture_read(fd, &c.text), 0);
	close(fd);
	return c;
}

static int kernel_abi(void)
{
	int abi = 0;

	ck_assert_int_eq(sbx_testing_landlock_abi(&abi), 0);
	return abi;
}

/* ---- the guard: only in a copy forked for one test ----------------------- */

START_TEST(test_guard_not_forked)
{
	char *argv[] = { GUARD, "direct", NULL };
	char *out;
	int status;

	/* The helper is started, not forked: its parent runs this program. */
	ck_assert_int_eq(sbx_testing_run(argv, &status, &out), 0);
	sbx_ck_assert_exit(status, 0);
	ck_assert_msg(strstr(out, "hide=10 refuse=10 e2big=10 drop=10\n") != NULL,
	              "each provocation refuses with ECHILD: %s", out);
	/* and changed nothing: it asks the kernel, and is answered. */
	ck_assert_msg(strstr(out, "unchanged=1\n") != NULL, "%s", out);
	free(out);
}
END_TEST

START_TEST(test_guard_forked)
{
	char *argv[] = { GUARD, "fork", NULL };
	char *out;
	int status;

	/* A copy it forks runs the same program: allowed. */
	ck_assert_int_eq(sbx_testing_run(argv, &status, &out), 0);
	sbx_ck_assert_exit(status, 0);
	ck_assert_msg(strstr(out, "forked hide=0\n") != NULL, "%s", out);
	free(out);
	/* Unless Check is told not to fork: then no test has a copy. */
	ck_assert_int_eq(setenv("CK_FORK", "no", 1), 0);
	ck_assert_int_eq(sbx_testing_run(argv, &status, &out), 0);
	sbx_ck_assert_exit(status, 0);
	ck_assert_msg(strstr(out, "forked hide=10\n") != NULL, "%s", out);
	free(out);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_RESTRICT_SELF, EPERM), ECHILD);
	ck_assert_int_eq(sbx_testing_landlock_hide(ENOSYS), ECHILD);
	unsetenv("CK_FORK");
}
END_TEST

/* ---- Landlock hidden ----------------------------------------------------- */

static void hidden(int err)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	struct cat c;
	char *argv[] = { "true", NULL };
	pid_t pid;
	int abi;

	tree_make(&t);
	/* Before the first spawn of the process: its probe hears err. */
	ck_assert_int_eq(sbx_testing_landlock_hide(err), 0);
	ck_assert_int_eq(sbx_testing_landlock_abi(&abi), 0);
	ck_assert_int_eq(abi, 0);
	scope_make(&s, &seen, t.other);
	c = cat(&s, t.secret);
	ck_assert_int_eq(c.err, 0);
	ck_assert_int_eq(c.code, 0);
	ck_assert_str_eq(c.text, "the-secret\n"); /* unconfined, for real */
	free(c.text);
	sbx_ck_assert_outcome(SBX_OUTCOME_UNCONFINED);
	sbx_ck_assert_stage(SBX_STAGE_NONE, 0);
	ck_assert_int_eq(seen.count[SBX_EVENT_UNCONFINED], 1);
	ck_assert_int_eq(seen.error[SBX_EVENT_UNCONFINED], err);
	/* Failing closed instead: ENOTSUP, and no child. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_REQUIRE), 0);
	ck_assert_int_eq(sbx_posix_spawnp(&pid, "true", NULL, NULL, &s, argv, environ), ENOTSUP);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}

START_TEST(test_hide_enosys)
{
	hidden(ENOSYS);
}
END_TEST

START_TEST(test_hide_eopnotsupp)
{
	hidden(EOPNOTSUPP);
}
END_TEST

START_TEST(test_hide_too_late)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	struct cat c;

	sbx_ck_require_landlock();
	tree_make(&t);
	scope_make(&s, &seen, t.other);
	c = cat(&s, t.secret); /* the library asks for the ABI, once */
	ck_assert_int_eq(c.code, 1);
	free(c.text);
	ck_assert_int_eq(sbx_testing_landlock_hide(ENOSYS), EALREADY);
	/* Refused without acting: Landlock answers, and still confines. */
	ck_assert_int_gt(kernel_abi(), 0);
	c = cat(&s, t.secret);
	ck_assert_int_eq(c.code, 1);
	ck_assert_ptr_null(strstr(c.text, "the-secret"));
	free(c.text);
	assert_confined_beneath(t.top);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_hide_invalid)
{
	ck_assert_int_eq(sbx_testing_landlock_hide(EPERM), EINVAL);
	ck_assert_int_eq(sbx_testing_landlock_hide(0), EINVAL);
	/* errno is left alone, a failure included. */
	errno = 1234;
	ck_assert_int_eq(sbx_testing_landlock_hide(-1), EINVAL);
	ck_assert_int_eq(errno, 1234);
}
END_TEST

/* ---- Landlock refusing, step by step ------------------------------------- */

/* cat of the secret, refused: the child's line names the call and why. */
static void assert_refused(const struct tree *t, const char *call, int err, const char *reason)
{
	struct seen seen;
	sbx_scopeattr_t s;
	sbx_testing_refusal_t r;
	struct cat c;

	scope_make(&s, &seen, t->other);
	c = cat(&s, t->secret);
	ck_assert_int_eq(c.err, SBX_EREFUSED);
	sbx_ck_assert_refusal(c.text, "cat");
	ck_assert_int_eq(sbx_testing_refusal_find(c.text, &r), 0);
	ck_assert_str_eq(r.what, "Landlock refused the ruleset");
	ck_assert_str_eq(r.call, call);
	ck_assert_str_eq(r.reason, reason);
	ck_assert_ptr_null(strstr(c.text, "the-secret"));
	free(c.text);
	sbx_ck_assert_outcome(SBX_OUTCOME_REFUSED);
	sbx_ck_assert_stage(SBX_STAGE_CONFINE, err);
	ck_assert_int_eq(seen.count[SBX_EVENT_REFUSED], 1);
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1); /* the library reaped it */
	sbx_scopeattr_destroy(&s);
}

START_TEST(test_refuse_create_first)
{
	struct tree t;

	/* No Landlock needed: the probe itself is refused, and a refusal is
	 * never taken for an absence. */
	tree_make(&t);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_CREATE_RULESET, EPERM), 0);
	assert_refused(&t, "landlock_create_ruleset(VERSION)", EPERM,
	               "not permitted (no_new_privs could not be set, or a filter forbids Landlock)");
	tree_free(&t);
}
END_TEST

START_TEST(test_refuse_create_after_probe)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	struct cat c;

	sbx_ck_require_landlock();
	tree_make(&t);
	scope_make(&s, &seen, t.third);
	c = cat(&s, t.secret); /* probed and cached */
	ck_assert_int_eq(c.code, 0);
	free(c.text);
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_CREATE_RULESET, E2BIG), 0);
	assert_refused(&t, "landlock_create_ruleset", E2BIG,
	               "the ruleset's attributes are larger than this kernel knows");
	tree_free(&t);
}
END_TEST

START_TEST(test_refuse_add_rule)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	sbx_outcome_t o;
	struct cat c;

	sbx_ck_require_landlock();
	tree_make(&t);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_ADD_RULE, EPERM), 0);
	scope_make(&s, &seen, t.other);
	/* By the library's model a refused rule is a dropped grant: every
	 * grant is dropped, the empty ruleset is applied, and the program
	 * itself is out of reach. */
	c = cat(&s, t.mine_file);
	ck_assert_int_eq(c.err, EACCES);
	free(c.text);
	sbx_ck_assert_outcome(SBX_OUTCOME_NARROWED);
	sbx_ck_assert_stage(SBX_STAGE_EXEC, EACCES);
	/* The entries beside the denial, and those beside its ancestors. */
	sbx_ck_assert_dropped(t.mine);
	sbx_ck_assert_dropped(t.third);
	sbx_ck_assert_dropped("/usr");
	ck_assert_int_eq(sbx_outcome_get(&o), 0);
	ck_assert_uint_eq(o.rules, 0);
	ck_assert_uint_gt(o.dropped, 1);
	ck_assert_int_eq(seen.count[SBX_EVENT_DROPPED], (int)o.dropped);
	ck_assert_int_eq(seen.error[SBX_EVENT_DROPPED], EPERM);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_refuse_restrict_self_eperm)
{
	struct tree t;

	sbx_ck_require_landlock();
	tree_make(&t);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_RESTRICT_SELF, EPERM), 0);
	assert_refused(&t, "landlock_restrict_self", EPERM,
	               "not permitted (no_new_privs could not be set, or a filter forbids Landlock)");
	tree_free(&t);
}
END_TEST

START_TEST(test_refuse_restrict_self_e2big)
{
	struct tree t;
	char *out;
	int status;

	sbx_ck_require_landlock();
	tree_make(&t);
	/* The kernel's own limit, reached: sixteen domains stacked here. */
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_RESTRICT_SELF, E2BIG), 0);
	assert_refused(&t, "landlock_restrict_self", E2BIG,
	               "16 Landlock domains are already stacked on this process");
	/* The domains restrict nothing ... */
	{
		char *argv[] = { "cat", t.secret, NULL };

		ck_assert_int_eq(sbx_testing_run(argv, &status, &out), 0);
		sbx_ck_assert_exit(status, 0);
		ck_assert_str_eq(out, "the-secret\n");
		free(out);
	}
	/* ... and are inherited: a launcher started now is refused too, and
	 * exits 125, which is not 127. */
	{
		char *argv[] = { SBXRUN, "--deny", t.other, "--", "true", NULL };

		ck_assert_int_eq(sbx_testing_run(argv, &status, &out), 0);
		sbx_ck_assert_exit(status, SBX_EXIT_REFUSED);
		ck_assert_msg(strstr(out, "not run: Landlock refused the ruleset") != NULL, "%s", out);
		free(out);
	}
	tree_free(&t);
}
END_TEST

START_TEST(test_refuse_invalid)
{
	ck_assert_int_eq(sbx_testing_landlock_refuse(0, EPERM), EINVAL);
	ck_assert_int_eq(sbx_testing_landlock_refuse(4, EPERM), EINVAL);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_ADD_RULE, 0), EINVAL);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_ADD_RULE, 4096), EINVAL);
	/* That is an absent Landlock, not a refusing one. */
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_CREATE_RULESET, ENOSYS), EINVAL);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_CREATE_RULESET, EOPNOTSUPP), EINVAL);
}
END_TEST

START_TEST(test_refuse_without_landlock)
{
	/* Nothing applies a ruleset where the kernel has none: nothing to
	 * refuse, and the call says so rather than pretend. */
	ck_assert_int_eq(sbx_testing_landlock_hide(ENOSYS), 0);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_RESTRICT_SELF, EPERM), ENOTSUP);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_RESTRICT_SELF, E2BIG), ENOTSUP);
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_ADD_RULE, EPERM), ENOTSUP);
	ck_assert_int_eq(sbx_testing_grant_drop("/usr", EPERM), ENOTSUP);
}
END_TEST

/* ---- a grant dropped, by name -------------------------------------------- */

START_TEST(test_drop_configured_path)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	struct cat c;

	sbx_ck_require_landlock();
	tree_make(&t);
	/* Everything under projects denied but mine, re-admitted: mine is a
	 * configured path with a grant of its own, and that is dropped. */
	scope_make(&s, &seen, t.projects);
	seen.beneath = t.top;
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, t.mine), 0);
	ck_assert_int_eq(sbx_testing_grant_drop(t.mine, EPERM), 0);
	c = cat(&s, t.mine_file);
	ck_assert_int_eq(c.err, 0);
	ck_assert_int_eq(c.code, 1); /* narrower, never wider */
	ck_assert_ptr_nonnull(strstr(c.text, "Permission denied"));
	free(c.text);
	sbx_ck_assert_outcome(SBX_OUTCOME_NARROWED);
	sbx_ck_assert_dropped(t.mine);
	ck_assert_int_eq(seen.count[SBX_EVENT_DROPPED], 1);
	ck_assert_str_eq(seen.path[SBX_EVENT_DROPPED], t.mine);
	ck_assert_int_eq(seen.error[SBX_EVENT_DROPPED], EPERM);
	/* The rest of the ruleset stands. */
	c = cat(&s, "/etc/hostname");
	ck_assert_int_eq(c.code, 0);
	free(c.text);
	sbx_ck_assert_dropped(t.mine);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_drop_entries)
{
	struct tree t;
	struct seen seen;
	sbx_scopeattr_t s;
	struct cat c;
	char absent[4096];

	sbx_ck_require_landlock();
	tree_make(&t);
	/* A relative name is the same file. */
	ck_assert_int_eq(chdir(t.projects), 0);
	ck_assert_int_eq(sbx_testing_grant_drop("third", EACCES), 0);
	ck_assert_int_eq(chdir("/"), 0);
	ck_assert_int_eq(sbx_testing_grant_drop(t.mine_file, EINVAL), 0);
	/* Beside a denial: projects is listed, third is an entry of it. */
	scope_make(&s, &seen, t.other);
	seen.beneath = t.top;
	c = cat(&s, t.third_file);
	ck_assert_int_eq(c.code, 1);
	free(c.text);
	sbx_ck_assert_outcome(SBX_OUTCOME_NARROWED);
	sbx_ck_assert_dropped(t.third);
	ck_assert_int_eq(seen.error[SBX_EVENT_DROPPED], EACCES);
	/* mine/file has no rule of its own here (mine is granted whole):
	 * nothing of it to drop. */
	ck_assert_uint_eq(dropped_beneath(t.top), 1);
	c = cat(&s, t.mine_file);
	ck_assert_int_eq(c.code, 0);
	free(c.text);
	sbx_scopeattr_destroy(&s);
	/* With mine listed too, its file has a rule, and loses it. */
	snprintf(absent, sizeof(absent), "%s/absent", t.mine);
	scope_make(&s, &seen, t.other);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, absent), 0);
	c = cat(&s, t.mine_file);
	ck_assert_int_eq(c.code, 1);
	free(c.text);
	sbx_ck_assert_dropped(t.mine_file);
	sbx_ck_assert_dropped(t.third);
	ck_assert_uint_eq(dropped_beneath(t.top), 2);
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

START_TEST(test_drop_in_children)
{
	struct tree t;
	char *argv[] = { SBXRUN, "--expand", "--deny", NULL, "--", "cat", NULL, NULL };
	char *out;
	int status;

	sbx_ck_require_landlock();
	tree_make(&t);
	argv[3] = t.other;
	argv[6] = t.third_file;
	ck_assert_int_eq(sbx_testing_grant_drop(t.third, EPERM), 0);
	/* A program started afterwards compiles its own scope: the same
	 * filter, answered by this process. */
	ck_assert_int_eq(sbx_testing_run(argv, &status, &out), 0);
	sbx_ck_assert_exit(status, 1);
	ck_assert_msg(strstr(out, "stays unreachable") && strstr(out, t.third) &&
	                  strstr(out, "Permission denied"),
	              "%s", out);
	free(out);
	tree_free(&t);
}
END_TEST

START_TEST(test_drop_invalid)
{
	ck_assert_int_eq(sbx_testing_grant_drop(NULL, EPERM), EINVAL);
	ck_assert_int_eq(sbx_testing_grant_drop("/", 0), EINVAL);
	ck_assert_int_eq(sbx_testing_grant_drop("/", 4096), EINVAL);
	ck_assert_int_eq(sbx_testing_grant_drop("/nonexistent/sbx-testing", EPERM), ENOENT);
}
END_TEST

/* ---- reading what a spawn left ------------------------------------------- */

START_TEST(test_capture)
{
	char *text;
	int fd;

	ck_assert_int_eq(sbx_testing_capture_open(&fd), 0);
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	ck_assert_int_eq(sbx_testing_capture_read(fd, &text), 0);
	ck_assert_str_eq(text, "");
	free(text);
	/* Everything from the start, wherever the writers left the offset,
	 * and more than one buffer of it. */
	for (int i = 0; i < 1000; i++)
		ck_assert_int_eq(write(fd, "0123456789", 10), 10);
	ck_assert_int_eq(sbx_testing_capture_read(fd, &text), 0);
	ck_assert_uint_eq(strlen(text), 10000);
	ck_assert_int_eq(strncmp(text + 9990, "0123456789", 10), 0);
	free(text);
	close(fd);
	ck_assert_int_eq(sbx_testing_capture_read(fd, &text), EBADF);
	ck_assert_int_eq(sbx_testing_capture_open(NULL), EINVAL);
}
END_TEST

START_TEST(test_run)
{
	char *exit3[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	char *killed[] = { "sh", "-c", "kill -9 $$", NULL };
	/* By path: a search of PATH says EACCES where a directory of it
	 * cannot be searched. */
	char *missing[] = { "/nonexistent/sbx-testing-program", NULL };
	char *out;
	int status;

	ck_assert_int_eq(sbx_testing_run(exit3, &status, &out), 0);
	sbx_ck_assert_exit(status, 3);
	ck_assert_str_eq(out, "out\nerr\n");
	free(out);
	ck_assert_int_eq(sbx_testing_run(killed, &status, NULL), 0);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == 9);
	ck_assert_str_eq(sbx_testing_status_name(status), "killed by signal 9 (Killed)");
	ck_assert_int_eq(sbx_testing_run(missing, &status, &out), ENOENT);
	ck_assert_int_eq(sbx_testing_run(NULL, &status, &out), EINVAL);
	/* Running the program under test leaves the thread's outcome alone. */
	sbx_ck_assert_outcome(SBX_OUTCOME_NONE);
}
END_TEST

START_TEST(test_refusal_find)
{
	const char *one = "cat: starting\n"
	                  "sbxspawn: /bin/cat: not run: Landlock refused the ruleset: "
	                  "landlock_restrict_self: not permitted (no_new_privs could not be set, "
	                  "or a filter forbids Landlock)\n";
	sbx_testing_refusal_t r;

	ck_assert_int_eq(sbx_testing_refusal_find(one, &r), 0);
	ck_assert_uint_eq(r.lines, 1);
	ck_assert_str_eq(r.program, "/bin/cat");
	ck_assert_str_eq(r.what, "Landlock refused the ruleset");
	ck_assert_str_eq(r.call, "landlock_restrict_self");
	ck_assert_str_eq(r.reason,
	                 "not permitted (no_new_privs could not be set, or a filter forbids Landlock)");
	/* Without its newline, and twice. */
	ck_assert_int_eq(sbx_testing_refusal_find("sbxspawn: a b: not run: Landlock refused the "
	                                          "ruleset: landlock_create_ruleset(VERSION): "
	                                          "error 77\nsbxspawn: x: not run: Landlock "
	                                          "refused the ruleset: y: z",
	                                          &r),
	                 0);
	ck_assert_uint_eq(r.lines, 2);
	ck_assert_str_eq(r.program, "a b");
	ck_assert_str_eq(r.call, "landlock_create_ruleset(VERSION)");
	ck_assert_str_eq(r.reason, "error 77");
	/* The other refusal the child words so. */
	ck_assert_int_eq(sbx_testing_refusal_find("sbxspawn: sh: not run: its confinement could not be "
	                                          "applied: setgroups: not permitted\n",
	                                          &r),
	                 0);
	ck_assert_str_eq(r.what, "its confinement could not be applied");
	ck_assert_str_eq(r.call, "setgroups");
	ck_assert_str_eq(r.reason, "not permitted");
	/* The parent's event about a refusal is no refusal line. */
	ck_assert_int_eq(sbx_testing_refusal_find("sbxspawn: true: not run: Landlock refused the "
	                                          "ruleset (Operation not permitted)\n",
	                                          &r),
	                 ENOENT);
	/* Only at the start of a line; none is ENOENT. */
	ck_assert_int_eq(sbx_testing_refusal_find("said: sbxspawn: x: not run: Landlock refused the "
	                                          "ruleset: y: z\n",
	                                          &r),
	                 ENOENT);
	ck_assert_uint_eq(r.lines, 0);
	ck_assert_int_eq(sbx_testing_refusal_find("", &r), ENOENT);
	ck_assert_int_eq(sbx_testing_refusal_find(NULL, &r), EINVAL);
}
END_TEST

/* Every kind of refusal, for real, read by the same reader: the child's
 * line, said once (the default logger leaves the parent's event to loggers
 * that keep data). */
START_TEST(test_refusal_kinds)
{
	char *argv[] = { "cat", "/etc/hostname", NULL };
	struct tree t;
	sbx_testing_refusal_t r;
	sbx_file_actions_t fa;
	sbx_scopeattr_t s;
	char *text;
	int fd, saved;
	pid_t pid;

	if (kernel_abi() < 4) {
		fprintf(stderr, "SKIP %s: needs Landlock ABI 4 (it caps below it)\n", __func__);
		return;
	}
	/* A control asked for strictly that the ABI the scope is capped at
	 * cannot enforce; the default logger writes on the same file. */
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_NO_TCP_CONNECT | SBX_SCOPE_STRICT), 0);
	ck_assert_int_eq(sbx_scopeattr_setabi(&s, 3), 0);
	ck_assert_int_eq(sbx_testing_capture_open(&fd), 0);
	ck_assert_int_ge(saved = dup(2), 0);
	ck_assert_int_eq(dup2(fd, 2), 2);
	ck_assert_int_eq(sbx_file_actions_init(&fa), 0);
	ck_assert_int_eq(sbx_file_actions_adddup2(&fa, fd, 1), 0);
	ck_assert_int_eq(sbx_file_actions_adddup2(&fa, fd, 2), 0);
	ck_assert_int_eq(sbx_posix_spawnp(&pid, "cat", &fa, NULL, &s, argv, environ), SBX_EREFUSED);
	ck_assert_int_eq(dup2(saved, 2), 2);
	close(saved);
	sbx_file_actions_destroy(&fa);
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(sbx_testing_capture_read(fd, &text), 0);
	close(fd);
	ck_assert_msg(strstr(text, "(tcp_connect: needs Landlock ABI 4)") == NULL,
	              "the parent's event, said a second time: %s", text);
	sbx_ck_assert_refusal(text, "cat");
	ck_assert_int_eq(sbx_testing_refusal_find(text, &r), 0);
	ck_assert_str_eq(r.what, "SBX_SCOPE_STRICT refuses a control not enforced in full");
	ck_assert_str_eq(r.call, "tcp_connect");
	ck_assert_str_eq(r.reason, "needs Landlock ABI 4");
	free(text);

	/* A scope compiled inside a domain that froze what it must list:
	 * sbxrun, which runs no child, writes the line itself. */
	tree_make(&t);
	{
		char *nested[] = { SBXRUN, "--quiet", "--expand", "--deny", t.other, "--", SBXRUN,
			           "--deny", t.third, "--", "true", NULL };
		/* sbxrun names its own option. */
		const char *remedy = " (make the enclosing scope listable, with --listable)";
		int status;

		ck_assert_int_eq(sbx_testing_run(nested, &status, &text), 0);
		sbx_ck_assert_exit(status, SBX_EXIT_REFUSED);
		sbx_ck_assert_refusal(text, "true");
		ck_assert_int_eq(sbx_testing_refusal_find(text, &r), 0);
		ck_assert_str_eq(r.what, "the Landlock domain this process runs in forbids listing");
		ck_assert_str_eq(r.call, "open(O_DIRECTORY)");
		ck_assert_msg(r.reason[0] == '/' && strlen(r.reason) > strlen(remedy) &&
		                      !strcmp(r.reason + strlen(r.reason) - strlen(remedy), remedy),
		              "the directory and the remedy: %s", r.reason);
		free(text);
	}
	tree_free(&t);
}
END_TEST

START_TEST(test_dropped_find)
{
	/* Before any spawn, nothing was dropped. */
	ck_assert_int_eq(sbx_testing_dropped_find("/usr"), ENOENT);
	ck_assert_int_eq(sbx_testing_dropped_find(NULL), EINVAL);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(sbx_testing_confinement_name(SBX_OUTCOME_NONE), "SBX_OUTCOME_NONE");
	ck_assert_str_eq(sbx_testing_confinement_name(SBX_OUTCOME_REFUSED), "SBX_OUTCOME_REFUSED");
	ck_assert_str_eq(sbx_testing_confinement_name(99), "confinement 99 (unknown)");
	ck_assert_str_eq(sbx_testing_stage_name(SBX_STAGE_FILE_ACTION), "SBX_STAGE_FILE_ACTION");
	ck_assert_str_eq(sbx_testing_stage_name(-1), "stage -1 (unknown)");
	ck_assert_str_eq(sbx_testing_status_name(0), "exit 0");
	ck_assert_str_eq(sbx_testing_status_name(SBX_EXIT_REFUSED << 8),
	                 "exit 125 (SBX_EXIT_REFUSED: not run, the confinement was refused)");
	ck_assert_str_eq(sbx_testing_status_name(126 << 8), "exit 126 (found, but could not be executed)");
	ck_assert_str_eq(sbx_testing_status_name(127 << 8), "exit 127 (not found)");
	ck_assert_str_eq(sbx_testing_status_name(0x137f), "stopped by signal 19 (Stopped (signal))");
	/* Four at a time, in one thread. */
	{
		const char *a = sbx_testing_status_name(1 << 8), *b = sbx_testing_status_name(2 << 8),
		           *c = sbx_testing_status_name(3 << 8), *d = sbx_testing_status_name(4 << 8);

		ck_assert_str_eq(a, "exit 1");
		ck_assert_str_eq(b, "exit 2");
		ck_assert_str_eq(c, "exit 3");
		ck_assert_str_eq(d, "exit 4");
	}
}
END_TEST

START_TEST(test_landlock_abi)
{
	long direct = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	ck_assert_int_eq(kernel_abi(), direct > 0 ? (int)direct : 0);
	ck_assert_int_eq(sbx_testing_landlock_abi(NULL), EINVAL);
	/* A filter that says no hides nothing: the ABI is unknown. */
	ck_assert_int_eq(sbx_testing_landlock_refuse(SBX_TESTING_CREATE_RULESET, EPERM), 0);
	{
		int abi = -1;

		ck_assert_int_eq(sbx_testing_landlock_abi(&abi), EPERM);
		ck_assert_int_eq(abi, -1);
	}
}
END_TEST

/* ---- the assertions ------------------------------------------------------ */

START_TEST(test_asserts_hold)
{
	sbx_testing_refusal_t r;

	/* Each holds where it should (the failing side: test_asserts_fail). */
	sbx_ck_assert_outcome(SBX_OUTCOME_NONE);
	sbx_ck_assert_stage(SBX_STAGE_NONE, 0);
	sbx_ck_assert_exit(SBX_EXIT_REFUSED << 8, SBX_EXIT_REFUSED);
	sbx_ck_assert_refusal("sbxspawn: true: not run: Landlock refused the ruleset: a: b\n", "true");
	ck_assert_int_eq(sbx_testing_refusal_find("x\n", &r), ENOENT);
}
END_TEST

START_TEST(test_asserts_fail)
{
	/* strerror(0): "Success" in glibc, "No error information" in musl. */
	char stage_said[256];
	const char *const said[] = {
		"the last spawn was SBX_OUTCOME_NONE, not SBX_OUTCOME_REFUSED",
		stage_said,
		"/sbx-testing/x is not among the 0 dropped grants of the last spawn",
		"exit 127 (not found), not exit 125 (SBX_EXIT_REFUSED: not run, the confinement was "
		"refused)",
		"killed by signal 9 (Killed), not exit 0",
		"no refusal line in \"cat: x: No such file or directory\n\"",
		"2 refusal lines in \"sbxspawn: a: not run: Landlock refused the ruleset: c: d\n"
		"sbxspawn: a: not run: Landlock refused the ruleset: c: d\n\"",
		"the refusal names /bin/true, not true",
	};
	char *argv[] = { ASSERTS, NULL };
	char *out;
	int status;

	snprintf(stage_said, sizeof(stage_said), "the last spawn stopped at SBX_STAGE_NONE with "
	         "error 0 (%s), not at SBX_STAGE_EXEC with error 2", strerror(0));
	/* A Check program of failing assertions, run as one. */
	ck_assert_int_eq(sbx_testing_run(argv, &status, &out), 0);
	sbx_ck_assert_exit(status, 0);
	ck_assert_msg(strstr(out, "0%: Checks: 8, Failures: 8, Errors: 0") != NULL, "%s", out);
	for (size_t i = 0; i < sizeof(said) / sizeof(said[0]); i++)
		ck_assert_msg(strstr(out, said[i]) != NULL, "missing \"%s\" in:\n%s", said[i], out);
	free(out);
}
END_TEST

/* Why a test cannot run under a user-mode emulator (qemu-user), or NULL:
 * the library provokes its outcomes with seccomp filters, which the
 * emulator refuses, and runs a program with the C library's posix_spawn,
 * which cannot tell a failed child there. */
static const char *under_emulator(const char *tcase, const TTest *test)
{
	if (!strcmp(tcase, "guard") || !strcmp(tcase, "hide") || !strcmp(tcase, "refuse") ||
	    !strcmp(tcase, "drop") || test == test_landlock_abi)
		return "libsbxspawn-testing provokes outcomes with seccomp filters, which the "
		       "emulator (qemu-user) refuses";
	if (test == test_run)
		return "sbx_testing_run uses the C library's posix_spawn, which cannot tell a "
		       "failed child under the emulator (qemu-user breaks CLONE_VM)";
	return NULL;
}

static Suite *suite_testing(void)
{
	Suite *s = suite_create("testing");
	struct {
		const char *name;
		const TTest *tests[12];
	} cases[] = {
		{ "guard", { test_guard_not_forked, test_guard_forked } },
		{ "hide", { test_hide_enosys, test_hide_eopnotsupp, test_hide_too_late, test_hide_invalid } },
		{ "refuse",
		  { test_refuse_create_first, test_refuse_create_after_probe, test_refuse_add_rule,
		    test_refuse_restrict_self_eperm, test_refuse_restrict_self_e2big, test_refuse_invalid,
		    test_refuse_without_landlock } },
		{ "drop", { test_drop_configured_path, test_drop_entries, test_drop_in_children,
		            test_drop_invalid } },
		{ "report", { test_capture, test_run, test_refusal_find, test_refusal_kinds,
		              test_dropped_find, test_names, test_landlock_abi } },
		{ "asserts", { test_asserts_hold, test_asserts_fail } },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		TCase *tc = tcase_create(cases[i].name);

		/* Untimed: a slow machine must not fail a test; tests/watchdog
		 * catches a hang around the whole program. */
		tcase_set_timeout(tc, 0);
		for (size_t j = 0; j < 12 && cases[i].tests[j]; j++) {
			const char *why = emulated() ? under_emulator(cases[i].name, cases[i].tests[j])
			                             : NULL;

			if (why)
				printf("SKIP %s: %s\n", cases[i].tests[j]->name, why);
			else
				tcase_add_test(tc, cases[i].tests[j]);
		}
		suite_add_tcase(s, tc);
	}
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite_testing());
	int failed, abi = 0;

	/* Asked directly: the library's own probe must wait for each test. */
	if (sbx_testing_landlock_abi(&abi) == 0 && abi > 0)
		printf("Landlock: ABI %d, enforcing\n", abi);
	else
		printf("Landlock: absent; every test that needs it prints SKIP\n");
	setvbuf(stdout, NULL, _IOLBF, 0); /* as tests/runner.c */
	srunner_run_all(sr, CK_VERBOSE);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

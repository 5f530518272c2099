/* SPDX-License-Identifier: MIT */
/* What a program's migration is made of, beside the calls: the scope read
 * from the environment convention (sbx_scopeattr_readenv), whether a scope
 * asks anything (sbx_scopeattr_isempty), the variables taken away for a
 * nested run (sbx_env_unset), and every error number in words. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"

static struct tree t;

/* The last SBX_EVENT_ENV, and how many events came. */
static struct {
	int count, env, error;
	char name[256], item[4096];
} seen;

static void logger(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	seen.count++;
	if (ev->kind != SBX_EVENT_ENV)
		return;
	seen.env++;
	seen.error = ev->error;
	snprintf(seen.name, sizeof(seen.name), "%s", ev->path ? ev->path : "");
	snprintf(seen.item, sizeof(seen.item), "%s", ev->path2 ? ev->path2 : "");
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

static int empty(const sbx_scopeattr_t *s)
{
	int e = -1;

	ck_assert_int_eq(sbx_scopeattr_isempty(s, &e), 0);
	ck_assert(e == 0 || e == 1);
	return e;
}

static char *var(const char *name, const char *value)
{
	static char ring[16][8192];
	static int next;
	char *b = ring[next++ % 16];

	snprintf(b, sizeof(ring[0]), "%s=%s", name, value);
	return b;
}

/* ---- whether a scope asks anything ----------------------------------- */

START_TEST(test_isempty)
{
	sbx_scopeattr_t s;
	int e;

	scope_new(&s);
	ck_assert_int_eq(empty(&s), 1);
	/* How the rest is applied and said: asks nothing by itself. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_REQUIRE | SBX_SCOPE_STRICT |
	                                                SBX_SCOPE_LISTABLE |
	                                                SBX_SCOPE_DIE_WITH_PARENT), 0);
	ck_assert_int_eq(sbx_scopeattr_setabi(&s, 1), 0);
	ck_assert_int_eq(sbx_scopeattr_setevents(&s, 0), 0);
	ck_assert_int_eq(empty(&s), 1);
	/* An empty list adds nothing. */
	ck_assert_int_eq(sbx_scopeattr_addlist(&s, SBX_DENY, "::"), 0);
	ck_assert_int_eq(empty(&s), 1);
	/* Each thing a child is asked. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_NO_SIGNAL), 0);
	ck_assert_int_eq(empty(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_DROP_CAPS), 0);
	ck_assert_int_eq(empty(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, 0), 0);
	ck_assert_int_eq(sbx_scopeattr_setids(&s, 65534, 65534), 0);
	ck_assert_int_eq(empty(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_setids(&s, (uid_t)-1, (gid_t)-1), 0);
	ck_assert_int_eq(empty(&s), 1);
	ck_assert_int_eq(sbx_scopeattr_settmpdir(&s, t.mine), 0);
	ck_assert_int_eq(empty(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_settmpdir(&s, NULL), 0);
	ck_assert_int_eq(empty(&s), 1);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, t.mine), 0);
	ck_assert_int_eq(empty(&s), 0);
	sbx_scopeattr_destroy(&s);
	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_allowtcp(&s, SBX_TCP_CONNECT, 443), 0);
	ck_assert_int_eq(empty(&s), 0);
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(sbx_scopeattr_isempty(&s, &e), EINVAL); /* destroyed */
}
END_TEST

/* ---- the environment convention ---------------------------------------- */

/* The three lists, in a program's own environment array: each applied as
 * its mode, empty items skipped; the child is confined by them. */
START_TEST(test_readenv_lists)
{
	sbx_scopeattr_t s;
	char *env[] = { var("T_SBX_DENY", ":"), var("T_SBX_READONLY", t.mine),
		        var("T_SBX_ALLOW", ""), "PATH=/usr/bin:/bin", NULL, NULL };
	char *read_secret[] = { FSOP, "read", t.secret, NULL };
	char *write_mine[] = { FSOP, "create", (char *)join(t.mine, "new"), NULL };
	char deny[8192];
	int configured = -1;

	snprintf(deny, sizeof(deny), "::%s:", t.other);
	env[0] = var("T_SBX_DENY", deny);
	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "T_SBX", env, &configured), 0);
	ck_assert_int_eq(configured, 1);
	ck_assert_int_eq(empty(&s), 0);
	ck_assert_int_eq(seen.count, 0);
	if (landlock_abi() > 0) {
		ck_assert_int_eq(run_scoped(&s, read_secret, NULL), 1);
		ck_assert_int_ne(run_scoped(&s, write_mine, NULL), 0);
	} else {
		say_skip("SKIP test_readenv_lists (the confinement): %s\n", no_landlock_why());
	}
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* Nothing configured: no variable, empty values, empty lists; switches
 * alone configure no path.  `configured' then says to pass NULL. */
START_TEST(test_readenv_nothing)
{
	sbx_scopeattr_t s;
	char *none[] = { "PATH=/usr/bin:/bin", NULL };
	char *blank[] = { "T_SBX_DENY=::", "T_SBX_ALLOW=", "T_SBX_READONLY=:", "T_SBX_TMPDIR=",
		          "T_SBX_LISTABLE=1", NULL };
	int configured = -1, flags = -1;

	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "T_SBX", none, &configured), 0);
	ck_assert_int_eq(configured, 0);
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "T_SBX", blank, &configured), 0);
	ck_assert_int_eq(configured, 0);
	ck_assert_int_eq(empty(&s), 1);
	ck_assert_int_eq(sbx_scopeattr_getflags(&s, &flags), 0);
	ck_assert_int_eq(flags, SBX_SCOPE_LISTABLE);
	/* configured may be NULL. */
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "T_SBX", none, NULL), 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A switch is on when set to anything but "" or "0"; switches are added to
 * the flags the scope has; QUIET leaves only what stops a command. */
START_TEST(test_readenv_switches)
{
	static const struct {
		const char *value;
		int on;
	} values[] = { { "1", 1 }, { "yes", 1 }, { "00", 1 }, { "0", 0 }, { "", 0 } };
	sbx_scopeattr_t s;
	int flags;
	unsigned mask;

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		char *env[] = { var("T_SBX_LISTABLE", values[i].value),
			        var("T_SBX_REQUIRE", values[i].value),
			        var("T_SBX_STRICT", values[i].value), var("T_SBX_QUIET", values[i].value),
			        NULL };

		scope_new(&s);
		ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_NO_IO_URING), 0);
		ck_assert_int_eq(sbx_scopeattr_readenv(&s, "T_SBX", env, NULL), 0);
		ck_assert_int_eq(sbx_scopeattr_getflags(&s, &flags), 0);
		ck_assert_int_eq(sbx_scopeattr_getevents(&s, &mask), 0);
		ck_assert_msg(flags == (SBX_SCOPE_NO_IO_URING |
		                        (values[i].on ? SBX_SCOPE_LISTABLE | SBX_SCOPE_REQUIRE |
		                                                SBX_SCOPE_STRICT
		                                      : 0)),
		              "value \"%s\": flags %#x", values[i].value, (unsigned)flags);
		ck_assert_msg(mask == (values[i].on ? SBX_EVENTS_QUIET : SBX_EVENTS_ALL),
		              "value \"%s\": events %#x", values[i].value, mask);
		sbx_scopeattr_destroy(&s);
	}
	/* Narrowed, never widened: a mask the program chose keeps out what it
	 * kept out. */
	char *quiet[] = { "T_SBX_QUIET=1", NULL };

	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_setevents(&s, SBX_EVENT_BIT(SBX_EVENT_REFUSED)), 0);
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "T_SBX", quiet, NULL), 0);
	ck_assert_int_eq(sbx_scopeattr_getevents(&s, &mask), 0);
	ck_assert_uint_eq(mask, SBX_EVENT_BIT(SBX_EVENT_REFUSED));
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A variable that cannot be applied: the error, an SBX_EVENT_ENV naming the
 * variable and the item, and the scope as it was (the lists read before
 * it taken back, no switch applied). */
START_TEST(test_readenv_error_names_variable)
{
	sbx_scopeattr_t s;
	char *long_item = malloc(5000), list[8192];
	int configured = 7, flags = -1;
	unsigned mask;

	ck_assert_ptr_nonnull(long_item);
	memset(long_item, 'x', 4999);
	long_item[0] = '/';
	long_item[4999] = '\0';
	snprintf(list, sizeof(list), "%s:%s", t.third, long_item);
	char *bad_list[] = { var("T_SBX_DENY", t.other), var("T_SBX_READONLY", list),
		             "T_SBX_LISTABLE=1", "T_SBX_QUIET=1", NULL };
	char *bad_tmpdir[] = { var("T_SBX_DENY", t.other),
		               var("T_SBX_TMPDIR", join(t.projects, "none")), NULL };

	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "T_SBX", bad_list, &configured), ENAMETOOLONG);
	ck_assert_int_eq(configured, 7); /* untouched on error */
	ck_assert_int_eq(seen.env, 1);
	ck_assert_int_eq(seen.error, ENAMETOOLONG);
	ck_assert_str_eq(seen.name, "T_SBX_READONLY");
	ck_assert_int_eq(strncmp(seen.item, "/xxx", 4), 0);
	ck_assert_int_eq(empty(&s), 1);
	ck_assert_int_eq(sbx_scopeattr_getflags(&s, &flags), 0);
	ck_assert_int_eq(flags, 0);
	ck_assert_int_eq(sbx_scopeattr_getevents(&s, &mask), 0);
	ck_assert_uint_eq(mask, SBX_EVENTS_ALL);

	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "T_SBX", bad_tmpdir, &configured), ENOENT);
	ck_assert_int_eq(seen.env, 2);
	ck_assert_str_eq(seen.name, "T_SBX_TMPDIR");
	ck_assert_str_eq(seen.item, join(t.projects, "none"));
	ck_assert_int_eq(empty(&s), 1);
	sbx_scopeattr_destroy(&s);
	free(long_item);
}
END_TEST

/* Only PREFIX_NAME= itself is read, the first of two as getenv takes it;
 * envp NULL is environ; the prefix is checked. */
START_TEST(test_readenv_names)
{
	sbx_scopeattr_t s;
	char *near[] = { var("T_SBXX_DENY", t.other), var("T_SBX_DENYX", t.other),
		         var("T_SB_DENY", t.other), var("T_SBX_deny", t.other), NULL };
	char *twice[] = { var("T_SBX_TMPDIR", t.mine), var("T_SBX_TMPDIR", "/nonexistent"), NULL };
	int configured = -1;

	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "T_SBX", near, &configured), 0);
	ck_assert_int_eq(configured, 0);
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "T_SBX", twice, &configured), 0);
	ck_assert_int_eq(configured, 1);
	sbx_scopeattr_destroy(&s);

	scope_new(&s);
	ck_assert_int_eq(setenv("T_ENVIRON_DENY", t.other, 1), 0);
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "T_ENVIRON", NULL, &configured), 0);
	ck_assert_int_eq(configured, 1);
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, NULL, near, NULL), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "", near, NULL), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "T=SBX", near, NULL), EINVAL);
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "T_SBX", near, NULL), EINVAL); /* destroyed */
}
END_TEST

/* The environment is the caller's: readenv leaves it as it was, and
 * sbx_env_unset takes away the convention's variables and nothing else. */
START_TEST(test_env_unset)
{
	static const char *const names[] = { "DENY",     "ALLOW",   "READONLY", "TMPDIR",
		                             "LISTABLE", "REQUIRE", "STRICT",   "QUIET" };
	sbx_scopeattr_t s;
	char name[64];
	char **before = environ;
	int n = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(name, sizeof(name), "T_NEST_%s", names[i]);
		ck_assert_int_eq(setenv(name, i == 3 ? t.mine : i < 3 ? t.other : "1", 1), 0);
	}
	ck_assert_int_eq(setenv("T_NEST_OTHER", "kept", 1), 0);
	ck_assert_int_eq(setenv("T_NESTX_DENY", "kept", 1), 0);
	before = environ;
	while (environ[n])
		n++;
	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "T_NEST", NULL, NULL), 0);
	ck_assert_ptr_eq(environ, before);
	ck_assert_ptr_null(environ[n]);
	ck_assert_str_eq(getenv("T_NEST_DENY"), t.other);
	sbx_scopeattr_destroy(&s);

	ck_assert_int_eq(sbx_env_unset("T_NEST"), 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(name, sizeof(name), "T_NEST_%s", names[i]);
		ck_assert_msg(!getenv(name), "%s is still set", name);
	}
	ck_assert_str_eq(getenv("T_NEST_OTHER"), "kept");
	ck_assert_str_eq(getenv("T_NESTX_DENY"), "kept");
	ck_assert_int_eq(sbx_env_unset(NULL), EINVAL);
	ck_assert_int_eq(sbx_env_unset(""), EINVAL);
	ck_assert_int_eq(sbx_env_unset("A=B"), EINVAL);
}
END_TEST

/* ---- every error number in words ----------------------------------------- */

/* The whole start in one call: nothing set, no scope; a denial set, a
 * scope that holds and the variables gone for what it runs; a bad value,
 * an error and one line naming the variable; a scope under which nothing
 * could run (required, with no Landlock), an error now. */
START_TEST(test_fromenv)
{
	char *argv[] = { FSOP, "read", t.secret, NULL };
	char text[4096] = "";
	sbx_scopeattr_t s;
	int configured = -1, fd, saved;

	REQUIRE_LANDLOCK();
	/* A bad prefix: an error, and the scope safe to destroy (EINVAL:
	 * nothing was made), whatever it held before. */
	memset(&s, 0xab, sizeof(s));
	ck_assert_int_eq(sbx_scopeattr_fromenv(&s, "A=B", &configured), EINVAL);
	ck_assert_int_eq(configured, 0);
	ck_assert_int_eq(sbx_scopeattr_destroy(&s), EINVAL);
	ck_assert_int_eq(sbx_env_unset("MIG"), 0);
	ck_assert_int_eq(sbx_scopeattr_fromenv(&s, "MIG", &configured), 0);
	ck_assert_int_eq(configured, 0);
	ck_assert_int_eq(sbx_scopeattr_destroy(&s), 0);

	ck_assert_int_eq(setenv("MIG_DENY", t.other, 1), 0);
	ck_assert_int_eq(sbx_scopeattr_fromenv(&s, "MIG", &configured), 0);
	ck_assert_int_eq(configured, 1);
	ck_assert_ptr_null(getenv("MIG_DENY"));
	ck_assert_int_eq(run_scoped(NULL, argv, NULL), 0); /* the control */
	ck_assert_int_eq(run_scoped(&s, argv, NULL), 1);
	ck_assert_int_eq(sbx_scopeattr_destroy(&s), 0);

	ck_assert_int_eq(setenv("MIG_TMPDIR", join(t.top, "not-there"), 1), 0);
	fd = memfd_create("stderr", 0);
	saved = dup(2);
	dup2(fd, 2);
	ck_assert_int_eq(sbx_scopeattr_fromenv(&s, "MIG", &configured), ENOENT);
	dup2(saved, 2);
	ck_assert_int_ge(pread(fd, text, sizeof(text) - 1, 0), 0);
	close(fd);
	ck_assert_int_eq(configured, 0);
	ck_assert_msg(strstr(text, "sbxspawn: MIG_TMPDIR: ") && !strchr(strchr(text, '\n') + 1, '\n'),
	              "%s", text);
	ck_assert_int_eq(unsetenv("MIG_TMPDIR"), 0);
}
END_TEST

/* Required, on a kernel with no Landlock (the test's own filter says
 * ENOSYS before the library first asks): an error at the start. */
START_TEST(test_fromenv_required)
{
	sbx_scopeattr_t s;
	int configured = -1;

	REQUIRE_LANDLOCK();
	seccomp_fail(SYS_landlock_create_ruleset, ENOSYS);
	ck_assert_int_eq(setenv("MIG_DENY", t.other, 1), 0);
	ck_assert_int_eq(setenv("MIG_REQUIRE", "1", 1), 0);
	ck_assert_int_eq(sbx_scopeattr_fromenv(&s, "MIG", &configured), ENOTSUP);
	ck_assert_int_eq(configured, 0);
	ck_assert_str_eq(getenv("MIG_DENY"), t.other); /* kept: nothing ran */
	/* Not required: it runs unconfined, as a spawn would, and says so. */
	ck_assert_int_eq(unsetenv("MIG_REQUIRE"), 0);
	ck_assert_int_eq(sbx_scopeattr_fromenv(&s, "MIG", &configured), 0);
	ck_assert_int_eq(configured, 1);
	ck_assert_int_eq(sbx_scopeattr_destroy(&s), 0);
}
END_TEST

START_TEST(test_strerror_every_value)
{
	for (int e = -3; e < 300; e++) {
		char want[256], got[256];

		snprintf(want, sizeof(want), "%s", strerror(e));
		snprintf(got, sizeof(got), "%s", sbx_strerror(e));
		ck_assert_msg(!strcmp(got, want), "%d: \"%s\", strerror \"%s\"", e, got, want);
	}
	ck_assert_str_eq(sbx_strerror(SBX_EREFUSED),
	                 "the scope's confinement is refused (Landlock refused the ruleset, or a "
	                 "control could not be applied): nothing runs under it");
	/* strerror's text of an unknown number lives until its next call. */
	char want[256];

	snprintf(want, sizeof(want), "%s", strerror(SBX_EREFUSED + 1));
	ck_assert_str_eq(sbx_strerror(SBX_EREFUSED + 1), want);
}
END_TEST

Suite *suite_migrate(void)
{
	Suite *s = suite_create("migrate");
	TCase *tc = tcase_create("environment");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_isempty);
	tcase_add_test(tc, test_readenv_lists);
	tcase_add_test(tc, test_readenv_nothing);
	tcase_add_test(tc, test_readenv_switches);
	tcase_add_test(tc, test_readenv_error_names_variable);
	tcase_add_test(tc, test_readenv_names);
	tcase_add_test(tc, test_env_unset);
	tcase_add_test(tc, test_fromenv);
	tcase_add_test(tc, test_fromenv_required);
	tcase_add_test(tc, test_strerror_every_value);
	suite_add_tcase(s, tc);
	return s;
}

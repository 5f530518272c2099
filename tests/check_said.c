/* SPDX-License-Identifier: MIT */
/* What the library says on its own, through the default logger, and in
 * which words: only what a user must act on, once.  The directories where
 * users are hit (the temporary one, the working one, the home directory),
 * and what the caller typed, named as typed: check_said_places.c. */
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

#include "tests/said.h"

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
	heard.forward = true;
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, said_t.other), 0);
	catch_stderr();
	ck_assert_int_eq(spawn_wait(&s, ARGV("/bin/true")), 0);
	text = said();
	ck_assert_int_eq(heard.count[SBX_EVENT_PRIVILEGED], 1);
	ck_assert_msg(!strstr(text, "root"), "the default logger printed: %s", text);
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(run_scoped(NULL, ARGV(SBXRUN, "--deny", said_t.other, "/bin/true"), &out), 0);
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
		ck_assert_msg(!heard.count[k], "event %d for an empty scope: %s", k, heard.text[k]);
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
	snprintf(bin, sizeof(bin), "%s/bin", said_t.top);
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
	heard.forward = true;
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_EXPAND), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, prog), 0);
	catch_stderr();
	ck_assert_int_eq(spawn_wait(&s, ARGV("/bin/true")), 0);
	text = said();
	/* Each to a logger: 3 other names and their line, 12 drops and theirs. */
	ck_assert_int_eq(heard.count[SBX_EVENT_ALIAS], 4);
	ck_assert_int_eq(heard.count[SBX_EVENT_DROPPED], 13);
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
	heard.forward = true;
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, said_t.other), 0);
	ck_assert_int_eq(sbx_scopeattr_setevents(&s, SBX_EVENTS_ALL &
	                                                 ~SBX_EVENT_BIT(SBX_EVENT_PRIVILEGED) &
	                                                 ~SBX_EVENT_BIT(SBX_EVENT_FROZEN)),
	                 0);
	seccomp_fail(SYS_landlock_restrict_self, EPERM);
	catch_stderr();
	ck_assert_int_eq(spawn_wait(&s, ARGV("/bin/true")), -1000 - SBX_EREFUSED);
	text = said();
	ck_assert_int_eq(heard.count[SBX_EVENT_REFUSED], 1);
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
	said_logger(ev, arg);
}

START_TEST(test_said_vanished_only_when_kept)
{
	char busy[4096];
	const char *text;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	snprintf(busy, sizeof(busy), "%s/busy", said_t.top);
	ck_assert_int_eq(mkdir(busy, 0755), 0);
	for (int snapshot = 0; snapshot < 2; snapshot++) {
		for (int i = 0; i < 40; i++)
			write_file(join(busy, fmt_name(i)), "", 0644);
		memset(&heard, 0, sizeof(heard));
		heard.forward = true;
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
		ck_assert_int_eq(heard.count[SBX_EVENT_VANISHED], 1);
		ck_assert_ptr_nonnull(strstr(heard.text[SBX_EVENT_VANISHED], "30 entries of"));
		if (snapshot) {
			ck_assert_msg(lines_with(text, "30 entries of") == 1, "%s", text);
			ck_assert_ptr_nonnull(strstr(text, "every spawn with this snapshot"));
		} else {
			ck_assert_msg(!text[0], "printed for a spawn's compile: %s", text);
			ck_assert_ptr_nonnull(strstr(heard.text[SBX_EVENT_VANISHED],
			                             "the next spawn lists the directory again"));
		}
		sbx_scopeattr_destroy(&s);
	}
}
END_TEST

Suite *suite_said(void)
{
	Suite *su = suite_create("said");
	TCase *tc = tcase_create("default-logger");

	untimed(tc);
	tcase_add_checked_fixture(tc, said_setup, said_teardown);
	tcase_add_test(tc, test_said_privilege_to_loggers_only);
	tcase_add_test(tc, test_said_nothing_for_empty_scope);
	tcase_add_test(tc, test_said_refusal_once);
	tcase_add_test(tc, test_said_links_in_one_line);
	tcase_add_test(tc, test_said_vanished_only_when_kept);
	said_places_tests(tc);
	suite_add_tcase(su, tc);
	return su;
}

/* SPDX-License-Identifier: MIT */
/* What the library says of the directories where users are hit (the
 * temporary one, the working one, the home directory), and the caller's
 * words, named as typed: the said suite's second half (said.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/said.h"

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
	snprintf(home, sizeof(home), "HOME=%s", said_t.projects);
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", said_t.mine);
	for (int listable = 0; listable < 2; listable++) {
		memset(&heard, 0, sizeof(heard));
		scope_new(&s);
		expand_way(&s);
		ck_assert_int_eq(sbx_scopeattr_setflags(&s, (listable ? SBX_SCOPE_LISTABLE : 0) | SBX_SCOPE_EXPAND), 0);
		ck_assert_int_eq(sbx_scopeattr_adddeny(&s, said_t.other), 0);
		ck_assert_int_eq(spawn_in(&s, said_t.mine, env), 0);
		ck_assert_int_eq(heard.count[SBX_EVENT_FROZEN], 1);
		ck_assert_str_eq(heard.path[SBX_EVENT_FROZEN], said_t.projects);
		ck_assert_str_eq(heard.path2[SBX_EVENT_FROZEN], said_t.other);
		ck_assert_ptr_nonnull(strstr(heard.text[SBX_EVENT_FROZEN], "(HOME) is frozen by the denial"));
		ck_assert_ptr_nonnull(strstr(heard.text[SBX_EVENT_FROZEN], "whatever is re-admitted"));
		ck_assert_ptr_nonnull(strstr(heard.text[SBX_EVENT_FROZEN], "keep what it denies elsewhere, "
		                                                          "or give the command another HOME"));
		ck_assert_msg((strstr(heard.text[SBX_EVENT_FROZEN], "SBX_SCOPE_LISTABLE") != NULL) ==
		              !listable, "%s", heard.text[SBX_EVENT_FROZEN]);
		ck_assert_msg(strlen(heard.text[SBX_EVENT_FROZEN]) < strlen(said_t.projects) +
		                                                     strlen(said_t.other) + 200,
		              "not short: %s", heard.text[SBX_EVENT_FROZEN]);
		/* Once per scope. */
		ck_assert_int_eq(spawn_in(&s, said_t.mine, env), 0);
		ck_assert_int_eq(heard.count[SBX_EVENT_FROZEN], 1);
		sbx_scopeattr_destroy(&s);
	}
	/* Working in it as well: one line, for both. */
	memset(&heard, 0, sizeof(heard));
	scope_new(&s);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, said_t.other), 0);
	ck_assert_int_eq(spawn_in(&s, said_t.projects, env), 0);
	ck_assert_int_eq(heard.count[SBX_EVENT_FROZEN], 1);
	ck_assert_ptr_nonnull(strstr(heard.text[SBX_EVENT_FROZEN], "(the working directory, HOME)"));
	ck_assert_ptr_nonnull(strstr(heard.text[SBX_EVENT_FROZEN], "or run the command elsewhere with "
	                                                          "another HOME"));
	sbx_scopeattr_destroy(&s);
	/* A home directory a scope makes read-only is what it asked for: not
	 * said (a working directory there is: the command writes where it
	 * runs). */
	memset(&heard, 0, sizeof(heard));
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=/usr");
	scope_new(&s);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, said_t.top), 0);
	ck_assert_int_eq(spawn_in(&s, "/usr", env), 0);
	ck_assert_msg(!heard.count[SBX_EVENT_FROZEN], "%s", heard.text[SBX_EVENT_FROZEN]);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A denial that is not there cannot be hidden, and freezes the directory
 * above it: the remedy said is to make it, and it is true (the same scope,
 * kept, hides it at the next spawn, and the home directory takes new
 * files); where denials are expanded, making it helps nothing, and that
 * remedy is not said. */
START_TEST(test_said_absent_denial_made)
{
	char home[4200], tmpdir[4200], absent[4200], file[4200], key[4300], other[4200];
	char *env[] = { home, tmpdir, NULL };
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	sbx_file_actions_t fa;
	bool hides;
	int dirfd;
	pid_t pid;

	REQUIRE_LANDLOCK();
	snprintf(home, sizeof(home), "HOME=%s", said_t.projects);
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", said_t.mine);
	snprintf(absent, sizeof(absent), "%s/.absent-secrets", said_t.projects);
	snprintf(file, sizeof(file), "%s/.made-by-the-command", said_t.projects);
	/* Expanded (asked for, or where no child can hide: made, it would
	 * freeze its directory all the same): the remedy that helps there. */
	hides = can_hide(__func__);
	for (int asked = 0; asked < 2; asked++) {
		if (!asked && hides)
			continue;
		memset(&heard, 0, sizeof(heard));
		scope_new(&s);
		if (asked)
			expand_way(&s);
		ck_assert_int_eq(sbx_scopeattr_adddeny(&s, absent), 0);
		ck_assert_int_eq(spawn_in(&s, said_t.mine, env), 0);
		ck_assert_int_eq(heard.count[SBX_EVENT_FROZEN], 1);
		ck_assert_msg(!strstr(heard.text[SBX_EVENT_FROZEN], "not there") &&
		              strstr(heard.text[SBX_EVENT_FROZEN], "keep what it denies elsewhere"),
		              "%s", heard.text[SBX_EVENT_FROZEN]);
		sbx_scopeattr_destroy(&s);
	}
	if (!hides)
		return;
	/* A spawn that expands every denial for what it inherits (a
	 * directory holding another denial, open past exec): made, this one
	 * would freeze the home all the same there. */
	snprintf(other, sizeof(other), "%s/elsewhere", said_t.other);
	ck_assert_int_eq(mkdir(other, 0700), 0);
	ck_assert_int_ge(dirfd = open(said_t.other, O_RDONLY | O_DIRECTORY), 0);
	memset(&heard, 0, sizeof(heard));
	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, absent), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, other), 0);
	ck_assert_int_eq(spawn_in(&s, said_t.mine, env), 0);
	close(dirfd);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_msg(oc.hidden == 0 && oc.expanded == 2, "hidden %u, expanded %u", oc.hidden,
	              oc.expanded);
	ck_assert_int_eq(heard.count[SBX_EVENT_FROZEN], 1);
	ck_assert_str_eq(heard.path[SBX_EVENT_FROZEN], said_t.projects);
	ck_assert_msg(!strstr(heard.text[SBX_EVENT_FROZEN], "not there"), "%s",
	              heard.text[SBX_EVENT_FROZEN]);
	sbx_scopeattr_destroy(&s);
	/* The same where a file action opens a file of the other denial: the
	 * spawn compiles every denial expanded. */
	snprintf(key, sizeof(key), "%s/file", other);
	write_file(key, "", 0600);
	memset(&heard, 0, sizeof(heard));
	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, absent), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, other), 0);
	sbx_file_actions_init(&fa);
	sbx_file_actions_addchdir(&fa, said_t.mine);
	sbx_file_actions_addopen(&fa, 3, key, O_RDONLY, 0);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", &fa, NULL, &s, ARGV("true"), env), 0);
	ck_assert_int_eq(wait_status(pid), 0);
	sbx_file_actions_destroy(&fa);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_msg(oc.hidden == 0 && oc.expanded == 2, "hidden %u, expanded %u", oc.hidden,
	              oc.expanded);
	ck_assert_int_eq(heard.count[SBX_EVENT_FROZEN], 1);
	ck_assert_msg(!strstr(heard.text[SBX_EVENT_FROZEN], "not there"), "%s",
	              heard.text[SBX_EVENT_FROZEN]);
	sbx_scopeattr_destroy(&s);
	memset(&heard, 0, sizeof(heard));
	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, absent), 0);
	ck_assert_int_eq(spawn_in(&s, said_t.mine, env), 0);
	ck_assert_int_eq(heard.count[SBX_EVENT_FROZEN], 1);
	ck_assert_str_eq(heard.path[SBX_EVENT_FROZEN], said_t.projects);
	ck_assert_msg(strstr(heard.text[SBX_EVENT_FROZEN], "is not there: made (empty, the directory or "
	                                                   "file it will be), it is hidden instead") &&
	              strstr(heard.text[SBX_EVENT_FROZEN], absent),
	              "%s", heard.text[SBX_EVENT_FROZEN]);
	ck_assert_str_eq(fsop_verdict(&s, "create", file, NULL), "EACCES");
	/* Made as the line says: hidden, nothing above it frozen. */
	ck_assert_int_eq(mkdir(absent, 0700), 0);
	snprintf(key, sizeof(key), "%s/key", absent);
	write_file(key, "the-secret", 0600);
	ck_assert_str_eq(fsop_verdict(&s, "create", file, NULL), "ok");
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_msg(oc.hidden == 1 && oc.expanded == 0, "hidden %u, expanded %u", oc.hidden,
	              oc.expanded);
	ck_assert_str_ne(fsop_verdict(&s, "read", key, NULL), "ok");
	sbx_scopeattr_destroy(&s);
	rm_rf(absent);
}
END_TEST

/* The frozen line's remedy for a path that is not there, where making it
 * would not hide it: nowhere said.  A spawn frozen by the path below each
 * time, with hiding available: what makes it expanded all the same. */
static const char *frozen_said(const char *absent, int flags, const char *other, int mode)
{
	char home[4200], tmpdir[4200];
	char *env[] = { home, tmpdir, NULL };
	sbx_scopeattr_t s;

	snprintf(home, sizeof(home), "HOME=%s", said_t.projects);
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", said_t.mine);
	memset(&heard, 0, sizeof(heard));
	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, flags), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, absent), 0);
	if (other)
		ck_assert_int_eq((mode == SBX_ALLOW ? sbx_scopeattr_addallow
		                  : mode == SBX_READONLY ? sbx_scopeattr_addreadonly
		                                         : sbx_scopeattr_adddeny)(&s, other), 0);
	ck_assert_int_eq(spawn_in(&s, said_t.mine, env), 0);
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(heard.count[SBX_EVENT_FROZEN], 1);
	return heard.text[SBX_EVENT_FROZEN];
}

START_TEST(test_said_absent_remedy_only_where_true)
{
	char absent[4200], beneath[4300], linked[4300], alias[4200];
	const char *line;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	snprintf(absent, sizeof(absent), "%s/.absent-secrets", said_t.projects);
	snprintf(beneath, sizeof(beneath), "%s/pub", absent);
	/* The denial logged by the kernel: no denial is hidden. */
	line = frozen_said(absent, SBX_SCOPE_LOG_DENIALS, NULL, 0);
	ck_assert_msg(!strstr(line, "not there"), "%s", line);
	/* A path re-admitted, or read-only, beneath it: made, still
	 * expanded (nothing to bind back; a cover would take what is
	 * read-only). */
	ck_assert_msg(!strstr(line = frozen_said(absent, 0, beneath, SBX_ALLOW), "not there"), "%s",
	              line);
	ck_assert_msg(!strstr(line = frozen_said(absent, 0, beneath, SBX_READONLY), "not there"), "%s",
	              line);
	/* Another beside it, not there either: made, the home stays frozen
	 * by the other. */
	snprintf(linked, sizeof(linked), "%s/.absent-too", said_t.projects);
	ck_assert_msg(!strstr(line = frozen_said(absent, 0, linked, SBX_DENY), "not there"), "%s",
	              line);
	/* A denial beneath it: made, both go under its cover. */
	ck_assert_msg(strstr(line = frozen_said(absent, 0, beneath, SBX_DENY), "not there"), "%s",
	              line);
	/* There, expanded for another reason (a file of two names in it). */
	ck_assert_int_eq(mkdir(absent, 0700), 0);
	write_file(beneath, "", 0600);
	snprintf(linked, sizeof(linked), "%s/.linked", said_t.mine);
	ck_assert_int_eq(link(beneath, linked), 0);
	line = frozen_said(absent, 0, NULL, 0);
	ck_assert_msg(!strstr(line, "not there") && strstr(line, "keep what it denies elsewhere"),
	              "%s", line);
	ck_assert_int_eq(unlink(linked), 0);
	rm_rf(absent);
	/* Its place shown under another name (a bind mount of the home),
	 * where a mount of the test's own can be made. */
	if (geteuid() == 0 && private_mounts_if_can() == MOUNT_NS_PLAIN) {
		snprintf(alias, sizeof(alias), "%s/alias", said_t.other);
		ck_assert_int_eq(mkdir(alias, 0755), 0);
		ck_assert_int_eq(mount(said_t.projects, alias, NULL, MS_BIND, NULL), 0);
		line = frozen_said(absent, 0, NULL, 0);
		ck_assert_msg(!strstr(line, "not there"), "%s", line);
		ck_assert_int_eq(umount2(alias, MNT_DETACH), 0);
	}
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
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", said_t.mine);
	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, "/"), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, said_t.other), 0);
	ck_assert_int_eq(spawn_in(&s, said_t.third, env), 0);
	ck_assert_int_eq(heard.count[SBX_EVENT_IGNORED_DENY], 1);
	ck_assert_msg(!heard.count[SBX_EVENT_FROZEN], "%s", heard.text[SBX_EVENT_FROZEN]);
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
	snprintf(home, sizeof(home), "HOME=%s", said_t.projects);
	snprintf(tmpdir, sizeof(tmpdir), "TMPDIR=%s", said_t.mine);
	snprintf(deny, sizeof(deny), "TOOL_SBX_DENY=%s", said_t.other);
	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "TOOL_SBX", env, &any), 0);
	ck_assert_int_eq(any, 1);
	ck_assert_int_eq(spawn_in(&s, said_t.mine, env), 0);
	ck_assert_int_eq(heard.count[SBX_EVENT_FROZEN], 1);
	ck_assert_msg(strstr(heard.text[SBX_EVENT_FROZEN], "TOOL_SBX_LISTABLE") &&
	                      !strstr(heard.text[SBX_EVENT_FROZEN], "SBX_SCOPE_"),
	              "%s", heard.text[SBX_EVENT_FROZEN]);
	sbx_scopeattr_destroy(&s);
	/* The same scope made in C says the C names. */
	memset(&heard, 0, sizeof(heard));
	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_EXPAND), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, said_t.other), 0);
	ck_assert_int_eq(spawn_in(&s, said_t.mine, env), 0);
	ck_assert_msg(strstr(heard.text[SBX_EVENT_FROZEN], "SBX_SCOPE_LISTABLE") != NULL, "%s",
	              heard.text[SBX_EVENT_FROZEN]);
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
		snprintf(paths, sizeof(paths), "%s_DENY=%s", prefix, said_t.other);
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
		ck_assert_int_eq(spawn_in(&s, said_t.third, environ), 0);
	ck_assert_int_eq(heard.count[SBX_EVENT_IGNORED_DENY], 1);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* ---- the caller's words ------------------------------------------------- */

/* An item of a list, a temporary directory, that cannot be added: named in
 * the caller's words (a label), else the library's, never its constants;
 * and through the environment convention, once, by its variable. */
START_TEST(test_said_labels)
{
	char *missing = (char *)join(said_t.top, "missing");
	char var[4200];
	sbx_scopeattr_t s;

	scope_new(&s);
	ck_assert_int_eq(sbx_scopeattr_addlist(&s, SBX_DENY, missing), 0);
	ck_assert_int_eq(sbx_scopeattr_settmpdir(&s, missing), ENOENT);
	ck_assert_int_eq(heard.count[SBX_EVENT_LIST], 1);
	ck_assert_str_eq(heard.path[SBX_EVENT_LIST], missing);
	ck_assert_str_eq(heard.path2[SBX_EVENT_LIST], "the temporary directory");
	ck_assert_ptr_nonnull(strstr(heard.text[SBX_EVENT_LIST], "the temporary directory: "));
	ck_assert_ptr_nonnull(strstr(heard.text[SBX_EVENT_LIST], "is as it was"));
	ck_assert_ptr_null(strstr(heard.text[SBX_EVENT_LIST], "SBX_"));
	ck_assert_int_eq(sbx_scopeattr_setlabel(&s, SBX_TMPDIR, "build.tmpdir"), 0);
	ck_assert_int_eq(sbx_scopeattr_setlabel(&s, SBX_READONLY, "build.readonly"), 0);
	ck_assert_int_eq(sbx_scopeattr_settmpdir(&s, said_t.secret), ENOTDIR);
	ck_assert_int_eq(heard.count[SBX_EVENT_LIST], 2);
	ck_assert_msg(!strncmp(heard.text[SBX_EVENT_LIST], "build.tmpdir: ", 14), "%s",
	              heard.text[SBX_EVENT_LIST]);
	{
		char big[5000];

		memset(big, 'x', sizeof(big) - 1);
		big[0] = '/';
		big[sizeof(big) - 1] = '\0';
		ck_assert_int_eq(sbx_scopeattr_addlist(&s, SBX_READONLY, big), ENAMETOOLONG);
		ck_assert_int_eq(heard.count[SBX_EVENT_LIST], 3);
		ck_assert_msg(!strncmp(heard.text[SBX_EVENT_LIST], "build.readonly: /xxx", 20), "%s",
		              heard.text[SBX_EVENT_LIST]);
		ck_assert_int_eq(sbx_scopeattr_addlist(&s, SBX_ALLOW, big), ENAMETOOLONG);
		ck_assert_msg(!strncmp(heard.text[SBX_EVENT_LIST], "the re-admission list: /xxx", 27),
		              "%s", heard.text[SBX_EVENT_LIST]);
	}
	ck_assert_int_eq(sbx_scopeattr_setlabel(&s, SBX_TMPDIR, NULL), 0);
	ck_assert_int_eq(sbx_scopeattr_setlabel(&s, 0, "x"), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_setlabel(&s, SBX_TMPDIR + 1, "x"), EINVAL);
	/* The convention names its variable, once. */
	memset(&heard, 0, sizeof(heard));
	snprintf(var, sizeof(var), "LBL_SBX_TMPDIR=%s", missing);
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "LBL_SBX", (char *[]){ var, NULL }, NULL), ENOENT);
	ck_assert_int_eq(heard.count[SBX_EVENT_ENV], 1);
	ck_assert_int_eq(heard.count[SBX_EVENT_LIST], 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* sbxrun names its own option, once. */
START_TEST(test_said_sbxrun_option)
{
	char *out;

	ck_assert_int_eq(run_scoped(NULL, ARGV(SBXRUN, "--tmpdir", (char *)join(said_t.top, "missing"),
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
	const char *where[] = { said_t.mine, said_t.projects };
	char cmd[16384];
	char *out;

	REQUIRE_LANDLOCK();
	for (int i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "cd %s && HOME=%s exec %s --expand --deny %s -- ls %s", where[i],
		         said_t.projects, SBXRUN, said_t.other, said_t.projects);
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

void said_places_tests(TCase *tc)
{
	tcase_add_test(tc, test_said_home_frozen);
	tcase_add_test(tc, test_said_absent_denial_made);
	tcase_add_test(tc, test_said_absent_remedy_only_where_true);
	tcase_add_test(tc, test_said_sbxrun_home);
	tcase_add_test(tc, test_said_nothing_of_unapplied_denial);
	tcase_add_test(tc, test_said_unapplied_denial_once);
	tcase_add_test(tc, test_said_in_the_variables_words);
	tcase_add_test(tc, test_said_labels);
	tcase_add_test(tc, test_said_sbxrun_option);
}

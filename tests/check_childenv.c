/* SPDX-License-Identifier: MIT */
/* sbx_scopeattr_addenv: what a command is told.  Each variable is shown
 * reaching the child without the scope (the control), then left out, set
 * or cleared with it, through every call that starts a command; the
 * caller's own array is the same after. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

#define ENV_PROGRAM "/usr/bin/env"
#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"

/* The environment the child printed, one "NAME=VALUE\n" a line, spawned
 * with envp (NULL too) under scope; by sbx_posix_spawnp where search. */
static char *env_by(const sbx_scopeattr_t *scope, char *const envp[], bool search)
{
	char *argv[] = { search ? "env" : ENV_PROGRAM, NULL }, *out;
	sbx_file_actions_t fa;
	int fd = memfd_create("sbxenv", MFD_CLOEXEC), n = 0;
	pid_t pid;
	char buf[8192];
	ssize_t got;

	ck_assert_int_ge(fd, 0);
	sbx_file_actions_init(&fa);
	sbx_file_actions_adddup2(&fa, fd, 1);
	ck_assert_int_eq(search ? sbx_posix_spawnp(&pid, "env", &fa, NULL, scope, argv, envp)
	                        : sbx_posix_spawn(&pid, ENV_PROGRAM, &fa, NULL, scope, argv, envp),
	                 0);
	sbx_file_actions_destroy(&fa);
	ck_assert_int_eq(wait_status(pid), 0);
	lseek(fd, 0, SEEK_SET);
	while ((got = read(fd, buf + n, sizeof(buf) - 1 - (size_t)n)) > 0)
		n += (int)got;
	buf[n] = '\0';
	close(fd);
	ck_assert_ptr_nonnull(out = strdup(buf));
	return out;
}

static char *env_of(const sbx_scopeattr_t *scope, char *const envp[])
{
	return env_by(scope, envp, false);
}

/* Whether out has the line entry. */
static bool has(const char *out, const char *entry)
{
	size_t len = strlen(entry);

	for (const char *p = out; (p = strstr(p, entry)); p++)
		if ((p == out || p[-1] == '\n') && (p[len] == '\n' || !p[len]))
			return true;
	return false;
}

static void scope_of_env(sbx_scopeattr_t *s)
{
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	ck_assert_int_eq(sbx_scopeattr_addenv(s, SBX_ENV_UNSET, SBX_ENV_SECRETS), 0);
	ck_assert_int_eq(sbx_scopeattr_addenv(s, SBX_ENV_UNSET, "AWS_*"), 0);
	ck_assert_int_eq(sbx_scopeattr_addenv(s, SBX_ENV_UNSET, "PLAIN"), 0);
	ck_assert_int_eq(sbx_scopeattr_addenv(s, SBX_ENV_SET, "CHANGED=new"), 0);
	ck_assert_int_eq(sbx_scopeattr_addenv(s, SBX_ENV_SET, "ADDED=a=b"), 0);
}

START_TEST(test_env_unset_and_set)
{
	char long_secret[320], long_plain[320];
	char *envp[] = { "GITHUB_TOKEN=t1", "api_key=t2", "DB_PASSWORD=t3", "SSH_AUTH_SOCK=/s",
		         "GPG_AGENT_INFO=/g", "AWS_SECRET_ACCESS_KEY=t4", "AWS_REGION=eu",
		         long_secret, long_plain,
		         "PLAIN=p", "PLAINER=kept", "CHANGED=old", "HOME=/h", "PATH=/usr/bin", NULL };
	char *before[sizeof(envp) / sizeof(envp[0])], *out;
	sbx_scopeattr_t s;

	/* Names past any buffer: matched whole (the secret's word at the end,
	 * and a name unset exactly). */
	memset(long_secret, 'A', 300);
	strcpy(long_secret + 300, "_TOKEN=t5");
	memset(long_plain, 'B', 300);
	strcpy(long_plain + 300, "=t6");
	memcpy(before, envp, sizeof(envp));
	out = env_of(NULL, envp);
	for (int i = 0; envp[i]; i++)
		ck_assert_msg(has(out, envp[i]), "without the scope, %s did not reach: %s", envp[i], out);
	free(out);
	scope_of_env(&s);
	long_plain[300] = '\0';
	ck_assert_int_eq(sbx_scopeattr_addenv(&s, SBX_ENV_UNSET, long_plain), 0);
	long_plain[300] = '=';
	for (int search = 0; search < 2; search++) {
		out = env_by(&s, envp, search);
		for (int i = 0; i < 9; i++)
			ck_assert_msg(!has(out, envp[i]), "%.40s reached the child", envp[i]);
		free(out);
	}
	out = env_of(&s, envp);
	ck_assert_msg(!has(out, "PLAIN=p") && has(out, "PLAINER=kept"), "%s", out);
	ck_assert_msg(has(out, "CHANGED=new") && !has(out, "CHANGED=old"), "%s", out);
	ck_assert_msg(has(out, "ADDED=a=b") && has(out, "HOME=/h") && has(out, "PATH=/usr/bin"), "%s",
	              out);
	free(out);
	/* The caller's array, and its strings, as they were. */
	ck_assert_int_eq(memcmp(before, envp, sizeof(envp)), 0);
	ck_assert_str_eq(envp[11], "CHANGED=old");
	sbx_scopeattr_destroy(&s);
}
END_TEST

START_TEST(test_env_clear)
{
	char *envp[] = { "HOME=/h", "TMPDIR=/elsewhere", NULL }, *out, *dir;
	sbx_scopeattr_t s;
	int lines = 0;

	dir = make_tmpdir();
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_addenv(&s, SBX_ENV_CLEAR, NULL), 0);
	ck_assert_int_eq(sbx_scopeattr_addenv(&s, SBX_ENV_SET, "ONLY=1"), 0);
	out = env_of(&s, envp);
	ck_assert_msg(!strcmp(out, "ONLY=1\n"), "%s", out);
	free(out);
	/* A NULL envp is an empty one, as the C library has it. */
	out = env_of(&s, NULL);
	ck_assert_msg(!strcmp(out, "ONLY=1\n"), "%s", out);
	free(out);
	/* The temporary directory's TMPDIR comes after, the one the child
	 * has, whatever is set for it. */
	ck_assert_int_eq(sbx_scopeattr_addenv(&s, SBX_ENV_SET, "TMPDIR=/var/tmp"), 0);
	ck_assert_int_eq(sbx_scopeattr_settmpdir(&s, dir), 0);
	out = env_of(&s, envp);
	for (char *p = out; (p = strchr(p, '\n')); p++)
		lines++;
	ck_assert_msg(lines == 2 && has(out, "ONLY=1") && strstr(out, "TMPDIR=") &&
	              !has(out, "TMPDIR=/elsewhere"), "%s", out);
	free(out);
	sbx_scopeattr_destroy(&s);
	rm_rf(dir);
	free(dir);
}
END_TEST

/* sbx_system (its environ) and sbx_execve (a copy of the process): the
 * same policy. */
START_TEST(test_env_system_and_execve)
{
	sbx_scopeattr_t s;
	char path[] = "/tmp/sbxenvXXXXXX", cmd[128], buf[4096];
	int fd = mkstemp(path), status;
	ssize_t n;
	pid_t pid;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(setenv("SBXENV_TOKEN", "secret", 1), 0);
	scope_of_env(&s);
	snprintf(cmd, sizeof(cmd), "exec " ENV_PROGRAM " > %s", path);
	ck_assert_int_eq(sbx_system(cmd, NULL), 0);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	ck_assert_msg(has(buf, "SBXENV_TOKEN=secret"), "the control: %s", buf);
	ck_assert_int_eq(sbx_system(cmd, &s), 0);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	ck_assert_msg(!strstr(buf, "SBXENV_TOKEN") && has(buf, "ADDED=a=b"), "%s", buf);
	ck_assert_ptr_nonnull(getenv("SBXENV_TOKEN")); /* the caller's own, kept */
	ck_assert_int_ge(pid = fork(), 0);
	if (pid == 0) {
		char *argv[] = { ENV_PROGRAM, NULL };

		dup2(fd, 1);
		lseek(fd, 0, SEEK_SET);
		ck_assert_int_eq(ftruncate(fd, 0), 0);
		_exit(100 + sbx_execve(ENV_PROGRAM, &s, argv, environ));
	}
	status = wait_status(pid);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	ck_assert_msg(!strstr(buf, "SBXENV_TOKEN") && has(buf, "CHANGED=new"), "%s", buf);
	close(fd);
	unlink(path);
	sbx_scopeattr_destroy(&s);
}
END_TEST

START_TEST(test_env_errors)
{
	sbx_scopeattr_t s;
	int empty = 0;

	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_addenv(&s, SBX_ENV_UNSET, NULL), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_addenv(&s, SBX_ENV_UNSET, ""), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_addenv(&s, SBX_ENV_UNSET, "A=B"), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_addenv(&s, SBX_ENV_SET, "NOVALUE"), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_addenv(&s, SBX_ENV_SET, "=x"), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_addenv(&s, SBX_ENV_CLEAR, "x"), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_addenv(&s, 0, "x"), EINVAL);
	/* One named set: a misspelt one would match nothing. */
	ck_assert_int_eq(sbx_scopeattr_addenv(&s, SBX_ENV_UNSET, "@Secrets"), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_isempty(&s, &empty), 0);
	ck_assert_int_eq(empty, 1);
	ck_assert_int_eq(sbx_scopeattr_addenv(&s, SBX_ENV_UNSET, "X"), 0);
	ck_assert_int_eq(sbx_scopeattr_isempty(&s, &empty), 0);
	ck_assert_int_eq(empty, 0); /* it asks something of a child */
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* The environment convention: PREFIX_UNSETENV and PREFIX_NO_NETWORK make a
 * scope on their own; a bad item takes nothing. */
START_TEST(test_env_convention)
{
	char *conv[] = { "SBXT_UNSETENV=@secrets::AWS_*", "SBXT_NO_NETWORK=1", NULL };
	char *bad[] = { "SBXT_DENY=/etc", "SBXT_TMPDIR=/tmp", "SBXT_UNSETENV=OK:A=B", NULL };
	char *bad_path[] = { "SBXT_UNSETENV=OK", "SBXT_DENY=/etc:", "SBXT_TMPDIR=/nonexistent", NULL };
	char *envp[] = { "GITHUB_TOKEN=t", "AWS_REGION=eu", "KEEP=1", NULL }, *out;
	sbx_scopeattr_t s;
	int configured = 0, flags = 0, empty = 0;

	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "SBXT", conv, &configured), 0);
	ck_assert_int_eq(configured, 1);
	ck_assert_int_eq(sbx_scopeattr_getflags(&s, &flags), 0);
	ck_assert(flags & SBX_SCOPE_NO_NETWORK);
	/* No network is a filter's: an emulator that refuses filters
	 * refuses the spawn (SBX_EREFUSED), as it should. */
	if (filters_here("test_env_convention (the spawn, with no network)")) {
		out = env_of(&s, envp);
		ck_assert_msg(!strcmp(out, "KEEP=1\n"), "%s", out);
		free(out);
	}
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	sbx_scopeattr_setevents(&s, 0);
	ck_assert_int_eq(sbx_scopeattr_readenv(&s, "SBXT", bad, &configured), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_isempty(&s, &empty), 0);
	ck_assert_int_eq(empty, 1); /* neither OK, nor the denial, nor TMPDIR */
	ck_assert_int_ne(sbx_scopeattr_readenv(&s, "SBXT", bad_path, &configured), 0);
	ck_assert_int_eq(sbx_scopeattr_isempty(&s, &empty), 0);
	ck_assert_int_eq(empty, 1); /* the unset OK taken back with the paths */
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* sbxrun --unsetenv, --setenv, --clearenv. */
START_TEST(test_sbxrun_env)
{
	char *out;

	ck_assert_int_eq(setenv("SBXENV_TOKEN", "secret", 1), 0);
	ck_assert_int_eq(setenv("AWS_REGION", "eu", 1), 0);
	ck_assert_int_eq(run_scoped(NULL, (char *[]){ SBXRUN, "--quiet", "--", ENV_PROGRAM, NULL },
	                            &out), 0);
	ck_assert_msg(has(out, "SBXENV_TOKEN=secret") && has(out, "AWS_REGION=eu"), "%s", out);
	free(out);
	ck_assert_int_eq(run_scoped(NULL, (char *[]){ SBXRUN, "--quiet", "--unsetenv", "@secrets",
	                                              "--unsetenv", "AWS_*", "--setenv", "A", "1 2",
	                                              "--", ENV_PROGRAM, NULL },
	                            &out), 0);
	ck_assert_msg(!strstr(out, "SBXENV_TOKEN") && !strstr(out, "AWS_REGION") &&
	              has(out, "A=1 2"), "%s", out);
	free(out);
	ck_assert_int_eq(run_scoped(NULL, (char *[]){ SBXRUN, "--quiet", "--clearenv", "--setenv",
	                                              "B", "x", "--", ENV_PROGRAM, NULL },
	                            &out), 0);
	ck_assert_msg(!strcmp(out, "B=x\n"), "%s", out);
	free(out);
	ck_assert_int_eq(run_scoped(NULL, (char *[]){ SBXRUN, "--setenv", "B=x", "--", "true", NULL },
	                            &out), 125);
	ck_assert_msg(strstr(out, "--setenv takes two arguments"), "%s", out);
	free(out);
}
END_TEST

Suite *suite_childenv(void)
{
	Suite *s = suite_create("childenv");
	TCase *tc = tcase_create("addenv");
	untimed(tc);

	tcase_add_test(tc, test_env_unset_and_set);
	tcase_add_test(tc, test_env_clear);
	tcase_add_test(tc, test_env_system_and_execve);
	tcase_add_test(tc, test_env_errors);
	tcase_add_test(tc, test_env_convention);
	tcase_add_test(tc, test_sbxrun_env);
	suite_add_tcase(s, tc);
	return s;
}

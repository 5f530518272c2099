/* SPDX-License-Identifier: MIT */
/*
 * A program that compiles a scope, forks, and spawns in the fork child:
 * built twice, against the shared library and against the static one
 * (whose fork handlers no symbol of the program pulls in by itself).
 *
 *   forked DIR
 *
 * DIR's "denied" is denied, expanded, and compiled once; the fork child
 * then makes DIR/new, which that compile never saw, and reads it with cat.
 * Exits 0 where it was read (the fork child compiled its own), 1 where it
 * was not, 77 where the spawn ran unconfined (no Landlock here), 2 on a
 * setup failure or where the denial did not hold in the parent.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sbxspawn/sbxspawn.h>

extern char **environ;

static int wait_for(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void quiet(const sbx_event_t *ev, void *arg)
{
	(void)ev;
	(void)arg;
}

/* cat path under scope, its output and errors to /dev/null: its status. */
static int cat_under(const sbx_scopeattr_t *scope, const char *path)
{
	char cat[] = "/bin/cat", *argv[] = { cat, (char *)path, NULL };
	sbx_file_actions_t fa;
	pid_t pid;
	int err;

	sbx_file_actions_init(&fa);
	sbx_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	sbx_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	err = sbx_posix_spawn(&pid, argv[0], &fa, NULL, scope, argv, environ);
	sbx_file_actions_destroy(&fa);
	if (err) {
		fprintf(stderr, "forked: spawn: %s\n", sbx_strerror(err));
		return -1;
	}
	return wait_for(pid);
}

int main(int argc, char **argv)
{
	char denied[4096], secret[4200], fresh[4096];
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	pid_t pid;
	int fd, status;

	if (argc != 2)
		return 2;
	snprintf(denied, sizeof(denied), "%s/denied", argv[1]);
	snprintf(secret, sizeof(secret), "%s/secret", denied);
	snprintf(fresh, sizeof(fresh), "%s/new", argv[1]);
	if ((mkdir(denied, 0755) && errno != EEXIST) ||
	    (fd = open(secret, O_CREAT | O_WRONLY | O_CLOEXEC, 0644)) < 0 || close(fd) || sbx_scopeattr_init(&s) ||
	    sbx_scopeattr_adddeny(&s, denied) || sbx_scopeattr_setflags(&s, SBX_SCOPE_EXPAND))
		return 2;
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	if (sbx_scopeattr_compile(&s))
		return 2;
	/* The compile's own proof: the denial holds in the parent (a kernel
	 * without Landlock proceeds unconfined: nothing to tell here). */
	status = cat_under(&s, secret);
	if (sbx_outcome_get(&oc))
		return 2;
	if (oc.confinement == SBX_OUTCOME_UNCONFINED)
		return 77;
	if (status != 1)
		return 2;
	if ((pid = fork()) < 0)
		return 2;
	if (pid == 0) {
		if ((fd = open(fresh, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644)) < 0)
			_exit(2);
		close(fd);
		_exit(cat_under(&s, fresh) == 0 ? 0 : 1);
	}
	status = wait_for(pid);
	unlink(fresh);
	sbx_scopeattr_destroy(&s);
	return status;
}

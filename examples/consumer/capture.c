/* SPDX-License-Identifier: MIT */
/* capture_run: the command, its output through a pipe, and what happened.
 * A confined spawn can end in more ways than posix_spawnp's: refused,
 * unconfined, narrowed, or failed at a file action or at exec.  Each gets
 * its own message and exit status here, and check_capture.c provokes each
 * one on the real kernel. */
#define _GNU_SOURCE /* pipe2: the pipe's ends must not leak into the command */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sbxspawn/sbxspawn.h>

#include "capture.h"

extern char **environ;

/* What the outcome does not say already (denials not applied, paths left
 * out for leading into a denial through a symlink, second names of denied
 * paths, controls this kernel cannot enforce, a variable of CAPTURE_* that
 * cannot be applied): the only events let through, each one line of
 * capture's. */
static void note(const sbx_event_t *ev, void *arg)
{
	fprintf(arg, "capture: note: %s\n", ev->message);
}

/* The scope CAPTURE_* configures; *confined says whether it names
 * anything (else the command runs as posix_spawnp would run it), *require
 * whether it must not run unconfined. */
static int scope_make(sbx_scopeattr_t *scope, const struct capture_options *opt, FILE *err,
                      int *confined, int *require)
{
	int r, flags = 0;

	if ((r = sbx_scopeattr_init(scope)))
		return r;
	sbx_scopeattr_setlogger(scope, note, err);
	sbx_scopeattr_setevents(scope, SBX_EVENT_BIT(SBX_EVENT_IGNORED_DENY) |
	                                       SBX_EVENT_BIT(SBX_EVENT_IGNORED_LINK) |
	                                       SBX_EVENT_BIT(SBX_EVENT_ALIAS) |
	                                       SBX_EVENT_BIT(SBX_EVENT_DOWNGRADED) |
	                                       SBX_EVENT_BIT(SBX_EVENT_ENV));
	if ((r = sbx_scopeattr_readenv(scope, "CAPTURE", opt->env, confined)))
		return r;
	sbx_scopeattr_getflags(scope, &flags);
	*require = (flags & SBX_SCOPE_REQUIRE) != 0;
	return 0;
}

/* The file actions: output into the pipe, the input file on stdin.  The
 * index of the input's action, or -1. */
static int actions_make(sbx_file_actions_t *fa, const int p[2], const char *input)
{
	sbx_file_actions_init(fa);
	sbx_file_actions_adddup2(fa, p[1], 1);
	sbx_file_actions_adddup2(fa, p[1], 2);
	sbx_file_actions_addclose(fa, p[0]);
	if (!input)
		return -1;
	sbx_file_actions_addopen(fa, 0, input, O_RDONLY, 0);
	return 3;
}

/* What the command said: its output, or a refused child's one line. */
static void relay(int fd, FILE *out)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, out);
}

/* A spawn that failed: why, and capture's status. */
static int failed(const char *cmd, const struct capture_options *opt, int require,
                  int input_action, int err, FILE *errf)
{
	sbx_outcome_t o;

	sbx_outcome_get(&o);
	if (err == SBX_EREFUSED) {
		fprintf(errf, "capture: %s: not run: the sandbox was refused\n", cmd);
		return CAPTURE_NOT_RUN;
	}
	if (err == ENOTSUP && require) {
		fprintf(errf, "capture: %s: not run: this kernel has no Landlock and "
		              "CAPTURE_REQUIRE is set\n", cmd);
		return CAPTURE_NOT_RUN;
	}
	if (o.stage == SBX_STAGE_FILE_ACTION && o.action == input_action) {
		fprintf(errf, "capture: %s: cannot be the input: %s\n", opt->input, strerror(err));
		return CAPTURE_BAD_INPUT;
	}
	if (o.stage == SBX_STAGE_EXEC && err == ENOENT) {
		fprintf(errf, "capture: %s: command not found\n", cmd);
		return CAPTURE_NOT_FOUND;
	}
	if (o.stage == SBX_STAGE_EXEC) {
		fprintf(errf, "capture: %s: cannot be executed: %s\n", cmd, strerror(err));
		return CAPTURE_CANNOT_EXEC;
	}
	fprintf(errf, "capture: %s: not run (at the %s stage): %s\n", cmd, sbx_stage_name(o.stage),
	        sbx_strerror(err));
	return CAPTURE_NOT_RUN;
}

/* A spawn that succeeded, but not as asked. */
static void warn_outcome(const char *cmd, FILE *errf)
{
	sbx_outcome_t o;

	if (sbx_outcome_get(&o))
		return;
	if (o.confinement == SBX_OUTCOME_UNCONFINED)
		fprintf(errf, "capture: warning: %s ran %s: this kernel has no Landlock "
		              "(CAPTURE_REQUIRE=1 refuses instead)\n", cmd,
		        sbx_outcome_name(o.confinement));
	for (unsigned i = 0; o.confinement == SBX_OUTCOME_NARROWED && i < o.dropped; i++)
		fprintf(errf, "capture: warning: %s was out of %s's reach too\n", o.dropped_paths[i],
		        cmd);
}

int capture_run(char *const argv[], const struct capture_options *opt, FILE *out, FILE *err)
{
	sbx_file_actions_t fa;
	sbx_scopeattr_t scope;
	int p[2], r, status, input_action, confined = 0, require = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC)) {
		fprintf(err, "capture: pipe: %s\n", strerror(errno));
		return CAPTURE_NOT_RUN;
	}
	if ((r = scope_make(&scope, opt, err, &confined, &require))) {
		fprintf(err, "capture: CAPTURE_*: %s\n", sbx_strerror(r));
		sbx_scopeattr_destroy(&scope);
		close(p[0]);
		close(p[1]);
		return CAPTURE_BAD_INPUT;
	}
	input_action = actions_make(&fa, p, opt->input);
	r = sbx_posix_spawnp(&pid, argv[0], &fa, NULL, confined ? &scope : NULL, argv, environ);
	sbx_file_actions_destroy(&fa);
	sbx_scopeattr_destroy(&scope);
	close(p[1]);
	relay(p[0], out);
	close(p[0]);
	if (r)
		return failed(argv[0], opt, require, input_action, r, err);
	warn_outcome(argv[0], err);
	waitpid(pid, &status, 0);
	fprintf(out, "[exit %d]\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return CAPTURE_RAN;
}

/* capture: runs a command with its output captured through a pipe, and
 * prints what it said and how it ended.  Directories named in CAPTURE_DENY
 * (colon-separated) are out of the command's reach.
 *
 * It used to call posix_spawnp; MIGRATION.diff is the whole change. */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sbxspawn/sbxspawn.h>

extern char **environ;

int main(int argc, char **argv)
{
	sbx_file_actions_t fa;
	sbx_scopeattr_t scope;
	char buf[4096], *deny = getenv("CAPTURE_DENY");
	int p[2], err, status;
	ssize_t n;
	pid_t pid;

	if (argc < 2 || pipe(p)) {
		fprintf(stderr, "usage: capture COMMAND [ARG]...\n");
		return 2;
	}
	sbx_scopeattr_init(&scope);
	for (char *d = deny ? strtok(deny, ":") : NULL; d; d = strtok(NULL, ":"))
		sbx_scopeattr_adddeny(&scope, d);

	sbx_file_actions_init(&fa);
	sbx_file_actions_adddup2(&fa, p[1], 1);
	sbx_file_actions_adddup2(&fa, p[1], 2);
	sbx_file_actions_addclose(&fa, p[0]);
	err = sbx_posix_spawnp(&pid, argv[1], &fa, NULL, &scope, argv + 1, environ);
	sbx_file_actions_destroy(&fa);
	sbx_scopeattr_destroy(&scope);
	close(p[1]);
	if (err) {
		fprintf(stderr, "capture: %s: %s\n", argv[1], sbx_strerror(err));
		return 1;
	}
	while ((n = read(p[0], buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	waitpid(pid, &status, 0);
	printf("[exit %d]\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}

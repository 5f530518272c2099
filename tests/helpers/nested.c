/* Spawns its arguments with a scope that denies nothing, or that makes
 * PATH read-only ("-r PATH"): a nested launcher trying to widen what it got. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "sbxspawn/sbxspawn.h"

extern char **environ;

int main(int argc, char **argv)
{
	sbx_scopeattr_t scope;
	int first = 1, err, status;
	pid_t pid;

	sbx_scopeattr_init(&scope);
	if (argc > 3 && !strcmp(argv[1], "-r")) {
		sbx_scopeattr_addreadonly(&scope, argv[2]);
		first = 3;
	}
	if (first >= argc)
		return 2;
	err = sbx_posix_spawnp(&pid, argv[first], NULL, NULL, &scope, argv + first, environ);
	sbx_scopeattr_destroy(&scope);
	if (err) {
		fprintf(stderr, "nested: %s\n", sbx_strerror(err));
		return 125;
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

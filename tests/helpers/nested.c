/* SPDX-License-Identifier: MIT */
/* Spawns its arguments with a scope of its own, through the library: a
 * nested launcher.  Options, before the command: -r PATH (read-only),
 * -d PATH (denied), -l (listable), -c (compile the scope first, as a build
 * tool does at its start: exit 124 where that says SBX_EREFUSED), -e PREFIX
 * (the scope from the environment, sbx_scopeattr_fromenv: 124 likewise).  With
 * none, a scope that denies nothing: a nested launcher trying to widen
 * what it got. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "sbxspawn/sbxspawn.h"

extern char **environ;

int main(int argc, char **argv)
{
	sbx_scopeattr_t scope;
	int first = 1, err = 0, status, compile = 0;
	pid_t pid;

	sbx_scopeattr_init(&scope);
	while (!err && first < argc && argv[first][0] == '-') {
		if (!strcmp(argv[first], "-e") && first + 1 < argc) {
			/* The scope of the environment under a prefix, in one
			 * call: exit 124 where that says SBX_EREFUSED. */
			int configured;

			sbx_scopeattr_destroy(&scope);
			if ((err = sbx_scopeattr_fromenv(&scope, argv[++first], &configured))) {
				fprintf(stderr, "nested: fromenv: %s\n", sbx_strerror(err));
				return err == SBX_EREFUSED ? 124 : 125;
			}
		} else if (!strcmp(argv[first], "-c"))
			compile = 1;
		else if (!strcmp(argv[first], "-l"))
			err = sbx_scopeattr_setflags(&scope, SBX_SCOPE_LISTABLE);
		else if (!strcmp(argv[first], "-r") && first + 1 < argc)
			err = sbx_scopeattr_addreadonly(&scope, argv[++first]);
		else if (!strcmp(argv[first], "-d") && first + 1 < argc)
			err = sbx_scopeattr_adddeny(&scope, argv[++first]);
		else
			return 2;
		first++;
	}
	if (err || first >= argc)
		return 2;
	if (compile && (err = sbx_scopeattr_compile(&scope))) {
		fprintf(stderr, "nested: compile: %s\n", sbx_strerror(err));
		sbx_scopeattr_destroy(&scope);
		return err == SBX_EREFUSED ? 124 : 125;
	}
	err = sbx_posix_spawnp(&pid, argv[first], NULL, NULL, &scope, argv + first, environ);
	sbx_scopeattr_destroy(&scope);
	if (err) {
		fprintf(stderr, "nested: %s\n", sbx_strerror(err));
		return 125;
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

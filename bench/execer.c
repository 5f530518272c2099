/* SPDX-License-Identifier: MIT */
/* The lightest launcher: it execs its arguments, nothing else.  Spawned with
 * /bin/true, it is the two plain execs that sbxrun with no scope is held to
 * (bench/spawn.c). */
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	if (argc < 2)
		return 125;
	execve(argv[1], argv + 1, environ);
	return 127;
}

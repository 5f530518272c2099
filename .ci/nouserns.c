// SPDX-License-Identifier: MIT
/*
 * nouserns USER COMMAND [ARG]...: runs COMMAND as USER where no user
 * namespace can be made, as on a distribution that sets
 * user.max_user_namespaces to 0.  Where /proc/sys cannot be written (a
 * container), the count is set in a user namespace of this program's own,
 * mapping ids 0..65535 to themselves: the count holds for every namespace
 * made beneath it.  Run as root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "nouserns: %s: %s\n", what, strerror(errno));
	exit(125);
}

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd))
		die(path);
}

int main(int argc, char **argv)
{
	int go[2], status;
	char path[64], c;
	struct passwd *pw;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: nouserns USER COMMAND [ARG]...\n");
		return 125;
	}
	pw = getpwnam(argv[1]);
	if (!pw) {
		fprintf(stderr, "nouserns: %s: no such user\n", argv[1]);
		return 125;
	}
	if (pipe2(go, O_CLOEXEC))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(go[1]);
		if (unshare(CLONE_NEWUSER))
			die("unshare");
		/* The parent writes the maps once it sees the namespace. */
		if (kill(getpid(), SIGSTOP))
			die("stop");
		if (read(go[0], &c, 1) != 1)
			exit(125);
		put("/proc/sys/user/max_user_namespaces", "0");
		if (setgroups(0, NULL) || setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) ||
		    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid))
			die("becoming the user");
		setenv("HOME", pw->pw_dir, 1);
		setenv("USER", pw->pw_name, 1);
		setenv("LOGNAME", pw->pw_name, 1);
		execvp(argv[2], argv + 2);
		die(argv[2]);
	}
	close(go[0]);
	if (waitpid(pid, &status, WUNTRACED) != pid || !WIFSTOPPED(status))
		die("waiting for the namespace");
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	put(path, "0 0 65536\n");
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
	put(path, "0 0 65536\n");
	if (write(go[1], "g", 1) != 1 || kill(pid, SIGCONT))
		die("releasing the child");
	close(go[1]);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

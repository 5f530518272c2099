/* SPDX-License-Identifier: MIT */
/* Many threads spawning at once, continued (check_concurrency.c): a spawn
 * held up in a file action (a FIFO that no one opens) holds up no other
 * thread's spawn, and descriptors kept by the library while a spawn
 * starts its child never reach another thread's child. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/common.h"

/* ---- a spawn blocked in a file action holds up nobody else ------------- */

static char fifo[4096];

struct blocked {
	const char *file;
	char **argv;
	int fd, flags;
	int err, status;
};

/* A spawn whose file action opens the FIFO on fd: the child blocks there
 * until the other end is opened. */
static void *spawn_on_fifo(void *arg)
{
	struct blocked *b = arg;
	sbx_file_actions_t fa;
	pid_t pid;

	sbx_file_actions_init(&fa);
	sbx_file_actions_addopen(&fa, b->fd, fifo, b->flags, 0);
	if (!(b->err = sbx_posix_spawn(&pid, b->file, &fa, NULL, NULL, b->argv, environ)))
		b->status = wait_status(pid);
	sbx_file_actions_destroy(&fa);
	return NULL;
}

static void *compile_one(void *arg)
{
	sbx_scopeattr_t s;

	sbx_scopeattr_init(&s);
	sbx_scopeattr_adddeny(&s, "/srv/sbx-nothing-here");
	*(int *)arg = sbx_scopeattr_compile(&s);
	sbx_scopeattr_destroy(&s);
	return NULL;
}

/* Whether a child of this process, still our program (not exec'd), is
 * asleep: between clone and exec it sleeps only in the FIFO's open. */
static bool child_blocked_before_exec(void)
{
	char self[4096], path[64], exe[4096], stat[512];
	bool found = false;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	DIR *d = opendir("/proc");
	struct dirent *e;

	ck_assert(n > 0 && d);
	self[n] = '\0';
	while (!found && (e = readdir(d))) {
		char state;
		int ppid;
		FILE *f;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		n = (ssize_t)fread(stat, 1, sizeof(stat) - 1, f);
		fclose(f);
		stat[n > 0 ? n : 0] = '\0';
		char *tail = strrchr(stat, ')');
		if (!tail || sscanf(tail, ") %c %d", &state, &ppid) != 2 || ppid != getpid() ||
		    state != 'S')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/exe", e->d_name);
		n = readlink(path, exe, sizeof(exe) - 1);
		found = n > 0 && (exe[n] = '\0', strcmp(exe, self) == 0);
	}
	closedir(d);
	return found;
}

/* A child blocked opening a FIFO, then a compile that keeps descriptors,
 * then a second spawn that opens the FIFO's other end: each runs while the
 * first child is blocked, and so the second frees the first.  (A lock
 * held by a spawn until its child exec'd made the compile wait for the
 * first, and the second for the compile: for good; Check's timeout then
 * says so.)  Each step waits for the state the next needs, not for time. */
START_TEST(test_blocked_file_action)
{
	char *cat_argv[] = { "/bin/sh", "-c", "cat > /dev/null", NULL };
	char *sh_argv[] = { "/bin/sh", "-c", "echo from-the-writer", NULL };
	struct blocked reader = { "/bin/sh", cat_argv, 0, O_RDONLY, -1, -1 };
	struct blocked writer = { "/bin/sh", sh_argv, 1, O_WRONLY, -1, -1 };
	pthread_t a;
	int compiled = -1, tries = 0;

	SKIP_IF_EMULATED_THREADS();

	char *dir = make_tmpdir();

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(pthread_create(&a, NULL, spawn_on_fifo, &reader), 0);
	/* Polled, each look a scan of /proc: the child gets there or its
	 * spawn failed (then reader.err says why). */
	while (!child_blocked_before_exec() && reader.err <= 0 && reader.status == -1) {
		ck_assert_msg(++tries < 100000, "the first child never blocked in its file action");
		sched_yield();
	}
	ck_assert_int_eq(reader.status, -1);
	compile_one(&compiled);
	ck_assert_int_eq(compiled, 0);
	spawn_on_fifo(&writer);
	pthread_join(a, NULL);
	ck_assert_int_eq(reader.err, 0);
	ck_assert_int_eq(writer.err, 0);
	ck_assert_int_eq(reader.status, 0);
	ck_assert_int_eq(writer.status, 0);
	unlink(fifo);
	rm_rf(dir);
	free(dir);
}
END_TEST

/* ---- descriptors kept while a spawn starts its child --------------------- */

static atomic_int churning;

/* Compiles and drops a scope over and over: a ruleset and a mount table
 * kept, at the lowest free numbers, and closed again. */
static void *keep_and_drop(void *arg)
{
	(void)arg;
	while (atomic_load(&churning)) {
		sbx_scopeattr_t s;

		sbx_scopeattr_init(&s);
		sbx_scopeattr_adddeny(&s, "/srv/sbx-nothing-here");
		sbx_scopeattr_compile(&s);
		sbx_scopeattr_destroy(&s);
	}
	return NULL;
}

/* While another thread keeps descriptors and closes them, a file action
 * naming a number the caller never opened never hands the child one of
 * them: a descriptor kept after the spawn listed those to hide, and before
 * its child's table was copied, is never the child's.  (The compile's
 * passing descriptors of directories are another matter, and documented.) */
START_TEST(test_kept_while_spawning)
{
	char *argv[] = { HELPER_DIR "/fsop", "fds", NULL };
	int free_fds[4], nfree = 0, leaked = 0, spawns = 0;
	char what[512] = "";
	pthread_t t;

	SKIP_IF_EMULATED_THREADS();

	for (int fd = 3; fd < 64 && nfree < 4; fd++)
		if (fcntl(fd, F_GETFD) < 0)
			free_fds[nfree++] = fd;
	ck_assert_int_eq(nfree, 4);
	atomic_store(&churning, 1);
	ck_assert_int_eq(pthread_create(&t, NULL, keep_and_drop, NULL), 0);
	/* Bounded by a count: a slow machine spawns as many, only later. */
	for (int round = 0; round < 250 / scale(); round++) {
		for (int i = 0; i < nfree; i++) {
			int out = memfd_create("fds", MFD_CLOEXEC), err;
			sbx_file_actions_t fa;
			char said[4096];
			ssize_t n;
			pid_t pid;

			ck_assert_int_ge(out, 0);
			sbx_file_actions_init(&fa);
			sbx_file_actions_adddup2(&fa, out, 1);
			sbx_file_actions_adddup2(&fa, free_fds[i], 60);
			err = sbx_posix_spawn(&pid, argv[0], &fa, NULL, NULL, argv, environ);
			sbx_file_actions_destroy(&fa);
			spawns++;
			if (err) {
				ck_assert_int_eq(err, EBADF);
				close(out);
				continue;
			}
			wait_status(pid);
			n = pread(out, said, sizeof(said) - 1, 0);
			close(out);
			said[n > 0 ? n : 0] = '\0';
			char *line = strstr(said, "\n60 ");
			if (line && (strstr(line, "landlock-ruleset") || strstr(line, "mountinfo"))) {
				if (!leaked++)
					snprintf(what, sizeof(what), "%.*s", (int)strcspn(line + 1, "\n"),
					         line + 1);
			}
		}
	}
	atomic_store(&churning, 0);
	pthread_join(t, NULL);
	ck_assert_msg(leaked == 0, "%d of %d children got a descriptor the library keeps (%s)", leaked,
	              spawns, what);
}
END_TEST

void concurrency_fd_tests(TCase *tc)
{
	tcase_add_test(tc, test_blocked_file_action);
	tcase_add_test(tc, test_kept_while_spawning);
}

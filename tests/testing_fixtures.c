/* SPDX-License-Identifier: MIT */
/* The suite of libsbxspawn-testing's fixtures (testing_fixtures.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "sbxspawn/testing.h"
#include "tests/emulated.h"
#include "tests/testing_fixtures.h"

extern char **environ;

void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

void tree_make(struct tree *t)
{
	snprintf(t->top, sizeof(t->top), "%s/sbxtesting.XXXXXX", TOP_BUILDDIR);
	ck_assert_ptr_nonnull(mkdtemp(t->top));
	snprintf(t->projects, sizeof(t->projects), "%s/projects", t->top);
	snprintf(t->mine, sizeof(t->mine), "%s/mine", t->projects);
	snprintf(t->other, sizeof(t->other), "%s/other", t->projects);
	snprintf(t->third, sizeof(t->third), "%s/third", t->projects);
	snprintf(t->secret, sizeof(t->secret), "%s/secret", t->other);
	snprintf(t->mine_file, sizeof(t->mine_file), "%s/file", t->mine);
	snprintf(t->third_file, sizeof(t->third_file), "%s/file", t->third);
	ck_assert_int_eq(mkdir(t->projects, 0755), 0);
	ck_assert_int_eq(mkdir(t->mine, 0755), 0);
	ck_assert_int_eq(mkdir(t->other, 0755), 0);
	ck_assert_int_eq(mkdir(t->third, 0755), 0);
	write_file(t->secret, "the-secret\n");
	write_file(t->mine_file, "mine\n");
	write_file(t->third_file, "third\n");
}

void tree_free(const struct tree *t)
{
	unlink(t->secret);
	unlink(t->mine_file);
	unlink(t->third_file);
	rmdir(t->mine);
	rmdir(t->other);
	rmdir(t->third);
	rmdir(t->projects);
	rmdir(t->top);
}

bool is_beneath(const char *path, const char *top)
{
	size_t n = strlen(top);

	return path && !strncmp(path, top, n) && (path[n] == '/' || !path[n]);
}

void record(const sbx_event_t *ev, void *arg)
{
	struct seen *s = arg;

	if (ev->kind <= 0 || ev->kind >= 8)
		return;
	if (ev->kind == SBX_EVENT_DROPPED && s->beneath && !is_beneath(ev->path, s->beneath))
		return;
	s->count[ev->kind]++;
	s->error[ev->kind] = ev->error;
	snprintf(s->path[ev->kind], sizeof(s->path[0]), "%s", ev->path ? ev->path : "");
}

/* The expanded way: the grants dropped here are those of the walk that
 * lists the directories above a denial (a hidden one lists none). */
void scope_make(sbx_scopeattr_t *s, struct seen *seen, const char *deny)
{
	memset(seen, 0, sizeof(*seen));
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	ck_assert_int_eq(sbx_scopeattr_setlogger(s, record, seen), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(s, SBX_SCOPE_EXPAND), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(s, deny), 0);
}

/* How many of the last spawn's dropped grants lie beneath top. */
unsigned dropped_beneath(const char *top)
{
	sbx_outcome_t o;
	unsigned n = 0;

	ck_assert_int_eq(sbx_outcome_get(&o), 0);
	for (unsigned i = 0; i < o.dropped && o.dropped_paths; i++)
		n += is_beneath(o.dropped_paths[i], top);
	return n;
}

/* The last spawn confined, with no grant dropped beneath top (one dropped
 * above it, for the machine's own reasons, narrows it without touching
 * the test). */
void assert_confined_beneath(const char *top)
{
	sbx_outcome_t o;

	ck_assert_int_eq(sbx_outcome_get(&o), 0);
	ck_assert_msg(o.confinement == SBX_OUTCOME_CONFINED ||
	                      (o.confinement == SBX_OUTCOME_NARROWED && !dropped_beneath(top)),
	              "the last spawn was %s, with %u grants dropped beneath %s",
	              sbx_testing_confinement_name(o.confinement), dropped_beneath(top), top);
}

struct cat cat(const sbx_scopeattr_t *scope, const char *path)
{
	char *argv[] = { "cat", (char *)path, NULL };
	sbx_file_actions_t fa;
	struct cat c = { 0, -1, NULL };
	int fd, status;
	pid_t pid;

	ck_assert_int_eq(sbx_testing_capture_open(&fd), 0);
	ck_assert_int_eq(sbx_file_actions_init(&fa), 0);
	ck_assert_int_eq(sbx_file_actions_adddup2(&fa, fd, 1), 0);
	ck_assert_int_eq(sbx_file_actions_adddup2(&fa, fd, 2), 0);
	c.err = sbx_posix_spawnp(&pid, "cat", &fa, NULL, scope, argv, environ);
	sbx_file_actions_destroy(&fa);
	if (!c.err) {
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		c.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	ck_assert_int_eq(sbx_testing_capture_read(fd, &c.text), 0);
	close(fd);
	return c;
}

int kernel_abi(void)
{
	int abi = 0;

	ck_assert_int_eq(sbx_testing_landlock_abi(&abi), 0);
	return abi;
}

/* SPDX-License-Identifier: MIT */
/* The escape tests' common ground (attempts.h): the tree and the scope each
 * attempt runs against, the attempt itself, and how its answer is read. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/attempts.h"

/* Every test: the tree, and a scope denying the sibling project "other". */
struct tree t;
sbx_scopeattr_t s;
/* The whole output of the last attempt. */
char out[65536];

/* The attempts run twice: against the denial expanded (Landlock's
 * answers, each exact), and hidden, where the library hides it by default
 * (the cover answers too: ENOENT, EROFS, EBUSY; every attempt refused, the
 * secret never shown). */
static bool hidden_tc;

/* The last attempt met the denial hidden: where no child can make its
 * namespace (a regular user's, user namespaces refused), the hidden way's
 * spawns expand it, and their answers are the expanded way's, exact. */
bool hid(void)
{
	return hidden_tc && hidden_way();
}

static void setup_way(bool hidden)
{
	hidden_tc = hidden;
	tree_make(&t);
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	if (!hidden)
		expand_way(&s);
}

void setup(void)
{
	setup_way(false);
}

void setup_hidden(void)
{
	setup_way(true);
}

void teardown(void)
{
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}

/* Runs argv under scope from cwd (when set) and returns its verdict, the
 * last line of its output; the output is kept in `out'.  Unless the road
 * is a documented limit (may_leak), the secret must not be anywhere in it. */
const char *run(const sbx_scopeattr_t *scope, const char *cwd, char *const argv[],
                       bool may_leak)
{
	char *o = NULL, *last;
	int status = run_scoped_cwd(scope, cwd, argv, &o);

	ck_assert_msg(status > -1000, "%s %s: the spawn failed: %s", argv[0], argv[1],
	              sbx_strerror(-1000 - status));
	snprintf(out, sizeof(out), "%s", o);
	free(o);
	ck_assert_msg(may_leak || !strstr(out, SECRET), "ESCAPE: %s %s %s read the secret:\n%s",
	              argv[0], argv[1], argv[2] ? argv[2] : "", out);
	while (strlen(out) && out[strlen(out) - 1] == '\n')
		out[strlen(out) - 1] = '\0';
	last = strrchr(out, '\n');
	return last ? last + 1 : out;
}

/* The verdict is want: exactly, but where the denial is hidden, where any
 * denial will do. */
void expect(const char *got, const char *want)
{
	/* Listed as root, a hidden directory is the cover: empty. */
	bool empty = !strstr(out, "\nentry ") && strncmp(out, "entry ", 6);

	if (hid() && want[0] == 'E')
		ck_assert_msg(denied_verdict(got) || (!strcmp(got, "ok") && empty && hidden_way()),
		              "%s, not a denial (%s expanded)", got, want);
	else
		ck_assert_str_eq(got, want);
}

static bool saw_exactly(const char *line)
{
	size_t n = strlen(line);

	for (const char *p = out; (p = strstr(p, line)); p += n)
		if ((p == out || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

/* A step's line, "STEP RESULT".  Against a hidden denial a step that meets
 * the cover may be refused where the expanded way let it be (an O_PATH
 * open, name_to_handle_at), or refused another way: any denial there. */
bool saw(const char *line)
{
	const char *sp = strrchr(line, ' ');
	char step[256];

	if (saw_exactly(line))
		return true;
	if (!hid() || !sp || (strcmp(sp + 1, "ok") && sp[1] != 'E'))
		return false;
	for (const char *p = out; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		size_t len = strcspn(p, "\n");

		snprintf(step, sizeof(step), "%.*s", (int)len, p);
		if (!strncmp(step, line, (size_t)(sp - line) + 1) && denied_verdict(step + (sp - line) + 1))
			return true;
	}
	return false;
}

/* The secret is where it was, as it was: a failed move moved nothing. */
void secret_intact(void)
{
	char buf[64] = "";
	int fd = open(t.secret, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_gt(read(fd, buf, sizeof(buf) - 1), 0);
	close(fd);
	ck_assert_str_eq(buf, SECRET "\n");
}

/* dir/name, as an argument for ARGV. */
char *in(const char *dir, const char *name)
{
	return (char *)join(dir, name);
}

/* A formatted string in a static ring of buffers. */
char *fmt(const char *f, ...)
{
	static char ring[8][4096];
	static int next;
	char *b = ring[next++ % 8];
	va_list ap;

	va_start(ap, f);
	vsnprintf(b, 4096, f, ap);
	va_end(ap);
	return b;
}

/* An inheritable descriptor (no O_CLOEXEC): what a careless parent leaks. */
int leak(const char *path, int flags)
{
	int fd = open(path, flags);

	ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
	return fd;
}

void copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int o = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	ssize_t n;

	ck_assert_int_ge(in, 0);
	ck_assert_int_ge(o, 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ck_assert_int_eq(write(o, buf, (size_t)n), n);
	close(in);
	close(o);
}

void add_attempts(TCase *tc, TCase *hc, const struct attempt_case *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		tcase_add_test(tc, a[i].test);
		if (a[i].hidden)
			tcase_add_test(hc, a[i].test);
	}
}

/* SPDX-License-Identifier: MIT */
/* The escape tests (attempts.c): a confined child that wants the denied
 * secret and tries every road a program has to it.  check_escape.c holds
 * the roads through paths (symlinks, /proc's magic links, descriptors,
 * relative names, renames and links, execution); check_escape_kernel.c
 * those through the kernel's other interfaces (namespaces, nesting,
 * io_uring, the unconfined parent, handles, devices, hard links). */
#ifndef SBX_TESTS_ATTEMPTS_H
#define SBX_TESTS_ATTEMPTS_H

#include <stdbool.h>
#include <sys/types.h>

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"
#define ESCAPE HELPER_DIR "/escape"
#define NESTED HELPER_DIR "/nested"
#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"
#define SECRET "the-secret"

/* Every test: the tree, and a scope denying the sibling project "other". */
extern struct tree t;
extern sbx_scopeattr_t s;
/* The whole output of the last attempt. */
extern char out[65536];

/* The fixtures: the denial expanded (Landlock's answers, each exact), or
 * hidden where the library hides it by default. */
void setup(void);
void setup_hidden(void);
void teardown(void);
/* The last attempt met the denial hidden. */
bool hid(void);

/* Runs argv under scope from cwd (when set) and returns its verdict, the
 * last line of its output; the output is kept in `out'.  Unless the road
 * is a documented limit (may_leak), the secret must not be anywhere in it. */
const char *run(const sbx_scopeattr_t *scope, const char *cwd, char *const argv[], bool may_leak);
#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })
/* An attempt under the test's scope; from a working directory. */
#define attempt(...) run(&s, NULL, ARGV(__VA_ARGS__), false)
#define attempt_in(cwd, ...) run(&s, cwd, ARGV(__VA_ARGS__), false)
/* The verdict is want: exactly, but where the denial is hidden, where any
 * denial will do. */
void expect(const char *got, const char *want);
/* The attempt fails with err. */
#define FAILS(err, ...) expect(attempt(__VA_ARGS__), err)
/* A step of the last attempt reported this line ("symlink ok", ...). */
bool saw(const char *line);
#define SAW(line) ck_assert_msg(saw(line), "no line \"%s\" in:\n%s", line, out)

/* The secret is where it was, as it was: a failed move moved nothing. */
void secret_intact(void);
/* dir/name, as an argument for ARGV. */
char *in(const char *dir, const char *name);
/* A formatted string in a static ring of buffers. */
char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
/* An inheritable descriptor (no O_CLOEXEC): what a careless parent leaks. */
int leak(const char *path, int flags);
void copy_file(const char *from, const char *to, mode_t mode);

/* An attempt, and whether it runs against the denial hidden too: not what
 * the expanded way alone has (a frozen directory, and its documented
 * limits), whose hidden answers check_hide.c holds. */
struct attempt_case {
	const TTest *test;
	bool hidden;
};
/* Each to tc (the denial expanded), and those that apply to hc (hidden). */
void add_attempts(TCase *tc, TCase *hc, const struct attempt_case *a, size_t n);
/* check_escape_kernel.c's attempts, added to the suite's two cases: each
 * to tc (the denial expanded), and those that apply to hc (hidden). */
void escape_kernel_attempts(TCase *tc, TCase *hc);

#endif /* SBX_TESTS_ATTEMPTS_H */

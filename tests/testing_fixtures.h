/* SPDX-License-Identifier: MIT */
/* What the suite of libsbxspawn-testing stands on (testing_fixtures.c): a
 * tree with a secret, a logger, a scope, and the readings of a spawn.  Its
 * tests: the provocations and guards in check_testing.c, the readers and
 * assertions in check_testing_report.c. */
#ifndef SBX_TESTS_TESTING_FIXTURES_H
#define SBX_TESTS_TESTING_FIXTURES_H

#include <check.h>
#include <stdbool.h>

#include "sbxspawn/testing.h"

#define GUARD HELPER_DIR "/testing_guard"
#define ASSERTS HELPER_DIR "/testing_asserts"
#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"

extern char **environ;

/* T/projects/{mine,other,third}, each with a file; other's is the secret.
 * In the build directory, not /var/tmp or /tmp: every directory above a
 * denial is listed at each compile, and an entry that vanishes meanwhile
 * is a dropped grant.  The main suite, run beside this one by make -j,
 * makes and removes its trees in /var/tmp all along; these tests count
 * dropped grants, and must not see its trees come and go, nor make its
 * see theirs. */
struct tree {
	char top[4096], projects[4096], mine[4096], other[4096], third[4096];
	char secret[4096], mine_file[4096], third_file[4096];
};

/* A logger that keeps the last event of each kind.  With `beneath' set,
 * only the grants dropped beneath it count: every directory above the
 * tree is listed too, and one that holds a file with hard links (left by
 * anything on the machine) or an entry that vanishes drops a grant there
 * that is no part of the test. */
struct seen {
	int count[8], error[8];
	char path[8][256];
	const char *beneath;
};

/* `cat path' under scope, stdout and stderr captured: the spawn's error,
 * else cat's exit code, and what it said. */
struct cat {
	int err, code;
	char *text;
};

void write_file(const char *path, const char *text);
void tree_make(struct tree *t);
void tree_free(const struct tree *t);
/* Whether path lies beneath top. */
bool is_beneath(const char *path, const char *top);
/* A logger keeping what it is told in *arg (a struct seen). */
void record(const sbx_event_t *ev, void *arg);
void scope_make(sbx_scopeattr_t *s, struct seen *seen, const char *deny);
/* How many grants the last spawn dropped beneath top. */
unsigned dropped_beneath(const char *top);
void assert_confined_beneath(const char *top);
/* path read by cat under scope. */
struct cat cat(const sbx_scopeattr_t *scope, const char *path);
int kernel_abi(void);

/* check_testing_report.c's cases: the readers, and the assertions. */
void testing_report_cases(const TTest *report[12], const TTest *asserts[12]);

#endif /* SBX_TESTS_TESTING_FIXTURES_H */

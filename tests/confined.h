/* SPDX-License-Identifier: MIT */
/* What the confinement suite's files share (check_confine.c,
 * check_confine_ruleset.c): a scope denying one path, and what fsop is
 * allowed, denied, or refused as read-only under it. */
#ifndef SBX_TESTS_CONFINED_H
#define SBX_TESTS_CONFINED_H

#include <stdbool.h>
#include <string.h>

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"

#define ALLOWED(scope, op, a, b) ck_assert_str_eq(fsop_verdict(scope, op, a, b), "ok")
#define DENIED(scope, op, a, b) ck_assert_str_eq(fsop_verdict(scope, op, a, b), "EACCES")
/* A write refused in a read-only path: by the read-only mount where the
 * path is sealed (its explanation says so; never where expand), else by
 * Landlock. */
#define READ_ONLY(scope, op, a, b, expand)                                                  \
	do {                                                                                \
		const char *v_ = fsop_verdict(scope, op, a, b);                             \
		bool sealed_ = sealed_at(scope, b ? b : a);                                 \
		ck_assert_msg(!((expand) && sealed_), "%s: sealed, and expand asked", a);   \
		ck_assert_msg(!strcmp(v_, sealed_ ? "EROFS" : "EACCES"),                    \
		              "%s %s: %s, not refused (sealed: %d)", op, a, v_, sealed_);   \
	} while (0)

/* Whether path lies in a sealed read-only path, as the scope explains it. */
static inline bool sealed_at(const sbx_scopeattr_t *scope, const char *path)
{
	sbx_explanation_t x;

	ck_assert_int_eq(sbx_scopeattr_explain(scope, path, &x), 0);
	return strstr(x.message, "sealed") != NULL;
}
/* A link or rename that Landlock refuses is EXDEV where only the move
 * across directories is in question, EACCES otherwise: both are denials. */
#define DENIED_MOVE(scope, op, a, b)                                              \
	do {                                                                      \
		const char *v_ = fsop_verdict(scope, op, a, b);                             \
		ck_assert_msg(!strcmp(v_, "EACCES") || !strcmp(v_, "EXDEV"),      \
		              "%s %s %s: %s, not a denial", op, a, b, v_);        \
	} while (0)

static inline void scope_deny(sbx_scopeattr_t *s, const char *path)
{
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	sbx_scopeattr_setlogger(s, quiet, NULL);
	ck_assert_int_eq(sbx_scopeattr_adddeny(s, path), 0);
}

/* check_confine_ruleset.c's tests, added to the confinement suite's case. */
void confine_ruleset_tests(TCase *tc);

#endif /* SBX_TESTS_CONFINED_H */

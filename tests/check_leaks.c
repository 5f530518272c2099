/* SPDX-License-Identifier: MIT */
/* Memory exhaustion in the calls that answer rather than spawn: the
 * explanation, the environment convention, sbx_system.  Each allocation
 * fails in turn (allocs.h): ENOMEM, or a success where the failure could
 * be gone without, and never a block left live. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/allocs.h"
#include "tests/common.h"

static void fresh(sbx_scopeattr_t *scope)
{
	ck_assert_int_eq(sbx_scopeattr_init(scope), 0);
	sbx_scopeattr_setlogger(scope, quiet, NULL);
}

/* sbx_system's answer as an error number: 0 for a shell that exited 0. */
static int system_error(const char *command, const sbx_scopeattr_t *scope)
{
	int status = sbx_system(command, scope);

	if (status == -1)
		return errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : EIO;
}

/* sbx_scopeattr_fromenv, its lines (those of a scope no command can run
 * under: here, out of memory) kept out of the suite's output. */
static int fromenv_unheard(sbx_scopeattr_t *scope, int *configured)
{
	int err, was = dup(2), null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	dup2(null, 2);
	err = sbx_scopeattr_fromenv(scope, "SBXLEAK", configured);
	dup2(was, 2);
	close(was);
	close(null);
	return err;
}

/* The variables of the convention, set again where a call used them up
 * (read once, unset for the commands it runs). */
static void set_convention(const char *deny, const char *allow)
{
	ck_assert_int_eq(setenv("SBXLEAK_DENY", deny, 1), 0);
	ck_assert_int_eq(setenv("SBXLEAK_ALLOW", allow, 1), 0);
	ck_assert_int_eq(setenv("SBXLEAK_READONLY", "/usr", 1), 0);
}

START_TEST(test_enomem_answers)
{
	struct tree t;
	sbx_scopeattr_t s, e;
	sbx_explanation_t ex;
	char *env[4], denied[4200], allowed[4200];
	int configured = 0;

	REQUIRE_LANDLOCK();
	REQUIRE_FAILING_ALLOCATIONS();
	tree_make(&t);
	/* A directory on the way listed long enough that the C library's
	 * sort allocates (past 1 KiB), and goes on without where it cannot:
	 * the absorbed way is taken here on every machine. */
	for (int i = 0; i < 200; i++) {
		char name[32];

		snprintf(name, sizeof(name), "many%03d", i);
		write_file(join(t.top, name), "", 0644);
	}
	sbx_scopeattr_init(&s);
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	sbx_scopeattr_adddeny(&s, t.other);
	sbx_scopeattr_addallow(&s, t.secret);
	sbx_scopeattr_addreadonly(&s, t.projects);

	/* The explanation, of a denied path, a re-admitted one, a frozen
	 * one: a compile each, its answer kept by the thread. */
	EVERY_ALLOCATION_FAILS(sbx_scopeattr_explain(&s, t.other, &ex), (void)0);
	ck_assert_int_eq(ex.reason, SBX_REASON_DENIED);
	EVERY_ALLOCATION_FAILS(sbx_scopeattr_explain(&s, t.secret, &ex), (void)0);
	ck_assert_int_eq(ex.reason, SBX_REASON_READMITTED);
	EVERY_ALLOCATION_FAILS(sbx_scopeattr_explain(&s, t.mine, &ex), (void)0);

	/* A shell under the scope: -1 and ENOMEM, or the shell's status. */
	EVERY_ALLOCATION_FAILS(system_error("exit 0", &s), (void)0);

	/* The convention: read into a scope (all or nothing), and in one
	 * call (its scope to be destroyed after a failure too). */
	snprintf(denied, sizeof(denied), "SBXLEAK_DENY=%s:%s/missing", t.other, t.mine);
	snprintf(allowed, sizeof(allowed), "SBXLEAK_ALLOW=%s", t.secret);
	env[0] = denied;
	env[1] = allowed;
	env[2] = "SBXLEAK_READONLY=/usr";
	env[3] = NULL;
	/* (A failure the C library's sort absorbs ends in a scope read whole,
	 * or in the variables used up: made again for the next.) */
	fresh(&e);
	EVERY_ALLOCATION_FAILS_OR(sbx_scopeattr_readenv(&e, "SBXLEAK", env, &configured),
	                          sbx_scopeattr_destroy(&e);
	                          fresh(&e),
	                          sbx_scopeattr_destroy(&e);
	                          fresh(&e));
	ck_assert_int_eq(configured, 1);
	sbx_scopeattr_destroy(&e);
	set_convention(denied + strlen("SBXLEAK_DENY="), t.secret);
	EVERY_ALLOCATION_FAILS_OR(fromenv_unheard(&e, &configured), sbx_scopeattr_destroy(&e),
	                          sbx_scopeattr_destroy(&e);
	                          set_convention(denied + strlen("SBXLEAK_DENY="), t.secret));
	ck_assert_int_eq(configured, 1);
	ck_assert_ptr_null(getenv("SBXLEAK_DENY")); /* used up: unset */
	sbx_scopeattr_destroy(&e);

	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}
END_TEST

TCase *tcase_errors_answers(void)
{
	TCase *tc = tcase_create("answers");

	untimed(tc);
	tcase_add_test(tc, test_enomem_answers);
	return tc;
}

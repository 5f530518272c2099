/* SPDX-License-Identifier: MIT */
/* The kernel's own word on what a child was denied: SBX_SCOPE_LOG_DENIALS
 * keeps the child's domain logging after its exec (Landlock ABI 7), and
 * sbxrun --report-denials reads the audit log and says each denial after
 * the command ends.  Against the real kernel, as root: the audit log is
 * turned on for the test and left as it was found (tests/audit.c: one
 * test at a time on the machine). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "tests/audit.h"
#include "tests/common.h"
#include "tools/denials.h"

#define FSOP HELPER_DIR "/fsop"
#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"
#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })

static struct tree t;

static void setup(void)
{
	tree_make(&t);
}

static void teardown(void)
{
	tree_free(&t);
}

/* How many lines of text hold needle. */
static int lines_with(const char *text, const char *needle)
{
	int n = 0;

	for (const char *p = text; *p;) {
		const char *end = strchr(p, '\n'), *hit = strstr(p, needle);

		if (!end)
			end = p + strlen(p);
		n += hit && hit < end;
		p = *end ? end + 1 : end;
	}
	return n;
}

/* ---- the audit log's switch ------------------------------------------ */

/* Takes the audit log (tests/audit.c) and turns it on: false, with a SKIP
 * line, where this test cannot (not root; a log locked off).  The log is
 * put back as it was by audit_give. */
static bool audit_on(const char *test)
{
	struct audit_status st, on = { .mask = AUDIT_STATUS_ENABLED, .enabled = 1 };
	int err = audit_take(&st);

	if (!err && st.enabled == 2) {
		audit_give();
		say_skip("SKIP %s: the audit log is locked (enabled=2)\n", test);
		return false;
	}
	if (!err && !st.enabled && (err = audit_status(AUDIT_SET, &on)))
		audit_give();
	if (err)
		say_skip("SKIP %s: the audit log cannot be switched on here (%s: needs "
		         "CAP_AUDIT_CONTROL, as root)\n", test, strerror(err));
	return !err;
}

/* The start of each test of what the log holds after the exec: Landlock
 * ABI 7, and the audit log on (a SKIP line says why where it cannot be). */
#define REQUIRE_AUDITED()                                                       \
	do {                                                                    \
		REQUIRE_LANDLOCK();                                             \
		if (landlock_abi() < 7) {                                       \
			say_skip("SKIP %s: needs Landlock ABI 7\n", __func__); \
			return;                                                 \
		}                                                               \
		if (!audit_on(__func__))                                        \
			return;                                                 \
	} while (0)

/* ---- the flag --------------------------------------------------------- */

/* Why logged() could not tell: checked once the log is as it was. */
static char trouble[1024];

/* What a child with scope s, running fsop read PATH, was denied, as the
 * audit log says: how many denials of path (read_file), 0 where none was
 * logged, -1 where it cannot be told (trouble says why), -2 where the
 * kernel lost records meanwhile (a reader that says some were lost while
 * the kernel lost none is wrong: -1).  The log must be on, and
 * nothing here may end the test before it is switched back. */
static int logged_once(sbx_scopeattr_t *s, const char *path, sbx_outcome_t *oc)
{
	struct denials d;
	struct denial *v;
	size_t n;
	pid_t pid;
	int status, count = 0, err;
	uint32_t lost_before = audit_lost();

	if (denials_open(&d)) {
		snprintf(trouble, sizeof(trouble), "%s", d.why);
		denials_free(&d, NULL, 0);
		return -1;
	}
	err = sbx_posix_spawn(&pid, FSOP, NULL, NULL, s, ARGV(FSOP, "read", (char *)path), environ);
	sbx_outcome_get(oc);
	status = err ? -1 : denials_wait(&d, pid);
	if (err || d.why[0] || status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 1) {
		snprintf(trouble, sizeof(trouble), "spawn: %s; status %#x; %s", sbx_strerror(err),
		         (unsigned)status, d.why);
		denials_free(&d, NULL, 0);
		return -1;
	}
	if (d.overflowed || d.lost_since) {
		bool lost = audit_lost() != lost_before;

		snprintf(trouble, sizeof(trouble), "%s", lost ? "records were lost on the way"
		                                             : "the reader says records were lost, and "
		                                               "the kernel lost none");
		denials_free(&d, NULL, 0);
		return lost ? -2 : -1;
	}
	v = denials_of(&d, pid, &n);
	for (size_t i = 0; v && i < n; i++)
		if (v[i].path && !strcmp(v[i].object, path) && strstr(v[i].rights, "fs.read_file"))
			count += (int)v[i].count;
	denials_free(&d, v, n);
	return count;
}

/* logged_once, made again where records were lost: -2 where they were
 * lost in every run. */
static int logged(sbx_scopeattr_t *s, const char *path, sbx_outcome_t *oc)
{
	int count = -2;

	for (int i = 0; i < AUDIT_RUNS && count == -2; i++)
		count = logged_once(s, path, oc);
	return count;
}

/* By default the kernel logs nothing a child is denied after its exec;
 * with the flag, each denial of the program, naming the path and the
 * right, and the domain the child made. */
START_TEST(test_log_denials_after_exec)
{
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	int without, with;

	REQUIRE_LANDLOCK();
	if (landlock_abi() < 7) {
		say_skip("SKIP %s: needs Landlock ABI 7 (this kernel has %d)\n", __func__,
		         landlock_abi());
		return;
	}
	if (!audit_on(__func__))
		return;
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	sbx_scopeattr_setevents(&s, 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	without = logged(&s, t.secret, &oc);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_LOG_DENIALS), 0);
	with = logged(&s, t.secret, &oc);
	audit_give();
	if (without == -2 || with == -2) {
		say_skip("SKIP %s: the audit log lost records in each of %d runs (it is the machine's: "
		         "another process's burst)\n", __func__, AUDIT_RUNS);
		sbx_scopeattr_destroy(&s);
		return;
	}
	ck_assert_msg(without >= 0 && with >= 0, "%s", trouble);
	ck_assert_int_eq(without, 0);
	ck_assert_int_eq(with, 1);
	ck_assert(oc.controls & SBX_SCOPE_LOG_DENIALS);
	sbx_scopeattr_destroy(&s);
}
END_TEST

static int downgraded;

static void count_downgraded(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	downgraded += ev->kind == SBX_EVENT_DOWNGRADED && !strcmp(ev->path, "log_denials");
}

/* Below ABI 7 it is not done, and said; the rest of the scope holds, and
 * SBX_SCOPE_STRICT refuses nothing for it (logging confines nothing). It
 * asks nothing of a child. */
START_TEST(test_log_denials_below_abi_7)
{
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	int empty = 0;

	REQUIRE_LANDLOCK();
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_LOG_DENIALS | SBX_SCOPE_STRICT), 0);
	ck_assert_int_eq(sbx_scopeattr_isempty(&s, &empty), 0);
	ck_assert_int_eq(empty, 1);
	ck_assert_int_eq(sbx_scopeattr_setabi(&s, 6), 0);
	sbx_scopeattr_setlogger(&s, count_downgraded, NULL);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	ck_assert_int_eq(run_scoped(&s, ARGV(FSOP, "read", t.secret), NULL), 1);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert(!(oc.controls & SBX_SCOPE_LOG_DENIALS));
	ck_assert_int_eq(downgraded, 1);
	ck_assert_int_eq(run_scoped(&s, ARGV(FSOP, "read", (char *)join(t.mine, "file")), NULL), 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* ---- sbxrun --report-denials -------------------------------------------- */

/* As root, with the log on: after the command, each access it was denied,
 * the right and the path, and why (the denial, the frozen directory and
 * the listing option); the command's own output and status as they are. */
START_TEST(test_sbxrun_report_denials)
{
	char cmd[16384];
	char *out;
	int status;

	REQUIRE_AUDITED();
	snprintf(cmd, sizeof(cmd), "cat %s; cat %s; ls %s; echo x > %s/new; cat %s/file; exit 3",
	         t.secret, t.secret, t.projects, t.projects, t.mine);
	status = audit_reported(ARGV(SBXRUN, "--report-denials", "--deny", t.other, "/bin/sh", "-c",
	                             cmd), &out);
	audit_give();
	ck_assert_int_eq(status, 3);
	SKIP_IF_LOSSY(out);
	ck_assert_ptr_nonnull(strstr(out, "mine\n"));
	ck_assert_msg(strstr(out, "sbxrun: denied read_file: ") &&
	                  strstr(out, "/other/secret (2 times): in the denial "),
	              "%s", out);
	ck_assert_msg(strstr(out, "sbxrun: denied read_dir: ") &&
	                  strstr(out, "/projects: frozen by ") && strstr(out, "--listable lists it"),
	              "%s", out);
	ck_assert_msg(strstr(out, "sbxrun: denied make_reg: "), "%s", out);
	ck_assert_msg(!strstr(out, "SBX_"), "a library name: %s", out);
	/* Nothing it started outlived it: no line says so. */
	ck_assert_msg(!strstr(out, "still ran"), "%s", out);
	free(out);
}
END_TEST

/* A name the command chose is data in the report: a carriage return, a
 * terminal's escape sequence (ESC, and C1's CSI) and a line of the report's
 * own are printed escaped, in the one line of that denial. */
START_TEST(test_sbxrun_report_escaped)
{
	/* ... and a library's name, which sbxrun says as its option in its
	 * own words, never in a name. */
	static const char forged[] = "x\r\033[2K\302\233Asbxrun: no access was denied\nSBX_SCOPE_HIDE";
	char name[4400];
	char *out;
	int status;

	REQUIRE_AUDITED();
	snprintf(name, sizeof(name), "%s/%s", t.other, forged);
	write_file(name, "secret\n", 0644);
	status = audit_reported(ARGV(SBXRUN, "--report-denials", "--deny", t.other, "/bin/cat", name),
	                        &out);
	audit_give();
	ck_assert_int_eq(status, 1);
	SKIP_IF_LOSSY(out);
	ck_assert_msg(!strchr(out, '\r') && !strchr(out, '\033') && !strstr(out, "\302\233"),
	              "a control character printed raw: %s", out);
	ck_assert_msg(strncmp(out, "sbxrun: no access was denied", 28) &&
	                  !strstr(out, "\nsbxrun: no access was denied"),
	              "a forged line: %s", out);
	ck_assert_msg(strstr(out, "sbxrun: denied read_file: ") &&
	                  strstr(out, "/x\\r\\x1b[2K\\xc2\\x9bAsbxrun: no access was denied\\nSBX_SCOPE_HIDE"),
	              "%s", out);
	free(out);
}
END_TEST

/* A denial by a layer the command added itself, of a file the scope
 * grants, is said as that layer's, never as the scope's grant. */
START_TEST(test_sbxrun_report_own_layer)
{
	char *out, file[4200];
	int status;

	REQUIRE_AUDITED();
	snprintf(file, sizeof(file), "%s/file", t.mine);
	status = audit_reported(ARGV(SBXRUN, "--report-denials", "--deny", t.other,
	                             HELPER_DIR "/fsop", "layer-read", file, "2"), &out);
	audit_give();
	ck_assert_int_eq(status, 1);
	SKIP_IF_LOSSY(out);
	ck_assert_msg(strstr(out, "sbxrun: denied read_file: ") &&
	                  strstr(out, "/mine/file: not by the scope, which grants it"),
	              "%s", out);
	ck_assert_msg(!strstr(out, ": granted: "), "%s", out);
	free(out);
}
END_TEST

/* Records the kernel lost while the command ran (its backlog held to one
 * record, with no wait for room: a burst of denials overflows it) are
 * said, never left out in silence; the kernel's own count tells the test
 * whether any were lost. */
START_TEST(test_sbxrun_report_lost)
{
	struct audit_status was = { 0 }, small, after = { 0 };
	char cmd[8192], *out;
	int status;

	REQUIRE_AUDITED();
	ck_assert_int_eq(audit_status(AUDIT_GET, &was), 0);
	small = (struct audit_status){ .mask = AUDIT_STATUS_BACKLOG_LIMIT | AUDIT_STATUS_BACKLOG_WAIT_TIME,
	                               .backlog_limit = 1, .backlog_wait_time = 0 };
	ck_assert_int_eq(audit_status(AUDIT_SET, &small), 0);
	snprintf(cmd, sizeof(cmd), "i=0; while [ $i -lt 2000 ]; do cat %s 2>/dev/null; i=$((i + 1)); done; "
	         "exit 3", t.secret);
	status = run_scoped(NULL, ARGV(SBXRUN, "--report-denials", "--deny", t.other, "/bin/sh", "-c",
	                               cmd), &out);
	audit_status(AUDIT_GET, &after);
	audit_give();
	ck_assert_int_eq(status, 3);
	/* The scope held: not one of the reads got through (the rest of the
	 * output is the report; its tail is what the messages show). */
	ck_assert_msg(!strstr(out, "the-secret"), "read through the denial: ...%s",
	              out + (strlen(out) > 400 ? strlen(out) - 400 : 0));
	if (after.lost == was.lost) {
		say_skip("SKIP %s: the kernel lost no record (a backlog of one kept up)\n", __func__);
		free(out);
		return;
	}
	ck_assert_msg(strstr(out, "sbxrun: the kernel lost ") && strstr(out, "audit records while the command ran"),
	              "...%s", out + (strlen(out) > 400 ? strlen(out) - 400 : 0));
	ck_assert_msg(!strstr(out, "sbxrun: no access was denied\n"), "...%s",
	              out + (strlen(out) > 400 ? strlen(out) - 400 : 0));
	free(out);
}
END_TEST


/* A process the command started that outlives it (a grandchild whose
 * parent ended, waiting on a FIFO the test opens only after sbxrun ended)
 * is counted under --keep-tree: the report says what it cannot see.  By
 * default it is ended before the report, which then has nothing to say
 * of it: the FIFO has no reader left. */
START_TEST(test_sbxrun_report_survivors)
{
	char fifo[4200], cmd[9000], *out;
	int status, fd;

	REQUIRE_AUDITED();
	snprintf(fifo, sizeof(fifo), "%s/fifo", t.mine);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	snprintf(cmd, sizeof(cmd), "(cat '%s' >/dev/null 2>&1 </dev/null &); cat %s; exit 0", fifo, t.secret);
	status = audit_reported(ARGV(SBXRUN, "--report-denials", "--deny", t.other, "/bin/sh", "-c",
	                             cmd), &out);
	ck_assert_int_eq(status, 0);
	/* The denial is looked for where no record was lost; the line of
	 * what still ran, which counts processes, in every run. */
	if (!audit_lossy_part(__func__, out, "the denial's line"))
		ck_assert_msg(strstr(out, "sbxrun: denied read_file: "), "%s", out);
	ck_assert_msg(!strstr(out, "still ran"), "%s", out);
	free(out);
	errno = 0;
	ck_assert_int_eq(open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC), -1);
	ck_assert_int_eq(errno, ENXIO); /* no reader: the survivor was ended */
	status = audit_reported(ARGV(SBXRUN, "--report-denials", "--keep-tree", "--deny", t.other,
	                             "/bin/sh", "-c", cmd), &out);
	audit_give();
	/* The survivors (one a run), released: a writer opens their FIFO. */
	fd = open(fifo, O_WRONLY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	ck_assert_int_eq(status, 0);
	if (!audit_lossy_part(__func__, out, "the denial's line, --keep-tree"))
		ck_assert_msg(strstr(out, "sbxrun: denied read_file: "), "%s", out);
	ck_assert_msg(strstr(out, "sbxrun: 1 process the command started still ran when it ended: "
	                          "what it is denied after this report is not in it"),
	              "%s", out);
	free(out);
}
END_TEST

/* Under SBX_SCOPE_LOG_DENIALS, a layer of the command's own that would
 * not log as the scope's does (nothing after its exec, its own denials or
 * its subdomains' off) is refused: what the caller reads is whole.
 * Without the flag, the same layer is made (the positive control), and a
 * layer that logs after its exec is made under it too. */
START_TEST(test_log_off_refused)
{
	/* None (nothing logged after its exec), SAME_EXEC_OFF, SUBDOMAINS_OFF,
	 * and either with NEW_EXEC_ON. */
	static const char *const off[] = { "0", "1", "4", "5", "3", "6" };
	sbx_scopeattr_t plain, logging;
	char file[4200];

	REQUIRE_LANDLOCK();
	if (landlock_abi() < 7) {
		say_skip("SKIP %s: needs Landlock ABI 7\n", __func__);
		return;
	}
	snprintf(file, sizeof(file), "%s/file", t.mine);
	ck_assert(sbx_scopeattr_init(&plain) == 0 && sbx_scopeattr_init(&logging) == 0);
	sbx_scopeattr_setlogger(&plain, quiet, NULL);
	sbx_scopeattr_setlogger(&logging, quiet, NULL);
	ck_assert(sbx_scopeattr_adddeny(&plain, t.other) == 0 && sbx_scopeattr_adddeny(&logging, t.other) == 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(&logging, SBX_SCOPE_LOG_DENIALS), 0);
	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
		ck_assert_str_eq(fsop_verdict(&plain, "layer-read", file, off[i]), "EACCES");
		ck_assert_str_eq(fsop_verdict(&logging, "layer-read", file, off[i]), "EPERM");
	}
	ck_assert_str_eq(fsop_verdict(&logging, "layer-read", file, "2"), "EACCES");
	sbx_scopeattr_destroy(&plain);
	sbx_scopeattr_destroy(&logging);
}
END_TEST

/* Where the log is off, one line says so and what to do; the command runs
 * all the same. */
START_TEST(test_sbxrun_no_report)
{
	struct audit_status st = { 0 }, off = { .mask = AUDIT_STATUS_ENABLED, .enabled = 0 };
	char *out;
	int status, err;

	REQUIRE_LANDLOCK();
	if ((err = audit_status(AUDIT_GET, &st))) {
		/* Not root (the line names what is missing), or no audit here
		 * at all (a container's namespaces): one line all the same. */
		ck_assert_int_eq(run_scoped(NULL, ARGV(SBXRUN, "--report-denials", "--deny", t.other,
		                                       "/bin/echo", "ran"), &out), 0);
		ck_assert_msg(strstr(out, "ran\n") && lines_with(out, "sbxrun: no denial report: ") == 1 &&
		                  (err != EPERM || strstr(out, "CAP_AUDIT_CONTROL")), "%s", out);
		free(out);
		return;
	}
	if ((err = audit_take(&st))) {
		say_skip("SKIP %s: the audit log cannot be taken (%s)\n", __func__, strerror(err));
		return;
	}
	if (st.enabled == 2) {
		audit_give();
		say_skip("SKIP %s: the audit log is locked on (enabled=2)\n", __func__);
		return;
	}
	if (st.enabled)
		audit_status(AUDIT_SET, &off);
	status = run_scoped(NULL, ARGV(SBXRUN, "--report-denials", "--deny", t.other, "/bin/cat",
	                               t.secret), &out);
	audit_give();
	ck_assert_int_eq(status, 1);
	ck_assert_msg(strstr(out, "Permission denied"), "%s", out);
	ck_assert_msg(strstr(out, "sbxrun: no denial report: the audit log is off: turn it on as "
	                          "root (auditctl -e 1"), "%s", out);
	free(out);
}
END_TEST

Suite *suite_denials(void)
{
	Suite *su = suite_create("denials");
	TCase *tc = tcase_create("audit");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_log_denials_after_exec);
	tcase_add_test(tc, test_log_denials_below_abi_7);
	tcase_add_test(tc, test_sbxrun_report_denials);
	tcase_add_test(tc, test_sbxrun_report_escaped);
	tcase_add_test(tc, test_sbxrun_report_own_layer);
	tcase_add_test(tc, test_sbxrun_report_lost);
	tcase_add_test(tc, test_sbxrun_report_survivors);
	tcase_add_test(tc, test_log_off_refused);
	tcase_add_test(tc, test_sbxrun_no_report);
	suite_add_tcase(su, tc);
	return su;
}

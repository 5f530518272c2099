/* SPDX-License-Identifier: MIT */
/* A busy directory, the usability suite's last part (usability.h): one
 * line, not a storm, when its entries come and go under a compile; and
 * between spawns, where a kept compile checks it again. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/usability.h"

/* ---- 7. a busy directory is one line, not a storm ------------------------- */

/* A logger that sends every event on to the default one, and, when the
 * busy directory is listed, removes most of what the listing holds: the
 * entries vanish between listing and opening, as another process's files
 * do in a busy /tmp. */
static const char *busy_dir;
static int root_listed;

static void busy_logger(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	root_listed += ev->kind == SBX_EVENT_EXPAND && !strcmp(ev->path, "/");
	if (ev->kind == SBX_EVENT_EXPAND && !strcmp(ev->path, busy_dir))
		for (int i = 0; i < 200; i++)
			if (i % 4)
				unlink(join(busy_dir, fmt_cmd("f%d", i)));
	sbx_logger_default(ev, NULL);
}

START_TEST(test_churn_one_line)
{
	char busy[4096], buf[1 << 16];
	int fd = memfd_create("stderr", 0), saved = dup(2), summaries = 0, others = 0;
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	ssize_t n;
	pid_t pid;

	REQUIRE_LANDLOCK();
	snprintf(busy, sizeof(busy), "%s/busy", ut.top);
	mkdir(busy, 0755);
	for (int i = 0; i < 200; i++)
		write_file(join(busy, fmt_cmd("f%d", i)), "", 0644);
	busy_dir = busy;
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	sbx_scopeattr_setlogger(&s, busy_logger, NULL);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, join(busy, "denied")), 0);
	dup2(fd, 2);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, ARGV("true"), environ), 0);
	dup2(saved, 2);
	wait_status(pid);
	/* The outcome lists every one ... */
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_uint_eq(oc.dropped, 150);
	/* ... and the default logger says nothing of them, not one line a
	 * name: the next spawn lists the directory again (a snapshot, which
	 * keeps them unreachable, says one line: check_said.c). */
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	for (char *p = buf; *p; p = strchr(p, '\n') + 1) {
		char *end = strchr(p, '\n');

		summaries += strstr(p, "entries of") && strstr(p, "entries of") < end;
		others += strstr(p, "stays unreachable") && strstr(p, "stays unreachable") < end;
	}
	ck_assert_msg(summaries == 0 && others == 0, "%s", buf);

	/* What vanished is gone from the directory, which the next spawn
	 * lists again, with no new compile: the busy directory is not a
	 * compile at every spawn. */
	ck_assert_int_eq(root_listed, 1);
	dup2(fd, 2);
	ck_assert_int_eq(sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, ARGV("true"), environ), 0);
	dup2(saved, 2);
	wait_status(pid);
	ck_assert_int_eq(root_listed, 1);
	/* Listed again, the directory holds what the spawn grants: narrowed
	 * no more. */
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_CONFINED);
	ck_assert_uint_eq(oc.dropped, 0);
	/* A name that comes back, the directory quiet now, is granted by
	 * that listing. */
	busy_dir = "";
	write_file(join(busy, "f1"), "back\n", 0644);
	const char *out;
	ck_assert_int_eq(run_under(&s, ARGV("/bin/cat", (char *)join(busy, "f1")), &out), 0);
	ck_assert_str_eq(out, "back\n");
	ck_assert_int_eq(root_listed, 1);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* Files come and go in a busy directory between spawns: an unlinked grant
 * needs no new compile (the kernel said it was unlinked), a grant renamed
 * away does (it may be beneath a denial now), and whatever holds a name
 * afterwards is judged anew. */
static int compiles;

static void count_compiles(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	compiles += ev->kind == SBX_EVENT_EXPAND && !strcmp(ev->path, "/");
}

/* Whether this process may open file handles (open_by_handle_at needs
 * CAP_DAC_READ_SEARCH in the effective set). */
static bool handles_open(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	unsigned long long eff = 0;
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	if (f)
		fclose(f);
	return eff & (1ULL << 2); /* CAP_DAC_READ_SEARCH */
}

START_TEST(test_busy_dir_between_spawns)
{
	char busy[4096], denied[4096];
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	const char *out;

	REQUIRE_LANDLOCK();
	snprintf(busy, sizeof(busy), "%s/busy", ut.top);
	snprintf(denied, sizeof(denied), "%s/denied", busy);
	mkdir(busy, 0755);
	mkdir(denied, 0755);
	for (int i = 0; i < 8; i++)
		write_file(join(busy, fmt_cmd("f%d", i)), fmt_cmd("file %d\n", i), 0644);
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	expand_way(&s);
	sbx_scopeattr_setlogger(&s, count_compiles, NULL);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, denied), 0);
	ck_assert_int_eq(run_under(&s, ARGV("/bin/cat", (char *)join(busy, "f0")), &out), 0);
	ck_assert_int_eq(compiles, 1);
	/* A scope's first compile at a spawn watches nothing (most such
	 * scopes serve one spawn): an unlinked grant then means a compile,
	 * which watches, as every later one of the scope does. */
	ck_assert_int_eq(unlink(join(busy, "f5")), 0);
	ck_assert_int_eq(run_under(&s, ARGV("/bin/cat", (char *)join(busy, "f0")), &out), 0);
	ck_assert_int_eq(compiles, 2);
	compiles = 1;

	/* Unlinked, and one replaced by a new file of the same name. */
	ck_assert_int_eq(unlink(join(busy, "f1")), 0);
	ck_assert_int_eq(unlink(join(busy, "f3")), 0);
	write_file(join(busy, "f3"), "new 3\n", 0644);
	ck_assert_int_eq(run_under(&s, ARGV("/bin/cat", (char *)join(busy, "f3")), &out), 0);
	ck_assert_str_eq(out, "new 3\n");
	/* An unlinked grant is forgotten only where its inode is shown to
	 * have no name left, by a file handle, which only a caller with
	 * CAP_DAC_READ_SEARCH may open: any other compiles again. */
	if (!handles_open()) {
		say_skip("SKIP %s (reuse after an unlink): this caller cannot open file "
		        "handles (no CAP_DAC_READ_SEARCH): it compiles again\n", __func__);
		ck_assert_int_eq(compiles, 2);
		compiles = 1;
	}
	ck_assert_int_eq(compiles, 1);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_CONFINED);

	/* Renamed into the denial: compiled anew, and what it holds is not
	 * reachable there. */
	ck_assert_int_eq(rename(join(busy, "f2"), join(denied, "f2")), 0);
	ck_assert_int_eq(run_under(&s, ARGV("/bin/cat", (char *)join(denied, "f2")), &out), 1);
	ck_assert_int_eq(compiles, 2);

	/* Renamed away, then its name made and unlinked again: the first
	 * word on the name is the rename, and that decides. */
	ck_assert_int_eq(run_under(&s, ARGV("/bin/true"), &out), 0);
	ck_assert_int_eq(rename(join(busy, "f4"), join(denied, "f4")), 0);
	write_file(join(busy, "f4"), "decoy\n", 0644);
	ck_assert_int_eq(unlink(join(busy, "f4")), 0);
	ck_assert_int_eq(run_under(&s, ARGV("/bin/cat", (char *)join(denied, "f4")), &out), 1);
	ck_assert_int_eq(compiles, 3);
	sbx_scopeattr_destroy(&s);
}
END_TEST

void busy_tests(TCase *tc)
{
	tcase_add_test(tc, test_churn_one_line);
	tcase_add_test(tc, test_busy_dir_between_spawns);
}

/* SPDX-License-Identifier: MIT */
/*
 * The churn section: reuse while another process churns an expanded
 * directory.  A kept scope denies an entry of a directory shaped like /tmp
 * (so that the directory is expanded, and its other entries granted) and
 * spawns /bin/true while a churner, a process forked for the section and
 * stopped after it, creates and removes 1,000 unrelated files a second in
 * that directory; against the same scope over a directory of the same
 * shape that nothing churns (its reference: what the churn costs is their
 * ratio), posix_spawn and the same denial compiled once, in the same
 * rounds.  Three runs: no churner, files unlinked as soon as they are
 * written, and files that live 100 ms.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "fixture.h"
#include "sections.h"

#define NTMP 200            /* entries of the /tmp-like directory */
#define CHURN_PERIOD 1000000 /* ns between two files: 1,000 a second */
#define CHURN_BYTES 64      /* written to each file */
#define CHURN_RING 128      /* longest life, in periods */

/* ---- the churner ---------------------------------------------------------- */

/* Written by the churner, read by the section once it has stopped. */
struct churn_shared {
	atomic_int stop;
	unsigned created, lived;
	double life_ns; /* summed over the `lived' files unlinked while running */
	double started, ended;
};

static struct churn_shared *shared;

static void churn_name(char *name, unsigned seq)
{
	snprintf(name, 32, "churn%08u", seq);
}

static void churn_unlink(int dfd, unsigned seq, const double *born, bool count)
{
	char name[32];

	churn_name(name, seq);
	if (unlinkat(dfd, name, 0))
		_exit(2);
	if (count) {
		shared->life_ns += now_ns() - born[seq % CHURN_RING];
		shared->lived++;
	}
}

/* The next period's start; a churner late by more than 20 periods (the
 * machine was busy) starts again from now rather than catch up in a burst. */
static void churn_tick(struct timespec *next)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	next->tv_nsec += CHURN_PERIOD;
	if (next->tv_nsec >= 1000000000) {
		next->tv_sec++;
		next->tv_nsec -= 1000000000;
	}
	if ((now.tv_sec - next->tv_sec) * 1000000000LL + (now.tv_nsec - next->tv_nsec) >
	    20LL * CHURN_PERIOD)
		*next = now;
}

/* One file a period: created, written, closed; unlinked at once (life 0)
 * or `life' periods later.  Killed with its parent. */
static _Noreturn void churn_main(const char *dir, int life, pid_t parent)
{
	static const char payload[CHURN_BYTES] = "churn";
	double born[CHURN_RING];
	struct timespec next;
	unsigned seq = 0;
	char name[32];
	int dfd;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(1);
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		_exit(2);
	clock_gettime(CLOCK_MONOTONIC, &next);
	shared->started = now_ns();
	while (!atomic_load(&shared->stop)) {
		int fd;

		churn_tick(&next);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		churn_name(name, seq);
		born[seq % CHURN_RING] = now_ns();
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, payload, sizeof(payload)) != (ssize_t)sizeof(payload))
			_exit(2);
		close(fd);
		if (seq >= (unsigned)life)
			churn_unlink(dfd, seq - (unsigned)life, born, true);
		shared->created = ++seq;
	}
	shared->ended = now_ns();
	for (unsigned s = seq > (unsigned)life ? seq - (unsigned)life : 0; s < seq; s++)
		churn_unlink(dfd, s, born, false);
	_exit(0);
}

static pid_t churn_start(const char *dir, int life)
{
	pid_t parent = getpid(), pid;

	memset(shared, 0, sizeof(*shared));
	fflush(NULL);
	if ((pid = fork()) < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0)
		churn_main(dir, life, parent);
	return pid;
}

static void churn_stop(pid_t pid)
{
	int status;

	atomic_store(&shared->stop, 1);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid: %s", strerror(errno));
	if (status)
		die("the churner failed: wait status 0x%x", status);
}

/* ---- section: churn ----------------------------------------------------- */

enum { C_POSIX, C_QUIET, C_KEPT, C_ONCE, C_COUNT };

struct pattern {
	const char *name;
	int life; /* periods a file lives; -1: no churner */
};

struct churn {
	char dir[PATH_MAX], quiet[PATH_MAX];
	sbx_scopeattr_t scope[C_COUNT];
	struct tally tally[C_COUNT];
	struct variant v[C_COUNT];
};

/* What the churner did, said once it has stopped. */
static void churn_say(const struct pattern *p)
{
	double secs = (shared->ended - shared->started) / 1e9;
	double life = shared->lived ? shared->life_ns / shared->lived : NAN;

	if (p->life < 0) {
		printf("  %s\n", p->name);
		return;
	}
	printf("  %s: a file every %d ms in the expanded directory (%.0f/s achieved): created,"
	       " %d bytes\n  written, closed, ", p->name, CHURN_PERIOD / 1000000,
	       shared->created / secs, CHURN_BYTES);
	if (p->life == 0)
		printf("and unlinked at once: each file lives %.0f us\n", life / 1e3);
	else
		printf("and unlinked %d ms later: each lives %.1f ms, ~%d at any moment\n",
		       p->life * CHURN_PERIOD / 1000000, life / 1e6, p->life);
}

static void churn_run(struct churn *c, const struct pattern *p, int n, bool judged)
{
	static const char *const what[C_COUNT] = { "posix_spawn", "kept scope, quiet directory",
		                                   "kept scope", "compiled once" };
	double ratio;
	const char *verdict = NULL;
	char name[80], target[40] = "";
	pid_t pid = -1;

	if (p->life >= 0) {
		pid = churn_start(c->dir, p->life);
		/* Until as many files live as will while measuring. */
		usleep((useconds_t)(p->life * CHURN_PERIOD / 1000 + 200000));
	}
	for (int i = 0; i < C_COUNT; i++) {
		free(c->v[i].t.v);
		free(c->v[i].cpu.v);
		c->v[i].t = c->v[i].cpu = (struct samples){ 0 };
		tally_reset(&c->tally[i]);
	}
	measure(c->v, C_COUNT, n);
	if (pid > 0)
		churn_stop(pid);
	churn_say(p);
	/* Judged on processor time: the churner's own load is on the machine
	 * for both rows alike, and moves wall time more. */
	ratio = paired(&c->v[C_KEPT].cpu, &c->v[C_QUIET].cpu);
	if (judged) {
		verdict = judge(ratio, TARGET_CHURN, false,
		                "kept scope beside 1,000 files/s unlinked at once: %.3fx the same scope"
		                " on a quiet directory (cpu; wall %.3fx) (<= %.2fx)",
		                ratio, paired(&c->v[C_KEPT].t, &c->v[C_QUIET].t), TARGET_CHURN);
		snprintf(target, sizeof(target), "<= %.2fx quiet", TARGET_CHURN);
	}
	for (int i = 0; i < C_COUNT; i++) {
		snprintf(name, sizeof(name), "%s: %s", p->name, what[i]);
		print_tallied_row(&(struct tallied_row){
			.section = "churn", .label = what[i], .name = name, .v = &c->v[i],
			.base = &c->v[C_POSIX], .t = i == C_POSIX ? NULL : &c->tally[i],
			.param = p->life, .target = i == C_KEPT && judged ? target : NULL,
			.verdict = i == C_KEPT ? verdict : NULL });
	}
	printf("  kept scope against the same on a quiet directory: %.3fx wall, %.3fx cpu;"
	       " against compiled once: %.2fx\n",
	       paired(&c->v[C_KEPT].t, &c->v[C_QUIET].t), paired(&c->v[C_KEPT].cpu, &c->v[C_QUIET].cpu),
	       paired(&c->v[C_KEPT].t, &c->v[C_ONCE].t));
}

static void churn_setup(struct churn *c)
{
	char denied[PATH_MAX], quiet[PATH_MAX], *deny[1] = { denied }, *deny_quiet[1] = { quiet };

	join(c->dir, fixture_root, "tmp");
	join(c->quiet, fixture_root, "tmpq");
	make_dir(c->dir);
	make_dir(c->quiet);
	make_entries(c->dir, "t", NTMP, 4);
	make_entries(c->quiet, "t", NTMP, 4);
	sync_dir(c->dir);
	join(denied, c->dir, "t0000");
	join(quiet, c->quiet, "t0000");
	for (int i = 0; i < C_COUNT; i++) {
		c->v[i] = (struct variant){ .spawn = spawn_tallied, .argv = spawn_rows[V_POSIX].argv,
		                            .envp = child_env, .name = "churn" };
		if (i == C_POSIX) {
			c->v[i].spawn = spawn_rows[V_POSIX].spawn;
			continue;
		}
		scope_make(&c->scope[i], i == C_QUIET ? deny_quiet : deny, 1, i == C_ONCE);
		tally_attach(&c->scope[i], &c->tally[i]);
		c->v[i].scope = &c->scope[i];
	}
	for (int i = 0; i < C_COUNT; i++) {
		trial(&c->v[i]);
		trial(&c->v[i]);
	}
}

void churn_section(void)
{
	static const struct pattern patterns[] = {
		{ "no churner", -1 },
		{ "1 ms apart, unlinked at once", 0 },
		{ "1 ms apart, each lives 100 ms", 100 },
	};
	static struct churn c;
	int n = rounds(200);

	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
	              0);
	if (shared == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	churn_setup(&c);
	printf("\nreuse under churn: a kept scope denying %s/t0000 (an expanded directory of %d"
	       " entries)\nagainst the same scope over a directory of the same shape that nothing"
	       " churns, posix_spawn\nand the same denial compiled once, %d rounds interleaved"
	       " per churner;\nspawns: clean hits/re-listed/compiled\n",
	       c.dir, NTMP, n);
	printf("  %-34s %9s %8s %8s %8s %7s %6s %13s  %s\n", "", "median us", "p10", "cpu us", "x posix", "x cpu",
	       "rules", "spawns", "target");
	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
		churn_run(&c, &patterns[i], n, patterns[i].life == 0);
	for (int i = 0; i < C_COUNT; i++) {
		free(c.v[i].t.v);
		free(c.v[i].cpu.v);
		if (c.v[i].scope)
			sbx_scopeattr_destroy(&c.scope[i]);
	}
	tally_clear();
	munmap(shared, sizeof(*shared));
	remove_tree(c.dir);
	remove_tree(c.quiet);
}

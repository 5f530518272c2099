/* SPDX-License-Identifier: MIT */
/*
 * The reuse section: what the reuse check costs a spawn.  A kept scope
 * (never sbx_scopeattr_compile()d: a spawn reuses the last compile when
 * one statx per visited directory says nothing changed) against the same
 * denials compiled once as a snapshot and against posix_spawn, at ~100 and
 * ~1000 rules, in the same rounds, with the check's own system calls timed
 * by hand in the same rotation.  Also the tally that says what each
 * spawn of a kept scope did (a clean hit, a re-listing, a compile), and
 * the row printer that churn.c shares.
 */
#include "config.h"

#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compat/landlock.h"

#include "harness.h"
#include "fixture.h"
#include "sections.h"

/* ---- the tally ---------------------------------------------------------- */

static struct {
	const sbx_scopeattr_t *scope;
	struct tally *t;
} tallied[8];
static int ntallied;

/* Expansion events: a compile says "expanding DIR (N entries)" for each
 * directory it lists, the reuse check "expanding DIR again (N entries)"
 * for each it lists again.  Every other event goes to quiet_logger. */
static void tally_logger(const sbx_event_t *ev, void *arg)
{
	struct tally *t = arg;

	if (ev->kind != SBX_EVENT_EXPAND) {
		quiet_logger(ev, NULL);
		return;
	}
	if (strstr(ev->message, " again "))
		t->ev_relisted++;
	else
		t->ev_compiled++;
}

void tally_attach(sbx_scopeattr_t *s, struct tally *t)
{
	int err = sbx_scopeattr_setlogger(s, tally_logger, t);

	if (err)
		die("setlogger: %s", sbx_strerror(err));
	if (ntallied == (int)(sizeof(tallied) / sizeof(tallied[0])))
		die("too many tallied scopes");
	tallied[ntallied].scope = s;
	tallied[ntallied++].t = t;
	tally_reset(t);
}

void tally_clear(void)
{
	ntallied = 0;
}

void tally_reset(struct tally *t)
{
	*t = (struct tally){ 0 };
}

int spawn_tallied(const struct variant *v, pid_t *pid)
{
	struct tally *t = NULL;
	unsigned compiled, relisted;
	int err;

	for (int i = 0; i < ntallied && !t; i++)
		if (tallied[i].scope == v->scope)
			t = tallied[i].t;
	if (!t)
		die("%s: no tally", v->name);
	compiled = t->ev_compiled;
	relisted = t->ev_relisted;
	err = spawn_sbx(v, pid);
	if (t->ev_compiled != compiled)
		t->compiles++;
	else if (t->ev_relisted != relisted)
		t->relists++;
	else
		t->hits++;
	return err;
}

/* A row: the variant against base (posix_spawn of the same rounds), and
 * what its spawns did when it has a tally. */
void print_tallied_row(const struct tallied_row *r)
{
	const struct variant *v = r->v;
	double m = median(&v->t), ratio = paired(&v->t, &r->base->t);
	double xc = paired(&v->cpu, &r->base->cpu);
	char did[40] = "", rules[24] = "";

	if (v->skip[0]) {
		printf("  %-34s %s\n", r->label, v->skip);
		return;
	}
	if (r->t)
		snprintf(did, sizeof(did), "%u/%u/%u", r->t->hits, r->t->relists, r->t->compiles);
	if (v->rules >= 0)
		snprintf(rules, sizeof(rules), "%ld", v->rules);
	printf("  %-34s %9.1f %8.1f %8.1f %7.2fx %6.2fx %6s %13s  %s%s%s\n", r->label, m / 1e3,
	       pct(&v->t, 10) / 1e3, median(&v->cpu) / 1e3, ratio, xc, rules, did,
	       r->target ? r->target : "", r->target ? ": " : "", r->verdict ? r->verdict : "");
	csv_row(&(struct row){ .section = r->section, .name = r->name ? r->name : r->label,
	                       .param = r->param, .s = &v->t, .unit = "ns", .ratio = ratio,
	                       .ratio_to = "posix_spawn", .rules = v->rules, .target = r->target,
	                       .verdict = r->verdict });
}

/* ---- section: reuse ----------------------------------------------------- */

enum { R_POSIX, R_HOME_KEPT, R_HOME_ONCE, R_WIDE_KEPT, R_WIDE_ONCE, R_COUNT };

static sbx_scopeattr_t reuse_scopes[R_COUNT];
static struct tally reuse_tally[R_COUNT];

static void reuse_setup(struct variant *v)
{
	static const char *const names[R_COUNT] = {
		"posix_spawn (glibc)", "~100 rules: kept scope, reused", "~100 rules: compiled once",
		"~1000 rules: kept scope, reused", "~1000 rules: compiled once"
	};

	for (int i = 0; i < R_COUNT; i++) {
		v[i] = (struct variant){ .name = names[i], .spawn = spawn_tallied,
		                         .argv = spawn_rows[V_POSIX].argv, .envp = child_env };
		if (i == R_POSIX) {
			v[i].spawn = spawn_rows[V_POSIX].spawn;
			continue;
		}
		if (i <= R_HOME_ONCE)
			scope_make(&reuse_scopes[i], deny_home, 4, i == R_HOME_ONCE);
		else
			scope_make(&reuse_scopes[i], deny_wide, 1, i == R_WIDE_ONCE);
		tally_attach(&reuse_scopes[i], &reuse_tally[i]);
		v[i].scope = &reuse_scopes[i];
	}
	/* The kept scopes' first compiles, and a second spawn each: a
	 * directory read within a clock tick of a change is re-listed until
	 * its stamp is old enough to prove something. */
	for (int i = 0; i < R_COUNT; i++) {
		trial(&v[i]);
		trial(&v[i]);
		if (v[i].scope)
			tally_reset(&reuse_tally[i]);
	}
}

/* ---- the check's own system calls ---------------------------------------- */

/* What a reuse hit does in the parent (lib/cache/ruleset.c, lib/cache/reuse.c), done
 * by hand: the ruleset probed, the mount table's fstat and poll, and for
 * every directory the compile visited (each proper ancestor of a denied
 * path) the clock read and one statx by path. */
struct check {
	const char *name;
	char **dirs;
	int n;
	struct samples t;
};

static int check_rs = -1, check_mounts = -1;

static void check_add_dir(struct check *c, const char *dir, size_t len)
{
	for (int i = 0; i < c->n; i++)
		if (strlen(c->dirs[i]) == len && !strncmp(c->dirs[i], dir, len))
			return;
	c->dirs = xrealloc(c->dirs, (size_t)(c->n + 1) * sizeof(*c->dirs));
	c->dirs[c->n] = strndup(dir, len);
	if (!c->dirs[c->n++])
		die("out of memory");
}

static void check_init(struct check *c, const char *name, char *const *deny, int ndeny)
{
	struct sbx_landlock_ruleset_attr attr = { .handled_access_fs = LANDLOCK_ACCESS_FS_EXECUTE };

	*c = (struct check){ .name = name };
	for (int i = 0; i < ndeny; i++) {
		check_add_dir(c, "/", 1);
		for (const char *p = strchr(deny[i] + 1, '/'); p; p = strchr(p + 1, '/'))
			check_add_dir(c, deny[i], (size_t)(p - deny[i]));
	}
	if (check_rs < 0)
		check_rs = (int)sbx_landlock_create_ruleset(&attr, sizeof(attr), 0);
	if (check_mounts < 0)
		check_mounts = open("/proc/thread-self/mountinfo", O_RDONLY | O_CLOEXEC);
}

static void check_syscalls(const struct check *c)
{
	struct pollfd pfd = { .fd = check_mounts, .events = POLLPRI };
	struct timespec now;
	struct statx sx;
	struct stat st;

	(void)sbx_landlock_add_rule(check_rs, 0, NULL, 0);
	(void)fstat(check_mounts, &st);
	(void)poll(&pfd, 1, 0);
	for (int i = 0; i < c->n; i++) {
		clock_gettime(CLOCK_REALTIME, &now);
		(void)statx(AT_FDCWD, c->dirs[i], AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
		            STATX_TYPE | STATX_INO | STATX_MTIME | STATX_CTIME | STATX_MNT_ID, &sx);
	}
}

/* One sample: the mean of a few checks in a row. */
static void check_time(struct check *c)
{
	double t0 = now_ns();

	for (int i = 0; i < 10; i++)
		check_syscalls(c);
	samples_add(&c->t, (now_ns() - t0) / 10);
}

static void check_free(struct check *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->dirs[i]);
	free(c->dirs);
	free(c->t.v);
}

/* ---- section: reuse ------------------------------------------------------ */

/* The spawns and the two checks, all in one rotation per round. */
static void reuse_rounds(struct variant *v, struct check *c, int nrounds)
{
	enum { SLOTS = R_COUNT + 2 };

	for (int r = 0; r < nrounds; r++)
		for (int k = 0; k < SLOTS; k++) {
			int slot = (r + k) % SLOTS, err, status;
			double t;

			if (slot >= R_COUNT) {
				check_time(&c[slot - R_COUNT]);
				continue;
			}
			if (v[slot].skip[0])
				continue;
			if ((t = spawn_wait(&v[slot], &err, &status)) < 0) {
				snprintf(v[slot].skip, sizeof(v[slot].skip), "failed during the run");
			} else {
				samples_add(&v[slot].t, t);
				samples_add(&v[slot].cpu, last_cpu_ns);
			}
		}
}

static double ratio_of(const struct variant *v, int a, int b)
{
	return paired(&v[a].t, &v[b].t);
}

/* Kept against compiled once and against posix_spawn; the check alone. */
static void reuse_notes(const struct variant *v, int kept, int once, const struct check *c)
{
	double chk = median(&c->t), base = median(&v[R_POSIX].t);

	printf("  %s: kept %.3fx compiled once, %.3fx posix_spawn (compiled once %.3fx posix);\n"
	       "    the check's system calls alone (%d statx by path, a ruleset probe, the mount"
	       " table's fstat\n    and poll): %.1f us, %.3fx posix_spawn with them added\n",
	       c->name, ratio_of(v, kept, once), ratio_of(v, kept, R_POSIX),
	       ratio_of(v, once, R_POSIX), c->n, chk / 1e3, (base + chk) / base);
	csv_row(&(struct row){ .section = "reuse", .name = c->name, .param = c->n, .s = &c->t,
	                       .unit = "ns (the check's system calls)", .ratio = (base + chk) / base,
	                       .ratio_to = "posix_spawn", .rules = -1 });
}

/* These rows are about nothing having changed: say so when something
 * outside the bench changed a directory above the fixture meanwhile. */
static void reuse_outside(int n)
{
	unsigned missed = 0;

	for (int i = 0; i < R_COUNT; i++)
		missed += reuse_tally[i].relists + reuse_tally[i].compiles;
	if (missed * 20 <= 4u * (unsigned)n)
		return; /* at most one in twenty */
	printf("  note: %u of the %d spawns of these scopes re-listed a directory or compiled"
	       " anew: something\n  outside the bench changed a directory above the fixture (%s)"
	       " during the run;\n  BENCH_TMPDIR=DIR puts the fixture under a quieter one\n",
	       missed, 4 * n, fixture_root);
}

void reuse_section(void)
{
	struct variant v[R_COUNT];
	struct check c[2];
	int n = rounds(300);
	double wide;
	const char *vw;
	char tw[40];

	reuse_setup(v);
	check_init(&c[0], "~100 rules", deny_home, 4);
	check_init(&c[1], "~1000 rules", deny_wide, 1);
	reuse_rounds(v, c, n);
	wide = ratio_of(v, R_WIDE_KEPT, R_WIDE_ONCE);
	vw = judge(wide, TARGET_REUSE, false,
	           "~1000 rules, a reuse hit: %.3fx compiled once (<= %.2fx)", wide, TARGET_REUSE);
	snprintf(tw, sizeof(tw), "%.2fx once, <= %.2fx", wide, TARGET_REUSE);

	printf("\nreuse: a kept scope (never compiled by the caller, the last compile reused) against"
	       " the same\ndenials compiled once (a snapshot, which each spawn checks the same way),"
	       " %d rounds, interleaved;\nspawns: clean hits/re-listed/compiled\n", n);
	printf("  %-34s %9s %8s %8s %8s %7s %6s %13s  %s\n", "", "median us", "p10", "cpu us", "x posix", "x cpu",
	       "rules", "spawns", "target");
	for (int i = 0; i < R_COUNT; i++)
		print_tallied_row(&(struct tallied_row){
			.section = "reuse", .label = v[i].name, .v = &v[i], .base = &v[R_POSIX],
			.t = v[i].scope ? &reuse_tally[i] : NULL, .param = NAN,
			.target = i == R_WIDE_KEPT ? tw : NULL, .verdict = i == R_WIDE_KEPT ? vw : NULL });
	reuse_notes(v, R_HOME_KEPT, R_HOME_ONCE, &c[0]);
	reuse_notes(v, R_WIDE_KEPT, R_WIDE_ONCE, &c[1]);
	reuse_outside(n);
	for (int i = 0; i < R_COUNT; i++) {
		free(v[i].t.v);
		free(v[i].cpu.v);
		if (v[i].scope)
			sbx_scopeattr_destroy(&reuse_scopes[i]);
	}
	check_free(&c[0]);
	check_free(&c[1]);
	tally_clear();
}

/*
 * sbxbench: what confinement adds to a spawn, measured side by side.
 *
 * The machine this runs on may be shared and noisy, so no figure is ever
 * compared with one taken at another moment: the variants of a section run
 * in the same rounds, one after the other in an order that rotates every
 * round, and the table gives medians and ratios against the baseline
 * measured in this very run.  Targets are printed as PASS or MISS; a miss
 * never fails the run.
 *
 * Sections (BENCH_ONLY=spawn,memory,threads,compile picks some):
 *   spawn    spawn-and-wait of /bin/true, every way of doing it
 *   memory   spawn latency from a parent with a small heap and with 1 GiB
 *   threads  throughput of one and of two threads spawning
 *   compile  the compiler's cost per rule against the bare system calls
 *
 * BENCH_QUICK=1 runs a quarter of the rounds; BENCH_ROUNDS=N sets the
 * spawn section's rounds (300 by default) and scales the others with it.
 * BENCH_TMPDIR=DIR puts the fixture there (see fixture_parent()).
 */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "sbxspawn/sbxspawn.h"

#ifndef SBXRUN_PATH
#define SBXRUN_PATH "tools/sbxrun"
#endif

#define TRUE_PATH "/bin/true"
#define BIG_HEAP ((size_t)1 << 30)
#define MEM_BATCH 4
#define NPROJECTS 50
#define NHOME 60
#define NWIDE 1000

/* ---- targets: what the issue asks for ------------------------------- */

#define TARGET_ONCE 1.03    /* compiled once, against posix_spawn */
#define TARGET_FRESH 1.25   /* ~100 rules compiled at each spawn */
#define TARGET_FLOOR 1.2    /* compile against the bare system calls, per rule */
#define TARGET_LINEAR 1.2   /* per-rule growth 1k..100k, against the floor's */
#define TARGET_HEAP 1.1     /* 1 GiB parent against a small one */
#define TARGET_BWRAP 5.0    /* bwrap's latency over ours */

/* ---- options ---------------------------------------------------------- */

static struct {
	double scale;       /* of every section's rounds */
	const char *only;   /* comma-separated sections, or NULL for all */
	const char *csv;
	const char *sbxrun;
} opt = { .scale = 1.0, .csv = "bench/results.csv", .sbxrun = SBXRUN_PATH };

static _Noreturn __attribute__((format(printf, 1, 2))) void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "sbxbench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xrealloc(void *p, size_t size)
{
	if (!(p = realloc(p, size)))
		die("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	return strcpy(xrealloc(NULL, strlen(s) + 1), s);
}

static int rounds(int base)
{
	int n = (int)lround(base * opt.scale);

	return n < 3 ? 3 : n;
}

static bool wanted(const char *section)
{
	size_t len = strlen(section);

	if (!opt.only)
		return true;
	for (const char *p = opt.only; *p;) {
		const char *end = strchrnul(p, ',');

		if ((size_t)(end - p) == len && !memcmp(p, section, len))
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

static void parse_options(int argc, char **argv)
{
	const char *quick = getenv("BENCH_QUICK"), *n = getenv("BENCH_ROUNDS");

	if (quick && *quick && strcmp(quick, "0"))
		opt.scale = 0.25;
	if (n && atoi(n) > 0)
		opt.scale = atoi(n) / 300.0;
	opt.only = getenv("BENCH_ONLY");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--csv") && i + 1 < argc)
			opt.csv = argv[++i];
		else if (!strcmp(argv[i], "--sbxrun") && i + 1 < argc)
			opt.sbxrun = argv[++i];
		else
			die("usage: sbxbench [--csv FILE] [--sbxrun PATH]");
	}
}

/* ---- samples ---------------------------------------------------------- */

struct samples {
	double *v;
	size_t n, cap;
};

static void samples_add(struct samples *s, double x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = x;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The p-th percentile (0..100), nearest rank; NAN without samples. */
static double pct(const struct samples *s, double p)
{
	double *sorted, r;
	size_t i;

	if (!s->n)
		return NAN;
	sorted = xrealloc(NULL, s->n * sizeof(*sorted));
	memcpy(sorted, s->v, s->n * sizeof(*sorted));
	qsort(sorted, s->n, sizeof(*sorted), by_value);
	i = (size_t)lround(p / 100.0 * (double)(s->n - 1));
	r = sorted[i];
	free(sorted);
	return r;
}

static double median(const struct samples *s)
{
	return pct(s, 50);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---- results: the CSV file and the targets ---------------------------- */

static FILE *csv;

struct row {
	const char *section;
	const char *name;
	double param;         /* siblings, threads, heap MiB; NAN for none */
	const struct samples *s;
	double per;           /* the samples are divided by this (per rule); 0: 1 */
	double value;         /* when there are no samples */
	const char *unit;
	double ratio;         /* NAN for none */
	const char *ratio_to;
	long rules;           /* -1 for none */
	const char *target;
	const char *verdict;
};

static void csv_num(double x, const char *sep)
{
	if (isnan(x))
		fprintf(csv, "%s", sep);
	else
		fprintf(csv, "%.10g%s", x, sep);
}

static void csv_row(const struct row *r)
{
	double per = r->per > 0 ? r->per : 1;

	if (!csv)
		return;
	fprintf(csv, "%s,\"%s\",", r->section, r->name);
	csv_num(r->param, ",");
	csv_num(r->s ? median(r->s) / per : r->value, ",");
	csv_num(r->s ? pct(r->s, 10) / per : NAN, ",");
	csv_num(r->s ? pct(r->s, 90) / per : NAN, ",");
	fprintf(csv, "%zu,%s,", r->s ? r->s->n : 0, r->unit);
	csv_num(r->ratio, ",");
	fprintf(csv, "\"%s\",", r->ratio_to ? r->ratio_to : "");
	if (r->rules >= 0)
		fprintf(csv, "%ld", r->rules);
	fprintf(csv, ",\"%s\",%s\n", r->target ? r->target : "", r->verdict ? r->verdict : "");
}

static void csv_open(void)
{
	if (!(csv = fopen(opt.csv, "we"))) {
		fprintf(stderr, "sbxbench: %s: %s (no CSV written)\n", opt.csv, strerror(errno));
		return;
	}
	fprintf(csv, "section,name,param,median,p10,p90,samples,unit,ratio,ratio_to,rules,"
	             "target,verdict\n");
}

static struct {
	char text[200];
	const char *verdict;
} targets[32];
static int ntargets;

/* PASS when value is at most limit (or at least, with at_least). */
static __attribute__((format(printf, 4, 5))) const char *
judge(double value, double limit, bool at_least, const char *fmt, ...)
{
	const char *verdict = isnan(value)                ? "n/a"
	                      : (at_least ? value >= limit : value <= limit) ? "PASS"
	                                                                     : "MISS";
	va_list ap;

	if (ntargets < (int)(sizeof(targets) / sizeof(targets[0]))) {
		va_start(ap, fmt);
		vsnprintf(targets[ntargets].text, sizeof(targets[0].text), fmt, ap);
		va_end(ap);
		targets[ntargets++].verdict = verdict;
	}
	return verdict;
}

/* ---- the fixture: a temporary tree shaped like a user's files --------- */

static char base[PATH_MAX];

static void join(char *out, const char *dir, const char *name)
{
	if (snprintf(out, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
		die("path too long: %s/%s", dir, name);
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		die("mkdir %s: %s", path, strerror(errno));
}

/* count entries named prefix0000...; every `dir_every'-th a directory
 * (0: none), the others empty files. */
static void make_entries(const char *dir, const char *prefix, int count, int dir_every)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char name[NAME_MAX];

	if (dfd < 0)
		die("%s: %s", dir, strerror(errno));
	for (int i = 0; i < count; i++) {
		int fd;

		snprintf(name, sizeof(name), "%s%04d", prefix, i);
		if (dir_every && i % dir_every == 0) {
			if (mkdirat(dfd, name, 0755) && errno != EEXIST)
				die("mkdir %s/%s: %s", dir, name, strerror(errno));
			continue;
		}
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			die("create %s/%s: %s", dir, name, strerror(errno));
		close(fd);
	}
	close(dfd);
}

static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		syncfs(fd);
		close(fd);
	}
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static void remove_tree(const char *path)
{
	nftw(path, remove_one, 64, FTW_DEPTH | FTW_PHYS);
}

static void remove_base(void)
{
	if (base[0])
		remove_tree(base);
}

/* Where the fixture goes: BENCH_TMPDIR, else /var/tmp, else /tmp.  Not
 * /tmp first: other processes churn it, and every entry created or removed
 * beside the fixture's ancestors changes what a compile lists, so a reused
 * compile goes stale and the rule count moves between spawns. */
static const char *fixture_parent(void)
{
	const char *dir = getenv("BENCH_TMPDIR");

	if (dir && *dir)
		return dir;
	return access("/var/tmp", W_OK | X_OK) ? "/tmp" : "/var/tmp";
}

static void make_base(void)
{
	char tmpl[PATH_MAX];

	snprintf(tmpl, sizeof(tmpl), "%s/sbxbench.XXXXXX", fixture_parent());
	if (!mkdtemp(tmpl))
		die("mkdtemp %s: %s", tmpl, strerror(errno));
	/* Canonical, so that the floor lists what the compiler lists. */
	if (!realpath(tmpl, base))
		die("%s: %s", tmpl, strerror(errno));
	atexit(remove_base);
}

/* The denials of the ~100-rule scope: three of 50 projects and the .ssh
 * of a home with 60 entries (the projects among them). */
static char *deny_home[4];
/* The ~1000-rule scope: one entry of a directory of 1,000. */
static char *deny_wide[1];

static void make_fixture(void)
{
	static const char *const denied_projects[] = { "p0007", "p0021", "p0042" };
	char home[PATH_MAX], dir[PATH_MAX], path[PATH_MAX];

	join(home, base, "home");
	make_dir(home);
	join(dir, home, ".ssh");
	make_dir(dir);
	make_entries(dir, "key", 3, 0);
	deny_home[3] = xstrdup(dir);
	join(dir, home, "projects");
	make_dir(dir);
	make_entries(dir, "p", NPROJECTS, 1);
	for (int i = 0; i < 3; i++) {
		join(path, dir, denied_projects[i]);
		deny_home[i] = xstrdup(path);
	}
	/* .ssh and projects are two of the home's 60 entries. */
	make_entries(home, ".e", NHOME - 2, 2);

	join(dir, base, "wide");
	make_dir(dir);
	make_entries(dir, "e", NWIDE, 2);
	join(path, dir, "e0000");
	deny_wide[0] = xstrdup(path);
}

/* ---- scopes ------------------------------------------------------------ */

static atomic_uint events;
static char first_event[256];

/* Counts the library's events instead of printing one per spawn. */
static void quiet_logger(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	if (ev->kind == SBX_EVENT_EXPAND)
		return;
	if (atomic_fetch_add(&events, 1) == 0)
		snprintf(first_event, sizeof(first_event), "%s", ev->message);
}

static void scope_make(sbx_scopeattr_t *s, char *const *deny, int n, bool compile)
{
	int err = sbx_scopeattr_init(s);

	for (int i = 0; !err && i < n; i++)
		err = sbx_scopeattr_adddeny(s, deny[i]);
	if (!err)
		err = sbx_scopeattr_setlogger(s, quiet_logger, NULL);
	if (!err && compile)
		err = sbx_scopeattr_compile(s);
	if (err)
		die("scope: %s", sbx_strerror(err));
}

/* ---- ways to spawn /bin/true and wait for it -------------------------- */

struct variant;
typedef int (*spawn_fn)(const struct variant *v, pid_t *pid);

struct variant {
	const char *name;
	spawn_fn spawn;
	const sbx_scopeattr_t *scope;
	char *const *deny;  /* spawn_sbx_new: the denials of its new scope */
	int ndeny;
	char **argv;
	char **envp;
	char skip[96];  /* why the row is not measured; empty: it is */
	long rules;     /* from the outcome, -1 where there is none */
	struct samples t;
};

static char env_path[] = "PATH=/usr/bin:/bin";
static char *child_env[] = { env_path, NULL };

static int spawn_posix(const struct variant *v, pid_t *pid)
{
	return posix_spawn(pid, v->argv[0], NULL, NULL, v->argv, v->envp);
}

static int spawn_fork(const struct variant *v, pid_t *pid)
{
	pid_t p = fork();

	if (p < 0)
		return errno;
	if (p == 0) {
		execve(v->argv[0], v->argv, v->envp);
		_exit(127);
	}
	*pid = p;
	return 0;
}

static int spawn_sbx(const struct variant *v, pid_t *pid)
{
	return sbx_posix_spawn(pid, v->argv[0], NULL, NULL, v->scope, v->argv, v->envp);
}

/* A caller that builds its scope for the one spawn: nothing compiled
 * before can be reused, so this pays for a whole compile every time. */
static int spawn_sbx_new(const struct variant *v, pid_t *pid)
{
	sbx_scopeattr_t s;
	int err;

	scope_make(&s, v->deny, v->ndeny, false);
	err = sbx_posix_spawn(pid, v->argv[0], NULL, NULL, &s, v->argv, v->envp);
	sbx_scopeattr_destroy(&s);
	return err;
}

/* One spawn and wait: the time in ns, or -1 with *err (an errno) or *status
 * (the child's, not 0) saying what went wrong. */
static double spawn_wait(const struct variant *v, int *err, int *status)
{
	double t0 = now_ns();
	pid_t pid;

	*status = 0;
	if ((*err = v->spawn(v, &pid)))
		return -1;
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR) {
			*err = errno;
			return -1;
		}
	return *status ? -1 : now_ns() - t0;
}

static char **argv_new(const char *first, ...)
{
	char **v = NULL;
	size_t n = 0;
	va_list ap;

	va_start(ap, first);
	for (const char *s = first; s; s = va_arg(ap, const char *)) {
		v = xrealloc(v, (n + 2) * sizeof(*v));
		v[n++] = xstrdup(s);
	}
	va_end(ap);
	v[n] = NULL;
	return v;
}

static void argv_push(char ***v, const char *s)
{
	size_t n = 0;

	while ((*v)[n])
		n++;
	*v = xrealloc(*v, (n + 2) * sizeof(**v));
	(*v)[n] = xstrdup(s);
	(*v)[n + 1] = NULL;
}

/* Runs v once, untimed: fills skip on failure, rules from the outcome. */
static void trial(struct variant *v)
{
	sbx_outcome_t out;
	int err, status;

	v->rules = -1;
	if (v->skip[0])
		return;
	if (spawn_wait(v, &err, &status) < 0) {
		if (err)
			snprintf(v->skip, sizeof(v->skip), "failed: %s", sbx_strerror(err));
		else
			snprintf(v->skip, sizeof(v->skip), "failed: wait status 0x%x", status);
		return;
	}
	if ((v->scope || v->deny) && !sbx_outcome_get(&out))
		v->rules = out.rules;
}

/* Every variant once per round, in an order that rotates. */
static void measure(struct variant *v, int n, int nrounds)
{
	for (int r = 0; r < nrounds; r++)
		for (int k = 0; k < n; k++) {
			struct variant *cur = &v[(r + k) % n];
			int err, status;
			double t;

			if (cur->skip[0])
				continue;
			t = spawn_wait(cur, &err, &status);
			if (t < 0)
				snprintf(cur->skip, sizeof(cur->skip), "failed during the run");
			else
				samples_add(&cur->t, t);
		}
}

/* ---- the launchers ---------------------------------------------------- */

/* An uninstalled program is a libtool wrapper script, and timing it would
 * time a shell: run the real binary beside it instead, with the directory
 * the wrapper would have put on LD_LIBRARY_PATH. */
static char *launcher_binary(const char *path, char **ldpath)
{
	char head[2] = { 0 }, real[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Dl_info info;

	*ldpath = NULL;
	if (fd < 0)
		return NULL;
	if (read(fd, head, 2) != 2)
		head[0] = '\0';
	close(fd);
	if (head[0] != '#' || head[1] != '!')
		return xstrdup(path);
	snprintf(real, sizeof(real), "%.*s.libs/%s", slash ? (int)(slash - path + 1) : 0, path,
	         slash ? slash + 1 : path);
	if (access(real, X_OK) || !dladdr((void *)&sbx_posix_spawn, &info) || !info.dli_fname)
		return NULL;
	*ldpath = xrealloc(NULL, PATH_MAX + 32);
	snprintf(*ldpath, PATH_MAX + 32, "LD_LIBRARY_PATH=%s", info.dli_fname);
	if (strrchr(*ldpath, '/'))
		*strrchr(*ldpath, '/') = '\0';
	return xstrdup(real);
}

static const char *find_in_path(const char *name)
{
	static char found[PATH_MAX];
	const char *path = getenv("PATH");
	char dirs[4096];

	snprintf(dirs, sizeof(dirs), "%s:/usr/bin:/bin:/usr/local/bin", path ? path : "");
	for (char *d = strtok(dirs, ":"); d; d = strtok(NULL, ":")) {
		snprintf(found, sizeof(found), "%s/%s", d, name);
		if (*d && !access(found, X_OK))
			return found;
	}
	return NULL;
}

static void setup_sbxrun(struct variant *v)
{
	char *ldpath, *bin = launcher_binary(opt.sbxrun, &ldpath);

	if (!bin) {
		snprintf(v->skip, sizeof(v->skip), "%s not built", opt.sbxrun);
		return;
	}
	v->argv = argv_new(bin, "--quiet", NULL);
	for (int i = 0; i < 4; i++) {
		argv_push(&v->argv, "--deny");
		argv_push(&v->argv, deny_home[i]);
	}
	argv_push(&v->argv, "--");
	argv_push(&v->argv, TRUE_PATH);
	v->envp = argv_new(env_path, ldpath, NULL);
	free(bin);
	free(ldpath);
}

/* The same denial: an empty tmpfs over each denied path. */
static void setup_bwrap(struct variant *v)
{
	const char *bwrap = find_in_path("bwrap");

	if (!bwrap) {
		snprintf(v->skip, sizeof(v->skip), "bwrap not installed");
		return;
	}
	v->argv = argv_new(bwrap, "--dev-bind", "/", "/", NULL);
	for (int i = 0; i < 4; i++) {
		argv_push(&v->argv, "--tmpfs");
		argv_push(&v->argv, deny_home[i]);
	}
	argv_push(&v->argv, "--");
	argv_push(&v->argv, TRUE_PATH);
}

/* ---- section: spawn ---------------------------------------------------- */

static sbx_scopeattr_t home_fresh, home_once, wide_fresh, wide_once;

enum {
	V_POSIX,
	V_FORK,
	V_SBX_NULL,
	V_HOME_NEW,
	V_HOME_FRESH,
	V_HOME_ONCE,
	V_WIDE_NEW,
	V_WIDE_FRESH,
	V_WIDE_ONCE,
	V_SBXRUN,
	V_BWRAP,
	V_COUNT
};

static struct variant spawn_rows[V_COUNT];

static void setup_spawn_rows(void)
{
	struct variant *v = spawn_rows;
	char **argv = argv_new(TRUE_PATH, NULL);

	v[V_POSIX] = (struct variant){ .name = "posix_spawn (glibc)", .spawn = spawn_posix };
	v[V_FORK] = (struct variant){ .name = "fork + exec", .spawn = spawn_fork };
	v[V_SBX_NULL] = (struct variant){ .name = "sbx_posix_spawn, NULL scope", .spawn = spawn_sbx };
	v[V_HOME_NEW] = (struct variant){ .name = "sbx ~100 rules: new scope per spawn",
	                                  .spawn = spawn_sbx_new, .deny = deny_home, .ndeny = 4 };
	v[V_HOME_FRESH] = (struct variant){ .name = "sbx ~100 rules: fresh (plain spawn)",
	                                    .spawn = spawn_sbx, .scope = &home_fresh };
	v[V_HOME_ONCE] = (struct variant){ .name = "sbx ~100 rules: compiled once",
	                                   .spawn = spawn_sbx, .scope = &home_once };
	v[V_WIDE_NEW] = (struct variant){ .name = "sbx ~1000 rules: new scope per spawn",
	                                  .spawn = spawn_sbx_new, .deny = deny_wide, .ndeny = 1 };
	v[V_WIDE_FRESH] = (struct variant){ .name = "sbx ~1000 rules: fresh (plain spawn)",
	                                    .spawn = spawn_sbx, .scope = &wide_fresh };
	v[V_WIDE_ONCE] = (struct variant){ .name = "sbx ~1000 rules: compiled once",
	                                   .spawn = spawn_sbx, .scope = &wide_once };
	v[V_SBXRUN] = (struct variant){ .name = "sbxrun --deny x4 -- true", .spawn = spawn_posix };
	v[V_BWRAP] = (struct variant){ .name = "bwrap --tmpfs x4 -- true", .spawn = spawn_posix };
	for (int i = 0; i < V_COUNT; i++) {
		v[i].argv = argv;
		v[i].envp = child_env;
	}
	setup_sbxrun(&v[V_SBXRUN]);
	setup_bwrap(&v[V_BWRAP]);
	for (int i = 0; i < V_COUNT; i++)
		trial(&v[i]);
}

static void print_spawn_row(const struct variant *v, const char *target, const char *verdict)
{
	double base_us = median(&spawn_rows[V_POSIX].t) / 1e3, m = median(&v->t) / 1e3;
	struct row r = { .section = "spawn", .name = v->name, .param = NAN, .s = &v->t,
	                 .unit = "ns", .ratio = m / base_us, .ratio_to = "posix_spawn",
	                 .rules = v->rules, .target = target, .verdict = verdict };
	char rules[24] = "";

	if (v->skip[0]) {
		printf("  %-38s %s\n", v->name, v->skip);
		csv_row(&(struct row){ .section = "spawn", .name = v->name, .param = NAN,
		                       .value = NAN, .unit = "ns", .ratio = NAN, .rules = -1,
		                       .target = v->skip });
		return;
	}
	if (v->rules >= 0)
		snprintf(rules, sizeof(rules), "%ld", v->rules);
	printf("  %-38s %9.1f %8.1f %8.1f %7.2fx %6s  %s%s%s\n", v->name, m,
	       pct(&v->t, 10) / 1e3, pct(&v->t, 90) / 1e3, m / base_us, rules,
	       target ? target : "", target ? ": " : "", verdict ? verdict : "");
	csv_row(&r);
}

/* Ratio of the medians of two rows, NAN where either was not measured. */
static double row_ratio(int a, int b)
{
	if (spawn_rows[a].skip[0] || spawn_rows[b].skip[0])
		return NAN;
	return median(&spawn_rows[a].t) / median(&spawn_rows[b].t);
}

/* What the rows mean, and the ratios that explain them. */
static void spawn_notes(void)
{
	printf("  new scope per spawn: a scope made for the one spawn, so a whole compile each"
	       " time;\n  fresh (plain spawn): one scope kept, never sbx_scopeattr_compile()d:"
	       " the library\n  may reuse an unchanged compile; compiled once:"
	       " sbx_scopeattr_compile() first.\n");
	printf("  compiled once against NULL scope (the ruleset applied in the child): %.2fx"
	       " (~100 rules), %.2fx (~1000)\n",
	       row_ratio(V_HOME_ONCE, V_SBX_NULL), row_ratio(V_WIDE_ONCE, V_SBX_NULL));
	printf("  fresh against new scope per spawn (what reuse saves): %.2fx (~100), %.2fx"
	       " (~1000)\n",
	       row_ratio(V_HOME_FRESH, V_HOME_NEW), row_ratio(V_WIDE_FRESH, V_WIDE_NEW));
	if (!spawn_rows[V_BWRAP].skip[0])
		printf("  bwrap against posix_spawn itself: %.2fx, the most any way of spawning "
		       TRUE_PATH " can gain on it here\n",
		       row_ratio(V_BWRAP, V_POSIX));
}

static void spawn_section(void)
{
	struct variant *v = spawn_rows;
	int n = rounds(300);
	double once, fresh, bwrap;
	const char *vo, *vf, *vb;
	char tb[64];

	measure(v, V_COUNT, n);
	printf("\nspawn and wait of " TRUE_PATH ": %d rounds, variants interleaved\n", n);
	printf("  %-38s %9s %8s %8s %8s %6s  %s\n", "", "median us", "p10", "p90", "x posix",
	       "rules", "target");

	once = median(&v[V_HOME_ONCE].t) / median(&v[V_POSIX].t);
	fresh = median(&v[V_HOME_FRESH].t) / median(&v[V_POSIX].t);
	bwrap = v[V_BWRAP].skip[0] ? NAN : median(&v[V_BWRAP].t) / median(&v[V_HOME_FRESH].t);
	vo = judge(once, TARGET_ONCE, false, "~100 rules compiled once: %.3fx posix_spawn (<= %.2fx)",
	           once, TARGET_ONCE);
	vf = judge(fresh, TARGET_FRESH, false,
	           "~100 rules fresh at each spawn (plain sbx_posix_spawn): %.3fx posix_spawn"
	           " (<= %.2fx)",
	           fresh, TARGET_FRESH);
	if (v[V_BWRAP].skip[0])
		vb = NULL;
	else
		vb = judge(bwrap, TARGET_BWRAP, true,
		           "bwrap takes %.1fx the time of sbx with the same denial, per spawn (>= %.0fx)",
		           bwrap, TARGET_BWRAP);
	snprintf(tb, sizeof(tb), "%.1fx sbx fresh, >= %.0fx", bwrap, TARGET_BWRAP);

	for (int i = 0; i < V_COUNT; i++) {
		const char *target = NULL, *verdict = NULL;

		if (i == V_HOME_ONCE) {
			target = "<= 1.03x";
			verdict = vo;
		} else if (i == V_HOME_FRESH) {
			target = "<= 1.25x";
			verdict = vf;
		} else if (i == V_BWRAP && vb) {
			target = tb;
			verdict = vb;
		}
		print_spawn_row(&v[i], target, verdict);
	}
	spawn_notes();
}

/* ---- section: memory -------------------------------------------------- */

/* A copy of this process holding a heap of its own size, spawning on
 * request: both heaps stay alive for the whole section, so that their
 * rounds can alternate. */
struct worker {
	pid_t pid;
	int to, from;
	size_t heap;
};

/* Reads or writes all of len bytes: false on end of file or error. */
static bool full_io(int fd, void *buf, size_t len, bool writing)
{
	char *p = buf;

	while (len) {
		ssize_t n = writing ? write(fd, p, len) : read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

static _Noreturn void worker_main(const struct worker *w, struct variant *v)
{
	char *heap = malloc(w->heap);
	int req[2];

	if (!heap)
		_exit(2);
	memset(heap, 1, w->heap);
	/* Ready: the heap is touched.  No exit() here: the atexit handler
	 * belongs to the parent. */
	if (!full_io(w->from, &(int){ 0 }, sizeof(int), true))
		_exit(3);
	for (;;) {
		double t[MEM_BATCH];
		int err, status;

		if (!full_io(w->to, req, sizeof(req), false) || req[1] <= 0 || req[1] > MEM_BATCH)
			_exit(0);
		for (int i = 0; i < req[1]; i++)
			t[i] = spawn_wait(&v[req[0]], &err, &status);
		if (!full_io(w->from, t, (size_t)req[1] * sizeof(double), true))
			_exit(3);
	}
}

/* False when the worker could not have its heap (it has exited then). */
static bool worker_start(struct worker *w, size_t heap, struct variant *v)
{
	int to[2], from[2], ready;

	w->heap = heap;
	if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	fflush(NULL);
	if ((w->pid = fork()) < 0)
		die("fork: %s", strerror(errno));
	if (w->pid == 0) {
		close(to[1]);
		close(from[0]);
		w->to = to[0];
		w->from = from[1];
		worker_main(w, v);
	}
	close(to[0]);
	close(from[1]);
	w->to = to[1];
	w->from = from[0];
	if (read(w->from, &ready, sizeof(ready)) == sizeof(ready))
		return true;
	close(w->to);
	close(w->from);
	waitpid(w->pid, NULL, 0);
	return false;
}

static void worker_stop(struct worker *w)
{
	int req[2] = { 0, 0 };

	(void)full_io(w->to, req, sizeof(req), true);
	close(w->to);
	close(w->from);
	waitpid(w->pid, NULL, 0);
}

/* One batch of variant `which' in worker w. */
static void worker_batch(struct worker *w, int which, struct samples *s)
{
	int req[2] = { which, MEM_BATCH };
	double t[MEM_BATCH];

	if (!full_io(w->to, req, sizeof(req), true) || !full_io(w->from, t, sizeof(t), false))
		die("a memory worker died");
	for (int i = 0; i < MEM_BATCH; i++)
		if (t[i] >= 0)
			samples_add(s, t[i]);
}

static void memory_section(void)
{
	struct variant v[3] = { spawn_rows[V_POSIX], spawn_rows[V_FORK], spawn_rows[V_HOME_ONCE] };
	struct samples s[3][2] = { { { 0 } } };
	struct worker w[2];
	int n = rounds(40);
	double ratio[3];

	for (int i = 0; i < 3; i++)
		v[i].t = (struct samples){ 0 };
	if (!worker_start(&w[0], (size_t)1 << 20, v)) {
		printf("\nparent memory: skipped, a worker could not start\n");
		return;
	}
	if (!worker_start(&w[1], BIG_HEAP, v)) {
		worker_stop(&w[0]);
		printf("\nparent memory: skipped, no 1 GiB heap could be touched\n");
		return;
	}
	for (int r = 0; r < n; r++)
		for (int k = 0; k < 6; k++) {
			int j = (r + k) % 6;

			worker_batch(&w[j % 2], j / 2, &s[j / 2][j % 2]);
		}
	worker_stop(&w[0]);
	worker_stop(&w[1]);

	printf("\nparent memory: spawn and wait from a 1 MiB and a 1 GiB (touched) heap, "
	       "%d rounds of %d\n", n, MEM_BATCH);
	printf("  %-38s %9s %9s %8s  %s\n", "", "small us", "1 GiB us", "ratio", "target");
	for (int i = 0; i < 3; i++) {
		const char *target = i == 2 ? "<= 1.1x:" : "", *verdict = NULL;

		ratio[i] = median(&s[i][1]) / median(&s[i][0]);
		if (i == 2)
			verdict = judge(ratio[i], TARGET_HEAP, false,
			                "1 GiB parent heap: %.3fx the small-heap latency, sbx (<= %.1fx)",
			                ratio[i], TARGET_HEAP);
		printf("  %-38s %9.1f %9.1f %7.2fx  %s %s\n", v[i].name, median(&s[i][0]) / 1e3,
		       median(&s[i][1]) / 1e3, ratio[i], target, verdict ? verdict : "");
		for (int h = 0; h < 2; h++)
			csv_row(&(struct row){ .section = "memory", .name = v[i].name,
			                       .param = h ? 1024 : 1, .s = &s[i][h], .unit = "ns",
			                       .ratio = h ? ratio[i] : 1, .ratio_to = "small heap",
			                       .rules = -1, .target = h && i == 2 ? "<= 1.1x" : NULL,
			                       .verdict = h ? verdict : NULL });
	}
}

/* ---- section: threads -------------------------------------------------- */

struct job {
	const struct variant *v;
	int count;
	int failed;
};

static void *job_run(void *arg)
{
	struct job *j = arg;

	for (int i = 0; i < j->count; i++) {
		int err, status;

		if (spawn_wait(j->v, &err, &status) < 0)
			j->failed++;
	}
	return NULL;
}

/* Spawns per second of `threads' threads spawning `count' each. */
static double throughput(const struct variant *v, int threads, int count)
{
	pthread_t t[2];
	struct job j[2];
	double t0 = now_ns();

	for (int i = 0; i < threads; i++) {
		j[i] = (struct job){ .v = v, .count = count };
		if (pthread_create(&t[i], NULL, job_run, &j[i]))
			die("pthread_create failed");
	}
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < threads; i++)
		if (j[i].failed)
			return NAN;
	return threads * count / ((now_ns() - t0) / 1e9);
}

static void threads_section(void)
{
	static const int which[] = { V_POSIX, V_SBX_NULL, V_HOME_ONCE, V_HOME_FRESH };
	enum { N = sizeof(which) / sizeof(which[0]) };
	struct samples s[N][2] = { { { 0 } } };
	int n = rounds(16), batch = 40;
	double base2;

	for (int r = 0; r < n; r++)
		for (int k = 0; k < 2 * N; k++) {
			int j = (r + k) % (2 * N);
			double x = throughput(&spawn_rows[which[j / 2]], j % 2 + 1, batch);

			if (!isnan(x))
				samples_add(&s[j / 2][j % 2], x);
		}
	base2 = median(&s[0][1]);
	printf("\nconcurrency: spawns/s of 1 and 2 threads, each spawning and waiting %d per "
	       "round, %d rounds\n",
	       batch, n);
	printf("  %-38s %9s %9s %8s %9s\n", "", "1 thread", "2 threads", "2T/1T", "x posix 2T");
	for (int i = 0; i < N; i++) {
		const struct variant *v = &spawn_rows[which[i]];
		double one = median(&s[i][0]), two = median(&s[i][1]);

		printf("  %-38s %9.0f %9.0f %7.2fx %8.2fx\n", v->name, one, two, two / one,
		       two / base2);
		for (int t = 0; t < 2; t++)
			csv_row(&(struct row){ .section = "threads", .name = v->name, .param = t + 1,
			                       .s = &s[i][t], .unit = "spawns/s",
			                       .ratio = t ? two / one : NAN,
			                       .ratio_to = t ? "1 thread" : NULL, .rules = -1 });
	}
}

/* ---- section: compile ------------------------------------------------- */

/* The entries the compiler grants for a denial, listed beforehand: every
 * entry of every ancestor of the denied path that is not on the way to it,
 * symlinks left out (they get no rule). */
struct grant {
	int level;  /* index into dirfd */
	bool dir;
	char *name;
};

struct floor_set {
	int dirfd[64];
	int levels;
	struct grant *g;
	size_t n;
};

static void floor_list_level(struct floor_set *f, const char *dir, const char *skip)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d || f->levels == 64)
		die("%s: %s", dir, strerror(errno));
	f->dirfd[f->levels] = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	while ((e = readdir(d))) {
		unsigned char type = e->d_type;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, skip))
			continue;
		if (type == DT_UNKNOWN && !fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
		if (type == DT_LNK)
			continue;
		if (f->n % 1024 == 0)
			f->g = xrealloc(f->g, (f->n + 1024) * sizeof(*f->g));
		f->g[f->n++] = (struct grant){ .level = f->levels, .dir = type == DT_DIR,
		                               .name = xstrdup(e->d_name) };
	}
	closedir(d);
	f->levels++;
}

static void floor_list(struct floor_set *f, const char *denied)
{
	char dir[PATH_MAX] = "/", name[NAME_MAX + 1];

	*f = (struct floor_set){ 0 };
	for (const char *p = denied + 1; *p;) {
		const char *end = strchrnul(p, '/');

		snprintf(name, sizeof(name), "%.*s", (int)(end - p), p);
		floor_list_level(f, dir, name);
		if (strcmp(dir, "/"))
			strcat(dir, "/");
		strcat(dir, name);
		p = *end ? end + 1 : end;
	}
}

static void floor_free(struct floor_set *f)
{
	for (int i = 0; i < f->levels; i++)
		close(f->dirfd[i]);
	for (size_t i = 0; i < f->n; i++)
		free(f->g[i].name);
	free(f->g);
}

static struct {
	uint64_t handled, dir, file;
} rights;

static void rights_probe(int abi)
{
	uint64_t all = (1ULL << 13) - 1; /* ABI 1 */

	if (abi >= 2)
		all |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		all |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		all |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	if (abi >= 9)
		all |= LANDLOCK_ACCESS_FS_RESOLVE_UNIX;
	rights.handled = all;
	rights.dir = all & ~(LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK);
	rights.file = all & (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
	                     LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |
	                     LANDLOCK_ACCESS_FS_IOCTL_DEV | LANDLOCK_ACCESS_FS_RESOLVE_UNIX);
}

/* The floor: the system calls the rules cannot do without, into a fresh
 * ruleset.  Its release is not timed, as the compile's is not. */
static double floor_once(const struct floor_set *f, unsigned *rules)
{
	struct sbx_landlock_ruleset_attr attr = { .handled_access_fs = rights.handled };
	double t0 = now_ns(), t;
	int rs = (int)sbx_landlock_create_ruleset(&attr, sizeof(attr), 0);

	if (rs < 0)
		die("landlock_create_ruleset: %s", strerror(errno));
	*rules = 0;
	for (size_t i = 0; i < f->n; i++) {
		const struct grant *g = &f->g[i];
		int fd = openat(f->dirfd[g->level], g->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		struct sbx_landlock_path_beneath_attr pb = {
			.allowed_access = g->dir ? rights.dir : rights.file, .parent_fd = fd };

		if (fd < 0)
			continue;
		if (!sbx_landlock_add_rule(rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0))
			++*rules;
		close(fd);
	}
	t = now_ns() - t0;
	close(rs);
	return t;
}

/* sbx_scopeattr_compile() alone; the scope is made and destroyed around
 * it, so that no earlier snapshot is released inside the timing. */
static double compile_once(const char *denied)
{
	sbx_scopeattr_t s;
	char *deny[1] = { (char *)denied };
	double t0, t;
	int err;

	scope_make(&s, deny, 1, false);
	t0 = now_ns();
	err = sbx_scopeattr_compile(&s);
	t = now_ns() - t0;
	sbx_scopeattr_destroy(&s);
	if (err)
		die("sbx_scopeattr_compile: %s", sbx_strerror(err));
	return t;
}

/* The rules a compiled scope denying `denied' applies, from a spawn. */
static long compiled_rules(const char *denied)
{
	struct variant v = { .spawn = spawn_sbx, .argv = spawn_rows[V_POSIX].argv,
	                     .envp = child_env };
	sbx_scopeattr_t s;
	char *deny[1] = { (char *)denied };

	scope_make(&s, deny, 1, true);
	v.scope = &s;
	trial(&v);
	sbx_scopeattr_destroy(&s);
	if (v.skip[0])
		die("spawn with a compiled scope %s", v.skip);
	return v.rules;
}

struct scale_point {
	int siblings;
	long rules;
	unsigned floor_rules;
	struct samples compile, floor;
	double per_compile, per_floor;
};

static void scale_measure(struct scale_point *p, int nrounds)
{
	char dir[PATH_MAX], name[32], denied[PATH_MAX];
	struct floor_set f;

	snprintf(name, sizeof(name), "c%d", p->siblings);
	join(dir, base, name);
	make_dir(dir);
	make_entries(dir, "f", p->siblings, 0);
	/* The new entries' writeback would otherwise run during the rounds. */
	sync_dir(dir);
	join(denied, dir, "f0000");
	floor_list(&f, denied);
	p->rules = compiled_rules(denied);
	(void)floor_once(&f, &p->floor_rules);
	for (int r = 0; r < nrounds; r++)
		for (int k = 0; k < 2; k++) {
			if ((r + k) % 2)
				samples_add(&p->floor, floor_once(&f, &p->floor_rules));
			else
				samples_add(&p->compile, compile_once(denied));
		}
	floor_free(&f);
	remove_tree(dir);
	p->per_compile = median(&p->compile) / (double)p->rules;
	p->per_floor = median(&p->floor) / p->floor_rules;
}

static void compile_section(int abi)
{
	static const int sizes[] = { 10, 100, 1000, 10000, 100000 };
	static const int base_rounds[] = { 400, 200, 100, 25, 9 };
	enum { N = sizeof(sizes) / sizeof(sizes[0]) };
	struct scale_point p[N] = { { 0 } };
	double grow_c, grow_f;
	const char *vl;

	rights_probe(abi);
	for (int i = 0; i < N; i++) {
		p[i].siblings = sizes[i];
		scale_measure(&p[i], rounds(base_rounds[i]));
	}
	printf("\ncompile alone: sbx_scopeattr_compile() denying one entry of a directory, "
	       "against the floor\n(openat O_PATH + landlock_add_rule + close of the same "
	       "entries, into a fresh ruleset), interleaved\n");
	printf("  %9s %7s %7s %14s %14s %7s  %s\n", "siblings", "rounds", "rules", "compile ns/rule",
	       "floor ns/rule", "ratio", "target");
	for (int i = 0; i < N; i++) {
		double ratio = p[i].per_compile / p[i].per_floor;
		const char *v = judge(ratio, TARGET_FLOOR, false,
		                      "compile with %d siblings: %.2fx the floor per rule (<= %.1fx)",
		                      p[i].siblings, ratio, TARGET_FLOOR);

		printf("  %9d %7zu %7ld %14.0f %14.0f %6.2fx  <= 1.2x: %s%s\n", p[i].siblings,
		       p[i].compile.n, p[i].rules, p[i].per_compile, p[i].per_floor, ratio, v,
		       (unsigned long)p[i].rules == p[i].floor_rules ? "" : "  (rule counts differ)");
		csv_row(&(struct row){ .section = "compile", .name = "compile", .param = p[i].siblings,
		                       .s = &p[i].compile, .per = (double)p[i].rules,
		                       .unit = "ns/rule", .ratio = ratio, .ratio_to = "floor",
		                       .rules = p[i].rules, .target = "<= 1.2x", .verdict = v });
		csv_row(&(struct row){ .section = "compile", .name = "floor", .param = p[i].siblings,
		                       .s = &p[i].floor, .per = p[i].floor_rules,
		                       .unit = "ns/rule", .ratio = NAN, .rules = p[i].floor_rules });
	}
	/* The floor's own cost per rule is not flat (the kernel's lookups and
	 * rule insertions grow with the directory and the ruleset): the
	 * compile is linear when it grows no faster than the floor does. */
	grow_c = p[N - 1].per_compile / p[2].per_compile;
	grow_f = p[N - 1].per_floor / p[2].per_floor;
	vl = judge(grow_c / grow_f, TARGET_LINEAR, false,
	           "compile linear in siblings: ns/rule grows %.2fx from %d to %d, the floor "
	           "%.2fx (compile/floor growth %.2f, <= %.1f)",
	           grow_c, sizes[2], sizes[N - 1], grow_f, grow_c / grow_f, TARGET_LINEAR);
	printf("  linearity: ns/rule from %d to %d siblings grows %.2fx, the floor's %.2fx;"
	       " compile/floor growth %.2f, <= %.1f: %s\n",
	       sizes[2], sizes[N - 1], grow_c, grow_f, grow_c / grow_f, TARGET_LINEAR, vl);
	for (int i = 0; i < N; i++) {
		free(p[i].compile.v);
		free(p[i].floor.v);
	}
}

/* ---- main --------------------------------------------------------------- */

static int kernel_abi(void)
{
	long abi = sbx_landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	return abi > 0 ? (int)abi : 0;
}

static void print_header(int abi)
{
	printf("sbxbench: medians of interleaved rounds; ratios against the baseline of this run\n");
	printf("  Landlock ABI %d%s; %ld online CPUs; fixture in %s\n", abi,
	       abi ? "" : " (none: sbx rows run unconfined)", sysconf(_SC_NPROCESSORS_ONLN), base);
	printf("  ~100-rule scope: %ld rules (3 of %d projects, .ssh of a home of %d);"
	       " ~1000-rule scope: %ld rules\n",
	       spawn_rows[V_HOME_ONCE].rules, NPROJECTS, NHOME, spawn_rows[V_WIDE_ONCE].rules);
}

static void print_targets(void)
{
	printf("\ntargets\n");
	for (int i = 0; i < ntargets; i++)
		printf("  %-4s  %s\n", targets[i].verdict, targets[i].text);
	if (events)
		printf("\nthe library reported %u events, the first: %s\n", (unsigned)events,
		       first_event);
}

int main(int argc, char **argv)
{
	int abi = kernel_abi();

	parse_options(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	make_base();
	make_fixture();
	scope_make(&home_fresh, deny_home, 4, false);
	scope_make(&home_once, deny_home, 4, true);
	scope_make(&wide_fresh, deny_wide, 1, false);
	scope_make(&wide_once, deny_wide, 1, true);
	setup_spawn_rows();
	csv_open();
	print_header(abi);

	if (wanted("spawn"))
		spawn_section();
	if (wanted("memory"))
		memory_section();
	if (wanted("threads"))
		threads_section();
	if (wanted("compile")) {
		if (abi)
			compile_section(abi);
		else
			printf("\ncompile alone: skipped, this kernel has no Landlock\n");
	}
	print_targets();
	if (csv && !fclose(csv))
		printf("figures written to %s\n", opt.csv);
	return 0;
}

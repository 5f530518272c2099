/* SPDX-License-Identifier: MIT */
/*
 * The measuring harness (declared in harness.h): options and rounds,
 * samples and percentiles, the CSV writer, the targets and the report of
 * them, the library's events, and the variant machinery (one spawn and
 * wait, an untimed trial, measure()'s interleaved rounds).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "harness.h"

#ifndef SBXRUN_PATH
#define SBXRUN_PATH "tools/sbxrun"
#endif

/* ---- options ---------------------------------------------------------- */

#ifndef EXECER_PATH
#define EXECER_PATH "bench/execer"
#endif

struct options opt = { .scale = 1.0, .csv = "bench/results.csv", .sbxrun = SBXRUN_PATH,
                       .execer = EXECER_PATH };

_Noreturn __attribute__((format(printf, 1, 2))) void die(const char *fmt, ...)
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

void *xrealloc(void *p, size_t size)
{
	if (!(p = realloc(p, size)))
		die("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	return strcpy(xrealloc(NULL, strlen(s) + 1), s);
}

int rounds(int base)
{
	int n = (int)lround(base * opt.scale);

	return n < 3 ? 3 : n;
}

bool wanted(const char *section)
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

void parse_options(int argc, char **argv)
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

void samples_add(struct samples *s, double x)
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
double pct(const struct samples *s, double p)
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

double median(const struct samples *s)
{
	return pct(s, 50);
}

double paired(const struct samples *a, const struct samples *b)
{
	struct samples r = { 0 };
	double m;

	for (size_t i = 0; i < a->n && i < b->n; i++)
		samples_add(&r, a->v[i] / b->v[i]);
	m = median(&r);
	free(r.v);
	return m;
}

double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---- results: the CSV file and the targets ---------------------------- */

FILE *csv;

static void csv_num(double x, const char *sep)
{
	if (isnan(x))
		fprintf(csv, "%s", sep);
	else
		fprintf(csv, "%.10g%s", x, sep);
}

void csv_row(const struct row *r)
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

void csv_open(void)
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
__attribute__((format(printf, 4, 5))) const char *
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

/* ---- the library's events: counted, reported with the targets --------- */

static atomic_uint events;
static char first_event[256];

/* Counts the library's events instead of printing one per spawn. */
void quiet_logger(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	if (ev->kind == SBX_EVENT_EXPAND)
		return;
	if (atomic_fetch_add(&events, 1) == 0)
		snprintf(first_event, sizeof(first_event), "%s", ev->message);
}

/* The verdicts judge() gave, then the library's events if there were any. */
void print_targets(void)
{
	printf("\ntargets\n");
	for (int i = 0; i < ntargets; i++)
		printf("  %-4s  %s\n", targets[i].verdict, targets[i].text);
	if (events)
		printf("\nthe library reported %u events, the first: %s\n", (unsigned)events,
		       first_event);
}

/* ---- variants: one spawn and wait, a trial, interleaved rounds -------- */

_Thread_local double last_cpu_ns;

static double thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* One spawn and wait: the time in ns, or -1 with *err (an errno) or *status
 * (the child's, not 0) saying what went wrong.  last_cpu_ns: the processor
 * time it took, the spawning thread's and the child's (its whole life,
 * from the clone to its exit, as the kernel accounts it at the wait). */
double spawn_wait(const struct variant *v, int *err, int *status)
{
	double t0 = now_ns(), c0 = thread_cpu_ns();
	struct rusage ru;
	pid_t pid;

	*status = 0;
	if ((*err = v->spawn(v, &pid)))
		return -1;
	while (wait4(pid, status, 0, &ru) < 0)
		if (errno != EINTR) {
			*err = errno;
			return -1;
		}
	last_cpu_ns = thread_cpu_ns() - c0 + (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
	              (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
	return *status ? -1 : now_ns() - t0;
}

char **argv_new(const char *first, ...)
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

void argv_push(char ***v, const char *s)
{
	size_t n = 0;

	while ((*v)[n])
		n++;
	*v = xrealloc(*v, (n + 2) * sizeof(**v));
	(*v)[n] = xstrdup(s);
	(*v)[n + 1] = NULL;
}

/* Runs v once, untimed: fills skip on failure, rules from the outcome. */
void trial(struct variant *v)
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
void measure(struct variant *v, int n, int nrounds)
{
	for (int r = 0; r < nrounds; r++)
		for (int k = 0; k < n; k++) {
			struct variant *cur = &v[(r + k) % n];
			int err, status;
			double t;

			if (cur->skip[0])
				continue;
			t = spawn_wait(cur, &err, &status);
			if (t < 0) {
				snprintf(cur->skip, sizeof(cur->skip), "failed during the run");
			} else {
				samples_add(&cur->t, t);
				samples_add(&cur->cpu, last_cpu_ns);
			}
		}
}

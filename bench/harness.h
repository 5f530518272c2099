/* SPDX-License-Identifier: MIT */
/*
 * The measuring harness, shared by every section and about none of them in
 * particular: options and rounds, samples and their percentiles, the CSV
 * file, the targets and their verdicts, the count of the library's events,
 * and the variants: ways of spawning, run once untimed and then measured
 * in rounds whose order rotates.
 */
#ifndef SBXBENCH_HARNESS_H
#define SBXBENCH_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "sbxspawn/sbxspawn.h"

struct options {
	double scale;       /* of every section's rounds */
	const char *only;   /* comma-separated sections, or NULL for all */
	const char *csv;
	const char *sbxrun;
	const char *execer;  /* a program that only execs its arguments */
};

extern struct options opt;

_Noreturn __attribute__((format(printf, 1, 2))) void die(const char *fmt, ...);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
int rounds(int base);
bool wanted(const char *section);
void parse_options(int argc, char **argv);

struct samples {
	double *v;
	size_t n, cap;
};

void samples_add(struct samples *s, double x);
double pct(const struct samples *s, double p);
double median(const struct samples *s);
/* The median of the ratios a[r]/b[r] of rows measured in the same rounds:
 * each pair taken at the same moment, so that a drift of the machine's
 * speed moves both. */
double paired(const struct samples *a, const struct samples *b);
double now_ns(void);

extern FILE *csv;

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

void csv_row(const struct row *r);
void csv_open(void);
__attribute__((format(printf, 4, 5))) const char *
judge(double value, double limit, bool at_least, const char *fmt, ...);

/* The library's events, counted by quiet_logger and reported with the targets. */
void quiet_logger(const sbx_event_t *ev, void *arg);
void print_targets(void);

/* One way of spawning /bin/true: a row of a section's table. */
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
	struct samples cpu; /* processor time, the spawner's and the child's */
};

double spawn_wait(const struct variant *v, int *err, int *status);
/* The processor time of this thread's last spawn_wait(), in ns. */
extern _Thread_local double last_cpu_ns;
char **argv_new(const char *first, ...);
void argv_push(char ***v, const char *s);
void trial(struct variant *v);
void measure(struct variant *v, int n, int nrounds);

#endif

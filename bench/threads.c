/* SPDX-License-Identifier: MIT */
/*
 * The threads section: spawns per second of one and of two threads, each
 * spawning and waiting, for four of the spawn rows.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>

#include "harness.h"
#include "sections.h"

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

void threads_section(void)
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

/* SPDX-License-Identifier: MIT */
/*
 * The parent-memory section: spawn latency from a parent with a small heap
 * and from one with 1 GiB, touched.  Each heap lives in a worker, a forked
 * copy of this process that spawns on request, so that the two heaps'
 * rounds can alternate.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "sections.h"

#define BIG_HEAP ((size_t)1 << 30)
#define MEM_BATCH 4

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

void memory_section(void)
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

		ratio[i] = paired(&s[i][1], &s[i][0]);
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

/* SPDX-License-Identifier: MIT */
/* What the said suite's tests share (said.h): the tree, a logger that
 * keeps what it hears, this process's stderr caught. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/said.h"

struct tree said_t;

/* What reached the scope's logger, by kind; the default logger hears it
 * too, where forward is set. */
struct said_seen heard;

void said_logger(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	if (ev->kind > 0 && ev->kind < 32) {
		heard.count[ev->kind]++;
		snprintf(heard.path[ev->kind], sizeof(heard.path[0]), "%s", ev->path ? ev->path : "");
		snprintf(heard.path2[ev->kind], sizeof(heard.path2[0]), "%s", ev->path2 ? ev->path2 : "");
		snprintf(heard.text[ev->kind], sizeof(heard.text[0]), "%s", ev->message);
		heard.error[ev->kind] = ev->error;
	}
	if (heard.forward)
		sbx_logger_default(ev, NULL);
}

void said_setup(void)
{
	memset(&heard, 0, sizeof(heard));
	tree_make(&said_t);
}

void said_teardown(void)
{
	tree_free(&said_t);
}

void scope_new(sbx_scopeattr_t *s)
{
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	ck_assert_int_eq(sbx_scopeattr_setlogger(s, said_logger, NULL), 0);
}

/* This process's fd 2, caught in a file until said() gives it back with
 * what was written there (children spawned meanwhile write there too). */
static int caught = -1, saved_stderr = -1;

void catch_stderr(void)
{
	fflush(stderr);
	caught = memfd_create("stderr", 0);
	ck_assert_int_ge(caught, 0);
	saved_stderr = dup(2);
	ck_assert_int_eq(dup2(caught, 2), 2);
}

const char *said(void)
{
	static char text[1 << 16];
	ssize_t n;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	n = pread(caught, text, sizeof(text) - 1, 0);
	text[n > 0 ? n : 0] = '\0';
	close(caught);
	return text;
}

/* How many lines of text hold needle. */
int lines_with(const char *text, const char *needle)
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

int spawn_wait(const sbx_scopeattr_t *s, char *const argv[])
{
	pid_t pid;
	int err = sbx_posix_spawn(&pid, argv[0], NULL, NULL, s, argv, environ);

	return err ? -1000 - err : wait_status(pid);
}

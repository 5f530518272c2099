/* SPDX-License-Identifier: MIT */
/* The outcome suites' logger (recorder.h). */
#include "config.h"

#include <dlfcn.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/recorder.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif


void record(const sbx_event_t *ev, void *arg)
{
	struct seen *s = arg;

	s->count[ev->kind]++;
	snprintf(s->path[ev->kind], sizeof(s->path[0]), "%s", ev->path ? ev->path : "");
	snprintf(s->path2[ev->kind], sizeof(s->path2[0]), "%s", ev->path2 ? ev->path2 : "");
	s->error[ev->kind] = ev->error;
	if (ev->kind == SBX_EVENT_EXPAND && s->when && !strcmp(ev->path, s->when) && s->swap)
		ck_assert_int_eq(syscall(SYS_renameat2, AT_FDCWD, s->swap, AT_FDCWD, s->swap_with,
		                         RENAME_EXCHANGE), 0);
	if (ev->kind == SBX_EVENT_EXPAND && s->when && !strcmp(ev->path, s->when) && s->bind)
		ck_assert_int_eq(mount(s->bind, s->bind_onto, NULL, MS_BIND, NULL), 0);
	if (ev->kind == SBX_EVENT_EXPAND && s->remove && s->move_to && !strcmp(ev->path, s->when)) {
		ck_assert_int_eq(rename(s->remove, s->move_to), 0);
	} else if (ev->kind == SBX_EVENT_EXPAND && s->remove && !strcmp(ev->path, s->when)) {
		rm_rf(s->remove);
		ck_assert_int_eq(access(s->remove, F_OK), -1);
		if (s->replace)
			write_file(s->remove, "now a file\n", 0644);
	}
}

void scope_make(sbx_scopeattr_t *s, struct seen *seen, const char *deny)
{
	memset(seen, 0, sizeof(*seen));
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	ck_assert_int_eq(sbx_scopeattr_setlogger(s, record, seen), 0);
	if (deny)
		ck_assert_int_eq(sbx_scopeattr_adddeny(s, deny), 0);
}

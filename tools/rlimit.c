/* SPDX-License-Identifier: MIT */
/* sbxrun --rlimit: a resource by its name, and its soft and hard limits
 * written as prlimit(1) writes them. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/rlimit.h"

static const struct {
	const char *name;
	int resource;
} names[] = {
	{ "as", RLIMIT_AS },           { "core", RLIMIT_CORE },
	{ "cpu", RLIMIT_CPU },         { "data", RLIMIT_DATA },
	{ "fsize", RLIMIT_FSIZE },     { "locks", RLIMIT_LOCKS },
	{ "memlock", RLIMIT_MEMLOCK }, { "msgqueue", RLIMIT_MSGQUEUE },
	{ "nice", RLIMIT_NICE },       { "nofile", RLIMIT_NOFILE },
	{ "nproc", RLIMIT_NPROC },     { "rss", RLIMIT_RSS },
	{ "rtprio", RLIMIT_RTPRIO },   { "rttime", RLIMIT_RTTIME },
	{ "sigpending", RLIMIT_SIGPENDING }, { "stack", RLIMIT_STACK },
};

/* One value of len bytes at s: 0 with *v, or -1. */
static int value(const char *s, size_t len, rlim_t *v)
{
	char buf[32], *end;
	uintmax_t n;

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (!strcmp(buf, "unlimited") || !strcmp(buf, "infinity")) {
		*v = RLIM_INFINITY;
		return 0;
	}
	if (buf[0] < '0' || buf[0] > '9')
		return -1;
	errno = 0;
	n = strtoumax(buf, &end, 10);
	if (errno || *end || n >= (uintmax_t)RLIM_INFINITY)
		return -1;
	*v = (rlim_t)n;
	return 0;
}

int rlimit_parse(const char *arg, int *resource, struct rlimit *limit, char *why, size_t whycap)
{
	const char *eq = strchr(arg, '='), *val, *colon;
	size_t i, n = sizeof(names) / sizeof(names[0]);
	int bad;

	for (i = 0; eq && i < n; i++)
		if (strlen(names[i].name) == (size_t)(eq - arg) &&
		    !strncmp(names[i].name, arg, (size_t)(eq - arg)))
			break;
	if (!eq || i == n) {
		snprintf(why, whycap, "not NAME=SOFT[:HARD] with NAME one of as, core, cpu, data, "
		                      "fsize, locks, memlock, msgqueue, nice, nofile, nproc, rss, "
		                      "rtprio, rttime, sigpending, stack");
		return -1;
	}
	*resource = names[i].resource;
	if (getrlimit(*resource, limit)) {
		snprintf(why, whycap, "getrlimit: %s", strerror(errno));
		return -1;
	}
	val = eq + 1;
	if (!(colon = strchr(val, ':'))) {
		bad = value(val, strlen(val), &limit->rlim_cur);
		limit->rlim_max = limit->rlim_cur;
	} else {
		bad = colon == val && !colon[1]; /* ":" alone */
		if (colon > val)
			bad |= value(val, (size_t)(colon - val), &limit->rlim_cur);
		if (colon[1])
			bad |= value(colon + 1, strlen(colon + 1), &limit->rlim_max);
	}
	if (bad) {
		snprintf(why, whycap, "a limit is a number or \"unlimited\": SOFT:HARD, SOFT: "
		                      "(soft alone), :HARD (hard alone), or one value for both");
		return -1;
	}
	/* RLIM_INFINITY is the largest value. */
	if (limit->rlim_cur > limit->rlim_max) {
		snprintf(why, whycap, "the soft limit is above the hard limit%s",
		         colon && (colon == val || !colon[1]) ? " (the half not given is sbxrun's own)"
		                                              : "");
		return -1;
	}
	return 0;
}

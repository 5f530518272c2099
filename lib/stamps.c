/*
 * Stamps: what a compile read, recorded so that reuse can tell whether
 * listing it again would give the same entries.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "compat/landlock.h"
#include "internal.h"
#include "lib/compiler.h"

/* A directory changed this recently may change again within the same
 * timestamp tick, unseen: it is not a ground for reuse. */
#define RACY_NS (50 * 1000000LL)

static long long ns_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec);
}

/* Records what the directory in cc->path looked like when it was read. */
void sbx__stamp_dir(struct compiler *cc, const struct stat *st)
{
	struct sbx_ruleset *rs = cc->out;
	struct sbx_stamp *grown;

	if (ns_between(&st->st_mtim, &cc->started) < RACY_NS ||
	    ns_between(&st->st_ctim, &cc->started) < RACY_NS)
		rs->reusable = false;
	if (!(grown = sbx__grow(rs->stamps, &rs->stamps_cap, rs->nstamps + 1, sizeof(*rs->stamps)))) {
		cc->err = ENOMEM;
		return;
	}
	rs->stamps = grown;
	rs->stamps[rs->nstamps] = (struct sbx_stamp){ .dev = st->st_dev, .ino = st->st_ino,
	                                              .mtime = st->st_mtim, .ctime = st->st_ctim };
	if (!(rs->stamps[rs->nstamps].path = strdup(cc->path))) {
		cc->err = ENOMEM;
		return;
	}
	rs->nstamps++;
}

/* A file granted in an expanded directory (the one stamped last): a hard
 * link made to it later would make a new compile refuse it, so its link
 * count is part of what reuse checks (not its times: a file written to is
 * no different).  Kept compact: one of these per file of a large
 * directory. */
void sbx__stamp_file(struct compiler *cc, const char *name, const struct stat *st)
{
	struct sbx_ruleset *rs = cc->out;
	size_t len = strlen(name) + 1;
	struct sbx_file_stamp *files;
	char *names;

	if (!(files = sbx__grow(rs->files, &rs->files_cap, rs->nfiles + 1, sizeof(*rs->files))) ||
	    !(names = sbx__grow(rs->names, &rs->names_cap, rs->names_len + len, 1))) {
		cc->err = ENOMEM;
		return;
	}
	rs->files = files;
	rs->names = names;
	memcpy(names + rs->names_len, name, len);
	files[rs->nfiles++] = (struct sbx_file_stamp){ .dir = (uint32_t)(rs->nstamps - 1),
	                                               .name = (uint32_t)rs->names_len,
	                                               .ino = st->st_ino, .nlink = st->st_nlink };
	rs->names_len += len;
}

bool sbx__stamp_current(const struct sbx_stamp *sp)
{
	struct stat st;

	return lstat(sp->path, &st) == 0 && st.st_dev == sp->dev && st.st_ino == sp->ino &&
	       st.st_mtim.tv_sec == sp->mtime.tv_sec && st.st_mtim.tv_nsec == sp->mtime.tv_nsec &&
	       st.st_ctim.tv_sec == sp->ctime.tv_sec && st.st_ctim.tv_nsec == sp->ctime.tv_nsec;
}

bool sbx__file_stamp_current(const struct sbx_ruleset *rs, const struct sbx_file_stamp *f)
{
	const struct sbx_stamp *dir = &rs->stamps[f->dir];
	char path[PATH_MAX + NAME_MAX + 2];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", strcmp(dir->path, "/") ? dir->path : "",
	         rs->names + f->name);
	return lstat(path, &st) == 0 && st.st_dev == dir->dev && st.st_ino == f->ino &&
	       st.st_nlink == f->nlink;
}

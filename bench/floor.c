/* SPDX-License-Identifier: MIT */
/*
 * The syscall floor (declared in floor.h): what granting every sibling of
 * a denial cannot do without.  Each directory from / down to the leaf is
 * opened and listed; every entry that is not on the way down, not denied
 * and not a symlink (a rule on a link grants nothing) gets openat(O_PATH)
 * + landlock_add_rule + close, into a fresh ruleset.  The listing is timed
 * with the rules, as a compile's is; the ruleset's release is not.  With
 * `prove', each entry is also statx(2)ed once opened, as a compile does to
 * prove what it is (identity, link count, mount): a second floor, for
 * reference.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "harness.h"
#include "floor.h"

static struct {
	uint64_t handled, dir, file;
} rights;

void floor_rights(int abi)
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

bool floor_skip_name(const char *name, const void *arg)
{
	return !strcmp(name, arg);
}

/* leaf is absolute and canonical (no symlinks, no `..'). */
void floor_prepare(struct floor_path *f, const char *leaf, floor_skip_fn skip, const void *arg)
{
	*f = (struct floor_path){ .levels = 1, .skip = skip, .arg = arg };
	for (const char *p = leaf + 1; *p;) {
		const char *end = strchrnul(p, '/');

		if (f->levels == 64)
			die("%s: too deep for the floor", leaf);
		f->next[f->levels - 1] = strndup(p, (size_t)(end - p));
		f->levels++;
		p = *end ? end + 1 : end;
	}
}

void floor_free(struct floor_path *f)
{
	for (int i = 0; i + 1 < f->levels; i++)
		free(f->next[i]);
}

/* One rule on an entry of dfd: 1 if added. */
static unsigned floor_grant(int rs, int dfd, const char *name, unsigned char type, bool prove)
{
	struct sbx_landlock_path_beneath_attr pb = { 0 };
	struct statx sx;
	struct stat st;
	unsigned added;
	int fd;

	if (type == DT_UNKNOWN && !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
	if (type == DT_LNK)
		return 0;
	fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (prove)
		(void)statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW,
		            STATX_TYPE | STATX_INO | STATX_NLINK | STATX_MTIME | STATX_CTIME |
		                    STATX_MNT_ID,
		            &sx);
	pb.allowed_access = type == DT_DIR ? rights.dir : rights.file;
	pb.parent_fd = fd;
	added = !sbx_landlock_add_rule(rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);

	close(fd);
	return added;
}

/* Lists one directory, a buffer at a time, granting as it goes. */
static unsigned floor_level(const struct floor_path *f, int rs, int dfd, const char *next)
{
	char buf[32768];
	unsigned n = 0;
	long got;

	while ((got = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < got;) {
			const struct dirent64 *d = (const struct dirent64 *)(buf + off);
			const char *name = d->d_name;

			off += d->d_reclen;
			if (!strcmp(name, ".") || !strcmp(name, ".."))
				continue;
			if (next ? !strcmp(name, next) : f->skip(name, f->arg))
				continue;
			n += floor_grant(rs, dfd, name, d->d_type, f->prove);
		}
	if (got < 0)
		die("getdents64: %s", strerror(errno));
	return n;
}

double floor_once(const struct floor_path *f, unsigned *rules)
{
	struct sbx_landlock_ruleset_attr attr = { .handled_access_fs = rights.handled };
	double t0 = now_ns(), t;
	int rs = (int)sbx_landlock_create_ruleset(&attr, sizeof(attr), 0);
	int dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (rs < 0 || dfd < 0)
		die("the floor's ruleset or /: %s", strerror(errno));
	*rules = 0;
	for (int i = 0; i < f->levels; i++) {
		const char *next = i + 1 < f->levels ? f->next[i] : NULL;
		int down;

		*rules += floor_level(f, rs, dfd, next);
		if (!next)
			break;
		down = openat(dfd, next, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (down < 0)
			die("the floor's %s: %s", next, strerror(errno));
		close(dfd);
		dfd = down;
	}
	close(dfd);
	t = now_ns() - t0;
	close(rs);
	return t;
}

/* SPDX-License-Identifier: MIT */
/*
 * Stamps: whether a directory a compile read is still as it was.  A
 * directory's change and modification times move whenever an entry is
 * added, removed or renamed in it, on the filesystems that keep them well;
 * where they are too coarse to tell (a change within the same tick as the
 * stamp) or not kept at all, the directory is listed again instead.
 */
#include "config.h"

#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/internal.h"
#include "lib/compiler.h"

/* Filesystems whose directories' times move with every change of an entry,
 * and whose directory entries carry the inode number statx(2) gives. */
static const struct {
	long magic;
	bool times, ino;
} fs_table[] = {
	{ 0xEF53, true, true },      /* ext2, ext3, ext4 */
	{ 0x58465342, true, true },  /* xfs */
	{ 0x9123683E, true, true },  /* btrfs */
	{ 0x01021994, true, true },  /* tmpfs */
	{ 0x858458F6, true, true },  /* ramfs */
	{ 0xF2F52010, true, true },  /* f2fs */
	{ 0xCA451A4E, true, true },  /* bcachefs */
};

static int fs_index(long magic)
{
	for (size_t i = 0; i < sizeof(fs_table) / sizeof(fs_table[0]); i++)
		if ((unsigned long)fs_table[i].magic == (unsigned long)magic)
			return (int)i;
	return -1;
}

bool sbx__fs_notifies(long fs_type)
{
	int i = fs_index(fs_type);

	return i >= 0 && fs_table[i].times;
}

bool sbx__fs_trusts_ino(long fs_type)
{
	int i = fs_index(fs_type);

	return i >= 0 && fs_table[i].ino;
}

/* How close to a change a stamp may be taken and still tell it: the
 * kernel's clock tick for timestamps, or a second (two, for FAT) where the
 * filesystem keeps no fraction. */
#define FINE_WINDOW_NS (50 * 1000000LL)
#define COARSE_WINDOW_NS (3 * 1000000000LL)

static long long ns_since(const struct statx_timestamp *t, const struct timespec *now)
{
	return (now->tv_sec - t->tv_sec) * 1000000000LL + (now->tv_nsec - (long)t->tv_nsec);
}

bool sbx__stamp_racy(const struct statx *sx, long fs_type, const struct timespec *since)
{
	int i = fs_index(fs_type);
	long long window = sx->stx_mtime.tv_nsec == 0 && sx->stx_ctime.tv_nsec == 0
	                           ? COARSE_WINDOW_NS
	                           : FINE_WINDOW_NS;

	if (i < 0 || !fs_table[i].times)
		return true;
	return ns_since(&sx->stx_mtime, since) < window || ns_since(&sx->stx_ctime, since) < window;
}

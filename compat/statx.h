/* SPDX-License-Identifier: MIT */
/*
 * statx(2) where the C library has none (musl before 1.2.5): the kernel's
 * struct and the mask bits the compiler asks for, and the system call
 * behind compat/statx.c.  STATX_MNT_ID and STATX_ATTR_MOUNT_ROOT (Linux
 * 5.8) may be missing from a C library that has the rest.
 */
#ifndef SBX_COMPAT_STATX_H
#define SBX_COMPAT_STATX_H

#include <stdint.h>
#include <sys/stat.h>

#ifndef HAVE_STRUCT_STATX
struct statx_timestamp {
	int64_t tv_sec;
	uint32_t tv_nsec;
	int32_t __reserved;
};

struct statx {
	uint32_t stx_mask;
	uint32_t stx_blksize;
	uint64_t stx_attributes;
	uint32_t stx_nlink;
	uint32_t stx_uid;
	uint32_t stx_gid;
	uint16_t stx_mode;
	uint16_t __spare0[1];
	uint64_t stx_ino;
	uint64_t stx_size;
	uint64_t stx_blocks;
	uint64_t stx_attributes_mask;
	struct statx_timestamp stx_atime, stx_btime, stx_ctime, stx_mtime;
	uint32_t stx_rdev_major, stx_rdev_minor;
	uint32_t stx_dev_major, stx_dev_minor;
	uint64_t stx_mnt_id;
	uint64_t __spare2[13];
};
#endif

#ifndef STATX_TYPE
#define STATX_TYPE 0x1U
#define STATX_MODE 0x2U
#define STATX_NLINK 0x4U
#define STATX_UID 0x8U
#define STATX_GID 0x10U
#define STATX_ATIME 0x20U
#define STATX_MTIME 0x40U
#define STATX_CTIME 0x80U
#define STATX_INO 0x100U
#define STATX_SIZE 0x200U
#define STATX_BLOCKS 0x400U
#define STATX_BASIC_STATS 0x7ffU
#define STATX_BTIME 0x800U
#endif
#if !HAVE_DECL_STATX_MNT_ID
#define STATX_MNT_ID 0x1000U
#endif
#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x2000U /* Linux 5.8 */
#endif

#if !HAVE_DECL_STATX
/* Named as the library's own, as compat/compat.h says why. */
#define statx(dirfd, path, flags, mask, sx) sbx__compat_statx(dirfd, path, flags, mask, sx)
int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *sx);
#endif

#endif /* SBX_COMPAT_STATX_H */

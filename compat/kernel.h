/* SPDX-License-Identifier: MIT */
/*
 * The kernel interfaces the library, sbxrun and the tests use beside
 * Landlock (compat/landlock.h): seccomp filters and their notifications,
 * classic BPF, audit architectures and the audit log's netlink messages,
 * capabilities.  From the kernel's own
 * headers where the compiler sees them; else (Debian's musl-gcc sees no
 * <linux/...>) defined here, as the kernel's stable interface has them.
 */
#ifndef SBX_COMPAT_KERNEL_H
#define SBX_COMPAT_KERNEL_H

#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

/* clone(2)'s flag for a pid file descriptor (Linux 5.2), and the calls
 * on one (5.3, 5.1). */
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

#ifdef HAVE_LINUX_FILTER_H
#include <linux/filter.h>
#else
struct sock_filter {
	uint16_t code;
	uint8_t jt;
	uint8_t jf;
	uint32_t k;
};

struct sock_fprog {
	unsigned short len;
	struct sock_filter *filter;
};

#define BPF_CLASS(code) ((code) & 0x07)
#define BPF_LD 0x00
#define BPF_ALU 0x04
#define BPF_JMP 0x05
#define BPF_RET 0x06
#define BPF_SIZE(code) ((code) & 0x18)
#define BPF_W 0x00
#define BPF_MODE(code) ((code) & 0xe0)
#define BPF_ABS 0x20
#define BPF_OP(code) ((code) & 0xf0)
#define BPF_AND 0x50
#define BPF_JA 0x00
#define BPF_JEQ 0x10
#define BPF_JGT 0x20
#define BPF_JGE 0x30
#define BPF_JSET 0x40
#define BPF_SRC(code) ((code) & 0x08)
#define BPF_K 0x00
#define BPF_STMT(code, k) { (unsigned short)(code), 0, 0, k }
#define BPF_JUMP(code, k, jt, jf) { (unsigned short)(code), jt, jf, k }
#endif

#ifdef HAVE_LINUX_SECCOMP_H
#include <linux/seccomp.h>
#else
#define SECCOMP_MODE_FILTER 2
#define SECCOMP_SET_MODE_FILTER 1
#define SECCOMP_FILTER_FLAG_TSYNC (1UL << 0)
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#define SECCOMP_FILTER_FLAG_TSYNC_ESRCH (1UL << 4)
#define SECCOMP_RET_KILL_PROCESS 0x80000000U
#define SECCOMP_RET_ERRNO 0x00050000U
#define SECCOMP_RET_USER_NOTIF 0x7fc00000U
#define SECCOMP_RET_ALLOW 0x7fff0000U
#define SECCOMP_RET_ACTION_FULL 0xffff0000U
#define SECCOMP_RET_DATA 0x0000ffffU
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE (1UL << 0)

struct seccomp_data {
	int nr;
	uint32_t arch;
	uint64_t instruction_pointer;
	uint64_t args[6];
};

struct seccomp_notif {
	uint64_t id;
	uint32_t pid;
	uint32_t flags;
	struct seccomp_data data;
};

struct seccomp_notif_resp {
	uint64_t id;
	int64_t val;
	int32_t error;
	uint32_t flags;
};

#define SECCOMP_IOCTL_NOTIF_RECV _IOWR('!', 0, struct seccomp_notif)
#define SECCOMP_IOCTL_NOTIF_SEND _IOWR('!', 1, struct seccomp_notif_resp)
#define SECCOMP_IOCTL_NOTIF_ID_VALID _IOW('!', 2, uint64_t)
#endif

#ifdef HAVE_LINUX_AUDIT_H
#include <linux/audit.h>
#else
#define AUDIT_ARCH_AARCH64 (183U | 0x80000000U | 0x40000000U)
#define AUDIT_ARCH_ARM (40U | 0x40000000U)
#define AUDIT_ARCH_I386 (3U | 0x40000000U)
#define AUDIT_ARCH_PPC64LE (21U | 0x80000000U | 0x40000000U)
#define AUDIT_ARCH_RISCV64 (243U | 0x80000000U | 0x40000000U)
#define AUDIT_ARCH_S390X (22U | 0x80000000U)
#define AUDIT_ARCH_X86_64 (62U | 0x80000000U | 0x40000000U)

/* The audit log's netlink messages sbxrun --report-denials and its test
 * send and read. */
#define AUDIT_GET 1000
#define AUDIT_SET 1001
#define AUDIT_USER 1005
#define AUDIT_STATUS_ENABLED 0x0001
#define AUDIT_STATUS_BACKLOG_LIMIT 0x0010
#define AUDIT_STATUS_BACKLOG_WAIT_TIME 0x0020

struct audit_status {
	uint32_t mask;
	uint32_t enabled;
	uint32_t failure;
	uint32_t pid;
	uint32_t rate_limit;
	uint32_t backlog_limit;
	uint32_t lost;
	uint32_t backlog;
	uint32_t feature_bitmap;
	uint32_t backlog_wait_time;
	uint32_t backlog_wait_time_actual;
};
#endif
#ifndef AUDIT_LANDLOCK_ACCESS
#define AUDIT_LANDLOCK_ACCESS 1423
#define AUDIT_LANDLOCK_DOMAIN 1424
#endif
#ifndef AUDIT_NLGRP_READLOG
#define AUDIT_NLGRP_READLOG 1
#endif

#ifdef HAVE_LINUX_NETLINK_H
#include <linux/netlink.h>
#else
#include <sys/socket.h>

#define NETLINK_AUDIT 9
#define NLM_F_REQUEST 0x01
#define NLM_F_ACK 0x04
#define NLMSG_ERROR 0x2

struct sockaddr_nl {
	sa_family_t nl_family;
	unsigned short nl_pad;
	uint32_t nl_pid;
	uint32_t nl_groups;
};

struct nlmsghdr {
	uint32_t nlmsg_len;
	uint16_t nlmsg_type;
	uint16_t nlmsg_flags;
	uint32_t nlmsg_seq;
	uint32_t nlmsg_pid;
};

struct nlmsgerr {
	int error;
	struct nlmsghdr msg;
};

#define NLMSG_ALIGNTO 4U
#define NLMSG_ALIGN(len) (((len) + NLMSG_ALIGNTO - 1) & ~(NLMSG_ALIGNTO - 1))
#define NLMSG_HDRLEN ((int)NLMSG_ALIGN(sizeof(struct nlmsghdr)))
#define NLMSG_LENGTH(len) ((len) + NLMSG_HDRLEN)
#define NLMSG_DATA(nlh) ((void *)((char *)(nlh) + NLMSG_HDRLEN))
#endif

#ifdef HAVE_LINUX_CAPABILITY_H
#include <linux/capability.h>
#else
#define _LINUX_CAPABILITY_VERSION_3 0x20080522
#define CAP_DAC_READ_SEARCH 2
#define CAP_SETPCAP 8
#define CAP_SYS_ADMIN 21

typedef struct __user_cap_header_struct {
	uint32_t version;
	int pid;
} *cap_user_header_t;

typedef struct __user_cap_data_struct {
	uint32_t effective;
	uint32_t permitted;
	uint32_t inheritable;
} *cap_user_data_t;
#endif

/* The mount interface of Linux 5.2 (open_tree, move_mount, fsopen, fsconfig,
 * fsmount, fspick) and 5.12 (mount_setattr): one number on every
 * architecture the library builds for; the flags as the kernel has them. */
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_fsopen
#define SYS_fsopen 430
#endif
#ifndef SYS_fsconfig
#define SYS_fsconfig 431
#endif
#ifndef SYS_fsmount
#define SYS_fsmount 432
#endif
#ifndef SYS_fspick
#define SYS_fspick 433
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#define SBX_OPEN_TREE_CLONE 1U
#define SBX_AT_RECURSIVE 0x8000
#define SBX_MOVE_MOUNT_F_EMPTY_PATH 0x04U
#define SBX_MOVE_MOUNT_T_EMPTY_PATH 0x40U
/* statfs(2)'s f_flags of a mount, and mount(2)'s flag of the same. */
#define SBX_ST_RDONLY 0x1UL
#define SBX_ST_NOSUID 0x2UL
#define SBX_ST_NOEXEC 0x8UL
#define SBX_ST_NOSYMFOLLOW 0x2000UL
#define SBX_MS_NOSYMFOLLOW 256UL
#define SBX_FSOPEN_CLOEXEC 0x1U
#define SBX_FSMOUNT_CLOEXEC 0x1U
#define SBX_FSCONFIG_SET_FLAG 0U
#define SBX_FSCONFIG_SET_STRING 1U
#define SBX_FSCONFIG_CMD_CREATE 6U
#define SBX_FSCONFIG_CMD_RECONFIGURE 7U
#define SBX_MOUNT_ATTR_RDONLY 0x1U
#define SBX_MOUNT_ATTR_NOSUID 0x2U
#define SBX_MOUNT_ATTR_NODEV 0x4U
#define SBX_MOUNT_ATTR_NOEXEC 0x8U

struct sbx_mount_attr {
	uint64_t attr_set;
	uint64_t attr_clr;
	uint64_t propagation;
	uint64_t userns_fd;
};

#endif /* SBX_COMPAT_KERNEL_H */

/* The one seccomp filter the library installs: io_uring off.  A ring takes
 * file and socket operations past the view of anything that watches system
 * calls; Landlock still covers its file operations, but denying the setup
 * keeps the boundary simple to reason about. */
#include "config.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>

#include "internal.h"

/* io_uring_setup, io_uring_enter and io_uring_register are 425 to 427 in
 * every ABI of the two architectures, compat ones included. */
#define IO_URING_FIRST 425
#define IO_URING_LAST 427

#if defined(__x86_64__)
#define ARCH_NATIVE AUDIT_ARCH_X86_64
#define ARCH_COMPAT AUDIT_ARCH_I386
#define NR_MASK 0xbfffffffU /* x32 system calls carry bit 30 */
#elif defined(__aarch64__)
#define ARCH_NATIVE AUDIT_ARCH_AARCH64
#define ARCH_COMPAT AUDIT_ARCH_ARM
#define NR_MASK 0xffffffffU
#endif

#ifdef ARCH_NATIVE
static const struct sock_filter io_uring_filter[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_NATIVE, 2, 0),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_COMPAT, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	BPF_STMT(BPF_ALU | BPF_AND | BPF_K, NR_MASK),
	BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, IO_URING_FIRST, 0, 2),
	BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, IO_URING_LAST, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

static const struct sock_fprog io_uring_prog = {
	.len = sizeof(io_uring_filter) / sizeof(io_uring_filter[0]),
	.filter = (struct sock_filter *)io_uring_filter,
};
#endif

const struct sock_fprog *sbx__io_uring_filter(void)
{
#ifdef ARCH_NATIVE
	return &io_uring_prog;
#else
	return NULL;
#endif
}

/* SPDX-License-Identifier: MIT */
/* The test program's own malloc: each allocation may be made to fail, and
 * the blocks allocated while following are counted until they are freed.
 * It hands every call over to the C library's allocator (glibc's
 * __libc_malloc), or the address sanitizer's, which then still sees every
 * allocation and every free. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "tests/allocs.h"

/* -1: allocations succeed; n >= 0: the allocation after n more fails. */
static atomic_int countdown = -1;
static atomic_bool taken;
static void *_Atomic taker; /* where the failing allocation was called */

/* The blocks followed: an open-addressed set of addresses, under a lock
 * (a spawn's threads and the library's may allocate at once).  Full, it
 * follows no more, and says so through alloc_live (SIZE_MAX). */
#define SLOTS (1 << 16)
static uintptr_t slot[SLOTS];
static size_t held;
static bool following, overflowed;
static atomic_flag lock = ATOMIC_FLAG_INIT;
static atomic_bool ever_followed;

static void take(void)
{
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		;
}

static void give(void)
{
	atomic_flag_clear_explicit(&lock, memory_order_release);
}

#if CAN_FAIL_ALLOCATIONS
static size_t home(uintptr_t p)
{
	return (size_t)((p >> 4) * 0x9e3779b97f4a7c15ULL >> 48) & (SLOTS - 1);
}

static void follow(void *p)
{
	if (!p || !atomic_load(&ever_followed))
		return;
	take();
	if (following && !overflowed) {
		size_t i = home((uintptr_t)p);

		if (held == SLOTS / 2) {
			overflowed = true;
		} else {
			while (slot[i])
				i = (i + 1) & (SLOTS - 1);
			slot[i] = (uintptr_t)p;
			held++;
		}
	}
	give();
}

/* Freed: its slot emptied, and the blocks probed past it moved back so
 * that every probe still ends at an empty slot.  Whether it was followed. */
static bool unfollow(void *p)
{
	size_t i, j, h;
	bool found = false;

	if (!p || !atomic_load(&ever_followed))
		return false;
	take();
	for (i = home((uintptr_t)p); slot[i]; i = (i + 1) & (SLOTS - 1))
		if (slot[i] == (uintptr_t)p) {
			found = true;
			break;
		}
	if (found) {
		held--;
		for (j = (i + 1) & (SLOTS - 1); slot[j]; j = (j + 1) & (SLOTS - 1)) {
			h = home(slot[j]);
			/* Movable where its home is not cyclically in (i, j]. */
			if (i <= j ? (h <= i || h > j) : (h <= i && h > j)) {
				slot[i] = slot[j];
				i = j;
			}
		}
		slot[i] = 0;
	}
	give();
	return found;
}
#endif

void alloc_follow(bool on)
{
	atomic_store(&ever_followed, true);
	take();
	following = on;
	if (!on) {
		memset(slot, 0, sizeof(slot));
		held = 0;
		overflowed = false;
	}
	give();
}

size_t alloc_live(void)
{
	size_t n;

	take();
	n = overflowed ? SIZE_MAX : held;
	give();
	return n;
}

void alloc_fail_after(int k)
{
	atomic_store(&taken, false);
	atomic_store(&taker, NULL);
	atomic_store(&countdown, k);
}

bool alloc_failed(void)
{
	atomic_store(&countdown, -1);
	return atomic_exchange(&taken, false);
}

/* The directories above the tests' trees, watched for what other
 * processes make or remove in them. */
static int world = -1;

void alloc_watch_world(void)
{
	const char *run = getenv("SBX_TEST_DIR");
	char dir[4096], *slash;

	if (world >= 0 || (world = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0)
		return;
	snprintf(dir, sizeof(dir), "%s", run && *run ? run : "/var/tmp");
	for (;;) {
		(void)inotify_add_watch(world, dir, IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
		                                        IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR);
		if (!(slash = strrchr(dir, '/')) || !strcmp(dir, "/"))
			break;
		slash[slash == dir] = '\0';
	}
}

int alloc_world_fd(void)
{
	return world;
}

bool alloc_world_moved(void)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool moved = false;

	while (world >= 0 && read(world, buf, sizeof(buf)) > 0)
		moved = true;
	return moved;
}

/* The C library's sort is the one caller known to go on without the
 * memory it asked for (it sorts in place).  A caller whose name cannot be
 * found (in a static program) is not taken for it. */
bool alloc_absorbable(char *where, size_t size)
{
	static const char *const sorts[] = { "qsort", "qsort_r", "__qsort_r" };
	void *at = atomic_load(&taker);
	Dl_info info;

	if (!at || !dladdr(at, &info) || !info.dli_fname || !info.dli_sname) {
		snprintf(where, size, "a caller with no name (%p)", at);
		return false;
	}
	snprintf(where, size, "%s in %s", info.dli_sname, info.dli_fname);
	for (size_t i = 0; i < sizeof(sorts) / sizeof(sorts[0]); i++)
		if (!strcmp(info.dli_sname, sorts[i]))
			return true;
	return false;
}

#if CAN_FAIL_ALLOCATIONS
#if defined(__SANITIZE_ADDRESS__)
#define REAL(f) __interceptor_##f
#else
#define REAL(f) __libc_##f
#endif
extern void *REAL(malloc)(size_t size);
extern void *REAL(calloc)(size_t n, size_t size);
extern void *REAL(realloc)(void *p, size_t size);
extern void REAL(free)(void *p);

/* One allocation fails: the one that takes countdown from 0 to -1 (of
 * two threads, one takes it; one more below -1 is still none).  No local
 * has its address taken: under the sanitizer this runs before its stack
 * can be watched. */
static int fails(void *caller)
{
	if (atomic_load(&countdown) < 0 || atomic_fetch_sub(&countdown, 1) != 0)
		return 0;
	atomic_store(&taker, caller);
	atomic_store(&taken, true);
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t size)
{
	void *p = fails(__builtin_return_address(0)) ? NULL : REAL(malloc)(size);

	follow(p);
	return p;
}

void *calloc(size_t n, size_t size)
{
	void *p = fails(__builtin_return_address(0)) ? NULL : REAL(calloc)(n, size);

	follow(p);
	return p;
}

void *realloc(void *old, size_t size)
{
	void *p;

	if (fails(__builtin_return_address(0)))
		return NULL;
	p = REAL(realloc)(old, size);
	if (!p && size)
		return NULL; /* the old block stays */
	/* The new block followed where the old one was, or was none. */
	if ((!old || unfollow(old)) && p)
		follow(p);
	return p;
}

void free(void *p)
{
	unfollow(p);
	REAL(free)(p);
}

/* The sanitizer has strdup allocate on its own: through malloc here. */
char *strdup(const char *s)
{
	size_t len = strlen(s) + 1;
	char *copy = malloc(len);

	return copy ? memcpy(copy, s, len) : NULL;
}

char *strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *copy = malloc(len + 1);

	if (copy) {
		memcpy(copy, s, len);
		copy[len] = '\0';
	}
	return copy;
}
#endif

/* SPDX-License-Identifier: MIT */
/* Allocations made to fail one at a time, and the blocks a call leaves
 * live counted: the test program replaces malloc (allocs.c). */
#ifndef SBX_TESTS_ALLOCS_H
#define SBX_TESTS_ALLOCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* glibc lets a program replace malloc, and its own functions (strdup,
 * opendir, ...) then allocate through the replacement too.  Under the
 * address sanitizer the replacement hands over to the sanitizer's own
 * allocator, which then still sees every allocation and every free.
 * Another C library (musl) names no allocator to hand over to: there the
 * tests that need failing allocations skip. */
/* The directories above the tests' trees (/var/tmp, /var, /): a name another
 * process makes or removes in one meanwhile is reported to a kept compile's
 * watch, and its check logs the name, allocating.  Watched here too from
 * the test's start (REQUIRE_FAILING_ALLOCATIONS, before the test counts
 * its descriptors); the exhaustion below asks after each call whether
 * anything moved there, and takes that call again if so (a hundred times,
 * and twice for each allocation made to fail, at most: then it says SKIP,
 * and why). */
void alloc_watch_world(void);
bool alloc_world_moved(void);
/* The descriptor that watch holds (-1: none), which no test counts. */
int alloc_world_fd(void);

#if defined(__SANITIZE_ADDRESS__) || defined(__GLIBC__)
#define CAN_FAIL_ALLOCATIONS 1
#define REQUIRE_FAILING_ALLOCATIONS() alloc_watch_world()
#else
#define CAN_FAIL_ALLOCATIONS 0
#define REQUIRE_FAILING_ALLOCATIONS()                                                       \
	do {                                                                                \
		say_skip("SKIP %s: the C library is not glibc: it has no __libc_malloc to " \
		         "hand over to, so no allocation can be made to fail\n", __func__);  \
		return;                                                                     \
	} while (0)
#endif

/* The allocation after k more fails with ENOMEM (k < 0: none fails). */
void alloc_fail_after(int k);
/* Stops failing: true where the failure was taken (an allocation failed). */
bool alloc_failed(void);
/* After a call that succeeded though an allocation failed: whether it
 * was one a caller may go on without, where names what made it. */
bool alloc_absorbable(char *where, size_t size);
/* Counting on (every block allocated from now on is followed until its
 * free) or off (the blocks followed are forgotten). */
void alloc_follow(bool on);
/* How many blocks followed are live. */
size_t alloc_live(void);

/* Calls call with the k-th allocation failing, for k = 0, 1, ... until it
 * succeeds with none failing.  A failure must be ENOMEM, and leave nothing
 * live: each k is taken three times, the blocks counted around the last
 * (the first ones may fill what the library keeps: a seccomp filter for
 * the process's life, a scope's compile, kept and then watched).  undo runs after each
 * failure; absorbed after a success that took the failure, where the
 * allocation was one the caller may go on without (the C library's sort:
 * alloc_absorbable).  A success with none failing, on any pass, ends it
 * (on a later one, the first kept what the next need not make again). */
#define PASSES_ 3
#define EVERY_ALLOCATION_FAILS_OR(call, undo, absorbed)                                   \
	do {                                                                              \
		int k_, r_, pass_, moved_ = 0;                                            \
		bool before_ = alloc_world_moved();                                       \
		long live_ = 0;                                                           \
		alloc_follow(true);                                                       \
		for (k_ = 0; k_ < 10000; k_++) {                                          \
			for (pass_ = 0; pass_ < PASSES_; pass_++) {                       \
				bool failed_, moved_now_;                                 \
				if (pass_ == PASSES_ - 1)                                 \
					live_ = (long)alloc_live();                       \
				ck_assert_msg(alloc_live() != SIZE_MAX,                   \
				              "more blocks live than can be followed");   \
				alloc_fail_after(k_);                                     \
				r_ = (call);                                              \
				failed_ = alloc_failed();                                 \
				/* A name made above before the call, or while it   \
				 * ran: its check took it in, or the next will. */  \
				moved_now_ = alloc_world_moved();                         \
				if (before_ || moved_now_) {                              \
					before_ = moved_now_;                             \
					if (r_ == 0) {                                    \
						absorbed;                                 \
					} else {                                          \
						undo;                                     \
					}                                                 \
					if (++moved_ > 100 + 2 * k_) {                    \
						say_skip("SKIP %s: other processes made " \
						         "or removed names above its "    \
						         "tree under %d of its calls: "   \
						         "no allocation could be made to "\
						         "fail at one place\n", __func__, \
						         moved_);                         \
						alloc_follow(false);                      \
						return;                                   \
					}                                                 \
					pass_--;                                          \
					continue;                                         \
				}                                                         \
				if (!failed_ && r_ == 0)                                  \
					break;                                            \
				if (r_ == 0) {                                            \
					char at_[256];                                    \
					ck_assert_msg(alloc_absorbable(at_, sizeof(at_)), \
					              "allocation %d failing, by %s: the "\
					              "call went on as if it had not", k_, \
					              at_);                               \
					absorbed;                                         \
				} else {                                                  \
					ck_assert_msg(r_ == ENOMEM,                       \
					              "allocation %d failing: %s", k_,    \
					              sbx_strerror(r_));                  \
					undo;                                             \
				}                                                         \
				if (pass_ == PASSES_ - 1)                                 \
					ck_assert_msg((long)alloc_live() == live_,        \
					              "allocation %d failing: %ld blocks " \
					              "more left live each time", k_,     \
					              (long)alloc_live() - live_);        \
			}                                                                 \
			if (pass_ < PASSES_)                                              \
				break;                                                    \
		}                                                                         \
		alloc_follow(false);                                                      \
		ck_assert_msg(k_ > 0, "no allocation was made");                          \
		ck_assert_int_lt(k_, 10000);                                              \
	} while (0)

/* Where what the call made needs no undoing (no child, no change). */
#define EVERY_ALLOCATION_FAILS(call, undo) EVERY_ALLOCATION_FAILS_OR(call, undo, (void)0)

#endif

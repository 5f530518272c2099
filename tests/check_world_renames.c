/* SPDX-License-Identifier: MIT */
/* The escape suite's attacks from the world, continued (check_world.c):
 * renames between listing and opening, renames after a compile (an atomic
 * save, a file linked into a denial and unlinked), coarse timestamps, and
 * a re-admission that silences no warning. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "tests/world.h"

/* ---- 6: renames between listing and opening ------------------------------ */

static void exchange_dirs(void)
{
	ck_assert_int_eq(syscall(SYS_renameat2, AT_FDCWD, world.third, AT_FDCWD, world.other, 2 /* EXCHANGE */), 0);
}

static void exchange_files(void)
{
	ck_assert_int_eq(syscall(SYS_renameat2, AT_FDCWD, join(world.projects, "README"), AT_FDCWD,
	                         world.secret, 2 /* EXCHANGE */), 0);
}

/* Another process swaps a granted directory and the denied one while the
 * compile has listed their parent and not yet opened them: the name the
 * listing granted now names the denied inode, which must not be granted. */
START_TEST(test_exchange_during_compile)
{
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	scope_deny(&s, world.other);
	seen.when = world.projects;
	seen.then = exchange_dirs;
	ck_assert_str_eq(reads(&s, join(world.third, "secret"), false), "EACCES");
	ck_assert_int_ge(seen.dropped, 1);
	sbx_scopeattr_destroy(&s);
	exchange_dirs();

	/* A file deep inside the denial swapped with a granted file. */
	memset(&seen, 0, sizeof(seen));
	scope_deny(&s, world.other);
	seen.when = world.projects;
	seen.then = exchange_files;
	ck_assert_str_eq(reads(&s, join(world.projects, "README"), false), "EACCES");
	sbx_scopeattr_destroy(&s);
	exchange_files();
}
END_TEST

/* ---- 7: renames after a compile ------------------------------------------ */

/* An atomic save onto a denied name: a file granted at the compile, filled
 * and renamed over the denied file afterwards.  A snapshot, too, notices
 * that the denied name names another inode, and compiles again. */
START_TEST(test_snapshot_atomic_save)
{
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	char *saved = (char *)join(world.projects, "key.txt"), *tmp = (char *)join(world.projects, "key.txt.tmp");

	REQUIRE_LANDLOCK();
	write_file(saved, "old\n", 0644);
	write_file(tmp, "", 0644);
	scope_deny(&s, saved);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
	ck_assert_str_eq(reads(&s, saved, false), "EACCES");
	write_file(tmp, SECRET "\n", 0644);
	ck_assert_int_eq(rename(tmp, saved), 0);
	ck_assert_str_eq(reads(&s, saved, false), "EACCES");
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_CONFINED);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A granted directory moved beneath the denial after a snapshot: its grant
 * went with its inode, and must not go with it into the denial. */
START_TEST(test_snapshot_granted_moved_in)
{
	sbx_scopeattr_t s;
	char *moved = (char *)join(world.other, "third");

	REQUIRE_LANDLOCK();
	write_file(join(world.third, "data"), SECRET "\n", 0644);
	scope_deny(&s, world.other);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
	ck_assert_int_eq(rename(world.third, moved), 0);
	ck_assert_str_eq(reads(&s, join(moved, "data"), false), "EACCES");
	ck_assert_int_eq(rename(moved, world.third), 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A move in two steps, as maildir delivery and link-based moves make it:
 * a granted file linked into the denial, then its granted name unlinked.
 * The rule went with the inode, which now has a name beneath the denial
 * alone; the kernel reports an unlink, which proves nothing while the
 * inode has a name left.  Before the unlink, the child reaches the inode
 * by both names: the documented second name of a file it holds already. */
static void link_then_unlink(bool snapshot)
{
	sbx_scopeattr_t s;
	char *granted = (char *)join(world.projects, "notes"), *moved = (char *)join(world.other, "notes");
	char cmd[16384];

	write_file(granted, SECRET "\n", 0644);
	/* Older than a compile can tell a change by its time from (50 ms):
	 * else the next spawn lists projects again, finds the file's second
	 * name, compiles anew and grants it no more, and whether it does
	 * depends on how fast the machine got from here to the compile. */
	usleep(200 * 1000);
	scope_deny(&s, world.other);
	if (snapshot)
		ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
	ck_assert_str_eq(reads(&s, granted, true), "ok");
	ck_assert_int_eq(link(granted, moved), 0);
	ck_assert_str_eq(reads(&s, moved, true), "ok");
	ck_assert_int_eq(unlink(granted), 0);
	ck_assert_str_eq(reads(&s, moved, false), "EACCES");
	snprintf(cmd, sizeof(cmd), "%s write %s", FSOP, moved);
	ck_assert_int_eq(child_sh(&s, cmd), 1);
	sbx_scopeattr_destroy(&s);
}

START_TEST(test_linked_into_denial_then_unlinked)
{
	REQUIRE_LANDLOCK();
	link_then_unlink(false);
}
END_TEST

START_TEST(test_snapshot_linked_into_denial_then_unlinked)
{
	REQUIRE_LANDLOCK();
	link_then_unlink(true);
}
END_TEST

/* Whether a spawn after a granted file of the projects directory was
 * unlinked compiled again (the root listed anew). */
static bool unlink_compiles(const char *name)
{
	sbx_scopeattr_t s;
	char *granted = (char *)join(world.projects, name);
	int before;

	write_file(granted, "gone soon\n", 0644);
	scope_deny(&s, world.other);
	seen.watched = "/";
	/* A scope's first compile at a spawn watches nothing: the one read
	 * from here is its second (the scope changed in between). */
	ck_assert_str_eq(reads(&s, granted, true), "ok");
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_LISTABLE | SBX_SCOPE_EXPAND), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, 0 | SBX_SCOPE_EXPAND), 0);
	ck_assert_str_eq(reads(&s, granted, true), "ok");
	before = seen.listed;
	ck_assert_int_eq(unlink(granted), 0);
	ck_assert_str_eq(reads(&s, join(world.third, "file"), true), "ok");
	sbx_scopeattr_destroy(&s);
	return seen.listed != before;
}

/* Where file handles cannot be opened (CAP_DAC_READ_SEARCH, which root
 * has), nothing proves an unlinked grant nameless: the move in two steps
 * is caught by a new compile, and so is every unlink of a grant. */
START_TEST(test_linked_away_without_handles)
{
	struct __user_cap_header_struct head = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	pid_t pid;

	REQUIRE_LANDLOCK();
	/* With file handles (root), a plain unlink is told from a move. */
	if (geteuid() == 0)
		ck_assert(!unlink_compiles("tmp1"));
	else
		say_skip("SKIP %s (a plain unlink told from a move): this caller cannot open file "
		         "handles (no CAP_DAC_READ_SEARCH); the part without them runs\n", __func__);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (syscall(SYS_capget, &head, data))
			_exit(2);
		data[0].effective &= ~(UINT32_C(1) << CAP_DAC_READ_SEARCH);
		data[0].permitted &= ~(UINT32_C(1) << CAP_DAC_READ_SEARCH);
		if (syscall(SYS_capset, &head, data))
			_exit(2);
		link_then_unlink(false);
		ck_assert(unlink_compiles("tmp2"));
		_exit(0);
	}
	ck_assert_int_eq(wait_status(pid), 0);
}
END_TEST

/* ---- 8: coarse timestamps ----------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The one-minute load average, for a SKIP line. */
static double load_average(void)
{
	double load = -1;
	FILE *f = fopen("/proc/loadavg", "re");

	if (f) {
		if (fscanf(f, "%lf", &load) != 1)
			load = -1;
		fclose(f);
	}
	return load;
}

/* An ext4 with 128-byte inodes keeps whole seconds: a directory changed
 * twice within one second keeps its stamp.  A compile between the two
 * changes must not be reused as if nothing had changed. */
START_TEST(test_coarse_timestamps)
{
	sbx_scopeattr_t s;
	char img[4096], fs[4096], cmd[16384], d[4096], x[4096], secret[4096];
	bool tried = false;

	REQUIRE_LANDLOCK();
	switch (private_mounts(__func__)) {
	case MOUNT_NS_NONE:
		return;
	case MOUNT_NS_USER:
		/* ext4 cannot be mounted in a user namespace, nor a loop
		 * device set up there. */
		say_skip("SKIP %s: loop-mounting an ext4 image needs CAP_SYS_ADMIN in the "
		        "initial user namespace (real root); a user namespace of its own is all "
		        "there is here\n", __func__);
		return;
	case MOUNT_NS_PLAIN:
		break;
	}
	snprintf(img, sizeof(img), "%s/coarse.img", world.top);
	snprintf(fs, sizeof(fs), "%s/fs", world.top);
	mkdir(fs, 0755);
	snprintf(cmd, sizeof(cmd),
	         "PATH=/usr/sbin:/sbin:$PATH; "
	         "truncate -s 16M %s && mkfs.ext4 -q -I 128 -F %s >/dev/null 2>&1 && mount -o loop %s %s",
	         img, img, img, fs);
	if (system(cmd) != 0) {
		say_skip("SKIP %s: cannot make and loop-mount an ext4 (e2fsprogs, loop devices)\n",
		        __func__);
		return;
	}
	snprintf(d, sizeof(d), "%s/d", fs);
	snprintf(x, sizeof(x), "%s/x", d);
	snprintf(secret, sizeof(secret), "%s/secret", d);
	mkdir(d, 0755);
	mkdir(x, 0755);
	mkdir(secret, 0755);
	write_file(join(x, "f"), "x-data\n", 0644);
	write_file(join(secret, "f"), SECRET "\n", 0644);
	scope_deny(&s, secret);
	/* Reuse works here at all: once d's times are older than the
	 * filesystem can tell apart, a spawn takes the compile as it is,
	 * without listing d again (else what follows proves nothing). */
	seen.watched = d;
	ck_assert_str_eq(reads(&s, join(x, "f"), false), "ok");
	ck_assert_int_eq(seen.listed, 1);
	sleep(4);
	/* Listed once more, its times then trusted (a few tries: what other
	 * processes do in /var/tmp meanwhile may make a spawn compile anew). */
	bool clean = false;
	for (int i = 0; i < 6 && !clean; i++) {
		int before = seen.listed;

		ck_assert_str_eq(reads(&s, join(x, "f"), false), "ok");
		clean = i > 0 && seen.listed == before;
	}
	ck_assert_msg(clean, "no spawn took the compile without listing %s again", d);
	for (int i = 0; i < 20 && !tried; i++) {
		double start = now_s(), frac = start - (long)start;

		if (frac < 0.05 || frac > 0.35) {
			usleep((useconds_t)((frac < 0.05 ? 0.05 - frac : 1.05 - frac) * 1e6));
			continue;
		}
		/* One second: a change, a compile, a swap. */
		write_file(join(d, "tick"), "", 0644);
		unlink(join(d, "tick"));
		ck_assert_str_eq(reads(&s, join(x, "f"), false), "ok");
		ck_assert_int_eq(syscall(SYS_renameat2, AT_FDCWD, x, AT_FDCWD, secret, 2), 0);
		if ((long)now_s() == (long)start) {
			tried = true;
			/* The denied name now names the inode the compile granted
			 * as x: reusing that compile would read it. */
			ck_assert_str_eq(reads(&s, join(secret, "f"), false), "EACCES");
		}
		ck_assert_int_eq(syscall(SYS_renameat2, AT_FDCWD, x, AT_FDCWD, secret, 2), 0);
		sleep(1);
	}
	/* Whether a compile and a swap fit in one second is the machine's
	 * load, not the library: where none did, the test says so. */
	if (!tried)
		say_skip("SKIP %s: never fit a compile and a swap into one second in 20 tries "
		        "(load %.2f): the race was not tried\n", __func__, load_average());
	sbx_scopeattr_destroy(&s);
	umount2(fs, MNT_DETACH);
}
END_TEST

/* ---- 9: an unrelated re-admission silences no warning -------------------- */

START_TEST(test_alias_warning_stays)
{
	sbx_scopeattr_t s;
	char *view = (char *)join(world.mine, "view");

	REQUIRE_LANDLOCK();
	if (!private_mounts(__func__))
		return;
	mkdir(view, 0755);
	ck_assert_int_eq(mount(world.other, view, NULL, MS_BIND, NULL), 0);
	scope_deny(&s, world.other);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, join(world.mine, "unrelated")), 0);
	/* The documented limit: a second name in a granted directory reads
	 * it; the warning must say so, whatever else the scope re-admits. */
	ck_assert_str_eq(reads(&s, join(view, "secret"), true), "ok");
	ck_assert_int_ge(seen.alias, 1);
	ck_assert_str_eq(seen.alias_path2, view);
	sbx_scopeattr_destroy(&s);
	umount(view);
}
END_TEST

void world_renames_tests(TCase *tc)
{
	tcase_add_test(tc, test_exchange_during_compile);
	tcase_add_test(tc, test_snapshot_atomic_save);
	tcase_add_test(tc, test_snapshot_granted_moved_in);
	tcase_add_test(tc, test_linked_into_denial_then_unlinked);
	tcase_add_test(tc, test_snapshot_linked_into_denial_then_unlinked);
	tcase_add_test(tc, test_linked_away_without_handles);
	tcase_add_test(tc, test_coarse_timestamps);
	tcase_add_test(tc, test_alias_warning_stays);
}

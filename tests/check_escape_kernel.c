/* SPDX-License-Identifier: MIT */
/* Escapes through the kernel's other interfaces: a confined child that
 * wants the denied secret and tries namespaces and mounts, a nested
 * confinement, io_uring, its unconfined parent, O_PATH descriptors and
 * handles, writes to metadata and devices, and names made before the
 * spawn (hard links, a bind mount).  As in check_escape.c: each attempt
 * runs on the real kernel, must fail with the errno the kernel gives for
 * it, and must never show the secret; "ESCAPE" is a way in the library
 * claims is closed. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/attempts.h"

/* ---- namespaces and mounts ----------------------------------------------- */

/* A user namespace and a mount namespace of its own, then a bind mount of
 * the denial onto a granted directory: a confined process cannot mount at
 * all.  Whatever happens, the read through the mount point must fail. */
START_TEST(test_userns_bind_mount)
{
	char *mnt = in(t.mine, "mnt");

	REQUIRE_LANDLOCK();
	if (!userns_attack_runs(__func__))
		return;
	ck_assert_int_eq(mkdir(mnt, 0755), 0);
	FAILS("EPERM", ESCAPE, "userns-bind", t.other, mnt, in(mnt, "secret"));
	SAW("unshare ok");
	SAW("private EPERM");
	/* Nothing was mounted: the mount point is the empty directory. */
	SAW("open ENOENT");
}
END_TEST

/* The new mount interface: open_tree(OPEN_TREE_CLONE) makes a detached
 * copy of the denied directory's mount without mount(2), and the secret is
 * opened beneath it.  Landlock's rules are on the files, not the mount. */
START_TEST(test_userns_open_tree)
{
	REQUIRE_LANDLOCK();
	if (!userns_attack_runs(__func__))
		return;
	FAILS("EACCES", ESCAPE, "userns-open-tree", t.other, "secret");
	SAW("unshare ok");
	/* Landlock does not stop the copy itself: only what is opened in it. */
	SAW("open_tree ok");
}
END_TEST

/* ---- nested confinement ---------------------------------------------------- */

/* sbxrun inside the child, re-admitting the denied directory: a new domain
 * only ever narrows the one it is stacked on. */
START_TEST(test_nested_sbxrun)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", SBXRUN, "--quiet", "--allow", t.other, "--", FSOP, "read", t.secret);
}
END_TEST

/* A nested spawn through the library, read-only on the denied directory. */
START_TEST(test_nested_spawn)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", NESTED, "-r", t.other, FSOP, "read", t.secret);
}
END_TEST

/* ---- io_uring ------------------------------------------------------------------ */

/* IORING_OP_OPENAT on the secret, raw.  MODE: inline (done in the
 * io_uring_enter call), async (an io-wq worker does it) or sqpoll (a kernel
 * thread submits it): each runs with the submitter's credentials, and the
 * Landlock domain is part of them. */
static void uring_openat(const char *func, char *mode)
{
	const char *v = attempt(ESCAPE, "uring-openat", t.secret, mode);

	if (!strncmp(v, "unavailable", 11)) {
		say_skip("SKIP %s: io_uring is %s here\n", func, v);
		return;
	}
	expect(v, "EACCES");
	SAW("openat EACCES");
}

START_TEST(test_uring_openat)
{
	REQUIRE_LANDLOCK();
	uring_openat(__func__, "inline");
}
END_TEST

START_TEST(test_uring_openat_async)
{
	REQUIRE_LANDLOCK();
	uring_openat(__func__, "async");
}
END_TEST

START_TEST(test_uring_openat_sqpoll)
{
	REQUIRE_LANDLOCK();
	uring_openat(__func__, "sqpoll");
}
END_TEST

/* IORING_OP_RENAMEAT, moving the secret out. */
START_TEST(test_uring_renameat)
{
	const char *v;

	REQUIRE_LANDLOCK();
	v = attempt(ESCAPE, "uring-renameat", t.secret, in(t.mine, "stolen"));
	if (!strncmp(v, "unavailable", 11)) {
		say_skip("SKIP %s: io_uring is %s here\n", __func__, v);
		return;
	}
	expect(v, "EACCES");
	SAW("renameat EACCES");
	secret_intact();
}
END_TEST

/* ---- the unconfined parent ---------------------------------------------------- */

/* The control: the attack, with no scope, works on this machine; where
 * something else refuses it already (Yama's ptrace_scope, a missing
 * capability), the library's refusal cannot be told from that one, and a
 * SKIP line says which. */
static bool works_unconfined_as(const char *test, const char *works, char *const argv[])
{
	const char *v = run(NULL, NULL, argv, true);
	char yama[16] = "";
	FILE *f;

	if (!strcmp(v, "ok") || (works && !strcmp(v, works)))
		return true;
	if ((f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re"))) {
		if (!fgets(yama, sizeof(yama), f))
			yama[0] = '\0';
		yama[strcspn(yama, "\n")] = '\0';
		fclose(f);
	}
	say_skip("SKIP %s: the attack fails without the library too (%s): %s\n", test, v,
	        yama[0] && strcmp(yama, "0") ? fmt("Yama's ptrace_scope is %s here", yama)
	                                    : "this user lacks the capability it needs");
	return false;
}

#define works_unconfined(test, argv) works_unconfined_as(test, NULL, argv)

/* Tracing the parent would run code with its rights: Landlock forbids
 * ptrace of any process outside the tracer's domain. */
START_TEST(test_ptrace_parent)
{
	REQUIRE_LANDLOCK();
	if (!works_unconfined(__func__, ARGV(ESCAPE, "ptrace", fmt("%d", (int)getpid()))))
		return;
	FAILS("EPERM", ESCAPE, "ptrace", fmt("%d", (int)getpid()));
}
END_TEST

/* The parent's memory through /proc/<parent>/mem: the same check. */
START_TEST(test_parent_mem)
{
	REQUIRE_LANDLOCK();
	/* Opened, the memory is the parent's: only its unmapped first page
	 * makes the read say EIO. */
	if (!works_unconfined_as(__func__, "EIO",
	                         ARGV(FSOP, "read", fmt("/proc/%d/mem", (int)getpid()))))
		return;
	FAILS("EACCES", FSOP, "read", fmt("/proc/%d/mem", (int)getpid()));
}
END_TEST

/* A copy of the parent's descriptor on the secret with pidfd_getfd. */
START_TEST(test_pidfd_getfd)
{
	int fd = open(t.secret, O_RDONLY | O_CLOEXEC);

	REQUIRE_LANDLOCK();
	ck_assert_int_ge(fd, 0);
	if (works_unconfined(__func__, ARGV(ESCAPE, "pidfd-getfd", fmt("%d", (int)getpid()),
	                                    fmt("%d", fd)))) {
		FAILS("EPERM", ESCAPE, "pidfd-getfd", fmt("%d", (int)getpid()), fmt("%d", fd));
		SAW("pidfd_open ok");
	}
	close(fd);
}
END_TEST

/* The secret as the parent holds it in memory, with process_vm_readv. */
START_TEST(test_process_vm_readv)
{
	static char held[64];
	int fd = open(t.secret, O_RDONLY | O_CLOEXEC);

	REQUIRE_LANDLOCK();
	ck_assert_int_gt(read(fd, held, sizeof(held) - 1), 0);
	close(fd);
	if (!works_unconfined(__func__, ARGV(ESCAPE, "vm-read", fmt("%d", (int)getpid()),
	                                     fmt("%p", (void *)held), fmt("%zu", strlen(held)))))
		return;
	ck_assert_msg(strstr(out, SECRET), "the control read no secret:\n%s", out);
	FAILS("EPERM", ESCAPE, "vm-read", fmt("%d", (int)getpid()), fmt("%p", (void *)held),
	      fmt("%zu", strlen(held)));
}
END_TEST

/* ---- other ways to open ------------------------------------------------------- */

/* O_PATH is not an open for reading, so it works; reopening the O_PATH
 * descriptor through /proc/self/fd is one, and is checked. */
START_TEST(test_opath_reopen)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", ESCAPE, "opath-reopen", t.secret);
	SAW("opath ok");
}
END_TEST

/* openat2 and its RESOLVE_* flags change how a path is walked, not where
 * it ends. */
START_TEST(test_openat2_resolve)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", ESCAPE, "openat2", "-", t.secret, "no-symlinks,no-magiclinks,no-xdev");
	FAILS("EACCES", ESCAPE, "openat2", t.projects, "other/secret", "beneath");
	FAILS("EACCES", ESCAPE, "openat2", t.projects, "/other/secret", "in-root");
	FAILS("EACCES", ESCAPE, "openat2", t.other, "secret", "beneath,no-symlinks");
}
END_TEST

/* A file handle (name_to_handle_at), then open_by_handle_at: no path at
 * all.  As root the child has CAP_DAC_READ_SEARCH, so the call itself is
 * allowed; the open is still checked where the file lies. */
START_TEST(test_file_handle)
{
	REQUIRE_LANDLOCK();
	/* Without CAP_DAC_READ_SEARCH the call itself is refused, before
	 * Landlock is asked: nothing to show then. */
	if (!works_unconfined(__func__, ARGV(ESCAPE, "handle", t.secret, t.mine)))
		return;
	ck_assert_msg(strstr(out, SECRET), "the control read no secret:\n%s", out);
	FAILS("EACCES", ESCAPE, "handle", t.secret, t.mine);
	SAW("name_to_handle_at ok");
}
END_TEST

/* The same handle opened while the file has no name: the parent drops the
 * dentry cache and opens the handle itself, which gives a dentry
 * disconnected from the tree (its /proc name is not the path), and keeps
 * it open so the child's open_by_handle_at finds that same dentry.  With
 * no parent to walk up to, Landlock has no grant to find. */
START_TEST(test_file_handle_disconnected)
{
	struct {
		struct file_handle h;
		unsigned char bytes[MAX_HANDLE_SZ];
	} fh = { .h.handle_bytes = MAX_HANDLE_SZ };
	char hex[2 * MAX_HANDLE_SZ + 1] = "", name[4096] = "";
	int mnt, dc, dir, fd;

	REQUIRE_LANDLOCK();
	ck_assert_int_eq(name_to_handle_at(AT_FDCWD, t.secret, &fh.h, &mnt, 0), 0);
	for (unsigned i = 0; i < fh.h.handle_bytes; i++)
		sprintf(hex + 2 * i, "%02x", fh.bytes[i]);
	dc = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (dc < 0 || write(dc, "2", 1) != 1) {
		say_skip("SKIP %s: cannot drop the dentry cache: %s\n", __func__,
		        strerror(errno));
		return;
	}
	close(dc);
	dir = open(t.mine, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd = open_by_handle_at(dir, &fh.h, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_gt(readlink(fmt("/proc/self/fd/%d", fd), name, sizeof(name) - 1), 0);
	if (!strcmp(name, t.secret)) {
		say_skip("SKIP %s: the file kept its name\n", __func__);
		return;
	}
	FAILS("EACCES", ESCAPE, "handle-hex", t.mine, fmt("%d", fh.h.handle_type), hex);
	SAW("open_by_handle_at EACCES");
	close(fd);
	close(dir);
}
END_TEST

/* ---- writes, devices, metadata -------------------------------------------------- */

/* truncate(2) on the secret: a write without an open (ABI 3). */
START_TEST(test_truncate)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", FSOP, "truncate", t.secret);
	secret_intact();
}
END_TEST

/* Making a character or block device is never granted, not even in a
 * granted directory: a device of its own (a disk, say) would go around
 * every path. */
START_TEST(test_mknod)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", ESCAPE, "mknod", in(t.mine, "null"), "c");
	FAILS("EACCES", ESCAPE, "mknod", in(t.mine, "disk"), "b");
	FAILS("EACCES", ESCAPE, "mknod", in(t.other, "null"), "c");
	ck_assert_int_eq(access(in(t.mine, "null"), F_OK), -1);
}
END_TEST

/* The documented limit: metadata is not mediated, chmod works on the
 * secret and on the denied directory.  It opens nothing: the secret stays
 * unreadable whatever its mode says. */
START_TEST(test_limit_chmod)
{
	struct stat st;

	REQUIRE_LANDLOCK();
	ck_assert_str_eq(attempt(ESCAPE, "chmod", t.secret, "0666"), "ok");
	ck_assert_str_eq(attempt(ESCAPE, "chmod", t.other, "0777"), "ok");
	ck_assert_int_eq(stat(t.secret, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0666);
	FAILS("EACCES", FSOP, "read", t.secret);
	FAILS("EACCES", FSOP, "write", t.secret);
	secret_intact();
}
END_TEST

/* The documented limit: notifications are not mediated.  An inotify watch
 * on the denied directory reports the names of what is created there; the
 * files stay unreadable.  Each file is made anew under a name of its own
 * and stays: the one the watcher reads exists, and holds the secret. */
static atomic_int creating;

static void *create_in_denied(void *arg)
{
	const char *dir = arg;

	/* Until the watcher has seen one, however long its spawn takes. */
	for (int i = 0; atomic_load(&creating); i++) {
		char path[8192];

		usleep(100 * 1000);
		snprintf(path, sizeof(path), "%s/new-name.%d", dir, i);
		write_file(path, SECRET "\n", 0644);
	}
	return NULL;
}

START_TEST(test_limit_inotify)
{
	pthread_t th;

	REQUIRE_LANDLOCK();
	atomic_store(&creating, 1);
	ck_assert_int_eq(pthread_create(&th, NULL, create_in_denied, t.other), 0);
	const char *last = attempt(ESCAPE, "inotify", t.other);
	atomic_store(&creating, 0);
	pthread_join(th, NULL);
	SAW("inotify_add_watch ok");
	ck_assert_msg(strstr(out, "event new-name."), "%s", out);
	ck_assert_str_eq(last, "EACCES");
}
END_TEST

/* ---- hard links made before the spawn --------------------------------------- */

struct aliases {
	int count;
	char path[4096], path2[4096];
};

static void on_alias(const sbx_event_t *ev, void *arg)
{
	struct aliases *a = arg;

	if (ev->kind != SBX_EVENT_ALIAS)
		return;
	a->count++;
	snprintf(a->path, sizeof(a->path), "%s", ev->path);
	snprintf(a->path2, sizeof(a->path2), "%s", ev->path2 ? ev->path2 : "");
}

/* A denied file with a second name made before the spawn in an expanded
 * directory: the compiler lists that directory, recognises the file, names
 * both in an ALIAS event and grants neither name. */
START_TEST(test_hard_link_expanded_alias)
{
	char *key = in(t.third, "key"), *beside = in(t.projects, "key");
	struct aliases seen = { 0 };
	sbx_scopeattr_t fs;

	REQUIRE_LANDLOCK();
	write_file(key, SECRET "\n", 0644);
	ck_assert_int_eq(link(key, beside), 0);
	ck_assert_int_eq(sbx_scopeattr_init(&fs), 0);
	sbx_scopeattr_setlogger(&fs, on_alias, &seen);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&fs, key), 0);
	ck_assert_str_eq(run(&fs, NULL, ARGV(FSOP, "read", key), false), "EACCES");
	ck_assert_str_eq(run(&fs, NULL, ARGV(FSOP, "read", beside), false),
	                 "EACCES");
	ck_assert_int_ge(seen.count, 1);
	ck_assert_str_eq(seen.path, key);
	ck_assert_str_eq(seen.path2, beside);
	sbx_scopeattr_destroy(&fs);
}
END_TEST

/* The documented limit: a hard link made before the spawn in a granted
 * directory is a second name nothing looks for, and it reads the secret.
 * The denied name itself stays denied. */
START_TEST(test_limit_hard_link_granted)
{
	char *copy = in(t.mine, "copy");

	REQUIRE_LANDLOCK();
	ck_assert_int_eq(link(t.secret, copy), 0);
	ck_assert_str_eq(run(&s, NULL, ARGV(FSOP, "read", copy), true), "ok");
	ck_assert_ptr_nonnull(strstr(out, SECRET));
	FAILS("EACCES", FSOP, "read", t.secret);
}
END_TEST

/* A file inside a denied directory with a second name made before the
 * spawn in an expanded directory (projects).  A Landlock rule is on the
 * file, not on the name: granting that entry as a file of projects would
 * open the denied name other/secret too.  The compiler does not grant a
 * file with more than one name in an expanded directory: both names are
 * denied, and the dropped grant is reported. */
START_TEST(test_hard_link_expanded_denied_name)
{
	char *copy = in(t.projects, "copy");
	sbx_outcome_t oc;

	REQUIRE_LANDLOCK();
	ck_assert_int_eq(link(t.secret, copy), 0);
	FAILS("EACCES", FSOP, "read", copy);
	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	ck_assert_int_eq(oc.confinement, SBX_OUTCOME_NARROWED);
	ck_assert_str_eq(oc.dropped_paths[0], copy);
	FAILS("EACCES", FSOP, "read", t.secret);
	FAILS("EACCES", FSOP, "write", t.secret);
}
END_TEST

/* The same with a directory: a subdirectory of the denial bind-mounted,
 * before the spawn, onto an entry of an expanded directory (projects).
 * Granting the entry would put the rule on other/sub itself.  The compiler
 * finds, through the mount table, that the mount shows a part of the
 * denial, does not grant it, and names both in an ALIAS event; the denied
 * name other/sub/key and the second name both stay denied. */
START_TEST(test_bind_mount_subdir_denied_name)
{
	char *sub = in(t.other, "sub"), *alias = in(t.projects, "sub-alias");
	struct aliases seen = { 0 };

	REQUIRE_LANDLOCK();
	if (!private_mounts(__func__))
		return;
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_eq(mkdir(alias, 0755), 0);
	write_file(in(sub, "key"), SECRET "\n", 0644);
	ck_assert_int_eq(mount(sub, alias, NULL, MS_BIND, NULL), 0);
	sbx_scopeattr_setlogger(&s, on_alias, &seen);
	FAILS("EACCES", FSOP, "read", in(alias, "key"));
	FAILS("EACCES", FSOP, "read", in(sub, "key"));
	ck_assert_int_ge(seen.count, 1);
	ck_assert_ptr_eq(strstr(seen.path, t.other), seen.path);
	/* Unmounted, so the teardown can remove the tree. */
	ck_assert_int_eq(umount2(alias, MNT_DETACH), 0);
}
END_TEST

void escape_kernel_attempts(TCase *tc, TCase *hc)
{
	/* Each attempt, and whether it runs against the denial hidden too (as
	 * in check_escape.c's table). */
	const struct attempt_case attempts[] = {
		{ test_userns_bind_mount, true },
		{ test_userns_open_tree, true },
		{ test_nested_sbxrun, true },
		{ test_nested_spawn, true },
		{ test_uring_openat, true },
		{ test_uring_openat_async, true },
		{ test_uring_openat_sqpoll, true },
		{ test_uring_renameat, true },
		{ test_ptrace_parent, true },
		{ test_parent_mem, true },
		{ test_pidfd_getfd, true },
		{ test_process_vm_readv, true },
		{ test_opath_reopen, true },
		{ test_openat2_resolve, true },
		{ test_file_handle, true },
		{ test_file_handle_disconnected, true },
		{ test_truncate, true },
		{ test_mknod, true },
		{ test_limit_chmod, false },
		{ test_limit_inotify, false },
		{ test_hard_link_expanded_alias, false },
		{ test_limit_hard_link_granted, false },
		{ test_hard_link_expanded_denied_name, false },
		{ test_bind_mount_subdir_denied_name, true },
	};

	add_attempts(tc, hc, attempts, sizeof(attempts) / sizeof(attempts[0]));
}

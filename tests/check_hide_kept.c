/* SPDX-License-Identifier: MIT */
/* The namespace kept with a ruleset (lib/cache/hidens.c): a scope's second spawn
 * and those after it enter one namespace, made once, instead of making
 * their own.  Each child is seen from outside (its namespace's inode in
 * /proc), and each kept namespace held to what a new one would give: the
 * denial hidden, the home writable, the working directory the caller's, a
 * denied file linked back in place found uncovered (the child's own check,
 * which the parent's cannot make), a mount the caller makes since seen. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/emulated.h"
#include "tests/hide.h"
#include "tests/jail.h"

/* Whether a namespace can be kept here: not under qemu-user, whose
 * clone(CLONE_VM) is a fork (the library's keeper shares its memory). */
static bool can_keep(const char *test)
{
	if (!can_hide(test))
		return false;
	if (!emulated())
		return true;
	say_skip("SKIP %s: under qemu-user clone(CLONE_VM) is a fork: no namespace is kept\n", test);
	return false;
}

/* A child under s that says its mount namespace (as /proc names it) and
 * waits, holding it, until its input closes. */
struct alive {
	pid_t pid;
	int in;
	char ns[64];
};

static void alive(const sbx_scopeattr_t *s, struct alive *a)
{
	char *argv[] = { "/bin/sh", "-c", "readlink /proc/self/ns/mnt; read x; exit 0", NULL };
	sbx_file_actions_t fa;
	int in[2], out[2];
	FILE *f;

	ck_assert(pipe2(in, O_CLOEXEC) == 0 && pipe2(out, O_CLOEXEC) == 0);
	sbx_file_actions_init(&fa);
	sbx_file_actions_adddup2(&fa, in[0], 0);
	sbx_file_actions_adddup2(&fa, out[1], 1);
	ck_assert_int_eq(sbx_posix_spawn(&a->pid, argv[0], &fa, NULL, s, argv, environ), 0);
	sbx_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	a->in = in[1];
	ck_assert_ptr_nonnull(f = fdopen(out[0], "r"));
	ck_assert_ptr_nonnull(fgets(a->ns, sizeof(a->ns), f));
	fclose(f);
	a->ns[strcspn(a->ns, "\n")] = '\0';
	ck_assert_msg(!strncmp(a->ns, "mnt:[", 5), "not a namespace: %s", a->ns);
}

static void end(struct alive *a)
{
	close(a->in);
	ck_assert_int_eq(wait_status(a->pid), 0);
}

static void mine(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/ns/mnt", buf, size - 1);

	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
}

/* The mount table, watched: a mount made or removed anywhere the test's
 * namespace sees makes a kept compile stale, and its next spawn keeps a
 * namespace anew.  As root each test has a mount namespace of its own
 * (no one else's mounts reach it); another user's sees the machine's. */
static int table = -1;

static void kept_setup(void)
{
	if (geteuid() == 0)
		(void)private_mounts_if_can();
	setup();
	ck_assert_int_ge(table = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC), 0);
}

static void kept_teardown(void)
{
	close(table);
	teardown();
}

/* Where two children of a kept compile are not in one namespace and the
 * machine's mounts changed meanwhile, the test can tell nothing: it says
 * SKIP, and why. */
static bool same_kept(const char *test, const char *a, const char *b)
{
	if (strcmp(a, b) && mounts_moved(table)) {
		say_skip("SKIP %s: a mount made or removed on the machine meanwhile made the kept "
		         "compile stale (a caller other than root has no mount namespace of its own "
		         "here)\n", test);
		return false;
	}
	ck_assert_str_eq(a, b);
	return true;
}

/* A scope of one hidden denial, compiled: its first spawn makes its own
 * namespace, the second keeps one, the third enters that one.  Each
 * compared while the others live (a namespace's number is given again
 * once it is gone); *kept is left alive in the kept one.  false (after a
 * SKIP line, everything ended) where the machine's mounts moved. */
static bool kept_from(const char *test, sbx_scopeattr_t *s, const char *path, struct alive *kept)
{
	struct alive first, third;
	char self[64];
	bool same;

	scope_deny(s, path, 0);
	(void)mounts_moved(table);
	ck_assert_int_eq(sbx_scopeattr_compile(s), 0);
	mine(self, sizeof(self));
	alive(s, &first);
	outcome(1, 0);
	alive(s, kept);
	alive(s, &third);
	ck_assert_str_ne(first.ns, self);
	ck_assert_str_ne(kept->ns, self);
	ck_assert_str_ne(kept->ns, first.ns);
	same = same_kept(test, third.ns, kept->ns);
	end(&first);
	end(&third);
	if (!same) {
		end(kept);
		sbx_scopeattr_destroy(s);
	}
	return same;
}

/* The next child under s is in a namespace other than kept (alive still,
 * so that its number is not given again), with hidden and expanded
 * denials; both ended, s destroyed. */
static void then_another(sbx_scopeattr_t *s, struct alive *kept, unsigned hidden,
                         unsigned expanded)
{
	struct alive own;

	alive(s, &own);
	ck_assert_str_ne(own.ns, kept->ns);
	outcome(hidden, expanded);
	end(&own);
	end(kept);
	sbx_scopeattr_destroy(s);
}

/* Entered: what a namespace of its own gives, the same. */
START_TEST(test_hide_kept_entered)
{
	const char *save = "echo saved > .profile.tmp && mv .profile.tmp .profile && echo ok";
	char sub[4400], where[4600];
	struct alive kept, again;
	int here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!can_keep(__func__))
		return;
	ck_assert_int_ge(here, 0);
	if (!kept_from(__func__, &s, ssh, &kept))
		return;
	WORKS(FSOP, "read", key);
	REFUSED(&s, FSOP, "read", key);
	ck_assert_str_eq(VERDICT(&s, "/bin/sh", "-c", sh_in_home(save)), "ok");
	/* The caller's working directory, wherever it moves between spawns. */
	snprintf(sub, sizeof(sub), "%s/work", home);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_eq(chdir(sub), 0);
	ck_assert_str_eq(VERDICT(&s, "/bin/sh", "-c", "pwd -P"), sub);
	ck_assert_int_eq(chdir(home), 0);
	ck_assert_str_eq(VERDICT(&s, "/bin/sh", "-c", "pwd -P"), home);
	snprintf(where, sizeof(where), "%s/left", sub);
	ck_assert_str_eq(VERDICT(&s, "/bin/sh", "-c", "echo here > work/left && echo ok"), "ok");
	ck_assert_int_eq(access(where, F_OK), 0);
	/* A relative name from there meets the cover too. */
	REFUSED(&s, FSOP, "read", ".ssh/id");
	alive(&s, &again);
	(void)same_kept(__func__, again.ns, kept.ns);
	end(&again);
	end(&kept);
	ck_assert_int_eq(fchdir(here), 0);
	close(here);
	secret_intact();
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A denied file unlinked and linked back as it was: the same inode, one
 * link, so the parent's look finds the denial unchanged; the kept
 * namespace's cover went with the old name.  The child finds no cover
 * where the keeper made one, and makes a namespace of its own. */
START_TEST(test_hide_kept_relinked)
{
	char file[4400], other[4400];
	struct alive kept;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!can_keep(__func__))
		return;
	snprintf(file, sizeof(file), "%s/token", home);
	snprintf(other, sizeof(other), "%s/token.new", home);
	write_file(file, SECRET "\n", 0600);
	if (!kept_from(__func__, &s, file, &kept))
		return;
	REFUSED(&s, FSOP, "read", file);
	ck_assert_int_eq(link(file, other), 0);
	ck_assert_int_eq(unlink(file), 0);
	ck_assert_int_eq(link(other, file), 0);
	ck_assert_int_eq(unlink(other), 0);
	WORKS(FSOP, "read", file);
	REFUSED(&s, FSOP, "read", file);
	then_another(&s, &kept, 1, 0);
}
END_TEST

/* A mount the caller makes after the namespace was kept: the mount table
 * changed, the ruleset is compiled again, and the child sees the mount
 * (as a namespace of its own, copied at its start, would). */
START_TEST(test_hide_kept_mounted)
{
	char point[4400], file[4500];
	struct alive kept;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!can_keep(__func__))
		return;
	snprintf(point, sizeof(point), "%s/mnt", home);
	snprintf(file, sizeof(file), "%s/f", point);
	ck_assert_int_eq(mkdir(point, 0755), 0);
	if (mount("kept", point, "tmpfs", 0, "mode=0755")) {
		say_skip("SKIP %s: no mount of the test's own here: %s\n", __func__, strerror(errno));
		return;
	}
	ck_assert_int_eq(umount(point), 0);
	if (!kept_from(__func__, &s, ssh, &kept))
		return;
	ck_assert_int_eq(mount("kept", point, "tmpfs", 0, "mode=0755"), 0);
	write_file(file, "mounted\n", 0644);
	ck_assert_str_eq(VERDICT(&s, "/bin/cat", file), "mounted");
	REFUSED(&s, FSOP, "read", key);
	then_another(&s, &kept, 1, 0);
	ck_assert_int_eq(umount(point), 0);
}
END_TEST

/* A caller that moves to a mount namespace of its own after the keep
 * (unshare): its mount table is another now, the compile stale.  A mount
 * made there is seen by the next child, and a bind of the denial made
 * there (a second name the compile before never saw) shows nothing. */
START_TEST(test_hide_kept_unshared)
{
	char point[4400], file[4500], alias[4400], through[4500];
	struct alive kept;
	enum mount_ns ns;
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!can_keep(__func__))
		return;
	snprintf(point, sizeof(point), "%s/mnt", home);
	snprintf(file, sizeof(file), "%s/f", point);
	snprintf(alias, sizeof(alias), "%s/alias", t.top);
	snprintf(through, sizeof(through), "%s/id", alias);
	ck_assert(mkdir(point, 0755) == 0 && mkdir(alias, 0755) == 0);
	if (!kept_from(__func__, &s, ssh, &kept))
		return;
	if ((ns = private_mounts(__func__)) != MOUNT_NS_PLAIN) {
		if (ns == MOUNT_NS_USER)
			say_skip("SKIP %s: a caller other than root moves to a user namespace too, "
			         "where the library makes its own namespaces as root\n", __func__);
		end(&kept);
		sbx_scopeattr_destroy(&s);
		return;
	}
	ck_assert_int_eq(mount("unshared", point, "tmpfs", 0, "mode=0755"), 0);
	ck_assert_int_eq(mount(ssh, alias, NULL, MS_BIND, NULL), 0);
	write_file(file, "unshared\n", 0644);
	WORKS(FSOP, "read", through);
	ck_assert_str_eq(VERDICT(&s, "/bin/cat", file), "unshared");
	REFUSED(&s, FSOP, "read", key);
	REFUSED(&s, FSOP, "read", through);
	/* The bind shows the denial again: expanded in the new namespace. */
	then_another(&s, &kept, 0, 1);
}
END_TEST

/* What a spawn of /cat OUT under s gave, in a line ("spawn ERR", or the
 * status and what it printed), for the chroot test's subprocess. */
static void said_under(const sbx_scopeattr_t *s, const char *prog, const char *out, char *line,
                       size_t size)
{
	char *argv[] = { (char *)prog, (char *)out, NULL }, got[256] = "";
	int fds[2], status = -1, err;
	sbx_file_actions_t fa;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		_exit(2);
	sbx_file_actions_init(&fa);
	sbx_file_actions_adddup2(&fa, fds[1], 1);
	sbx_file_actions_adddup2(&fa, fds[1], 2);
	err = sbx_posix_spawn(&pid, prog, &fa, NULL, s, argv, environ);
	sbx_file_actions_destroy(&fa);
	close(fds[1]);
	/* All of it, to its end: cat writes its error in parts, and one
	 * read may take the first alone (the next write then a SIGPIPE). */
	while (!err && len < sizeof(got) - 1 &&
	       (n = read(fds[0], got + len, sizeof(got) - 1 - len)) > 0)
		len += (size_t)n;
	got[len] = '\0';
	close(fds[0]);
	if (!err)
		waitpid(pid, &status, 0);
	snprintf(line, size, "spawn %d, status %#x: %s", err, (unsigned)status, got);
}

/* A caller that enters a chroot after its namespace was kept: the kept
 * namespace has the root it had.  The jail is laid out so that each path
 * the test uses names the same inode in it and out of it (the parent's
 * look at the denial and the child's at its working directory find
 * nothing changed): the jail's own path, inside it, holds symlinks back to
 * its root and a working directory that its path outside leads to; /proc
 * is mounted in it before the compile (the mount table stays what the
 * compile read).  In the jail, a spawn under the kept scope must give what
 * a new scope gives; with the root it had, it read a file outside. */
START_TEST(test_hide_kept_chroot)
{
	char jail[4400], way[8900], prog[4500], outside[4400], work[4500], sec[4500], both[1024];
	size_t got = 0;
	ssize_t n;
	int fds[2], status;
	pid_t pid;

	REQUIRE_LANDLOCK();
	if (!can_keep(__func__))
		return;
	snprintf(jail, sizeof(jail), "%s/jail", t.top);
	snprintf(outside, sizeof(outside), "%s/outside", t.top);
	snprintf(prog, sizeof(prog), "%s/cat", jail);
	snprintf(work, sizeof(work), "%s/w", jail);
	snprintf(sec, sizeof(sec), "%s/x/sec", jail);
	write_file(outside, "outside the jail\n", 0644);
	/* Outside: JAIL/x/sec, JAIL/cat, JAIL/w -> JAIL/JAIL/w.  Inside:
	 * JAIL/x -> /x, JAIL/cat -> /cat, JAIL/w itself. */
	snprintf(way, sizeof(way),
	         "J='%s' && mkdir -p \"$J/x/sec\" \"$J/proc\" \"$J/sys\" \"$J$J/w\" && cp /bin/cat \"$J/cat\" && "
	         "ln -s \"$J$J/w\" \"$J/w\" && ln -s /x \"$J$J/x\" && ln -s /cat \"$J$J/cat\"",
	         jail);
	ck_assert_int_eq(system(way), 0);
	jail_libraries(jail, "/bin/cat");
	ck_assert_int_eq(pipe2(fds, O_CLOEXEC), 0);
	if ((pid = fork()) == 0) {
		sbx_scopeattr_t s, fresh;
		char line[512];

		/* /proc, and /sys: it tells that no image lies behind the
		 * jail's disk, whose mount a chroot's table leaves out. */
		snprintf(way, sizeof(way), "%s/proc", jail);
		if (private_mounts(__func__) != MOUNT_NS_PLAIN || mount("proc", way, "proc", 0, NULL) ||
		    chdir(work))
			_exit(77);
		snprintf(way, sizeof(way), "%s/sys", jail);
		if (mount("sysfs", way, "sysfs", 0, NULL))
			_exit(6);
		scope_deny(&s, sec, 0);
		if (sbx_scopeattr_compile(&s))
			_exit(3);
		/* Out of the jail, three spawns (the namespace kept at the
		 * second) read the file. */
		for (int i = 0; i < 3; i++) {
			said_under(&s, prog, outside, line, sizeof(line));
			if (strcmp(line, "spawn 0, status 0: outside the jail\n"))
				_exit(5);
		}
		if (chroot(jail) || chdir(work))
			_exit(4);
		said_under(&s, prog, outside, line, sizeof(line));
		(void)!write(fds[1], line, strlen(line) + 1);
		scope_deny(&fresh, sec, 0);
		said_under(&fresh, prog, outside, line, sizeof(line));
		(void)!write(fds[1], line, strlen(line) + 1);
		_exit(0);
	}
	close(fds[1]);
	while (got < sizeof(both) - 1 && (n = read(fds[0], both + got, sizeof(both) - 1 - got)) > 0)
		got += (size_t)n;
	both[got] = '\0';
	close(fds[0]);
	status = wait_status(pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
		say_skip("SKIP %s: no mount namespace of the test's own without a user namespace "
		         "(a caller other than root), where /proc is mounted in the jail\n", __func__);
		return;
	}
	ck_assert_msg(status == 0, "the subprocess: %#x (5: a spawn before the chroot failed)",
	              (unsigned)status);
	ck_assert_msg(got > strlen(both) + 1, "the subprocess said %s", both);
	ck_assert_msg(!strstr(both, "outside the jail"), "ESCAPE: past the chroot: %s", both);
	/* Both ran (the root taken), and found nothing at that path. */
	ck_assert_msg(!strncmp(both, "spawn 0, ", 9), "in the jail: %s", both);
	ck_assert_str_eq(both, both + strlen(both) + 1);
}
END_TEST

Suite *suite_hide_kept(void)
{
	Suite *su = suite_create("hide-kept");
	TCase *tc = tcase_create("kept");

	untimed(tc);
	tcase_add_checked_fixture(tc, kept_setup, kept_teardown);
	tcase_add_test(tc, test_hide_kept_entered);
	tcase_add_test(tc, test_hide_kept_relinked);
	tcase_add_test(tc, test_hide_kept_mounted);
	tcase_add_test(tc, test_hide_kept_unshared);
	tcase_add_test(tc, test_hide_kept_chroot);
	suite_add_tcase(su, tc);
	return su;
}

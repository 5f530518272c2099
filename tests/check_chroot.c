/* SPDX-License-Identifier: MIT */
/* A caller in a chroot whose root is a directory, not a mount point (a
 * build runner's jail): the mount table it reads lists no mount at "/",
 * and its child cannot make its mounts private (the mount holding the
 * root is not in reach).  A scope still confines there: the denial is
 * expanded, everything else is reachable, and a demand to hide is refused
 * saying why.  The jail holds a copy of the helper fsop and of the
 * libraries it loads. */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <libgen.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"
#include "tests/jail.h"

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })

/* What fsop read PATH printed last, run under scope in the jail ("ok",
 * "EACCES", ...), or "spawn: ERR" where nothing ran. */
static const char *verdict(const sbx_scopeattr_t *scope, const char *path)
{
	static char said[64];
	char *out = NULL, *line;
	int status = run_scoped(scope, ARGV("/fsop", "read", (char *)path), &out);

	if (status <= -1000) {
		snprintf(said, sizeof(said), "spawn: %s", sbx_strerror(-1000 - status));
	} else {
		while (out && (line = strrchr(out, '\n')) && !line[1])
			*line = '\0';
		line = out ? strrchr(out, '\n') : NULL;
		snprintf(said, sizeof(said), "%s", line ? line + 1 : out ? out : "(nothing)");
	}
	free(out);
	return said;
}

/* What the library said to a logger in the jail, one line after another. */
static char said_here[8192];

static void heard(const sbx_event_t *ev, void *arg)
{
	size_t len = strlen(said_here);

	(void)arg;
	snprintf(said_here + len, sizeof(said_here) - len, "%s\n", ev->message);
}

/* In the jail: each step's verdict against what it must be; the number of
 * the first that differs (its line on stderr), or 0. */
static int in_jail(void)
{
	sbx_scopeattr_t deny, hide;
	sbx_outcome_t oc;
	const char *v;
	int step = 0;

#define EXPECT(got, want)                                                                     \
	do {                                                                                  \
		step++;                                                                       \
		if (strcmp((v = (got)), (want))) {                                           \
			fprintf(stderr, "in the jail, step %d: %s, not %s\n", step, v, want); \
			return step;                                                          \
		}                                                                             \
	} while (0)

	if (sbx_scopeattr_init(&deny) || sbx_scopeattr_init(&hide) || sbx_scopeattr_adddeny(&deny, "/d") ||
	    sbx_scopeattr_adddeny(&hide, "/d") || sbx_scopeattr_setflags(&hide, SBX_SCOPE_HIDE))
		return fprintf(stderr, "the scopes cannot be made\n"), 101;
	sbx_scopeattr_setevents(&deny, 0);
	sbx_scopeattr_setlogger(&hide, heard, NULL);
	/* The positive control: with no scope the secret is read. */
	EXPECT(verdict(NULL, "/d/secret"), "ok");
	/* Denied, and the rest of the jail reachable (the table's missing
	 * root dropped every grant: EACCES everywhere). */
	EXPECT(verdict(&deny, "/d/secret"), "EACCES");
	EXPECT(verdict(&deny, "/ok/file"), "ok");
	step++;
	if (sbx_outcome_get(&oc) || oc.confinement != SBX_OUTCOME_CONFINED || oc.expanded != 1 || oc.hidden) {
		fprintf(stderr, "in the jail, step %d: %s, %u expanded, %u hidden\n", step,
		        sbx_outcome_name(oc.confinement), oc.expanded, oc.hidden);
		return step;
	}
	/* Hiding demanded: refused, nothing run, and the compile says why
	 * (no child finds it out). */
	EXPECT(verdict(&hide, "/d/secret"), "spawn: Invalid argument");
	step++;
	if (!strstr(said_here, "the root is no mount point (a chroot)")) {
		fprintf(stderr, "in the jail, step %d: the refusal said: %s\n", step, said_here);
		return step;
	}
	sbx_scopeattr_destroy(&deny);
	sbx_scopeattr_destroy(&hide);
	return 0;
#undef EXPECT
}

/* A jail of the kind given, confined as its steps above say. */
static void confined_in(const char *test, enum jail_on kind)
{
	char *jail = jail_make(test, kind);

	if (!jail)
		return;
	ck_assert_msg(jailed(jail, in_jail) == 0, "in the jail: its stderr above says the step");
	jail_end(jail);
}

START_TEST(test_chroot_not_a_mount)
{
	confined_in(__func__, JAIL_TMPFS);
}
END_TEST

/* Why the jail's root was not taken, as a compile's event says it, held to
 * what it must say (set before the jail's child starts): 0, or 1 with a
 * line on stderr. */
static const char *want_why;

static int said_why(void)
{
	sbx_scopeattr_t s;

	said_here[0] = '\0';
	if (sbx_scopeattr_init(&s) || sbx_scopeattr_adddeny(&s, "/d"))
		return fprintf(stderr, "the scope cannot be made\n"), 1;
	sbx_scopeattr_setlogger(&s, heard, NULL);
	sbx_scopeattr_compile(&s);
	sbx_scopeattr_destroy(&s);
	if (!strstr(said_here, "stay unreachable: the mount table does not say where it is") ||
	    !strstr(said_here, want_why))
		return fprintf(stderr, "the compile said: %s, not why: %s\n", said_here, want_why), 1;
	return 0;
}

/* A jail on the machine's disk, with /sys: the disk's mount is taken as
 * the root's, nothing being behind it, and the jail confined as on a
 * tmpfs. */
START_TEST(test_chroot_on_disk)
{
	confined_in(__func__, JAIL_DISK);
}
END_TEST

/* Where another mount in the jail is of the root's filesystem, where the
 * root lies in it cannot be told, nor so whether that mount shows a
 * denial again: here it does (a bind of the denied directory), and the
 * secret stays out of reach through it. */
static int through_alias(void)
{
	char *out;
	int status;

	if (readable("/alias/secret", "the-secret"))
		return 1;
	status = denied_read("/alias/secret", &out);
	if (out && strstr(out, "the-secret"))
		return fprintf(stderr, "ESCAPE: read through the bind: %s\n", out), 3;
	/* Failed closed: the root not taken, nothing beneath it granted,
	 * /fsop not run. */
	if (status != -1000 - EACCES)
		return fprintf(stderr, "not refused as expected: %d: %s\n", status, out ? out : ""), 4;
	free(out);
	return said_why() ? 5 : 0;
}

START_TEST(test_chroot_second_name)
{
	char *jail = jail_make(__func__, JAIL_TMPFS);

	if (!jail)
		return;
	ck_assert_int_eq(mkdir(join(jail, "alias"), 0755), 0);
	ck_assert_int_eq(mount(join(jail, "d"), join(jail, "alias"), NULL, MS_BIND, NULL), 0);
	want_why = "a chroot's root, whose filesystem is mounted there again";
	ck_assert_msg(jailed(jail, through_alias) == 0, "in the jail: its stderr above says why");
	jail_end(jail);
}
END_TEST

/* A loop-mounted image lying in the denial: with no /sys in the jail,
 * what lies behind its device cannot be told, and its mount is not
 * granted (it would show the denial's bytes, whatever is covered). */
static int through_image(void)
{
	char *out;
	int status;

	if (readable("/img/s", "the-secret"))
		return 1;
	denied_read("/img/s", &out);
	if (out && strstr(out, "the-secret"))
		return fprintf(stderr, "ESCAPE: read through the image: %s\n", out), 3;
	free(out);
	/* The rest of the jail is still reachable. */
	status = denied_read("/ok/file", &out);
	if (status)
		return fprintf(stderr, "/ok/file: %d: %s\n", status, out ? out : ""), 4;
	free(out);
	return 0;
}

START_TEST(test_chroot_image_without_sysfs)
{
	char *jail = jail_make(__func__, JAIL_TMPFS), cmd[16384];

	if (!jail)
		return;
	if (!loop_mounts(__func__)) {
		jail_end(jail);
		return;
	}
	ck_assert_int_eq(mkdir(join(jail, "img"), 0755), 0);
	snprintf(cmd, sizeof(cmd),
	         "PATH=/usr/sbin:/sbin:$PATH; truncate -s 16M %s/d/fs.img && "
	         "mkfs.ext4 -q -F %s/d/fs.img >/dev/null 2>&1 && mount -o loop %s/d/fs.img %s/img && "
	         "echo the-secret > %s/img/s",
	         jail, jail, jail, jail, jail);
	ck_assert_msg(system(cmd) == 0, "%s: failed", cmd);
	ck_assert_msg(jailed(jail, through_image) == 0, "in the jail: its stderr above says why");
	jail_end(jail);
}
END_TEST

/* A jail on an ext4 image loop-mounted from a file the jail reaches
 * (/store): its root is not taken (an image may lie behind its device:
 * here one does, and its bytes are the denial's too), and nothing beneath
 * it is granted. */
static int on_image(void)
{
	char *out;
	int status;

	if (readable("/store/fs.img", NULL))
		return 1;
	status = denied_read("/ok/file", &out);
	if (status != -1000 - EACCES)
		return fprintf(stderr, "the root taken: %d: %s\n", status, out ? out : ""), 3;
	free(out);
	return said_why() ? 4 : 0;
}

START_TEST(test_chroot_on_image)
{
	char *jail = jail_make(__func__, JAIL_IMAGE), store[4200];

	if (!jail)
		return;
	snprintf(store, sizeof(store), "%s", jail);
	ck_assert_int_eq(mkdir(join(jail, "store"), 0755), 0);
	/* The tmpfs the image lies in: two levels up from the jail. */
	ck_assert_int_eq(mount(dirname(dirname(store)), join(jail, "store"), NULL, MS_BIND, NULL), 0);
	/* /sys in the jail: the image is found behind the loop device (not
	 * only unknown for want of it). */
	ck_assert_int_eq(mount("sysfs", join(jail, "sys"), "sysfs", 0, NULL), 0);
	want_why = "a chroot's root, on an image, an overlay, or a filesystem of no block device";
	ck_assert_msg(jailed(jail, on_image) == 0, "in the jail: its stderr above says why");
	jail_end(jail);
}
END_TEST

/* A caller whose root lies in another mount namespace (a chroot through
 * /proc/PID/root of a process chrooted there): its own table lists none
 * of the mounts beneath that root, and a bind made there shows the denial
 * again. */
START_TEST(test_chroot_other_namespace)
{
	char *jail = jail_make(__func__, JAIL_TMPFS), root[4200], c;
	int ready[2], hold[2];
	pid_t keeper;

	if (!jail)
		return;
	ck_assert_int_eq(mkdir(join(jail, "alias"), 0755), 0);
	ck_assert(pipe2(ready, O_CLOEXEC) == 0 && pipe2(hold, O_CLOEXEC) == 0);
	keeper = fork();
	ck_assert_int_ge(keeper, 0);
	if (keeper == 0) {
		close(ready[0]);
		close(hold[1]);
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount(join(jail, "d"), join(jail, "alias"), NULL, MS_BIND, NULL) || chroot(jail))
			_exit(1);
		(void)!write(ready[1], "r", 1);
		(void)!read(hold[0], &c, 1);
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	ck_assert_msg(read(ready[0], &c, 1) == 1, "the other namespace could not be made");
	close(ready[0]);
	/* The jail's times left to settle past the compile's window for a
	 * change (stamps.c), as in a jail made long before: its entries are
	 * then proved in a run, against the table. */
	usleep(200 * 1000);
	snprintf(root, sizeof(root), "/proc/%d/root", (int)keeper);
	want_why = "as through /proc/PID/root)";
	ck_assert_msg(jailed(root, through_alias) == 0, "in the jail: its stderr above says why");
	close(hold[1]);
	ck_assert_int_eq(wait_status(keeper), 0);
	jail_end(jail);
}
END_TEST

/* An overlay in the jail whose lower layer is the denial.  The table
 * names its layers by the paths its mounter gave, outside the jail; inside
 * it, decoys stand at those paths (as any earlier command could have made
 * them where the jail's tree is writable).  Read in the jail's root, they
 * would place the overlay on the decoys and grant it: its layers are
 * unknown in a chroot, and it is not granted. */
static int through_overlay(void)
{
	char *out;
	int status;

	if (readable("/ov/secret", "the-secret"))
		return 1;
	denied_read("/ov/secret", &out);
	if (out && strstr(out, "the-secret"))
		return fprintf(stderr, "ESCAPE: read through the overlay: %s\n", out), 3;
	if (!out || !strstr(out, "EACCES"))
		return fprintf(stderr, "/ov/secret: not refused: %s\n", out ? out : ""), 4;
	free(out);
	/* The rest of the jail is still reachable. */
	status = denied_read("/ok/file", &out);
	if (status)
		return fprintf(stderr, "/ok/file: %d: %s\n", status, out ? out : ""), 5;
	free(out);
	return 0;
}

/* The same, as another user than root (nobody), who is not told where
 * the jail's mount lies: the kernel's refusal of a user namespace to a
 * chroot tells it. */
static int through_overlay_as_nobody(void)
{
	sbx_scopeattr_t hide;
	int step;

	if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
		return fprintf(stderr, "nobody: %s\n", strerror(errno)), 100;
	if ((step = through_overlay()))
		return step;
	/* Hiding, which needs a user namespace here, refused: the kernel
	 * gives none to a chroot (the compile's probe finds it out). */
	said_here[0] = '\0';
	if (sbx_scopeattr_init(&hide) || sbx_scopeattr_adddeny(&hide, "/d") ||
	    sbx_scopeattr_setflags(&hide, SBX_SCOPE_HIDE))
		return fprintf(stderr, "the scope cannot be made\n"), 101;
	sbx_scopeattr_setlogger(&hide, heard, NULL);
	if (sbx_scopeattr_compile(&hide) != EINVAL || !strstr(said_here, "/d cannot be hidden") ||
	    !strstr(said_here, "unshare"))
		return fprintf(stderr, "hiding not refused at the compile: %s\n", said_here), 6;
	sbx_scopeattr_destroy(&hide);
	return 0;
}

/* The jail's root a directory (the chroot told by statx(2)), or a mount
 * point of its own, bound onto itself (told by statmount(2), or as
 * another user by the refusal of a user namespace: its mount lies on
 * another than the namespace's root). */
static void overlay_with_decoys(const char *test, bool mount_point, int (*steps)(void))
{
	char *jail = jail_make(test, JAIL_TMPFS), opts[3 * 4200];

	if (!jail)
		return;
	if (mount_point)
		ck_assert_int_eq(mount(jail, jail, NULL, MS_BIND | MS_REC, NULL), 0);
	for (const char *const *d = (const char *const[]){ "/ov", "/w/u", "/w/w", NULL }; *d; d++)
		jail_mkdirs(jail, *d);
	snprintf(opts, sizeof(opts), "lowerdir=%s/d,upperdir=%s/w/u,workdir=%s/w/w", jail, jail, jail);
	ck_assert_msg(mount("ov", join(jail, "ov"), "overlay", 0, opts) == 0, "overlay: %s",
	              strerror(errno));
	snprintf(opts, sizeof(opts), "%s/d", jail);
	jail_mkdirs(jail, opts);
	snprintf(opts, sizeof(opts), "%s/w/u", jail);
	jail_mkdirs(jail, opts);
	ck_assert_msg(jailed(jail, steps) == 0, "in the jail: its stderr above says why");
	jail_end(jail);
}

START_TEST(test_chroot_overlay_decoys)
{
	overlay_with_decoys(__func__, false, through_overlay);
}
END_TEST

START_TEST(test_chroot_mount_point_overlay_decoys)
{
	overlay_with_decoys(__func__, true, through_overlay);
}
END_TEST

START_TEST(test_chroot_mount_point_overlay_decoys_user)
{
	overlay_with_decoys(__func__, true, through_overlay_as_nobody);
}
END_TEST

/* As nobody in a jail bound onto itself, nothing else in it: each spawn's
 * child finds no user namespace and expands the denial, and an
 * explanation asked before any spawn (which would have found it out for
 * the process) says as much, not "hidden". */
static int explained_as_nobody(void)
{
	sbx_explanation_t x;
	sbx_outcome_t oc;
	sbx_scopeattr_t s;
	char *out;

	if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
		return fprintf(stderr, "nobody: %s\n", strerror(errno)), 100;
	if (sbx_scopeattr_init(&s) || sbx_scopeattr_adddeny(&s, "/d") ||
	    sbx_scopeattr_explain(&s, "/d/secret", &x))
		return fprintf(stderr, "the explanation cannot be had\n"), 1;
	sbx_scopeattr_destroy(&s);
	if (x.reason != SBX_REASON_DENIED || strstr(x.message, "hidden"))
		return fprintf(stderr, "the explanation: %d: %s\n", x.reason, x.message), 2;
	denied_read("/d/secret", &out);
	if (out && strstr(out, "the-secret"))
		return fprintf(stderr, "ESCAPE: %s\n", out), 3;
	free(out);
	/* As the explanation said: the spawn expanded the denial. */
	if (sbx_outcome_get(&oc) || oc.hidden != 0 || oc.expanded != 1)
		return fprintf(stderr, "hidden %u, expanded %u\n", oc.hidden, oc.expanded), 4;
	return 0;
}

START_TEST(test_chroot_mount_point_user_explained)
{
	char *jail = jail_make(__func__, JAIL_TMPFS);

	if (!jail)
		return;
	ck_assert_int_eq(mount(jail, jail, NULL, MS_BIND | MS_REC, NULL), 0);
	ck_assert_msg(jailed(jail, explained_as_nobody) == 0, "in the jail: its stderr above says why");
	jail_end(jail);
}
END_TEST

/* A mount stacked on "/" after the root was set (no chroot into it): the
 * table's last mount at "/", which no path of the process goes through.
 * A bind of the denial stays a second name of it, told by the root's own
 * mount. */
START_TEST(test_root_covered)
{
	char *top, d[4200], alias[4200], through[4300], *out = NULL;
	sbx_scopeattr_t s;
	int status;

	REQUIRE_LANDLOCK();
	if (geteuid()) {
		say_skip("SKIP %s: a mount on \"/\" needs root\n", __func__);
		return;
	}
	if (private_mounts(__func__) != MOUNT_NS_PLAIN)
		return;
	top = make_tmpdir();
	snprintf(d, sizeof(d), "%s/d", top);
	snprintf(alias, sizeof(alias), "%s/alias", top);
	snprintf(through, sizeof(through), "%s/secret", alias);
	ck_assert(mkdir(d, 0755) == 0 && mkdir(alias, 0755) == 0);
	write_file(join(d, "secret"), "the-secret\n", 0644);
	ck_assert_int_eq(mount(d, alias, NULL, MS_BIND, NULL), 0);
	ck_assert_int_eq(mount("over", "/", "tmpfs", 0, "mode=0755"), 0);
	/* The positive control: the bind shows the secret. */
	status = run_scoped(NULL, ARGV(HELPER_DIR "/fsop", "read", through), &out);
	ck_assert_msg(status == 0 && out && strstr(out, "the-secret"), "unconfined: %d: %s", status,
	              out ? out : "");
	free(out);
	ck_assert(sbx_scopeattr_init(&s) == 0 && sbx_scopeattr_adddeny(&s, d) == 0);
	sbx_scopeattr_setevents(&s, 0);
	status = run_scoped(&s, ARGV(HELPER_DIR "/fsop", "read", through), &out);
	ck_assert_msg(!out || !strstr(out, "the-secret"), "ESCAPE: through the bind: %s", out);
	ck_assert_msg(out && strstr(out, "EACCES"), "not refused: %d: %s", status, out ? out : "");
	free(out);
	sbx_scopeattr_destroy(&s);
	free(top); /* the mounts end with this test's namespace */
}
END_TEST

Suite *suite_chroot(void)
{
	Suite *su = suite_create("chroot");
	TCase *tc = tcase_create("jail");

	untimed(tc);
	tcase_add_test(tc, test_chroot_not_a_mount);
	tcase_add_test(tc, test_chroot_second_name);
	tcase_add_test(tc, test_chroot_other_namespace);
	tcase_add_test(tc, test_chroot_image_without_sysfs);
	tcase_add_test(tc, test_chroot_on_image);
	tcase_add_test(tc, test_chroot_on_disk);
	tcase_add_test(tc, test_root_covered);
	tcase_add_test(tc, test_chroot_overlay_decoys);
	tcase_add_test(tc, test_chroot_mount_point_overlay_decoys);
	tcase_add_test(tc, test_chroot_mount_point_overlay_decoys_user);
	tcase_add_test(tc, test_chroot_mount_point_user_explained);
	suite_add_tcase(su, tc);
	return su;
}


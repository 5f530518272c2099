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
#include <fcntl.h>
#include <libgen.h>
#include <link.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"
#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })

/* src copied to dst, executable. */
static void copy_program(const char *src, const char *dst)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out;
	char buf[65536];
	ssize_t n;

	ck_assert_msg(in >= 0, "%s: %s", src, strerror(errno));
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	ck_assert_msg(out >= 0, "%s: %s", dst, strerror(errno));
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ck_assert_int_eq(write(out, buf, (size_t)n), n);
	ck_assert_int_eq(n, 0);
	close(in);
	close(out);
}

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

/* The ELF interpreter fsop names (its PT_INTERP), into interp. */
static void interpreter(const char *program, char *interp, size_t size)
{
	int fd = open(program, O_RDONLY | O_CLOEXEC);
	ElfW(Ehdr) eh;
	ElfW(Phdr) ph;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &eh, sizeof(eh), 0), sizeof(eh));
	interp[0] = '\0';
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		ck_assert_int_eq(pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * eh.e_phentsize)),
		                 sizeof(ph));
		if (ph.p_type == PT_INTERP && ph.p_filesz < size) {
			ck_assert_int_eq(pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset),
			                 (ssize_t)ph.p_filesz);
			interp[ph.p_filesz] = '\0';
		}
	}
	close(fd);
}

/* path copied into the jail at the same path, its directories made. */
static void copy_in(const char *jail, const char *path)
{
	char to[8192];

	snprintf(to, sizeof(to), "%s%s", jail, path);
	for (char *slash = strchr(to + strlen(jail) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		ck_assert(mkdir(to, 0755) == 0 || errno == EEXIST);
		*slash = '/';
	}
	if (access(to, F_OK))
		copy_program(path, to);
}

/* fsop and what it loads (its interpreter lists them, as ldd(1) asks it
 * to), copied into the jail: no mount of the host's is needed there. */
static void jail_fill(const char *jail)
{
	char interp[4096], cmd[8400], line[4400];
	FILE *list;

	interpreter(FSOP, interp, sizeof(interp));
	copy_program(FSOP, join(jail, "fsop"));
	if (!interp[0])
		return; /* linked statically */
	copy_in(jail, interp);
	snprintf(cmd, sizeof(cmd), "'%s' --list '%s'", interp, FSOP);
	ck_assert_ptr_nonnull(list = popen(cmd, "r"));
	while (fgets(line, sizeof(line), list)) {
		char *lib = strstr(line, "=> /");

		if (lib && strtok(lib + 3, " \t\n"))
			copy_in(jail, lib + 3);
	}
	ck_assert_int_eq(pclose(list), 0);
}

/* Whether an ext4 image can be made and loop-mounted here (e2fsprogs, a
 * loop device); a SKIP line where not. */
static bool loop_mounts(const char *test)
{
	if (system("PATH=/usr/sbin:/sbin:$PATH; command -v mkfs.ext4 >/dev/null") != 0 ||
	    access("/dev/loop-control", F_OK)) {
		say_skip("SKIP %s: no ext4 image can be loop-mounted here (mkfs.ext4 of e2fsprogs, "
		         "/dev/loop-control)\n", test);
		return false;
	}
	return true;
}

/* A jail (returned, malloc'd): a directory of a tmpfs (on_image: of an
 * ext4 image loop-mounted from that tmpfs), in a mount
 * namespace of this test's own, with fsop and its libraries, /proc and
 * /dev/null in it, as a build runner's has.  Its root lies in a
 * filesystem no other mount in it is of.  NULL, with a SKIP line, where
 * it cannot be made, or where Landlock is not enforced (under qemu-user
 * nothing of it could be told). */
static char *jail_make(const char *test, bool on_image)
{
	char *top, *jail, cmd[16384];

	if (landlock_abi() <= 0) {
		say_skip("SKIP %s: %s\n", test, no_landlock_why());
		return NULL;
	}
	if (geteuid()) {
		say_skip("SKIP %s: chroot(2) needs CAP_SYS_CHROOT (run as root)\n", test);
		return NULL;
	}
	if (on_image && !loop_mounts(test))
		return NULL;
	switch (private_mounts(test)) {
	case MOUNT_NS_NONE:
		return NULL;
	case MOUNT_NS_USER:
		say_skip("SKIP %s: a mount namespace of the test's own needs CAP_SYS_ADMIN\n", test);
		return NULL;
	case MOUNT_NS_PLAIN:
		break;
	}
	top = make_tmpdir();
	ck_assert_msg(mount("jail", top, "tmpfs", 0, "mode=0755") == 0, "tmpfs: %s", strerror(errno));
	if (on_image) {
		snprintf(cmd, sizeof(cmd), "PATH=/usr/sbin:/sbin:$PATH; truncate -s 256M %s/fs.img && "
		         "mkfs.ext4 -q -F %s/fs.img >/dev/null 2>&1 && mkdir %s/m && "
		         "mount -o loop %s/fs.img %s/m", top, top, top, top, top);
		ck_assert_msg(system(cmd) == 0, "%s: failed", cmd);
		ck_assert_int_ge(asprintf(&jail, "%s/m/jail", top), 0);
	} else {
		ck_assert_int_ge(asprintf(&jail, "%s/jail", top), 0);
	}
	free(top);
	ck_assert_int_eq(mkdir(jail, 0755), 0);
	for (const char *const *d = (const char *const[]){ "d", "ok", "proc", "dev", NULL }; *d; d++)
		ck_assert_int_eq(mkdir(join(jail, *d), 0755), 0);
	jail_fill(jail);
	write_file(join(jail, "d/secret"), "the-secret\n", 0644);
	write_file(join(jail, "ok/file"), "ok\n", 0644);
	write_file(join(jail, "dev/null"), "", 0644);
	ck_assert_msg(mount("proc", join(jail, "proc"), "proc", 0, NULL) == 0 &&
	                  mount("/dev/null", join(jail, "dev/null"), NULL, MS_BIND, NULL) == 0,
	              "mount: %s", strerror(errno));
	return jail;
}

/* The jail gone: its tmpfs detached with every mount in it (the host's
 * /dev/null among them: a removal would not stop at a mount point), and
 * the directory it was on removed. */
static void jail_end(char *jail)
{
	char *top = dirname(jail);

	if (!strcmp(basename(top), "m"))
		top = dirname(top); /* an image's mount, in the tmpfs */

	ck_assert_int_eq(umount2(top, MNT_DETACH), 0);
	ck_assert_int_eq(rmdir(top), 0);
	free(jail);
}

/* steps, run in a child chrooted into jail: 0, or the step that failed. */
static int jailed(const char *jail, int (*steps)(void))
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* Every denial is expanded in a chroot anyway; what the
		 * compile says of the chroot is the subject, not the
		 * environment's demand (CI's expanded run sets it). */
		unsetenv("SBXSPAWN_EXPAND");
		if (chroot(jail) || chdir("/")) {
			fprintf(stderr, "chroot: %s\n", strerror(errno));
			_exit(100);
		}
		_exit(steps());
	}
	status = wait_status(pid);
	ck_assert_msg(WIFEXITED(status), "in the jail: status %#x", (unsigned)status);
	return WEXITSTATUS(status);
}

START_TEST(test_chroot_not_a_mount)
{
	char *jail = jail_make(__func__, false);

	if (!jail)
		return;
	ck_assert_msg(jailed(jail, in_jail) == 0, "in the jail: its stderr above says the step");
	jail_end(jail);
}
END_TEST

/* The positive control, in the jail: path read with no scope (its bytes
 * holding want, where given); 0, or 1 with a line on stderr. */
static int readable(const char *path, const char *want)
{
	char *out = NULL;
	int status = run_scoped(NULL, ARGV("/fsop", "read", (char *)path), &out);

	if (status || (want && (!out || !strstr(out, want)))) {
		fprintf(stderr, "unconfined: %s: %d: %s\n", path, status, out ? out : "");
		status = 1;
	}
	free(out);
	return status;
}

/* path read in the jail under a scope denying /d: run_scoped's status,
 * what fsop printed into *out (the caller frees it). */
static int denied_read(const char *path, char **out)
{
	sbx_scopeattr_t deny;
	int status;

	*out = NULL;
	if (sbx_scopeattr_init(&deny) || sbx_scopeattr_adddeny(&deny, "/d"))
		return fprintf(stderr, "the scope cannot be made\n"), -2000;
	sbx_scopeattr_setevents(&deny, 0);
	status = run_scoped(&deny, ARGV("/fsop", "read", (char *)path), out);
	sbx_scopeattr_destroy(&deny);
	return status;
}

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
	return 0;
}

START_TEST(test_chroot_second_name)
{
	char *jail = jail_make(__func__, false);

	if (!jail)
		return;
	ck_assert_int_eq(mkdir(join(jail, "alias"), 0755), 0);
	ck_assert_int_eq(mount(join(jail, "d"), join(jail, "alias"), NULL, MS_BIND, NULL), 0);
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
	char *jail = jail_make(__func__, false), cmd[16384];

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
	return 0;
}

START_TEST(test_chroot_on_image)
{
	char *jail = jail_make(__func__, true), store[4200];

	if (!jail)
		return;
	snprintf(store, sizeof(store), "%s", jail);
	ck_assert_int_eq(mkdir(join(jail, "store"), 0755), 0);
	/* The tmpfs the image lies in: two levels up from the jail. */
	ck_assert_int_eq(mount(dirname(dirname(store)), join(jail, "store"), NULL, MS_BIND, NULL), 0);
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
	char *jail = jail_make(__func__, false), root[4200], c;
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
	ck_assert_msg(jailed(root, through_alias) == 0, "in the jail: its stderr above says why");
	close(hold[1]);
	ck_assert_int_eq(wait_status(keeper), 0);
	jail_end(jail);
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
	suite_add_tcase(su, tc);
	return su;
}

/* SPDX-License-Identifier: MIT */
/* A build runner's jail for the chroot suite (check_chroot.c): a tmpfs of
 * its own, or an ext4 image loop-mounted from one, in a mount namespace of
 * the test's own, holding a copy of the helper fsop and of the libraries it
 * loads, /proc and /dev/null; and a child chrooted into it that runs a
 * test's steps there. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "tests/common.h"
#include "tests/jail.h"

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

/* The directories of path (absolute) made in the jail, up to its last
 * name; and that too where all. */
static void make_dirs(const char *jail, const char *path, bool all, char *to, size_t size)
{
	snprintf(to, size, "%s%s", jail, path);
	for (char *slash = strchr(to + strlen(jail) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		ck_assert(mkdir(to, 0755) == 0 || errno == EEXIST);
		*slash = '/';
	}
	ck_assert(!all || mkdir(to, 0755) == 0 || errno == EEXIST);
}

void jail_mkdirs(const char *jail, const char *path)
{
	char to[8192];

	make_dirs(jail, path, true, to, sizeof(to));
}

/* path copied into the jail at the same path, its directories made. */
static void copy_in(const char *jail, const char *path)
{
	char to[8192];

	make_dirs(jail, path, false, to, sizeof(to));
	if (access(to, F_OK))
		copy_program(path, to);
}

void jail_libraries(const char *jail, const char *program)
{
	char interp[4096], cmd[8400], line[4400];
	FILE *list;

	interpreter(program, interp, sizeof(interp));
	if (!interp[0])
		return; /* linked statically */
	copy_in(jail, interp);
	snprintf(cmd, sizeof(cmd), "'%s' --list '%s'", interp, program);
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
bool loop_mounts(const char *test)
{
	if (system("PATH=/usr/sbin:/sbin:$PATH; command -v mkfs.ext4 >/dev/null") != 0 ||
	    access("/dev/loop-control", F_OK)) {
		say_skip("SKIP %s: no ext4 image can be loop-mounted here (mkfs.ext4 of e2fsprogs, "
		         "/dev/loop-control)\n", test);
		return false;
	}
	return true;
}

/* Whether the directory dir lies on a disk with no image behind it, as
 * sysfs tells (a chroot's root there is taken); a SKIP line where not. */
static bool on_plain_disk(const char *test, const char *dir)
{
	char at[96];
	struct stat st;

	ck_assert_int_eq(stat(dir, &st), 0);
	snprintf(at, sizeof(at), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	if (!major(st.st_dev) || access(at, F_OK) || !access(join(at, "loop"), F_OK) ||
	    !access(join(at, "../loop"), F_OK)) {
		say_skip("SKIP %s: the test's directory lies on no plain disk here (a tmpfs, an "
		         "overlay, a loop image: %u:%u)\n", test, major(st.st_dev), minor(st.st_dev));
		return false;
	}
	return true;
}

/* A jail (returned, malloc'd) in a mount namespace of this test's own,
 * with fsop and its libraries, /proc and /dev/null in it, as a build
 * runner's has: a directory of a tmpfs (JAIL_IMAGE: of an ext4 image
 * loop-mounted from that tmpfs; JAIL_DISK: of the test's own directory,
 * on the machine's disk, bound onto itself, with /sys).  Its root lies in
 * a filesystem no other mount in it is of.  NULL, with a SKIP line, where
 * it cannot be made, or where Landlock is not enforced (under qemu-user
 * nothing of it could be told). */
char *jail_make(const char *test, enum jail_on on)
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
	if (on == JAIL_IMAGE && !loop_mounts(test))
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
	if (on == JAIL_DISK && !on_plain_disk(test, top)) {
		free(top);
		return NULL;
	}
	ck_assert_msg(on == JAIL_DISK ? mount(top, top, NULL, MS_BIND, NULL) == 0
	                              : mount("jail", top, "tmpfs", 0, "mode=0755") == 0,
	              "%s: %s", top, strerror(errno));
	if (on == JAIL_IMAGE) {
		snprintf(cmd, sizeof(cmd), "PATH=/usr/sbin:/sbin:$PATH; truncate -s 256M %s/fs.img && "
		         "mkfs.ext4 -q -F %s/fs.img >/dev/null 2>&1 && mkdir %s/m && "
		         "mount -o loop %s/fs.img %s/m", top, top, top, top, top);
		ck_assert_msg(system(cmd) == 0, "%s: failed", cmd);
	}
	ck_assert_int_ge(asprintf(&jail, "%s/%s", top, on == JAIL_IMAGE ? "m/jail" : "jail"), 0);
	free(top);
	ck_assert_int_eq(mkdir(jail, 0755), 0);
	for (const char *const *d = (const char *const[]){ "d", "ok", "proc", "dev", "sys", NULL }; *d;
	     d++)
		ck_assert_int_eq(mkdir(join(jail, *d), 0755), 0);
	copy_program(FSOP, join(jail, "fsop"));
	jail_libraries(jail, FSOP);
	write_file(join(jail, "d/secret"), "the-secret\n", 0644);
	write_file(join(jail, "ok/file"), "ok\n", 0644);
	write_file(join(jail, "dev/null"), "", 0644);
	ck_assert_msg(mount("proc", join(jail, "proc"), "proc", 0, NULL) == 0 &&
	                  mount("/dev/null", join(jail, "dev/null"), NULL, MS_BIND, NULL) == 0 &&
	                  (on != JAIL_DISK || mount("sysfs", join(jail, "sys"), "sysfs", 0, NULL) == 0),
	              "mount: %s", strerror(errno));
	return jail;
}

/* The jail gone: the mount it is in detached with every mount in it (the
 * host's /dev/null among them: a removal would not stop at a mount point),
 * and the directory it was in removed. */
void jail_end(char *jail)
{
	char *top = dirname(jail);

	if (!strcmp(basename(top), "m"))
		top = dirname(top); /* an image's mount, in the tmpfs */

	ck_assert_int_eq(umount2(top, MNT_DETACH), 0);
	rm_rf(top); /* a disk's jail, its files left beneath */
	ck_assert_int_eq(access(top, F_OK), -1);
	free(jail);
}

/* steps, run in a child chrooted into jail: 0, or the step that failed. */
int jailed(const char *jail, int (*steps)(void))
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

/* The positive control, in the jail: path read with no scope (its bytes
 * holding want, where given); 0, or 1 with a line on stderr. */
int readable(const char *path, const char *want)
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
int denied_read(const char *path, char **out)
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

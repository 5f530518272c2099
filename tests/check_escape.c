/* SPDX-License-Identifier: MIT */
/* Escapes: a confined child that wants the denied secret and tries every
 * road a program has to it.  Each attempt runs on the real kernel, must fail
 * with the errno the kernel gives for it, and must never show the secret.
 * The roads that do lead in are the documented limits: their tests assert
 * exactly how far they go.  A test failing with "ESCAPE" is a way in that
 * the library claims is closed. */
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

#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"
#define ESCAPE HELPER_DIR "/escape"
#define NESTED HELPER_DIR "/nested"
#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"
#define SECRET "the-secret"

/* Every test: the tree, and a scope denying the sibling project "other". */
static struct tree t;
static sbx_scopeattr_t s;
/* The whole output of the last attempt. */
static char out[65536];

static void quiet(const sbx_event_t *ev, void *arg)
{
	(void)ev;
	(void)arg;
}

/* The attempts run twice: against the denial expanded (Landlock's
 * answers, each exact), and hidden, where the library hides it by default
 * (the cover answers too: ENOENT, EROFS, EBUSY; every attempt refused, the
 * secret never shown). */
static bool hidden_tc;

/* The last attempt met the denial hidden: where no child can make its
 * namespace (a regular user's, user namespaces refused), the hidden way's
 * spawns expand it, and their answers are the expanded way's, exact. */
static bool hid(void)
{
	return hidden_tc && hidden_way();
}

static void setup_way(bool hidden)
{
	hidden_tc = hidden;
	tree_make(&t);
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	sbx_scopeattr_setlogger(&s, quiet, NULL);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	if (!hidden)
		expand_way(&s);
}

static void setup(void)
{
	setup_way(false);
}

static void setup_hidden(void)
{
	setup_way(true);
}

static void teardown(void)
{
	sbx_scopeattr_destroy(&s);
	tree_free(&t);
}

/* Runs argv under scope from cwd (when set) and returns its verdict, the
 * last line of its output; the output is kept in `out'.  Unless the road
 * is a documented limit (may_leak), the secret must not be anywhere in it. */
static const char *run(const sbx_scopeattr_t *scope, const char *cwd, char *const argv[],
                       bool may_leak)
{
	char *o = NULL, *last;
	int status = run_scoped_cwd(scope, cwd, argv, &o);

	ck_assert_msg(status > -1000, "%s %s: the spawn failed: %s", argv[0], argv[1],
	              sbx_strerror(-1000 - status));
	snprintf(out, sizeof(out), "%s", o);
	free(o);
	ck_assert_msg(may_leak || !strstr(out, SECRET), "ESCAPE: %s %s %s read the secret:\n%s",
	              argv[0], argv[1], argv[2] ? argv[2] : "", out);
	while (strlen(out) && out[strlen(out) - 1] == '\n')
		out[strlen(out) - 1] = '\0';
	last = strrchr(out, '\n');
	return last ? last + 1 : out;
}

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })
/* An attempt under the test's scope; from a working directory. */
#define attempt(...) run(&s, NULL, ARGV(__VA_ARGS__), false)
#define attempt_in(cwd, ...) run(&s, cwd, ARGV(__VA_ARGS__), false)

/* The verdict is want: exactly, but where the denial is hidden, where any
 * denial will do. */
static void expect(const char *got, const char *want)
{
	/* Listed as root, a hidden directory is the cover: empty. */
	bool empty = !strstr(out, "\nentry ") && strncmp(out, "entry ", 6);

	if (hid() && want[0] == 'E')
		ck_assert_msg(denied_verdict(got) || (!strcmp(got, "ok") && empty && hidden_way()),
		              "%s, not a denial (%s expanded)", got, want);
	else
		ck_assert_str_eq(got, want);
}

/* The attempt fails with err. */
#define FAILS(err, ...) expect(attempt(__VA_ARGS__), err)
/* A step of the last attempt reported this line ("symlink ok", ...). */
#define SAW(line) ck_assert_msg(saw(line), "no line \"%s\" in:\n%s", line, out)

static bool saw_exactly(const char *line)
{
	size_t n = strlen(line);

	for (const char *p = out; (p = strstr(p, line)); p += n)
		if ((p == out || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

/* A step's line, "STEP RESULT".  Against a hidden denial a step that meets
 * the cover may be refused where the expanded way let it be (an O_PATH
 * open, name_to_handle_at), or refused another way: any denial there. */
static bool saw(const char *line)
{
	const char *sp = strrchr(line, ' ');
	char step[256];

	if (saw_exactly(line))
		return true;
	if (!hid() || !sp || (strcmp(sp + 1, "ok") && sp[1] != 'E'))
		return false;
	for (const char *p = out; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		size_t len = strcspn(p, "\n");

		snprintf(step, sizeof(step), "%.*s", (int)len, p);
		if (!strncmp(step, line, (size_t)(sp - line) + 1) && denied_verdict(step + (sp - line) + 1))
			return true;
	}
	return false;
}

/* The secret is where it was, as it was: a failed move moved nothing. */
static void secret_intact(void)
{
	char buf[64] = "";
	int fd = open(t.secret, O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_gt(read(fd, buf, sizeof(buf) - 1), 0);
	close(fd);
	ck_assert_str_eq(buf, SECRET "\n");
}

/* dir/name, as an argument for ARGV. */
static char *in(const char *dir, const char *name)
{
	return (char *)join(dir, name);
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
/* A formatted string in a static ring of buffers. */
static char *fmt(const char *f, ...)
{
	static char ring[8][4096];
	static int next;
	char *b = ring[next++ % 8];
	va_list ap;

	va_start(ap, f);
	vsnprintf(b, 4096, f, ap);
	va_end(ap);
	return b;
}

/* An inheritable descriptor (no O_CLOEXEC): what a careless parent leaks. */
static int leak(const char *path, int flags)
{
	int fd = open(path, flags);

	ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
	return fd;
}

static void copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int o = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	ssize_t n;

	ck_assert_int_ge(in, 0);
	ck_assert_int_ge(o, 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ck_assert_int_eq(write(o, buf, (size_t)n), n);
	close(in);
	close(o);
}

/* ---- symlinks ------------------------------------------------------------- */

/* A symlink beside the denial, made before the spawn, pointing into it:
 * Landlock checks where a path lands, not the name it was reached by. */
START_TEST(test_symlink_beside_before)
{
	char *link = in(t.projects, "link");

	REQUIRE_LANDLOCK();
	ck_assert_int_eq(symlink(t.other, link), 0);
	FAILS("EACCES", FSOP, "read", in(link, "secret"));
	FAILS("EACCES", FSOP, "list", link);
}
END_TEST

/* A symlink inside a granted directory, made before the spawn, going up
 * with ../ into the denial: mine is granted, but the target is not in it. */
START_TEST(test_symlink_up_before)
{
	char *up = in(t.mine, "up");

	REQUIRE_LANDLOCK();
	ck_assert_int_eq(symlink("../other/secret", up), 0);
	FAILS("EACCES", FSOP, "read", up);
}
END_TEST

/* The child makes its own symlink to the secret in a directory where it
 * may make symlinks: making it works, following it lands in the denial. */
START_TEST(test_symlink_granted_during)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", ESCAPE, "symlink-read", t.secret, in(t.mine, "ln"), "");
	SAW("symlink ok");
	SAW("open EACCES");
}
END_TEST

/* The same, relative and going up: mine/up -> ../other, then up/secret. */
START_TEST(test_symlink_up_during)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", ESCAPE, "symlink-read", "../other", in(t.mine, "up"), "secret");
	SAW("symlink ok");
}
END_TEST

/* A symlink beside the denial, made by the child: projects is an expanded
 * directory, frozen, so nothing at all can be made in it. */
START_TEST(test_symlink_beside_during)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", ESCAPE, "symlink-read", t.other, in(t.projects, "ln"), "secret");
	SAW("symlink EACCES");
	ck_assert_int_eq(access(in(t.projects, "ln"), F_OK), -1);
}
END_TEST

/* A symlink the child makes to plant a new file in the denial: creating
 * through it is creating in other, which is denied. */
START_TEST(test_symlink_plant_during)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", ESCAPE, "symlink-create", "../other/planted", in(t.mine, "plant"));
	SAW("symlink ok");
	ck_assert_int_eq(access(in(t.other, "planted"), F_OK), -1);
}
END_TEST

/* ---- magic links in /proc ------------------------------------------------ */

/* /proc/self/root is a magic link to the child's own root: a different
 * road to the same place, checked at the place. */
START_TEST(test_proc_self_root)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", FSOP, "read", fmt("/proc/self/root%s", t.secret));
}
END_TEST

/* The unconfined parent's root: following another process's magic link
 * takes a ptrace check, and Landlock refuses it for a process outside the
 * domain (and the place would be denied anyway). */
START_TEST(test_proc_parent_root)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", FSOP, "read", fmt("/proc/%d/root%s", (int)getpid(), t.secret));
}
END_TEST

/* The unconfined parent's working directory, just above the denial:
 * /proc/<parent>/cwd/other/secret. */
START_TEST(test_proc_parent_cwd)
{
	REQUIRE_LANDLOCK();
	ck_assert_int_eq(chdir(t.projects), 0);
	FAILS("EACCES", FSOP, "read", fmt("/proc/%d/cwd/other/secret", (int)getpid()));
	FAILS("EACCES", FSOP, "list", fmt("/proc/%d/cwd/other", (int)getpid()));
}
END_TEST

/* A descriptor the parent holds on the secret (close-on-exec, so not
 * inherited), reached through /proc/<parent>/fd: the same ptrace check. */
START_TEST(test_proc_parent_fd)
{
	int fd = open(t.secret, O_RDONLY | O_CLOEXEC);

	REQUIRE_LANDLOCK();
	ck_assert_int_ge(fd, 0);
	FAILS("EACCES", FSOP, "read", fmt("/proc/%d/fd/%d", (int)getpid(), fd));
	close(fd);
}
END_TEST

/* ---- descriptors ---------------------------------------------------------- */

/* A leaked descriptor on a granted directory, and openat(fd, "../other/
 * secret"): a descriptor is a starting point, not a grant; where the walk
 * ends is what is checked. */
START_TEST(test_leaked_granted_dirfd)
{
	int fd = leak(t.mine, O_RDONLY | O_DIRECTORY);
	char num[16];

	REQUIRE_LANDLOCK();
	snprintf(num, sizeof(num), "%d", fd);
	/* It did reach the child. */
	ck_assert_str_eq(attempt(ESCAPE, "openat", num, "file"), "ok");
	FAILS("EACCES", ESCAPE, "openat", num, "../other/secret");
	close(fd);
}
END_TEST

/* A leaked descriptor on the denied directory itself, used as a name:
 * /proc/self/fd/N/secret, fchdir into it, openat beneath it.  Each is a new
 * open of a file in the denial, and each is checked. */
START_TEST(test_leaked_denied_dirfd_opens)
{
	int fd = leak(t.other, O_RDONLY | O_DIRECTORY);
	char num[16];

	REQUIRE_LANDLOCK();
	snprintf(num, sizeof(num), "%d", fd);
	FAILS("EACCES", FSOP, "read", fmt("/proc/self/fd/%d/secret", fd));
	FAILS("EACCES", ESCAPE, "openat", num, "secret");
	FAILS("EACCES", ESCAPE, "fchdir-read", num, "secret");
	SAW("fchdir ok");
	close(fd);
}
END_TEST

/* The documented limit: open descriptors are not rechecked.  The same
 * leaked descriptor on the denied directory still lists it (names, not
 * contents), and a leaked descriptor on the secret still reads it. */
START_TEST(test_limit_leaked_descriptors)
{
	int dfd = leak(t.other, O_RDONLY | O_DIRECTORY);
	int ffd = leak(t.secret, O_RDONLY);
	char num[16];

	REQUIRE_LANDLOCK();
	snprintf(num, sizeof(num), "%d", dfd);
	ck_assert_str_eq(attempt(ESCAPE, "fd-list", num), "ok");
	SAW("entry secret");
	snprintf(num, sizeof(num), "%d", ffd);
	ck_assert_str_eq(run(&s, NULL, ARGV(ESCAPE, "fd-read", num), true), "ok");
	ck_assert_ptr_nonnull(strstr(out, SECRET));
	close(dfd);
	close(ffd);
}
END_TEST

/* The inherited read descriptor on the secret, reopened through /dev/fd:
 * a reopen is a new open of the file where it lies, checked like any, for
 * writing and for reading alike. */
START_TEST(test_devfd_reopen)
{
	int fd = leak(t.secret, O_RDONLY);

	REQUIRE_LANDLOCK();
	FAILS("EACCES", FSOP, "write", fmt("/dev/fd/%d", fd));
	FAILS("EACCES", FSOP, "read", fmt("/dev/fd/%d", fd));
	secret_intact();
	close(fd);
}
END_TEST

/* ---- relative paths and working directories -------------------------------- */

/* From a working directory in a granted sibling, up and across. */
START_TEST(test_dotdot_from_sibling)
{
	REQUIRE_LANDLOCK();
	ck_assert_str_eq(attempt_in(t.mine, FSOP, "read", "file"), "ok");
	expect(attempt_in(t.mine, FSOP, "read", "../other/secret"), "EACCES");
	expect(attempt_in(t.mine, FSOP, "read", "./../mine/../other/./secret"), "EACCES");
	expect(attempt_in(t.mine, FSOP, "list", "../other"), "EACCES");
}
END_TEST

/* A chdir file action into the denial: it runs before the ruleset, and
 * chdir is not mediated anyway, so the child starts inside other; still,
 * every open there is checked. */
START_TEST(test_cwd_action_inside)
{
	REQUIRE_LANDLOCK();
	expect(attempt_in(t.other, ESCAPE, "cwd-list"), "EACCES");
	SAW(fmt("cwd %s", t.other));
	expect(attempt_in(t.other, FSOP, "read", "secret"), "EACCES");
	expect(attempt_in(t.other, FSOP, "read", "./secret"), "EACCES");
}
END_TEST

/* The child itself chdirs into the denial, confined: allowed, useless. */
START_TEST(test_chdir_inside)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", ESCAPE, "chdir-read", t.other, "secret");
	SAW("chdir ok");
}
END_TEST

/* ---- rename, link, exchange ------------------------------------------------ */

/* Into the denial: a file of ours moved in would be a way to plant. */
START_TEST(test_rename_into)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", FSOP, "rename", in(t.mine, "file"), in(t.other, "file"));
	ck_assert_int_eq(access(in(t.other, "file"), F_OK), -1);
}
END_TEST

/* Out of the denial: the secret moved to where reading is granted. */
START_TEST(test_rename_out)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", FSOP, "rename", t.secret, in(t.mine, "stolen"));
	FAILS("EACCES", FSOP, "rename", t.other, in(t.mine, "stolen"));
	secret_intact();
}
END_TEST

/* A hard link into the denial. */
START_TEST(test_link_into)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", FSOP, "link", in(t.mine, "file"), in(t.other, "planted"));
	ck_assert_int_eq(access(in(t.other, "planted"), F_OK), -1);
}
END_TEST

/* A hard link out of the denial: a second name in a granted directory is
 * exactly the limit the child must not be able to make for itself.  The
 * kernel says EXDEV: the link would give the file rights it lacks where it
 * is (Landlock's answer to a reparenting that widens access). */
START_TEST(test_link_out)
{
	REQUIRE_LANDLOCK();
	FAILS("EXDEV", FSOP, "link", t.secret, in(t.mine, "stolen"));
	ck_assert_int_eq(access(in(t.mine, "stolen"), F_OK), -1);
}
END_TEST

/* renameat2(RENAME_EXCHANGE): both directions in one call, the secret for
 * a file of ours. */
START_TEST(test_exchange_files)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", ESCAPE, "exchange", in(t.mine, "file"), t.secret);
	FAILS("EACCES", ESCAPE, "exchange", t.secret, in(t.mine, "file"));
	secret_intact();
}
END_TEST

/* Exchanging the denied directory with a granted sibling: both live in
 * projects, an expanded directory where nothing may be removed or made. */
START_TEST(test_exchange_dirs)
{
	REQUIRE_LANDLOCK();
	FAILS("EACCES", ESCAPE, "exchange", t.mine, t.other);
	secret_intact();
}
END_TEST

/* ---- execution -------------------------------------------------------------- */

/* A program inside the denial: executing it needs EXECUTE there. */
START_TEST(test_exec_inside)
{
	char *prog = in(t.other, "true");

	REQUIRE_LANDLOCK();
	copy_file("/bin/true", prog, 0755);
	FAILS("EACCES", FSOP, "exec", prog);
}
END_TEST

/* The same program through an O_PATH descriptor and execveat: O_PATH opens
 * nothing, the exec is checked where the file lies. */
START_TEST(test_exec_opath)
{
	char *prog = in(t.other, "true");

	REQUIRE_LANDLOCK();
	copy_file("/bin/true", prog, 0755);
	FAILS("EACCES", ESCAPE, "opath-exec", prog);
	SAW("opath ok");
}
END_TEST

/* The same program handed to the dynamic loader, which maps it itself:
 * the loader must open it for reading, which is denied. */
START_TEST(test_exec_loader)
{
#if defined(__x86_64__)
	char *loader = "/lib64/ld-linux-x86-64.so.2";
#elif defined(__aarch64__)
	char *loader = "/lib/ld-linux-aarch64.so.1";
#else
	char *loader = "";
#endif
	char *prog = in(t.other, "true");
	char *o = NULL;

	REQUIRE_LANDLOCK();
	if (access(loader, X_OK)) {
		say_skip("SKIP %s: no dynamic loader known here\n", __func__);
		return;
	}
	copy_file("/bin/true", prog, 0755);
	ck_assert_int_eq(run_scoped(NULL, ARGV(loader, prog), &o), 0);
	free(o);
	ck_assert_int_ne(run_scoped(&s, ARGV(loader, prog), &o), 0);
	ck_assert_msg(strstr(o, "Permission denied") || (hid() && strstr(o, "No such file")),
	              "loader: %s", o);
	free(o);
}
END_TEST

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

Suite *suite_escape(void)
{
	Suite *su = suite_create("escape");
	/* Each attempt, and whether it runs against the denial hidden too: not
	 * what the expanded way alone has (a frozen directory, and its
	 * documented limits: inotify's names, chmod, hard links in a listed
	 * directory), whose hidden answers check_hide.c holds. */
	const struct {
		const TTest *test;
		bool hidden;
	} attempts[] = {
		{ test_symlink_beside_before, true },
		{ test_symlink_up_before, true },
		{ test_symlink_granted_during, true },
		{ test_symlink_up_during, true },
		{ test_symlink_beside_during, false },
		{ test_symlink_plant_during, true },
		{ test_proc_self_root, true },
		{ test_proc_parent_root, true },
		{ test_proc_parent_cwd, true },
		{ test_proc_parent_fd, true },
		{ test_leaked_granted_dirfd, true },
		{ test_leaked_denied_dirfd_opens, true },
		{ test_limit_leaked_descriptors, false },
		{ test_devfd_reopen, true },
		{ test_dotdot_from_sibling, true },
		{ test_cwd_action_inside, true },
		{ test_chdir_inside, true },
		{ test_rename_into, true },
		{ test_rename_out, true },
		{ test_link_into, true },
		{ test_link_out, true },
		{ test_exchange_files, true },
		{ test_exchange_dirs, true },
		{ test_exec_inside, true },
		{ test_exec_opath, true },
		{ test_exec_loader, true },
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
	TCase *tc = tcase_create("attempts"), *hc = tcase_create("attempts-hidden");

	untimed(tc);
	untimed(hc);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_checked_fixture(hc, setup_hidden, teardown);
	for (size_t i = 0; i < sizeof(attempts) / sizeof(attempts[0]); i++) {
		tcase_add_test(tc, attempts[i].test);
		if (attempts[i].hidden)
			tcase_add_test(hc, attempts[i].test);
	}
	suite_add_tcase(su, tc);
	suite_add_tcase(su, hc);
	suite_add_tcase(su, tcase_escape_world());
	return su;
}

/* SPDX-License-Identifier: MIT */
/* A read-only path sealed in the child's own mount namespace: bound on
 * itself read-only, nothing above it expanded or frozen.  The agent's
 * scope: the home directory read-only, its .ssh denied, the project in it
 * re-admitted.  Each act is shown working without a scope first; expanded,
 * the same scope freezes the directories above the home (the trap the
 * seals are for). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "tests/hide.h"

extern char **environ;

static char proj[4400], notes[4400];

/* The home directory read-only, its .ssh denied, its project re-admitted. */
static void scope_home(sbx_scopeattr_t *s, int flags)
{
	snprintf(proj, sizeof(proj), "%s/proj", home);
	snprintf(notes, sizeof(notes), "%s/notes", home);
	mkdir(proj, 0755);
	write_file(join(proj, "src"), "src\n", 0644);
	write_file(notes, "notes\n", 0644);
	scope_deny(s, ssh, flags);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(s, home), 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(s, proj), 0);
}

/* Whether the project is bound back into the sealed home here (not under
 * qemu-user 7, which knows no open_tree(2): a SKIP line says so). */
static bool can_seal(const char *test)
{
	sbx_scopeattr_t s;

	if (!can_hide(test))
		return false;
	scope_home(&s, 0);
	ck_assert_str_eq(VERDICT(&s, "/bin/sh", "-c", "echo ok"), "ok");
	sbx_scopeattr_destroy(&s);
	if (!strstr(said, "open_tree(2)"))
		return true;
	say_skip("SKIP %s: nothing is bound back here: %s\n", test, said);
	said[0] = '\0';
	return false;
}

/* The options of the mount at path in the child's table under s (the
 * last line that names it: the one its name reaches), or "". */
static const char *options_at(const sbx_scopeattr_t *s, const char *path)
{
	static char opts[256];
	char *out = NULL, point[4700], *p, *hit = NULL;

	verdict_of(s, ARGV("/bin/cat", "/proc/self/mountinfo"), false, &out);
	snprintf(point, sizeof(point), " %s ", path);
	for (p = out; (p = strstr(p, point)); p++)
		hit = p + strlen(point);
	opts[0] = '\0';
	if (hit)
		sscanf(hit, "%255s", opts);
	free(out);
	return opts;
}

/* argv under s with a file action that opens path read-only as fd 7:
 * the verdict, as verdict_of. */
static const char *with_open(const sbx_scopeattr_t *s, const char *path, char *const argv[])
{
	static char v[256];
	sbx_file_actions_t fa;
	int out = memfd_create("out", MFD_CLOEXEC), err;
	char *o = calloc(1, 65536), *nl;
	pid_t pid;

	ck_assert_ptr_nonnull(o);
	sbx_file_actions_init(&fa);
	sbx_file_actions_adddup2(&fa, out, 1);
	sbx_file_actions_adddup2(&fa, out, 2);
	sbx_file_actions_addopen(&fa, 7, path, O_RDONLY, 0);
	err = sbx_posix_spawn(&pid, argv[0], &fa, NULL, s, argv, environ);
	sbx_file_actions_destroy(&fa);
	ck_assert_msg(!err, "the spawn failed: %s (%s)", sbx_strerror(err), said);
	wait_status(pid);
	ck_assert_int_ge(pread(out, o, 65535, 0), 0);
	close(out);
	while ((nl = strrchr(o, '\n')) && !nl[1])
		*nl = '\0';
	nl = strrchr(o, '\n');
	snprintf(v, sizeof(v), "%s", nl ? nl + 1 : o);
	free(o);
	return v;
}

START_TEST(test_hide_seal_readonly)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char made[4600];
	sbx_explanation_t ex;
	sbx_scopeattr_t s;
	int sock;

	REQUIRE_LANDLOCK();
	if (!can_seal(__func__))
		return;
	if (snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/agent.sock", home) >=
	    (int)sizeof(sun.sun_path)) {
		say_skip("SKIP %s: the home's path is too long for a socket\n", __func__);
		return;
	}
	/* Expanded: the directory above the home is frozen. */
	scope_home(&s, SBX_SCOPE_EXPAND);
	WORKS(FSOP, "create", (char *)join(t.top, "fresh0"));
	ck_assert_str_eq(VERDICT(&s, FSOP, "create", (char *)join(t.top, "fresh1")), "EACCES");
	sbx_scopeattr_destroy(&s);

	/* Sealed: nothing above the home frozen, nothing in it written; a
	 * socket in it (an agent's) keeps it sealed (this scope restricts no
	 * socket: a read-only path never closed one below ABI 9). */
	ck_assert_int_eq(bind(sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0),
	                      (struct sockaddr *)&sun, sizeof(sun)), 0);
	scope_home(&s, 0);
	ck_assert_str_eq(VERDICT(&s, FSOP, "create", (char *)join(t.top, "fresh2")), "ok");
	outcome(1, 0);
	ck_assert_str_eq(VERDICT(&s, FSOP, "read", notes), "ok");
	WORKS(FSOP, "write", notes);
	ck_assert_str_eq(VERDICT(&s, FSOP, "write", notes), "EROFS");
	snprintf(made, sizeof(made), "%s/planted", home);
	ck_assert_str_eq(VERDICT(&s, FSOP, "create", made), "EROFS");
	ck_assert_int_ne(access(made, F_OK), 0);
	snprintf(made, sizeof(made), "%s/renamed", home);
	ck_assert_str_eq(VERDICT(&s, FSOP, "rename", notes, made), "EROFS");
	ck_assert_str_eq(VERDICT(&s, FSOP, "rename", home, (char *)join(t.top, "h2")), "EBUSY");
	/* The project writable, the key out of reach. */
	ck_assert_str_eq(VERDICT(&s, FSOP, "create", (char *)join(proj, "made")), "ok");
	WORKS(FSOP, "read", key);
	REFUSED(&s, FSOP, "read", key);
	secret_intact();
	ck_assert_int_eq(sbx_scopeattr_explain(&s, notes, &ex), 0);
	ck_assert_int_eq(ex.reason, SBX_REASON_READONLY);
	ck_assert_int_eq(ex.access & (SBX_ACCESS_WRITE | SBX_ACCESS_CREATE | SBX_ACCESS_UNLINK), 0);
	ck_assert_ptr_nonnull(strstr(ex.message, "sealed"));
	/* The child's table: the home a mount there, read-only and nodev;
	 * no mount without a scope. */
	ck_assert_str_eq(options_at(NULL, home), "");
	ck_assert_msg(!strncmp(options_at(&s, home), "ro,", 3) &&
	                      strstr(options_at(&s, home), "nodev"),
	              "the seal's mount: %s", options_at(&s, home));
	sbx_scopeattr_destroy(&s);
	close(sock);

	/* Where the scope names sockets, one in the home keeps it expanded
	 * (a read-only mount leaves it open to connections). */
	scope_home(&s, 0);
	ck_assert_int_eq(sbx_scopeattr_allowsocket(&s, "/run/sbxspawn-none.sock"), 0);
	ck_assert_str_eq(VERDICT(&s, FSOP, "write", notes), "EACCES");
	ck_assert_ptr_nonnull(strstr(said, "socket"));
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* What the child holds from before its namespace: its working directory
 * in the seal is entered again, and read-only; a directory it inherits
 * above the seal, and a file of the seal it inherits, would write past it
 * (neither lookup crosses the seal): the spawn expands, and Landlock
 * refuses the write. */
START_TEST(test_hide_seal_held)
{
	char cmd[9000], num[16], *out = NULL;
	sbx_scopeattr_t s;
	int dir, file;

	REQUIRE_LANDLOCK();
	if (!can_seal(__func__))
		return;
	scope_home(&s, 0);
	snprintf(cmd, sizeof(cmd), "touch rel 2>/dev/null && echo WROTE; touch '%s' && echo ok",
	         join(t.top, "fresh"));
	ck_assert_int_eq(run_scoped_cwd(NULL, home, ARGV("/bin/sh", "-c", cmd), &out), 0);
	ck_assert_ptr_nonnull(strstr(out, "WROTE"));
	free(out);
	unlink(join(home, "rel"));
	ck_assert_int_eq(run_scoped_cwd(&s, home, ARGV("/bin/sh", "-c", cmd), &out), 0);
	ck_assert_msg(!strstr(out, "WROTE") && strstr(out, "ok"), "from the seal: %s", out);
	free(out);
	outcome(1, 0);
	/* Above it (beneath the pins, where a lookup meets the seal the pins
	 * copied): the spawn runs sealed too. */
	snprintf(cmd, sizeof(cmd), "touch home/rel 2>/dev/null && echo WROTE; touch fresh2 && echo ok");
	ck_assert_int_eq(run_scoped_cwd(&s, t.top, ARGV("/bin/sh", "-c", cmd), &out), 0);
	ck_assert_msg(!strstr(out, "WROTE") && strstr(out, "ok"), "from above the seal: %s", out);
	free(out);
	outcome(1, 0);

	dir = open(t.top, O_RDONLY | O_DIRECTORY); /* left open past exec */
	ck_assert_int_ge(dir, 0);
	snprintf(num, sizeof(num), "%d", dir);
	ck_assert_str_eq(verdict_of(NULL, ARGV(ESCAPE, "openat-write", num, "home/notes"), true,
	                            NULL), "ok");
	ck_assert_str_eq(VERDICT(&s, ESCAPE, "openat-write", num, "home/notes"), "EACCES");
	outcome(0, 1);
	close(dir);

	/* A file action's descriptor of a file in the seal: the same. */
	ck_assert_str_eq(with_open(NULL, notes, ARGV(ESCAPE, "fd-reopen-write", "7")), "ok");
	ck_assert_str_eq(with_open(&s, notes, ARGV(ESCAPE, "fd-reopen-write", "7")), "EACCES");
	outcome(0, 1);

	file = open(notes, O_RDONLY); /* left open past exec */
	ck_assert_int_ge(file, 0);
	snprintf(num, sizeof(num), "%d", file);
	ck_assert_str_eq(verdict_of(NULL, ARGV(ESCAPE, "fd-reopen-write", num), true, NULL), "ok");
	ck_assert_str_eq(VERDICT(&s, ESCAPE, "fd-reopen-write", num), "EACCES");
	outcome(0, 1);
	close(file);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* An inherited io_uring (and, for root, a fanotify group) holds descriptors
 * opened before the child's namespace, which the command can take out: a
 * directory registered with the ring reads the key past its cover
 * (IORING_OP_FIXED_FD_INSTALL; an outside attack wrote into a seal so).
 * Inherited, either makes the spawn expand; close-on-exec, it hides. */
START_TEST(test_hide_held_carriers)
{
	unsigned char p[120] = { 0 }; /* struct io_uring_params */
	char num[16], *out = NULL;
	sbx_scopeattr_t s;
	int ring, dir, group;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	ring = (int)syscall(SYS_io_uring_setup, 4, p);
	if (ring < 0) {
		say_skip("SKIP %s (io_uring): no ring can be made here (%s)\n", __func__,
		         strerror(errno));
	} else {
		dir = open(home, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ck_assert_int_ge(dir, 0);
		ck_assert_int_eq(syscall(SYS_io_uring_register, ring, 2 /* REGISTER_FILES */, &dir, 1), 0);
		close(dir);
		ck_assert_int_eq(fcntl(ring, F_SETFD, 0), 0); /* left open past exec */
		snprintf(num, sizeof(num), "%d", ring);
		out = verdict_of(NULL, ARGV(ESCAPE, "uring-install", num, ".ssh/id"), true, NULL);
		if (!strcmp(out, "ok")) {
			scope_deny(&s, ssh, 0);
			REFUSED(&s, ESCAPE, "uring-install", num, ".ssh/id");
			outcome(0, 1);
			ck_assert_ptr_nonnull(strstr(said, "io_uring"));
			ck_assert_int_eq(fcntl(ring, F_SETFD, FD_CLOEXEC), 0);
			REFUSED(&s, FSOP, "read", key);
			outcome(1, 0);
			sbx_scopeattr_destroy(&s);
		} else {
			say_skip("SKIP %s (io_uring): the ring's file cannot be installed here "
			         "without the library either (%s)\n", __func__, out);
		}
		close(ring);
	}
	group = (int)syscall(SYS_fanotify_init, 0 /* FAN_CLASS_NOTIF */, O_RDONLY);
	if (group < 0) {
		say_skip("SKIP %s (fanotify): a group needs CAP_SYS_ADMIN (%s)\n", __func__,
		         strerror(errno));
		return;
	}
	ck_assert_int_eq(fcntl(group, F_SETFD, 0), 0);
	scope_deny(&s, ssh, 0);
	REFUSED(&s, FSOP, "read", key);
	outcome(0, 1);
	ck_assert_ptr_nonnull(strstr(said, "fanotify"));
	sbx_scopeattr_destroy(&s);
	close(group);
}
END_TEST

/* A sealed file: written nowhere, removed and renamed nowhere (a mount
 * point), its directory as writable as before; the seal keeps the mount's
 * nosuid and noexec (a remount clears what it does not name). */
START_TEST(test_hide_seal_file)
{
	char made[4600], flags[4600];
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!can_seal(__func__))
		return;
	snprintf(notes, sizeof(notes), "%s/notes", home);
	write_file(notes, "notes\n", 0644);
	scope_deny(&s, ssh, 0);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, notes), 0);
	WORKS(FSOP, "write", notes);
	ck_assert_str_eq(VERDICT(&s, FSOP, "write", notes), "EROFS");
	ck_assert_str_eq(VERDICT(&s, FSOP, "truncate", notes), "EROFS");
	ck_assert_str_eq(VERDICT(&s, FSOP, "unlink", notes), "EBUSY");
	snprintf(made, sizeof(made), "%s/renamed", home);
	ck_assert_str_eq(VERDICT(&s, FSOP, "rename", notes, made), "EBUSY");
	ck_assert_str_eq(VERDICT(&s, FSOP, "create", (char *)join(home, "beside")), "ok");
	ck_assert_str_eq(VERDICT(&s, FSOP, "read", notes), "ok");
	sbx_scopeattr_destroy(&s);

	if (private_mounts(__func__) == MOUNT_NS_NONE)
		return;
	snprintf(flags, sizeof(flags), "%s/flags", t.top);
	ck_assert_int_eq(mkdir(flags, 0755), 0);
	ck_assert_int_eq(mount("sbxtest", flags, "tmpfs", MS_NOSUID | MS_NOEXEC, NULL), 0);
	ck_assert_str_eq(options_at(NULL, flags), "rw,nosuid,noexec,relatime");
	scope_deny(&s, ssh, 0);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, flags), 0);
	ck_assert_str_eq(options_at(&s, flags), "ro,nosuid,nodev,noexec,relatime");
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* What a read-only mount would leave open to writes keeps the path
 * expanded, and says why: a FIFO in it. */
START_TEST(test_hide_seal_fifo_expands)
{
	char fifo[4600];
	sbx_scopeattr_t s;

	REQUIRE_LANDLOCK();
	if (!can_seal(__func__))
		return;
	snprintf(fifo, sizeof(fifo), "%s/fifo", home);
	ck_assert_int_eq(mkfifo(fifo, 0666), 0);
	scope_home(&s, 0);
	ck_assert_str_eq(VERDICT(&s, FSOP, "create", (char *)join(t.top, "fresh")), "EACCES");
	ck_assert_ptr_nonnull(strstr(said, "FIFO"));
	ck_assert_str_eq(VERDICT(&s, FSOP, "write", notes), "EACCES");
	sbx_scopeattr_destroy(&s);
}
END_TEST

Suite *suite_hide_seal(void)
{
	Suite *su = suite_create("hide-seal");
	TCase *tc = tcase_create("seal");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_hide_seal_readonly);
	tcase_add_test(tc, test_hide_seal_held);
	tcase_add_test(tc, test_hide_seal_file);
	tcase_add_test(tc, test_hide_seal_fifo_expands);
	tcase_add_test(tc, test_hide_held_carriers);
	suite_add_tcase(su, tc);
	return su;
}

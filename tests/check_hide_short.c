/* SPDX-License-Identifier: MIT */
/* Hidden denials, where something is short for the moment: no descriptor
 * free, no memory for a namespace.  The spawn that meets it expands, or
 * fails with it; nothing runs uncovered, nothing is covered in the
 * caller's namespace, and the next spawn hides again (check_hide.c holds
 * the cover). */
#include "config.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "tests/hide.h"

/* Whatever directory it inherits, the command reads .ssh/id beneath. */
#define READ_ANY "cat /proc/self/fd/*/.ssh/id 2>/dev/null; exit 0"

/* argv spawned under s with every descriptor taken but those its output
 * goes through: the parent cannot open /proc/self/fd to look at what the
 * child inherits, and the child looks itself (holds.c).  Its output, or
 * NULL and the spawn's error in *err. */
static char *spawned_table_full(const sbx_scopeattr_t *s, char *const argv[], int *err)
{
	static char out[4096];
	sbx_file_actions_t fa;
	struct rlimit was, rl;
	int p[2], fill[256], nfill = 0, status;
	ssize_t n, got = 0;
	pid_t pid;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	sbx_file_actions_init(&fa);
	sbx_file_actions_adddup2(&fa, p[1], 1);
	sbx_file_actions_adddup2(&fa, p[1], 2);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &was), 0);
	rl = was;
	if ((rlim_t)count_fds() + 200 < rl.rlim_cur)
		rl.rlim_cur = (rlim_t)count_fds() + 200;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	while (nfill < 256 && (fill[nfill] = fcntl(0, F_DUPFD_CLOEXEC, 0)) >= 0)
		nfill++;
	ck_assert_msg(nfill < 256 && errno == EMFILE, "the table not filled: %d, %s", nfill,
	              strerror(errno));
	*err = sbx_posix_spawn(&pid, argv[0], &fa, NULL, s, argv, environ);
	while (nfill > 0)
		close(fill[--nfill]);
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &was), 0);
	close(p[1]);
	sbx_file_actions_destroy(&fa);
	while (got < (ssize_t)sizeof(out) - 1 && (n = read(p[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += n;
	out[got > 0 ? got : 0] = '\0';
	close(p[0]);
	if (*err)
		return NULL;
	status = wait_status(pid);
	ck_assert_msg(WIFEXITED(status), "status %#x: %s", (unsigned)status, out);
	return out;
}

/* With no descriptor free for the parent's look, the child's own finds the
 * directory it inherits: the spawn starts again expanded, or, where the
 * expanded compile finds no descriptor either, fails (EMFILE), nothing
 * run.  Never does the command read the key. */
START_TEST(test_hide_held_table_full)
{
	char *argv[] = { "/bin/sh", "-c", READ_ANY, NULL }, *out;
	sbx_scopeattr_t s;
	int dir, err;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__))
		return;
	ck_assert_int_ge(dir = open(home, O_RDONLY | O_DIRECTORY), 0);
	/* The control: through the directory it inherits, the command reads
	 * the key, the table full as below. */
	out = spawned_table_full(NULL, argv, &err);
	ck_assert_msg(out && strstr(out, SECRET), "the control: %s", out ? out : strerror(err));
	scope_deny(&s, ssh, 0);
	ck_assert_int_eq(sbx_scopeattr_compile(&s), 0);
	out = spawned_table_full(&s, argv, &err);
	ck_assert_msg(!out || !strstr(out, SECRET), "ESCAPE: the key read: %s", out);
	ck_assert_msg(out || err == EMFILE, "%s", strerror(err));
	/* Found by the child's look; as another user than root, whose child
	 * needs descriptors for its user namespace's maps first, that step's
	 * shortage may come before it (the spawn expands all the same). */
	ck_assert_msg(strstr(said, "directory descriptor") ||
	                      (geteuid() && strstr(said, "Too many open files), for this spawn")),
	              "%s; said: %s", out ? "ran" : strerror(err), said);
	if (out)
		outcome(0, 1);
	close(dir);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A spawn made by a thread whose children meet err at unshare(2) (a filter
 * of that thread's alone): its error, its output, its outcome, and what
 * was said. */
struct short_spawn {
	const sbx_scopeattr_t *s;
	int short_of, err, status;
	char *out;
	sbx_outcome_t oc;
};

static void *spawn_short(void *arg)
{
	struct short_spawn *sp = arg;
	char *argv[] = { FSOP, "read", key, NULL };

	seccomp_fail(SYS_unshare, sp->short_of);
	sp->status = run_scoped(sp->s, argv, &sp->out);
	sp->err = sp->status <= -1000 ? -1000 - sp->status : 0;
	if (sp->out && *sp->out && sp->out[strlen(sp->out) - 1] == '\n')
		sp->out[strlen(sp->out) - 1] = '\0';
	sbx_outcome_get(&sp->oc);
	return NULL;
}

/* A child refused its namespace for a resource short for the moment
 * (ENOMEM at unshare, in one thread's children): that spawn expands, and
 * the next, another thread's, hides: no refusal of the kernel's is kept
 * for the process.  Demanded, that spawn fails with what was short. */
START_TEST(test_hide_refusal_passing)
{
	static const int shortages[] = { ENOMEM, EAGAIN, EMFILE, ENFILE };
	struct short_spawn sp = { 0 };
	char heard[sizeof(said)], words[128];
	sbx_scopeattr_t s;
	pthread_t th;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__) || !filters_here(__func__))
		return;
	for (size_t k = 0; k <= sizeof(shortages) / sizeof(shortages[0]); k++) {
		/* Each shortage, then ENOMEM again with hiding demanded. */
		bool demanded = k == sizeof(shortages) / sizeof(shortages[0]);
		int short_of = demanded ? ENOMEM : shortages[k];

		scope_deny(&s, ssh, demanded ? SBX_SCOPE_HIDE : 0);
		said[0] = '\0';
		sp = (struct short_spawn){ .s = &s, .short_of = short_of };
		ck_assert_int_eq(pthread_create(&th, NULL, spawn_short, &sp), 0);
		ck_assert_int_eq(pthread_join(th, NULL), 0);
		ck_assert_msg(!sp.out || !strstr(sp.out, SECRET), "ESCAPE: %s", sp.out);
		snprintf(heard, sizeof(heard), "%s", said);
		if (demanded) {
			ck_assert_msg(sp.err == short_of, "%s", sbx_strerror(sp.err));
		} else {
			ck_assert_msg(sp.err == 0 && denied_verdict(sp.out ? sp.out : ""),
			              "%s: %s: %s", strerror(short_of), sbx_strerror(sp.err),
			              sp.out ? sp.out : "");
			ck_assert_msg(sp.oc.hidden == 0 && sp.oc.expanded == 1, "hidden %u, expanded %u",
			              sp.oc.hidden, sp.oc.expanded);
		}
		free(sp.out);
		/* This thread's children can: hidden. */
		REFUSED(&s, FSOP, "read", key);
		outcome(1, 0);
		snprintf(words, sizeof(words), "%s), for this spawn", strerror(short_of));
		ck_assert_msg(strstr(heard, words), "said: %s", heard);
		sbx_scopeattr_destroy(&s);
	}
}
END_TEST

/* The probe a compile asks (SBX_SCOPE_HIDE's, before any spawn) meeting a
 * shortage: not known, so the compile does not fail for it (the spawn's
 * child finds out), and nothing is kept against hiding. */
struct short_compile {
	sbx_scopeattr_t *s;
	int err;
};

static void *compile_short(void *arg)
{
	struct short_compile *sc = arg;

	seccomp_fail(SYS_unshare, ENOMEM);
	sc->err = sbx_scopeattr_compile(sc->s);
	return NULL;
}

START_TEST(test_hide_probe_short)
{
	struct short_compile sc;
	sbx_scopeattr_t s;
	pthread_t th;

	REQUIRE_LANDLOCK();
	/* The probe's answer is kept for the thread that asked (and a
	 * refusal for the process): the compile below, in a thread of its
	 * own, asks again. */
	if (!can_hide(__func__) || !filters_here(__func__))
		return;
	scope_deny(&s, ssh, SBX_SCOPE_HIDE);
	sc = (struct short_compile){ .s = &s };
	ck_assert_int_eq(pthread_create(&th, NULL, compile_short, &sc), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	if (sc.err == EINVAL && !strstr(said, "Cannot allocate memory")) {
		/* Refused for a lasting reason: nothing to show here. */
		say_skip("SKIP %s: no denial can be hidden here: %s\\n", __func__, said);
		sbx_scopeattr_destroy(&s);
		return;
	}
	ck_assert_msg(sc.err == 0, "%s: %s", sbx_strerror(sc.err), said);
	REFUSED(&s, FSOP, "read", key);
	outcome(1, 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* sbx_execve in a process whose unshare(2) meets ENOMEM (a filter of the
 * test's): the process stays in the namespace it had, so the denials are
 * expanded, and no cover is mounted in it (a compile that hid would cover
 * in the caller's own namespace, seen by every process in it).  Demanded,
 * the exec fails with what was short. */
START_TEST(test_hide_exec_short)
{
	char cmd[5000], *argv[] = { "/bin/sh", "-c", cmd, NULL };
	int p[2], status;
	char out[4096] = "";
	ssize_t n;
	pid_t pid;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__) || !filters_here(__func__) ||
	    private_mounts(__func__) == MOUNT_NS_NONE)
		return;
	snprintf(cmd, sizeof(cmd), "grep -c ' sbxspawn ' /proc/self/mountinfo; cat '%s' || echo refused",
	         key);
	for (int demanded = 0; demanded < 2; demanded++) {
		ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
		ck_assert_int_ge(pid = fork(), 0);
		if (pid == 0) {
			sbx_scopeattr_t s;

			dup2(p[1], 1);
			dup2(p[1], 2);
			seccomp_fail(SYS_unshare, ENOMEM);
			scope_deny(&s, ssh, demanded ? SBX_SCOPE_HIDE : 0);
			_exit(sbx_execve(argv[0], &s, argv, environ) == ENOMEM ? 40 : 41);
		}
		close(p[1]);
		for (size_t got = 0; (n = read(p[0], out + got, sizeof(out) - 1 - got)) > 0;)
			out[got += (size_t)n] = '\0';
		close(p[0]);
		status = wait_status(pid);
		ck_assert_msg(!strstr(out, SECRET), "ESCAPE: %s", out);
		if (demanded) {
			ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 40, "status %#x: %s",
			              (unsigned)status, out);
		} else {
			ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
			                      !strncmp(out, "0\n", 2) && strstr(out, "refused"),
			              "status %#x: %s", (unsigned)status, out);
		}
	}
}
END_TEST

/* sbx_execve's covers short of a descriptor: refused (EMFILE), nothing
 * run, where a spawn's child would raise its soft limit for them: the
 * caller's own process shares its limit with its other threads, which
 * would start what they start with it raised.  The scope is compiled
 * first; then one descriptor is left free (the user namespace's maps, the
 * look at the table, the denial's own descriptor), none for the cover. */
START_TEST(test_hide_exec_no_room)
{
	char *argv[] = { "/bin/sh", "-c", "echo ran", NULL }, out[4096] = "";
	int p[2], status;
	ssize_t n;
	pid_t pid;

	REQUIRE_LANDLOCK();
	if (!can_hide(__func__) || private_mounts(__func__) == MOUNT_NS_NONE)
		return;
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	ck_assert_int_ge(pid = fork(), 0);
	if (pid == 0) {
		struct rlimit rl;
		sbx_scopeattr_t s;
		sbx_outcome_t oc;
		int fd;

		dup2(p[1], 1);
		dup2(p[1], 2);
		scope_deny(&s, ssh, SBX_SCOPE_HIDE);
		if (sbx_scopeattr_compile(&s) || getrlimit(RLIMIT_NOFILE, &rl) ||
		    (fd = fcntl(0, F_DUPFD_CLOEXEC, 0)) < 0)
			_exit(42);
		close(fd);
		rl.rlim_cur = (rlim_t)fd + 1;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			_exit(42);
		fd = sbx_execve(argv[0], &s, argv, environ);
		sbx_outcome_get(&oc);
		dprintf(1, "%s, %s\n", sbx_strerror(fd), strerror(oc.error));
		_exit(fd == SBX_EREFUSED && oc.error == EMFILE ? 40 : 41);
	}
	close(p[1]);
	for (size_t got = 0; (n = read(p[0], out + got, sizeof(out) - 1 - got)) > 0;)
		out[got += (size_t)n] = '\0';
	close(p[0]);
	status = wait_status(pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 40 && !strstr(out, "ran"),
	              "status %#x: %s", (unsigned)status, out);
}
END_TEST

Suite *suite_hide_short(void)
{
	Suite *su = suite_create("hide-short");
	TCase *tc = tcase_create("short");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_hide_held_table_full);
	tcase_add_test(tc, test_hide_refusal_passing);
	tcase_add_test(tc, test_hide_probe_short);
	tcase_add_test(tc, test_hide_exec_short);
	tcase_add_test(tc, test_hide_exec_no_room);
	suite_add_tcase(su, tc);
	return su;
}

/* SPDX-License-Identifier: MIT */
/* Privilege a confined child keeps or is refused, on the real kernel: as
 * root, as real root, through file capabilities, and the spawn refused
 * where another uid or dropped capabilities cannot be had.  Part of the
 * controls suite (check_controls.c). */
#include "config.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "tests/controls.h"

#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"

/* ---- privilege ----------------------------------------------------------- */

static int privileged_events;

static void count_privileged(const sbx_event_t *ev, void *arg)
{
	(void)arg;
	privileged_events += ev->kind == SBX_EVENT_PRIVILEGED;
}

static int kept_privilege(void)
{
	sbx_outcome_t oc;

	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	return oc.privilege;
}

/* A line of the child's /proc/self/status, as it was when it ran. */
static char *status_line(const sbx_scopeattr_t *s, const char *key)
{
	char *argv[] = { "/bin/cat", "/proc/self/status", NULL }, *out, *line, *end;
	static char found[256];

	ck_assert_int_eq(run_scoped(s, argv, &out), 0);
	line = strstr(out, key);
	ck_assert_ptr_nonnull(line);
	end = strchr(line, '\n');
	snprintf(found, sizeof(found), "%.*s", (int)(end ? end - line : (long)strlen(line)), line);
	free(out);
	return found;
}

/* A child running as root reconfigures the kernel past any Landlock
 * domain: the core dump helper runs outside every domain.  Without its
 * capabilities it still owns /proc/sys; under another uid it does not. */
START_TEST(test_privilege)
{
	const char *core = "/proc/sys/kernel/core_pattern";
	sbx_scopeattr_t s;
	struct seen seen;

	REQUIRE_LANDLOCK();
	if (geteuid() != 0) {
		say_skip("SKIP %s: needs root, to have privilege to keep or drop\n", __func__);
		return;
	}
	scope_make(&s, &seen, 0);
	ck_assert_int_eq(sbx_scopeattr_setlogger(&s, count_privileged, NULL), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, "/srv/sbx-nothing-here"), 0);
	/* Kept: said once per process, and in every outcome. */
	ck_assert_str_eq(fs(&s, "openw", core), "ok");
	ck_assert_int_eq(kept_privilege(), SBX_PRIVILEGE_ROOT | SBX_PRIVILEGE_CAPS);
	ck_assert_str_eq(fs(&s, "openw", core), "ok");
	ck_assert_int_eq(privileged_events, 1);

	/* Capabilities dropped, every set of them, for good: uid 0 still owns
	 * core_pattern. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_DROP_CAPS), 0);
	ck_assert_str_eq(fs(&s, "openw", core), "ok");
	ck_assert_int_eq(kept_privilege(), SBX_PRIVILEGE_ROOT);
	ck_assert_str_eq(status_line(&s, "CapBnd"), "CapBnd:\t0000000000000000");
	ck_assert_str_eq(status_line(&s, "CapEff"), "CapEff:\t0000000000000000");
	ck_assert_str_eq(status_line(&s, "CapAmb"), "CapAmb:\t0000000000000000");

	/* Another uid and gid, no groups: nothing of root's is left. */
	if (nobody_can_run(FSOP, __func__, "another uid")) {
		ck_assert_int_eq(sbx_scopeattr_setids(&s, 65534, 65534), 0);
		ck_assert_str_eq(fs(&s, "openw", core), "EACCES");
		ck_assert_int_eq(kept_privilege(), 0);
		ck_assert_str_eq(status_line(&s, "Uid"), "Uid:\t65534\t65534\t65534\t65534");
		ck_assert_str_eq(status_line(&s, "Groups"), "Groups:\t ");
		ck_assert_str_eq(status_line(&s, "CapPrm"), "CapPrm:\t0000000000000000");
	}
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A caller whose real uid is 0 and whose effective uid is set aside (as a
 * daemon does with seteuid) starts programs as root: under no_new_privs
 * the exec takes the real uid back, and the bounding set fills the
 * permitted capabilities.  Said, and taken away as for root. */
START_TEST(test_privilege_real_root)
{
	const char *core = "/proc/sys/kernel/core_pattern";
	sbx_scopeattr_t s;
	struct seen seen;

	REQUIRE_LANDLOCK();
	if (geteuid() != 0) {
		say_skip("SKIP %s: needs root, to set its effective uid aside\n", __func__);
		return;
	}
	if (!nobody_can_run(FSOP, __func__, "an effective uid of 65534"))
		return;
	ck_assert_int_eq(setresuid(0, 65534, 0), 0);
	scope_make(&s, &seen, 0);
	ck_assert_int_eq(sbx_scopeattr_setlogger(&s, count_privileged, NULL), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, "/srv/sbx-nothing-here"), 0);
	/* The program keeps the real uid 0 (and, before Linux 6.16, runs
	 * with it as its effective uid too) and every capability permitted:
	 * it takes uid 0 back and owns core_pattern. */
	ck_assert_ptr_nonnull(strstr(status_line(&s, "Uid"), "Uid:\t0\t"));
	ck_assert_int_eq(kept_privilege(), SBX_PRIVILEGE_ROOT | SBX_PRIVILEGE_CAPS);
	ck_assert_int_eq(privileged_events, 1);
	ck_assert_str_ne(status_line(&s, "CapPrm"), "CapPrm:\t0000000000000000");
	ck_assert_str_eq(fs(&s, "regain-openw", core), "ok");

	/* Every capability dropped, though none was effective here. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_DROP_CAPS), 0);
	ck_assert_int_eq(kept_privilege(), SBX_PRIVILEGE_ROOT | SBX_PRIVILEGE_CAPS); /* the last */
	ck_assert_str_eq(status_line(&s, "CapPrm"), "CapPrm:\t0000000000000000");
	ck_assert_str_eq(status_line(&s, "CapBnd"), "CapBnd:\t0000000000000000");
	ck_assert_int_eq(kept_privilege(), SBX_PRIVILEGE_ROOT);
	/* Its real uid is still 0, which it may take as its effective one:
	 * root without capabilities, who owns /proc/sys (said: ROOT). */
	ck_assert_str_eq(fs(&s, "regain-openw", core), "ok");

	/* Another uid: that needs CAP_SETUID, which is permitted only. */
	ck_assert_int_eq(sbx_scopeattr_setids(&s, 65534, 65534), 0);
	ck_assert_str_eq(fs(&s, "regain-openw", core), "EPERM");
	ck_assert_int_eq(kept_privilege(), 0);
	ck_assert_str_eq(status_line(&s, "Uid"), "Uid:\t65534\t65534\t65534\t65534");
	sbx_scopeattr_destroy(&s);

	/* sbxrun --status says the same of itself. */
	char *status[] = { SBXRUN, "--status", NULL }, *out;
#if defined(__SANITIZE_ADDRESS__)
	/* Its effective uid not its real one, sbxrun is not dumpable: the
	 * sanitizer in it can read neither its options nor, at exit, its own
	 * memory (LeakSanitizer's fatal error, exit 1). */
	say_skip("SKIP %s (sbxrun --status): under the address sanitizer, a program whose "
	        "effective uid is not its real one cannot run its leak check\n", __func__);
	(void)status;
	(void)out;
#else
	ck_assert_int_eq(run_scoped(NULL, status, &out), 0);
	ck_assert_msg(strstr(out, "privilege: uid 0, with capabilities") != NULL, "%s", out);
	free(out);
#endif
	/* Root again, as the sanitizer's leak check at exit needs. */
	ck_assert_int_eq(setresuid(0, 0, 0), 0);
}
END_TEST

#ifndef CAP_SETGID
#define CAP_SETGID 6
#endif
#ifndef CAP_SETUID
#define CAP_SETUID 7
#endif

/* A copy of fsop in dir, with the file capability cap_dac_read_search+ep
 * (security.capability, revision 2): NULL, said, where the filesystem
 * keeps none. */
static const char *fsop_with_file_cap(const char *dir, const char *test)
{
	struct { uint32_t magic_etc; struct { uint32_t permitted, inheritable; } data[2]; } fcap = {
		htole32(0x02000000 /* VFS_CAP_REVISION_2 */ | 0x1 /* VFS_CAP_FLAGS_EFFECTIVE */),
		{ { htole32(UINT32_C(1) << CAP_DAC_READ_SEARCH), 0 }, { 0, 0 } }
	};
	static char copy[4096];
	char buf[65536];
	int in = open(FSOP, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	snprintf(copy, sizeof(copy), "%s/fsop-cap", dir);
	out = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	ck_assert_int_ge(in, 0);
	ck_assert_int_ge(out, 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ck_assert_int_eq(write(out, buf, (size_t)n), n);
	ck_assert_int_eq(n, 0);
	close(in);
	ck_assert_int_eq(close(out), 0);
	if (setxattr(copy, "security.capability", &fcap, sizeof(fcap), 0)) {
		say_skip("SKIP %s: no file capability on %s: %s\n", test, copy, strerror(errno));
		return NULL;
	}
	return copy;
}

/* What a program with the file capability cap_dac_read_search+ep made of
 * its privilege: whether it read a file only root may read, its permitted
 * and effective sets, and what the outcome said the child kept. */
struct file_cap_run {
	char read[64];
	char prm[64];
	char eff[64];
	int privilege;
};

static void run_file_cap(const sbx_scopeattr_t *s, const char *prog, const char *secret,
                         struct file_cap_run *run)
{
	char *argv[] = { (char *)prog, "read", "/proc/self/status", NULL }, *out, *line;

	memset(run, 0, sizeof(*run));
	snprintf(run->read, sizeof(run->read), "%s", fs_prog(s, prog, "read", secret));
	run->privilege = kept_privilege();
	ck_assert_int_eq(run_scoped(s, argv, &out), 0);
	if ((line = strstr(out, "CapPrm:")))
		snprintf(run->prm, sizeof(run->prm), "%.*s", (int)strcspn(line, "\n"), line);
	if ((line = strstr(out, "CapEff:")))
		snprintf(run->eff, sizeof(run->eff), "%.*s", (int)strcspn(line, "\n"), line);
	free(out);
}

static void assert_nothing_kept(const struct file_cap_run *run)
{
	ck_assert_str_eq(run->read, "EACCES");
	ck_assert_str_eq(run->prm, "CapPrm:\t0000000000000000");
	ck_assert_str_eq(run->eff, "CapEff:\t0000000000000000");
	ck_assert_int_eq(run->privilege, 0);
}

/* A daemon: uid and gid 1, CAP_SETUID, CAP_SETGID and CAP_DAC_READ_SEARCH
 * kept permitted only across the change, as PR_SET_KEEPCAPS allows.  Run
 * in a process of its own, which has no way back to root; runs[0] with
 * the ids of s, runs[1] with none. */
static void run_as_daemon(const char *deny, const char *prog, const char *secret,
                          struct file_cap_run runs[2])
{
	struct __user_cap_header_struct head = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	int p[2];
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		sbx_scopeattr_t s;
		struct seen seen;

		close(p[0]);
		data[0].permitted = UINT32_C(1) << CAP_SETUID | UINT32_C(1) << CAP_SETGID |
		                    UINT32_C(1) << CAP_DAC_READ_SEARCH;
		if (prctl(PR_SET_KEEPCAPS, 1L, 0L, 0L, 0L) || setgroups(0, NULL) ||
		    setresgid(1, 1, 1) || setresuid(1, 1, 1) || syscall(SYS_capset, &head, data))
			_exit(2);
		scope_make(&s, &seen, 0);
		ck_assert_int_eq(sbx_scopeattr_adddeny(&s, deny), 0);
		ck_assert_int_eq(sbx_scopeattr_setids(&s, 65534, 65534), 0);
		run_file_cap(&s, prog, secret, &runs[0]);
		ck_assert_int_eq(sbx_scopeattr_setids(&s, (uid_t)-1, (gid_t)-1), 0);
		run_file_cap(&s, prog, secret, &runs[1]);
		sbx_scopeattr_destroy(&s);
		_exit(write(p[1], runs, 2 * sizeof(*runs)) == (ssize_t)(2 * sizeof(*runs)) ? 0 : 3);
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], runs, 2 * sizeof(*runs)), (ssize_t)(2 * sizeof(*runs)));
	close(p[0]);
	ck_assert_int_eq(wait_status(pid), 0);
}

/* Capabilities the caller holds permitted only, as root under
 * PR_SET_KEEPCAPS or a daemon that kept them across setuid: no_new_privs
 * lets a program's file capability take back whatever is still permitted
 * at its exec.  Another uid passes none of them on; without one, a
 * program that can take them back is said. */
START_TEST(test_privilege_file_caps)
{
	struct file_cap_run runs[2];
	const char *prog;
	char *dir, *deny, secret[4096];
	sbx_scopeattr_t s;
	struct seen seen;

	REQUIRE_LANDLOCK();
	if (geteuid() != 0) {
		say_skip("SKIP %s: needs root, to give a program a file capability\n", __func__);
		return;
	}
	/* The program and a file only root may read, in a directory apart
	 * from the denial: only the permissions keep the file. */
	dir = make_tmpdir();
	deny = make_tmpdir();
	ck_assert_int_eq(chmod(dir, 0755), 0);
	snprintf(secret, sizeof(secret), "%s/secret", dir);
	write_file(secret, "root's only\n", 0600);
	if (!(prog = fsop_with_file_cap(dir, __func__)) ||
	    !nobody_can_run(prog, __func__, "a program with a file capability"))
		goto out;
	scope_make(&s, &seen, 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, deny), 0);
	/* The file capability works: root's programs keep it. */
	ck_assert_str_eq(fs_prog(&s, prog, "read", secret), "ok");

	/* Root under PR_SET_KEEPCAPS: the change to uid 65534 leaves its
	 * permitted set, which the file capability would draw on. */
	ck_assert_int_eq(prctl(PR_SET_KEEPCAPS, 1L, 0L, 0L, 0L), 0);
	ck_assert_int_eq(sbx_scopeattr_setids(&s, 65534, 65534), 0);
	run_file_cap(&s, prog, secret, &runs[0]);
	assert_nothing_kept(&runs[0]);
	ck_assert_int_eq(prctl(PR_SET_KEEPCAPS, 0L, 0L, 0L, 0L), 0);
	sbx_scopeattr_destroy(&s);

	/* A daemon's permitted set: from one other uid to the next, the
	 * kernel clears nothing. */
	run_as_daemon(deny, prog, secret, runs);
	assert_nothing_kept(&runs[0]);
	/* Without another uid, the program takes CAP_DAC_READ_SEARCH back
	 * from the permitted set, and that is said. */
	ck_assert_str_eq(runs[1].read, "ok");
	ck_assert_str_eq(runs[1].eff, "CapEff:\t0000000000000004");
	ck_assert_int_eq(runs[1].privilege, SBX_PRIVILEGE_CAPS);
out:
	free(dir);
	free(deny);
}
END_TEST

/* A change of ids the caller may not make: the program does not run, and
 * the refusal says which step failed. */
START_TEST(test_privilege_refused)
{
	char *argv[] = { FSOP, "read", "/etc/hostname", NULL }, *out;
	sbx_scopeattr_t s;
	struct seen seen;

	REQUIRE_LANDLOCK();
	if (geteuid() == 0 && setresuid(65534, 65534, 65534)) {
		say_skip("SKIP %s: cannot become an unprivileged user\n", __func__);
		return;
	}
	scope_make(&s, &seen, 0);
	ck_assert_int_eq(sbx_scopeattr_setids(&s, 0, 0), 0);
	ck_assert_int_eq(run_scoped(&s, argv, &out), -1000 - SBX_EREFUSED);
	ck_assert_ptr_nonnull(strstr(out, "not run: its confinement could not be applied: setgroups"));
	free(out);
	ck_assert_int_eq(sbx_scopeattr_setids(&s, 1, (gid_t)-1), EINVAL);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* Without Landlock the child runs unconfined, and what needs no Landlock
 * is applied all the same: the io_uring filter, another uid. */

void privilege_tests(TCase *tc)
{
	tcase_add_test(tc, test_privilege);
	tcase_add_test(tc, test_privilege_real_root);
	tcase_add_test(tc, test_privilege_refused);
	tcase_add_test(tc, test_privilege_file_caps);
}

/* SPDX-License-Identifier: MIT */
/* sbx_scopeattr_explain and sbxrun --explain: for each case (a denial, a
 * re-admission, a read-only path, a granted path, a frozen directory and
 * its entries, a directory that cannot be listed, a grant dropped at the
 * compile, a path not there), the reason and the path that decides it, and
 * every access bit held against what a child confined by the same scope
 * can really do on the running kernel. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "tests/common.h"

#define FSOP HELPER_DIR "/fsop"
#define SBXRUN TOP_BUILDDIR "/tools/sbxrun"
#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })

static struct tree t;

static void setup(void)
{
	tree_make(&t);
}

static void teardown(void)
{
	tree_free(&t);
}

/* Whether fsop OP ARG succeeds in a child confined by s. */
static bool can(const sbx_scopeattr_t *s, const char *op, const char *arg)
{
	return run_scoped(s, ARGV(FSOP, (char *)op, (char *)arg), NULL) == 0;
}

static int serial;

static int lines_count(const char *text)
{
	int n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* A name in dir that is not there yet. */
static const char *fresh(const char *dir)
{
	static char name[8][4200];
	char *b = name[serial % 8];

	snprintf(b, sizeof(name[0]), "%s/fresh%d", dir, serial++);
	return b;
}

/* Holds every bit of x (about path) against the kernel: a file is read,
 * written and (an executable) run; in a directory a file beneath is read
 * and written, it is listed, an entry is made and one removed; and where
 * x says the directory holding path is frozen, path cannot be removed. */
static void agrees(const sbx_scopeattr_t *s, const char *path, const sbx_explanation_t *x)
{
	struct stat st;
	char victim[4200], inside[4200];

	ck_assert_int_eq(stat(path, &st), 0);
	if (!S_ISDIR(st.st_mode)) {
		ck_assert_msg(can(s, "read", path) == !!(x->access & SBX_ACCESS_READ), "read %s: %s",
		              path, x->message);
		ck_assert_msg(can(s, "write", path) == !!(x->access & SBX_ACCESS_WRITE), "write %s: %s",
		              path, x->message);
		if (st.st_mode & S_IXUSR)
			ck_assert_msg((run_scoped(s, ARGV((char *)path), NULL) == 0) ==
			              !!(x->access & SBX_ACCESS_EXECUTE), "execute %s: %s", path,
			              x->message);
	} else {
		snprintf(inside, sizeof(inside), "%s/.inside", path);
		if (access(inside, F_OK)) {
			/* Made now, beside the compile: absent from a listing, and
			 * only where the directory is granted whole. */
			write_file(inside, "in\n", 0644);
		}
		ck_assert_msg(can(s, "list", path) == !!(x->access & SBX_ACCESS_LIST), "list %s: %s",
		              path, x->message);
		ck_assert_msg(can(s, "create", fresh(path)) == !!(x->access & SBX_ACCESS_CREATE),
		              "create in %s: %s", path, x->message);
		snprintf(victim, sizeof(victim), "%s", fresh(path));
		write_file(victim, "", 0644);
		ck_assert_msg(can(s, "unlink", victim) == !!(x->access & SBX_ACCESS_REMOVE),
		              "remove in %s: %s", path, x->message);
		unlink(victim);
		if (x->reason != SBX_REASON_FROZEN) { /* .inside came after the listing */
			ck_assert_msg(can(s, "read", inside) == !!(x->access & SBX_ACCESS_READ),
			              "read in %s: %s", path, x->message);
			ck_assert_msg(can(s, "write", inside) == !!(x->access & SBX_ACCESS_WRITE),
			              "write in %s: %s", path, x->message);
		}
	}
	/* Removed from where it is: only where its directory lets it, and
	 * never where that directory is frozen. */
	if (x->frozen)
		ck_assert_msg(!(x->access & SBX_ACCESS_UNLINK), "%s", x->message);
	if (!S_ISDIR(st.st_mode)) {
		char copy[4200];
		int removed = can(s, "unlink", path);

		ck_assert_msg(removed == !!(x->access & SBX_ACCESS_UNLINK), "unlink %s: %s", path,
		              x->message);
		if (removed) {
			/* Put back, for the next case. */
			snprintf(copy, sizeof(copy), "%s", path);
			write_file(copy, "back\n", 0644);
		}
	}
}

/* Explains path under s, checks the reason and the deciding path, and
 * holds the access against the kernel. */
static sbx_explanation_t explained(const sbx_scopeattr_t *s, const char *path, int reason,
                                   const char *rule)
{
	sbx_explanation_t x;

	ck_assert_int_eq(sbx_scopeattr_explain(s, path, &x), 0);
	ck_assert_msg(x.reason == reason, "%s: reason %d, not %d: %s", path, x.reason, reason,
	              x.message);
	if (rule)
		ck_assert_msg(x.rule && !strcmp(x.rule, rule), "%s: decided by %s, not %s: %s", path,
		              x.rule ? x.rule : "(none)", rule, x.message);
	ck_assert_ptr_nonnull(x.message);
	ck_assert_ptr_null(strchr(x.message, '\n'));
	if (x.exists)
		agrees(s, path, &x);
	return x;
}

/* Beneath a denial, granted, frozen and its entries, not listable. */
START_TEST(test_explain_denial)
{
	sbx_scopeattr_t s;
	sbx_explanation_t x;

	REQUIRE_LANDLOCK();
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	x = explained(&s, t.secret, SBX_REASON_DENIED, t.other);
	ck_assert_int_eq(x.access, 0);
	ck_assert_ptr_nonnull(strstr(x.message, "nothing: denied: in the denial"));
	x = explained(&s, t.other, SBX_REASON_DENIED, t.other);
	x = explained(&s, join(t.mine, "file"), SBX_REASON_GRANTED, NULL);
	ck_assert_int_eq(x.access, SBX_ACCESS_READ | SBX_ACCESS_WRITE | SBX_ACCESS_EXECUTE |
	                           SBX_ACCESS_UNLINK);
	ck_assert_ptr_null(x.frozen);
	x = explained(&s, t.mine, SBX_REASON_GRANTED, NULL);
	ck_assert_int_eq(x.access, 0x3f); /* not unlink: t.projects is frozen */
	ck_assert_str_eq(x.frozen, t.other); /* t.projects holds it, frozen */
	/* Frozen, on the way to the denial, and not listable. */
	x = explained(&s, t.projects, SBX_REASON_FROZEN, t.other);
	ck_assert_int_eq(x.access, 0);
	ck_assert_ptr_nonnull(strstr(x.message, "whatever is re-admitted"));
	ck_assert_ptr_nonnull(strstr(x.message, "it cannot be listed (SBX_SCOPE_LISTABLE)"));
	/* The root too; held against the kernel by what changes nothing
	 * there (the test makes no entry in the machine's root). */
	ck_assert_int_eq(sbx_scopeattr_explain(&s, "/", &x), 0);
	ck_assert_msg(x.reason == SBX_REASON_FROZEN && x.rule && !strcmp(x.rule, t.other), "/: %s",
	              x.message);
	ck_assert_int_eq(x.access & (SBX_ACCESS_CREATE | SBX_ACCESS_REMOVE), 0);
	ck_assert_msg(can(&s, "list", "/") == !!(x.access & SBX_ACCESS_LIST), "list /: %s", x.message);
	/* An entry of it: granted, but it cannot be removed or replaced. */
	x = explained(&s, join(t.projects, "README"), SBX_REASON_GRANTED, NULL);
	ck_assert_str_eq(x.frozen, t.other);
	ck_assert_ptr_nonnull(strstr(x.message, "cannot be removed, renamed or replaced"));
	/* Not there, in a frozen directory: it cannot be made. */
	x = explained(&s, join(t.projects, "new"), SBX_REASON_UNLISTED, t.other);
	ck_assert_int_eq(x.exists, 0);
	ck_assert(!can(&s, "create", join(t.projects, "new")));
	/* Not there, beneath a granted one: it may be. */
	x = explained(&s, join(t.mine, "new"), SBX_REASON_GRANTED, NULL);
	ck_assert_ptr_nonnull(strstr(x.message, "it may be made"));
	ck_assert(can(&s, "create", join(t.mine, "new")));
	sbx_scopeattr_destroy(&s);

	/* Listable: the frozen directory lists, and nothing more. */
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_LISTABLE | SBX_SCOPE_EXPAND), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	x = explained(&s, t.projects, SBX_REASON_FROZEN, t.other);
	ck_assert_int_eq(x.access, SBX_ACCESS_LIST);
	ck_assert_ptr_null(strstr(x.message, "SBX_SCOPE_LISTABLE"));
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* A re-admission inside a denial, and a read-only path. */
START_TEST(test_explain_readmitted_readonly)
{
	char *allowed = (char *)join(t.other, "allowed");
	sbx_scopeattr_t s;
	sbx_explanation_t x;

	REQUIRE_LANDLOCK();
	ck_assert_int_eq(mkdir(allowed, 0755), 0);
	write_file(join(allowed, "f"), "f\n", 0644);
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, allowed), 0);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, t.third), 0);
	x = explained(&s, allowed, SBX_REASON_READMITTED, allowed);
	ck_assert_int_eq(x.access, 0x3f);
	x = explained(&s, join(allowed, "f"), SBX_REASON_READMITTED, allowed);
	ck_assert_int_eq(x.access, SBX_ACCESS_READ | SBX_ACCESS_WRITE | SBX_ACCESS_EXECUTE |
	                               SBX_ACCESS_UNLINK);
	/* The denial, holding a re-admission, gives nothing but it: it is
	 * not listed (nothing of it is granted to freeze); hidden, its cover
	 * lists to root the way to what is bound back in. */
	x = explained(&s, t.other, SBX_REASON_DENIED, t.other);
	ck_assert_int_eq(x.access, hidden_way() && geteuid() == 0 ? SBX_ACCESS_LIST : 0);
	x = explained(&s, t.secret, SBX_REASON_DENIED, t.other);
	x = explained(&s, t.third, SBX_REASON_READONLY, t.third);
	ck_assert_int_eq(x.access, SBX_ACCESS_READ | SBX_ACCESS_EXECUTE | SBX_ACCESS_LIST);
	x = explained(&s, join(t.third, "file"), SBX_REASON_READONLY, t.third);
	ck_assert_int_eq(x.access, SBX_ACCESS_READ | SBX_ACCESS_EXECUTE);
	sbx_scopeattr_destroy(&s);

	/* The temporary directory is a re-admission, said as such. */
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, t.top), 0);
	ck_assert_int_eq(sbx_scopeattr_settmpdir(&s, t.mine), 0);
	x = explained(&s, t.mine, SBX_REASON_READMITTED, t.mine);
	ck_assert_ptr_nonnull(strstr(x.message, "the temporary directory"));
	/* Read-only /dev keeps the devices that write nowhere writable. */
	sbx_scopeattr_destroy(&s);
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, "/dev"), 0);
	ck_assert_int_eq(sbx_scopeattr_explain(&s, "/dev/null", &x), 0);
	ck_assert_int_eq(x.reason, SBX_REASON_READONLY);
	ck_assert(x.access & SBX_ACCESS_WRITE);
	ck_assert(can(&s, "write", "/dev/null"));
	ck_assert_ptr_nonnull(strstr(x.message, "a device that writes nowhere"));
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* Dropped at the compile: a file with two names in a frozen directory is
 * not granted, and the answer says why; a denial not applied, and a
 * re-admission through a symlink left out, are said. */
START_TEST(test_explain_dropped_and_left_out)
{
	char *linked = (char *)join(t.projects, "linked"), *link2 = (char *)join(t.mine, "second");
	char *via = (char *)join(t.top, "via");
	sbx_scopeattr_t s;
	sbx_explanation_t x;

	REQUIRE_LANDLOCK();
	write_file(linked, "two names\n", 0644);
	ck_assert_int_eq(link(linked, link2), 0);
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	x = explained(&s, linked, SBX_REASON_DROPPED, linked);
	ck_assert_int_eq(x.error, EMLINK);
	ck_assert_int_eq(x.access, 0);
	ck_assert_ptr_nonnull(strstr(x.message, "dropped at the compile"));
	ck_assert_ptr_nonnull(strstr(x.message, "hard links"));
	/* Its other name, in a directory granted whole, is another matter. */
	x = explained(&s, link2, SBX_REASON_GRANTED, NULL);
	sbx_scopeattr_destroy(&s);

	/* A denial of / is not applied; a re-admission that leads through a
	 * symlink into the denial re-admits nothing. */
	ck_assert_int_eq(symlink(t.other, via), 0);
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	expand_way(&s);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, "/"), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.third), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	ck_assert_int_eq(sbx_scopeattr_addallow(&s, via), 0);
	x = explained(&s, t.mine, SBX_REASON_GRANTED, NULL);
	ck_assert_ptr_nonnull(strstr(x.message, "not denying /"));
	x = explained(&s, t.secret, SBX_REASON_DENIED, t.other);
	ck_assert_ptr_nonnull(strstr(x.message, "not re-admitting"));
	/* Under SBX_SCOPE_STRICT, no child would run at all. */
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_STRICT | SBX_SCOPE_EXPAND), 0);
	ck_assert_int_eq(sbx_scopeattr_explain(&s, t.secret, &x), 0);
	ck_assert_int_eq(x.reason, SBX_REASON_REFUSED);
	ck_assert_int_eq(x.error, EINVAL);
	ck_assert_int_eq(x.access, 0);
	ck_assert_int_eq(run_scoped(&s, ARGV("/bin/true"), NULL), -1000 - EINVAL);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* Without Landlock a child runs unconfined, and the answer says so; with
 * SBX_SCOPE_REQUIRE, no child runs.  Nothing is said by the explanation
 * (the once-per-process notice is the spawn's). */
START_TEST(test_explain_no_landlock)
{
	sbx_scopeattr_t s;
	sbx_explanation_t x;

	REQUIRE_LANDLOCK();
	seccomp_fail(SYS_landlock_create_ruleset, ENOSYS);
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	ck_assert_int_eq(sbx_scopeattr_explain(&s, t.secret, &x), 0);
	ck_assert_int_eq(x.reason, SBX_REASON_UNCONFINED);
	ck_assert_int_eq(x.access, SBX_ACCESS_READ | SBX_ACCESS_WRITE | SBX_ACCESS_EXECUTE |
	                               SBX_ACCESS_UNLINK);
	ck_assert(can(&s, "read", t.secret));
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_REQUIRE), 0);
	ck_assert_int_eq(sbx_scopeattr_explain(&s, t.secret, &x), 0);
	ck_assert_int_eq(x.reason, SBX_REASON_REFUSED);
	ck_assert_int_eq(x.error, ENOTSUP);
	ck_assert_int_eq(x.access, 0);
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* Called in a Landlock domain of its own (the test restricts itself: no
 * file read but beneath the system's directories and one of the tree's),
 * the answer holds what that domain refuses, which every child inherits:
 * the scope alone grants the read; the caller's domain takes it away, and
 * a confined child cannot read either. */
START_TEST(test_explain_inside_a_domain)
{
	static const char *const readable[] = { "/usr", "/lib", "/lib64", "/etc", "/proc", "/dev" };
	struct sbx_landlock_ruleset_attr ra = { .handled_access_fs = LANDLOCK_ACCESS_FS_READ_FILE |
	                                                              LANDLOCK_ACCESS_FS_READ_DIR };
	const uint64_t both = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
	char file[4200], unlisted[4200];
	sbx_scopeattr_t s;
	sbx_explanation_t x;
	int rs;

	REQUIRE_LANDLOCK();
	snprintf(file, sizeof(file), "%s/file", t.third);
	write_file(file, "data\n", 0644);
	/* Beside the tree's directories, one the caller's domain will not
	 * list. */
	snprintf(unlisted, sizeof(unlisted), "%s/unlisted", t.top);
	ck_assert_int_eq(mkdir(unlisted, 0755), 0);
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	/* A read-only path, which expands nothing: the compile lists no
	 * directory, which the domain below would refuse it. */
	ck_assert_int_eq(sbx_scopeattr_addreadonly(&s, t.mine), 0);
	/* The control: outside a domain of its own, the scope grants it. */
	ck_assert_int_eq(sbx_scopeattr_explain(&s, file, &x), 0);
	ck_assert_int_eq(x.reason, SBX_REASON_GRANTED);
	ck_assert(x.access & SBX_ACCESS_READ);
	ck_assert(can(&s, "read", file));
	ck_assert_int_eq(sbx_scopeattr_explain(&s, unlisted, &x), 0);
	ck_assert(x.access & SBX_ACCESS_LIST);
	ck_assert(can(&s, "list", unlisted));
	rs = (int)sbx_landlock_create_ruleset(&ra, sizeof(ra), 0);
	ck_assert_int_ge(rs, 0);
	for (size_t i = 0; i < sizeof(readable) / sizeof(readable[0]); i++) {
		int fd = open(readable[i], O_PATH | O_CLOEXEC);
		struct sbx_landlock_path_beneath_attr pb = { .allowed_access = both, .parent_fd = fd };

		if (fd >= 0) {
			ck_assert_int_eq(sbx_landlock_add_rule(rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0), 0);
			close(fd);
		}
	}
	{
		/* The tree's files are read beneath mine; its directories
		 * (the compile lists them) beneath projects. */
		int fd = open(t.mine, O_PATH | O_CLOEXEC), dirs = open(t.projects, O_PATH | O_CLOEXEC);
		struct sbx_landlock_path_beneath_attr pb = { .allowed_access = LANDLOCK_ACCESS_FS_READ_FILE,
		                                             .parent_fd = fd },
		                                      pd = { .allowed_access = LANDLOCK_ACCESS_FS_READ_DIR,
		                                             .parent_fd = dirs };

		ck_assert_int_eq(sbx_landlock_add_rule(rs, LANDLOCK_RULE_PATH_BENEATH, &pd, 0), 0);
		close(dirs);

		ck_assert_int_eq(sbx_landlock_add_rule(rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0), 0);
		close(fd);
	}
	ck_assert_int_eq(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
	ck_assert_int_eq(sbx_landlock_restrict_self(rs, 0), 0);
	close(rs);
	ck_assert_int_eq(sbx_scopeattr_explain(&s, file, &x), 0);
	ck_assert_msg(!(x.access & SBX_ACCESS_READ) && (x.access & SBX_ACCESS_WRITE), "%s", x.message);
	/* The probe leaves no trace: the file is as it was. */
	{
		struct stat st;

		ck_assert(stat(file, &st) == 0 && st.st_size == 5);
	}
	ck_assert_msg(strstr(x.message, "read refused to the caller itself"), "%s", x.message);
	ck_assert(!can(&s, "read", file));
	ck_assert_int_eq(sbx_scopeattr_explain(&s, unlisted, &x), 0);
	ck_assert_msg(!(x.access & SBX_ACCESS_LIST) && strstr(x.message, "list refused to the caller itself"),
	              "%s", x.message);
	ck_assert(!can(&s, "list", unlisted));
	/* Where the caller's domain grants the read, the answer keeps it. */
	ck_assert_int_eq(sbx_scopeattr_explain(&s, join(t.mine, "file"), &x), 0);
	ck_assert_msg(x.access & SBX_ACCESS_READ, "%s", x.message);
	sbx_scopeattr_destroy(&s);
}
END_TEST

START_TEST(test_explain_errors)
{
	sbx_scopeattr_t s, dead;
	sbx_explanation_t x;
	const char *first;

	REQUIRE_LANDLOCK();
	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, t.other), 0);
	ck_assert_int_eq(sbx_scopeattr_explain(&s, NULL, &x), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_explain(&s, t.secret, NULL), EINVAL);
	ck_assert_int_eq(sbx_scopeattr_explain(&s, "", &x), ENOENT);
	ck_assert_int_eq(sbx_scopeattr_init(&dead), 0);
	sbx_scopeattr_destroy(&dead);
	ck_assert_int_eq(sbx_scopeattr_explain(&dead, t.secret, &x), EINVAL);
	/* errno left alone; relative paths resolved as adddeny resolves them. */
	ck_assert_int_eq(chdir(t.projects), 0);
	errno = 1234;
	ck_assert_int_eq(sbx_scopeattr_explain(&s, "other/secret", &x), 0);
	ck_assert_int_eq(errno, 1234);
	ck_assert_int_eq(x.reason, SBX_REASON_DENIED);
	first = x.message;
	ck_assert_ptr_nonnull(strstr(first, "denied"));
	sbx_scopeattr_destroy(&s);
}
END_TEST

/* sbxrun [scope options] --explain PATH...: one line a path, in sbxrun's
 * words (its options, not the library's names), nothing run. */
START_TEST(test_explain_sbxrun)
{
	char *out;

	REQUIRE_LANDLOCK();
	ck_assert_int_eq(run_scoped(NULL, ARGV(SBXRUN, "--expand", "--deny", t.other, "--explain", t.projects,
	                                       t.secret, (char *)join(t.mine, "file")),
	                            &out), 0);
	ck_assert_msg(lines_count(out) == 3, "%s", out);
	ck_assert_ptr_nonnull(strstr(out, t.projects));
	ck_assert_ptr_nonnull(strstr(out, ": nothing: frozen by the denial "));
	ck_assert_ptr_nonnull(strstr(out, "it cannot be listed (--listable)"));
	ck_assert_ptr_null(strstr(out, "SBX_"));
	ck_assert_ptr_nonnull(strstr(out, "/secret: nothing: denied: in the denial"));
	ck_assert_ptr_nonnull(strstr(out, "/file: read, write, execute, unlink: granted"));
	free(out);
	ck_assert_int_eq(run_scoped(NULL, ARGV(SBXRUN, "--deny", t.other, "--explain"), &out), 125);
	ck_assert_ptr_nonnull(strstr(out, "--explain needs a path"));
	free(out);
}
END_TEST

Suite *suite_explain(void)
{
	Suite *su = suite_create("explain");
	TCase *tc = tcase_create("explain");

	untimed(tc);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_explain_denial);
	tcase_add_test(tc, test_explain_readmitted_readonly);
	tcase_add_test(tc, test_explain_dropped_and_left_out);
	tcase_add_test(tc, test_explain_no_landlock);
	tcase_add_test(tc, test_explain_inside_a_domain);
	tcase_add_test(tc, test_explain_errors);
	tcase_add_test(tc, test_explain_sbxrun);
	suite_add_tcase(su, tc);
	return su;
}

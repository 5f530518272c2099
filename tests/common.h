/* SPDX-License-Identifier: MIT */
/* Shared by the Check suites. */
#ifndef SBX_TESTS_COMMON_H
#define SBX_TESTS_COMMON_H

#include <check.h>
#include <spawn.h>
#include <stdbool.h>
#include <sys/types.h>

#include "sbxspawn/sbxspawn.h"
#include "tests/emulated.h"

/* No test case has a time limit: a machine kept busy (CI, a package
 * build) must not fail a test by being slow.  A hang is caught once, around
 * the whole test program, by tests/watchdog (SBX_TEST_WATCHDOG). */
#define untimed(tc) tcase_set_timeout((tc), 0)

extern char **environ;

Suite *suite_file_actions(void);
Suite *suite_spawn(void);
Suite *suite_spawn_edges(void);
Suite *suite_concurrency(void);
Suite *suite_fork(void);
Suite *suite_scope(void);
Suite *suite_confine(void);
Suite *suite_outcomes(void);
Suite *suite_sbxrun(void);
Suite *suite_controls(void);
Suite *suite_channels(void);
Suite *suite_terminal(void);
Suite *suite_errors(void);
Suite *suite_escape(void);
Suite *suite_usability(void);
Suite *suite_clients(void);
Suite *suite_processes(void);
Suite *suite_processes_kernel(void);
Suite *suite_portable(void);
Suite *suite_migrate(void);
Suite *suite_system(void);
Suite *suite_system_calls(void);
Suite *suite_said(void);
Suite *suite_explain(void);
Suite *suite_denials(void);
Suite *suite_hide(void);
Suite *suite_hide_held(void);
Suite *suite_hide_ways(void);
Suite *suite_hide_race(void);
Suite *suite_hide_short(void);
Suite *suite_hide_moment(void);
Suite *suite_hide_bind(void);
Suite *suite_hide_seal(void);
Suite *suite_hide_kept(void);
Suite *suite_network(void);
Suite *suite_childenv(void);
Suite *suite_lifetime(void);
Suite *suite_tree(void);
Suite *suite_chroot(void);
/* The errors suite's exhaustion of the calls that answer (check_leaks.c). */
TCase *tcase_errors_answers(void);
/* The escape suite's attacks from the world around the child (check_world.c). */
TCase *tcase_escape_world(void);
/* The spawn-edges suite's caller's signals and descriptor limits
 * (check_spawn_limits.c). */
void spawn_limits_tests(TCase *tc);
/* The sbxrun suite's reading of what it is given (check_sbxrun_names.c). */
void sbxrun_names_tests(TCase *tc);
/* The errors suite's memory exhaustion (check_enomem.c). */
void enomem_tests(TCase *tc);
/* The spawn suite's attributes (check_spawn_attrs.c). */
void spawn_attr_tests(TCase *tc);
/* The concurrency suite's file actions and descriptors (check_concurrency_fds.c). */
void concurrency_fd_tests(TCase *tc);
/* The spawn-edges suite's signals held between clone and exec (check_window.c). */
TCase *tcase_spawn_window(void);
TCase *tcase_lifetime_parent(void);

/* What SBX_TEST_SCALE=N asks: the counts of the long loops divided by N
 * (under an emulator, valgrind or a sanitizer); 1 unset. */
int scale(void);

/* A logger that says nothing, for a scope whose events a test does not
 * look at. */
void quiet(const sbx_event_t *ev, void *arg);

/* A SKIP line on stderr, "SKIP TEST[ (PART)]: why", the test named without
 * Check's _fn; counted for the runner's summary (tests/runner.c). */
void say_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A fresh temporary directory (absolute); removed by rm_rf. */
char *make_tmpdir(void);
void rm_rf(const char *path);
void write_file(const char *path, const char *content, mode_t mode);
/* path joined with name, in a static ring of buffers. */
const char *join(const char *dir, const char *name);

/* A tree of sibling projects: T/projects/{mine,other,third}, with
 * other/secret ("the-secret"), mine/file, third/file, projects/README. */
struct tree {
	char *top;
	char projects[4096], mine[4096], other[4096], third[4096], secret[4096];
};
void tree_make(struct tree *t);
void tree_free(struct tree *t);

/* Waits for pid and returns its wait status. */
int wait_status(pid_t pid);
/* What fd holds from its start (or what a pipe gives to its end), allocated. */
char *slurp_fd(int fd);
/* Runs argv with sbx_posix_spawnp under scope, stdout and stderr captured
 * in *out (malloc'd, may be NULL) and the exit status returned; -1000-err
 * when the spawn itself failed with err. */
int run_scoped(const sbx_scopeattr_t *scope, char *const argv[], char **out);
int run_scoped_cwd(const sbx_scopeattr_t *scope, const char *cwd, char *const argv[], char **out);
/* The helper fsop's OP A B under scope (b may be NULL): its verdict, the
 * last line it printed ("ok", "EACCES", ...); its status must be 0 or 1. */
/* n in decimal, in one of four buffers used in turn (an argv's ports). */
const char *num(unsigned n);
/* The controls the outcome of this thread's last spawn says were enforced. */
int controls_enforced(void);
const char *fsop_verdict(const sbx_scopeattr_t *scope, const char *op, const char *a, const char *b);

/* Number of open descriptors of this process. */
int count_fds(void);
/* Number of zombie children of this process. */
int count_zombies(void);

/* Whether the library enforces Landlock here; tests that need it skip
 * visibly, saying why not (the kernel, the build, an emulator). */
int landlock_abi(void);
const char *no_landlock_why(void);
#define REQUIRE_LANDLOCK()                                                            \
	do {                                                                          \
		if (landlock_abi() <= 0) {                                            \
			say_skip("SKIP %s: %s\n", __func__, no_landlock_why()); \
			return;                                                       \
		}                                                                     \
	} while (0)

/* Moves this test's process (Check forks one for each test, and it must
 * have no threads yet) into a mount namespace of its own, "/" made private
 * in it.  With CAP_SYS_ADMIN, a plain one; without, one inside a user
 * namespace of its own that maps only this process's uid and gid, as
 * `unshare -Urm` would, but keeping them (the tests run as who they are).
 * There tmpfs, bind, move and overlay mounts work; mounting a block device
 * does not, nor does unmounting what came from the outer namespace (/proc:
 * hide_proc covers it instead).  Where neither can be made, a SKIP line
 * says why (the system call's errno, the sysctl or the seccomp filter
 * that forbids it) and MOUNT_NS_NONE is returned. */
enum mount_ns { MOUNT_NS_NONE, MOUNT_NS_PLAIN, MOUNT_NS_USER };
enum mount_ns private_mounts(const char *test);
/* As private_mounts, without a SKIP line: where none can be made, the test
 * goes on in the namespace it was given. */
enum mount_ns private_mounts_if_can(void);
/* Whether the mount table fd (an open /proc/self/mountinfo) shows changed
 * since the last ask: poll(2) says a change once. */
bool mounts_moved(int fd);
/* As private_mounts, but root there: as another user, in a user namespace
 * of its own that maps uid and gid 0 onto this process's, so that the
 * programs it runs keep their capabilities over its mounts (not over the
 * outer namespaces: setns(2) into them and fanotify_init(2) stay root's).
 * false, with a SKIP line, where none can be made. */
bool root_mounts(const char *test);
/* Whether a child of this process can make a user namespace and a mount
 * namespace of its own, as the attacks that need one do; where it cannot,
 * says SKIP with why. */
bool userns_attack_runs(const char *test);
/* In such a namespace: /proc hidden under an empty tmpfs (every path
 * beneath it ENOENT, as with no /proc mounted), and shown again. */
void hide_proc(void);
void show_proc(void);

/* Installs a seccomp filter making syscall nr fail with err, for this
 * process and its children.  Under an emulator that refuses filters, the
 * test ends there, with a SKIP line. */
#define seccomp_fail(nr, err) seccomp_fail_(nr, err, __func__)
void seccomp_fail_(long nr, int err, const char *test);
/* The same for the calls of nr whose first argument's low word is arg0. */
#define seccomp_fail_when(nr, arg0, err) seccomp_fail_when_(nr, arg0, err, __func__)
void seccomp_fail_when_(long nr, long arg0, int err, const char *test);
/* Whether a seccomp filter can be installed here, as the library asks
 * (filters known for x86_64 and aarch64; a kernel that reads one from NULL
 * says EFAULT); where not (an emulator), a SKIP line for test says why. */
bool filters_here(const char *test);
/* How many threads this process has (/proc/self/status), or -1. */
int threads_here(void);

int prctl_no_new_privs(void);
/* The runner's mutation (tests/runner.c): system call nr returns 0 and does
 * nothing, for this process and its children; with only_with_program, only
 * where its third argument is not NULL.  0, or the errno. */
int mutate_filter(long nr, bool only_with_program);
/* The runner's "hide" mutation: mount(2) with MS_SILENT, which the library
 * alone says (lib/child/namespace.c and cover.c: the child's private mounts, covers and pins),
 * returns 0 and does nothing.  0, or the errno. */
int mutate_hiding(void);

/* The scope made to expand every denial (SBX_SCOPE_EXPAND, added to its
 * flags): a test of the walk that lists the directories above a denial,
 * and of what a child meets there (frozen directories, "Permission
 * denied"), whichever way the library takes by default. */
void expand_way(sbx_scopeattr_t *scope);
/* Whether this thread's last spawn hid a denial (sbx_outcome_t.hidden). */
bool hidden_way(void);
/* Whether a denial can be hidden here (a spawn under SBX_SCOPE_HIDE tries);
 * where not, a SKIP line says why for the part of test that needs it. */
bool can_hide(const char *test);
/* Whether v, the verdict of an attempt on a denied path, is a denial:
 * EACCES, Landlock's; and where this thread's last spawn hid the denial,
 * the cover's too: ENOENT (root sees an empty directory), EROFS, EBUSY (a
 * mount point), EPERM (a mount refused), EXDEV (a move across mounts). */
bool denied_verdict(const char *v);

/* Whether uid and gid 65534 may execute path (every directory above it
 * searchable by them); where they may not (a build tree in a 0700 home,
 * or under mktemp -d), a SKIP line says so for that part of the test. */
bool nobody_can_run(const char *path, const char *test, const char *part);

#endif

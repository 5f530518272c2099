/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <ftw.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat/kernel.h"
#include "tests/common.h"

/* Under /var/tmp, not /tmp: a test tree's parent is expanded by every
 * denial in it, and the busier it is, the less a compile is reused and the
 * more entries vanish between listing and opening.  Inside the build
 * tree's own directory there (SBX_TEST_DIR, tests/runner.c): another suite
 * running at the same time (a second checkout, CI beside a developer)
 * changes none of the trees' ancestors. */
/* The directories made here and not yet removed, by the process that made
 * them: a test that ends early (exit(), as an emulator's SKIP does) leaves
 * none behind, for its fixture's teardown does not run then. */
static char *made[16];
static pid_t made_by;

static void remove_made(void)
{
	if (getpid() != made_by)
		return; /* a copy of the process that exits: not its to remove */
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		if (made[i]) {
			char *d = made[i];

			made[i] = NULL;
			rm_rf(d);
			free(d);
		}
}

static void remember(const char *d)
{
	if (made_by != getpid()) {
		memset(made, 0, sizeof(made)); /* a forked test's copy of the list */
		made_by = getpid();
		atexit(remove_made);
	}
	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		if (!made[i]) {
			made[i] = strdup(d);
			return;
		}
}

int scale(void)
{
	const char *s = getenv("SBX_TEST_SCALE");
	int n = s ? atoi(s) : 1;

	return n > 0 ? n : 1;
}

void quiet(const sbx_event_t *ev, void *arg)
{
	(void)ev;
	(void)arg;
}

void say_skip(const char *fmt, ...)
{
	const char *dir = getenv("SBX_TEST_DIR");
	char line[4096], *fn;
	size_t len;
	va_list ap;
	int fd;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* "SKIP test_x_fn: ..." says test_x, as Check does. */
	len = strncmp(line, "SKIP ", 5) ? 0 : strcspn(line + 5, " :(");
	if (len > 3 && !strncmp(fn = line + 5 + len - 3, "_fn", 3))
		memmove(fn, fn + 3, strlen(fn + 3) + 1);
	fputs(line, stderr);
	if (dir && (fd = open(join(dir, ".skips"), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
	                      0644)) >= 0) {
		if (write(fd, line, strlen(line)) < 0)
			perror("the runner's count of SKIP lines");
		close(fd);
	}
}

char *make_tmpdir(void)
{
	const char *run = getenv("SBX_TEST_DIR");
	char tmpl[4096], fallback[] = "/tmp/sbxtest.XXXXXX";
	char *d;

	snprintf(tmpl, sizeof(tmpl), "%s/sbxtest.XXXXXX", run && *run ? run : "/var/tmp");
	if (!(d = mkdtemp(tmpl)))
		d = mkdtemp(fallback);
	ck_assert_ptr_nonnull(d);
	remember(d);
	return strdup(d);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path);
	return unlink(path);
}

void rm_rf(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	for (size_t i = 0; made_by == getpid() && i < sizeof(made) / sizeof(made[0]); i++)
		if (made[i] && !strcmp(made[i], path)) {
			free(made[i]);
			made[i] = NULL;
		}
}

void write_file(const char *path, const char *content, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	ck_assert_msg(fd >= 0, "create %s: %s", path, strerror(errno));
	ck_assert_int_eq(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	fchmod(fd, mode);
	close(fd);
}

const char *join(const char *dir, const char *name)
{
	static char ring[8][4096];
	static int next;
	char *b = ring[next++ % 8];

	snprintf(b, 4096, "%s/%s", dir, name);
	return b;
}

const char *num(unsigned n)
{
	static char buf[4][16];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, 16, "%u", n);
	return b;
}

int controls_enforced(void)
{
	sbx_outcome_t oc;

	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	return oc.controls;
}

const char *fsop_verdict(const sbx_scopeattr_t *scope, const char *op, const char *a, const char *b)
{
	static char verdict[64];
	char *argv[] = { HELPER_DIR "/fsop", (char *)op, (char *)a, (char *)b, NULL };
	char *out = NULL, *last;
	int status = run_scoped(scope, argv, &out);

	ck_assert_msg(status == 0 || status == 1, "fsop %s %s: status %d, output %s", op, a, status,
	              out ? out : "");
	while (strlen(out) && out[strlen(out) - 1] == '\n')
		out[strlen(out) - 1] = '\0';
	last = strrchr(out, '\n');
	snprintf(verdict, sizeof(verdict), "%s", last ? last + 1 : out);
	free(out);
	return verdict;
}

int wait_status(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		ck_assert_int_eq(errno, EINTR);
	return status;
}

char *slurp_fd(int fd)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;

	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (len + 1 == cap)
			buf = realloc(buf, cap *= 2);
	}
	buf[len] = '\0';
	return buf;
}

int run_scoped_cwd(const sbx_scopeattr_t *scope, const char *cwd, char *const argv[], char **out)
{
	sbx_file_actions_t fa;
	/* A memory file: nothing in /tmp changes, which would make every
	 * scope with a denial under /tmp compile afresh. */
	int fd = memfd_create("sbxout", MFD_CLOEXEC), err, status;
	pid_t pid;

	ck_assert_int_ge(fd, 0);
	sbx_file_actions_init(&fa);
	sbx_file_actions_adddup2(&fa, fd, 1);
	sbx_file_actions_adddup2(&fa, fd, 2);
	sbx_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (cwd)
		sbx_file_actions_addchdir(&fa, cwd);
	err = sbx_posix_spawnp(&pid, argv[0], &fa, NULL, scope, argv, environ);
	sbx_file_actions_destroy(&fa);
	status = err ? -1000 - err : wait_status(pid);
	if (out)
		*out = slurp_fd(fd);
	close(fd);
	if (status >= 0)
		status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return status;
}

int run_scoped(const sbx_scopeattr_t *scope, char *const argv[], char **out)
{
	return run_scoped_cwd(scope, NULL, argv, out);
}

int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n - 3; /* ., .. and the directory's own descriptor */
}

int count_zombies(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;
	char path[300], buf[512];

	while ((e = readdir(d))) {
		FILE *f;
		int ppid = 0;
		char state = 0;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		if (fgets(buf, sizeof(buf), f)) {
			char *rp = strrchr(buf, ')');

			if (rp && sscanf(rp + 2, "%c %d", &state, &ppid) == 2 && state == 'Z' &&
			    ppid == getpid())
				n++;
		}
		fclose(f);
	}
	closedir(d);
	return n;
}

int landlock_abi(void)
{
#if SBX_BUILD_LANDLOCK
	long r = syscall(444, NULL, 0, 1);

	return r > 0 ? (int)r : 0;
#else
	return 0;
#endif
}

const char *no_landlock_why(void)
{
	if (!SBX_BUILD_LANDLOCK)
		return "this build has no Landlock (portable)";
	if (syscall(444, NULL, 0, 1) < 0 && errno == ENOSYS && emulated())
		return "Landlock is not passed through by the emulator (qemu-user, valgrind: ENOSYS)";
	return "this kernel has no Landlock";
}

bool nobody_can_run(const char *path, const char *test, const char *part)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* The kernel's own answer, for that user: access(2) checks the
		 * real ids. */
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(2);
		_exit(access(path, X_OK) == 0 ? 0 : 1);
	}
	status = wait_status(pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return true;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
		say_skip("SKIP %s (%s): becoming uid 65534 needs root (setresuid: not "
		        "permitted for this user)\n", test, part);
	else
		say_skip("SKIP %s (%s): uid 65534 cannot execute %s: build where other "
		        "users may search the tree\n", test, part, path);
	return false;
}

void tree_make(struct tree *t)
{
	t->top = make_tmpdir();
	snprintf(t->projects, sizeof(t->projects), "%s/projects", t->top);
	snprintf(t->mine, sizeof(t->mine), "%s/mine", t->projects);
	snprintf(t->other, sizeof(t->other), "%s/other", t->projects);
	snprintf(t->third, sizeof(t->third), "%s/third", t->projects);
	snprintf(t->secret, sizeof(t->secret), "%s/secret", t->other);
	mkdir(t->projects, 0755);
	mkdir(t->mine, 0755);
	mkdir(t->other, 0755);
	mkdir(t->third, 0755);
	write_file(t->secret, "the-secret\n", 0644);
	write_file(join(t->mine, "file"), "mine\n", 0644);
	write_file(join(t->third, "file"), "third\n", 0644);
	write_file(join(t->projects, "README"), "readme\n", 0644);
}

void tree_free(struct tree *t)
{
	rm_rf(t->top);
	free(t->top);
}

void expand_way(sbx_scopeattr_t *scope)
{
	int flags = 0;

	ck_assert_int_eq(sbx_scopeattr_getflags(scope, &flags), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(scope, flags | SBX_SCOPE_EXPAND), 0);
}

bool hidden_way(void)
{
	sbx_outcome_t oc;

	return sbx_outcome_get(&oc) == 0 && oc.hidden > 0;
}

bool denied_verdict(const char *v)
{
	static const char *const hidden[] = { "EACCES", "ENOENT", "EROFS", "EBUSY", "EPERM", "EXDEV" };

	if (!strcmp(v, "EACCES"))
		return true;
	for (size_t i = 0; hidden_way() && i < sizeof(hidden) / sizeof(hidden[0]); i++)
		if (!strcmp(v, hidden[i]))
			return true;
	return false;
}

struct hiding_said {
	char why[1024];
};

static void on_hiding(const sbx_event_t *ev, void *arg)
{
	struct hiding_said *h = arg;

	if (ev->kind == SBX_EVENT_HIDING && !h->why[0])
		snprintf(h->why, sizeof(h->why), "%s", ev->message);
}

bool can_hide(const char *test)
{
	struct hiding_said said = { "" };
	char *top = make_tmpdir(), *argv[] = { "true", NULL };
	sbx_scopeattr_t s;
	sbx_outcome_t oc;
	pid_t pid;
	int err;

	ck_assert_int_eq(sbx_scopeattr_init(&s), 0);
	sbx_scopeattr_setlogger(&s, on_hiding, &said);
	ck_assert_int_eq(sbx_scopeattr_adddeny(&s, top), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(&s, SBX_SCOPE_HIDE), 0);
	if (!(err = sbx_posix_spawn(&pid, "/bin/true", NULL, NULL, &s, argv, environ)))
		wait_status(pid);
	sbx_scopeattr_destroy(&s);
	rm_rf(top);
	free(top);
	if (!err && sbx_outcome_get(&oc) == 0 && oc.hidden == 1)
		return true;
	/* Unavailable here (EINVAL, said): a reason to skip.  Anything else
	 * (a child that refused its covers) is the library's failure. */
	ck_assert_msg(err == EINVAL, "%s: a spawn that hides a denial: %s (%s)", test,
	              sbx_strerror(err), said.why);
	say_skip("SKIP %s (hidden): no denial can be hidden here: %s\n", test,
	         said.why[0] ? said.why : sbx_strerror(err));
	return false;
}

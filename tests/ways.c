/* SPDX-License-Identifier: MIT */
/* The spawn suites' harness (ways.h): one spawn, four ways, compared. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/ways.h"

/* Where the probe's fd 1 comes from: a descriptor the caller holds. */
#define OUTFD 100
/* Written into *pid before each spawn: still there, nothing was written. */
#define PID_UNWRITTEN ((pid_t)-4242)

static const char *const names[NWAYS] = {
	"the C library's posix_spawn",
	"sbx_posix_spawn, NULL scope",
	"sbx_posix_spawn, a scope made for the spawn",
	"sbx_posix_spawn, a compiled scope",
};

const char *way_name(enum way w)
{
	return names[w];
}

/* ---- the scopes: an unrelated directory denied --------------------------- */

static char denied[4096];
static sbx_scopeattr_t compiled;
static pid_t compiled_by;

const char *ways_denied(void)
{
	if (!denied[0]) {
		char *top = make_tmpdir();

		/* Searchable by anyone: the tests that change the effective
		 * ids compile it as another user. */
		ck_assert_int_eq(chmod(top, 0755), 0);
		snprintf(denied, sizeof(denied), "%s/elsewhere", top);
		ck_assert_int_eq(mkdir(denied, 0755), 0);
		write_file(join(denied, "secret"), "not the test's\n", 0644);
		free(top);
	}
	return denied;
}

int ways_scope_flags;

static void scope_make(sbx_scopeattr_t *s)
{
	ck_assert_int_eq(sbx_scopeattr_init(s), 0);
	ck_assert_int_eq(sbx_scopeattr_adddeny(s, ways_denied()), 0);
	ck_assert_int_eq(sbx_scopeattr_setflags(s, ways_scope_flags), 0);
	/* The notices (root, a frozen directory) are not the test's subject. */
	ck_assert_int_eq(sbx_scopeattr_setevents(s, 0), 0);
}

sbx_scopeattr_t *way_scope(enum way w)
{
	if (w != WAY_COMPILED)
		return NULL;
	/* Check runs each test in a process of its own: one compile each. */
	if (compiled_by != getpid()) {
		scope_make(&compiled);
		ck_assert_int_eq(sbx_scopeattr_compile(&compiled), 0);
		compiled_by = getpid();
	}
	return &compiled;
}

/* ---- building the same spawn for both implementations -------------------- */

void ways_init_(struct ways *d, const char *test)
{
	memset(d, 0, sizeof(*d));
	d->test = test;
	d->probe = PROBE;
	d->free_fds = -1;
	posix_spawn_file_actions_init(&d->g);
	sbx_file_actions_init(&d->s);
	posix_spawnattr_init(&d->attr);
	/* The probe reports on fd 1: the capture file, the same path each way. */
	posix_spawn_file_actions_adddup2(&d->g, OUTFD, 1);
	sbx_file_actions_adddup2(&d->s, OUTFD, 1);
	d->use_fa = true;
}

void ways_destroy(struct ways *d)
{
	posix_spawn_file_actions_destroy(&d->g);
	sbx_file_actions_destroy(&d->s);
	posix_spawnattr_destroy(&d->attr);
}

#define BOTH(gcall, scall) ck_assert_int_eq((gcall), (scall))

void w_open(struct ways *d, int fd, const char *path, int oflag, mode_t mode)
{
	BOTH(posix_spawn_file_actions_addopen(&d->g, fd, path, oflag, mode),
	     sbx_file_actions_addopen(&d->s, fd, path, oflag, mode));
}

void w_close(struct ways *d, int fd)
{
	BOTH(posix_spawn_file_actions_addclose(&d->g, fd), sbx_file_actions_addclose(&d->s, fd));
}

void w_dup2(struct ways *d, int fd, int newfd)
{
	BOTH(posix_spawn_file_actions_adddup2(&d->g, fd, newfd),
	     sbx_file_actions_adddup2(&d->s, fd, newfd));
}

void w_chdir(struct ways *d, const char *path)
{
	BOTH(posix_spawn_file_actions_addchdir_np(&d->g, path), sbx_file_actions_addchdir(&d->s, path));
}

void w_fchdir(struct ways *d, int fd)
{
	BOTH(posix_spawn_file_actions_addfchdir_np(&d->g, fd), sbx_file_actions_addfchdir(&d->s, fd));
}

void w_closefrom(struct ways *d, int from)
{
#if HAVE_DECL_POSIX_SPAWN_FILE_ACTIONS_ADDCLOSEFROM_NP
	BOTH(posix_spawn_file_actions_addclosefrom_np(&d->g, from),
	     sbx_file_actions_addclosefrom(&d->s, from));
#else
	d->lacks = "posix_spawn_file_actions_addclosefrom_np";
	ck_assert_int_eq(sbx_file_actions_addclosefrom(&d->s, from), from < 0 ? EBADF : 0);
#endif
}

void w_tcsetpgrp(struct ways *d, int fd)
{
#if HAVE_DECL_POSIX_SPAWN_FILE_ACTIONS_ADDTCSETPGRP_NP
	BOTH(posix_spawn_file_actions_addtcsetpgrp_np(&d->g, fd),
	     sbx_file_actions_addtcsetpgrp(&d->s, fd));
#else
	d->lacks = "posix_spawn_file_actions_addtcsetpgrp_np";
	ck_assert_int_eq(sbx_file_actions_addtcsetpgrp(&d->s, fd), fd < 0 ? EBADF : 0);
#endif
}

void w_flags(struct ways *d, short flags)
{
	ck_assert_int_eq(posix_spawnattr_setflags(&d->attr, flags), 0);
	d->use_attr = true;
}

/* ---- what the caller sees ------------------------------------------------ */

struct table {
	int n;
	int fd[256];
	char what[256][48];
};

static void table_read(struct table *t)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;

	ck_assert_ptr_nonnull(dir);
	t->n = 0;
	while ((e = readdir(dir)) && t->n < 256) {
		char link[64];
		ssize_t len;
		int fd = atoi(e->d_name);

		if (e->d_name[0] == '.' || fd == dirfd(dir))
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		len = readlink(link, t->what[t->n], sizeof(t->what[0]) - 1);
		t->what[t->n][len > 0 ? len : 0] = '\0';
		t->fd[t->n++] = fd;
	}
	closedir(dir);
}

static bool table_has(const struct table *t, int fd)
{
	for (int i = 0; i < t->n; i++)
		if (t->fd[i] == fd)
			return true;
	return false;
}

/* Where the library may keep descriptors: above the caller's numbers,
 * under its limit, within the first 1024 (lib/base/fds.c); nowhere where the
 * limit is below 128. */
static int keep_floor(void)
{
	struct rlimit rl;
	rlim_t top = 1024;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur < top)
		top = rl.rlim_cur;
	return top >= 128 ? (int)top - 64 : INT_MAX;
}

/* Whether what is a descriptor the library documents keeping for a scope:
 * a compiled ruleset, the mount table it watches, its inotify instance, its
 * kept namespace (the namespace, its user namespace, the root there). */
static bool kept_kind(const char *what)
{
	return strstr(what, "landlock-ruleset") || strstr(what, "mountinfo") ||
	       strstr(what, "inotify") || !strncmp(what, "mnt:[", 5) ||
	       !strncmp(what, "user:[", 6) || !strcmp(what, "/");
}

/* What changed from before to after, but what the library documents: a
 * descriptor it keeps for a scope, at or above floor, made or let go (a
 * compile made again, when the mount table changed meanwhile, replaces
 * its own).  "" when nothing. */
static char *table_change(const struct table *before, const struct table *after, int floor)
{
	char *s = calloc(1, 4096);
	size_t len = 0;

	for (int i = 0; i < after->n; i++) {
		bool kept = after->fd[i] >= floor && kept_kind(after->what[i]);

		if (!table_has(before, after->fd[i]) && !kept && len < 4000)
			len += (size_t)snprintf(s + len, 4096 - len, " +%d (%s)", after->fd[i],
			                        after->what[i]);
	}
	for (int i = 0; i < before->n; i++) {
		bool kept = before->fd[i] >= floor && kept_kind(before->what[i]);

		if (!table_has(after, before->fd[i]) && !kept && len < 4000)
			len += (size_t)snprintf(s + len, 4096 - len, " -%d (%s)", before->fd[i],
			                        before->what[i]);
	}
	return s;
}

static char *read_all(int fd)
{
	static const size_t cap = 1 << 16;
	char *buf = calloc(1, cap);
	ssize_t n = pread(fd, buf, cap - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* The library's word on the spawn must be what it returned. */
static void check_outcome(enum way w, int ret)
{
	sbx_outcome_t oc;

	ck_assert_int_eq(sbx_outcome_get(&oc), 0);
	if (ret) {
		ck_assert_msg(oc.stage != SBX_STAGE_NONE && oc.error == ret,
		              "%s returned %d (%s), and its outcome says stage %s, error %d", names[w],
		              ret, strerror(ret), sbx_stage_name(oc.stage), oc.error);
		return;
	}
	ck_assert_msg(oc.stage == SBX_STAGE_NONE && oc.error == 0,
	              "%s succeeded, and its outcome says stage %s, error %d", names[w],
	              sbx_stage_name(oc.stage), oc.error);
	if (w == WAY_NULL)
		ck_assert_int_eq(oc.confinement, SBX_OUTCOME_NONE);
	else if (landlock_abi() > 0)
		ck_assert_msg(oc.confinement == SBX_OUTCOME_CONFINED ||
		              oc.confinement == SBX_OUTCOME_NARROWED,
		              "%s: outcome %s", names[w], sbx_outcome_name(oc.confinement));
	else
		ck_assert_int_eq(oc.confinement, SBX_OUTCOME_UNCONFINED);
}

/* The highest limit that leaves nfree descriptors free below it, t being
 * what is open: the next number free is the limit itself. */
static rlim_t limit_leaving(const struct table *t, int nfree)
{
	int lim = 0;

	for (int n = 0; n < nfree || table_has(t, lim); lim++)
		n += !table_has(t, lim);
	return (rlim_t)lim;
}

static int spawn_way(struct ways *d, enum way w, bool search, const char *file,
                     char *const argv[], pid_t *pid, const sbx_scopeattr_t *scope)
{
	const posix_spawnattr_t *attr = d->use_attr ? &d->attr : NULL;
	/* environ as it is now: a setenv() since ways_init() moves it. */
	char *const *envp = d->envp_given ? d->envp : environ;

	if (w == WAY_LIBC)
		return (search ? posix_spawnp : posix_spawn)(pid, file, d->use_fa ? &d->g : NULL,
		                                             attr, argv, envp);
	return (search ? sbx_posix_spawnp : sbx_posix_spawn)(pid, file, d->use_fa ? &d->s : NULL,
	                                                     attr, scope, argv, envp);
}

static char probe_path[64];

struct way_result ways_one(struct ways *d, enum way w, bool search, const char *file,
                           char *const argv[])
{
	struct way_result r = { 0 };
	struct table before, alive, after;
	struct rlimit saved;
	sbx_scopeattr_t own;
	const sbx_scopeattr_t *scope = way_scope(w); /* compiled before the limit */
	char path[64];
	int fd, floor;
	pid_t pid = PID_UNWRITTEN;

	/* One name each way: the probe prints where its fd 1 leads.  Made
	 * new once a process (a name of the pid's could be another user's,
	 * left by a run that stopped before its unlink, as a failing test
	 * does), and the same for every way after. */
	if (!probe_path[0]) {
		snprintf(probe_path, sizeof(probe_path), "/tmp/sbxprobe.XXXXXX");
		fd = mkostemp(probe_path, O_CLOEXEC);
	} else {
		fd = open(probe_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	}
	ck_assert_int_ge(fd, 0);
	snprintf(path, sizeof(path), "%s", probe_path);
	if (fd != OUTFD) {
		ck_assert_int_eq(dup3(fd, OUTFD, O_CLOEXEC), OUTFD);
		close(fd);
	}
	/* A scope of the spawn's own: made for it, or with a TMPDIR (a
	 * compiled one then compiled here). */
	if (w == WAY_FRESH || (w == WAY_COMPILED && d->tmpdir)) {
		scope_make(&own);
		if (d->tmpdir)
			ck_assert_int_eq(sbx_scopeattr_settmpdir(&own, d->tmpdir), 0);
		if (w == WAY_COMPILED)
			ck_assert_int_eq(sbx_scopeattr_compile(&own), 0);
		scope = &own;
	}
	table_read(&before);
	if (d->free_fds >= 0) {
		struct rlimit rl;

		ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &saved), 0);
		rl = (struct rlimit){ limit_leaving(&before, d->free_fds), saved.rlim_max };
		ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
	floor = keep_floor();
	r.ret = spawn_way(d, w, search, file, argv, &pid, scope);
	if (d->free_fds >= 0)
		ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &saved), 0);
	if (w != WAY_LIBC)
		check_outcome(w, r.ret);
	r.pid_written = pid != PID_UNWRITTEN;
	ck_assert_msg(r.ret || pid > 0, "%s returned 0 and wrote pid %ld", names[w], (long)pid);
	r.status = r.ret ? -1 : wait_status(pid);
	table_read(&alive);
	if (w == WAY_FRESH)
		sbx_scopeattr_destroy(&own);
	table_read(&after);
	if (w == WAY_COMPILED && d->tmpdir)
		sbx_scopeattr_destroy(&own);
	/* Alive, a scope keeps descriptors only out of the caller's way
	 * (the process's compiled one stays alive); destroyed, none. */
	r.table_change = table_change(&before, &alive, floor);
	if (!*r.table_change && (w != WAY_COMPILED || d->tmpdir)) {
		free(r.table_change);
		r.table_change = table_change(&before, &after, INT_MAX);
	}
	r.next_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (r.next_fd >= 0)
		close(r.next_fd);
	r.out = read_all(OUTFD);
	close(OUTFD);
	unlink(path);
	return r;
}

void way_result_free(struct way_result *r)
{
	free(r->out);
	free(r->table_change);
}

/* The first line where a and b differ, each as it is there (Check's
 * messages have a limit: whole outputs do not fit). */
static void first_difference(const char *a, const char *b, char *al, char *bl, size_t size)
{
	while (*a && *a == *b) {
		const char *na = strchr(a, '\n'), *nb = strchr(b, '\n');
		size_t la = na ? (size_t)(na - a) : strlen(a), lb = nb ? (size_t)(nb - b) : strlen(b);

		if (la != lb || memcmp(a, b, la))
			break;
		a += la + (na != NULL);
		b += lb + (nb != NULL);
	}
	snprintf(al, size, "%.*s", (int)strcspn(a, "\n"), *a ? a : "(the end)");
	snprintf(bl, size, "%.*s", (int)strcspn(b, "\n"), *b ? b : "(the end)");
}

static void agree(const struct way_result *g, const struct way_result *s, enum way w)
{
	ck_assert_msg(s->ret == g->ret, "%s returned %d (%s), %s %d (%s)", names[w], s->ret,
	              strerror(s->ret), names[WAY_LIBC], g->ret, strerror(g->ret));
	ck_assert_msg(s->pid_written == g->pid_written, "%s %s *pid, %s %s it", names[w],
	              s->pid_written ? "wrote" : "left", names[WAY_LIBC],
	              g->pid_written ? "wrote" : "left");
	ck_assert_msg(s->status == g->status, "%s: status %#x, %s: %#x", names[w], s->status,
	              names[WAY_LIBC], g->status);
	if (strcmp(s->out, g->out)) {
		char sl[512], gl[512];

		first_difference(s->out, g->out, sl, gl, sizeof(sl));
		ck_abort_msg("%s: the child printed \"%s\" where with %s it printed \"%s\"",
		             names[w], sl, names[WAY_LIBC], gl);
	}
	ck_assert_msg(s->next_fd == g->next_fd, "%s: the caller's next open() gave %d, %s: %d",
	              names[w], s->next_fd, names[WAY_LIBC], g->next_fd);
}

char *ways_run(struct ways *d, bool search, const char *file, char *const argv[], int want_ret)
{
	struct way_result r[NWAYS];
	enum way first = WAY_LIBC;
	char *out;

	if (d->lacks) {
		say_skip("SKIP %s (the comparison with the C library): it has no %s; "
		        "the library's three ways are compared with each other and the test's "
		        "expectations\n", d->test, d->lacks);
		first = WAY_NULL;
	} else if (want_ret && emulated()) {
		say_skip("SKIP %s (the comparison of a failure with the C library): "
		        "under the emulator (qemu-user) its posix_spawn cannot tell a failed "
		        "child\n", d->test);
		first = WAY_NULL;
	}
	for (enum way w = first; w < NWAYS; w++) {
		r[w] = ways_one(d, w, search, file, argv);
		ck_assert_msg(r[w].ret == want_ret, "%s returned %d (%s), the test expects %d (%s)",
		              names[w], r[w].ret, strerror(r[w].ret), want_ret, strerror(want_ret));
		ck_assert_msg(!*r[w].table_change, "%s changed the caller's descriptors:%s", names[w],
		              r[w].table_change);
	}
	for (enum way w = first + 1; w < NWAYS; w++)
		agree(&r[first], &r[w], w);
	out = r[first].out;
	r[first].out = NULL;
	for (enum way w = first; w < NWAYS; w++)
		way_result_free(&r[w]);
	return out;
}

char *ways_probe(struct ways *d)
{
	char *argv[] = { "probe", "a b", NULL };

	return ways_run(d, false, d->probe, argv, 0);
}

const char *probe_for_anyone(void)
{
	static char path[4096];
	char *dir = make_tmpdir();
	int in = open(PROBE, O_RDONLY | O_CLOEXEC), out;
	char buf[65536];
	ssize_t n;

	ck_assert_int_eq(chmod(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/probe", dir);
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	ck_assert_int_ge(in, 0);
	ck_assert_int_ge(out, 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		ck_assert_int_eq(write(out, buf, (size_t)n), n);
	ck_assert_int_eq(n, 0);
	close(in);
	close(out);
	free(dir);
	return path;
}

bool child_sees_as_given(const char *test)
{
	if (!emulated())
		return true;
	say_skip("SKIP %s (what the child sees of its argv[0] and environment, held to what "
	         "was passed): the emulator (qemu-user) rewrites them, argv[0] to the program's "
	         "path, the environment without duplicates or entries lacking '=', in another "
	         "order; the ways are compared with each other\n", test);
	return false;
}

bool libc_tells_failures(const char *test)
{
	if (!emulated())
		return true;
	say_skip("SKIP %s (the C library's posix_spawn beside the library's, for a child that "
	         "fails): under the emulator (qemu-user) it cannot tell a failed child\n", test);
	return false;
}

void assert_has(const char *out, const char *needle)
{
	ck_assert_msg(strstr(out, needle) != NULL, "expected \"%s\" in:\n%s", needle, out);
}

void assert_lacks(const char *out, const char *needle)
{
	ck_assert_msg(strstr(out, needle) == NULL, "did not expect \"%s\" in:\n%s", needle, out);
}

/* SPDX-License-Identifier: MIT */
/*
 * The spawn section: spawn and wait of /bin/true every way there is (the
 * C library's posix_spawn, fork and exec, sbx_posix_spawn with each scope,
 * and launchers given the same denial), set up once in spawn_rows[] for
 * the other sections to reuse.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "lib/internal.h"
#include "harness.h"
#include "fixture.h"
#include "sections.h"

#define TRUE_PATH "/bin/true"

/* ---- ways to spawn /bin/true ------------------------------------------ */

static char env_path[] = "PATH=/usr/bin:/bin";
char *child_env[] = { env_path, NULL };

static int spawn_posix(const struct variant *v, pid_t *pid)
{
	return posix_spawn(pid, v->argv[0], NULL, NULL, v->argv, v->envp);
}

static int spawn_fork(const struct variant *v, pid_t *pid)
{
	pid_t p = fork();

	if (p < 0)
		return errno;
	if (p == 0) {
		execve(v->argv[0], v->argv, v->envp);
		_exit(127);
	}
	*pid = p;
	return 0;
}

int spawn_sbx(const struct variant *v, pid_t *pid)
{
	return sbx_posix_spawn(pid, v->argv[0], NULL, NULL, v->scope, v->argv, v->envp);
}

long spawn_rules(const sbx_scopeattr_t *s)
{
	struct variant v = { .spawn = spawn_sbx, .scope = s, .argv = spawn_rows[V_POSIX].argv,
	                     .envp = child_env };

	trial(&v);
	if (v.skip[0])
		die("spawn with a scope %s", v.skip);
	return v.rules;
}

/* The floor of a compiled scope: the very ruleset its compile made
 * (read from the scope, which this in-tree bench may), applied in a vfork
 * child by the two calls Landlock needs, then the exec.  What the library
 * does beyond it (signals, the filter, checks) is its gap. */
enum floor_duties { FLOOR_BARE, FLOOR_SIGNALS, FLOOR_FILTER };

static int floor_spawn(const struct variant *v, pid_t *pid, enum floor_duties duties)
{
	const struct sbx_ruleset *rs = v->scope->__scope->snapshot;
	int fd = rs ? rs->fd : -1;
	pid_t p;

	if (fd < 0 || (duties == FLOOR_FILTER && !rs->filter))
		return EINVAL;
	p = vfork();
	if (p < 0)
		return errno;
	if (p == 0) {
		/* Duties: what posix_spawn owes its caller (each signal's
		 * disposition looked at, to reset a handler) and the scope the
		 * child (the seccomp filter: its terminal, other processes,
		 * keyrings). */
		for (int sig = 1; duties != FLOOR_BARE && sig < 65; sig++) {
			char old[32];

			syscall(SYS_rt_sigaction, sig, NULL, old, 8);
		}
		if (!syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) &&
		    !syscall(__NR_landlock_restrict_self, fd, 0) &&
		    (duties != FLOOR_FILTER ||
		     !syscall(SYS_seccomp, 1 /* SET_MODE_FILTER */, 0, rs->filter)))
			syscall(SYS_execve, v->argv[0], v->argv, v->envp);
		syscall(SYS_exit, 127);
	}
	*pid = p;
	return 0;
}

static int spawn_floor(const struct variant *v, pid_t *pid)
{
	return floor_spawn(v, pid, FLOOR_BARE);
}

static int spawn_floor_signals(const struct variant *v, pid_t *pid)
{
	return floor_spawn(v, pid, FLOOR_SIGNALS);
}

static int spawn_floor_duties(const struct variant *v, pid_t *pid)
{
	return floor_spawn(v, pid, FLOOR_FILTER);
}

/* A caller that builds its scope for the one spawn: nothing compiled
 * before can be reused, so this pays for a whole compile every time. */
int spawn_sbx_new(const struct variant *v, pid_t *pid)
{
	sbx_scopeattr_t s;
	int err;

	scope_make(&s, v->deny, v->ndeny, false);
	err = sbx_posix_spawn(pid, v->argv[0], NULL, NULL, &s, v->argv, v->envp);
	sbx_scopeattr_destroy(&s);
	return err;
}

/* ---- the launchers ---------------------------------------------------- */

/* A launcher's own words on stderr (a banner, a hint) go nowhere, the same
 * for every launcher row: a file action each. */
static int spawn_quiet(const struct variant *v, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	int err = posix_spawn_file_actions_init(&fa);

	if (!err)
		err = posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (!err)
		err = posix_spawn(pid, v->argv[0], &fa, NULL, v->argv, v->envp);
	posix_spawn_file_actions_destroy(&fa);
	return err;
}

/* An uninstalled program is a libtool wrapper script, and timing it would
 * time a shell: run the real binary beside it instead, with the directory
 * the wrapper would have put on LD_LIBRARY_PATH. */
static char *launcher_binary(const char *path, char **ldpath)
{
	char head[2] = { 0 }, real[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Dl_info info;

	*ldpath = NULL;
	if (fd < 0)
		return NULL;
	if (read(fd, head, 2) != 2)
		head[0] = '\0';
	close(fd);
	if (head[0] != '#' || head[1] != '!')
		return xstrdup(path);
	snprintf(real, sizeof(real), "%.*s.libs/%s", slash ? (int)(slash - path + 1) : 0, path,
	         slash ? slash + 1 : path);
	if (access(real, X_OK) || !dladdr((void *)&sbx_posix_spawn, &info) || !info.dli_fname)
		return NULL;
	*ldpath = xrealloc(NULL, PATH_MAX + 32);
	snprintf(*ldpath, PATH_MAX + 32, "LD_LIBRARY_PATH=%s", info.dli_fname);
	if (strrchr(*ldpath, '/'))
		*strrchr(*ldpath, '/') = '\0';
	return xstrdup(real);
}

static const char *find_in_path(const char *name)
{
	static char found[PATH_MAX];
	const char *path = getenv("PATH");
	char dirs[4096];

	snprintf(dirs, sizeof(dirs), "%s:/usr/bin:/bin:/usr/local/bin", path ? path : "");
	for (char *d = strtok(dirs, ":"); d; d = strtok(NULL, ":")) {
		snprintf(found, sizeof(found), "%s/%s", d, name);
		if (*d && !access(found, X_OK))
			return found;
	}
	return NULL;
}

/* sbxrun with the denials, or with none (what the launcher costs beside
 * the compile: loading, options, the empty scope, its exec); exec: with
 * --keep-tree, which leaves no sbxrun behind to end the command's tree
 * (it becomes the command, in the shape of the kernel's sample). */
static void setup_sbxrun(struct variant *v, bool deny, bool exec)
{
	char *ldpath, *bin = launcher_binary(opt.sbxrun, &ldpath);

	if (!bin) {
		snprintf(v->skip, sizeof(v->skip), "%s not built", opt.sbxrun);
		return;
	}
	v->argv = argv_new(bin, "--quiet", NULL);
	if (exec)
		argv_push(&v->argv, "--keep-tree");
	for (int i = 0; deny && i < 4; i++) {
		argv_push(&v->argv, "--deny");
		argv_push(&v->argv, deny_home[i]);
	}
	argv_push(&v->argv, "--");
	argv_push(&v->argv, TRUE_PATH);
	v->envp = argv_new(env_path, ldpath, NULL);
	free(bin);
	free(ldpath);
}

/* Two plain execs: the lightest launcher there is (a program that only
 * execs its arguments, built as sbxrun is), what sbxrun with no scope is
 * held to. */
static void setup_exec2(struct variant *v)
{
	if (access(opt.execer, X_OK)) {
		snprintf(v->skip, sizeof(v->skip), "%s not built", opt.execer);
		return;
	}
	v->argv = argv_new(opt.execer, TRUE_PATH, NULL);
}

/* The same denial: an empty tmpfs over each denied path. */
static void setup_bwrap(struct variant *v)
{
	const char *bwrap = find_in_path("bwrap");

	if (!bwrap) {
		snprintf(v->skip, sizeof(v->skip), "bwrap not installed");
		return;
	}
	v->argv = argv_new(bwrap, "--dev-bind", "/", "/", NULL);
	for (int i = 0; i < 4; i++) {
		argv_push(&v->argv, "--tmpfs");
		argv_push(&v->argv, deny_home[i]);
	}
	argv_push(&v->argv, "--");
	argv_push(&v->argv, TRUE_PATH);
}

/* ---- section: spawn ---------------------------------------------------- */

sbx_scopeattr_t home_fresh, home_once, home_kept, home_offline, wide_fresh, wide_once;

struct variant spawn_rows[V_COUNT];

void setup_spawn_rows(void)
{
	struct variant *v = spawn_rows;
	char **argv = argv_new(TRUE_PATH, NULL);

	v[V_POSIX] = (struct variant){ .name = "posix_spawn (glibc)", .spawn = spawn_posix };
	v[V_FORK] = (struct variant){ .name = "fork + exec", .spawn = spawn_fork };
	v[V_SBX_NULL] = (struct variant){ .name = "sbx_posix_spawn, NULL scope", .spawn = spawn_sbx };
	v[V_HOME_NEW] = (struct variant){ .name = "sbx ~100 rules: new scope per spawn",
	                                  .spawn = spawn_sbx_new, .deny = deny_home, .ndeny = 4 };
	v[V_HOME_FRESH] = (struct variant){ .name = "sbx ~100 rules: fresh (plain spawn)",
	                                    .spawn = spawn_sbx, .scope = &home_fresh };
	v[V_HOME_ONCE] = (struct variant){ .name = "sbx ~100 rules: compiled once",
	                                   .spawn = spawn_sbx, .scope = &home_once };
	v[V_HOME_FLOOR] = (struct variant){ .name = "floor: vfork+restrict+exec, same rules",
	                                    .spawn = spawn_floor, .scope = &home_once };
	v[V_HOME_FLOOR_SIGNALS] = (struct variant){ .name = "floor + signals",
	                                            .spawn = spawn_floor_signals,
	                                            .scope = &home_once };
	v[V_HOME_FLOOR_DUTIES] = (struct variant){ .name = "floor + signals + filter",
	                                           .spawn = spawn_floor_duties,
	                                           .scope = &home_once };
	v[V_HOME_KEPT] = (struct variant){ .name = "sbx ~100 rules: compiled, keyrings+processes kept",
	                                   .spawn = spawn_sbx, .scope = &home_kept };
	v[V_HOME_OFFLINE] = (struct variant){ .name = "sbx ~100 rules: compiled, no network",
	                                      .spawn = spawn_sbx, .scope = &home_offline };
	v[V_WIDE_NEW] = (struct variant){ .name = "sbx ~1000 rules: new scope per spawn",
	                                  .spawn = spawn_sbx_new, .deny = deny_wide, .ndeny = 1 };
	v[V_WIDE_FRESH] = (struct variant){ .name = "sbx ~1000 rules: fresh (plain spawn)",
	                                    .spawn = spawn_sbx, .scope = &wide_fresh };
	v[V_WIDE_ONCE] = (struct variant){ .name = "sbx ~1000 rules: compiled once",
	                                   .spawn = spawn_sbx, .scope = &wide_once };
	v[V_EXEC2] = (struct variant){ .name = "two plain execs (exec, then true)",
	                               .spawn = spawn_quiet };
	v[V_SBXRUN_BARE] = (struct variant){ .name = "sbxrun -- true (no scope)",
	                                     .spawn = spawn_quiet };
	v[V_SBXRUN] = (struct variant){ .name = "sbxrun --deny x4 -- true", .spawn = spawn_quiet };
	v[V_SBXRUN_EXEC] = (struct variant){ .name = "sbxrun --keep-tree --deny x4 -- true",
	                                     .spawn = spawn_quiet };
	v[V_SAMPLE] = (struct variant){ .name = "Landlock sample sandboxer, allow list",
	                                .spawn = spawn_quiet };
	v[V_BWRAP] = (struct variant){ .name = "bwrap --tmpfs x4 -- true", .spawn = spawn_quiet };
	for (int i = 0; i < V_COUNT; i++) {
		v[i].argv = argv;
		v[i].envp = child_env;
	}
	setup_exec2(&v[V_EXEC2]);
	setup_sbxrun(&v[V_SBXRUN_BARE], false, false);
	setup_sbxrun(&v[V_SBXRUN], true, false);
	setup_sbxrun(&v[V_SBXRUN_EXEC], true, true);
	setup_sample(&v[V_SAMPLE], deny_home, 4);
	setup_bwrap(&v[V_BWRAP]);
	for (int i = 0; i < V_COUNT; i++)
		trial(&v[i]);
	v[V_HOME_FLOOR].rules = v[V_HOME_ONCE].rules; /* the same ruleset */
	v[V_HOME_FLOOR_SIGNALS].rules = v[V_HOME_ONCE].rules;
	v[V_HOME_FLOOR_DUTIES].rules = v[V_HOME_ONCE].rules;
}

static void print_spawn_row(const struct variant *v, const char *target, const char *verdict)
{
	const struct variant *base = &spawn_rows[V_POSIX];
	double x = paired(&v->t, &base->t), xc = paired(&v->cpu, &base->cpu);
	struct row r = { .section = "spawn", .name = v->name, .param = NAN, .s = &v->t,
	                 .unit = "ns", .ratio = x, .ratio_to = "posix_spawn (paired)",
	                 .rules = v->rules, .target = target, .verdict = verdict };
	char rules[24] = "", cpu_name[96];

	if (v->skip[0]) {
		printf("  %-40s %s\n", v->name, v->skip);
		csv_row(&(struct row){ .section = "spawn", .name = v->name, .param = NAN,
		                       .value = NAN, .unit = "ns", .ratio = NAN, .rules = -1,
		                       .target = v->skip });
		return;
	}
	if (v->rules >= 0)
		snprintf(rules, sizeof(rules), "%ld", v->rules);
	printf("  %-40s %8.1f %7.1f %8.1f %7.1f %6.2fx %6.2fx %5s  %s%s%s\n", v->name,
	       median(&v->t) / 1e3, pct(&v->t, 10) / 1e3, median(&v->cpu) / 1e3,
	       pct(&v->cpu, 10) / 1e3, x, xc, rules, target ? target : "", target ? ": " : "",
	       verdict ? verdict : "");
	csv_row(&r);
	snprintf(cpu_name, sizeof(cpu_name), "%s (cpu)", v->name);
	csv_row(&(struct row){ .section = "spawn", .name = cpu_name, .param = NAN, .s = &v->cpu,
	                       .unit = "ns cpu", .ratio = xc, .ratio_to = "posix_spawn cpu (paired)",
	                       .rules = v->rules });
}

/* Paired ratios of two rows, wall and processor time, NAN where either was
 * not measured. */
static double row_ratio(int a, int b)
{
	if (spawn_rows[a].skip[0] || spawn_rows[b].skip[0])
		return NAN;
	return paired(&spawn_rows[a].t, &spawn_rows[b].t);
}

static double row_cpu(int a, int b)
{
	if (spawn_rows[a].skip[0] || spawn_rows[b].skip[0])
		return NAN;
	return paired(&spawn_rows[a].cpu, &spawn_rows[b].cpu);
}

/* What the rows mean, and the ratios that explain them. */
static void spawn_notes(void)
{
	printf("  new scope per spawn: a scope made for the one spawn, so a whole compile each"
	       " time;\n  fresh (plain spawn): one scope kept, never sbx_scopeattr_compile()d:"
	       " the library\n  may reuse an unchanged compile; compiled once:"
	       " sbx_scopeattr_compile() first.\n");
	printf("  compiled once against its floor: %.2fx; against the floor with the duties a spawn"
	       " has\n  (signals looked at as posix_spawn does, the seccomp filter): %.2fx, the"
	       " library's own\n",
	       row_ratio(V_HOME_ONCE, V_HOME_FLOOR), row_ratio(V_HOME_ONCE, V_HOME_FLOOR_DUTIES));
	printf("  the seccomp filter of every scoped child (terminal, other processes, keyrings,"
	       " mounts,\n  queues), built once per process: installed and passed by every call of the child,"
	       " %.3fx wall, %.3fx cpu\n  (floor + signals + filter against floor + signals)\n",
	       row_ratio(V_HOME_FLOOR_DUTIES, V_HOME_FLOOR_SIGNALS),
	       row_cpu(V_HOME_FLOOR_DUTIES, V_HOME_FLOOR_SIGNALS));
	printf("  what a flag keeps (keyrings, other processes: fifteen filter rules a call"
	       " passes by):\n  compiled once against the same scope keeping them, %.2fx\n",
	       row_ratio(V_HOME_ONCE, V_HOME_KEPT));
	printf("  no network (its socket and ioctl rules, io_uring closed) against the same scope"
	       " without it:\n  %.3fx wall, %.3fx cpu\n",
	       row_ratio(V_HOME_OFFLINE, V_HOME_ONCE), row_cpu(V_HOME_OFFLINE, V_HOME_ONCE));
	printf("  compiled once against NULL scope (the ruleset applied in the child): %.2fx"
	       " (~100 rules), %.2fx (~1000)\n",
	       row_ratio(V_HOME_ONCE, V_SBX_NULL), row_ratio(V_WIDE_ONCE, V_SBX_NULL));
	printf("  fresh against new scope per spawn (what reuse saves): %.2fx (~100), %.2fx"
	       " (~1000)\n",
	       row_ratio(V_HOME_FRESH, V_HOME_NEW), row_ratio(V_WIDE_FRESH, V_WIDE_NEW));
	if (!spawn_rows[V_SBXRUN].skip[0])
		printf("  sbxrun: its own start and exec against posix_spawn %.2fx, its compile"
		       " of the denials %.2fx more;\n  with no scope against two plain execs %.2fx"
		       " wall, %.2fx cpu\n",
		       row_ratio(V_SBXRUN_BARE, V_POSIX),
		       row_ratio(V_SBXRUN, V_POSIX) - row_ratio(V_SBXRUN_BARE, V_POSIX),
		       row_ratio(V_SBXRUN_BARE, V_EXEC2), row_cpu(V_SBXRUN_BARE, V_EXEC2));
	if (!spawn_rows[V_SBXRUN].skip[0] && !spawn_rows[V_SAMPLE].skip[0])
		printf("  sbxrun with the denials against the kernel's sample given their grants as"
		       " an allow list:\n  %.3fx wall, %.3fx cpu\n",
		       row_ratio(V_SBXRUN, V_SAMPLE), row_cpu(V_SBXRUN, V_SAMPLE));
	if (!spawn_rows[V_SBXRUN_EXEC].skip[0] && !spawn_rows[V_SAMPLE].skip[0])
		printf("  the same with --keep-tree (sbxrun becomes the command, as the sample does;"
		       " no sbxrun\n  stays to end its tree): %.3fx wall, %.3fx cpu\n",
		       row_ratio(V_SBXRUN_EXEC, V_SAMPLE), row_cpu(V_SBXRUN_EXEC, V_SAMPLE));
	if (!spawn_rows[V_BWRAP].skip[0])
		printf("  bwrap against posix_spawn itself: %.2fx, the most any way of spawning "
		       TRUE_PATH " can gain on it here\n",
		       row_ratio(V_BWRAP, V_POSIX));
}

void spawn_section(void)
{
	struct variant *v = spawn_rows;
	int n = rounds(300);
	double once, fresh, fresh_new, bwrap, sbxrun, bare;
	const char *vo, *vf, *vn, *vb, *vs, *vbare;
	char tb[64];

	measure(v, V_COUNT, n);
	printf("\nspawn and wait of " TRUE_PATH ": %d rounds, variants interleaved; x posix is"
	       " the median\n  of the ratios of each round (paired), of wall time and of processor"
	       " time (the spawner's\n  and the child's); launchers' stderr to /dev/null\n", n);
	printf("  %-40s %8s %7s %8s %7s %7s %7s %5s  %s\n", "", "wall us", "p10", "cpu us", "p10",
	       "x posix", "x cpu", "rules", "target");

	once = row_ratio(V_HOME_ONCE, V_HOME_FLOOR);
	fresh = row_ratio(V_HOME_FRESH, V_POSIX);
	fresh_new = row_ratio(V_HOME_NEW, V_POSIX);
	bwrap = row_ratio(V_BWRAP, V_HOME_FRESH);
	vo = judge(once, TARGET_ONCE, false,
	           "~100 rules compiled once: %.3fx its floor, the same ruleset applied by hand"
	           " (<= %.2fx)",
	           once, TARGET_ONCE);
	vf = judge(fresh, TARGET_FRESH, false,
	           "~100 rules fresh at each spawn (plain sbx_posix_spawn): %.3fx posix_spawn"
	           " (<= %.2fx)",
	           fresh, TARGET_FRESH);
	vn = judge(fresh_new, TARGET_NEW, false,
	           "~100 rules, a new scope per spawn (a whole compile): %.2fx posix_spawn (<= %.1fx)",
	           fresh_new, TARGET_NEW);
	/* Judged on processor time, which another process's load moves least;
	 * wall time is printed beside it. */
	sbxrun = row_cpu(V_SBXRUN, V_SAMPLE);
	vs = isnan(sbxrun) ? NULL
	                   : judge(sbxrun, TARGET_SBXRUN, false,
	                           "sbxrun with the denials: %.3fx the kernel's sample given the"
	                           " same grants (cpu; wall %.3fx) (<= %.1fx)",
	                           sbxrun, row_ratio(V_SBXRUN, V_SAMPLE), TARGET_SBXRUN);
	bare = row_cpu(V_SBXRUN_BARE, V_EXEC2);
	vbare = isnan(bare) ? NULL
	                    : judge(bare, TARGET_SBXRUN_BARE, false,
	                            "sbxrun with no scope: %.3fx two plain execs (cpu; wall %.3fx)"
	                            " (<= %.1fx)",
	                            bare, row_ratio(V_SBXRUN_BARE, V_EXEC2), TARGET_SBXRUN_BARE);
	if (v[V_BWRAP].skip[0])
		vb = NULL;
	else
		vb = judge(bwrap, TARGET_BWRAP, true,
		           "bwrap takes %.1fx the time of sbx with the same denial, per spawn (>= %.0fx)",
		           bwrap, TARGET_BWRAP);
	snprintf(tb, sizeof(tb), "%.1fx sbx fresh, >= %.0fx", bwrap, TARGET_BWRAP);

	for (int i = 0; i < V_COUNT; i++) {
		const char *target = NULL, *verdict = NULL;

		if (i == V_HOME_ONCE) {
			target = "<= 1.05x floor";
			verdict = vo;
		} else if (i == V_HOME_FRESH) {
			target = "<= 1.25x";
			verdict = vf;
		} else if (i == V_HOME_NEW) {
			target = "<= 2.0x";
			verdict = vn;
		} else if (i == V_SBXRUN && vs) {
			target = "<= 1.0x sample";
			verdict = vs;
		} else if (i == V_SBXRUN_BARE && vbare) {
			target = "<= 1.1x 2 execs";
			verdict = vbare;
		} else if (i == V_BWRAP && vb) {
			target = tb;
			verdict = vb;
		}
		print_spawn_row(&v[i], target, verdict);
	}
	spawn_notes();
}

/* SPDX-License-Identifier: MIT */
/*
 * The hide section: denials hidden in the child's own mount namespace
 * beside the same denials expanded, compiled once and new at each spawn,
 * against posix_spawn in the same rounds; and one hidden denial beside 60
 * entries and beside 1,000, whose cost must not grow with them (nothing
 * above a hidden denial is listed); and the floor of the hidden one: what
 * the kernel alone takes to do what its child does, so that what the
 * library adds shows apart from what the namespace costs.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "lib/internal.h"
#include "lib/confine.h"

#include "harness.h"
#include "fixture.h"
#include "sections.h"

enum {
	H_POSIX,
	H_EXP_ONCE,
	H_HIDE_ONCE,
	H_HIDE_FLOOR,
	H_KEPT_FLOOR,
	H_EXP_NEW,
	H_HIDE_NEW,
	H_ONE_60,
	H_ONE_1000,
	H_AGENT_EXP,
	H_AGENT_HIDE,
	H_RO_EXP,
	H_RO_SEAL,
	H_COUNT
};

static sbx_scopeattr_t hide_once, one_60, one_1000, agent_exp, agent_hide, ro_exp, ro_seal;

/* The agent's scope: the home denied, one project in it re-admitted (bound
 * back into the cover, hidden; expanded, every directory above the home
 * frozen), compiled once. */
static void agent(sbx_scopeattr_t *s, int flags, struct variant *v)
{
	char home[PATH_MAX], proj[PATH_MAX];

	join(home, fixture_root, "home");
	join(proj, home, "projects/p0001");
	scope_make_way(s, (char *[]){ home }, 1, false, flags);
	if (sbx_scopeattr_addallow(s, proj) || sbx_scopeattr_compile(s))
		snprintf(v->skip, sizeof(v->skip), "not measured: the scope did not compile%s",
		         flags & SBX_SCOPE_HIDE ? " hidden (sbxrun --status)" : "");
}

/* The agent's scope made read-only: the home read-only, its .ssh denied,
 * one project re-admitted (sealed: the home bound on itself read-only, the
 * project bound back into it; expanded, every directory above the home
 * frozen), compiled once. */
static void agent_ro(sbx_scopeattr_t *s, int flags, struct variant *v)
{
	char home[PATH_MAX], proj[PATH_MAX];
	const struct sbx_ruleset *rs;
	size_t seals = 0;

	join(home, fixture_root, "home");
	join(proj, home, "projects/p0001");
	scope_make_way(s, &deny_home[3], 1, false, flags);
	if (sbx_scopeattr_addreadonly(s, home) || sbx_scopeattr_addallow(s, proj) ||
	    sbx_scopeattr_compile(s)) {
		snprintf(v->skip, sizeof(v->skip), "not measured: the scope did not compile");
		return;
	}
	for (size_t i = 0; (rs = s->__scope->snapshot) && i < rs->ncovers; i++)
		seals += rs->covers[i].ro;
	if ((flags & SBX_SCOPE_HIDE) && !seals)
		snprintf(v->skip, sizeof(v->skip), "not measured: the home is not sealed here");
}

static int spawn_hidden_new(const struct variant *v, pid_t *pid)
{
	sbx_scopeattr_t s;
	int err;

	scope_make_way(&s, v->deny, v->ndeny, false, 0);
	err = sbx_posix_spawn(pid, v->argv[0], NULL, NULL, &s, v->argv, v->envp);
	sbx_scopeattr_destroy(&s);
	return err;
}

/* A namespace made by hand, as each child made its own before the library
 * kept one: a hidden denial's very ruleset (read from the scope, which this
 * in-tree bench may), applied in a vfork child by the calls the kernel
 * needs: a mount namespace made private, an empty tmpfs (a bind of
 * /dev/null for a file) over each denial, a recursive bind of each
 * directory above that is no mount point, the domain and the filter, the
 * exec.  What that costs over the kept floor is what keeping saves. */
static int spawn_hidden_floor(const struct variant *v, pid_t *pid)
{
	const struct sbx_ruleset *rs = v->scope->__scope->snapshot;
	pid_t p;

	if (!rs || rs->fd < 0 || !rs->ncovers || !rs->filter)
		return EINVAL;
	p = vfork();
	if (p < 0)
		return errno;
	if (p == 0) {
		bool ok = !unshare(CLONE_NEWNS) &&
		          !mount(NULL, "/", NULL, MS_REC | MS_PRIVATE | MS_SILENT, NULL);

		for (size_t i = 0; ok && i < rs->ncovers; i++)
			ok = rs->covers[i].ro
			             ? !mount(rs->covers[i].path, rs->covers[i].path, NULL,
			                      MS_BIND | MS_SILENT, NULL) &&
			               !mount(NULL, rs->covers[i].path, NULL,
			                      MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NODEV | MS_SILENT, NULL)
			     : rs->covers[i].dir
			             ? !mount("floor", rs->covers[i].path, "tmpfs",
			                      MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_SILENT,
			                      "mode=0")
			             : !mount("/dev/null", rs->covers[i].path, NULL, MS_BIND, NULL);
		for (size_t i = 0; ok && i < rs->npins; i++)
			ok = !mount(rs->pins[i], rs->pins[i], NULL, MS_BIND | MS_REC | MS_SILENT, NULL);
		if (ok && !syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) &&
		    !syscall(__NR_landlock_restrict_self, rs->fd, 0) &&
		    !syscall(SYS_seccomp, 1 /* SET_MODE_FILTER */, 0, rs->filter))
			syscall(SYS_execve, v->argv[0], v->argv, v->envp);
		syscall(SYS_exit, 127);
	}
	*pid = p;
	return 0;
}

/* The floor of a namespace kept (lib/cache/hidens.c): the one the library keeps
 * for the scope, entered by hand (its root, then the working directory by
 * its path), then the domain and the filter, the exec.  The library keeps
 * it at a ruleset's second spawn: one is made first where it has none. */
static int spawn_kept_floor(const struct variant *v, pid_t *pid)
{
	const struct sbx_ruleset *rs = v->scope->__scope->snapshot;
	static char cwd[4096];
	pid_t p;

	for (int i = 0; rs && !rs->ns && i < 2; i++)
		if (spawn_sbx(v, &p) == 0)
			waitpid(p, NULL, 0);
	if (!rs || !rs->ns || rs->fd < 0 || !rs->filter || !getcwd(cwd, sizeof(cwd)))
		return EINVAL;
	p = vfork();
	if (p < 0)
		return errno;
	if (p == 0) {
		const struct keptns *k = rs->ns;

		if ((k->user < 0 || !syscall(SYS_setns, k->user, CLONE_NEWUSER)) &&
		    !syscall(SYS_setns, k->mnt, CLONE_NEWNS) && !syscall(SYS_fchdir, k->root) &&
		    !syscall(SYS_chroot, ".") && !syscall(SYS_chdir, cwd) &&
		    !syscall(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) &&
		    !syscall(__NR_landlock_restrict_self, rs->fd, 0) &&
		    !syscall(SYS_seccomp, 1 /* SET_MODE_FILTER */, 0, rs->filter))
			syscall(SYS_execve, v->argv[0], v->argv, v->envp);
		syscall(SYS_exit, 127);
	}
	*pid = p;
	return 0;
}

/* Hidden, or the row says why not (the scope fails where a denial cannot
 * be hidden). */
static void hidden(sbx_scopeattr_t *s, char *const *deny, int n, struct variant *v)
{
	scope_make_way(s, deny, n, false, SBX_SCOPE_HIDE);
	if (sbx_scopeattr_compile(s))
		snprintf(v->skip, sizeof(v->skip), "no denial can be hidden here (sbxrun --status)");
}

void hide_section(void)
{
	struct variant v[H_COUNT];
	int n = rounds(300);
	double x_hide, flat;
	const char *vh = NULL, *vf = NULL;

	v[H_POSIX] = spawn_rows[V_POSIX];
	v[H_POSIX].t = v[H_POSIX].cpu = (struct samples){ 0 };
	v[H_EXP_ONCE] = (struct variant){ .name = "x4 expanded: compiled once", .spawn = spawn_sbx,
	                                  .scope = &home_once };
	v[H_HIDE_ONCE] = (struct variant){ .name = "x4 hidden: compiled once", .spawn = spawn_sbx,
	                                   .scope = &hide_once };
	v[H_HIDE_FLOOR] = (struct variant){ .name = "x4 hidden: a namespace made by hand",
	                                    .spawn = spawn_hidden_floor, .scope = &hide_once };
	v[H_KEPT_FLOOR] = (struct variant){ .name = "x4 hidden: its floor (kept, by hand)",
	                                    .spawn = spawn_kept_floor, .scope = &hide_once };
	v[H_EXP_NEW] = (struct variant){ .name = "x4 expanded: new scope per spawn",
	                                 .spawn = spawn_sbx_new, .deny = deny_home, .ndeny = 4 };
	v[H_HIDE_NEW] = (struct variant){ .name = "x4 hidden: new scope per spawn",
	                                  .spawn = spawn_hidden_new, .deny = deny_home, .ndeny = 4 };
	v[H_ONE_60] = (struct variant){ .name = "x1 hidden beside 60 entries: once", .spawn = spawn_sbx,
	                                .scope = &one_60 };
	v[H_ONE_1000] = (struct variant){ .name = "x1 hidden beside 1,000 entries: once",
	                                  .spawn = spawn_sbx, .scope = &one_1000 };
	v[H_AGENT_EXP] = (struct variant){ .name = "home, a project re-admitted: expanded",
	                                   .spawn = spawn_sbx, .scope = &agent_exp };
	v[H_AGENT_HIDE] = (struct variant){ .name = "the same hidden, the project bound back",
	                                    .spawn = spawn_sbx, .scope = &agent_hide };
	v[H_RO_EXP] = (struct variant){ .name = "read-only home, project: expanded",
	                                .spawn = spawn_sbx, .scope = &ro_exp };
	v[H_RO_SEAL] = (struct variant){ .name = "read-only home, project: sealed",
	                                 .spawn = spawn_sbx, .scope = &ro_seal };
	agent_ro(&ro_exp, SBX_SCOPE_EXPAND, &v[H_RO_EXP]);
	agent_ro(&ro_seal, SBX_SCOPE_HIDE, &v[H_RO_SEAL]);
	agent(&agent_exp, SBX_SCOPE_EXPAND, &v[H_AGENT_EXP]);
	agent(&agent_hide, SBX_SCOPE_HIDE, &v[H_AGENT_HIDE]);
	hidden(&hide_once, deny_home, 4, &v[H_HIDE_ONCE]);
	if (v[H_HIDE_ONCE].skip[0]) {
		snprintf(v[H_HIDE_FLOOR].skip, sizeof(v[H_HIDE_FLOOR].skip), "%s", v[H_HIDE_ONCE].skip);
		snprintf(v[H_KEPT_FLOOR].skip, sizeof(v[H_KEPT_FLOOR].skip), "%s", v[H_HIDE_ONCE].skip);
	}
	hidden(&one_60, &deny_home[3], 1, &v[H_ONE_60]);
	hidden(&one_1000, deny_wide, 1, &v[H_ONE_1000]);
	for (int i = 1; i < H_COUNT; i++) {
		v[i].argv = v[H_POSIX].argv;
		v[i].envp = child_env;
		if (!v[i].skip[0])
			trial(&v[i]);
	}
	measure(v, H_COUNT, n);
	printf("\nhidden denials beside expanded ones: spawn and wait of /bin/true, %d rounds,"
	       " interleaved;\n  x posix is the median of the paired ratios, wall and processor"
	       " time\n", n);
	printf("  %-40s %8s %8s %7s %7s\n", "", "wall us", "cpu us", "x posix", "x cpu");
	for (int i = 0; i < H_COUNT; i++) {
		double x = paired(&v[i].t, &v[H_POSIX].t), xc = paired(&v[i].cpu, &v[H_POSIX].cpu);

		if (v[i].skip[0]) {
			printf("  %-40s %s\n", v[i].name, v[i].skip);
			continue;
		}
		printf("  %-40s %8.1f %8.1f %6.3fx %6.3fx\n", v[i].name, median(&v[i].t) / 1e3,
		       median(&v[i].cpu) / 1e3, x, xc);
		csv_row(&(struct row){ .section = "hide", .name = v[i].name, .param = NAN,
		                       .s = &v[i].t, .unit = "ns", .ratio = x,
		                       .ratio_to = "posix_spawn (paired)", .rules = v[i].rules });
	}
	if (!v[H_HIDE_ONCE].skip[0]) {
		x_hide = paired(&v[H_HIDE_ONCE].t, &v[H_POSIX].t);
		vh = judge(x_hide, TARGET_HIDE, false,
		           "4 hidden denials compiled once: %.3fx posix_spawn (<= %.2fx)", x_hide,
		           TARGET_HIDE);
		printf("  hidden, compiled once: %.3fx posix_spawn (<= %.2fx: %s)\n", x_hide,
		       TARGET_HIDE, vh);
		printf("  its floor (the kept namespace entered, the domain and filter, by hand):"
		       " %.3fx posix_spawn;\n  compiled once against its floor: %.3fx; a namespace"
		       " made by hand (covers, pins) against it: %.3fx\n",
		       paired(&v[H_KEPT_FLOOR].t, &v[H_POSIX].t),
		       paired(&v[H_HIDE_ONCE].t, &v[H_KEPT_FLOOR].t),
		       paired(&v[H_HIDE_FLOOR].t, &v[H_KEPT_FLOOR].t));
	}
	if (!v[H_ONE_60].skip[0] && !v[H_ONE_1000].skip[0]) {
		flat = paired(&v[H_ONE_1000].t, &v[H_ONE_60].t);
		vf = judge(flat, TARGET_HIDE_FLAT, false,
		           "a hidden denial beside 1,000 entries: %.3fx one beside 60 (<= %.2fx)", flat,
		           TARGET_HIDE_FLAT);
		printf("  beside 1,000 entries against beside 60: %.3fx (<= %.2fx: %s)\n", flat,
		       TARGET_HIDE_FLAT, vf);
	}
	for (int i = 0; i < H_COUNT; i++) {
		free(v[i].t.v);
		free(v[i].cpu.v);
	}
	sbx_scopeattr_destroy(&hide_once);
	sbx_scopeattr_destroy(&one_60);
	sbx_scopeattr_destroy(&one_1000);
	sbx_scopeattr_destroy(&agent_exp);
	sbx_scopeattr_destroy(&agent_hide);
	sbx_scopeattr_destroy(&ro_exp);
	sbx_scopeattr_destroy(&ro_seal);
}

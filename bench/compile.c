/*
 * The compile section: sbx_scopeattr_compile() alone, denying one entry of
 * a directory of 10 up to 100,000, against the floor (the same entries
 * added by bare system calls to a fresh ruleset), per rule and in growth.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "harness.h"
#include "fixture.h"
#include "sections.h"

/* ---- section: compile ------------------------------------------------- */

/* The entries the compiler grants for a denial, listed beforehand: every
 * entry of every ancestor of the denied path that is not on the way to it,
 * symlinks left out (they get no rule). */
struct grant {
	int level;  /* index into dirfd */
	bool dir;
	char *name;
};

struct floor_set {
	int dirfd[64];
	int levels;
	struct grant *g;
	size_t n;
};

static void floor_list_level(struct floor_set *f, const char *dir, const char *skip)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d || f->levels == 64)
		die("%s: %s", dir, strerror(errno));
	f->dirfd[f->levels] = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	while ((e = readdir(d))) {
		unsigned char type = e->d_type;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, skip))
			continue;
		if (type == DT_UNKNOWN && !fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
		if (type == DT_LNK)
			continue;
		if (f->n % 1024 == 0)
			f->g = xrealloc(f->g, (f->n + 1024) * sizeof(*f->g));
		f->g[f->n++] = (struct grant){ .level = f->levels, .dir = type == DT_DIR,
		                               .name = xstrdup(e->d_name) };
	}
	closedir(d);
	f->levels++;
}

static void floor_list(struct floor_set *f, const char *denied)
{
	char dir[PATH_MAX] = "/", name[NAME_MAX + 1];

	*f = (struct floor_set){ 0 };
	for (const char *p = denied + 1; *p;) {
		const char *end = strchrnul(p, '/');

		snprintf(name, sizeof(name), "%.*s", (int)(end - p), p);
		floor_list_level(f, dir, name);
		if (strcmp(dir, "/"))
			strcat(dir, "/");
		strcat(dir, name);
		p = *end ? end + 1 : end;
	}
}

static void floor_free(struct floor_set *f)
{
	for (int i = 0; i < f->levels; i++)
		close(f->dirfd[i]);
	for (size_t i = 0; i < f->n; i++)
		free(f->g[i].name);
	free(f->g);
}

static struct {
	uint64_t handled, dir, file;
} rights;

static void rights_probe(int abi)
{
	uint64_t all = (1ULL << 13) - 1; /* ABI 1 */

	if (abi >= 2)
		all |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		all |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		all |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	if (abi >= 9)
		all |= LANDLOCK_ACCESS_FS_RESOLVE_UNIX;
	rights.handled = all;
	rights.dir = all & ~(LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK);
	rights.file = all & (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
	                     LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |
	                     LANDLOCK_ACCESS_FS_IOCTL_DEV | LANDLOCK_ACCESS_FS_RESOLVE_UNIX);
}

/* The floor: the system calls the rules cannot do without, into a fresh
 * ruleset.  Its release is not timed, as the compile's is not. */
static double floor_once(const struct floor_set *f, unsigned *rules)
{
	struct sbx_landlock_ruleset_attr attr = { .handled_access_fs = rights.handled };
	double t0 = now_ns(), t;
	int rs = (int)sbx_landlock_create_ruleset(&attr, sizeof(attr), 0);

	if (rs < 0)
		die("landlock_create_ruleset: %s", strerror(errno));
	*rules = 0;
	for (size_t i = 0; i < f->n; i++) {
		const struct grant *g = &f->g[i];
		int fd = openat(f->dirfd[g->level], g->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		struct sbx_landlock_path_beneath_attr pb = {
			.allowed_access = g->dir ? rights.dir : rights.file, .parent_fd = fd };

		if (fd < 0)
			continue;
		if (!sbx_landlock_add_rule(rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0))
			++*rules;
		close(fd);
	}
	t = now_ns() - t0;
	close(rs);
	return t;
}

/* sbx_scopeattr_compile() alone; the scope is made and destroyed around
 * it, so that no earlier snapshot is released inside the timing. */
static double compile_once(const char *denied)
{
	sbx_scopeattr_t s;
	char *deny[1] = { (char *)denied };
	double t0, t;
	int err;

	scope_make(&s, deny, 1, false);
	t0 = now_ns();
	err = sbx_scopeattr_compile(&s);
	t = now_ns() - t0;
	sbx_scopeattr_destroy(&s);
	if (err)
		die("sbx_scopeattr_compile: %s", sbx_strerror(err));
	return t;
}

/* The rules a compiled scope denying `denied' applies, from a spawn. */
static long compiled_rules(const char *denied)
{
	struct variant v = { .spawn = spawn_sbx, .argv = spawn_rows[V_POSIX].argv,
	                     .envp = child_env };
	sbx_scopeattr_t s;
	char *deny[1] = { (char *)denied };

	scope_make(&s, deny, 1, true);
	v.scope = &s;
	trial(&v);
	sbx_scopeattr_destroy(&s);
	if (v.skip[0])
		die("spawn with a compiled scope %s", v.skip);
	return v.rules;
}

struct scale_point {
	int siblings;
	long rules;
	unsigned floor_rules;
	struct samples compile, floor;
	double per_compile, per_floor;
};

static void scale_measure(struct scale_point *p, int nrounds)
{
	char dir[PATH_MAX], name[32], denied[PATH_MAX];
	struct floor_set f;

	snprintf(name, sizeof(name), "c%d", p->siblings);
	join(dir, fixture_root, name);
	make_dir(dir);
	make_entries(dir, "f", p->siblings, 0);
	/* The new entries' writeback would otherwise run during the rounds. */
	sync_dir(dir);
	join(denied, dir, "f0000");
	floor_list(&f, denied);
	p->rules = compiled_rules(denied);
	(void)floor_once(&f, &p->floor_rules);
	for (int r = 0; r < nrounds; r++)
		for (int k = 0; k < 2; k++) {
			if ((r + k) % 2)
				samples_add(&p->floor, floor_once(&f, &p->floor_rules));
			else
				samples_add(&p->compile, compile_once(denied));
		}
	floor_free(&f);
	remove_tree(dir);
	p->per_compile = median(&p->compile) / (double)p->rules;
	p->per_floor = median(&p->floor) / p->floor_rules;
}

void compile_section(int abi)
{
	static const int sizes[] = { 10, 100, 1000, 10000, 100000 };
	static const int base_rounds[] = { 400, 200, 100, 25, 9 };
	enum { N = sizeof(sizes) / sizeof(sizes[0]) };
	struct scale_point p[N] = { { 0 } };
	double grow_c, grow_f;
	const char *vl;

	rights_probe(abi);
	for (int i = 0; i < N; i++) {
		p[i].siblings = sizes[i];
		scale_measure(&p[i], rounds(base_rounds[i]));
	}
	printf("\ncompile alone: sbx_scopeattr_compile() denying one entry of a directory, "
	       "against the floor\n(openat O_PATH + landlock_add_rule + close of the same "
	       "entries, into a fresh ruleset), interleaved\n");
	printf("  %9s %7s %7s %14s %14s %7s  %s\n", "siblings", "rounds", "rules", "compile ns/rule",
	       "floor ns/rule", "ratio", "target");
	for (int i = 0; i < N; i++) {
		double ratio = p[i].per_compile / p[i].per_floor;
		const char *v = judge(ratio, TARGET_FLOOR, false,
		                      "compile with %d siblings: %.2fx the floor per rule (<= %.1fx)",
		                      p[i].siblings, ratio, TARGET_FLOOR);

		printf("  %9d %7zu %7ld %14.0f %14.0f %6.2fx  <= 1.2x: %s%s\n", p[i].siblings,
		       p[i].compile.n, p[i].rules, p[i].per_compile, p[i].per_floor, ratio, v,
		       (unsigned long)p[i].rules == p[i].floor_rules ? "" : "  (rule counts differ)");
		csv_row(&(struct row){ .section = "compile", .name = "compile", .param = p[i].siblings,
		                       .s = &p[i].compile, .per = (double)p[i].rules,
		                       .unit = "ns/rule", .ratio = ratio, .ratio_to = "floor",
		                       .rules = p[i].rules, .target = "<= 1.2x", .verdict = v });
		csv_row(&(struct row){ .section = "compile", .name = "floor", .param = p[i].siblings,
		                       .s = &p[i].floor, .per = p[i].floor_rules,
		                       .unit = "ns/rule", .ratio = NAN, .rules = p[i].floor_rules });
	}
	/* The floor's own cost per rule is not flat (the kernel's lookups and
	 * rule insertions grow with the directory and the ruleset): the
	 * compile is linear when it grows no faster than the floor does. */
	grow_c = p[N - 1].per_compile / p[2].per_compile;
	grow_f = p[N - 1].per_floor / p[2].per_floor;
	vl = judge(grow_c / grow_f, TARGET_LINEAR, false,
	           "compile linear in siblings: ns/rule grows %.2fx from %d to %d, the floor "
	           "%.2fx (compile/floor growth %.2f, <= %.1f)",
	           grow_c, sizes[2], sizes[N - 1], grow_f, grow_c / grow_f, TARGET_LINEAR);
	printf("  linearity: ns/rule from %d to %d siblings grows %.2fx, the floor's %.2fx;"
	       " compile/floor growth %.2f, <= %.1f: %s\n",
	       sizes[2], sizes[N - 1], grow_c, grow_f, grow_c / grow_f, TARGET_LINEAR, vl);
	for (int i = 0; i < N; i++) {
		free(p[i].compile.v);
		free(p[i].floor.v);
	}
}

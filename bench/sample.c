/* SPDX-License-Identifier: MIT */
/*
 * The reference launcher: the kernel's own Landlock sample
 * (samples/landlock/sandboxer.c in the kernel's source), which takes an
 * allow list ready-made and applies it before it execs.  It is not part of
 * this project and is never copied into it: the bench builds it at run
 * time from a copy of the kernel's source named by BENCH_LANDLOCK_SAMPLE
 * (the file), else found under /usr/src, and without one its row says it
 * was not measured.  Its allow list is what a compile of the same denials
 * grants (every rule's path, from the library's trace of its grants), so
 * that both apply the same ruleset and only the way there differs.
 */
#include "config.h"

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/internal.h"
#include "harness.h"
#include "fixture.h"
#include "sections.h"

#ifndef BENCH_SRCDIR
#define BENCH_SRCDIR "."
#endif

static const char *sample_source(void)
{
	static char found[PATH_MAX];
	const char *env = getenv("BENCH_LANDLOCK_SAMPLE");
	glob_t g;

	if (env && *env)
		return access(env, R_OK) ? NULL : env;
	if (glob("/usr/src/linux*/samples/landlock/sandboxer.c", 0, NULL, &g))
		return NULL;
	snprintf(found, sizeof(found), "%s", g.gl_pathv[0]);
	globfree(&g);
	return found;
}

/* The sample includes <linux/landlock.h>, which a C library's headers may
 * have from before the fields it uses: a header of the bench's own in its
 * place, on this project's definitions of the kernel's interface. */
static bool write_header(const char *dir)
{
	char sub[PATH_MAX], path[PATH_MAX];
	FILE *f;

	join(sub, dir, "linux");
	make_dir(sub);
	join(path, sub, "landlock.h");
	if (!(f = fopen(path, "we")))
		return false;
	fprintf(f, "#include \"%s/compat/landlock.h\"\n"
	           "#include <linux/types.h>\n"
	           "#define landlock_ruleset_attr sbx_landlock_ruleset_attr\n"
	           "#define landlock_path_beneath_attr sbx_landlock_path_beneath_attr\n"
	           "#define landlock_net_port_attr sbx_landlock_net_port_attr\n"
	           "enum landlock_rule_type { LANDLOCK_RULE_TYPE_ANY };\n",
	        BENCH_SRCDIR);
	return fclose(f) == 0;
}

struct allow {
	char *list;
	size_t len;
};

static void collect(const char *path, uint64_t access, bool dir, dev_t dev, ino_t ino, void *arg)
{
	struct allow *a = arg;
	size_t n = strlen(path);

	(void)access, (void)dir, (void)dev, (void)ino;
	a->list = xrealloc(a->list, a->len + n + 2);
	if (a->len)
		a->list[a->len++] = ':';
	memcpy(a->list + a->len, path, n + 1);
	a->len += n;
}

/* Every path a compile of the denials grants, colon-separated. */
static char *allow_list(char *const *deny, int n)
{
	struct allow a = { .list = xstrdup(""), .len = 0 };
	sbx_scopeattr_t s;

	scope_make(&s, deny, n, false);
	s.__scope->trace = collect;
	s.__scope->trace_arg = &a;
	if (sbx_scopeattr_compile(&s))
		die("the sample's allow list: the compile failed");
	sbx_scopeattr_destroy(&s);
	return a.list;
}

void setup_sample(struct variant *v, char *const *deny, int n)
{
	const char *src = sample_source();
	char dir[PATH_MAX], bin[PATH_MAX], cmd[3 * PATH_MAX + 64], *list, *env;

	if (!src) {
		snprintf(v->skip, sizeof(v->skip),
		         "not measured: no kernel source (BENCH_LANDLOCK_SAMPLE=FILE)");
		return;
	}
	join(dir, fixture_root, "sample");
	make_dir(dir);
	join(bin, dir, "sandboxer");
	snprintf(cmd, sizeof(cmd), "${CC:-cc} -O2 -w -I%s -o %s %s", dir, bin, src);
	if (!write_header(dir) || system(cmd)) {
		snprintf(v->skip, sizeof(v->skip), "not measured: the sample did not build");
		return;
	}
	list = allow_list(deny, n);
	env = xrealloc(NULL, strlen(list) + 16);
	sprintf(env, "LL_FS_RW=%s", list);
	free(list);
	v->argv = argv_new(bin, "/bin/true", NULL);
	v->envp = argv_new("LL_FS_RO=", "PATH=/usr/bin:/bin", NULL);
	argv_push(&v->envp, env);
	free(env);
}

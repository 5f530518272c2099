/* SPDX-License-Identifier: MIT */
/*
 * The C runtime, which a denial must not take away: the C library and the
 * program loader this process runs, found once through the loaded objects
 * (the tree leaves out a denial that would take them, or /, from every
 * program: tree.c).
 */
#include "config.h"

#include <link.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "lib/internal.h"
#include "lib/compiler.h"

/* Found once (sbx__once: a fork while another thread looks leaves the
 * child able to look). */
static char runtime_paths[2][PATH_MAX];
/* And each name a symlink on the way to them has (the loader's own name
 * is one, on most systems), with the directory it is in resolved. */
#define RUNTIME_HOPS 8
static char runtime_hops[2][RUNTIME_HOPS][PATH_MAX];
static atomic_bool runtime_known;

/* Where the kernel says the file is: one open and one readlink where
 * /proc is, not realpath(3)'s readlink per component. */
static void runtime_path(const char *name, char *out)
{
	if (sbx__resolve(name, out))
		out[0] = '\0';
}

/* The loaded object whose segments hold addr, its name into *name.
 * dl_iterate_phdr(3), not dladdr(3), which looks the nearest symbol up
 * through the whole of the C library's symbol table. */
struct holder {
	uintptr_t addr;
	const char *name;
};

static int holds(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct holder *h = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && h->addr >= start && h->addr - start < ph->p_memsz) {
			h->name = info->dlpi_name;
			return 1;
		}
	}
	return 0;
}

/* The symlinks met on the way from name to its file, each where it lies
 * (its directory resolved), into hops. */
static void runtime_ways(const char *name, char hops[RUNTIME_HOPS][PATH_MAX])
{
	char at[PATH_MAX], dir[PATH_MAX], link[PATH_MAX];
	ssize_t n;

	snprintf(at, sizeof(at), "%s", name);
	for (int i = 0; i < RUNTIME_HOPS; i++) {
		char *slash = strrchr(at, '/');

		if (!slash || slash == at)
			return;
		*slash = '\0';
		if (sbx__resolve(at, dir))
			return;
		if (snprintf(hops[i], PATH_MAX, "%s/%s", strcmp(dir, "/") ? dir : "", slash + 1) >=
		    PATH_MAX || (n = readlink(hops[i], link, sizeof(link) - 1)) <= 0) {
			hops[i][0] = '\0';
			return;
		}
		link[n] = '\0';
		if (link[0] == '/')
			snprintf(at, sizeof(at), "%s", link);
		else if (snprintf(at, sizeof(at), "%s/%s", dir, link) >= (int)sizeof(at))
			return;
	}
}

static void runtime_of(uintptr_t addr, char *out, char hops[RUNTIME_HOPS][PATH_MAX])
{
	struct holder h = { .addr = addr };

	if (addr && dl_iterate_phdr(holds, &h) && h.name && h.name[0] == '/') {
		runtime_path(h.name, out);
		runtime_ways(h.name, hops);
	}
}

static void runtime_probe(void)
{
	runtime_of((uintptr_t)&getpid, runtime_paths[0], runtime_hops[0]);
	runtime_of((uintptr_t)getauxval(AT_BASE), runtime_paths[1], runtime_hops[1]);
}

bool sbx__runtime_through(const char *denial, const struct cover *binds, size_t nbinds)
{
	sbx__once(&runtime_known, runtime_probe);
	for (int r = 0; r < 2; r++)
		for (int i = 0; i < RUNTIME_HOPS && runtime_hops[r][i][0]; i++) {
			bool bound = false;

			for (size_t b = 0; b < nbinds && !bound; b++)
				bound = sbx__path_covers(binds[b].path, runtime_hops[r][i]);
			if (!bound && sbx__path_covers(denial, runtime_hops[r][i]))
				return true;
		}
	return false;
}

const char *sbx__deny_harms(const struct sbx_scope *scope, size_t i, const bool *left)
{
	const char *path = scope->rules[i].path;

	if (strcmp(path, "/") == 0)
		return "denying / would stop every program";
	/* Looked for once per process, and only by a scope that denies. */
	sbx__once(&runtime_known, runtime_probe);
	for (int r = 0; r < 2; r++) {
		bool readmitted = false;

		if (!runtime_paths[r][0] || !sbx__path_covers(path, runtime_paths[r]))
			continue;
		/* Unless something below re-admits the runtime. */
		for (size_t j = 0; j < scope->nrules && !readmitted; j++)
			readmitted = scope->rules[j].mode != SBX_MODE_DENY && !left[j] &&
			             sbx__path_covers(scope->rules[j].path, runtime_paths[r]) &&
			             sbx__path_covers(path, scope->rules[j].path);
		if (!readmitted)
			return "it holds the C runtime every program needs";
	}
	return NULL;
}

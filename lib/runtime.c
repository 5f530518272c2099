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
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "internal.h"
#include "lib/compiler.h"

/* Found once (sbx__once: a fork while another thread looks leaves the
 * child able to look). */
static char runtime_paths[2][PATH_MAX];
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

static void runtime_of(uintptr_t addr, char *out)
{
	struct holder h = { .addr = addr };

	if (addr && dl_iterate_phdr(holds, &h) && h.name && h.name[0] == '/')
		runtime_path(h.name, out);
}

static void runtime_probe(void)
{
	runtime_of((uintptr_t)&getpid, runtime_paths[0]);
	runtime_of((uintptr_t)getauxval(AT_BASE), runtime_paths[1]);
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

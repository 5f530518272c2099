/* SPDX-License-Identifier: MIT */
/*
 * sbxbench: what confinement adds to a spawn, measured side by side.
 *
 * The machine this runs on may be shared and noisy, so no figure is ever
 * compared with one taken at another moment: the variants of a section run
 * in the same rounds, one after the other in an order that rotates every
 * round, and the table gives medians and ratios against the baseline
 * measured in this very run.  Targets are printed as PASS or MISS; a miss
 * never fails the run.
 *
 * Sections (BENCH_ONLY=spawn,hide,memory,threads,reuse,churn,compile,newscope,
 * scale picks some):
 *   spawn    spawn-and-wait of /bin/true, every way of doing it
 *   memory   spawn latency from a parent with a small heap and with 1 GiB
 *   threads  throughput of one and of two threads spawning
 *   reuse    a kept scope reused against the same scope compiled once
 *   churn    a kept scope while another process churns a directory it lists
 *   compile  the compiler's cost per rule against the bare system calls
 *   newscope a new scope per spawn from 10 to 10,000 siblings: its slope
 *   scale    1,000 to 100,000 configured paths: time, floor and heap per path
 *
 * BENCH_QUICK=1 runs a quarter of the rounds; BENCH_ROUNDS=N sets the
 * spawn section's rounds (300 by default) and scales the others with it.
 * BENCH_TMPDIR=DIR puts the fixture there (see fixture_parent()).
 *
 * Files: harness.c measures (rounds, interleaving, medians, the CSV file,
 * the targets); fixture.c makes the temporary tree and its scopes;
 * floor.c is the system-call floor the compile and scale sections share;
 * each section has a file of its own (spawn.c, memory.c, threads.c,
 * reuse.c, churn.c, compile.c, newscope.c, scale.c; sample.c builds the
 * kernel's sample launcher for a reference row); this one holds main()
 * and the header it prints.
 */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "compat/landlock.h"
#include "harness.h"
#include "fixture.h"
#include "sections.h"

/* ---- main --------------------------------------------------------------- */

static int kernel_abi(void)
{
	long abi = sbx_landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	return abi > 0 ? (int)abi : 0;
}

static void print_header(int abi)
{
	printf("sbxbench: medians of interleaved rounds; ratios against the baseline of this run\n");
	printf("  Landlock ABI %d%s; %ld online CPUs; fixture in %s\n", abi,
	       abi ? "" : " (none: sbx rows run unconfined)", sysconf(_SC_NPROCESSORS_ONLN),
	       fixture_root);
	printf("  ~100-rule scope: %ld rules (3 of %d projects, .ssh of a home of %d);"
	       " ~1000-rule scope: %ld rules\n",
	       spawn_rows[V_HOME_ONCE].rules, NPROJECTS, NHOME, spawn_rows[V_WIDE_ONCE].rules);
}

int main(int argc, char **argv)
{
	int abi = kernel_abi(), flags = 0;

	parse_options(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	make_base();
	make_fixture();
	scope_make(&home_fresh, deny_home, 4, false);
	scope_make(&home_once, deny_home, 4, true);
	scope_make(&home_kept, deny_home, 4, false);
	if (sbx_scopeattr_setflags(&home_kept, SBX_SCOPE_SHARE_KEYRINGS | SBX_SCOPE_TUNE_PROCESSES |
	                                       SBX_SCOPE_EXPAND) ||
	    sbx_scopeattr_compile(&home_kept))
		die("the scope that keeps keyrings and processes");
	scope_make(&home_offline, deny_home, 4, false);
	if (sbx_scopeattr_getflags(&home_once, &flags) ||
	    sbx_scopeattr_setflags(&home_offline, flags | SBX_SCOPE_NO_NETWORK) ||
	    sbx_scopeattr_compile(&home_offline))
		die("the scope with no network");
	scope_make(&wide_fresh, deny_wide, 1, false);
	scope_make(&wide_once, deny_wide, 1, true);
	setup_spawn_rows();
	csv_open();
	print_header(abi);

	if (wanted("spawn"))
		spawn_section();
	if (wanted("hide")) {
		if (abi)
			hide_section();
		else
			printf("\nhidden denials: skipped, this kernel has no Landlock\n");
	}
	if (wanted("memory"))
		memory_section();
	if (wanted("threads"))
		threads_section();
	if (wanted("reuse"))
		reuse_section();
	if (wanted("churn"))
		churn_section();
	if (wanted("compile")) {
		if (abi)
			compile_section(abi);
		else
			printf("\ncompile alone: skipped, this kernel has no Landlock\n");
	}
	if (wanted("newscope")) {
		if (abi)
			newscope_section(abi);
		else
			printf("\nnew scope per spawn by size: skipped, this kernel has no Landlock\n");
	}
	if (wanted("scale")) {
		if (abi)
			scale_section(abi);
		else
			printf("\nscale of configured paths: skipped, this kernel has no Landlock\n");
	}
	print_targets();
	if (csv && !fclose(csv))
		printf("figures written to %s\n", opt.csv);
	return 0;
}

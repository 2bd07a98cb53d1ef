/* SPDX-License-Identifier: MIT */
/*
 * bench_counters.c - mmfuzz bench: seeds 003 and 004, the vm_committed_as batch on a brk
 * loop and the per-cpu cost of a fork.
 */
#include "bench.h"
#include "results.h"

#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------
 * Seed 003: the vm_committed_as batch, counted in folds on a brk loop
 * ---------------------------------------------------------------------- */

#define S3_SEED_RAM (1ul << 25) /* the seed's example: 128 GB in pages */

/* Runs a counter/mm op of a seed's machine; a skipped op voids the figures. */
static int seed_apply(struct mm_sim *sim, const struct mm_op *op, const char *seed)
{
	if (mm_apply_op(sim, op, NULL, 0, 0)) {
		fprintf(stderr, "mmfuzz: bench: the seed %s machine skipped an op (kind %u)\n",
			seed, op->kind);
		return -1;
	}
	return 0;
}

/*
 * Every CPU in turn runs a brk of +200 pages and one of -200, S3_ROUNDS
 * times, on one mm, under OVERCOMMIT_NEVER: will-it-scale's brk loop, one
 * thread playing every CPU, so the counts are exact and the same every run.
 */
static int seed003_row(struct mm_sim *sim, unsigned int ncpus, const char *variant)
{
	struct mm_config cfg;
	struct mm_counter_stats c0, c1;
	int v = bench_variant(variant);
	struct mm_op op;
	unsigned long long calls;

	if (v == MM_VARIANT_UNKNOWN)
		return -1;
	bench_brk_config(&cfg, ncpus);
	if (mm_sim_init(sim, &cfg, v)) {
		fprintf(stderr,
			"mmfuzz: bench: cannot build the seed 003 machine (%u CPUs, Normal %u "
			"pages)\n",
			ncpus, S3_PAGES);
		return -1;
	}
	if (bench_brk_setup(sim)) {
		fprintf(stderr, "mmfuzz: bench: the seed 003 machine refused the mm\n");
		return -1;
	}
	int batch = mm_vm_committed_as_batch(sim);
	mm_sim_counter_stats(sim, &c0);
	double t0 = cli_now();
	long n = bench_brk_loop(sim, ncpus, S3_ROUNDS, S3_BRK_PAGES);
	if (n < 0) {
		fprintf(stderr, "mmfuzz: bench: the seed 003 machine skipped a brk\n");
		return -1;
	}
	calls = (unsigned long long)n;
	double t = cli_now() - t0;
	mm_sim_counter_stats(sim, &c1);
	op = (struct mm_op){.kind = MM_OP_EXIT, .mm.mm = 0};
	if (seed_apply(sim, &op, "003"))
		return -1;
	unsigned long long adds = c1.committed_adds - c0.committed_adds;
	if (c1.vm_enough_refused != c0.vm_enough_refused || adds != calls) {
		fprintf(stderr,
			"mmfuzz: bench: the seed 003 machine refused %llu of %llu brk calls "
			"(%llu charged)\n",
			c1.vm_enough_refused - c0.vm_enough_refused, calls, adds);
		return -1;
	}
	unsigned long long folds = c1.committed_folds - c0.committed_folds;
	unsigned long long locks = (c1.pcpu_folds - c0.pcpu_folds) + (c1.pcpu_sums - c0.pcpu_sums) +
				   (c1.list_lock_acquisitions - c0.list_lock_acquisitions);
	char row[80];
	snprintf(row, sizeof(row), "%s %u cpus", variant ? variant : "policy", ncpus);
	results_metric("seed003", row, "folds_per_1000call",
		       1000.0 * (double)folds / (double)calls);
	results_metric("seed003", row, "ns_per_call", t * 1e9 / (double)calls);
	printf("%-34s %5u %6d %14.1f %14.1f %9.1f\n", variant ? variant : "policy batch (3.11+)",
	       ncpus, batch, 1000.0 * (double)folds / (double)calls,
	       1000.0 * (double)locks / (double)calls, t * 1e9 / (double)calls);
	return 0;
}

int bench_seed003(void)
{
	static const unsigned int cpus[] = {S3_CPUS_LOW, 64};
	struct mm_sim *sim = bench_sim_create();
	int ret = 0;

	if (!sim)
		return -1;
	printf("seed 003: vm_committed_as batch on a brk loop; 1 node, Normal %u pages (%u GiB;\n"
	       "the model's RAM is its managed pages: the seed's 128 GB would take 512 MiB of\n"
	       "memmap), OVERCOMMIT_NEVER; each CPU in turn brk +%u pages (800 KB) then -%u, %u\n"
	       "times, through mm_apply_op (one thread plays every CPU: exact counts). folds:\n"
	       "vm_committed_as's; locks: every percpu_counter lock (folds of any counter, sums,\n"
	       "the list lock): the model's brk faults its pages in, so the mm's anon rss counter\n"
	       "also adds +-%u at percpu_counter_batch (2 * ncpus) and folds on every call\n",
	       S3_PAGES, S3_PAGES >> 18, S3_BRK_PAGES, S3_BRK_PAGES, S3_ROUNDS, S3_BRK_PAGES);
	printf("%-34s %5s %6s %14s %14s %9s\n", "model", "CPUs", "batch", "folds/1000call",
	       "locks/1000call", "ns/call");
	for (size_t i = 0; !ret && i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		ret = seed003_row(sim, cpus[i], "pcpu-batch-2ncpu");
		if (!ret)
			ret = seed003_row(sim, cpus[i], NULL);
	}
	if (!ret)
		printf("the seed's machine, 128 GB: policy batch %d at 40 CPUs, %d at 64\n"
		       "(mm_compute_batch_for); above %u, this loop never folds, as the policy "
		       "rows\n",
		       mm_compute_batch_for(40, S3_SEED_RAM, MM_OVERCOMMIT_NEVER),
		       mm_compute_batch_for(64, S3_SEED_RAM, MM_OVERCOMMIT_NEVER), S3_BRK_PAGES);
	mm_sim_destroy(sim);
	return ret;
}

/*
 * Seed 003 against the batch: the same brk loop on the 64-CPU machine with
 * vm_committed_as's batch set to each value (the percpu-batch knob, as
 * mmfuzz explore sets it). An 800 KB brk folds whenever the batch is at
 * most its 200 pages: the step Tim Chen's patch moved past.
 */
int bench_seed003_batch(void)
{
	static const int batches[] = {32, 64, 128, 192, 200, 201, 256, 512, 1024};
	struct mm_sim *sim;
	int ret = 0;

	printf("seed 003 against the batch: the brk loop above at 64 CPUs, vm_committed_as's\n"
	       "batch set to each value (mmfuzz explore's percpu-batch knob)\n");
	if (mm_policy_knob_set("percpu-batch", 0)) {
		printf("skipped: a policy plugin is loaded, and it is the batch under test\n");
		return 0;
	}
	if (!(sim = bench_sim_create()))
		return -1;
	printf("%6s %14s %14s\n", "batch", "folds/1000call", "ns/call");
	for (size_t i = 0; !ret && i < sizeof(batches) / sizeof(batches[0]); i++) {
		struct mm_config cfg;
		struct mm_counter_stats c0, c1;
		char row[32];

		mm_policy_knob_set("percpu-batch", batches[i]);
		bench_brk_config(&cfg, 64);
		if (mm_sim_init(sim, &cfg, MM_VARIANT_NONE) || bench_brk_setup(sim)) {
			fprintf(stderr, "mmfuzz: bench: cannot build the seed 003 machine\n");
			ret = -1;
			break;
		}
		mm_sim_counter_stats(sim, &c0);
		double t0 = cli_now();
		long calls = bench_brk_loop(sim, 64, S3_ROUNDS, S3_BRK_PAGES);
		double t = cli_now() - t0;
		mm_sim_counter_stats(sim, &c1);
		if (calls <= 0 || c1.vm_enough_refused != c0.vm_enough_refused) {
			fprintf(stderr, "mmfuzz: bench: the seed 003 machine refused a brk\n");
			ret = -1;
			break;
		}
		double folds =
			1000.0 * (double)(c1.committed_folds - c0.committed_folds) / (double)calls;
		snprintf(row, sizeof(row), "batch %d", batches[i]);
		results_metric("seed003-batch", row, "folds_per_1000call", folds);
		results_metric("seed003-batch", row, "ns_per_call", t * 1e9 / (double)calls);
		printf("%6d %14.1f %14.1f\n", batches[i], folds, t * 1e9 / (double)calls);
	}
	mm_policy_knob_set("percpu-batch", 0);
	mm_sim_destroy(sim);
	return ret;
}

/* ------------------------------------------------------------------------
 * Seed 004: per-cpu allocations and list locks per fork (unixbench spawn)
 * ---------------------------------------------------------------------- */

/*
 * m0, the parent, maps a few pages; then S4_FORKS times it forks m1 on one
 * CPU, and m1 touches a few pages and exits on the next CPU.
 */
static int seed004_row(struct mm_sim *sim, const char *variant)
{
	struct mm_config cfg;
	struct mm_counter_stats c0, c1;
	int v = bench_variant(variant);

	if (v == MM_VARIANT_UNKNOWN)
		return -1;
	bench_spawn_config(&cfg);
	if (mm_sim_init(sim, &cfg, v)) {
		fprintf(stderr, "mmfuzz: bench: cannot build the seed 004 machine\n");
		return -1;
	}
	if (bench_spawn_setup(sim)) {
		fprintf(stderr, "mmfuzz: bench: the seed 004 machine refused the parent\n");
		return -1;
	}
	mm_sim_counter_stats(sim, &c0);
	double t0 = cli_now();
	if (bench_spawn_loop(sim, S4_FORKS)) {
		fprintf(stderr, "mmfuzz: bench: the seed 004 machine skipped an op\n");
		return -1;
	}
	double t = cli_now() - t0;
	mm_sim_counter_stats(sim, &c1);
	unsigned long long forks = c1.forks - c0.forks, exits = c1.exits - c0.exits;
	if (forks != S4_FORKS || exits != S4_FORKS || c1.forks_failed != c0.forks_failed) {
		fprintf(stderr,
			"mmfuzz: bench: the seed 004 machine made %llu forks (%llu failed) and "
			"%llu exits of %u\n",
			forks, c1.forks_failed - c0.forks_failed, exits, S4_FORKS);
		return -1;
	}
	double n = (double)forks;
	printf("%-34s %11.2f %11.2f %11.2f %11.2f %10.0f\n", variant ? variant : "init_many (6.6+)",
	       (double)(c1.fork_pcpu_allocs - c0.fork_pcpu_allocs) / n,
	       (double)(c1.fork_list_locks - c0.fork_list_locks) / n,
	       (double)(c1.pcpu_frees - c0.pcpu_frees) / n,
	       (double)(c1.list_lock_acquisitions - c0.list_lock_acquisitions) / n, t * 1e9 / n);
	return 0;
}

int bench_seed004(void)
{
	struct mm_sim *sim = bench_sim_create();
	int ret;

	if (!sim)
		return -1;
	printf("seed 004: rss counters per fork (unixbench spawn); %u nodes x %u CPUs; the parent\n"
	       "maps %u anon pages, then %u times forks a child on one CPU that touches %u pages\n"
	       "and exits on the next (one thread plays every CPU: exact counts). allocs and\n"
	       "list locks: mm_init()'s at fork (the cid and the rss counters); frees and\n"
	       "locks/spawn: the whole fork + exit; ns: one fork + touch + exit\n",
	       S4_NODES, S4_CPUS, S4_PARENT_PAGES, S4_FORKS, S4_TOUCH_PAGES);
	printf("%-34s %11s %11s %11s %11s %10s\n", "model", "allocs/fork", "locks/fork",
	       "frees/spawn", "locks/spawn", "ns/fork");
	ret = seed004_row(sim, NULL);
	if (!ret)
		ret = seed004_row(sim, "rss-counters-one-by-one");
	mm_sim_destroy(sim);
	return ret;
}

/* SPDX-License-Identifier: MIT */
/*
 * test_variant_figures.c - the proof of the variants that are not
 * correctness bugs but cost: their counted figures, against the fixed
 * model, with generous floors (the counts are exact; the floors leave room
 * for a policy tweak, not for the effect to vanish).
 *
 *   pcpu-batch-2ncpu        vm_committed_as folds on a brk loop (seed 003)
 *   rss-counters-one-by-one per-cpu allocations per fork (seed 004)
 *
 * Both run the bench's own loops and machines (harness/bench/seed_loops.c),
 * so the figure checked here is the figure mmfuzz bench prints.
 */
#include "../unit/common.h"
#include "mmcore.h"
#include "seed_loops.h"

#include <check.h>
#include <stdlib.h>

/*
 * The bench's first seed 003 row (harness/bench/seed_loops.h): 40 CPUs, 16
 * GiB, the policy batch under NEVER 2^22 / 40 / 256 = 409 pages, the
 * variant's 2 * 40 = 80; a 200-page brk folds only with the variant.
 */
#define NCPUS S3_CPUS_LOW

static void apply(struct mm_sim *sim, const struct mm_op *op)
{
	ck_assert_msg(mm_apply_op(sim, op, NULL, 0, 0) == 0, "op kind %u skipped", op->kind);
}

static struct mm_sim *machine(const struct mm_config *cfg, const char *variant)
{
	struct mm_sim *sim = mm_sim_create();

	ck_assert_ptr_nonnull(sim);
	ck_assert_int_ne(mm_variant_lookup(variant), MM_VARIANT_UNKNOWN);
	ck_assert_int_eq(mm_sim_init(sim, cfg, mm_variant_lookup(variant)), 0);
	return sim;
}

/* Folds of vm_committed_as per 1000 brk calls. */
static double brk_folds(const char *variant)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct mm_counter_stats c0, c1;
	struct mm_op op;
	long calls;

	bench_brk_config(&cfg, NCPUS);
	sim = machine(&cfg, variant);
	ck_assert_int_eq(bench_brk_setup(sim), 0);
	mm_sim_counter_stats(sim, &c0);
	calls = bench_brk_loop(sim, NCPUS, S3_ROUNDS, S3_BRK_PAGES);
	ck_assert_int_gt(calls, 0);
	mm_sim_counter_stats(sim, &c1);
	ck_assert_uint_eq(c1.vm_enough_refused, c0.vm_enough_refused);
	op = (struct mm_op){.kind = MM_OP_EXIT, .mm.mm = 0};
	apply(sim, &op);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
	return 1000.0 * (double)(c1.committed_folds - c0.committed_folds) / (double)calls;
}

START_TEST(test_pcpu_batch_2ncpu_folds)
{
	double fixed = brk_folds(NULL), before = brk_folds("pcpu-batch-2ncpu");

	/* Exact: 0 and 1000 per 1000 calls; the floor asks for 10x and 500. */
	ck_assert_msg(before >= 500.0 && before >= 10.0 * fixed,
		      "pcpu-batch-2ncpu folds %.1f per 1000 brk calls, the policy batch %.1f",
		      before, fixed);
}
END_TEST

/* Per-cpu allocations per fork, on the bench's seed 004 machine and loop. */
static double allocs_per_fork(const char *variant)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct mm_counter_stats c0, c1;

	bench_spawn_config(&cfg);
	sim = machine(&cfg, variant);
	ck_assert_int_eq(bench_spawn_setup(sim), 0);
	mm_sim_counter_stats(sim, &c0);
	ck_assert_int_eq(bench_spawn_loop(sim, S4_FORKS), 0);
	mm_sim_counter_stats(sim, &c1);
	ck_assert_uint_eq(c1.forks - c0.forks, S4_FORKS);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
	return (double)(c1.fork_pcpu_allocs - c0.fork_pcpu_allocs) / S4_FORKS;
}

START_TEST(test_rss_counters_one_by_one_allocs)
{
	double many = allocs_per_fork(NULL),
	       one_by_one = allocs_per_fork("rss-counters-one-by-one");

	/* Exact: 2 and 5 (the rss counters take 1 with init_many, 4 one by one). */
	ck_assert_msg(one_by_one >= many + 2.0,
		      "rss-counters-one-by-one: %.2f per-cpu allocations per fork, init_many %.2f",
		      one_by_one, many);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("variant-figures");
	TCase *tc = tcase_create("figures");

	tcase_add_test(tc, test_pcpu_batch_2ncpu_folds);
	tcase_add_test(tc, test_rss_counters_one_by_one_allocs);
	suite_add_tcase(s, tc);
	return run_suite(s);
}

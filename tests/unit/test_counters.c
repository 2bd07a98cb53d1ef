/* SPDX-License-Identifier: MIT */
/*
 * test_counters.c - percpu_counter, vm_committed_as and the mm rss
 * counters against values worked out by hand (kernel-semantics.md §5, §6):
 *
 *   percpu_counter_batch  = max(32, 2 * online CPUs), on online and dead
 *   vm_committed_as_batch = max(2 * nr, 32, min(RAM / nr / 256 under NEVER,
 *                           otherwise RAM / nr / 4, INT_MAX)), nr = present
 *   add_batch folds when |local + amount| >= batch (not >)
 *   a dead CPU's locals fold into every listed counter
 *   init_many: one allocation, one list lock, all or nothing
 *   check_mm sums: a count that is not zero while the sum is, is no bug
 */
#include "common.h"
#include "internal.h"

#include <limits.h>

/* n CPUs on one node, one Normal zone of 1024 pages */
static struct mm_sim *counters_sim(unsigned int nr_cpus, const char *variant)
{
	struct mm_config cfg;

	cfg_tiny(&cfg, nr_cpus, 10, 9);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 1024, 1024);
	return variant ? sim_new_variant(&cfg, variant) : sim_new(&cfg);
}

static struct mm_counter_stats cstats(const struct mm_sim *sim)
{
	struct mm_counter_stats st;

	mm_sim_counter_stats(sim, &st);
	return st;
}

/* ------------------------------------------------------------------------
 * Batches
 * ---------------------------------------------------------------------- */

START_TEST(test_percpu_counter_batch)
{
	static const struct {
		unsigned int cpus;
		int batch;
	} grid[] = {
		{1, 32}, {2, 32}, {16, 32}, {17, 34}, {40, 80}, {64, 128}, {128, 256},
	};

	for (size_t i = 0; i < ARRAY_SIZE(grid); i++) {
		struct mm_sim *sim = counters_sim(grid[i].cpus, NULL);
		ck_assert_msg(mm_percpu_counter_batch(sim) == grid[i].batch, "%u CPUs: %d, want %d",
			      grid[i].cpus, mm_percpu_counter_batch(sim), grid[i].batch);
		mm_sim_destroy(sim);
	}
}
END_TEST

/* 40 CPUs: 80; 3 offline: max(32, 74) = 74; one back: 76. */
START_TEST(test_percpu_counter_batch_hotplug)
{
	struct mm_sim *sim = counters_sim(40, NULL);

	ck_assert_int_eq(mm_percpu_counter_batch(sim), 80);
	for (int cpu = 1; cpu <= 3; cpu++)
		ck_assert_int_eq(mm_cpu_offline(sim, cpu), 0);
	ck_assert_int_eq(mm_percpu_counter_batch(sim), 74);
	ck_assert_int_eq(mm_cpu_online(sim, 2), 0);
	ck_assert_int_eq(mm_percpu_counter_batch(sim), 76);
	/* vm_committed_as follows present CPUs, not online ones: 40 stays 40 */
	ck_assert_int_eq(mm_vm_committed_as_batch(sim), mm_compute_batch_for(40, 1024, 0));
	mm_sim_destroy(sim);
}
END_TEST

#define GB_PAGES(g) ((unsigned long)(g) << (30 - MM_PAGE_SHIFT))

START_TEST(test_committed_batch_grid)
{
	static const struct {
		unsigned int cpus;
		unsigned long ram;
		int policy, batch;
	} grid[] = {
		/* seed 003: 64 CPUs, 128 GB (33554432 pages): 128 -> 2048 under NEVER */
		{64, GB_PAGES(128), MM_OVERCOMMIT_NEVER, 2048},
		{64, GB_PAGES(128), MM_OVERCOMMIT_GUESS, 131072},
		{64, GB_PAGES(128), MM_OVERCOMMIT_ALWAYS, 131072},
		/* Tim Chen's box: 40 CPUs; 64 GB = 16777216 pages, / 40 = 419430 */
		{40, GB_PAGES(64), MM_OVERCOMMIT_NEVER, 1638},
		{40, GB_PAGES(64), MM_OVERCOMMIT_GUESS, 104857},
		/* small memory: the 32 and 2 * nr floors */
		{4, 1024, MM_OVERCOMMIT_NEVER, 32},
		{4, 1024, MM_OVERCOMMIT_GUESS, 64},
		{2, 1024, MM_OVERCOMMIT_GUESS, 128},
		{2, 1024, MM_OVERCOMMIT_NEVER, 32},
		{256, 1024, MM_OVERCOMMIT_GUESS, 512},
		{100, GB_PAGES(1), MM_OVERCOMMIT_NEVER, 200},
		/* 1 CPU, 2^40 pages: 2^38 is clamped to INT_MAX */
		{1, 1UL << 40, MM_OVERCOMMIT_GUESS, INT_MAX},
		{1, 1UL << 40, MM_OVERCOMMIT_NEVER, INT_MAX},
	};

	for (size_t i = 0; i < ARRAY_SIZE(grid); i++) {
		int b = mm_compute_batch_for(grid[i].cpus, grid[i].ram, grid[i].policy);
		ck_assert_msg(b == grid[i].batch, "%u CPUs, %lu pages, policy %d: %d, want %d",
			      grid[i].cpus, grid[i].ram, grid[i].policy, b, grid[i].batch);
	}
}
END_TEST

/* The model's machine: GUESS at boot, the sysctl recomputes; the variant's 2 * ncpus. */
START_TEST(test_committed_batch_sim)
{
	struct mm_sim *sim = counters_sim(2, NULL);

	ck_assert_int_eq(mm_overcommit_policy(sim), MM_OVERCOMMIT_GUESS);
	ck_assert_int_eq(mm_vm_committed_as_batch(sim), 128);
	ck_assert_int_eq(mm_set_overcommit_memory(sim, MM_OVERCOMMIT_NEVER), 0);
	ck_assert_int_eq(mm_vm_committed_as_batch(sim), 32);
	ck_assert_int_eq(mm_set_overcommit_memory(sim, 3), -1);
	ck_assert_int_eq(mm_overcommit_policy(sim), MM_OVERCOMMIT_NEVER);
	mm_sim_destroy(sim);

	sim = counters_sim(64, "pcpu-batch-2ncpu");
	ck_assert_int_eq(mm_vm_committed_as_batch(sim), 128);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * add, fold, compare, hotplug
 * ---------------------------------------------------------------------- */

START_TEST(test_fold_boundary)
{
	struct mm_sim *sim = counters_sim(2, NULL);

	mm_set_current_cpu(0);
	mm_pcpu_add(sim, 0, 7, 8);
	ck_assert_int_eq(mm_pcpu_read(sim, 0), 0); /* 7 < 8: stays local */
	mm_pcpu_add(sim, 0, 1, 8);
	ck_assert_int_eq(mm_pcpu_read(sim, 0), 8); /* 8 >= 8: folds (vmstat would not) */
	mm_pcpu_add(sim, 0, -7, 8);
	ck_assert_int_eq(mm_pcpu_read(sim, 0), 8);
	mm_pcpu_add(sim, 0, -1, 8);
	ck_assert_int_eq(mm_pcpu_read(sim, 0), 0); /* |-8| >= 8 */
	ck_assert_uint_eq(cstats(sim).pcpu_folds, 2);
	ck_assert_uint_eq(cstats(sim).pcpu_adds, 4);
	/* default batch 32: 31 stays, 32 in one add folds */
	mm_pcpu_add(sim, 1, 31, 0);
	ck_assert_int_eq(mm_pcpu_read(sim, 1), 0);
	ck_assert_int_eq(mm_pcpu_sum(sim, 1), 31);
	mm_pcpu_add(sim, 2, 32, 0);
	ck_assert_int_eq(mm_pcpu_read(sim, 2), 32);
	/* sync folds this CPU only; set zeroes every local */
	mm_set_current_cpu(1);
	mm_pcpu_add(sim, 1, 5, 0);
	mm_pcpu_sync(sim, 1);
	ck_assert_int_eq(mm_pcpu_read(sim, 1), 5);
	ck_assert_int_eq(mm_pcpu_sum(sim, 1), 36);
	mm_pcpu_set(sim, 1, -3);
	ck_assert_int_eq(mm_pcpu_read(sim, 1), -3);
	ck_assert_int_eq(mm_pcpu_sum(sim, 1), -3);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * 20 on each of 2 CPUs under batch 32: read 0, sum 40; compare uses the
 * sum within 32 * 2, the bound included (the read answers only past it).
 */
START_TEST(test_compare)
{
	struct mm_sim *sim = counters_sim(2, NULL);
	unsigned long long sums;

	for (int cpu = 0; cpu < 2; cpu++) {
		mm_set_current_cpu(cpu);
		mm_pcpu_add(sim, 3, 20, 32);
	}
	ck_assert_int_eq(mm_pcpu_read(sim, 3), 0);
	sums = cstats(sim).pcpu_sums;
	ck_assert_int_eq(mm_pcpu_compare(sim, 3, 39, 32), 1);
	ck_assert_int_eq(mm_pcpu_compare(sim, 3, 40, 32), 0);
	ck_assert_int_eq(mm_pcpu_compare(sim, 3, 41, 32), -1);
	ck_assert_uint_eq(cstats(sim).pcpu_sums, sums + 3);
	/* |0 - 64| = 64 is not > 64: the sum answers (1 sum more) */
	ck_assert_int_eq(mm_pcpu_compare(sim, 3, 64, 32), -1);
	ck_assert_uint_eq(cstats(sim).pcpu_sums, sums + 4);
	/* |0 - (-100)| > 64: the read answers, no sum */
	ck_assert_int_eq(mm_pcpu_compare(sim, 3, -100, 32), 1);
	ck_assert_uint_eq(cstats(sim).pcpu_sums, sums + 4);
	ck_assert_uint_eq(cstats(sim).pcpu_sum_cpus_read, 2 * (sums + 4));
	/* batch 0 asks for the machine's percpu_counter_batch, 32 here: the sum answers */
	ck_assert_int_eq(mm_pcpu_compare(sim, 3, 39, 0), 1);
	ck_assert_uint_eq(cstats(sim).pcpu_sums, sums + 5);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The counter ops as the executor runs them: pcpu_add leaves 5 in cpu1's
 * local (read 0), pcpu_sync as cpu1 folds it (read 5), and the sum is the
 * exact total throughout.
 */
START_TEST(test_counter_ops_sync)
{
	struct mm_sim *sim = counters_sim(2, NULL);
	struct mm_op add = {
		.kind = MM_OP_PCPU_ADD, .cpu = 1, .counter = {.value = 5, .counter = 4}};
	struct mm_op sync = {.kind = MM_OP_PCPU_SYNC, .cpu = 1, .counter = {.counter = 4}};

	ck_assert_int_eq(mm_apply_op(sim, &add, NULL, 0, 0), 0);
	ck_assert_int_eq(mm_pcpu_read(sim, 4), 0);
	ck_assert_int_eq(mm_pcpu_sum(sim, 4), 5);
	ck_assert_int_eq(mm_apply_op(sim, &sync, NULL, 0, 0), 0);
	ck_assert_int_eq(mm_pcpu_read(sim, 4), 5);
	ck_assert_int_eq(mm_pcpu_sum(sim, 4), 5);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * A counter number out of range: nothing happens, the add and the sync
 * say they skipped (1, as mm_apply_op() counts it), and reads, sums and
 * compares give 0.
 */
START_TEST(test_counter_out_of_range)
{
	struct mm_sim *sim = counters_sim(2, NULL);

	ck_assert_int_eq(mm_pcpu_add(sim, MM_MAX_PCPU_COUNTERS, 7, 0), 1);
	mm_pcpu_set(sim, MM_MAX_PCPU_COUNTERS, 7);
	ck_assert_int_eq(mm_pcpu_sync(sim, MM_MAX_PCPU_COUNTERS), 1);
	ck_assert_int_eq(mm_pcpu_read(sim, MM_MAX_PCPU_COUNTERS), 0);
	ck_assert_int_eq(mm_pcpu_sum(sim, MM_MAX_PCPU_COUNTERS), 0);
	/* rhs -5: a counter at 0 would compare 1 */
	ck_assert_int_eq(mm_pcpu_compare(sim, MM_MAX_PCPU_COUNTERS, -5, 0), 0);
	for (unsigned int i = 0; i < MM_MAX_PCPU_COUNTERS; i++)
		ck_assert_int_eq(mm_pcpu_sum(sim, i), 0);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * INV-PCPU-SUM-EXACT judges the value the sum returns: a count that
 * drifted from the ledger (a fold that lost its amount) is caught by the
 * first sum, with no add or full check in between.
 */
START_TEST(test_sum_exact_catches_lost_fold)
{
	struct mm_sim *sim = counters_sim(2, NULL);
	struct vrec vr;

	sim->serial = true; /* the check judges serial runs */
	vrec_init(&vr);
	mm_sim_set_violation_handler(sim, vrec_handler, &vr);
	mm_set_current_cpu(0);
	mm_pcpu_add(sim, 6, 40, 0);
	ck_assert_int_eq(mm_pcpu_sum(sim, 6), 40);
	ck_assert_uint_eq(vr.n, 0);
	sim->pcc->ctr[6].count -= 40; /* the fold's amount lost */
	ck_assert_int_eq(mm_pcpu_sum(sim, 6), 0);
	ck_assert(vrec_has(&vr, "INV-PCPU-SUM-EXACT"));
	mm_sim_destroy(sim);
}
END_TEST

/* A dead CPU's local folds into every listed counter: ops', committed, rss. */
START_TEST(test_hotplug_fold)
{
	struct mm_sim *sim = counters_sim(4, NULL);

	mm_set_current_cpu(3);
	mm_pcpu_add(sim, 5, 20, 0);
	ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
	ck_assert_int_eq(mm_mmap(sim, 0, 10, MM_SHMEMPAGES, 0), 0);
	ck_assert_int_eq(mm_pcpu_read(sim, 5), 0);
	ck_assert_int_eq(mm_get_mm_counter(sim, 0, MM_SHMEMPAGES), 0);
	ck_assert_int_eq(mm_vm_committed_read(sim), 0);
	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_cpu_offline(sim, 3), 0);
	ck_assert_int_eq(mm_pcpu_read(sim, 5), 20);
	ck_assert_int_eq(mm_pcpu_sum(sim, 5), 20);
	ck_assert_int_eq(mm_get_mm_counter(sim, 0, MM_SHMEMPAGES), 10);
	ck_assert_int_eq(mm_vm_committed_read(sim), 10);
	ck_assert_int_eq(mm_exit(sim, 0), 0);
	ck_assert_int_eq(mm_vm_committed_sum(sim), 0);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Every rss type, the first and the last included, through each public
 * call that takes one: a map and an unmap of its own amount (under the
 * batch: it stays in CPU 3's local), then the fold of CPU 3's death
 * makes it the counter's count, which get_mm_counter() reads.
 */
START_TEST(test_rss_every_type)
{
	struct mm_sim *sim = counters_sim(4, NULL);

	mm_set_current_cpu(3);
	ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
	for (int type = 0; type < NR_MM_COUNTERS; type++) {
		ck_assert_int_eq(mm_mmap(sim, 0, 12 + (unsigned long)type, type, 0), 0);
		ck_assert_int_eq(mm_munmap(sim, 0, 2, type), 0);
		ck_assert_int_eq(mm_rss_sum(sim, 0, type), 10 + type);
		ck_assert_int_eq(mm_rss_local(sim, 0, type, 3), 10 + type);
		ck_assert_int_eq(mm_get_mm_counter(sim, 0, type), 0);
	}
	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_cpu_offline(sim, 3), 0);
	for (int type = 0; type < NR_MM_COUNTERS; type++) {
		ck_assert_int_eq(mm_get_mm_counter(sim, 0, type), 10 + type);
		ck_assert_int_eq(mm_rss_local(sim, 0, type, 3), 0);
	}
	ck_assert_int_eq(mm_exit(sim, 0), 0);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The full check reads a group of counters in one pass and only goes
 * counter by counter when the group fails: a bad local anywhere in the
 * group (past its bound, in the sum, on a dead CPU) must still be
 * reported, by the counter and CPU it is on.
 */
START_TEST(test_group_check_reports)
{
	struct mm_sim *sim = counters_sim(8, NULL);
	struct percpu_counter *c = sim->pcc->ctr;
	struct vrec vr;

	vrec_init(&vr);
	mm_sim_set_violation_handler(sim, vrec_handler, &vr);
	mm_set_current_cpu(6);
	mm_pcpu_add(sim, 13, 5, 0);
	sim->pcc->touched = true; /* as the executor marks a counter op */
	ck_assert(_mm_pcpu_group_ok(sim, c, MM_MAX_PCPU_COUNTERS));
	ck_assert_uint_eq(_mm_counters_check_full(sim), 0);

	/* c13's local on CPU 6 past what its batch allows (the maxb shadow says 32) */
	c[13].counters[6 * c[13].stride] = 40;
	c[13].truth += 35;
	ck_assert(!_mm_pcpu_group_ok(sim, c, MM_MAX_PCPU_COUNTERS));
	ck_assert_uint_eq(_mm_counters_check_full(sim), 1);
	ck_assert_uint_eq(vr.n, 1);
	ck_assert_str_eq(vr.id[0], "INV-PCPU-DRIFT");
	ck_assert_msg(strstr(vr.first, "c13") && strstr(vr.first, "cpu=6"), "%s", vr.first);
	c[13].counters[6 * c[13].stride] = 5;
	c[13].truth -= 35;
	ck_assert(_mm_pcpu_group_ok(sim, c, MM_MAX_PCPU_COUNTERS));

	/* the sum: one amount the counter never saw, on the first counter of the group */
	c[0].truth += 1;
	ck_assert(!_mm_pcpu_group_ok(sim, c, MM_MAX_PCPU_COUNTERS));
	vrec_init(&vr);
	ck_assert_uint_eq(_mm_counters_check_full(sim), 1);
	ck_assert_str_eq(vr.id[0], "INV-PCPU-SUM");
	c[0].truth -= 1;
	ck_assert(_mm_pcpu_group_ok(sim, c, MM_MAX_PCPU_COUNTERS));

	/*
	 * A dead CPU that still holds a local, within its bound and outside
	 * the online sum: only the offline test can see it.
	 */
	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_cpu_offline(sim, 7), 0);
	ck_assert(_mm_pcpu_group_ok(sim, c, MM_MAX_PCPU_COUNTERS));
	c[2].counters[7 * c[2].stride] = 3;
	c[2].maxb[7 * c[2].stride] = 32;
	ck_assert(!_mm_pcpu_group_ok(sim, c, MM_MAX_PCPU_COUNTERS));
	vrec_init(&vr);
	ck_assert_uint_eq(_mm_counters_check_full(sim), 1);
	ck_assert_str_eq(vr.id[0], "INV-PCPU-SUM");
	ck_assert_msg(strstr(vr.first, "c2") && strstr(vr.first, "cpu=7"), "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The full check covers the ops' counters and every live mm: with the
 * counter group broken (c13's local on CPU 6 past its batch) and a live
 * mm holding rss folded into its counts, it reports c13 once, and the mm
 * (correct) nothing. The walk over the ops' counters stops at the last.
 */
START_TEST(test_full_check_with_a_live_mm)
{
	struct mm_sim *sim = counters_sim(8, NULL);
	struct percpu_counter *c = sim->pcc->ctr;
	struct vrec vr;

	sim_record(sim, &vr);
	mm_set_current_cpu(6);
	mm_pcpu_add(sim, 13, 5, 0);
	ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
	for (int type = 0; type < NR_MM_COUNTERS; type++)
		ck_assert_int_eq(mm_mmap(sim, 0, 100, type, 0), 0);
	ck_assert_int_eq(mm_get_mm_counter(sim, 0, MM_ANONPAGES), 100);
	sim->pcc->touched = true;
	ck_assert_uint_eq(_mm_counters_check_full(sim), 0);
	c[13].counters[6 * c[13].stride] = 40;
	c[13].truth += 35;
	ck_assert_uint_eq(_mm_counters_check_full(sim), 1);
	ck_assert_uint_eq(vr.n, 1);
	ck_assert_str_eq(vr.id[0], "INV-PCPU-DRIFT");
	ck_assert_msg(strstr(vr.first, "c13") && strstr(vr.first, "cpu=6"), "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * percpu_counter_set() zeroes every local, so until the next add a CPU's
 * local may hold nothing: the drift bound (the maxb shadow) starts again
 * at 0. A local of 5 after the set, balanced by the count so the sum is
 * still exact, is drift no add made: INV-PCPU-DRIFT on that CPU, though
 * an add with batch 1000 before the set allowed 999.
 */
START_TEST(test_set_resets_drift_bound)
{
	struct mm_sim *sim = counters_sim(8, NULL);
	struct percpu_counter *c = &sim->pcc->ctr[13];
	struct vrec vr;

	sim_record(sim, &vr);
	mm_set_current_cpu(6);
	mm_pcpu_add(sim, 13, 500, 1000);
	ck_assert_int_eq(mm_pcpu_local(sim, 13, 6), 500);
	sim->pcc->touched = true; /* as the executor marks a counter op */
	ck_assert_uint_eq(_mm_counters_check_full(sim), 0);
	mm_pcpu_set(sim, 13, 0);
	ck_assert_int_eq(mm_pcpu_local(sim, 13, 6), 0);
	ck_assert_uint_eq(_mm_counters_check_full(sim), 0);
	ck_assert_uint_eq(vr.n, 0);

	c->counters[6 * c->stride] = 5;
	c->count -= 5;
	ck_assert_int_eq(mm_pcpu_sum(sim, 13), 0);
	ck_assert_uint_eq(_mm_counters_check_full(sim), 1);
	ck_assert_str_eq(vr.id[0], "INV-PCPU-DRIFT");
	ck_assert_msg(strstr(vr.first, "c13") && strstr(vr.first, "cpu=6"), "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * _mm_pcpu_group_ok() sums a group through one layout (counter i's locals
 * at area + i, its batches at area + nr + i, a stride of 2 * nr); a group
 * whose first counter does not follow it, batches or stride, is not
 * judged that way (false: the per-counter check runs instead).
 */
START_TEST(test_group_check_wants_the_layout)
{
	struct mm_sim *sim = counters_sim(2, NULL);
	struct percpu_counter *fbc = sim->pcc->ctr;
	int32_t *maxb;
	unsigned int stride;

	sim->serial = true;
	mm_set_current_cpu(0);
	mm_pcpu_add(sim, 0, 1, 32); /* the group's area exists now */
	ck_assert_ptr_nonnull(fbc[0].counters);
	maxb = fbc[0].maxb;
	stride = fbc[0].stride;
	ck_assert(_mm_pcpu_group_ok(sim, fbc, MM_MAX_PCPU_COUNTERS));
	fbc[0].maxb = maxb + 1;
	ck_assert(!_mm_pcpu_group_ok(sim, fbc, MM_MAX_PCPU_COUNTERS));
	fbc[0].maxb = maxb;
	fbc[0].stride = stride + 1;
	ck_assert(!_mm_pcpu_group_ok(sim, fbc, MM_MAX_PCPU_COUNTERS));
	fbc[0].stride = stride;
	ck_assert(_mm_pcpu_group_ok(sim, fbc, MM_MAX_PCPU_COUNTERS));
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The counters' full check judges an mm's rss counters too: the grouped
 * check of the mm's counters finds the fault, and the per-counter check
 * it falls back to names it (INV-PCPU-SUM: count + locals below every
 * amount added).
 */
START_TEST(test_full_check_judges_mm_rss)
{
	struct mm_sim *sim = counters_sim(2, NULL);
	struct percpu_counter *fbc;
	struct vrec vr;

	sim->serial = true;	  /* the check judges serial runs */
	sim->pcc->touched = true; /* as the executor marks it for counter ops */
	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
	ck_assert_int_eq(mm_mmap(sim, 0, 10, MM_SHMEMPAGES, 0), 0);
	sim_record(sim, &vr);
	ck_assert_uint_eq(mm_check_counters_full(sim), 0);
	fbc = &sim->pcc->mm[0].rss_stat[MM_SHMEMPAGES];
	fbc->count -= 5;
	ck_assert_uint_ge(mm_check_counters_full(sim), 1);
	ck_assert_msg(vrec_has(&vr, "INV-PCPU-SUM"), "got: %s", vr.n ? vr.first : "-");
	fbc->count += 5;
	mm_sim_destroy(sim);
}
END_TEST

/*
 * __percpu_counter_compare() promises the exact answer only when batch *
 * num_online_cpus() covers what the locals may hold. -500 added with batch
 * 1000 on one CPU (read 0), compared with rhs -10 and batch 1: |0 + 10| >
 * 1 * 2, so the read answers 1 where the exact sign is -1. The adds allow
 * 999 of drift, more than 2: no promise, no INV-PCPU-COMPARE, on whichever
 * CPU the drift sits. A count moved behind the checker's back (read 100,
 * exact 0, no drift allowed) breaks the promise: compare(50) says 1, the
 * exact sign is -1, and INV-PCPU-COMPARE reports it.
 */
START_TEST(test_compare_promise)
{
	for (int cpu = 0; cpu < 2; cpu++) {
		struct mm_sim *sim = counters_sim(2, NULL);
		struct vrec vr;

		sim->serial = true; /* the check judges serial runs */
		sim_record(sim, &vr);
		mm_set_current_cpu(cpu);
		mm_pcpu_add(sim, 9, -500, 1000);
		ck_assert_int_eq(mm_pcpu_read(sim, 9), 0);
		ck_assert_int_eq(mm_pcpu_compare(sim, 9, -10, 1), 1);
		ck_assert_msg(vr.n == 0, "drift on cpu %d: %s", cpu, vr.first);
		mm_sim_destroy(sim);
	}

	struct mm_sim *sim = counters_sim(2, NULL);
	struct vrec vr;

	sim->serial = true;
	sim_record(sim, &vr);
	mm_set_current_cpu(0);
	sim->pcc->ctr[9].count = 100;
	ck_assert_int_eq(mm_pcpu_compare(sim, 9, 50, 1), 1);
	ck_assert(vrec_has(&vr, "INV-PCPU-COMPARE"));
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * fork, init_many, check_mm
 * ---------------------------------------------------------------------- */

START_TEST(test_init_many_all_or_nothing)
{
	struct mm_sim *sim = counters_sim(2, NULL);
	long live = mm_pcpu_live_allocs(sim);
	unsigned int listed = mm_pcpu_counters_listed(sim);
	struct mm_counter_stats st;

	ck_assert_int_eq(live, 2); /* the ops' counters and vm_committed_as */
	ck_assert_uint_eq(listed, MM_MAX_PCPU_COUNTERS + 1);
	/* mm_alloc_cid fails; then init_many fails: nothing stays, nothing listed */
	for (unsigned int fail = MM_FORK_FAIL_ALLOC1; fail <= 2; fail++) {
		ck_assert_int_eq(mm_fork(sim, 0, -1, fail), 0);
		ck_assert(!mm_mm_live(sim, 0));
		ck_assert_int_eq(mm_pcpu_live_allocs(sim), live);
		ck_assert_uint_eq(mm_pcpu_counters_listed(sim), listed);
	}
	/* a third allocation is never asked for: the fork succeeds */
	ck_assert_int_eq(mm_fork(sim, 0, -1, 3), 0);
	ck_assert(mm_mm_live(sim, 0));
	ck_assert_int_eq(mm_pcpu_live_allocs(sim), live + 2);
	ck_assert_uint_eq(mm_pcpu_counters_listed(sim), listed + NR_MM_COUNTERS);
	/* dup_mmap fails: mmput frees the child */
	ck_assert_int_eq(mm_fork(sim, 1, 0, MM_FORK_FAIL_DUP_MMAP), 0);
	ck_assert(!mm_mm_live(sim, 1));
	ck_assert_int_eq(mm_exit(sim, 0), 0);
	ck_assert_int_eq(mm_pcpu_live_allocs(sim), live);
	ck_assert_uint_eq(mm_pcpu_counters_listed(sim), listed);
	st = cstats(sim);
	ck_assert_uint_eq(st.forks, 4);
	ck_assert_uint_eq(st.forks_failed, 3);
	/* made: 0 (cid fails) + 1 (init_many fails) + 2 + 2 (dup_mmap fails) */
	ck_assert_uint_eq(st.fork_pcpu_allocs, 5);
	/* two insertions and the failed child's removal in mmput */
	ck_assert_uint_eq(st.fork_list_locks, 3);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* seed 004's figure: per fork, 2 allocations and 1 list lock vs 5 and 4 */
START_TEST(test_fork_cost_one_by_one)
{
	static const struct {
		const char *variant;
		unsigned long long allocs, locks;
	} want[] = {{NULL, 2, 1}, {"rss-counters-one-by-one", 5, 4}};

	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		struct mm_sim *sim = counters_sim(2, want[i].variant);
		struct mm_counter_stats st;

		for (int n = 0; n < 10; n++) {
			ck_assert_int_eq(mm_fork(sim, 1, -1, 0), 0);
			ck_assert_int_eq(mm_exit(sim, 1), 0);
		}
		st = cstats(sim);
		ck_assert_uint_eq(st.forks, 10);
		ck_assert_uint_eq(st.fork_pcpu_allocs, 10 * want[i].allocs);
		ck_assert_uint_eq(st.fork_list_locks, 10 * want[i].locks);
		/* one by one, an init failing at the 4th counter unwinds the other 3 */
		ck_assert_int_eq(mm_fork(sim, 1, -1, want[i].allocs == 5 ? 5 : 2), 0);
		ck_assert(!mm_mm_live(sim, 1));
		ck_assert_int_eq(mm_pcpu_live_allocs(sim), 2);
		ck_assert_uint_eq(mm_sim_violations(sim), 0);
		mm_sim_destroy(sim);
	}
}
END_TEST

/* 40 anon pages on cpu0 (count 40), -10 on cpu1, -30 at exit on cpu0: sum 0, read 40 */
static unsigned int exit_spread(const char *variant, struct vrec *vr)
{
	struct mm_sim *sim = counters_sim(2, variant);
	unsigned int n;

	vrec_init(vr);
	mm_sim_set_violation_handler(sim, vrec_handler, vr);
	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
	ck_assert_int_eq(mm_mmap(sim, 0, 40, MM_ANONPAGES, 0), 0);
	ck_assert_int_eq(mm_get_mm_counter(sim, 0, MM_ANONPAGES), 40);
	mm_set_current_cpu(1);
	ck_assert_int_eq(mm_munmap(sim, 0, 10, MM_ANONPAGES), 0);
	ck_assert_int_eq(mm_get_mm_counter(sim, 0, MM_ANONPAGES), 40);
	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_exit(sim, 0), 0);
	n = vr->n;
	mm_sim_destroy(sim);
	return n;
}

START_TEST(test_check_mm_sum_vs_read)
{
	struct vrec vr;

	ck_assert_uint_eq(exit_spread(NULL, &vr), 0);
	ck_assert_uint_ne(exit_spread("rss-check-uses-read", &vr), 0);
	ck_assert(vrec_has(&vr, "INV-RSS-CHECK-AGREES"));
	ck_assert(!vrec_has(&vr, "INV-RSS-BAD-STATE"));
}
END_TEST

/*
 * The mm ops' contract (mmcore.h): 0 when the op ran, 1 when it was
 * skipped. A slot, parent, rss type or injected failure out of range, a
 * slot that is not live, and a thread that is no CPU of the machine are
 * skips that change nothing: slot 0 keeps its 8 anon pages and its charge.
 */
START_TEST(test_mm_ops_skip)
{
	struct mm_sim *sim = counters_sim(2, NULL);

	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
	ck_assert_int_eq(mm_mmap(sim, 0, 8, MM_ANONPAGES, 0), 0);
	ck_assert_int_eq(mm_vm_committed_sum(sim), 8);

	ck_assert_int_eq(mm_fork(sim, -1, -1, 0), 1);
	ck_assert_int_eq(mm_fork(sim, MM_MAX_MMS, -1, 0), 1);
	ck_assert_int_eq(mm_fork(sim, 1, -2, 0), 1);
	ck_assert_int_eq(mm_fork(sim, 1, MM_MAX_MMS, 0), 1);
	ck_assert_int_eq(mm_fork(sim, 1, 0, MM_FORK_FAIL_MAX + 1), 1);
	ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 1); /* the child slot is live */
	for (int type = -1; type <= NR_MM_COUNTERS; type += NR_MM_COUNTERS + 1) {
		ck_assert_int_eq(mm_mmap(sim, 0, 1, type, 0), 1);
		ck_assert_int_eq(mm_munmap(sim, 0, 1, type), 1);
		ck_assert_int_eq(mm_get_mm_counter(sim, 0, type), 0);
		ck_assert_int_eq(mm_rss_sum(sim, 0, type), 0);
		ck_assert_int_eq(mm_rss_local(sim, 0, type, 0), 0);
	}
	for (int idx = -1; idx <= MM_MAX_MMS; idx += MM_MAX_MMS + 1) {
		ck_assert_int_eq(mm_mmap(sim, idx, 1, MM_ANONPAGES, 0), 1);
		ck_assert_int_eq(mm_munmap(sim, idx, 1, MM_ANONPAGES), 1);
		ck_assert_int_eq(mm_exit(sim, idx), 1);
		ck_assert_int_eq(mm_rss_sum(sim, idx, MM_ANONPAGES), 0);
	}
	ck_assert_int_eq(mm_mmap(sim, 1, 1, MM_ANONPAGES, 0), 1); /* not live */
	ck_assert_int_eq(mm_munmap(sim, 1, 1, MM_ANONPAGES), 1);
	ck_assert_int_eq(mm_exit(sim, 1), 1);
	ck_assert_int_eq(mm_rss_sum(sim, 1, MM_ANONPAGES), 0); /* reads of a slot not live */
	ck_assert_int_eq(mm_rss_local(sim, 1, MM_ANONPAGES, 0), 0);
	ck_assert_int_eq(mm_get_mm_counter(sim, 1, MM_ANONPAGES), 0);
	ck_assert_int_eq(mm_rss_local(sim, 0, MM_ANONPAGES, 2), 0); /* no CPU 2 */

	/* a thread that is no CPU of the machine runs no mm op */
	mm_set_current_cpu(2);
	ck_assert_int_eq(mm_fork(sim, 1, 0, 0), 1);
	ck_assert_int_eq(mm_mmap(sim, 0, 1, MM_ANONPAGES, 0), 1);
	ck_assert_int_eq(mm_munmap(sim, 0, 1, MM_ANONPAGES), 1);
	ck_assert_int_eq(mm_exit(sim, 0), 1);
	mm_set_current_cpu(0);

	ck_assert(!mm_mm_live(sim, 1));
	ck_assert(mm_mm_live(sim, 0));
	ck_assert_int_eq(mm_rss_sum(sim, 0, MM_ANONPAGES), 8);
	ck_assert_int_eq(mm_vm_committed_sum(sim), 8);
	ck_assert_int_eq(mm_exit(sim, 0), 0);
	ck_assert_int_eq(mm_vm_committed_sum(sim), 0);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * NEVER on 1024 pages: limit 512, admin reserve 32, user reserve
 * min(total_vm / 32, 32). 400 pages: read 400 < 480, admitted; 100 more:
 * 500 >= 512 - 32 - 400 / 32 = 468, refused and unaccounted.
 */
START_TEST(test_overcommit_never)
{
	struct mm_sim *sim = counters_sim(2, NULL);

	ck_assert_uint_eq(mm_vm_commit_limit(sim), 512);
	ck_assert_int_eq(mm_set_overcommit_memory(sim, MM_OVERCOMMIT_NEVER), 0);
	ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
	ck_assert_int_eq(mm_mmap(sim, 0, 400, MM_ANONPAGES, 0), 0);
	ck_assert_int_eq(mm_vm_committed_sum(sim), 400);
	ck_assert_int_eq(mm_mmap(sim, 0, 100, MM_ANONPAGES, 0), 0);
	ck_assert_int_eq(mm_vm_committed_sum(sim), 400);
	ck_assert_uint_eq(cstats(sim).vm_enough_refused, 1);
	/* CAP_SYS_ADMIN skips the admin reserve: 462 < 512 - 12 */
	ck_assert_int_eq(mm_mmap(sim, 0, 62, MM_ANONPAGES, MM_MMAP_ADMIN), 0);
	ck_assert_int_eq(mm_vm_committed_sum(sim), 462);
	ck_assert_int_eq(mm_get_mm_counter(sim, 0, MM_ANONPAGES), 462);
	/* GUESS refuses only more than RAM at once */
	ck_assert_int_eq(mm_set_overcommit_memory(sim, MM_OVERCOMMIT_GUESS), 0);
	ck_assert_int_eq(mm_vm_enough_memory(sim, 0, 1025, false), -12);
	ck_assert_int_eq(mm_vm_enough_memory(sim, 0, 1024, false), 0);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* The switch without sync leaves GUESS-sized locals under NEVER. */
START_TEST(test_policy_switch_no_sync)
{
	const char *variants[] = {NULL, "commit-policy-switch-no-sync"};

	for (size_t i = 0; i < ARRAY_SIZE(variants); i++) {
		struct mm_sim *sim = counters_sim(2, variants[i]);
		struct vrec vr;

		vrec_init(&vr);
		mm_sim_set_violation_handler(sim, vrec_handler, &vr);
		mm_set_current_cpu(1);
		ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
		ck_assert_int_eq(mm_mmap(sim, 0, 100, MM_FILEPAGES, 0), 0);
		ck_assert_int_eq(mm_vm_committed_read(sim), 0);
		mm_set_current_cpu(0);
		ck_assert_int_eq(mm_set_overcommit_memory(sim, MM_OVERCOMMIT_NEVER), 0);
		if (i == 0) {
			ck_assert_int_eq(mm_vm_committed_read(sim), 100);
			ck_assert_uint_eq(vr.n, 0);
		} else {
			ck_assert_int_eq(mm_vm_committed_read(sim), 0);
			ck_assert(vrec_has(&vr, "INV-COMMIT-DRIFT"));
			/* its bug is the order and the missing sync, not the batch */
			ck_assert(!vrec_has(&vr, "INV-DERIVED-COMMIT-BATCH"));
		}
		/* both recompute the batch: NEVER's on 2 CPUs and 1024 pages */
		ck_assert_int_eq(mm_vm_committed_as_batch(sim),
				 mm_compute_batch_for(2, 1024, MM_OVERCOMMIT_NEVER));
		mm_sim_destroy(sim);
	}
}
END_TEST

/*
 * A policy under test with a NEVER batch above the kernel's (the
 * percpu-batch knob at 1024, the rule's 32 here): INV-COMMIT-DRIFT and
 * INV-COMMIT-NEVER bound the locals by the batch in force, which
 * vm_acct_memory() raises the checker's bound to, so 500 pages charged
 * and held in CPU 0's local break neither (and INV-DERIVED-COMMIT-BATCH
 * takes the policy's rule): a larger batch loosens only its own bound
 * (docs/policy-lab.md).
 */
START_TEST(test_never_bound_follows_the_batch_in_force)
{
	struct mm_sim *sim;
	struct vrec vr;

	ck_assert_int_eq(mm_policy_knob_set("percpu-batch", 1024), 0);
	sim = counters_sim(2, NULL);
	sim->serial = true; /* the per-op checks */
	sim_record(sim, &vr);
	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_set_overcommit_memory(sim, MM_OVERCOMMIT_NEVER), 0);
	ck_assert_int_eq(mm_vm_committed_as_batch(sim), 1024);
	ck_assert_int_eq(mm_compute_batch_for(2, 1024, MM_OVERCOMMIT_NEVER), 32);
	ck_assert_int_eq(mm_vm_enough_memory(sim, 0, 400, false), 0);
	ck_assert_int_eq(mm_vm_committed_local(sim, 0), 400);
	ck_assert_int_eq(mm_vm_enough_memory(sim, 0, 100, true), 0);
	ck_assert_int_eq(mm_vm_committed_local(sim, 0), 500);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	ck_assert_msg(vr.n == 0, "%u reports, first %s", vr.n, vr.first);
	mm_sim_destroy(sim);
	ck_assert_int_eq(mm_policy_knob_set("percpu-batch", 0), 0);
}
END_TEST

/*
 * The full check skips the counters of a machine no counter op has run on
 * since the reset (pcc->touched). Each counter op kind marks it, whether
 * it acts or is skipped (an mm op on no live mm): after a program of that
 * op alone, counter c0 moved behind the checker's back (its count 3 above
 * every amount added) must be INV-PCPU-SUM at the next full check.
 */
static const char *const touching_ops[] = {
	"cpu0 pcpu_add c1 amount=3",
	"cpu0 pcpu_compare c1 rhs=3",
	"cpu0 pcpu_set c1 value=5",
	"cpu0 pcpu_sync c1",
	"cpu0 fork m0",
	"cpu0 mmap m0 pages=4 type=file",
	"cpu0 munmap m0 pages=4 type=file",
	"cpu0 brk m0 pages=5 admin",
	"cpu0 exit m0",
	"cpu0 sysctl overcommit_memory=2",
};

START_TEST(test_counter_op_arms_full_check)
{
	char text[512];
	struct mm_exec *ex = mm_exec_create();
	struct mm_exec_opts o;
	struct vrec vr;
	long failed;

	snprintf(text, sizeof(text),
		 "config nodes=1 cpus=2 max_order=10 pageblock_order=9 min_free_kbytes=0 "
		 "watermark_scale_factor=10 high_fraction=0\n"
		 "zone 0 Normal start=0 spanned=1024 present=1024 managed=1024\n%s\n",
		 touching_ops[_i]);
	mm_exec_opts_default(&o);
	ck_assert_int_eq(exec_text(ex, text, &o, &vr, &failed), 0);
	struct mm_sim *sim = mm_exec_sim(ex);
	sim_record(sim, &vr);
	sim->pcc->ctr[0].count += 3;
	ck_assert_msg(mm_check_counters_full(sim) >= 1 && vrec_has(&vr, "INV-PCPU-SUM"),
		      "after '%s': %u reports", touching_ops[_i], vr.n);
	sim->pcc->ctr[0].count -= 3;
	mm_exec_destroy(ex);
}
END_TEST

/*
 * A charge that went through checks vm_committed_as at once (mm_mmap()'s
 * _mm_committed_check()), before any full scan: a count moved behind the
 * checker's back is reported by the next successful mmap.
 */
START_TEST(test_mmap_checks_committed)
{
	struct mm_sim *sim = counters_sim(2, NULL);
	struct vrec vr;

	sim->serial = true; /* as the executor runs it: the per-op checks are serial */
	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
	sim_record(sim, &vr);
	sim->pcc->vm_committed_as.count += 3;
	ck_assert_int_eq(mm_mmap(sim, 0, 8, MM_ANONPAGES, 0), 0);
	ck_assert_msg(vrec_has(&vr, "INV-PCPU-SUM"), "%u reports after the mmap", vr.n);
	sim->pcc->vm_committed_as.count -= 3;
	mm_sim_destroy(sim);
}
END_TEST

/*
 * So are the mm's rss counters (check_mm_counters() after an mmap and a
 * munmap), at once: an rss count moved behind the checker's back is
 * reported by each, before any full scan.
 */
START_TEST(test_mmap_checks_rss)
{
	struct mm_sim *sim = counters_sim(2, NULL);
	struct vrec vr;

	sim->serial = true;
	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
	sim_record(sim, &vr);
	sim->pcc->mm[0].rss_stat[MM_FILEPAGES].count += 3;
	ck_assert_int_eq(mm_mmap(sim, 0, 8, MM_ANONPAGES, 0), 0);
	ck_assert_msg(vrec_has(&vr, "INV-PCPU-SUM"), "%u reports after the mmap", vr.n);
	sim_record(sim, &vr);
	ck_assert_int_eq(mm_munmap(sim, 0, 8, MM_ANONPAGES), 0);
	ck_assert_msg(vrec_has(&vr, "INV-PCPU-SUM"), "%u reports after the munmap", vr.n);
	sim->pcc->mm[0].rss_stat[MM_FILEPAGES].count -= 3;
	mm_sim_destroy(sim);
}
END_TEST

/*
 * So is the counter an op moves or reads (the add, with the default batch
 * and with the op's own, the compare and the sync), at once: a count moved
 * behind the checker's back is reported by the op, before any full scan,
 * which is where a repro's trace then points. (A set rewrites the count
 * and every local: nothing moved before it is left to see.)
 */
static const char *const checking_ops[] = {"add", "add batch=8", "compare", "sync"};

START_TEST(test_counter_op_checks_its_counter)
{
	struct mm_sim *sim = counters_sim(2, NULL);
	struct vrec vr;

	sim->serial = true;
	mm_set_current_cpu(1);
	sim_record(sim, &vr);
	sim->pcc->ctr[1].count += 3;
	switch (_i) {
	case 0:
		ck_assert_int_eq(mm_pcpu_add(sim, 1, 2, 0), 0);
		break;
	case 1:
		ck_assert_int_eq(mm_pcpu_add(sim, 1, 2, 8), 0);
		break;
	case 2:
		mm_pcpu_compare(sim, 1, 100, 0);
		break;
	default:
		ck_assert_int_eq(mm_pcpu_sync(sim, 1), 0);
	}
	ck_assert_msg(vrec_has(&vr, "INV-PCPU-SUM"), "%s: %u reports after the op",
		      checking_ops[_i], vr.n);
	sim->pcc->ctr[1].count -= 3;
	mm_sim_destroy(sim);
}
END_TEST

static Suite *counters_suite(void)
{
	Suite *s = suite_create("counters");
	TCase *tc = tcase_create("batch");

	tcase_add_test(tc, test_percpu_counter_batch);
	tcase_add_test(tc, test_percpu_counter_batch_hotplug);
	tcase_add_test(tc, test_committed_batch_grid);
	tcase_add_test(tc, test_committed_batch_sim);
	suite_add_tcase(s, tc);
	tc = tcase_create("percpu_counter");
	tcase_add_test(tc, test_fold_boundary);
	tcase_add_test(tc, test_compare);
	tcase_add_test(tc, test_hotplug_fold);
	tcase_add_test(tc, test_rss_every_type);
	tcase_add_test(tc, test_counter_ops_sync);
	tcase_add_test(tc, test_counter_out_of_range);
	tcase_add_test(tc, test_sum_exact_catches_lost_fold);
	tcase_add_test(tc, test_group_check_reports);
	tcase_add_test(tc, test_full_check_with_a_live_mm);
	tcase_add_test(tc, test_set_resets_drift_bound);
	tcase_add_test(tc, test_compare_promise);
	tcase_add_test(tc, test_full_check_judges_mm_rss);
	tcase_add_test(tc, test_group_check_wants_the_layout);
	suite_add_tcase(s, tc);
	tc = tcase_create("mm");
	tcase_add_test(tc, test_init_many_all_or_nothing);
	tcase_add_test(tc, test_fork_cost_one_by_one);
	tcase_add_test(tc, test_check_mm_sum_vs_read);
	tcase_add_test(tc, test_mm_ops_skip);
	tcase_add_test(tc, test_overcommit_never);
	tcase_add_test(tc, test_policy_switch_no_sync);
	tcase_add_test(tc, test_never_bound_follows_the_batch_in_force);
	tcase_add_loop_test(tc, test_counter_op_arms_full_check, 0, (int)ARRAY_SIZE(touching_ops));
	tcase_add_test(tc, test_mmap_checks_committed);
	tcase_add_test(tc, test_mmap_checks_rss);
	tcase_add_loop_test(tc, test_counter_op_checks_its_counter, 0,
			    (int)ARRAY_SIZE(checking_ops));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(counters_suite());
}

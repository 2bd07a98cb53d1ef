/* SPDX-License-Identifier: MIT */
/*
 * test_pcp_refresh.c - what the pcp lists owe to events outside the free
 * path: vm.stat_refresh decays every online CPU's high (6.7+
 * refresh_cpu_vm_stats(true) from vmstat_refresh()).
 */
#include "common.h"
#include "internal.h"

static struct zone *normal(struct mm_sim *sim)
{
	return &sim->node_data[0]->node_zones[ZONE_NORMAL];
}

/* One Normal zone of 4096 pages, nr_cpus CPUs, pcp lists on, serial. */
static struct mm_sim *pcp_machine(unsigned int nr_cpus)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, nr_cpus, 10, 9);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 4096, 4096);
	sim = sim_new(&cfg);
	mm_set_current_cpu(0);
	sim->serial = true;
	return sim;
}

/* The rule of decay_pcp_high() with empty lists: high - high / 8, at least high_min. */
static int decayed(int high, int high_min)
{
	int h = high - (high >> 3);

	return h > high_min ? h : high_min;
}

/*
 * vm.stat_refresh written on CPU 0 decays the high of every online CPU,
 * not only the writer's: CPU 1 and 2 from high_max; CPU 3, offline, is
 * left alone (schedule_on_each_cpu() runs on the online CPUs).
 */
START_TEST(test_stat_refresh_decays_every_online_cpu)
{
	struct mm_sim *sim = pcp_machine(4);
	struct zone *z = normal(sim);
	struct mm_op op = {.kind = MM_OP_STAT_REFRESH, .cpu = 0};
	struct vrec vr;

	sim_record(sim, &vr);
	ck_assert_int_eq(mm_cpu_offline(sim, 3), 0);
	int lo = z->per_cpu_pageset[1].high_min, hi = z->per_cpu_pageset[1].high_max;
	ck_assert_int_lt(lo, decayed(hi, lo));
	for (int cpu = 1; cpu < 4; cpu++)
		z->per_cpu_pageset[cpu].high = hi;
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
	ck_assert_int_eq(z->per_cpu_pageset[1].high, decayed(hi, lo));
	ck_assert_int_eq(z->per_cpu_pageset[2].high, decayed(hi, lo));
	ck_assert_int_eq(z->per_cpu_pageset[3].high, hi);
	/* a second write decays again */
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
	ck_assert_int_eq(z->per_cpu_pageset[2].high, decayed(decayed(hi, lo), lo));
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The decay frees the pages above the new high to the buddy; the estimate
 * was exact after the fold (INV-VMSTAT-EXACT judged there), and the
 * decay's frees wait in the writer's diff, as in the kernel.
 */
START_TEST(test_stat_refresh_decay_drains_above_high)
{
	struct mm_sim *sim = pcp_machine(2);
	struct zone *z = normal(sim);
	struct per_cpu_pages *pcp = &z->per_cpu_pageset[1];
	struct mm_op op = {.kind = MM_OP_STAT_REFRESH, .cpu = 0};
	struct vrec vr;
	uint32_t gen[64];
	long long pfn[64];

	sim_record(sim, &vr);
	mm_set_current_cpu(1);
	for (int i = 0; i < 64; i++)
		pfn[i] = mm_alloc_pages(sim, 0, MM_GFP_KERNEL | MM_GFP_MOVABLE, -1, 1, &gen[i]);
	for (int i = 0; i < 64; i++)
		mm_free_pages(sim, (uint64_t)pfn[i], 0, 1, gen[i]);
	mm_set_current_cpu(0);
	int count = pcp->count, lo = pcp->high_min;
	ck_assert_int_gt(count, lo); /* the frees raised high above high_min to keep them */
	pcp->high = count;
	int want = decayed(count, lo);
	ck_assert_int_lt(want, count);
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
	ck_assert_int_eq(pcp->high, want);
	ck_assert_int_le(pcp->count, want);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *pcp_refresh_suite(void)
{
	Suite *s = suite_create("pcp_refresh");
	TCase *tc = tcase_create("stat_refresh");

	tcase_add_test(tc, test_stat_refresh_decays_every_online_cpu);
	tcase_add_test(tc, test_stat_refresh_decay_drains_above_high);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(pcp_refresh_suite());
}

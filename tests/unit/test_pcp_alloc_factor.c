/* SPDX-License-Identifier: MIT */
/*
 * test_pcp_alloc_factor.c - one order-0 refill of an empty pcp list
 * (nr_pcp_alloc(), mm/page_alloc.c 6.7+) over a grid of its inputs: the
 * CPU's high, its alloc_factor and the zone's ZONE_BELOW_HIGH.
 *
 * The rule: high = clamp(high, high_min, high_max); batch' = batch <<
 * alloc_factor; unless high_min == high_max or the zone is below its high
 * mark, high = min(high + batch', high_max), stored; max_nr_alloc =
 * max(high - count - batch, batch); alloc_factor++ if batch' <=
 * max_nr_alloc and alloc_factor < CONFIG_PCP_BATCH_SCALE_MAX (5); the
 * refill takes min(batch', max_nr_alloc) pages, one of them handed out.
 *
 * The machine: one CPU, one Normal zone of 65536 pages (batch 15); each row
 * sets CPU 0's high and alloc_factor and the zone's flag by hand, on empty
 * lists (count 0), and allocates one page. The highs tried sit at
 * 15 * (1 + 2^f) and around it, where batch' == max_nr_alloc below high.
 */
#include "common.h"
#include "internal.h"

#define SCALE_MAX 5 /* CONFIG_PCP_BATCH_SCALE_MAX */

struct refill {
	int high, factor, pages;
};

static struct refill refill_rule(int base, int high_min, int high_max, int high, int factor,
				 bool below_high)
{
	struct refill r;
	int batch = base << factor, max_nr;

	high = high < high_min ? high_min : high > high_max ? high_max : high;
	if (high_min != high_max && !below_high)
		high = high + batch < high_max ? high + batch : high_max;
	max_nr = high - 0 - base > base ? high - base : base;
	r.high = high;
	r.factor = batch <= max_nr && factor < SCALE_MAX ? factor + 1 : factor;
	r.pages = batch < max_nr ? batch : max_nr;
	return r;
}

START_TEST(test_refill_grid)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct zone *z;
	struct per_cpu_pages *pcp;
	int base, high_min, high_max;
	unsigned int rows = 0, ties = 0;

	cfg_tiny(&cfg, 1, 10, 9);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 65536, 65536);
	sim = sim_new(&cfg);
	mm_set_current_cpu(0);
	z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	pcp = &z->per_cpu_pageset[0];
	base = pcp->batch;
	high_min = pcp->high_min;
	high_max = pcp->high_max;
	ck_assert_int_eq(base, 15);
	ck_assert_int_lt(high_min, high_max);

	int highs[3 * (SCALE_MAX + 1) + 6], nh = 0;
	for (int f = 0; f <= SCALE_MAX; f++)
		for (int d = -1; d <= 1; d++)
			highs[nh++] = base * (1 + (1 << f)) + d;
	highs[nh++] = high_min - 1;
	highs[nh++] = high_min;
	highs[nh++] = high_max - 1;
	highs[nh++] = high_max;
	highs[nh++] = high_max + 1;
	highs[nh++] = 1000;

	for (int h = 0; h < nh; h++)
		for (int f = 0; f <= SCALE_MAX; f++)
			for (int below = 0; below <= 1; below++) {
				struct refill want =
					refill_rule(base, high_min, high_max, highs[h], f, below);
				struct mm_stats before = sim_stats(sim), after;
				uint32_t gen;
				long long pfn;

				ck_assert_int_eq(pcp->count, 0);
				pcp->high = highs[h];
				pcp->alloc_factor = f;
				if (below)
					atomic_fetch_or(&z->flags, ZONE_BELOW_HIGH);
				else
					atomic_fetch_and(&z->flags, ~ZONE_BELOW_HIGH);
				pfn = mm_alloc_pages(sim, 0, MM_GFP_MOVABLE, -1, 1, &gen);
				ck_assert_int_ge(pfn, 0);
				after = sim_stats(sim);
				ck_assert_msg(
					after.pcp_refills == before.pcp_refills + 1 &&
						(int)(after.pcp_pages_refilled -
						      before.pcp_pages_refilled) == want.pages &&
						pcp->count == want.pages - 1 &&
						pcp->high == want.high &&
						(int)pcp->alloc_factor == want.factor,
					"high %d factor %d%s: refilled %llu, high %d, factor %d; "
					"want %d, %d, %d",
					highs[h], f, below ? " below high" : "",
					after.pcp_pages_refilled - before.pcp_pages_refilled,
					pcp->high, (int)pcp->alloc_factor, want.pages, want.high,
					want.factor);
				ties += (base << f) == want.high - base;
				rows++;
				mm_free_pages(sim, (uint64_t)pfn, 0, 1, gen);
				mm_drain_local_pages(sim);
			}
	ck_assert_uint_eq(rows, (unsigned int)nh * (SCALE_MAX + 1) * 2);
	ck_assert_uint_gt(ties, 0);
	atomic_fetch_and(&z->flags, ~ZONE_BELOW_HIGH);
	pcp->high = high_min;
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *pcp_alloc_factor_suite(void)
{
	Suite *s = suite_create("pcp_alloc_factor");
	TCase *tc = tcase_create("nr_pcp_alloc");

	tcase_add_test(tc, test_refill_grid);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(pcp_alloc_factor_suite());
}

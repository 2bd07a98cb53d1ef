/* SPDX-License-Identifier: MIT */
/*
 * test_pcp_batch_floor.c - INV-PCP-HIGH-FLOOR over a grid of a CPU's
 * batch, high_min and high_max.
 *
 * The rule it holds the sizing to: zone_batchsize() yields 2^n - 1 up to
 * 63 (0 for small zones, which zone_set_pageset_high_and_batch()'s
 * max(1, .) makes 1), so a CPU's batch is one of 1, 3, 7, 15, 31, 63; and
 * zone_highsize() gives at least 4 * batch, so high_min and high_max are
 * both at least 4 * batch. A pageset outside that is INV-PCP-HIGH-FLOOR;
 * one inside it but not the policy's values for the zone is INV-PCP-SIZING.
 *
 * The machine: one CPU, one Normal zone of 65536 pages (batch 15). CPU 0's
 * pageset is set to each row by hand and _mm_pcp_check_sizing() run.
 */
#include "common.h"
#include "internal.h"

static bool kernel_batch(int b)
{
	return b == 1 || b == 3 || b == 7 || b == 15 || b == 31 || b == 63;
}

START_TEST(test_high_floor_grid)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct zone *z;
	struct per_cpu_pages *pcp;
	int batch, high_min, high_max;
	unsigned int rows = 0, floors = 0;
	struct vrec vr;

	cfg_tiny(&cfg, 1, 10, 9);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 65536, 65536);
	sim = sim_new(&cfg);
	z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	pcp = &z->per_cpu_pageset[0];
	batch = pcp->batch;
	high_min = pcp->high_min;
	high_max = pcp->high_max;
	ck_assert_int_eq(batch, 15);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	for (int b = -1; b <= 64; b++) {
		const int his[] = {4 * b - 1, 4 * b, high_min, high_max, 4 * 64};

		for (unsigned int i = 0; i < ARRAY_SIZE(his); i++)
			for (unsigned int j = 0; j < ARRAY_SIZE(his); j++) {
				int lo = his[i], hi = his[j];
				bool floor = !kernel_batch(b) || lo < 4 * b || hi < 4 * b;
				bool sizing =
					!floor && (b != batch || lo != high_min || hi != high_max);
				const char *want = floor    ? "INV-PCP-HIGH-FLOOR"
						   : sizing ? "INV-PCP-SIZING"
							    : NULL;

				pcp->batch = b;
				pcp->high_min = lo;
				pcp->high_max = hi;
				sim_record(sim, &vr);
				unsigned long bad = _mm_pcp_check_sizing(z);
				ck_assert_msg(want ? bad == 1 && vr.n == 1 &&
							      !strcmp(vr.id[0], want)
						   : bad == 0 && vr.n == 0,
					      "batch %d high_min %d high_max %d: %lu reports (%s), "
					      "want %s",
					      b, lo, hi, bad, vr.n ? vr.id[0] : "none",
					      want ? want : "none");
				floors += floor;
				rows++;
			}
	}
	pcp->batch = batch;
	pcp->high_min = high_min;
	pcp->high_max = high_max;
	ck_assert_uint_gt(floors, 0);
	ck_assert_uint_gt(rows - floors, 0);
	sim_record(sim, &vr);
	ck_assert_msg(mm_check_full(sim) == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *pcp_batch_floor_suite(void)
{
	Suite *s = suite_create("pcp_batch_floor");
	TCase *tc = tcase_create("sizing");

	tcase_add_test(tc, test_high_floor_grid);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(pcp_batch_floor_suite());
}

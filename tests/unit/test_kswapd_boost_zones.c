/* SPDX-License-Identifier: MIT */
/*
 * test_kswapd_boost_zones.c - which zones' boosts balance_pgdat() takes
 * back. It records the watermark_boost of every managed zone from ZONE_DMA
 * up to the wake's highest_zoneidx at the start of the pass and gives each
 * of those back at its end; a zone above highest_zoneidx keeps its boost.
 * One node holds DMA, DMA32 and Normal, all pages free (balanced), each
 * zone boosted by a pageblock of its own; kswapd woken up to each zone in
 * turn runs one pass: every zone up to that one must end unboosted, every
 * zone above it as it was, and INV-BOOST-DECAY silent.
 */
#include "common.h"
#include "internal.h"

#define ZONE_PAGES 128

static const enum zone_type zones[] = {ZONE_DMA, ZONE_DMA32, ZONE_NORMAL};

START_TEST(test_pass_takes_back_boosts_up_to_highest)
{
	enum zone_type highest = zones[_i];
	struct mm_config cfg;
	struct mm_sim *sim;
	struct vrec vr;

	cfg_tiny(&cfg, 1, 6, 5);
	for (size_t i = 0; i < ARRAY_SIZE(zones); i++)
		cfg_zone(&cfg, 0, zones[i], ZONE_PAGES * i, ZONE_PAGES, ZONE_PAGES);
	sim = sim_new_buddy_only(&cfg);
	sim->serial = true; /* the pass's boost checks run */
	mm_set_current_cpu(0);
	sim_record(sim, &vr);
	/* boosted as a steal would (boost_watermark(): a pageblock each), then woken */
	for (size_t i = 0; i < ARRAY_SIZE(zones); i++)
		sim->node_data[0]->node_zones[zones[i]].watermark_boost = 32;
	wakeup_kswapd(&sim->node_data[0]->node_zones[highest], 0, 0, (int)highest);
	ck_assert(mm_kswapd_awake(sim, 0, NULL));
	ck_assert_int_eq(_mm_kswapd_step(sim, 0), 0);
	for (size_t i = 0; i < ARRAY_SIZE(zones); i++) {
		unsigned long boost = sim->node_data[0]->node_zones[zones[i]].watermark_boost;
		unsigned long want = zones[i] <= highest ? 0 : 32;

		ck_assert_msg(boost == want, "kswapd up to %s: %s's boost %lu, want %lu",
			      mm_zone_name(highest), mm_zone_name(zones[i]), boost, want);
	}
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *kswapd_boost_zones_suite(void)
{
	Suite *s = suite_create("kswapd_boost_zones");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_pass_takes_back_boosts_up_to_highest, 0, ARRAY_SIZE(zones));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(kswapd_boost_zones_suite());
}

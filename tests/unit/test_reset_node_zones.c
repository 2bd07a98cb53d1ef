/* SPDX-License-Identifier: MIT */
/*
 * test_reset_node_zones.c - reset_isolation_suitable() (kswapd, before it
 * sleeps) walks every zone of its node, from ZONE_DMA up, and resets the
 * skip bits of each populated zone whose compact_blockskip_flush a full
 * compaction set, and of no other. One node holds DMA, DMA32 and Normal,
 * every page taken by order-0 movable fill but the 9th of each pageblock:
 * __reset_isolation_pfn()'s sample (every 8th page) finds an LRU page, a
 * source, at a block's start and a free page, a target, next, so a reset
 * clears every bit either side of its walk looks at. Every bit set, each
 * row leaves one zone's flush unrequested (or none): after the reset that
 * zone's bits are all still set, every other zone's all clear and no
 * flush is still due.
 */
#include "common.h"
#include "internal.h"

#define ZONE_PAGES 128
#define PB_PAGES   32

static const enum zone_type zones[] = {ZONE_DMA, ZONE_DMA32, ZONE_NORMAL};

/* Fills each zone in turn, lowest first, then frees the 9th page of every pageblock. */
static void lru_and_free_in_each_block(struct mm_sim *sim)
{
	struct compact_state *cs;

	for (size_t i = 0; i < ARRAY_SIZE(zones); i++) {
		struct mm_op fill = {.kind = MM_OP_FILL,
				     .fill = {.node = -1,
					      .zone = (uint8_t)zones[i],
					      .order = 0,
					      .pages = ZONE_PAGES}};

		ck_assert_int_eq(mm_apply_op(sim, &fill, NULL, 0, 0), 0);
	}
	ck_assert_uint_eq(mm_fill_live(sim), ZONE_PAGES * ARRAY_SIZE(zones));
	cs = sim->compact;
	for (uint32_t s = 0; s < cs->nr_fill; s++) {
		struct mm_handle *h = &cs->fill[s];

		if (h->pfn % PB_PAGES != 8)
			continue;
		mm_free_pages(sim, (uint64_t)h->pfn, 0, OWNER_FILL | s, h->gen);
		h->pfn = -1;
	}
}

/* The zone whose flush a row leaves unrequested; MAX_NR_ZONES: none. */
static const enum zone_type unflushed[] = {MAX_NR_ZONES, ZONE_DMA, ZONE_DMA32, ZONE_NORMAL};

START_TEST(test_reset_walks_every_flushed_zone)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct vrec vr;

	cfg_tiny(&cfg, 1, 6, 5);
	for (size_t i = 0; i < ARRAY_SIZE(zones); i++)
		cfg_zone(&cfg, 0, zones[i], ZONE_PAGES * i, ZONE_PAGES, ZONE_PAGES);
	sim = sim_new_buddy_only(&cfg);
	sim->serial = true; /* as the executor runs compaction */
	mm_set_current_cpu(0);
	sim_record(sim, &vr);
	lru_and_free_in_each_block(sim);
	for (size_t i = 0; i < ARRAY_SIZE(zones); i++) {
		struct zone *z = &sim->node_data[0]->node_zones[zones[i]];

		for (uint64_t pfn = z->zone_start_pfn; pfn < zone_end_pfn(z); pfn += PB_PAGES)
			set_pageblock_skip(sim, pfn);
		z->compact_blockskip_flush = zones[i] != unflushed[_i];
	}
	mm_reset_isolation_suitable(sim, 0);
	for (size_t i = 0; i < ARRAY_SIZE(zones); i++) {
		struct zone *z = &sim->node_data[0]->node_zones[zones[i]];
		bool reset = zones[i] != unflushed[_i];

		ck_assert_msg(!z->compact_blockskip_flush, "%s: flush still due",
			      mm_zone_name(zones[i]));
		for (uint64_t pfn = z->zone_start_pfn; pfn < zone_end_pfn(z); pfn += PB_PAGES)
			ck_assert_msg(get_pageblock_skip(sim, pfn) == !reset,
				      "%s (flush %s): pfn %llu's bit %s", mm_zone_name(zones[i]),
				      reset ? "requested" : "not requested",
				      (unsigned long long)pfn,
				      get_pageblock_skip(sim, pfn) ? "set" : "clear");
	}
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *reset_node_zones_suite(void)
{
	Suite *s = suite_create("reset_node_zones");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_reset_walks_every_flushed_zone, 0, ARRAY_SIZE(unflushed));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(reset_node_zones_suite());
}

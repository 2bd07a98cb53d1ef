/* SPDX-License-Identifier: MIT */
/*
 * test_kcompactd_zones.c - kcompactd_do_work() walks every zone of its
 * node, from ZONE_DMA up: a zone is compacted when it is managed, not
 * deferred, fails the order's min watermark and is suitable. One node
 * holds DMA, DMA32 and Normal, every page taken by order-0 movable fill;
 * one zone at a time has every other page freed, so it alone has the free
 * pages and lacks the order-3 block. One kcompactd step must give that
 * zone an order-3 block and leave the full zones as they were, whichever
 * zone it is (the first of the walk included). ZONE_MOVABLE is left out:
 * __setup_per_zone_wmarks() holds its min mark at SWAP_CLUSTER_MAX (32)
 * pages, so no fill takes its last free pageblock. kswapd's flush of the
 * skip bits, reset_isolation_suitable(), walks the same zones.
 */
#include "common.h"
#include "internal.h"

#define ZONE_PAGES 128
#define ORDER	   3

static const enum zone_type zones[] = {ZONE_DMA, ZONE_DMA32, ZONE_NORMAL};

/* One node, one CPU, the three zones of 128 pages in turn, 32-page pageblocks, no pcp. */
static struct mm_sim *four_zone_machine(void)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 1, 6, 5);
	for (size_t i = 0; i < ARRAY_SIZE(zones); i++)
		cfg_zone(&cfg, 0, zones[i], ZONE_PAGES * i, ZONE_PAGES, ZONE_PAGES);
	sim = sim_new_buddy_only(&cfg);
	sim->serial = true; /* compaction runs on one thread only */
	mm_set_current_cpu(0);
	return sim;
}

/* Fills each zone in turn, lowest first, so no fill falls back into a zone not yet full. */
static void fill_every_zone(struct mm_sim *sim)
{
	for (size_t i = 0; i < ARRAY_SIZE(zones); i++) {
		struct mm_op fill = {.kind = MM_OP_FILL,
				     .fill = {.node = -1,
					      .zone = (uint8_t)zones[i],
					      .order = 0,
					      .pages = ZONE_PAGES}};

		ck_assert_int_eq(mm_apply_op(sim, &fill, NULL, 0, 0), 0);
	}
}

/* Frees every other fill page of the zone [start, start + ZONE_PAGES). */
static void free_every_other(struct mm_sim *sim, uint64_t start)
{
	struct compact_state *cs = sim->compact;

	for (uint32_t s = 0; s < cs->nr_fill; s++) {
		struct mm_handle *h = &cs->fill[s];

		if (h->pfn < (long long)start || h->pfn >= (long long)(start + ZONE_PAGES) ||
		    h->pfn % 2)
			continue;
		mm_free_pages(sim, (uint64_t)h->pfn, h->order, OWNER_FILL | s, h->gen);
		h->pfn = -1;
	}
}

static unsigned long blocks_at_least(const struct mm_zone_info *zi, unsigned int order)
{
	unsigned long n = 0;

	for (unsigned int o = order; o < MM_NR_PAGE_ORDERS; o++)
		n += zi->nr_free[o];
	return n;
}

START_TEST(test_kcompactd_step_compacts_each_zone)
{
	struct mm_sim *sim = four_zone_machine();
	struct mm_zone_info before[ARRAY_SIZE(zones)], after;
	enum zone_type frag = zones[_i];
	struct vrec vr;

	sim_record(sim, &vr);
	fill_every_zone(sim);
	free_every_other(sim, ZONE_PAGES * (uint64_t)_i);
	for (size_t i = 0; i < ARRAY_SIZE(zones); i++) {
		before[i] = zinfo(sim, 0, zones[i]);
		/* the premise: no zone has the order's block; only the fragmented one is suitable
		 */
		ck_assert_uint_eq(blocks_at_least(&before[i], ORDER), 0);
		if (zones[i] == frag)
			ck_assert_int_ge(before[i].nr_free_exact, ZONE_PAGES / 2);
		else
			ck_assert_int_lt(before[i].nr_free_exact, 2 << ORDER);
	}
	ck_assert_int_eq(mm_kcompactd_step(sim, 0, ORDER), 0);
	for (size_t i = 0; i < ARRAY_SIZE(zones); i++) {
		after = zinfo(sim, 0, zones[i]);
		if (zones[i] == frag) {
			ck_assert_msg(blocks_at_least(&after, ORDER) > 0,
				      "kcompactd left %s without an order-%d block",
				      mm_zone_name(zones[i]), ORDER);
			continue;
		}
		for (unsigned int o = 0; o < MM_NR_PAGE_ORDERS; o++)
			ck_assert_msg(after.nr_free[o] == before[i].nr_free[o],
				      "%s, not fragmented, nr_free[%u] %lu -> %lu",
				      mm_zone_name(zones[i]), o, before[i].nr_free[o],
				      after.nr_free[o]);
	}
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * reset_isolation_suitable(), kswapd's flush before it sleeps, walks the
 * same zones from ZONE_DMA up: a flush request on any one of them is
 * consumed (the reset ran there), and only there.
 */
START_TEST(test_flush_reaches_each_zone)
{
	struct mm_sim *sim = four_zone_machine();
	struct zone *z = &sim->node_data[0]->node_zones[zones[_i]];
	unsigned int resets[ARRAY_SIZE(zones)];

	for (size_t i = 0; i < ARRAY_SIZE(zones); i++)
		resets[i] = atomic_load(&sim->node_data[0]->node_zones[zones[i]].compact_resets);
	z->compact_blockskip_flush = true;
	mm_reset_isolation_suitable(sim, 0);
	ck_assert_msg(!z->compact_blockskip_flush, "%s's flush request left pending",
		      mm_zone_name(zones[_i]));
	for (size_t i = 0; i < ARRAY_SIZE(zones); i++)
		ck_assert_uint_eq(
			atomic_load(&sim->node_data[0]->node_zones[zones[i]].compact_resets),
			resets[i] + (i == (size_t)_i));
	mm_sim_destroy(sim);
}
END_TEST

static Suite *kcompactd_zones_suite(void)
{
	Suite *s = suite_create("kcompactd_zones");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_flush_reaches_each_zone, 0, (int)ARRAY_SIZE(zones));
	tcase_add_loop_test(tc, test_kcompactd_step_compacts_each_zone, 0, ARRAY_SIZE(zones));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(kcompactd_zones_suite());
}

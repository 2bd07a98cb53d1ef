/* SPDX-License-Identifier: MIT */
/*
 * test_isolate_free_page.c - which pageblocks __isolate_free_page() turns
 * MOVABLE. The kernel's rule (mm/page_alloc.c): a block of order
 * pageblock_order - 1 or more is about to hold movable pages, so each
 * pageblock the block lies in, from the block's first page to its last,
 * becomes MOVABLE if its type is mergeable; a smaller block changes no
 * type, and no pageblock outside the block changes.
 *
 * The machine: pfns [0, 128) in 16-page pageblocks (max_order 5), no pcp,
 * every pageblock UNMOVABLE. Five order-3 allocations take [0, 40) and
 * leave [40, 48) free at order 3, the upper half of pageblock 2, with
 * [48, 64) free at order 4 and [64, 128) at order 5 above it; the order-2
 * row takes [40, 44) first. And the min mark gate's class zone, on a
 * machine of its own.
 */
#include "test_unmovable_machine.h"

#define PB_ORDER 4
#define NR_PB	 8

static struct mm_sim *unmovable_machine(void)
{
	struct mm_sim *sim = unmovable_buddy_machine(PB_ORDER + 1, PB_ORDER, NR_PB << PB_ORDER);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];

	zone_lock(z);
	for (uint64_t want = 0; want < 40; want += 8)
		ck_assert_uint_eq(take_block(z, 3, MIGRATE_UNMOVABLE), want);
	zone_unlock(z);
	return sim;
}

static const struct {
	uint64_t pfn;
	unsigned int order;
	uint8_t movable_after; /* bit b: pageblock b is MOVABLE after */
} rows[] = {
	{40, 3, 1u << 2}, /* half a pageblock, its upper half: pageblock 2 only */
	{48, 4, 1u << 3}, /* one whole pageblock: not the one after it */
	{64, 5, 0x30},	  /* two pageblocks: exactly those */
	{44, 2, 0},	  /* below pageblock_order - 1: no type changes */
};

START_TEST(test_isolate_free_page_retypes_the_block_only)
{
	for (size_t r = 0; r < ARRAY_SIZE(rows); r++) {
		struct mm_sim *sim = unmovable_machine();
		struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];

		zone_lock(z);
		if (rows[r].order == 2) {
			/* [40, 48) split: 40 taken, 44 left free at order 2 */
			ck_assert_uint_eq(take_block(z, 2, MIGRATE_UNMOVABLE), 40);
		}
		ck_assert_int_eq(pfn_to_page(sim, rows[r].pfn)->state, PG_BUDDY);
		ck_assert_uint_eq(pfn_to_page(sim, rows[r].pfn)->order, rows[r].order);
		ck_assert_uint_eq(__isolate_free_page(z, rows[r].pfn, rows[r].order),
				  1u << rows[r].order);
		zone_unlock(z);
		for (unsigned int pb = 0; pb < NR_PB; pb++) {
			int want = rows[r].movable_after & (1u << pb) ? MIGRATE_MOVABLE
								      : MIGRATE_UNMOVABLE;
			int mt = get_pfnblock_migratetype(sim, (uint64_t)pb << PB_ORDER);
			ck_assert_msg(mt == want,
				      "order-%u block at %llu: pageblock %u is %s, want %s",
				      rows[r].order, (unsigned long long)rows[r].pfn, pb,
				      mm_migratetype_name(mt), mm_migratetype_name(want));
		}
		mm_sim_destroy(sim);
	}
}
END_TEST

/*
 * A MOVABLE pageblock is moved too (move_freepages_block() from MOVABLE to
 * MOVABLE): its other free pages go to the tails of their lists, so the
 * next allocation of their order takes a block listed behind them. All of
 * [0, 128) is taken at order 5, then [72, 76), [8, 12) and [0, 8) are
 * freed in that order: [8, 12) heads the order-2 MOVABLE list, [72, 76)
 * behind it. Isolating [0, 8) (order 3, half a pageblock) moves [8, 12)
 * behind [72, 76).
 */
START_TEST(test_isolate_free_page_moves_a_movable_block_to_the_tails)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct zone *z;

	cfg_tiny(&cfg, 1, PB_ORDER + 1, PB_ORDER);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, NR_PB << PB_ORDER, NR_PB << PB_ORDER);
	sim = sim_new_buddy_only(&cfg);
	sim->serial = true;
	z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	for (int w = 0; w < NR_WMARK; w++)
		z->_watermark[w] = 0; /* the min mark gate is not under test */
	z->watermark_boost = 0;

	zone_lock(z);
	for (unsigned int i = 0; i < NR_PB / 2; i++)
		take_block(z, PB_ORDER + 1, MIGRATE_MOVABLE);
	free_block(z, 72, 2, MIGRATE_MOVABLE);
	free_block(z, 8, 2, MIGRATE_MOVABLE);
	free_block(z, 0, 3, MIGRATE_MOVABLE);
	ck_assert_int_eq(get_pfnblock_migratetype(sim, 0), MIGRATE_MOVABLE);
	ck_assert_uint_eq(__isolate_free_page(z, 0, 3), 8);
	ck_assert_int_eq(get_pfnblock_migratetype(sim, 0), MIGRATE_MOVABLE);
	ck_assert_uint_eq(take_block(z, 2, MIGRATE_MOVABLE), 72);
	ck_assert_uint_eq(take_block(z, 2, MIGRATE_MOVABLE), 8);
	zone_unlock(z);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The min mark gate judges the zone as an allocation of class zone 0
 * would (the kernel's zone_watermark_ok(zone, 0, min + 2^order, 0,
 * ALLOC_CMA)): the zone's lowmem reserve against allocations aimed at
 * higher zones does not count. ZONE_DMA [0, 128) under a DMA32 zone of
 * 8192 pages keeps 8192 / 256 = 32 pages from DMA32 allocations. Two of
 * DMA's four order-5 blocks taken, 64 pages are free: a third block (32)
 * passes min + 32, and would not with the reserve added.
 */
START_TEST(test_isolate_free_page_ignores_the_lowmem_reserve)
{
	struct mm_config cfg;

	cfg_tiny(&cfg, 1, 5, 4);
	cfg_zone(&cfg, 0, ZONE_DMA, 0, 128, 128);
	cfg_zone(&cfg, 0, ZONE_DMA32, 128, 8192, 8192);
	struct mm_sim *sim = sim_new_buddy_only(&cfg);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_DMA];
	uint64_t free_pfn = UINT64_MAX;

	sim->serial = true;
	ck_assert_int_eq(z->lowmem_reserve[ZONE_DMA], 0);
	ck_assert_int_eq(z->lowmem_reserve[ZONE_DMA32], 32);
	zone_lock(z);
	take_block(z, 5, MIGRATE_MOVABLE);
	take_block(z, 5, MIGRATE_MOVABLE);
	for (uint64_t pfn = 0; pfn < 128; pfn += 32)
		if (pfn_to_page(sim, pfn)->state == PG_BUDDY)
			free_pfn = pfn;
	ck_assert_uint_lt(free_pfn, 128);
	long free_pages = zone_page_state(z, NR_FREE_PAGES);
	long mark = (long)wmark_pages(z, WMARK_MIN) + 32;
	ck_assert_msg(free_pages > mark && free_pages <= mark + 32,
		      "%ld free pages against min + 32 = %ld: outside the reserve's window",
		      free_pages, mark);
	ck_assert_uint_eq(__isolate_free_page(z, free_pfn, 5), 32);
	zone_unlock(z);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *isolate_free_page_suite(void)
{
	Suite *s = suite_create("isolate_free_page");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_isolate_free_page_retypes_the_block_only);
	tcase_add_test(tc, test_isolate_free_page_moves_a_movable_block_to_the_tails);
	tcase_add_test(tc, test_isolate_free_page_ignores_the_lowmem_reserve);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(isolate_free_page_suite());
}

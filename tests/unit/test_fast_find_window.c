/* SPDX-License-Identifier: MIT */
/*
 * test_fast_find_window.c - fast_find_migrateblock()'s search window and
 * bail-outs (mm/compaction.c 6.x) over a grid of scanner positions, free
 * block places, request orders and kinds.
 *
 * The rule: no search (the migrate pfn returned as is) when migrate_pfn is
 * neither the zone's start nor a pageblock's start (a continuation), when
 * the order is at most PAGE_ALLOC_COSTLY_ORDER, or for direct compaction
 * of a request that is not MOVABLE. Otherwise distance = (free_pfn -
 * migrate_pfn) >> 1, and >> 2 more unless migrate_pfn is the zone's start
 * (the first half of the space at the start, an eighth later); the window
 * ends at high_pfn = pageblock_start(migrate_pfn + distance). The MOVABLE
 * lists from order - 1 down to PAGE_ALLOC_COSTLY_ORDER are searched for a
 * free page below high_pfn whose block is not marked skip: found, the
 * search returns its pageblock's start (fast_search_fail 0); not found, it
 * returns migrate_pfn and counts a failure.
 *
 * The zone: pfns [0, 1024), 32-page pageblocks, every page allocated in
 * order-3 movable blocks; one of them at a time is freed, at each of the
 * 128 places, and searched for from every row of scanner positions and
 * request kinds. With 32-page blocks only a free space of 256 pages or
 * more after the start tells the eighth from a sixteenth: the rows reach
 * 960.
 */
#include "common.h"
#include "internal.h"

#define ZPAGES 1024u
#define PB     32u
#define NBLK   (ZPAGES / 8) /* order-3 blocks */

static const struct {
	uint64_t migrate, free;
} positions[] = {
	{0, 64},    {0, 512},	{0, 992},   {32, 96},	{32, 512}, {32, 992},
	{64, 1000}, {128, 960}, {256, 992}, {512, 992}, {40, 992}, /* a continuation */
};

static const struct {
	int order;
	bool direct;
	int mt;
} kinds[] =
	{
		{6, false, MIGRATE_UNMOVABLE}, /* kcompactd: any request type */
		{6, true, MIGRATE_MOVABLE},    {6, true, MIGRATE_UNMOVABLE},
		{4, true, MIGRATE_MOVABLE},    {4, false, MIGRATE_RECLAIMABLE},
		{3, true, MIGRATE_MOVABLE}, /* costly order at most: linear */
};

/* The rule above, written out: the pfn the search returns. */
static uint64_t window_rule(uint64_t migrate, uint64_t free, int order, bool direct, int mt,
			    uint64_t free_block, bool *searched_and_failed)
{
	uint64_t distance, high;

	*searched_and_failed = false;
	if (migrate != 0 && migrate % PB)
		return migrate;
	if (order <= PAGE_ALLOC_COSTLY_ORDER)
		return migrate;
	if (direct && mt != MIGRATE_MOVABLE)
		return migrate;
	distance = (free - migrate) >> 1;
	if (migrate != 0)
		distance >>= 2;
	high = (migrate + distance) / PB * PB;
	if (free_block < high)
		return free_block / PB * PB;
	*searched_and_failed = true;
	return migrate;
}

START_TEST(test_fast_find_window_grid)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	uint32_t gen[NBLK];
	unsigned int rows = 0, found = 0;

	cfg_tiny(&cfg, 1, 6, 5);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, ZPAGES, ZPAGES);
	sim = sim_new_buddy_only(&cfg);
	sim->serial = true; /* as the executor runs compaction */
	mm_set_current_cpu(0);
	for (unsigned int i = 0; i < NBLK; i++) {
		long long pfn =
			mm_alloc_pages(sim, 3, MM_GFP_MOVABLE | MM_GFP_KERNEL, -1, i, &gen[i]);
		ck_assert_int_eq(pfn, (long long)i * 8);
	}
	for (unsigned int b = 0; b < NBLK; b++) {
		uint64_t at = (uint64_t)b * 8;

		mm_free_pages(sim, at, 3, b, gen[b]);
		for (unsigned int p = 0; p < ARRAY_SIZE(positions); p++)
			for (unsigned int k = 0; k < ARRAY_SIZE(kinds); k++) {
				bool failed;
				uint64_t want = window_rule(positions[p].migrate, positions[p].free,
							    kinds[k].order, kinds[k].direct,
							    kinds[k].mt, at, &failed);
				struct compact_control cc = {
					.zone = &sim->node_data[0]->node_zones[ZONE_NORMAL],
					.order = kinds[k].order,
					.search_order = kinds[k].order,
					.migratetype = kinds[k].mt,
					.mode = MM_MIGRATE_ASYNC,
					.direct_compaction = kinds[k].direct,
					.migrate_pfn = positions[p].migrate,
					.free_pfn = positions[p].free,
					.fast_found_pfn = COMPACT_NO_PFN,
				};
				uint64_t got = fast_find_migrateblock(&cc);

				ck_assert_msg(
					got == want && cc.fast_search_fail == (failed ? 1u : 0u),
					"free order-3 block at %llu, migrate %llu, free %llu, "
					"order %d%s type %d: returned %llu (failures %u), "
					"want %llu (%u)",
					(unsigned long long)at,
					(unsigned long long)positions[p].migrate,
					(unsigned long long)positions[p].free, kinds[k].order,
					kinds[k].direct ? " direct" : "", kinds[k].mt,
					(unsigned long long)got, cc.fast_search_fail,
					(unsigned long long)want, failed ? 1u : 0u);
				found += got != positions[p].migrate;
				rows++;
			}
		/* the same block back: the only free order-3 block is the one just freed */
		ck_assert_int_eq(
			mm_alloc_pages(sim, 3, MM_GFP_MOVABLE | MM_GFP_KERNEL, -1, b, &gen[b]),
			(long long)at);
	}
	ck_assert_uint_eq(rows, NBLK * ARRAY_SIZE(positions) * ARRAY_SIZE(kinds));
	ck_assert_uint_gt(found, 0);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *fast_find_window_suite(void)
{
	Suite *s = suite_create("fast_find_window");
	TCase *tc = tcase_create("fast_find_migrateblock");

	tcase_add_test(tc, test_fast_find_window_grid);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(fast_find_window_suite());
}

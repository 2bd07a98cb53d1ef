/* SPDX-License-Identifier: MIT */
/*
 * test_compact_rules.c - compaction rules of mm/compaction.c (6.x) on
 * zones small enough to work out by hand.
 *
 * __reset_isolation_suitable(), after a flush was asked for
 * (compact_blockskip_flush): migrate_pfn walks up from the zone's start
 * and free_pfn down from its last pfn, a pageblock per step, while
 * migrate_pfn < free_pfn. The first block from below whose sample (every
 * 8th page from the block's start) holds a PageLRU page becomes
 * reset_migrate: compact_init_migrate_pfn and BOTH cached migrate pfns
 * (async [0] and sync [1]) take it. The first block from above, movable,
 * whose sample holds a free (buddy) page becomes reset_free. If
 * reset_migrate >= reset_free (no source was found: reset_migrate starts
 * at the zone's last pfn), both cached migrate pfns take the walk's final
 * migrate_pfn and the cached free pfn its final free_pfn.
 *
 * The zone: pfns [0, 64), pageblock_order 2 (4 pages), max_order 3. The
 * walk: migrate_pfn 0, 4, ..., 28 against free_pfn 63, 59, ..., 35; it
 * ends at migrate_pfn 32, free_pfn 31. PageLRU is an allocated order-0
 * movable page.
 */
#include "common.h"
#include "internal.h"

#define GFP_MOV (MM_GFP_MOVABLE | MM_GFP_KERNEL)
#define GFP_UNM MM_GFP_KERNEL

/*
 * One CPU, one Normal zone [0, 64), no pcp, run as the executor runs it
 * (serial: compaction and the fill pool are one thread's).
 */
static struct mm_sim *zone64(unsigned int max_order, unsigned int pageblock_order)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 1, max_order, pageblock_order);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 64, 64);
	sim = sim_new_buddy_only(&cfg);
	sim->serial = true;
	mm_set_current_cpu(0);
	return sim;
}

/* Fills the zone with 64 movable order-0 pages, then frees every every-th. */
static void fill_and_free(struct mm_sim *sim, unsigned int every)
{
	struct mm_op fill = {.kind = MM_OP_FILL,
			     .fill = {.node = -1, .zone = ZONE_NORMAL, .order = 0, .pages = 64}};
	struct mm_op pattern = {.kind = MM_OP_FREE_PATTERN,
				.pattern = {.every = (uint8_t)every, .offset = 0}};

	ck_assert_int_eq(mm_apply_op(sim, &fill, NULL, 0, 0), 0);
	ck_assert_uint_eq(mm_fill_live(sim), 64);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 0);
	ck_assert_int_eq(mm_apply_op(sim, &pattern, NULL, 0, 0), 0);
}

static const struct {
	const char *name;
	unsigned int gfp;
	bool lru; /* the allocations are PageLRU */
} reset_rows[] = {
	{"movable pages: the lowest sampled one is the restart", GFP_MOV, true},
	{"unmovable pages only: no source, the walk's end", GFP_UNM, false},
};

START_TEST(test_reset_isolation_suitable)
{
	struct mm_sim *sim = zone64(3, 2);
	struct zone *z;
	uint64_t want = 32; /* no source: the final migrate_pfn */
	bool free_block = false;

	z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	for (int i = 0; i < 8; i++) {
		uint32_t gen;
		long long pfn = mm_alloc_pages(sim, 0, reset_rows[_i].gfp, -1, 1, &gen);

		ck_assert_int_ge(pfn, 0);
		/* Sampled by the migrate side: a block start below the meeting point. */
		if (reset_rows[_i].lru && pfn % 4 == 0 && pfn < 32 && (uint64_t)pfn < want)
			want = (uint64_t)pfn;
	}
	/* The free side finds a target above: a free movable block start it samples. */
	for (uint64_t b = 60; b >= 32; b -= 4)
		if (pfn_to_page(sim, b)->state == PG_BUDDY &&
		    get_pfnblock_migratetype(sim, b) == MIGRATE_MOVABLE)
			free_block = true;
	ck_assert_msg(free_block, "precondition: a free movable block start in [32, 64)");
	ck_assert_msg(!reset_rows[_i].lru || want < 32,
		      "precondition: a movable page at a block start below 32");

	/* Stale positions the reset must overwrite, both of them. */
	z->compact_cached_migrate_pfn[0] = 36;
	z->compact_cached_migrate_pfn[1] = 40;
	z->compact_blockskip_flush = true;
	mm_reset_isolation_suitable(sim, 0);
	ck_assert_msg(!z->compact_blockskip_flush, "%s: flush flag still set", reset_rows[_i].name);
	ck_assert_msg(z->compact_cached_migrate_pfn[0] == want, "%s: async %llu, want %llu",
		      reset_rows[_i].name, (unsigned long long)z->compact_cached_migrate_pfn[0],
		      (unsigned long long)want);
	ck_assert_msg(z->compact_cached_migrate_pfn[1] == want, "%s: sync %llu, want %llu",
		      reset_rows[_i].name, (unsigned long long)z->compact_cached_migrate_pfn[1],
		      (unsigned long long)want);
	if (reset_rows[_i].lru)
		ck_assert_uint_eq(z->compact_init_migrate_pfn, want);
	else
		ck_assert_uint_eq(z->compact_cached_free_pfn, 31);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The tie: reset_migrate == reset_free also leaves no distance. A zone
 * (max_order 2) with every page free has no source (reset_migrate stays 63) and its top
 * block is a target at the walk's first free_pfn, 63; a zone with every
 * page a movable LRU page has its source at pfn 0 and no target
 * (reset_free stays 0). Both end with the scanners at the walk's end,
 * migrate 32 and free 31, whatever the cached pfns held.
 */
START_TEST(test_reset_tie_leaves_no_distance)
{
	for (int full = 0; full <= 1; full++) {
		/* max_order 2: every pageblock starts with a free block's head */
		struct mm_sim *sim = zone64(2, 2);
		struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
		struct mm_op fill = {
			.kind = MM_OP_FILL,
			.fill = {.node = -1, .zone = ZONE_NORMAL, .order = 0, .pages = 64}};

		if (full) {
			ck_assert_int_eq(mm_apply_op(sim, &fill, NULL, 0, 0), 0);
			ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 0);
		}
		z->compact_cached_migrate_pfn[0] = 36;
		z->compact_cached_migrate_pfn[1] = 40;
		z->compact_cached_free_pfn = 44;
		z->compact_blockskip_flush = true;
		mm_reset_isolation_suitable(sim, 0);
		ck_assert_msg(z->compact_cached_migrate_pfn[0] == 32 &&
				      z->compact_cached_migrate_pfn[1] == 32 &&
				      z->compact_cached_free_pfn == 31,
			      "%s zone: cached migrate %llu/%llu free %llu, want 32/32 31",
			      full ? "full" : "empty",
			      (unsigned long long)z->compact_cached_migrate_pfn[0],
			      (unsigned long long)z->compact_cached_migrate_pfn[1],
			      (unsigned long long)z->compact_cached_free_pfn);
		ck_assert_uint_eq(full ? z->compact_init_migrate_pfn : z->compact_init_free_pfn,
				  full ? 0 : 63);
		mm_sim_destroy(sim);
	}
}
END_TEST

/*
 * The fill pool's contract: free_pattern with every 1 frees every live
 * slot, the block at the zone's pfn 0 as well (a slot is free at pfn -1).
 */
START_TEST(test_free_pattern_frees_pfn0)
{
	struct mm_sim *sim = zone64(3, 2);

	fill_and_free(sim, 1);
	ck_assert_uint_eq(mm_fill_live(sim), 0);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 64);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * compaction_suitable() for a costly order (> 3) refuses when
 * fragmentation_index() is in [0, 500] (sysctl_extfrag_threshold): the
 * failure is for lack of memory, not fragmentation. __fragmentation_index():
 * 0 with no free block; -1000 if a free block of the order exists; else
 * 1000 - (1000 + free_pages * 1000 / 2^order) / free_blocks_total.
 * Order 4 (16 pages) on a 64-page zone whose watermarks are 0, so the
 * mark (min + 2 << 4 = 32) passes on the 64 free pages the counter holds;
 * the free lists' counts are set by hand (the index reads only them). The
 * zone's max order is 5: a free block above the order counts 2^(o - 4)
 * suitable blocks, so one order-5 block is one the index must see.
 */
#define FRAG_ORDERS 6

static const struct {
	unsigned long nr_free[FRAG_ORDERS];
	bool suitable;
} fragindex_rows[] = {
	/* 2 x 2 + 1 x 4 = 8 pages, 3 blocks: 1000 - (1000 + 500) / 3 = 500: refused */
	{{0, 2, 1, 0, 0}, false},
	/* 60 order-3 and one each of orders 0-2, 487 pages in 63 blocks:
	 * 1000 - (1000 + 30437) / 63 = 501, one past the range: go */
	{{1, 1, 1, 60, 0}, true},
	/* 16 order-0: 1000 - (1000 + 1000) / 16 = 875: fragmentation, go */
	{{16, 0, 0, 0, 0}, true},
	/* 4 order-3, 32 pages: 1000 - (1000 + 2000) / 4 = 250: refused */
	{{0, 0, 0, 4, 0}, false},
	/* an order-4 block is free: -1000, go */
	{{0, 0, 0, 0, 1}, true},
	/* 2 order-3, 16 pages: 1000 - (1000 + 1000) / 2 = 0, the range's low edge: refused */
	{{0, 0, 0, 2, 0}, false},
	/* an order-5 block is free (two order-4 blocks' worth): -1000, go; without it
	 * the same 37 pages in 6 blocks would give 1000 - (1000 + 2312) / 6 = 448 */
	{{5, 0, 0, 0, 0, 1}, true},
	/* the same block beside two order-3: -1000, go; the order-3 blocks alone give 0 */
	{{0, 0, 0, 2, 0, 1}, true},
	/* 250 order-3 and 3 order-1, 2006 pages in 253 blocks: 1000 - (1000 + 125375)
	 * / 253 = 501, go; one more thousandth per page (125500) would give 500 */
	{{0, 3, 0, 250, 0}, true},
};

/* __fragmentation_index() over the row's free blocks, written out from the kernel's rule */
static int kernel_fragindex(const unsigned long nr_free[FRAG_ORDERS], unsigned int order)
{
	unsigned long total = 0, pages = 0, suitable = 0;

	for (unsigned int o = 0; o < FRAG_ORDERS; o++) {
		total += nr_free[o];
		pages += nr_free[o] << o;
		if (o >= order)
			suitable += nr_free[o] << (o - order);
	}
	if (!total)
		return 0;
	if (suitable)
		return -1000;
	return (int)(1000 - (1000 + pages * 1000 / (1UL << order)) / total);
}

START_TEST(test_compaction_suitable_fragindex)
{
	struct mm_sim *sim = zone64(FRAG_ORDERS - 1, FRAG_ORDERS - 2);
	struct zone *z;
	unsigned long saved[FRAG_ORDERS];

	z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	for (int o = 0; o < FRAG_ORDERS; o++) {
		saved[o] = z->free_area[o].nr_free;
		z->free_area[o].nr_free = fragindex_rows[_i].nr_free[o];
	}
	int index = kernel_fragindex(fragindex_rows[_i].nr_free, 4);
	ck_assert_int_eq(fragindex_rows[_i].suitable, !(index >= 0 && index <= 500));
	ck_assert_int_eq(compaction_suitable(z, 4, ZONE_NORMAL), fragindex_rows[_i].suitable);
	for (int o = 0; o < FRAG_ORDERS; o++)
		z->free_area[o].nr_free = saved[o];
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The index's low edge, 0 (refused), where a slip in its constant gives
 * -1 (go): one free order-0 page for an order-10 request, 1000 - (1000 +
 * 1 * 1000 / 1024) / 1 = 0. A zone of 4096 pages whose counter passes the
 * mark (min + 2 << 10) on its own; the lists hold that one page (set by
 * hand, as the index reads only them). At order 4 the formula's steps
 * never reach 0 or 500 from a block count that a slip of 1 can move.
 */
START_TEST(test_compaction_suitable_fragindex_low_edge)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct zone *z;
	unsigned long saved[11];

	cfg_tiny(&cfg, 1, 10, 9);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 4096, 4096);
	sim = sim_new_buddy_only(&cfg);
	sim->serial = true;
	mm_set_current_cpu(0);
	z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	for (int o = 0; o <= 10; o++) {
		saved[o] = z->free_area[o].nr_free;
		z->free_area[o].nr_free = o == 0;
	}
	ck_assert(!compaction_suitable(z, 10, ZONE_NORMAL));
	for (int o = 0; o <= 10; o++)
		z->free_area[o].nr_free = saved[o];
	mm_sim_destroy(sim);
}
END_TEST

/*
 * A MIN_COMPACT_PRIORITY (sync full) direct pass runs over the whole
 * zone (compact_zone_order(): whole_zone = prio == MIN_COMPACT_PRIORITY;
 * compact_zone() then starts migrate_pfn at the zone's start and free_pfn
 * at pageblock_start_pfn(zone_end_pfn - 1)), which INV-COMPACT-PRIO checks
 * at the pass's start. A zone of 64 movable order-0 pages with every other
 * one freed has no free order-1 block, but all its pages can move: the
 * pass must end in COMPACT_SUCCESS, and no check may fire.
 */
START_TEST(test_sync_full_pass_whole_zone)
{
	struct mm_sim *sim = zone64(3, 2);
	struct vrec vr;

	sim_record(sim, &vr);
	fill_and_free(sim, 2);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free[1], 0);
	ck_assert_int_eq(mm_compact_zone(sim, 0, ZONE_NORMAL, 1, MM_COMPACT_PRIO_SYNC_FULL,
					 MM_MIGRATE_SYNC, MIGRATE_MOVABLE),
			 MM_COMPACT_SUCCESS);
	ck_assert_msg(vr.n == 0, "%u violations, first: %s", vr.n, vr.first);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *compact_rules_suite(void)
{
	Suite *s = suite_create("compact_rules");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_reset_isolation_suitable, 0, (int)ARRAY_SIZE(reset_rows));
	tcase_add_test(tc, test_reset_tie_leaves_no_distance);
	tcase_add_test(tc, test_free_pattern_frees_pfn0);
	tcase_add_test(tc, test_sync_full_pass_whole_zone);
	tcase_add_loop_test(tc, test_compaction_suitable_fragindex, 0,
			    (int)ARRAY_SIZE(fragindex_rows));
	tcase_add_test(tc, test_compaction_suitable_fragindex_low_edge);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(compact_rules_suite());
}

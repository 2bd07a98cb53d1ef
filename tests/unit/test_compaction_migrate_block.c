/* SPDX-License-Identifier: MIT */
/*
 * test_compaction_migrate_block.c - where one isolate_migratepages() round
 * of the migration scanner stops in a pageblock, and what it leaves behind,
 * as a decision table against the rule of isolate_migratepages_block()
 * (mm/compaction.c 6.7), written out here:
 *
 *   async direct compaction (skip_on_failure): once low_pfn reaches the end
 *     of a cc->order-aligned block in which pages were isolated, stop there
 *     and migrate them;
 *   otherwise, after an isolation that brings cc->nr_migratepages to
 *     COMPACT_CLUSTER_MAX (32), stop at the next pfn unless the block is
 *     being finished (cc->finish_pageblock) or the lock was contended;
 *   a scan that reached the block's end having isolated nothing, or that
 *     finished the block, marks it skip and raises the cached restart pfns
 *     to pageblock_end_pfn() of the end pfn it passes, [0] always, [1] in a
 *     sync mode (update_cached_migrate()); the end of the block is the next
 *     block's first pfn, so that is the end of the next block: 192 here.
 *
 * A compound page (an allocation of order > 0) is stepped over whole and
 * is no source (a failure: in async direct compaction it drops its whole
 * cc->order block, so the rows with one run sync light). Every pfn the
 * round passes counts as scanned once, a free or compound block's pages
 * all at once (nr_scanned += (1 << order) - 1), so the round scans the
 * pfns from its start to its stop.
 *
 * The machine: one Normal zone [0, 256), 64-page pageblocks. Every page
 * is an order-0 movable fill page; block [64, 128) may start with a
 * compound page of a row's order, then the row's n movable pages stay and
 * the rest are freed (they merge into aligned buddy blocks that the
 * scanner steps over). The round starts at pfn 64 with the free scanner
 * at 192, order 3 (no fast search). A 32-page block, as the other tests
 * use, ends exactly where the 32-page stop falls, so it cannot tell the
 * stop from the end of the block.
 */
#include "test_compaction_machine.h"

#define BLOCK  64u  /* the block the round scans: [BLOCK, BLOCK + 64) */
#define ORDER  3    /* cc->order: async direct stops at 8-page boundaries */
#define MAX_NR 256u /* pages in the zone */

struct migrate_block_row {
	unsigned int n;	       /* movable pages at the block start (after the compound page) */
	bool finish;	       /* cc->finish_pageblock */
	bool async;	       /* async direct compaction, else sync light (not direct) */
	unsigned int compound; /* order of a compound page at the block's start, 0: none */
};

static const struct migrate_block_row migrate_block_rows[] = {
	{0, false, false, 0},  {1, false, false, 0},  {8, false, false, 0},  {9, false, false, 0},
	{31, false, false, 0}, {32, false, false, 0}, {33, false, false, 0}, {64, false, false, 0},
	{0, true, false, 0},   {1, true, false, 0},   {31, true, false, 0},  {32, true, false, 0},
	{33, true, false, 0},  {64, true, false, 0},  {0, false, true, 0},   {1, false, true, 0},
	{7, false, true, 0},   {8, false, true, 0},   {9, false, true, 0},   {33, false, true, 0},
	{64, false, true, 0},  {0, true, true, 0},    {8, true, true, 0},    {64, true, true, 0},
	{40, false, false, 2}, {10, false, false, 2}, {5, false, false, 1},  {56, true, false, 3},
	{31, false, false, 5},
};

/* The round as the kernel's rule has it: pages isolated and where it stops. */
static void expected_round(const struct migrate_block_row *r, unsigned int *isolated,
			   uint64_t *stop)
{
	unsigned int order_pages = 1u << ORDER;
	uint64_t first = BLOCK + (r->compound ? 1u << r->compound : 0);

	if (r->async && r->n) {
		/* The first order block that isolated anything ends the round. */
		*isolated = r->n < order_pages ? r->n : order_pages;
		*stop = BLOCK + order_pages;
	} else if (!r->async && !r->finish && r->n >= COMPACT_CLUSTER_MAX) {
		*isolated = COMPACT_CLUSTER_MAX;
		*stop = first + COMPACT_CLUSTER_MAX;
	} else {
		*isolated = r->n;
		*stop = BLOCK + 64;
	}
}

/* Frees the order-0 fill pages of [lo, hi). */
static void free_fill_range(struct mm_sim *sim, uint64_t lo, uint64_t hi)
{
	for (uint32_t i = 0; i < sim->compact->nr_fill; i++) {
		struct mm_handle *h = &sim->compact->fill[i];

		if (h->pfn < (long long)lo || h->pfn >= (long long)hi)
			continue;
		mm_free_pages(sim, (uint64_t)h->pfn, h->order, OWNER_FILL | i, h->gen);
		h->pfn = -1;
	}
}

/*
 * Every page an order-0 movable fill page; a compound page of order
 * compound (when not 0) at BLOCK + pre (aligned to it), n movable pages
 * after it, the rest of the block freed.
 */
static struct mm_sim *block_layout(unsigned int pre, unsigned int compound, unsigned int n)
{
	uint64_t at = BLOCK + pre, first = at + (compound ? 1u << compound : 0);
	struct mm_sim *sim = compaction_table_machine(7, 6, 0, MAX_NR);

	if (compound) {
		/* the only free pages: with no watermark to meet the block lands there */
		uint32_t gen;

		free_fill_range(sim, at, first);
		ck_assert_int_eq(mm_alloc_pages(sim, compound,
						MM_GFP_MEMALLOC | MM_GFP_KERNEL | MM_GFP_MOVABLE, 0,
						7, &gen),
				 (long long)at);
	}
	free_fill_range(sim, first + n, BLOCK + 64);
	ck_assert_uint_eq(mm_fill_live(sim), MAX_NR - 64 + pre + n);
	return sim;
}

/* One round from BLOCK, order 3, the free scanner at 192: async direct or sync light. */
static struct compact_control round_control(struct zone *z, bool async, bool finish,
					    uint32_t *isolated)
{
	struct compact_control cc = {
		.zone = z,
		.order = ORDER,
		.search_order = ORDER,
		.migratetype = MIGRATE_MOVABLE,
		.mode = async ? MM_MIGRATE_ASYNC : MM_MIGRATE_SYNC_LIGHT,
		.direct_compaction = async,
		.finish_pageblock = finish,
		.migrate_pfn = BLOCK,
		.free_pfn = 192,
		.fast_found_pfn = UINT64_MAX,
		.migratepages = isolated,
	};

	return cc;
}

START_TEST(test_migrate_block_stop_table)
{
	const struct migrate_block_row *r = &migrate_block_rows[_i];
	struct mm_sim *sim = block_layout(0, r->compound, r->n);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	uint32_t isolated[MAX_NR];
	struct compact_control cc = round_control(z, r->async, r->finish, isolated);
	unsigned int want_isolated;
	uint64_t want_stop, want_cached0, want_cached1;
	bool block_done;

	expected_round(r, &want_isolated, &want_stop);
	block_done = want_stop == BLOCK + 64 && (!want_isolated || r->finish);
	want_cached0 = block_done ? BLOCK + 128 : z->compact_cached_migrate_pfn[0];
	want_cached1 = block_done && !r->async ? BLOCK + 128 : z->compact_cached_migrate_pfn[1];

	compact_check_pass_begin(&cc);
	ck_assert_int_eq(isolate_migratepages(&cc), want_isolated ? ISOLATE_SUCCESS : ISOLATE_NONE);
	ck_assert_msg(cc.nr_migratepages == want_isolated && cc.migrate_pfn == want_stop,
		      "row %d (%u movable, finish %d, %s): %lu isolated, stopped at %llu; "
		      "want %u, %llu",
		      _i, r->n, r->finish, r->async ? "async direct" : "sync light",
		      cc.nr_migratepages, (unsigned long long)cc.migrate_pfn, want_isolated,
		      (unsigned long long)want_stop);
	for (unsigned int i = 0; i < want_isolated; i++)
		ck_assert_uint_eq(isolated[i], BLOCK + (r->compound ? 1u << r->compound : 0) + i);
	/* Every pfn up to the stop is scanned once: a free or compound block counts whole. */
	ck_assert_msg(cc.total_migrate_scanned == want_stop - BLOCK,
		      "row %d: %lu pfns scanned, want %llu", _i, cc.total_migrate_scanned,
		      (unsigned long long)(want_stop - BLOCK));
	/* The first LRU page test-and-sets the bit; an empty block is marked at its end. */
	ck_assert_msg(get_pageblock_skip(sim, BLOCK), "row %d: block %u not marked", _i, BLOCK);
	ck_assert_msg(z->compact_cached_migrate_pfn[0] == want_cached0 &&
			      z->compact_cached_migrate_pfn[1] == want_cached1,
		      "row %d: cached migrate pfns %llu, %llu; want %llu, %llu", _i,
		      (unsigned long long)z->compact_cached_migrate_pfn[0],
		      (unsigned long long)z->compact_cached_migrate_pfn[1],
		      (unsigned long long)want_cached0, (unsigned long long)want_cached1);
	putback_movable_pages(&cc);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Async direct compaction gives up a cc->order block at its first failure
 * and puts back what it isolated from it (putback_movable_pages(): the
 * list empties, cc->nr_migratepages 0), then goes on at the next one.
 * Block 64: movable 64 and 65, a compound page at [66, 68), movable
 * [68, 88). Order 3: 64 and 65 are isolated, 66 fails, both go back and
 * the scan resumes at 72; [72, 80) is isolated whole and the round stops
 * at 80 to migrate it. So eight sources, 72 to 79, and none of 64, 65.
 */
START_TEST(test_async_failure_puts_back_its_order_block)
{
	struct mm_sim *sim = block_layout(2, 1, 20);
	uint32_t isolated[MAX_NR];
	struct compact_control cc =
		round_control(&sim->node_data[0]->node_zones[ZONE_NORMAL], true, false, isolated);

	compact_check_pass_begin(&cc);
	ck_assert_int_eq(isolate_migratepages(&cc), ISOLATE_SUCCESS);
	ck_assert_uint_eq(cc.nr_migratepages, 8);
	ck_assert_uint_eq(cc.migrate_pfn, BLOCK + 16);
	for (unsigned int i = 0; i < 8; i++)
		ck_assert_uint_eq(isolated[i], BLOCK + 8 + i);
	putback_movable_pages(&cc);
	ck_assert_uint_eq(cc.nr_migratepages, 0);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * INV-COMPACT-SOURCES: the list handed on holds exactly what the round
 * isolated. The async round above isolates 72 to 79 (and put back 64 and
 * 65 on the way, which the checker saw drained); a list that kept one
 * entry more (a stale source, migrated twice) or one fewer (a source never
 * migrated nor put back) is reported as it is drained, with the count the
 * checker saw isolated as expected.
 */
START_TEST(test_sources_list_holds_what_was_isolated)
{
	static const int skew[] = {0, 1, -1};
	struct mm_sim *sim = block_layout(2, 1, 20);
	uint32_t isolated[MAX_NR];
	struct compact_control cc =
		round_control(&sim->node_data[0]->node_zones[ZONE_NORMAL], true, false, isolated);
	struct vrec vr;

	sim_record(sim, &vr);
	compact_check_pass_begin(&cc);
	ck_assert_int_eq(isolate_migratepages(&cc), ISOLATE_SUCCESS);
	ck_assert_uint_eq(cc.nr_migratepages, 8);
	isolated[8] = BLOCK + 16; /* a stale entry past the list's end */
	cc.nr_migratepages = (unsigned long)(8 + skew[_i]);
	compact_check_sources(&cc, "handed to migration", true);
	if (!skew[_i]) {
		ck_assert_msg(vr.n == 0, "%s", vr.first);
	} else {
		ck_assert(vrec_has(&vr, "INV-COMPACT-SOURCES"));
		ck_assert_msg(strstr(vr.first,
				     skew[_i] > 0 ? "expected=8 actual=9" : "expected=8 actual=7"),
			      "%s", vr.first);
	}
	/* drained: the pass ends with the list empty */
	vrec_init(&vr);
	cc.nr_migratepages = 0;
	compact_check_sources(&cc, "at the pass's end", false);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * pageblock_skip_persistent() in suitable_migration_source(): a block
 * whose first page heads an allocation of pageblock_order or more is no
 * source; isolate_migratepages() passes over it (no scan, no skip bit)
 * and goes on to the next block in the same round. A smaller compound
 * page is stepped over by the scan, which isolates nothing, marks the
 * block and ends the round there. Block 64 starts with a compound page of
 * order 4, 5 (the rest freed) or 6 (the whole block); block 128 is all
 * movable pages, of which a sync light round takes COMPACT_CLUSTER_MAX.
 */
START_TEST(test_whole_block_allocation_is_no_source)
{
	unsigned int compound = 4 + (unsigned int)_i;
	bool persistent = compound >= 6; /* compound_order(page) >= pageblock_order */
	struct mm_sim *sim = block_layout(0, compound, 0);
	uint32_t isolated[MAX_NR];
	struct compact_control cc =
		round_control(&sim->node_data[0]->node_zones[ZONE_NORMAL], false, false, isolated);

	isolate_migrate_t want = persistent ? ISOLATE_SUCCESS : ISOLATE_NONE;

	compact_check_pass_begin(&cc);
	ck_assert_int_eq(isolate_migratepages(&cc), want);
	ck_assert_msg(cc.nr_migratepages == (persistent ? COMPACT_CLUSTER_MAX : 0),
		      "order %u at %u: %lu isolated", compound, BLOCK, cc.nr_migratepages);
	if (persistent)
		ck_assert_uint_eq(isolated[0], BLOCK + 64);
	ck_assert_msg(get_pageblock_skip(sim, BLOCK) == !persistent, "order %u at %u: skip bit %d",
		      compound, BLOCK, (int)get_pageblock_skip(sim, BLOCK));
	ck_assert_uint_eq(cc.migrate_pfn,
			  persistent ? BLOCK + 64 + COMPACT_CLUSTER_MAX : BLOCK + 64);
	putback_movable_pages(&cc);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Async direct compaction's order block from a round that starts inside
 * one (a continuation: the last round stopped after COMPACT_CLUSTER_MAX
 * isolations): next_skip_pfn = block_end_pfn(low_pfn, order) =
 * ALIGN(low_pfn + 1, 1 << order), so the round stops at the first order
 * boundary after its start, with min(boundary - start, 32) sources. The
 * machine: [0, 256) of order-0 movable pages, 128-page pageblocks, order 6.
 */
START_TEST(test_continuation_stops_at_its_order_block)
{
	static const uint64_t starts[] = {0, 1, 62, 63, 64, 65, 126, 127};
	uint64_t start = starts[_i], bound = (start + 1 + 63) & ~UINT64_C(63);
	unsigned long want =
		bound - start < COMPACT_CLUSTER_MAX ? bound - start : COMPACT_CLUSTER_MAX;
	struct mm_sim *sim = compaction_table_machine(8, 7, 0, MAX_NR);
	uint32_t isolated[MAX_NR];
	struct compact_control cc =
		round_control(&sim->node_data[0]->node_zones[ZONE_NORMAL], true, false, isolated);

	cc.order = cc.search_order = 6;
	cc.migrate_pfn = start;
	cc.free_pfn = MAX_NR;
	compact_check_pass_begin(&cc);
	isolate_migratepages(&cc);
	ck_assert_msg(cc.nr_migratepages == want, "a round from %llu isolated %lu, want %lu",
		      (unsigned long long)start, cc.nr_migratepages, want);
	for (unsigned long i = 0; i < want; i++)
		ck_assert_uint_eq(isolated[i], start + i);
	putback_movable_pages(&cc);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *migrate_block_suite(void)
{
	Suite *s = suite_create("compaction_migrate_block");
	TCase *tc = tcase_create("stop");

	tcase_add_loop_test(tc, test_migrate_block_stop_table, 0,
			    (int)ARRAY_SIZE(migrate_block_rows));
	tcase_add_test(tc, test_async_failure_puts_back_its_order_block);
	tcase_add_loop_test(tc, test_sources_list_holds_what_was_isolated, 0, 3);
	tcase_add_loop_test(tc, test_whole_block_allocation_is_no_source, 0, 3);
	tcase_add_loop_test(tc, test_continuation_stops_at_its_order_block, 0, 8);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(migrate_block_suite());
}

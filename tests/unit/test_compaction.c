/* SPDX-License-Identifier: MIT */
/*
 * test_compaction.c - compaction and the pageblock skip bits (seed 001):
 * who sets, tests and resets the bits; fast_find_migrateblock()'s search
 * window; the deferral counters; the scanners meeting; migration moving a
 * block with its stamp and handle; the shadow pass of INV-COMPACT-SKIP-HINT;
 * and each compaction variant caught by its proof trace while the correct
 * model runs it clean.
 */
#include "common.h"
#include "internal.h"

#include <stdlib.h>

#ifndef MMFUZZ_SHARED_DIR
#error "MMFUZZ_SHARED_DIR must name the tests directory (CMakeLists.txt passes it)"
#endif

/* ------------------------------------------------------------------------
 * Machines
 * ---------------------------------------------------------------------- */

/* One node, one CPU, one Normal zone [start, start + pages), max order 6, no pcp. */
static struct mm_sim *compaction_machine(unsigned int pageblock_order, uint64_t start,
					 uint64_t pages, const char *variant)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 1, 6, pageblock_order);
	cfg_zone(&cfg, 0, ZONE_NORMAL, start, pages, pages);
	sim = variant ? sim_new_variant(&cfg, variant) : sim_new(&cfg);
	mm_zone_pcp_disable(sim, 0, ZONE_NORMAL);
	sim->serial = true; /* as the executor runs it: compaction needs one thread */
	return sim;
}

/* The usual machine: 32-page pageblocks. */
static struct mm_sim *compaction_sim(uint64_t start, uint64_t pages, const char *variant)
{
	return compaction_machine(5, start, pages, variant);
}

static struct zone *normal(struct mm_sim *sim)
{
	return &sim->node_data[0]->node_zones[ZONE_NORMAL];
}

/* Runs a fill op: n blocks of order, every unmovable_every-th unmovable. */
static void fill(struct mm_sim *sim, unsigned int order, unsigned int n,
		 unsigned int unmovable_every, unsigned int busy_every)
{
	struct mm_op op = {.kind = MM_OP_FILL,
			   .fill = {.node = -1,
				    .zone = ZONE_NORMAL,
				    .order = (uint8_t)order,
				    .pages = (uint16_t)n,
				    .unmovable_every = (uint8_t)unmovable_every,
				    .busy_every = (uint8_t)busy_every}};

	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
}

static void free_pattern(struct mm_sim *sim, unsigned int every, unsigned int offset)
{
	struct mm_op op = {.kind = MM_OP_FREE_PATTERN,
			   .pattern = {.every = (uint8_t)every, .offset = (uint8_t)offset}};

	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
}

/* The fill pool slot whose block starts at pfn. */
static uint32_t slot_at(struct mm_sim *sim, uint64_t pfn)
{
	for (uint32_t i = 0; i < sim->compact->nr_fill; i++)
		if (sim->compact->fill[i].pfn == (long long)pfn)
			return i;
	ck_abort_msg("no fill block at pfn %llu", (unsigned long long)pfn);
	return 0;
}

/* Frees the fill block at pfn back to the buddy. */
static void free_block_at(struct mm_sim *sim, uint64_t pfn)
{
	uint32_t s = slot_at(sim, pfn);
	struct mm_handle *h = &sim->compact->fill[s];

	mm_free_pages(sim, pfn, h->order, OWNER_FILL | s, h->gen);
	h->pfn = -1;
}

/* Frees the fill blocks at every other pfn of [start, end), in that order. */
static void free_every_other_at(struct mm_sim *sim, uint64_t start, uint64_t end)
{
	for (uint64_t pfn = start; pfn < end; pfn += 2)
		free_block_at(sim, pfn);
}

static struct compact_control cc_for(struct mm_sim *sim, int order, uint64_t migrate_pfn,
				     uint64_t free_pfn)
{
	struct compact_control cc = {
		.zone = normal(sim),
		.order = order,
		.search_order = order,
		.migratetype = MIGRATE_MOVABLE,
		.mode = MM_MIGRATE_SYNC_LIGHT,
		.migrate_pfn = migrate_pfn,
		.free_pfn = free_pfn,
		.fast_found_pfn = UINT64_MAX,
	};

	return cc;
}

/* Parses text and runs it on ex with variant (NULL: the correct model); the violations in vr. */
static long run_text(struct mm_exec *ex, const char *text, const char *variant, struct vrec *vr,
		     long *failed)
{
	struct mm_exec_opts o;

	mm_exec_opts_default(&o);
	o.variant = mm_variant_lookup(variant);
	ck_assert_int_ne(o.variant, MM_VARIANT_UNKNOWN);
	return exec_text(ex, text, &o, vr, failed);
}

/* The end of a test that must have run clean: no violation, the full scan clean. */
static void assert_clean_destroy(struct mm_sim *sim, const struct vrec *vr)
{
	ck_assert_msg(vr->n == 0, "%s", vr->first);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}

/* ------------------------------------------------------------------------
 * Skip bits
 * ---------------------------------------------------------------------- */

START_TEST(test_skip_bit_set_test_clear)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct compact_control cc = cc_for(sim, 4, 0, 224);

	ck_assert(!get_pageblock_skip(sim, 40));
	set_pageblock_skip(sim, 40);
	/* The bit is the pageblock's: every pfn of [32, 64) sees it, none of its neighbours. */
	ck_assert(get_pageblock_skip(sim, 32) && get_pageblock_skip(sim, 63));
	ck_assert(!get_pageblock_skip(sim, 31) && !get_pageblock_skip(sim, 64));
	/* The migratetype bits beside it are untouched. */
	ck_assert_int_eq(get_pfnblock_migratetype(sim, 40), MIGRATE_MOVABLE);
	ck_assert(!isolation_suitable(&cc, 33));
	cc.ignore_skip_hint = true;
	ck_assert(isolation_suitable(&cc, 33));
	cc.ignore_skip_hint = false;

	/* test_and_set_skip(): the old value, and the bit set after. */
	ck_assert(!test_and_set_skip(&cc, 64));
	ck_assert(get_pageblock_skip(sim, 64));
	ck_assert(test_and_set_skip(&cc, 70));
	/* No setter runs under no_set_skip_hint, and ignore_skip_hint neither tests nor sets. */
	cc.no_set_skip_hint = true;
	ck_assert(!test_and_set_skip(&cc, 96));
	ck_assert(!get_pageblock_skip(sim, 96));
	cc.no_set_skip_hint = false;
	cc.ignore_skip_hint = true;
	ck_assert(!test_and_set_skip(&cc, 64));
	ck_assert(!get_pageblock_skip(sim, 128));

	clear_pageblock_skip(sim, 50);
	ck_assert(!get_pageblock_skip(sim, 40));
	ck_assert_int_eq(get_pfnblock_migratetype(sim, 40), MIGRATE_MOVABLE);
	mm_sim_destroy(sim);
}
END_TEST

/* valid_page: the block's first pfn, or the zone's first pfn for a partial first block. */
START_TEST(test_skip_test_pfn_policies)
{
	struct mm_sim *sim = compaction_sim(1, 255, NULL);
	struct zone *z = normal(sim);

	ck_assert(compact_skip_test_pfn_default(z, 1));
	ck_assert(compact_skip_test_pfn_default(z, 32));
	ck_assert(!compact_skip_test_pfn_default(z, 2));
	ck_assert(!compact_skip_test_pfn_aligned_only(z, 1));
	ck_assert(compact_skip_test_pfn_aligned_only(z, 32));
	mm_sim_destroy(sim);
}
END_TEST

/* The first LRU page: 6.5+ test-and-sets valid_page's bit; 6.1 only at an aligned LRU page. */
START_TEST(test_lru_skip_policies)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct compact_control cc = cc_for(sim, 4, 0, 224);
	bool updated = false;

	ck_assert(!compact_lru_skip_default(&cc, 32, 37, &updated));
	ck_assert(updated && get_pageblock_skip(sim, 32));
	updated = false;
	/* Marked by another compactor: abort, unless the block is being finished. */
	ck_assert(compact_lru_skip_default(&cc, 32, 37, &updated));
	updated = false;
	cc.finish_pageblock = true;
	ck_assert(!compact_lru_skip_default(&cc, 32, 37, &updated));
	cc.finish_pageblock = false;
	/* No valid_page: nothing tested, and the end-of-block mark stays possible. */
	updated = false;
	ck_assert(!compact_lru_skip_default(&cc, UINT64_MAX, 70, &updated));
	ck_assert(!updated && !get_pageblock_skip(sim, 70));

	/* 6.1: an unaligned first LRU page counts as the update but sets nothing. */
	updated = false;
	ck_assert(!compact_lru_skip_aligned(&cc, 96, 101, &updated));
	ck_assert(updated && !get_pageblock_skip(sim, 96));
	updated = false;
	ck_assert(!compact_lru_skip_aligned(&cc, 128, 128, &updated));
	ck_assert(updated && get_pageblock_skip(sim, 128));
	mm_sim_destroy(sim);
}
END_TEST

/*
 * update_cached_migrate(): a block the migration scanner finished without
 * isolating moves the async restart pfn (compact_cached_migrate_pfn[0])
 * past it in every mode, the sync one ([1]) only in a sync mode. Block 0
 * free, the rest movable LRU pages: one isolate_migratepages() round of a
 * direct order-3 pass (no fast search) scans block 0 to its end and
 * isolates nothing. The kernel passes that end (32) and rounds it up to
 * the end of its pageblock: 64.
 */
/*
 * isolate_migratepages() passes over a block whose skip bit is set, unless
 * the fast search chose it (an order-3 pass runs no fast search): block 0
 * marked, a scan from pfn 0 that keeps the hints isolates from block 1 on.
 */
START_TEST(test_migrate_scanner_honours_skip_bit)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct compact_control cc = cc_for(sim, 3, 0, 96);
	uint32_t isolated[256];

	fill(sim, 0, 256, 0, 0);
	set_pageblock_skip(sim, 0);
	cc.migratepages = isolated;
	compact_check_pass_begin(&cc);
	isolate_migratepages(&cc);
	ck_assert_uint_gt(cc.nr_migratepages, 0);
	for (unsigned long i = 0; i < cc.nr_migratepages; i++)
		ck_assert_msg(isolated[i] >= 32, "pfn %u of the skipped block 0 isolated",
			      isolated[i]);
	putback_movable_pages(&cc);
	mm_sim_destroy(sim);
}
END_TEST

START_TEST(test_cached_migrate_by_mode)
{
	static const int modes[] = {MM_MIGRATE_ASYNC, MM_MIGRATE_SYNC_LIGHT, MM_MIGRATE_SYNC};
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct zone *z = normal(sim);
	struct compact_control cc = cc_for(sim, 3, 0, 224);

	fill(sim, 0, 256, 0, 0);
	for (uint64_t pfn = 0; pfn < 32; pfn++)
		free_block_at(sim, pfn);
	ck_assert_uint_eq(z->compact_cached_migrate_pfn[0], 0);
	ck_assert_uint_eq(z->compact_cached_migrate_pfn[1], 0);
	cc.mode = modes[_i];
	cc.direct_compaction = true;
	compact_check_pass_begin(&cc);
	ck_assert_int_eq(isolate_migratepages(&cc), ISOLATE_NONE);
	ck_assert_uint_eq(cc.nr_migratepages, 0);
	ck_assert_uint_eq(cc.migrate_pfn, 32);
	ck_assert_uint_eq(z->compact_cached_migrate_pfn[0], 64);
	ck_assert_uint_eq(z->compact_cached_migrate_pfn[1], modes[_i] == MM_MIGRATE_ASYNC ? 0 : 64);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * suitable_migration_source() over its grid: async direct compaction
 * takes pages only from a block of the request's type (a movable request:
 * a MOVABLE block, is_migrate_movable() without CMA), any other pass from
 * any block. Block 0 holds movable LRU pages and is retyped; the free
 * scanner at 48 leaves the round block 0 alone, which isolates iff it is
 * a suitable source.
 */
START_TEST(test_migration_source_table)
{
	static const int mts[] = {MIGRATE_UNMOVABLE, MIGRATE_MOVABLE, MIGRATE_RECLAIMABLE};
	int req = mts[_i % 3], block = mts[_i / 3 % 3];
	bool async = _i < 9;
	bool want = !async || (req == MIGRATE_MOVABLE ? block == MIGRATE_MOVABLE : block == req);
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct compact_control cc = cc_for(sim, 3, 0, 48);
	uint32_t isolated[256];

	fill(sim, 0, 256, 0, 0);
	set_pageblock_migratetype(sim, 0, block);
	cc.migratepages = isolated;
	cc.mode = async ? MM_MIGRATE_ASYNC : MM_MIGRATE_SYNC_LIGHT;
	cc.direct_compaction = true;
	cc.migratetype = req;
	compact_check_pass_begin(&cc);
	isolate_migratepages(&cc);
	ck_assert_msg((cc.nr_migratepages > 0) == want,
		      "%s, request type %d, block type %d: %lu pages isolated, want %s",
		      async ? "async" : "sync light", req, block, cc.nr_migratepages,
		      want ? "some" : "none");
	putback_movable_pages(&cc);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * __reset_isolation_suitable() only runs after a full compaction asked for
 * it. It walks from both ends: the lower half as migration sources (a
 * sampled LRU page clears the bit), the upper half as targets (a sampled
 * free page does), sampling every 8th page.
 */
START_TEST(test_reset_isolation_suitable)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct zone *z = normal(sim);

	fill(sim, 0, 256, 0, 0); /* every page movable: LRU pages everywhere */
	ck_assert_uint_eq(mm_fill_live(sim), 256);
	free_block_at(sim, 160 + 8); /* a sampled free page in the targets' half */
	free_block_at(sim, 192 + 3); /* a free page between samples */
	for (uint64_t pfn = 0; pfn < 256; pfn += 32)
		set_pageblock_skip(sim, pfn);

	/* Without compact_blockskip_flush nothing happens: kswapd's reset is a no-op. */
	mm_reset_isolation_suitable(sim, 0);
	for (uint64_t pfn = 0; pfn < 256; pfn += 32)
		ck_assert(get_pageblock_skip(sim, pfn));

	z->compact_blockskip_flush = true;
	mm_reset_isolation_suitable(sim, 0);
	ck_assert(!z->compact_blockskip_flush);
	for (uint64_t pfn = 0; pfn < 128; pfn += 32)
		ck_assert_msg(!get_pageblock_skip(sim, pfn), "source side, LRU pages: %llu cleared",
			      (unsigned long long)pfn);
	ck_assert_msg(get_pageblock_skip(sim, 224), "target side, LRU pages only: kept");
	/* Once the free side found its restart block, a block counts as either. */
	ck_assert_msg(!get_pageblock_skip(sim, 128), "after the restart block, LRU pages: cleared");
	ck_assert_msg(!get_pageblock_skip(sim, 160), "sampled free page, target side: cleared");
	ck_assert_msg(get_pageblock_skip(sim, 192), "free page between samples: kept");
	/* The restart points: the first usable block from each end. */
	ck_assert_uint_eq(z->compact_cached_migrate_pfn[0], 0);
	ck_assert_uint_eq(z->compact_cached_free_pfn, 191);
	ck_assert_uint_eq(z->compact_init_free_pfn, 191);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The two ends walk a pageblock a step until they meet: when the zone
 * spans 2k pageblocks and one page, both reach the middle block's start
 * at the same step and the walk ends there (migrate_pfn < free_pfn), so
 * that block is neither side's and keeps its bit. 257 pages filled with
 * movable ones (the buddy's first is the lone page 256, its last leaves
 * 255 free), 256 freed, all nine blocks marked: the reset clears blocks
 * 0-3 as sources and 5-7 as targets (LRU pages, once the free side found
 * its restart block, 8); block 4 keeps its bit.
 */
START_TEST(test_reset_walk_ends_where_the_ends_meet)
{
	struct mm_sim *sim = compaction_sim(0, 257, NULL);
	struct zone *z = normal(sim);

	fill(sim, 0, 256, 0, 0);
	ck_assert_uint_eq(mm_fill_live(sim), 256);
	free_block_at(sim, 256); /* the free side's restart block */
	for (uint64_t pfn = 0; pfn < 257; pfn += 32)
		set_pageblock_skip(sim, pfn);
	z->compact_blockskip_flush = true;
	mm_reset_isolation_suitable(sim, 0);
	for (uint64_t pfn = 0; pfn < 257; pfn += 32)
		ck_assert_msg(get_pageblock_skip(sim, pfn) == (pfn == 128),
			      "block at %llu: skip bit %d after the reset", (unsigned long long)pfn,
			      get_pageblock_skip(sim, pfn));
	ck_assert_uint_eq(z->compact_cached_migrate_pfn[0], 0);
	ck_assert_uint_eq(z->compact_cached_free_pfn, 256);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * fast_find_migrateblock(): the search window
 * ---------------------------------------------------------------------- */

/* A fill where memory is left takes the blocks it asks for, no more. */
START_TEST(test_fill_takes_what_it_asks)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);

	fill(sim, 0, 10, 0, 0);
	ck_assert_uint_eq(mm_fill_live(sim), 10);
	fill(sim, 2, 3, 0, 0);
	ck_assert_uint_eq(mm_fill_live(sim), 13);
	mm_sim_destroy(sim);
}
END_TEST

/* Order-3 movable blocks over the whole zone; the ones at free_pfns freed. */
static struct mm_sim *order3_zone(const uint64_t *free_pfns, unsigned int n, const char *variant)
{
	struct mm_sim *sim = compaction_sim(0, 256, variant);

	fill(sim, 3, 32, 0, 0);
	ck_assert_uint_eq(mm_fill_live(sim), 32);
	for (unsigned int i = 0; i < n; i++)
		free_block_at(sim, free_pfns[i]);
	return sim;
}

START_TEST(test_fast_find_window_from_zone_start)
{
	/* From the zone start: half of (224 - 0) = 112, so blocks below pageblock 96. */
	const uint64_t outside[] = {104};
	const uint64_t inside[] = {104, 72};
	struct mm_sim *sim = order3_zone(outside, 1, NULL);
	struct compact_control cc = cc_for(sim, 6, 0, 224);

	ck_assert_uint_eq(fast_find_migrateblock(&cc), 0);
	ck_assert_uint_eq(cc.fast_search_fail, 1);
	ck_assert_uint_eq(cc.fast_found_pfn, UINT64_MAX);
	mm_sim_destroy(sim);

	sim = order3_zone(inside, 2, NULL);
	cc = cc_for(sim, 6, 0, 224);
	ck_assert_uint_eq(fast_find_migrateblock(&cc), 64);
	ck_assert_uint_eq(cc.fast_search_fail, 0);
	ck_assert_uint_eq(cc.fast_found_pfn, 64);
	ck_assert_uint_eq(cc.fast_start_pfn, 72);
	ck_assert_msg(!get_pageblock_skip(sim, 64), "the fixed model does not mark the block");
	mm_sim_destroy(sim);
}
END_TEST

START_TEST(test_fast_find_window_after_start)
{
	/* From pfn 32: (224 - 32) / 2 / 4 = 24, so only blocks below pageblock 32 (of 56). */
	const uint64_t pfns[] = {40, 8};
	struct mm_sim *sim = order3_zone(pfns, 1, NULL);
	struct compact_control cc = cc_for(sim, 6, 32, 224);

	ck_assert_uint_eq(fast_find_migrateblock(&cc), 32);
	ck_assert_uint_eq(cc.fast_search_fail, 1);
	mm_sim_destroy(sim);

	sim = order3_zone(pfns, 2, NULL);
	cc = cc_for(sim, 6, 32, 224);
	ck_assert_uint_eq(fast_find_migrateblock(&cc), 0);
	/* A skipped block is passed over. */
	cc = cc_for(sim, 6, 32, 224);
	set_pageblock_skip(sim, 0);
	ck_assert_uint_eq(fast_find_migrateblock(&cc), 32);
	mm_sim_destroy(sim);
}
END_TEST

START_TEST(test_fast_find_bails_out)
{
	const uint64_t pfns[] = {72};
	struct mm_sim *sim = order3_zone(pfns, 1, NULL);
	struct compact_control cc = cc_for(sim, 3, 0, 224);

	/* Orders up to PAGE_ALLOC_COSTLY_ORDER scan linearly. */
	ck_assert_uint_eq(fast_find_migrateblock(&cc), 0);
	ck_assert_uint_eq(cc.fast_search_fail, 0);
	/* Not at a block or zone start: a continuation. */
	cc = cc_for(sim, 6, 5, 224);
	ck_assert_uint_eq(fast_find_migrateblock(&cc), 5);
	/* Direct compaction for an unmovable request keeps movable blocks. */
	cc = cc_for(sim, 6, 0, 224);
	cc.direct_compaction = true;
	cc.migratetype = MIGRATE_UNMOVABLE;
	ck_assert_uint_eq(fast_find_migrateblock(&cc), 0);
	/* ignore_skip_hint and finish_pageblock too. */
	cc = cc_for(sim, 6, 0, 224);
	cc.ignore_skip_hint = true;
	ck_assert_uint_eq(fast_find_migrateblock(&cc), 0);
	cc = cc_for(sim, 6, 0, 224);
	cc.finish_pageblock = true;
	ck_assert_uint_eq(fast_find_migrateblock(&cc), 0);
	cc = cc_for(sim, 6, 0, 224);
	ck_assert_uint_eq(fast_find_migrateblock(&cc), 64);
	mm_sim_destroy(sim);
}
END_TEST

/* The 70b44595eafe variant marks what it returns. */
START_TEST(test_fast_find_marks_skip_variant)
{
	const uint64_t pfns[] = {72};
	struct mm_sim *sim = order3_zone(pfns, 1, "compaction-fast-find-marks-skip");
	struct compact_control cc = cc_for(sim, 6, 0, 224);

	ck_assert_uint_eq(fast_find_migrateblock(&cc), 64);
	ck_assert(get_pageblock_skip(sim, 64));
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * Deferral
 * ---------------------------------------------------------------------- */

START_TEST(test_deferral_sequence)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct zone *z = normal(sim);

	/* Boot: order_failed 0 and shift 0, so nothing is deferred. */
	ck_assert(!compaction_deferred(z, 4));
	ck_assert_uint_eq(z->compact_considered, 1);
	for (unsigned int shift = 1; shift <= 8; shift++) {
		unsigned int want =
			shift < COMPACT_MAX_DEFER_SHIFT ? shift : COMPACT_MAX_DEFER_SHIFT;
		unsigned int skipped = 0;

		defer_compaction(z, 5);
		ck_assert_uint_eq(z->compact_defer_shift, want);
		ck_assert_uint_eq(z->compact_considered, 0);
		ck_assert_int_eq(z->compact_order_failed, 0);
		/* Skipped 2^shift - 1 times, then let through (and clamped). */
		while (compaction_deferred(z, 4))
			skipped++;
		ck_assert_uint_eq(skipped, (1u << want) - 1);
		ck_assert_uint_eq(z->compact_considered, 1u << want);
		ck_assert(!compaction_deferred(z, 4));
		ck_assert_uint_eq(z->compact_considered, 1u << want);
	}
	ck_assert(compaction_restarting(z, 4));
	/* A success that is only expected keeps the shift; order_failed moves past it. */
	compaction_defer_reset(z, 4, false);
	ck_assert_int_eq(z->compact_order_failed, 5);
	ck_assert_uint_eq(z->compact_defer_shift, COMPACT_MAX_DEFER_SHIFT);
	/* Orders below order_failed are never deferred or restarted. */
	ck_assert(!compaction_deferred(z, 4));
	ck_assert(!compaction_restarting(z, 4));
	ck_assert(compaction_restarting(z, 5));
	/* A failure at order 3 lowers order_failed; an allocation that succeeded clears the rest.
	 */
	defer_compaction(z, 3);
	ck_assert_int_eq(z->compact_order_failed, 3);
	compaction_defer_reset(z, 3, true);
	ck_assert_uint_eq(z->compact_defer_shift, 0);
	ck_assert_uint_eq(z->compact_considered, 0);
	ck_assert_int_eq(z->compact_order_failed, 4);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * Whole passes
 * ---------------------------------------------------------------------- */

static int sync_light(struct mm_sim *sim)
{
	return mm_compact_zone(sim, 0, ZONE_NORMAL, 4, MM_COMPACT_PRIO_SYNC_LIGHT,
			       MM_MIGRATE_SYNC_LIGHT, MIGRATE_MOVABLE);
}

/*
 * Nothing movable: the scanners cross the zone and meet. A full-priority
 * direct compaction is COMPLETE, asks kswapd to flush the skip bits and
 * resets the cached pfns to the zone's ends, and defers the zone: the
 * sync-light passes after it are skipped 1, 3 and 7 times in between.
 */
START_TEST(test_scanners_meet)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct zone *z = normal(sim);
	struct mm_compact_stats st;
	struct vrec vr;

	vrec_init(&vr);
	mm_sim_set_violation_handler(sim, vrec_handler, &vr);
	fill(sim, 0, 256, 1, 0);
	free_pattern(sim, 2, 0);
	ck_assert_int_eq(mm_compact_zone(sim, 0, ZONE_NORMAL, 4, MM_COMPACT_PRIO_SYNC_FULL,
					 MM_MIGRATE_SYNC_LIGHT, MIGRATE_MOVABLE),
			 MM_COMPACT_COMPLETE);
	ck_assert(z->compact_blockskip_flush);
	ck_assert_uint_eq(z->compact_cached_migrate_pfn[0], 0);
	ck_assert_uint_eq(z->compact_cached_migrate_pfn[1], 0);
	ck_assert_uint_eq(z->compact_cached_free_pfn, 224);
	mm_sim_compact_stats(sim, &st);
	ck_assert_uint_eq(st.pgmigrate_success, 0);
	ck_assert_uint_gt(st.compact_migrate_scanned, 0);
	/* Nothing isolated to migrate, so no target was ever looked for. */
	ck_assert_uint_eq(st.compact_free_scanned, 0);

	/* Deferred after the failure: 2^shift - 1 tries skipped, then it runs (and fails) again. */
	ck_assert_uint_eq(z->compact_defer_shift, 1);
	for (unsigned int shift = 1; shift <= 3; shift++) {
		for (unsigned int i = 0; i < (1u << shift) - 1; i++)
			ck_assert_int_eq(sync_light(sim), MM_COMPACT_DEFERRED);
		ck_assert_int_eq(sync_light(sim), MM_COMPACT_COMPLETE);
		ck_assert_uint_eq(z->compact_defer_shift, shift + 1);
	}
	assert_clean_destroy(sim, &vr);
}
END_TEST

/*
 * A checkerboard of movable pages: compaction moves pages into the free
 * holes until an order-4 block is free. Every moved block keeps its stamp
 * and its handle follows it, and none comes out pinned: no fill page was
 * (busy 0), and a target is a fresh page (migrate_page() clears spare).
 */
START_TEST(test_migration_moves_handle_and_stamp)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct compact_state *cs;
	struct mm_compact_stats st;
	long long before[256];
	unsigned int moved = 0;
	struct vrec vr;

	vrec_init(&vr);
	mm_sim_set_violation_handler(sim, vrec_handler, &vr);
	fill(sim, 0, 256, 0, 0);
	free_pattern(sim, 2, 1);
	cs = sim->compact;
	for (uint32_t i = 0; i < cs->nr_fill; i++)
		before[i] = cs->fill[i].pfn;
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free[4], 0);
	ck_assert_int_eq(mm_compact_zone(sim, 0, ZONE_NORMAL, 4, MM_COMPACT_PRIO_SYNC_LIGHT,
					 MM_MIGRATE_SYNC_LIGHT, MIGRATE_MOVABLE),
			 MM_COMPACT_SUCCESS);
	ck_assert_uint_ge(zinfo(sim, 0, ZONE_NORMAL).nr_free[4] +
				  zinfo(sim, 0, ZONE_NORMAL).nr_free[5] +
				  zinfo(sim, 0, ZONE_NORMAL).nr_free[6],
			  1);
	for (uint32_t i = 0; i < cs->nr_fill; i++) {
		const struct mm_handle *h = &cs->fill[i];
		const struct page *page;
		if (h->pfn < 0)
			continue;
		page = pfn_to_page(sim, (uint64_t)h->pfn);
		ck_assert_int_eq(page->state, PG_ALLOC);
		ck_assert_uint_eq(page->stamp.owner, OWNER_FILL | i);
		ck_assert_uint_eq(page->stamp.gen, h->gen);
		ck_assert_uint_eq(page->spare & PAGE_MIGRATE_BUSY, 0);
		moved += h->pfn != before[i];
	}
	mm_sim_compact_stats(sim, &st);
	ck_assert_uint_gt(moved, 0);
	ck_assert_uint_eq(moved, st.pgmigrate_success);
	ck_assert_uint_eq(normal(sim)->nr_isolated_free, 0);
	/* Every block frees with the stamp its handle holds. */
	free_pattern(sim, 1, 0);
	ck_assert_uint_eq(mm_fill_live(sim), 0);
	assert_clean_destroy(sim, &vr);
}
END_TEST

/* The compact op on node 0's zone zt at order, sync light priority and mode. */
static struct mm_op sync_light_compact(enum zone_type zt, uint8_t order)
{
	return (struct mm_op){.kind = MM_OP_COMPACT,
			      .compact = {.node = 0,
					  .zone = (uint8_t)zt,
					  .order = order,
					  .prio = MM_COMPACT_PRIO_SYNC_LIGHT,
					  .mode = MM_MIGRATE_SYNC_LIGHT,
					  .mt = MIGRATE_MOVABLE}};
}

/* Frees the executor's handles first, first + 2, ... of 256 through the free op. */
static void free_every_other(struct mm_sim *sim, struct mm_handle *h, uint32_t first)
{
	for (uint32_t i = first; i < 256; i += 2) {
		struct mm_op free_op = {.kind = MM_OP_FREE, .free = {.handle = i}};
		ck_assert_int_eq(mm_apply_op(sim, &free_op, h, 256, 256), 0);
	}
}

/*
 * A zone that manages no pages is not compacted: mm_compact_zone() refuses
 * it with -1, as it does a zone past the node's, and the compact op that
 * names it is counted skipped. The machine's only zone is Normal; its
 * DMA32 spans nothing.
 */
START_TEST(test_compact_unmanaged_zone_refused)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct mm_op op = sync_light_compact(ZONE_DMA32, 2);

	ck_assert_int_eq(mm_compact_zone(sim, 0, ZONE_DMA32, 2, MM_COMPACT_PRIO_SYNC_LIGHT,
					 MM_MIGRATE_SYNC_LIGHT, MIGRATE_MOVABLE),
			 -1);
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 1);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * INV-COMPACT-SKIP-HINT: a setter that trusts its own fresh mark (it
 * test-and-sets at every LRU page, so a block aborts at its second one)
 * makes the pass fail where the same pass blind to the bits succeeds. The
 * real pass's state is kept: the shadow leaves no trace in the stats.
 */
static bool lru_skip_every_page(struct compact_control *cc, uint64_t valid_pfn, uint64_t lru_pfn,
				bool *skip_updated)
{
	(void)valid_pfn;
	*skip_updated = true;
	return test_and_set_skip(cc, lru_pfn);
}

START_TEST(test_skip_hint_shadow_pass)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct mm_compact_stats st;
	struct vrec vr;

	vrec_init(&vr);
	mm_sim_set_violation_handler(sim, vrec_handler, &vr);
	fill(sim, 0, 256, 0, 0);
	free_pattern(sim, 2, 1);
	sim->policy.compact_lru_skip = lru_skip_every_page;
	ck_assert_int_ne(mm_compact_zone(sim, 0, ZONE_NORMAL, 4, MM_COMPACT_PRIO_SYNC_LIGHT,
					 MM_MIGRATE_SYNC_LIGHT, MIGRATE_MOVABLE),
			 MM_COMPACT_SUCCESS);
	ck_assert_msg(vrec_has(&vr, "INV-COMPACT-SKIP-HINT"), "got: %s", vr.first);
	mm_sim_compact_stats(sim, &st);
	ck_assert_uint_eq(st.compact_passes, 1);
	/*
	 * The zone is as the failed pass left it (it aborts every block at its
	 * second LRU page and forms no block of order 4 or more), not as the
	 * blind shadow pass left it (which succeeded: a free order-5 block).
	 */
	struct mm_zone_info zi = zinfo(sim, 0, ZONE_NORMAL);
	for (unsigned int o = 4; o <= 6; o++)
		ck_assert_msg(zi.nr_free[o] == 0, "%lu free order-%u blocks after a failed pass",
			      zi.nr_free[o], o);
	/* The next pass finds the bits the first set, and so does its shadow: both fail. */
	vrec_init(&vr);
	mm_compact_zone(sim, 0, ZONE_NORMAL, 4, MM_COMPACT_PRIO_SYNC_LIGHT, MM_MIGRATE_SYNC_LIGHT,
			MIGRATE_MOVABLE);
	ck_assert_uint_eq(vr.n, 0);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The shadow reads the bits of the pass's own zone as its scan began,
 * whatever bits the zone holds. Normal [0, 256) and ZONE_MOVABLE
 * [256, 512), both filled (the pages Movable's watermark kept taken apart)
 * and every other fill page freed; the pass runs in
 * one (_i 0: Normal, 1: Movable) whose last block was marked before it,
 * and every block of the other zone is marked. With the setter that trusts
 * its own fresh mark the pass fails where its shadow succeeds, and is
 * caught: a shadow that read its bits from the other zone would skip
 * every block and fail as well.
 */
START_TEST(test_skip_hint_shadow_in_a_marked_zone)
{
	enum zone_type zt = _i ? ZONE_MOVABLE : ZONE_NORMAL;
	uint64_t start = _i ? 256 : 0, other = _i ? 0 : 256;
	struct mm_config cfg;
	uint32_t gen;
	struct mm_sim *sim;
	struct vrec vr;

	cfg_tiny(&cfg, 1, 6, 5);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 256, 256);
	cfg_zone(&cfg, 0, ZONE_MOVABLE, 256, 256, 256);
	sim = sim_new(&cfg);
	mm_zone_pcp_disable(sim, 0, ZONE_NORMAL);
	mm_zone_pcp_disable(sim, 0, ZONE_MOVABLE);
	sim->serial = true;
	sim_record(sim, &vr);
	for (int z = 0; z < 2; z++) {
		struct mm_op op = {.kind = MM_OP_FILL,
				   .fill = {.node = -1,
					    .zone = (uint8_t)(z ? ZONE_MOVABLE : ZONE_NORMAL),
					    .pages = 256}};

		ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
	}
	/* what the watermark kept of Movable, taken by a non-fill owner */
	while (mm_alloc_pages(sim, 0, MM_GFP_MEMALLOC | MM_GFP_HIGHUSER_MOVABLE, -1, 9, &gen) >= 0)
		;
	ck_assert_int_eq(zinfo(sim, 0, ZONE_MOVABLE).nr_free_exact, 0);
	free_pattern(sim, 2, 1);
	set_pageblock_skip(sim, start + 224);
	for (uint64_t pfn = other; pfn < other + 256; pfn += 32)
		set_pageblock_skip(sim, pfn);
	sim->policy.compact_lru_skip = lru_skip_every_page;
	ck_assert_int_ne(mm_compact_zone(sim, 0, zt, 4, MM_COMPACT_PRIO_SYNC_LIGHT,
					 MM_MIGRATE_SYNC_LIGHT, MIGRATE_MOVABLE),
			 MM_COMPACT_SUCCESS);
	ck_assert_msg(vrec_has(&vr, "INV-COMPACT-SKIP-HINT"), "got: %s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The bits a pass finds hold for its shadow too: a kernel reset may leave
 * a usable block marked (docs/compaction.md, "Skip bits never stale"),
 * and a pass that fails because of it is the kernel's. Every block of the
 * zone marked before a pass of the correct model, which would succeed
 * without them (test_skip_hint_shadow_pass()'s zone): the pass fails, and
 * so does its shadow; nothing is reported. A shadow blind to every bit
 * would succeed and report.
 */
START_TEST(test_skip_hint_shadow_honours_the_bits_it_found)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct mm_compact_stats st;
	struct vrec vr;

	sim_record(sim, &vr);
	fill(sim, 0, 256, 0, 0);
	free_pattern(sim, 2, 1);
	for (uint64_t pfn = 0; pfn < 256; pfn += 32)
		set_pageblock_skip(sim, pfn);
	ck_assert_int_ne(mm_compact_zone(sim, 0, ZONE_NORMAL, 4, MM_COMPACT_PRIO_SYNC_LIGHT,
					 MM_MIGRATE_SYNC_LIGHT, MIGRATE_MOVABLE),
			 MM_COMPACT_SUCCESS);
	mm_sim_compact_stats(sim, &st);
	ck_assert_uint_eq(st.compact_passes, 1);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/* As lru_skip_every_page(), from a block's third LRU page on: three sources a block. */
static bool lru_skip_from_third_page(struct compact_control *cc, uint64_t valid_pfn,
				     uint64_t lru_pfn, bool *skip_updated)
{
	if ((lru_pfn & 31) < 4)
		return false;
	return lru_skip_every_page(cc, valid_pfn, lru_pfn, skip_updated);
}

/*
 * A pass whose free scanner marked a block is not compared (the file
 * comment of compaction_shadow.c): the kernel's free scanner marks the
 * target blocks it empties too, and a migration scanner that then skips
 * one fails where a blind pass would not. The odd pages of blocks 0-6
 * free, and one page of block 7, freed first so that the fast search
 * finds it at the order-0 list's tail; three sources a block need more
 * targets, so isolating around it empties block 7, which
 * fast_isolate_around() marks. The pass fails, the blind one would
 * succeed, and the checker stays silent.
 */
START_TEST(test_skip_hint_ignores_free_side_marks)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct vrec vr;

	vrec_init(&vr);
	mm_sim_set_violation_handler(sim, vrec_handler, &vr);
	fill(sim, 0, 256, 0, 0);
	free_block_at(sim, 255);
	free_every_other_at(sim, 1, 224);
	sim->policy.compact_lru_skip = lru_skip_from_third_page;
	ck_assert_int_ne(mm_compact_zone(sim, 0, ZONE_NORMAL, 4, MM_COMPACT_PRIO_SYNC_LIGHT,
					 MM_MIGRATE_SYNC_LIGHT, MIGRATE_MOVABLE),
			 MM_COMPACT_SUCCESS);
	/* the premise: the free scanner marked block 7, never the migration scanner's */
	ck_assert(get_pageblock_skip(sim, 224));
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The same shadow pass over the executor's allocations: the blind pass
 * moves pages their handles follow, and putting back the real pass's
 * state puts back the handles too. Afterwards every live handle reaches
 * an allocated page stamped with its number and generation, and frees
 * clean. 256 order-0 movable allocations, every other one freed.
 */
START_TEST(test_shadow_pass_keeps_exec_handles)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct mm_handle h[256];
	struct mm_op alloc = {
		.kind = MM_OP_ALLOC,
		.alloc = {.order = 0, .node = -1, .gfp = MM_GFP_MOVABLE | MM_GFP_KERNEL}};
	struct mm_op compact = sync_light_compact(ZONE_NORMAL, 4);
	struct mm_compact_stats st;
	struct vrec vr;

	sim_record(sim, &vr);
	for (uint32_t i = 0; i < 256; i++)
		ck_assert_int_eq(mm_apply_op(sim, &alloc, h, 256, i), 0);
	free_every_other(sim, h, 0);
	sim->policy.compact_lru_skip = lru_skip_every_page;
	ck_assert_int_eq(mm_apply_op(sim, &compact, h, 256, 256), 0);
	ck_assert_msg(vrec_has(&vr, "INV-COMPACT-SKIP-HINT"), "got: %s", vr.first); /* it ran */
	mm_sim_compact_stats(sim, &st);
	ck_assert_uint_eq(st.compact_passes, 1);
	for (uint32_t i = 1; i < 256; i += 2) {
		const struct page *page;

		ck_assert_int_ge(h[i].pfn, 0);
		page = pfn_to_page(sim, (uint64_t)h[i].pfn);
		ck_assert_msg(page->state == PG_ALLOC && page->stamp.owner == i &&
				      page->stamp.gen == h[i].gen,
			      "a%u reaches pfn %lld: state %d, owner %u, gen %u (want %u)", i,
			      h[i].pfn, page->state, page->stamp.owner, page->stamp.gen, h[i].gen);
	}
	vrec_init(&vr);
	free_every_other(sim, h, 1);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 256);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The shadow pass leaves no trace: the machine after a pass the checker
 * reran blind equals its twin, built and compacted the same way, whose
 * pass the checker takes for its own shadow (in_shadow) and does not
 * rerun. The zone, its memmap and pageblock flags, the fill pool, the
 * events this CPU counted and compaction's own counts all match. Two
 * machines: every odd page free, and the same with block 7's first four
 * odd pages freed first, so that the blind pass's fast search starts
 * there and empties block 7, the zone's last, which it marks (the real
 * pass, a source a round, never needs the rest of the block).
 */
static struct mm_sim *shadow_twin(bool rerun, bool top_first, struct vrec *vr)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);

	sim_record(sim, vr);
	fill(sim, 0, 256, 0, 0);
	if (top_first) {
		free_every_other_at(sim, 225, 232);
		free_every_other_at(sim, 1, 224);
	} else {
		free_pattern(sim, 2, 1);
	}
	sim->policy.compact_lru_skip = lru_skip_every_page;
	sim->compact->in_shadow = !rerun;
	ck_assert_int_ne(mm_compact_zone(sim, 0, ZONE_NORMAL, 4, MM_COMPACT_PRIO_SYNC_LIGHT,
					 MM_MIGRATE_SYNC_LIGHT, MIGRATE_MOVABLE),
			 MM_COMPACT_SUCCESS);
	sim->compact->in_shadow = false;
	return sim;
}

START_TEST(test_shadow_pass_leaves_no_trace)
{
	struct vrec vr_a, vr_b;
	struct mm_sim *a = shadow_twin(true, _i, &vr_a), *b = shadow_twin(false, _i, &vr_b);
	struct mm_stats sa = sim_stats(a), sb = sim_stats(b);
	struct mm_compact_stats ca, cb;
	struct mm_zone_info za = zinfo(a, 0, ZONE_NORMAL), zb = zinfo(b, 0, ZONE_NORMAL);

	ck_assert_msg(vrec_has(&vr_a, "INV-COMPACT-SKIP-HINT"), "got: %s", vr_a.first); /* it ran */
	ck_assert(!vrec_has(&vr_b, "INV-COMPACT-SKIP-HINT"));
	ck_assert_msg(memcmp(&sa, &sb, sizeof(sa)) == 0,
		      "events: %llu/%llu allocs, %llu/%llu frees, %llu/%llu merges",
		      sa.alloc_success, sb.alloc_success, sa.frees, sb.frees, sa.merges, sb.merges);
	mm_sim_compact_stats(a, &ca);
	mm_sim_compact_stats(b, &cb);
	ck_assert(memcmp(&ca, &cb, sizeof(ca)) == 0);
	ck_assert_int_eq(za.nr_free_exact, zb.nr_free_exact);
	ck_assert_int_eq(za.nr_free_pages, zb.nr_free_pages);
	for (unsigned int o = 0; o <= 6; o++)
		ck_assert_uint_eq(za.nr_free[o], zb.nr_free[o]);
	for (uint64_t pfn = 0; pfn < 256; pfn++) {
		const struct page *pa = pfn_to_page(a, pfn), *pb = pfn_to_page(b, pfn);
		ck_assert_msg(pa->state == pb->state && pa->order == pb->order &&
				      pa->stamp.owner == pb->stamp.owner &&
				      pa->stamp.gen == pb->stamp.gen,
			      "pfn %llu differs", (unsigned long long)pfn);
		ck_assert_int_eq(get_pageblock_skip(a, pfn), get_pageblock_skip(b, pfn));
	}
	ck_assert_uint_eq(a->compact->nr_fill, b->compact->nr_fill);
	for (uint32_t i = 0; i < a->compact->nr_fill; i++)
		ck_assert_int_eq(a->compact->fill[i].pfn, b->compact->fill[i].pfn);
	ck_assert_uint_eq(mm_check_full(a), 0);
	mm_sim_destroy(a);
	mm_sim_destroy(b);
}
END_TEST

/*
 * One CPU, a 256-page Normal zone at start with its pcp lists on, filled
 * with movable pages of which every every-th is freed (to CPU 0's lists).
 */
static struct mm_sim *pcp_on_sim(uint64_t start, unsigned int every)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 1, 6, 5);
	cfg_zone(&cfg, 0, ZONE_NORMAL, start, 256, 256);
	sim = sim_new(&cfg);
	mm_set_current_cpu(0);
	sim->serial = true;
	fill(sim, 0, 256, 0, 0);
	free_pattern(sim, every, 1);
	return sim;
}

/*
 * compact_zone()'s check_drain: once the migrate scanner leaves the order
 * block it migrated from, the pass's CPU gives its pcp pages of the zone
 * back to the buddy, where they can merge. A zone at pfn 64 (a zone at 0
 * that migrated only from its first block would leave last_migrated_pfn
 * 0, and the kernel then drains nothing) with its pcp lists on: the frees
 * of every other page leave pages on CPU 0's lists, and an order-4 pass
 * that migrates must end with those lists empty.
 */
START_TEST(test_pass_drains_its_cpu_lists)
{
	struct mm_sim *sim = pcp_on_sim(64, 2);
	struct mm_compact_stats st;

	const struct per_cpu_pages *pcp = &normal(sim)->per_cpu_pageset[0];
	ck_assert_int_gt(pcp->count, 0);
	ck_assert_int_eq(mm_compact_zone(sim, 0, ZONE_NORMAL, 4, MM_COMPACT_PRIO_SYNC_LIGHT,
					 MM_MIGRATE_SYNC_LIGHT, MIGRATE_MOVABLE),
			 MM_COMPACT_SUCCESS);
	mm_sim_compact_stats(sim, &st);
	ck_assert_uint_gt(st.pgmigrate_success, 0);
	ck_assert_int_eq(pcp->count, 0);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * check_drain() gives back the lists of the pass's CPU only when that is
 * one of the machine's (a caller's mm_set_current_cpu() is not checked).
 * Every fill page busy, so no migration frees a page through the CPU's
 * lists (each fails and goes back), yet the scanner moves past the blocks
 * it isolated from: a pass from CPU nr_cpus drains nothing and reads no
 * pageset past the machine's.
 */
START_TEST(test_pass_from_a_cpu_past_the_machine_drains_nothing)
{
	struct mm_sim *sim = compaction_sim(64, 256, NULL);
	struct mm_compact_stats st;

	mm_set_current_cpu(0);
	fill(sim, 0, 256, 0, 1);
	free_pattern(sim, 2, 1);
	mm_set_current_cpu((int)sim->nr_cpus);
	mm_compact_zone(sim, 0, ZONE_NORMAL, 4, MM_COMPACT_PRIO_SYNC_LIGHT, MM_MIGRATE_SYNC_LIGHT,
			MIGRATE_MOVABLE);
	mm_set_current_cpu(0);
	mm_sim_compact_stats(sim, &st);
	ck_assert_uint_gt(st.pgmigrate_fail, 0);
	ck_assert_uint_eq(st.pgmigrate_success, 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * migrate_pages() runs out of targets (-ENOMEM) with the scanners apart:
 * compact_zone() ends the pass COMPACT_CONTENDED. A migrated source is
 * freed by its last folio_put() to this CPU's list, where NR_FREE_PAGES
 * does not count it, so each migration takes a page off the free count
 * until __isolate_free_page()'s min + 1 refuses the next target. One CPU,
 * 256 movable pages, every third freed (85, drained to the buddy); then
 * min_free_kbytes 256 puts min at 64 pages: an order-3 pass is suitable
 * (85 >= min + compact_gap 16) and runs out before the free scanner has
 * come down to the migration scanner.
 */
START_TEST(test_targets_run_out_contended)
{
	struct mm_sim *sim = pcp_on_sim(0, 3);
	struct mm_compact_stats st;

	drain_pages_zone(0, normal(sim));
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 85);
	mm_set_min_free_kbytes(sim, 256);
	ck_assert_uint_eq(wmark_pages(normal(sim), WMARK_MIN), 64);
	const struct per_cpu_pages *pcp = &normal(sim)->per_cpu_pageset[0];
	ck_assert_int_eq(mm_compact_zone(sim, 0, ZONE_NORMAL, 3, MM_COMPACT_PRIO_SYNC_LIGHT,
					 MM_MIGRATE_SYNC_LIGHT, MIGRATE_MOVABLE),
			 MM_COMPACT_CONTENDED);
	mm_sim_compact_stats(sim, &st);
	ck_assert_uint_gt(st.pgmigrate_success, 0);
	ck_assert_uint_gt(st.pgmigrate_fail, 0);
	/* every migrated source waits on CPU 0's list, off the free count */
	ck_assert_int_eq(pcp->count, (int)st.pgmigrate_success);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact + pcp->count, 85);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* Busy pages (an extra reference) fail to migrate in every mode. */
START_TEST(test_busy_pages_fail_migration)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct mm_compact_stats st;

	fill(sim, 0, 256, 0, 1); /* every movable page busy */
	free_pattern(sim, 2, 1);
	ck_assert_int_ne(mm_compact_zone(sim, 0, ZONE_NORMAL, 4, MM_COMPACT_PRIO_SYNC_FULL,
					 MM_MIGRATE_SYNC, MIGRATE_MOVABLE),
			 MM_COMPACT_SUCCESS);
	mm_sim_compact_stats(sim, &st);
	ck_assert_uint_eq(st.pgmigrate_success, 0);
	ck_assert_uint_gt(st.pgmigrate_fail, 0);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * A round whose migration partly failed goes back to compact_finished()
 * unless it stopped mid-block in a pass that honours skip hints and is
 * not finishing a block, async or sync light: only there does
 * compact_zone() rescan the block (finish_pageblock). Every third fill
 * page pinned, every other page free, order 2: the first round isolates
 * the 32-page first block and frees what it migrates, which makes order-2
 * pages free, so the pass ends SUCCESS there, at the block boundary, at
 * the sync full priority (ignore_skip_hint) as at sync light.
 */
START_TEST(test_failed_round_ends_at_the_check)
{
	const int prio = _i ? MM_COMPACT_PRIO_SYNC_LIGHT : MM_COMPACT_PRIO_SYNC_FULL;
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct mm_compact_stats st;

	fill(sim, 0, 256, 0, 3);
	free_pattern(sim, 2, 0);
	ck_assert_int_eq(mm_compact_zone(sim, 0, ZONE_NORMAL, 2, prio, MM_MIGRATE_SYNC_LIGHT,
					 MIGRATE_MOVABLE),
			 MM_COMPACT_SUCCESS);
	mm_sim_compact_stats(sim, &st);
	ck_assert_uint_gt(st.pgmigrate_fail, 0); /* the premise: the round failed in part */
	ck_assert_msg(st.compact_migrate_scanned == 32, "prio %d: %llu pages scanned, want 32",
		      prio, st.compact_migrate_scanned);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * A round whose migration failed mid-block rescans the rest of the block
 * at once (compact_zone()'s goto rescan, finish_pageblock set), so the
 * block is finished even though pages were isolated from it. Going back
 * to the loop instead is not the same: check_drain() sees the scanner past
 * the order-aligned block it migrated from and forgets last_migrated_pfn,
 * so the next round does not finish the block. Pageblocks of 64 pages:
 * block 0 unmovable, block 1 pinned movable pages (every migration fails),
 * blocks 2 to 5 movable with every other page free. An order-2 sync light
 * pass finds nothing to isolate in block 0, isolates 32 of block 1's pages
 * (COMPACT_CLUSTER_MAX), fails, rescans and fails the other 32, then
 * migrates block 2's pages out: SUCCESS. update_cached_migrate()
 * takes pageblock_end_pfn() of a block's end, one block on, as the
 * kernel's does: block 0 leaves the cached migrate pfn at 128, the
 * finished block 1 at 192. Without the rescan it stays at 128.
 */
START_TEST(test_failed_round_finishes_its_block)
{
	struct mm_sim *sim = compaction_machine(6, 0, 384, NULL);
	struct zone *z = normal(sim);
	struct mm_compact_stats st;
	int rc;

	fill(sim, 0, 64, 1, 0);
	fill(sim, 0, 64, 0, 1);
	fill(sim, 0, 256, 0, 0);
	free_every_other_at(sim, 128, 384);
	ck_assert_int_eq(get_pfnblock_migratetype(sim, 0), MIGRATE_UNMOVABLE);
	ck_assert_int_eq(get_pfnblock_migratetype(sim, 64), MIGRATE_MOVABLE);
	rc = mm_compact_zone(sim, 0, ZONE_NORMAL, 2, MM_COMPACT_PRIO_SYNC_LIGHT,
			     MM_MIGRATE_SYNC_LIGHT, MIGRATE_MOVABLE);
	ck_assert_msg(rc == MM_COMPACT_SUCCESS, "the pass ended %s", mm_compact_result_name(rc));
	mm_sim_compact_stats(sim, &st);
	ck_assert_uint_eq(st.pgmigrate_fail, 64);
	ck_assert_uint_eq(st.compact_migrate_scanned, 192);
	ck_assert_msg(z->compact_cached_migrate_pfn[1] == 192,
		      "cached migrate pfn %llu, want 192: block 1 not finished",
		      (unsigned long long)z->compact_cached_migrate_pfn[1]);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The migration scanner counts every pfn of a block it crosses: a free
 * buddy it steps over counts its 2^order pages (isolate_migratepages_block()
 * adds (1 << order) - 1 to the one of its head). Every fourth pair of
 * pages free, so the free blocks are order-1 buddies and the pages between
 * them movable: an order-3 pass moves block 0's sixteen pages out in its
 * first round, which frees the whole block (SUCCESS), having scanned its
 * 32 pfns.
 */
START_TEST(test_migrate_scanned_counts_free_buddies)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct mm_compact_stats st;
	int rc;

	fill(sim, 0, 256, 0, 0);
	free_pattern(sim, 4, 0);
	free_pattern(sim, 4, 1);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free[1], 64);
	rc = mm_compact_zone(sim, 0, ZONE_NORMAL, 3, MM_COMPACT_PRIO_SYNC_LIGHT,
			     MM_MIGRATE_SYNC_LIGHT, MIGRATE_MOVABLE);
	ck_assert_msg(rc == MM_COMPACT_SUCCESS, "the pass ended %s", mm_compact_result_name(rc));
	mm_sim_compact_stats(sim, &st);
	ck_assert_uint_eq(st.pgmigrate_success, 16);
	ck_assert_msg(st.compact_migrate_scanned == 32, "%llu pfns scanned, want 32",
		      st.compact_migrate_scanned);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * An executor runs program after program, as a fuzz target does: its
 * handle array stays from a program that allocated while the next one
 * has none. A failing compaction pass of that one is saved and rerun by
 * the skip-hint oracle, whose snapshot must hold the empty handle and
 * fill tables (a copy of none into no buffer is still undefined).
 */
START_TEST(test_exec_reused_without_handles)
{
	static const char machine[] =
		"config nodes=1 cpus=1 max_order=6 pageblock_order=5 min_free_kbytes=1 "
		"watermark_scale_factor=1 high_fraction=0\n"
		"zone 0 Normal start=0 spanned=256 present=256 managed=256\n"
		"cpu0 pcp_disable node=0 zone=Normal\n";
	struct mm_exec *ex = mm_exec_create();
	struct mm_exec_opts o;
	struct vrec vr;
	long failed;
	char text[1024];

	mm_exec_opts_default(&o);
	snprintf(text, sizeof(text), "%scpu0 alloc a0 order=0 gfp=KERNEL\n", machine);
	ck_assert_int_eq(exec_text(ex, text, &o, &vr, &failed), 0);
	/* every page unmovable: nothing migrates, the order-3 pass fails */
	snprintf(text, sizeof(text),
		 "%scpu0 fill zone=Normal order=0 pages=256 unmovable_every=1 busy_every=0\n"
		 "cpu0 free_pattern every=2 offset=0\n"
		 "cpu0 compact node=0 zone=Normal order=3 prio=sync_light mode=sync_light "
		 "mt=movable\n",
		 machine);
	ck_assert_int_eq(exec_text(ex, text, &o, &vr, &failed), 0);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_exec_destroy(ex);
}
END_TEST

/* The executor's handles: allocations moved by compaction free with their handle. */
START_TEST(test_exec_handles_follow_migration)
{
	struct mm_exec *ex = mm_exec_create();
	struct mm_compact_stats st;
	struct vrec vr;
	long failed;
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	/* 64 movable pages, every other freed, an order-3 compaction, then all freed. */
	fputs("config nodes=1 cpus=1 max_order=6 pageblock_order=5 min_free_kbytes=1 "
	      "watermark_scale_factor=1 high_fraction=0\n"
	      "zone 0 Normal start=0 spanned=64 present=64 managed=64\n"
	      "cpu0 pcp_disable node=0 zone=Normal\n",
	      f);
	for (int i = 0; i < 64; i++)
		fprintf(f, "cpu0 alloc a%d order=0 gfp=MOVABLE|KERNEL\n", i);
	for (int i = 0; i < 64; i += 2)
		fprintf(f, "cpu0 free a%d\n", i);
	fputs("cpu0 compact node=0 zone=Normal order=3 prio=sync_light mode=sync_light "
	      "mt=movable\n",
	      f);
	for (int i = 1; i < 64; i += 2)
		fprintf(f, "cpu0 free a%d\n", i);
	fclose(f);
	ck_assert_int_eq(run_text(ex, buf, NULL, &vr, &failed), 0);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	ck_assert_uint_eq(mm_exec_skipped(ex), 0);
	mm_sim_compact_stats(mm_exec_sim(ex), &st);
	ck_assert_uint_gt(st.pgmigrate_success, 0);
	ck_assert_uint_eq(zinfo(mm_exec_sim(ex), 0, ZONE_NORMAL).nr_free_pages, 64);
	free(buf);
	mm_exec_destroy(ex);
}
END_TEST

/* ------------------------------------------------------------------------
 * Variants: each proof trace is caught with its invariant, and clean without
 * ---------------------------------------------------------------------- */

static const struct {
	const char *variant, *id;
} variant_cases[] = {
	{"compaction-fast-find-marks-skip", "INV-COMPACT-FASTFIND-UNSCANNED"},
	{"compaction-fast-find-no-mark", "INV-COMPACT-RESCAN"},
	{"compaction-aligned-only-skip-test", "INV-COMPACT-RESCAN"},
};

START_TEST(test_variant_caught)
{
	char *text = read_variant_trace(variant_cases[_i].variant);
	struct mm_exec *ex = mm_exec_create();
	struct vrec vr;
	long failed;

	ck_assert_int_eq(run_text(ex, text, NULL, &vr, &failed), 0);
	ck_assert_int_gt(run_text(ex, text, variant_cases[_i].variant, &vr, &failed), 0);
	ck_assert_msg(vrec_has(&vr, variant_cases[_i].id), "%s: got %s", variant_cases[_i].variant,
		      vr.first);
	ck_assert_int_ge(failed, 0);
	mm_exec_destroy(ex);
	free(text);
}
END_TEST

/* ------------------------------------------------------------------------
 * The fill pool and the handles that reach a page
 * ---------------------------------------------------------------------- */

/*
 * 64 pages, all filled: the pool is full (its capacity is the machine's
 * pfns). Slot 0 (pfn 0) freed, the cursor at 0: the next fill reuses it,
 * the slot at the cursor first. Then every slot freed, pfn 0's too.
 */
START_TEST(test_fill_pool_reuse)
{
	struct mm_sim *sim = compaction_sim(0, 64, NULL);

	fill(sim, 0, 64, 0, 0);
	ck_assert_uint_eq(mm_fill_live(sim), 64);
	ck_assert_int_eq(sim->compact->fill[0].pfn, 0);
	free_pattern(sim, 64, 0);
	ck_assert_uint_eq(mm_fill_live(sim), 63);
	ck_assert_int_eq(sim->compact->fill[0].pfn, -1);
	fill(sim, 0, 1, 0, 0);
	ck_assert_uint_eq(mm_fill_live(sim), 64);
	ck_assert_int_eq(sim->compact->fill[0].pfn, 0);
	free_pattern(sim, 1, 0);
	ck_assert_uint_eq(mm_fill_live(sim), 0);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_pages, 64);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * handle_of_block() reaches an executor handle only by a number below
 * nr_handles: a stamp naming the slot just past the array reaches nothing,
 * even when that memory happens to hold a matching handle.
 */
START_TEST(test_handle_of_block_bounds)
{
	struct mm_sim *sim = compaction_sim(0, 64, NULL);
	struct mm_handle hs[3] = {{-1, 0, 0}, {-1, 0, 0}, {-1, 0, 0}};
	uint32_t gen;
	long long pfn = mm_alloc_pages(sim, 0, MM_GFP_KERNEL | MM_GFP_MOVABLE, -1, 2, &gen);

	ck_assert_int_ge(pfn, 0);
	hs[2] = (struct mm_handle){pfn, gen, 0};
	sim->handles = hs;
	sim->nr_handles = 3;
	ck_assert_ptr_eq(handle_of_block(sim, (uint64_t)pfn), &hs[2]);
	sim->nr_handles = 2;
	ck_assert_ptr_null(handle_of_block(sim, (uint64_t)pfn));
	sim->handles = NULL;
	sim->nr_handles = 0;
	mm_sim_destroy(sim);
}
END_TEST

/* The per-input reset zeroes the compaction figures of the last input. */
START_TEST(test_compact_stats_reset)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct mm_compact_stats st;
	struct mm_config cfg;

	fill(sim, 0, 256, 0, 0);
	free_pattern(sim, 2, 0);
	ck_assert_int_ge(mm_compact_zone(sim, 0, ZONE_NORMAL, 3, MM_COMPACT_PRIO_SYNC_LIGHT,
					 MM_MIGRATE_SYNC_LIGHT, MIGRATE_MOVABLE),
			 0);
	mm_sim_compact_stats(sim, &st);
	ck_assert_uint_gt(st.compact_passes, 0);
	cfg_tiny(&cfg, 1, 6, 5);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 256, 256);
	ck_assert_int_eq(mm_sim_init(sim, &cfg, -1), 0);
	mm_sim_compact_stats(sim, &st);
	ck_assert_uint_eq(st.compact_passes, 0);
	ck_assert_uint_eq(st.compact_migrate_scanned, 0);
	ck_assert_uint_eq(st.compact_isolated, 0);
	mm_sim_destroy(sim);
}
END_TEST

/* Compaction needs one thread: on a machine that is not serial every compaction op is skipped. */
START_TEST(test_compaction_ops_need_serial)
{
	static const uint8_t kinds[] = {MM_OP_COMPACT, MM_OP_KCOMPACTD, MM_OP_RESET_SKIP,
					MM_OP_FILL, MM_OP_FREE_PATTERN};
	struct mm_sim *sim = compaction_sim(0, 64, NULL);

	sim->serial = false;
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		struct mm_op op = {.kind = kinds[i]};
		ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 1);
	}
	ck_assert_uint_eq(mm_fill_live(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The reset_skip op as the executor runs it: it ran (0, not a skip) and did
 * what mm_reset_isolation_suitable() does after a flush was asked for: the
 * flush is consumed and the LRU block's skip bit cleared.
 */
START_TEST(test_reset_skip_op)
{
	struct mm_sim *sim = compaction_sim(0, 64, NULL);
	struct mm_op op = {.kind = MM_OP_RESET_SKIP, .cpu = 0, .compact = {.node = 0}};
	struct zone *z = normal(sim);

	fill(sim, 0, 64, 0, 0);
	set_pageblock_skip(sim, 0);
	z->compact_blockskip_flush = true;
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
	ck_assert(!z->compact_blockskip_flush);
	ck_assert(!get_pageblock_skip(sim, 0));
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The free scanners' per-isolation rule (INV-COMPACT-FREE-TARGET): a block
 * taken is a free page of its order, taken while targets are short. pfn 5
 * is allocated; pfn 9 is free but the one target wanted is already held.
 */
START_TEST(test_free_take_oracle)
{
	struct mm_sim *sim = compaction_sim(0, 64, NULL);
	uint32_t gen[64];
	struct vrec vr;
	struct compact_control cc = {.zone = normal(sim), .nr_migratepages = 1};

	for (int i = 0; i < 64; i++)
		ck_assert_int_eq(mm_alloc_pages(sim, 0, MM_GFP_KERNEL | MM_GFP_MOVABLE, -1,
						(uint32_t)i, &gen[i]),
				 i);
	mm_free_pages(sim, 9, 0, 9, gen[9]);
	vrec_init(&vr);
	sim_record(sim, &vr);
	_mm_oracle_free_take(&cc, 9, 0);
	ck_assert_uint_eq(vr.n, 0);
	_mm_oracle_free_take(&cc, 9, 1); /* the wrong order */
	ck_assert_uint_eq(vr.n, 1);
	_mm_oracle_free_take(&cc, 5, 0); /* not free */
	ck_assert_uint_eq(vr.n, 2);
	cc.nr_freepages = 1; /* the targets suffice */
	_mm_oracle_free_take(&cc, 9, 0);
	ck_assert_uint_eq(vr.n, 3);
	for (unsigned int k = 0; k < vr.n; k++)
		ck_assert_str_eq(vr.id[k], "INV-COMPACT-FREE-TARGET");
	mm_sim_destroy(sim);
}
END_TEST

/*
 * compact_zone()'s update_cached: an async pass that starts with both
 * cached migrate pfns equal carries the sync one ([1]) along with the
 * async one ([0]) over the rounds that isolate nothing, until a round
 * isolates; one that starts with them apart leaves [1] alone. Block 0 holds
 * order-1 blocks only (allocated or free: the scanner isolates neither),
 * block 1 alternates free and movable pages, blocks 2..7 free and
 * allocated order-2 blocks (the async free scanner's stride finds the free
 * ones). An async order-3 pass finds nothing in block 0 ([0] passes it:
 * 64), then empties block 1 into the free blocks at the top: an order-5 block.
 */
static void fragment_for_update_cached(struct mm_sim *sim)
{
	fill(sim, 1, 16, 0, 0); /* block 0 */
	fill(sim, 0, 32, 0, 0); /* block 1 */
	fill(sim, 2, 48, 0, 0); /* blocks 2..7 */
	free_pattern(sim, 2, 0);
}

/*
 * The third row retypes block 0 UNMOVABLE (its free blocks with it):
 * async direct compaction takes sources of the request's mobility only,
 * and isolate_migratepages() moves [0] past each block it turns away,
 * since the scanners may never meet when every block between them is
 * unsuitable. [0] ends at block 0's end, 64, in every row.
 */
static const struct {
	uint64_t sync_pfn; /* compact_cached_migrate_pfn[1] at the start; [0] is 0 */
	uint64_t want;	   /* [1] after the pass */
	bool block0_unmovable;
} update_cached_rows[] = {
	{0, 64, false},	   /* equal: [1] follows [0] past block 0 */
	{128, 128, false}, /* apart: [1] stays where the sync scanner left it */
	{128, 128, true},  /* block 0 turned away, not scanned */
};

START_TEST(test_async_pass_updates_sync_cached_pfn)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct zone *z = normal(sim);
	int rc;

	mm_set_current_cpu(0);
	fragment_for_update_cached(sim);
	if (update_cached_rows[_i].block0_unmovable) {
		zone_lock(z);
		__move_freepages_block(z, 0, MIGRATE_MOVABLE, MIGRATE_UNMOVABLE);
		set_pageblock_migratetype(sim, 0, MIGRATE_UNMOVABLE);
		zone_unlock(z);
	}
	z->compact_cached_migrate_pfn[0] = 0;
	z->compact_cached_migrate_pfn[1] = update_cached_rows[_i].sync_pfn;
	rc = mm_compact_zone(sim, 0, ZONE_NORMAL, 3, MM_COMPACT_PRIO_ASYNC, MM_MIGRATE_ASYNC,
			     MIGRATE_MOVABLE);
	ck_assert_msg(rc == MM_COMPACT_SUCCESS, "the pass ended %s", mm_compact_result_name(rc));
	ck_assert_msg(z->compact_cached_migrate_pfn[0] == 64, "[0] at %llu after the pass",
		      (unsigned long long)z->compact_cached_migrate_pfn[0]);
	ck_assert_msg(z->compact_cached_migrate_pfn[1] == update_cached_rows[_i].want,
		      "[1] started at %llu: %llu after the pass, want %llu",
		      (unsigned long long)update_cached_rows[_i].sync_pfn,
		      (unsigned long long)z->compact_cached_migrate_pfn[1],
		      (unsigned long long)update_cached_rows[_i].want);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * compact_zone()'s end: the targets a pass did not use go back to the
 * buddy, and the cached free pfn goes back up to the first block of the
 * highest of them, so the next pass finds them (it never goes forward).
 * Every page movable, every third busy; the even pages of blocks 7 and 0
 * free, block 7's first so that the fast search, walking the order-0 list
 * from its tail, finds them in its window: it takes block 7's targets and
 * leaves the cached free pfn a block below (192). Block 0's five busy
 * pages fail to migrate, so five targets in block 7 come back unused, and
 * the eleven that moved make order-2 pages in block 0: SUCCESS.
 */
START_TEST(test_unused_targets_bring_cached_free_pfn_back)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct zone *z = normal(sim);
	struct mm_compact_stats st;
	unsigned long top_free = 0;
	struct vrec vr;
	int rc;

	vrec_init(&vr);
	mm_sim_set_violation_handler(sim, vrec_handler, &vr);
	mm_set_current_cpu(0);
	fill(sim, 0, 256, 0, 3);
	free_every_other_at(sim, 224, 256);
	free_every_other_at(sim, 0, 32);
	rc = mm_compact_zone(sim, 0, ZONE_NORMAL, 2, MM_COMPACT_PRIO_SYNC_LIGHT,
			     MM_MIGRATE_SYNC_LIGHT, MIGRATE_MOVABLE);
	ck_assert_msg(rc == MM_COMPACT_SUCCESS, "the pass ended %s", mm_compact_result_name(rc));
	mm_sim_compact_stats(sim, &st);
	/* the premise: targets were taken from block 7 and some came back */
	for (uint64_t pfn = 224; pfn < 256; pfn++)
		top_free += pfn_to_page(sim, pfn)->state != PG_ALLOC;
	ck_assert_uint_eq(st.pgmigrate_fail, 5);
	ck_assert_uint_eq(top_free, 16 - st.pgmigrate_success);
	ck_assert_msg(z->compact_cached_free_pfn == 224,
		      "cached free pfn %llu after targets came back to block 224",
		      (unsigned long long)z->compact_cached_free_pfn);
	assert_clean_destroy(sim, &vr);
}
END_TEST

/*
 * kcompactd_do_work(): an unpopulated zone is passed over before
 * compaction_deferred() is asked, and a deferred zone is asked (which
 * counts the consideration) and not compacted until its considerations
 * reach 1 << compact_defer_shift.
 */
START_TEST(test_kcompactd_asks_deferral_of_managed_zones_only)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct zone *z = normal(sim);
	struct mm_compact_stats st;

	mm_set_current_cpu(0);
	fragment_for_update_cached(sim);
	z->compact_defer_shift = 2;
	z->compact_considered = 0;
	z->compact_order_failed = 0;
	for (int zt = 0; zt < MAX_NR_ZONES; zt++)
		if (zt != ZONE_NORMAL)
			sim->node_data[0]->node_zones[zt].compact_defer_shift = 2;
	ck_assert_int_eq(mm_kcompactd_step(sim, 0, 3), 0);
	ck_assert_uint_eq(z->compact_considered, 1);
	for (int zt = 0; zt < MAX_NR_ZONES; zt++)
		ck_assert_msg(zt == ZONE_NORMAL ||
				      sim->node_data[0]->node_zones[zt].compact_considered == 0,
			      "zone %d without pages counted a consideration", zt);
	mm_sim_compact_stats(sim, &st);
	ck_assert_uint_eq(st.compact_daemon_migrate_scanned, 0);
	ck_assert_uint_eq(st.compact_daemon_free_scanned, 0);
	/* considered 2 and 3 still defer; the 4th (1 << 2) compacts the zone */
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(mm_kcompactd_step(sim, 0, 3), 0);
	mm_sim_compact_stats(sim, &st);
	ck_assert_uint_eq(st.compact_daemon_migrate_scanned, 0);
	ck_assert_int_eq(mm_kcompactd_step(sim, 0, 3), 0);
	mm_sim_compact_stats(sim, &st);
	ck_assert_uint_gt(st.compact_daemon_migrate_scanned, 0);
	mm_sim_destroy(sim);
}
END_TEST

/* compact_order_failed above max_order + 1, INV-COMPACT-DEFER's range, with reports recorded */
static void plant_order_failed(struct zone *z, struct vrec *vr)
{
	z->compact_order_failed = (int)z->sim->max_order + 2;
	vrec_init(vr);
	mm_sim_set_violation_handler(z->sim, vrec_handler, vr);
}

/* The pass left the planted value, and its check reported it once. */
static void expect_one_defer_report(struct zone *z, const struct vrec *vr)
{
	ck_assert_int_eq(z->compact_order_failed, (int)z->sim->max_order + 2);
	ck_assert_msg(vr->n == 1 && vrec_has(vr, "INV-COMPACT-DEFER"), "%u reports, first: %s",
		      vr->n, vr->first);
	z->compact_order_failed = 0;
}

/*
 * kcompactd checks the deferral state each zone's pass leaves, as direct
 * compaction does (INV-COMPACT-DEFER): compact_order_failed planted above
 * max_order + 1 is what a successful pass leaves alone
 * (compaction_defer_reset() raises it only to order + 1), so the check
 * after the pass must report it, once.
 */
START_TEST(test_kcompactd_checks_the_deferral_it_leaves)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct zone *z = normal(sim);
	struct mm_compact_stats st;
	struct vrec vr;

	mm_set_current_cpu(0);
	fragment_for_update_cached(sim);
	plant_order_failed(z, &vr);
	ck_assert_int_eq(mm_kcompactd_step(sim, 0, 3), 0);
	mm_sim_compact_stats(sim, &st);
	ck_assert_uint_gt(st.compact_daemon_migrate_scanned, 0);
	expect_one_defer_report(z, &vr);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Direct compaction checks the deferral state each zone's pass leaves,
 * on both of its paths (INV-COMPACT-DEFER): after a success, which calls
 * compaction_defer_reset(), and after any other outcome. The planted
 * compact_order_failed above max_order + 1 is one neither path lowers (a
 * success raises it only to order + 1; an ASYNC pass or a skipped zone
 * does not defer), so each path's check must report it, once. An empty
 * zone passes at once; a zone filled to its last page is skipped.
 */
static const struct {
	bool fill;
	int result;
} direct_defer_rows[] = {
	{false, MM_COMPACT_SUCCESS},
	{true, MM_COMPACT_SKIPPED},
};

START_TEST(test_direct_checks_the_deferral_it_leaves)
{
	struct mm_sim *sim = compaction_sim(0, 256, NULL);
	struct zone *z = normal(sim);
	struct vrec vr;
	int rc;

	mm_set_current_cpu(0);
	if (direct_defer_rows[_i].fill)
		fill(sim, 0, 256, 0, 0);
	plant_order_failed(z, &vr);
	rc = mm_compact_zone(sim, 0, ZONE_NORMAL, 3, MM_COMPACT_PRIO_ASYNC, MM_MIGRATE_ASYNC,
			     MIGRATE_MOVABLE);
	ck_assert_msg(rc == direct_defer_rows[_i].result, "the pass ended %s",
		      mm_compact_result_name(rc));
	expect_one_defer_report(z, &vr);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *compaction_suite(void)
{
	Suite *s = suite_create("compaction");
	TCase *tc = tcase_create("skip-bits");

	tcase_add_test(tc, test_fill_takes_what_it_asks);
	tcase_add_test(tc, test_skip_bit_set_test_clear);
	tcase_add_test(tc, test_skip_test_pfn_policies);
	tcase_add_test(tc, test_lru_skip_policies);
	tcase_add_test(tc, test_reset_isolation_suitable);
	tcase_add_test(tc, test_reset_walk_ends_where_the_ends_meet);
	tcase_add_test(tc, test_migrate_scanner_honours_skip_bit);
	tcase_add_loop_test(tc, test_cached_migrate_by_mode, 0, 3);
	tcase_add_loop_test(tc, test_migration_source_table, 0, 18);
	suite_add_tcase(s, tc);

	tc = tcase_create("fast-find");
	tcase_add_test(tc, test_fast_find_window_from_zone_start);
	tcase_add_test(tc, test_fast_find_window_after_start);
	tcase_add_test(tc, test_fast_find_bails_out);
	tcase_add_test(tc, test_fast_find_marks_skip_variant);
	suite_add_tcase(s, tc);

	tc = tcase_create("deferral");
	tcase_add_test(tc, test_deferral_sequence);
	suite_add_tcase(s, tc);

	tc = tcase_create("passes");
	tcase_add_test(tc, test_scanners_meet);
	tcase_add_test(tc, test_migration_moves_handle_and_stamp);
	tcase_add_test(tc, test_compact_unmanaged_zone_refused);
	tcase_add_test(tc, test_busy_pages_fail_migration);
	tcase_add_test(tc, test_pass_drains_its_cpu_lists);
	tcase_add_test(tc, test_pass_from_a_cpu_past_the_machine_drains_nothing);
	tcase_add_test(tc, test_targets_run_out_contended);
	tcase_add_test(tc, test_exec_reused_without_handles);
	tcase_add_loop_test(tc, test_failed_round_ends_at_the_check, 0, 2);
	tcase_add_test(tc, test_failed_round_finishes_its_block);
	tcase_add_test(tc, test_migrate_scanned_counts_free_buddies);
	tcase_add_test(tc, test_exec_handles_follow_migration);
	tcase_add_test(tc, test_skip_hint_shadow_pass);
	tcase_add_loop_test(tc, test_skip_hint_shadow_in_a_marked_zone, 0, 2);
	tcase_add_test(tc, test_skip_hint_shadow_honours_the_bits_it_found);
	tcase_add_test(tc, test_skip_hint_ignores_free_side_marks);
	tcase_add_test(tc, test_shadow_pass_keeps_exec_handles);
	tcase_add_loop_test(tc, test_shadow_pass_leaves_no_trace, 0, 2);
	tcase_add_test(tc, test_fill_pool_reuse);
	tcase_add_test(tc, test_handle_of_block_bounds);
	tcase_add_test(tc, test_compact_stats_reset);
	tcase_add_test(tc, test_compaction_ops_need_serial);
	tcase_add_test(tc, test_reset_skip_op);
	tcase_add_test(tc, test_free_take_oracle);
	suite_add_tcase(s, tc);

	tc = tcase_create("variants");
	tcase_add_loop_test(tc, test_variant_caught, 0, (int)ARRAY_SIZE(variant_cases));
	suite_add_tcase(s, tc);

	tc = tcase_create("cached-pfns-and-deferral");
	tcase_add_loop_test(tc, test_async_pass_updates_sync_cached_pfn, 0,
			    (int)ARRAY_SIZE(update_cached_rows));
	tcase_add_test(tc, test_unused_targets_bring_cached_free_pfn_back);
	tcase_add_test(tc, test_kcompactd_asks_deferral_of_managed_zones_only);
	tcase_add_test(tc, test_kcompactd_checks_the_deferral_it_leaves);
	tcase_add_loop_test(tc, test_direct_checks_the_deferral_it_leaves, 0,
			    (int)ARRAY_SIZE(direct_defer_rows));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(compaction_suite());
}

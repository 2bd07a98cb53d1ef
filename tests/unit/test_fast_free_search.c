/* SPDX-License-Identifier: MIT */
/*
 * test_fast_free_search.c - compaction's fast free search
 * (fast_isolate_freepages(), next_search_order(), mm/compaction.c 6.7) as a
 * decision table over free lists built by hand. Each row states the MOVABLE
 * free lists of orders 0-3 in the order the search walks them (tail first)
 * and the search's inputs; it expects the block the search takes, how many
 * entries it counts as scanned, and the state it leaves behind, all worked
 * out by hand from the kernel's rule as written out here:
 *
 *   limit = max(1, freelist_scan_limit >> 1), freelist_scan_limit =
 *           (COMPACT_CLUSTER_MAX >> min(fast_search_fail, BITS_PER_LONG - 1)) + 1;
 *           at the scan's start (free_pfn >= compact_init_free_pfn) limit =
 *           pageblock_nr_pages >> 1 instead
 *   distance = free_pfn - migrate_pfn
 *   low_pfn = pageblock_start_pfn(free_pfn - distance / 4)   preferred
 *   min_pfn = pageblock_start_pfn(free_pfn - distance / 2)   acceptable
 *   search_order = min(order - 1, search_order); the orders from there
 *   down, wrapping to order - 1, until back at search_order
 *   (next_search_order(): a full round steps search_order down, wrapping)
 *   per order, from the list's tail: every entry read counts one scanned;
 *     highest = pageblock_start_pfn of the highest pfn read;
 *     pfn >= low_pfn: taken, fast_search_fail = 0, search_order = order;
 *     else pfn >= min_pfn and above the best so far: the best, limit >>= 1;
 *     stop the order once it read limit entries;
 *   no pfn >= low_pfn: take the best; the list is rotated so that the
 *   entries not read come first next time (move_freelist_head());
 *   a block taken counts 2^order - 1 more scanned; the watermark refusing
 *   it ends the search (order = search_order + 1);
 *   an order that read limit entries halves limit for the next (min 1);
 *   nothing taken: fast_search_fail++, and at the scan's start free_pfn =
 *   highest if >= min_pfn, else (direct compaction) min_pfn, and
 *   fast_isolate_around() isolates from that pfn's pageblock;
 *   highest >= compact_cached_free_pfn: cached = highest - a pageblock.
 *
 * The zone: pfns [0, 256), 8-page pageblocks, migrate_pfn 0, free_pfn 248:
 * distance 248, low_pfn = start(248 - 62 = 186) = 184, min_pfn =
 * start(248 - 124 = 124) = 120. Every page not on a row's lists is
 * allocated, so nothing merges; every pageblock but a row's open one is
 * marked skip, so the linear scan that follows a failed fast search takes
 * nothing and scans nothing. nr_migratepages is 1: the first block taken
 * suffices and fast_isolate_around() returns at once; it only reads a
 * block when the search ends on a pfn it did not isolate (the fallbacks
 * at the scan's start). A row may move free_pfn (and so both marks).
 */
#include "common.h"
#include "internal.h"

#define ZONE_PAGES 256
#define FREE_PFN   248
#define NO_BLOCK   UINT64_MAX

/* The low filler: order-0 pages far below min_pfn, tail first. */
#define LOW0_16 39, 37, 35, 33, 31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9
#define LOW0_20 LOW0_16, 7, 5, 3, 1
/* Order-1 blocks below min_pfn, tail first. */
#define LOW1_20 116, 112, 108, 104, 100, 96, 92, 88, 84, 80, 76, 72, 68, 64, 60, 56, 52, 48, 44, 40

#define MAX_LIST 24

struct fast_row {
	const char *name;
	int order;		    /* cc->order */
	int search_order;	    /* cc->search_order before */
	unsigned int fail;	    /* cc->fast_search_fail before */
	bool start;		    /* free_pfn >= compact_init_free_pfn */
	bool direct;		    /* cc->direct_compaction */
	bool refuse;		    /* the watermark refuses every isolation */
	uint64_t open_block;	    /* a block left unskipped, or NO_BLOCK */
	uint32_t list[4][MAX_LIST]; /* MOVABLE lists of orders 0-3, tail first, 0-terminated */
	/* expected */
	uint64_t got;		/* the first pfn of the block taken, or NO_BLOCK */
	unsigned int got_order; /* its order */
	unsigned long scanned;	/* cc->total_free_scanned */
	int search_order_after;
	unsigned int fail_after;
	uint64_t cached_after; /* zone->compact_cached_free_pfn (248 before) */
	uint32_t tail0_after;  /* the order-0 list's tail, or PFN_NIL */
	/* inputs most rows leave at 0 */
	uint64_t free_pfn; /* cc->free_pfn, 0: FREE_PFN */
	bool zero_first;   /* pfn 0 heads the order-0 walk (a list cannot name it: 0 ends it) */
};

/* clang-format off */
static const struct fast_row rows[] = {
	/* Order 2 first (search_order = min(2, 3)); 196 >= 184 at the tail: 1 + 3. */
	{"preferred at the tail of order 2", 3, 3, 0, false, false, false, NO_BLOCK,
	 {{LOW0_20}, {LOW1_20}, {196}},
	 196, 2, 4, 2, 0, 248, 39, 0, false},
	/*
	 * limit 16: 16 entries below min_pfn, then stop. Orders 2, 1 empty;
	 * back at 0: search_order 0 - 1 wraps to 2. The list is rotated at
	 * the 16th entry (9): 200 and the four below it come first next time.
	 */
	{"limit 16: the 17th entry is not read", 3, 0, 0, false, false, false, NO_BLOCK,
	 {{LOW0_16, 200, 7, 5, 3, 1}, {0}, {0}},
	 NO_BLOCK, 0, 16, 2, 1, 248, 200, 0, false},
	{"limit 16: the 16th entry is read", 3, 0, 0, false, false, false, NO_BLOCK,
	 {{39, 37, 35, 33, 31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 200, 9, 7, 5, 3, 1},
	  {0}, {0}},
	 200, 0, 16, 0, 0, 248, 9, 0, false},
	/* fail 3: ((32 >> 3) + 1) >> 1 = 2 entries. */
	{"fail 3: limit 2, the 2nd entry is read", 3, 0, 3, false, false, false, NO_BLOCK,
	 {{39, 200, 37, 35, 33, 31}, {0}, {0}},
	 200, 0, 2, 0, 0, 248, 37, 0, false},
	{"fail 3: limit 2, the 3rd entry is not", 3, 0, 3, false, false, false, NO_BLOCK,
	 {{39, 37, 200, 35, 33, 31}, {0}, {0}},
	 NO_BLOCK, 0, 2, 2, 4, 248, 200, 0, false},
	/* fail 5: ((32 >> 5) + 1) >> 1 = 0, at least 1. */
	{"fail 5: limit 1", 3, 0, 5, false, false, false, NO_BLOCK,
	 {{39, 200, 37}, {0}, {0}},
	 NO_BLOCK, 0, 1, 2, 6, 248, 200, 0, false},
	/*
	 * At its floor the limit stays 1 for the next order (max(1, 1 >> 1)):
	 * order 1 reads 116 (below min_pfn), order 0 then reads 39 alone, never
	 * 200; order 2 is empty, and back at 1 search_order steps down to 0.
	 */
	{"fail 5: limit 1 stays 1 for the next order", 3, 1, 5, false, false, false, NO_BLOCK,
	 {{39, 200, 37}, {116}, {0}},
	 NO_BLOCK, 0, 2, 0, 6, 248, 200, 0, false},
	/* The scan's start: pageblock_nr_pages >> 1 = 4 entries. */
	{"scan start: limit 4, the 5th entry is not read", 3, 0, 0, true, false, false, NO_BLOCK,
	 {{39, 37, 35, 33, 200, 31, 29}, {0}, {0}},
	 NO_BLOCK, 0, 4, 2, 1, 248, 200, 0, false},
	{"scan start: limit 4, the 4th entry is read", 3, 0, 0, true, false, false, NO_BLOCK,
	 {{39, 37, 35, 200, 33, 31, 29}, {0}, {0}},
	 200, 0, 4, 0, 0, 248, 33, 0, false},
	/*
	 * The scan's start, nothing at or above min_pfn: highest (32) is below
	 * min_pfn, so kcompactd's free_pfn stays 248 and the linear scan finds
	 * 200 in the open block 200 (1 more scanned); direct compaction moves
	 * free_pfn to min_pfn (120) and takes min_pfn's block as the page:
	 * fast_isolate_around() reads its 8 allocated pages (8 more scanned),
	 * and the linear scan from there never sees block 200.
	 */
	{"scan start, kcompactd: the linear scan from free_pfn", 3, 0, 0, true, false, false, 200,
	 {{39, 37, 35, 33, 200}, {0}, {0}},
	 200, 0, 5, 2, 1, 248, 39, 0, false},
	{"scan start, direct: the linear scan from min_pfn", 3, 0, 0, true, true, false, 200,
	 {{39, 37, 35, 33, 200}, {0}, {0}},
	 NO_BLOCK, 0, 4 + 8, 2, 1, 248, 200, 0, false},
	/*
	 * A candidate in [min_pfn, low_pfn) halves the limit (16 -> 8): the
	 * search stops at the 8th entry and takes the candidate, leaving
	 * fast_search_fail and search_order as they were.
	 */
	{"a candidate halves the limit and is taken", 3, 0, 0, false, false, false, NO_BLOCK,
	 {{39, 150, 37, 35, 33, 31, 29, 27, 25, 23, 21}, {0}, {0}},
	 150, 0, 8, 0, 0, 248, 37, 0, false},
	{"fail 1: limit 8, halved to 4; fail kept", 3, 0, 1, false, false, false, NO_BLOCK,
	 {{39, 150, 37, 35, 33, 31}, {0}, {0}},
	 150, 0, 4, 0, 1, 248, 37, 0, false},
	{"a higher candidate replaces the lower one", 3, 0, 0, false, false, false, NO_BLOCK,
	 {{39, 130, 160, 37, 35, 33, 31}, {0}, {0}},
	 160, 0, 4, 0, 0, 248, 37, 0, false},
	{"a lower candidate does not replace the higher", 3, 0, 0, false, false, false, NO_BLOCK,
	 {{39, 160, 130, 37, 35, 33, 31, 29, 27, 25}, {0}, {0}},
	 160, 0, 8, 0, 0, 248, 130, 0, false},
	{"min_pfn itself is a candidate", 3, 0, 0, false, false, false, NO_BLOCK,
	 {{39, 120, 37, 35, 33, 31, 29, 27, 25, 23}, {0}, {0}},
	 120, 0, 8, 0, 0, 248, 37, 0, false},
	{"low_pfn itself is preferred", 3, 0, 0, false, false, false, NO_BLOCK,
	 {{39, 184, 37, 35}, {0}, {0}},
	 184, 0, 2, 0, 0, 248, 37, 0, false},
	{"one below min_pfn is no candidate", 3, 0, 0, false, false, false, NO_BLOCK,
	 {{39, 119, 37, 35, 33, 31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7}, {0}, {0}},
	 NO_BLOCK, 0, 16, 2, 1, 248, 9, 0, false},
	/*
	 * Round robin from search_order 1: order 1 (2 read, the whole list),
	 * order 0 (16 read, limit -> 8), then order 2 wrapping: 196 at once.
	 */
	{"round robin: 1, then 0, then 2", 3, 1, 0, false, false, false, NO_BLOCK,
	 {{LOW0_20}, {116, 112}, {196}},
	 196, 2, 2 + 16 + 1 + 3, 2, 0, 248, 7, 0, false},
	/* The halved limit carries: order 1 reads 16 (-> 8), order 0 reads 8, not 200. */
	{"the limit carries to the next order, halved", 3, 1, 0, false, false, false, NO_BLOCK,
	 {{39, 37, 35, 33, 31, 29, 27, 25, 200, 23, 21}, {LOW1_20}, {196}},
	 196, 2, 16 + 8 + 1 + 3, 2, 0, 248, 200, 0, false},
	/* Nothing anywhere: 1, 0, 2 (empty), back at 1: search_order steps to 0. */
	{"a full round without a find steps search_order down", 3, 1, 0, false, false, false,
	 NO_BLOCK, {{39}, {116}, {0}},
	 NO_BLOCK, 0, 2, 0, 1, 248, 39, 0, false},
	{"search_order 0 steps down to order - 1", 3, 0, 0, false, false, false, NO_BLOCK,
	 {{39}, {116}, {0}},
	 NO_BLOCK, 0, 2, 2, 1, 248, 39, 0, false},
	/* cc->order <= 0: no fast search at all (and the skipped blocks give nothing). */
	{"order 0: no fast search", 0, 0, 0, false, false, false, NO_BLOCK,
	 {{200}, {192}, {0}},
	 NO_BLOCK, 0, 0, 0, 0, 248, 200, 0, false},
	/* cc->order 1: order 0 only, never order 1. */
	{"order 1: order 0 only", 1, 3, 0, false, false, false, NO_BLOCK,
	 {{39, 200}, {192}, {0}},
	 200, 0, 2, 0, 0, 248, 39, 0, false},
	/* highest (248) >= cached (248): the cached free pfn moves a block down. */
	{"highest at the cached free pfn moves it down", 3, 0, 0, false, false, false, NO_BLOCK,
	 {{249, 39}, {0}, {0}},
	 248 + 1, 0, 1, 0, 0, 240, 39, 0, false},
	/*
	 * The watermark refuses 196: the search ends there (search_order was
	 * set to 2 by the find, order 3 -> next is 2 == search_order: a step
	 * down to 1), never reaching 200 nor the order-3 block; fail was
	 * reset, then counts 1.
	 */
	{"a refused isolation ends the search", 3, 2, 0, false, false, true, NO_BLOCK,
	 {{200}, {0}, {196}, {224}},
	 NO_BLOCK, 0, 1, 1, 1, 248, 200, 0, false},
	/*
	 * Refused at the scan's start: 120, the best candidate, is refused;
	 * highest (120) >= min_pfn (120), so free_pfn = 120 and
	 * fast_isolate_around() reads 120 (refused again: 1 more scanned).
	 * The abort: search_order (0) + 1 -> next is 0 == search_order, which
	 * steps down and wraps to 2.
	 */
	{"a refused find at the scan's start: highest == min_pfn is used", 3, 0, 0, true, false,
	 true, NO_BLOCK, {{120, 39}, {0}, {0}},
	 NO_BLOCK, 0, 2 + 1, 2, 1, 248, 39, 0, false},
	/*
	 * The wrap below order 0 goes to cc->order - 1 (2), never to
	 * cc->order: the order-3 block at 224 is not a fast-search target.
	 */
	{"the wrap goes to order - 1, not order", 3, 0, 0, false, false, false, NO_BLOCK,
	 {{39}, {0}, {196}, {224}},
	 196, 2, 1 + 1 + 3, 2, 0, 248, 39, 0, false},
	/*
	 * free_pfn 12: distance 12, low_pfn = start(9) = 8, min_pfn = start(6)
	 * = 0; fail 2: limit ((32 >> 2) + 1) >> 1 = 4. pfn 0 is at min_pfn but
	 * not above high_pfn's start value 0, so no candidate: limit stays 4.
	 * Order 0 is done (1 read); the wrap to 2 (empty), then 1: 2 is a
	 * candidate (limit 2), 6 a higher one (limit 1), stop: 6 is taken.
	 */
	{"pfn 0 is no candidate: the best starts at 0", 3, 0, 2, false, false, false, NO_BLOCK,
	 {{0}, {2, 6}, {0}},
	 6, 1, 3 + 1, 0, 2, 248, 0, 12, true},
};
/* clang-format on */

/* One node, one CPU, one Normal zone [0, 256), 8-page pageblocks, no pcp, serial. */
static struct mm_sim *fast_sim(void)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 1, 4, 3);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, ZONE_PAGES, ZONE_PAGES);
	sim = sim_new_buddy_only(&cfg);
	sim->serial = true;
	mm_set_current_cpu(0);
	return sim;
}

static struct zone *normal(struct mm_sim *sim)
{
	return &sim->node_data[0]->node_zones[ZONE_NORMAL];
}

/* Frees the fill pool's order-0 page at pfn. */
static void free_fill_page(struct mm_sim *sim, uint64_t pfn)
{
	for (uint32_t s = 0; s < sim->compact->nr_fill; s++) {
		struct mm_handle *h = &sim->compact->fill[s];

		if (h->pfn == (long long)pfn) {
			mm_free_pages(sim, pfn, 0, OWNER_FILL | s, h->gen);
			h->pfn = -1;
			return;
		}
	}
	ck_abort_msg("no fill page at pfn %llu", (unsigned long long)pfn);
}

static unsigned int list_len(const uint32_t *l)
{
	unsigned int n = 0;

	while (n < MAX_LIST && l[n])
		n++;
	return n;
}

/* Frees the row's blocks, then orders each MOVABLE list as the row says. */
static void build_lists(struct mm_sim *sim, const struct fast_row *r)
{
	struct zone *z = normal(sim);
	struct mm_op fill = {
		.kind = MM_OP_FILL,
		.fill = {.node = -1, .zone = ZONE_NORMAL, .order = 0, .pages = ZONE_PAGES}};
	struct mm_op refresh = {.kind = MM_OP_STAT_REFRESH};

	ck_assert_int_eq(mm_apply_op(sim, &fill, NULL, 0, 0), 0);
	ck_assert_uint_eq(mm_fill_live(sim), ZONE_PAGES);
	if (r->zero_first)
		free_fill_page(sim, 0);
	for (unsigned int o = 0; o < 4; o++)
		for (unsigned int i = 0; i < list_len(r->list[o]); i++)
			for (uint64_t p = 0; p < (UINT64_C(1) << o); p++)
				free_fill_page(sim, r->list[o][i] + p);
	for (unsigned int o = 0; o < 4; o++) {
		struct free_area *fa = &z->free_area[o];
		unsigned int n = list_len(r->list[o]);

		ck_assert_msg(fa->nr_free == n + (o == 0 && r->zero_first),
			      "%s: order %u holds %lu blocks, the row %u", r->name, o, fa->nr_free,
			      n);
		/* Each added at the head in turn: the first named ends at the tail. */
		for (unsigned int i = 0; i < n; i++) {
			ck_assert_msg(sim->mem_map[r->list[o][i]].state == PG_BUDDY &&
					      sim->mem_map[r->list[o][i]].order == o,
				      "%s: pfn %u is no free block of order %u", r->name,
				      r->list[o][i], o);
			pfn_list_del(sim, &fa->head[MIGRATE_MOVABLE], &fa->tail[MIGRATE_MOVABLE],
				     r->list[o][i]);
			pfn_list_add(sim, &fa->head[MIGRATE_MOVABLE], &fa->tail[MIGRATE_MOVABLE],
				     r->list[o][i], false);
		}
	}
	if (r->zero_first) {
		struct free_area *fa = &z->free_area[0];

		pfn_list_del(sim, &fa->head[MIGRATE_MOVABLE], &fa->tail[MIGRATE_MOVABLE], 0);
		pfn_list_add(sim, &fa->head[MIGRATE_MOVABLE], &fa->tail[MIGRATE_MOVABLE], 0, true);
	}
	/* NR_FREE_PAGES exact, as __isolate_free_page()'s watermark reads the estimate. */
	ck_assert_int_eq(mm_apply_op(sim, &refresh, NULL, 0, 0), 0);
}

START_TEST(test_fast_free_search_table)
{
	const struct fast_row *r = &rows[_i];
	struct mm_sim *sim = fast_sim();
	struct zone *z = normal(sim);
	uint32_t freepages[ZONE_PAGES];
	struct vrec vr;
	uint64_t got, want;
	unsigned long wmark_min;

	sim_record(sim, &vr);
	build_lists(sim, r);
	for (uint64_t pfn = 0; pfn < ZONE_PAGES; pfn += 8)
		if (pfn != r->open_block)
			set_pageblock_skip(sim, pfn);
	z->compact_init_free_pfn = r->start ? FREE_PFN : ZONE_PAGES;
	z->compact_cached_free_pfn = FREE_PFN;
	wmark_min = z->_watermark[WMARK_MIN];
	if (r->refuse)
		z->_watermark[WMARK_MIN] = 1000;

	struct compact_control cc = {
		.zone = z,
		.freepages = freepages,
		.nr_migratepages = 1,
		.order = r->order,
		.search_order = r->search_order,
		.fast_search_fail = r->fail,
		.migratetype = MIGRATE_MOVABLE,
		.mode = MM_MIGRATE_SYNC_LIGHT,
		.direct_compaction = r->direct,
		.whole_zone = true,
		.migrate_pfn = 0,
		.free_pfn = r->free_pfn ? r->free_pfn : FREE_PFN,
		.fast_found_pfn = UINT64_MAX,
	};

	/* A pass from the zone's start (whole_zone): the checker's per-pass block marks cleared. */
	compact_check_pass_begin(&cc);
	got = compaction_alloc(&cc);
	/* compaction_alloc() hands out the block's last page first. */
	want = r->got == NO_BLOCK ? COMPACT_NO_PFN : r->got + (UINT64_C(1) << r->got_order) - 1;
	ck_assert_msg(got == want, "%s: took pfn %llu, the rule %llu", r->name,
		      (unsigned long long)got, (unsigned long long)want);
	ck_assert_msg(cc.total_free_scanned == r->scanned, "%s: scanned %lu, the rule %lu", r->name,
		      cc.total_free_scanned, r->scanned);
	ck_assert_msg(cc.search_order == r->search_order_after, "%s: search_order %d, the rule %d",
		      r->name, cc.search_order, r->search_order_after);
	ck_assert_msg(cc.fast_search_fail == r->fail_after, "%s: fast_search_fail %u, the rule %u",
		      r->name, cc.fast_search_fail, r->fail_after);
	ck_assert_msg(z->compact_cached_free_pfn == r->cached_after,
		      "%s: cached free pfn %llu, the rule %llu", r->name,
		      (unsigned long long)z->compact_cached_free_pfn,
		      (unsigned long long)r->cached_after);
	ck_assert_msg(z->free_area[0].tail[MIGRATE_MOVABLE] == r->tail0_after,
		      "%s: order-0 tail %u, the rule %u", r->name,
		      z->free_area[0].tail[MIGRATE_MOVABLE], r->tail0_after);
	ck_assert_msg(vr.n == 0, "%s: %s", r->name, vr.first);
	z->_watermark[WMARK_MIN] = wmark_min;
	if (got != COMPACT_NO_PFN)
		cc.nr_freepages++; /* the page compaction_alloc() handed out goes back too */
	release_freepages(&cc);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *fast_free_search_suite(void)
{
	Suite *s = suite_create("fast_free_search");
	TCase *tc = tcase_create("table");

	tcase_add_loop_test(tc, test_fast_free_search_table, 0, (int)ARRAY_SIZE(rows));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(fast_free_search_suite());
}

/* SPDX-License-Identifier: MIT */
/*
 * test_reset_sample.c - which skip bits __reset_isolation_suitable() clears
 * (__reset_isolation_pfn(), pageblock_skip_persistent(), mm/compaction.c
 * 6.x), over a table of what a pageblock holds.
 *
 * The rule, for a block the reset's migrate-side walk reaches after it
 * found a source (so it looks for sources and targets both): a block
 * whose page at the walk's pfn belongs to an allocation of pageblock_order
 * or more (pageblock_skip_persistent()) is passed over, its bit kept. Any
 * other block whose bit is set is sampled at every 8th page from its
 * start: an LRU page (an allocated order-0 movable page) or a free page
 * (a buddy head, of any order) clears the bit; else it stays.
 *
 * The zone: pfns [0, 64), 4-page pageblocks (a sample is a block's first
 * page), max_order 3. Every page an order-0 movable fill page; block 2
 * (pfns 8-11) is then made into the row's content, every bit set, and the
 * flush requested: block 0's LRU page is the source, and the upper half
 * (all LRU, no free page) gives no target, so the walk reaches pfn 8
 * looking for both.
 */
#include "common.h"
#include "internal.h"

#define BLK 8u /* block 2's first pfn */

enum content {
	FREE_PAGE,	/* pfn 8 free (order 0), 9-11 LRU */
	FREE_BLOCK,	/* 8-11 free: an order-2 buddy, the pageblock */
	FREE_TWO,	/* 8-15 free: an order-3 buddy over blocks 2 and 3 */
	ALLOC_BLOCK,	/* 8-11 one order-2 movable allocation: persistent */
	ALLOC_TWO,	/* 8-15 one order-3 movable allocation: persistent */
	ALLOC_ORDER1,	/* 8-9 an order-1 movable allocation: not persistent, not LRU */
	UNMOVABLE_PAGE, /* pfn 8 an unmovable order-0 page: no LRU page */
	LRU_PAGE,	/* untouched: pfn 8 an LRU page */
};

static const struct {
	enum content what;
	const char *name;
	bool cleared; /* block 2's bit after the reset, by the rule */
} rows[] = {
	{FREE_PAGE, "a free page at the sample", true},
	{FREE_BLOCK, "a free pageblock", true},
	{FREE_TWO, "the head of a free order-3 block", true},
	{ALLOC_BLOCK, "an order-2 allocation (persistent)", false},
	{ALLOC_TWO, "an order-3 allocation (persistent)", false},
	{ALLOC_ORDER1, "an order-1 allocation", false},
	{UNMOVABLE_PAGE, "an unmovable page at the sample", false},
	{LRU_PAGE, "an LRU page at the sample", true},
};

static void apply(struct mm_sim *sim, struct mm_op op)
{
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
}

/* Frees the fill pool's order-0 pages [from, to) (slot i holds pfn i). */
static void free_fill(struct mm_sim *sim, uint64_t from, uint64_t to)
{
	for (uint64_t pfn = from; pfn < to; pfn++) {
		struct mm_handle *h = &sim->compact->fill[pfn];

		ck_assert_int_eq(h->pfn, (long long)pfn);
		mm_free_pages(sim, pfn, 0, OWNER_FILL | (uint32_t)pfn, h->gen);
		h->pfn = -1;
	}
}

/*
 * Allocates the one free block of order into pfn 8; past the watermarks
 * (__GFP_MEMALLOC), which a zone this full fails.
 */
static void alloc_at_block(struct mm_sim *sim, unsigned int order, unsigned int gfp)
{
	uint32_t gen;

	ck_assert_int_eq(mm_alloc_pages(sim, order, gfp | MM_GFP_MEMALLOC, -1, 1, &gen),
			 (long long)BLK);
}

/* Every page of the Normal zone's pages an order-0 movable fill page. */
static void fill_zone(struct mm_sim *sim, unsigned int pages)
{
	apply(sim, (struct mm_op){
			   .kind = MM_OP_FILL,
			   .fill = {.node = -1, .zone = ZONE_NORMAL, .order = 0, .pages = pages}});
	ck_assert_uint_eq(mm_fill_live(sim), pages);
}

/*
 * One Normal zone of pages at pfn 0, pageblocks of 2^pageblock_order, every
 * page an order-0 movable fill page, no pcp.
 */
static struct mm_sim *filled_machine_of(unsigned int max_order, unsigned int pageblock_order,
					unsigned int pages)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 1, max_order, pageblock_order);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, pages, pages);
	sim = sim_new_buddy_only(&cfg);
	sim->serial = true; /* as the executor runs compaction */
	mm_set_current_cpu(0);
	fill_zone(sim, pages);
	return sim;
}

/* 64 pages in 4-page pageblocks */
static struct mm_sim *filled_machine(void)
{
	return filled_machine_of(3, 2, 64);
}

/* The fill page at pfn, wherever its slot is, swapped for an unmovable page. */
static void unmovable_at(struct mm_sim *sim, uint64_t pfn)
{
	uint32_t gen;

	for (uint32_t i = 0; i < sim->compact->nr_fill; i++) {
		struct mm_handle *h = &sim->compact->fill[i];

		if (h->pfn != (long long)pfn)
			continue;
		mm_free_pages(sim, pfn, 0, OWNER_FILL | i, h->gen);
		h->pfn = -1;
	}
	ck_assert_int_eq(mm_alloc_pages(sim, 0, MM_GFP_KERNEL | MM_GFP_MEMALLOC, -1, 1, &gen),
			 (long long)pfn);
}

START_TEST(test_reset_clears_by_block_content)
{
	struct mm_sim *sim = filled_machine();
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	switch (rows[_i].what) {
	case FREE_PAGE:
		free_fill(sim, BLK, BLK + 1);
		break;
	case FREE_BLOCK:
		free_fill(sim, BLK, BLK + 4);
		break;
	case FREE_TWO:
		free_fill(sim, BLK, BLK + 8);
		break;
	case ALLOC_BLOCK:
		free_fill(sim, BLK, BLK + 4);
		alloc_at_block(sim, 2, MM_GFP_MOVABLE | MM_GFP_KERNEL);
		break;
	case ALLOC_TWO:
		free_fill(sim, BLK, BLK + 8);
		alloc_at_block(sim, 3, MM_GFP_MOVABLE | MM_GFP_KERNEL);
		break;
	case ALLOC_ORDER1:
		free_fill(sim, BLK, BLK + 2);
		alloc_at_block(sim, 1, MM_GFP_MOVABLE | MM_GFP_KERNEL);
		break;
	case UNMOVABLE_PAGE:
		free_fill(sim, BLK, BLK + 1);
		alloc_at_block(sim, 0, MM_GFP_KERNEL);
		break;
	case LRU_PAGE:
		break;
	}
	for (uint64_t pfn = 0; pfn < 64; pfn += 4)
		set_pageblock_skip(sim, pfn);
	z->compact_blockskip_flush = true;
	mm_reset_isolation_suitable(sim, 0);
	ck_assert_msg(!get_pageblock_skip(sim, 0), "block 0's LRU page: the source, cleared");
	ck_assert_uint_eq(z->compact_init_migrate_pfn, 0);
	ck_assert_msg(get_pageblock_skip(sim, BLK) != rows[_i].cleared,
		      "block 2 holding %s: bit %s, want %s", rows[_i].name,
		      get_pageblock_skip(sim, BLK) ? "set" : "clear",
		      rows[_i].cleared ? "cleared" : "kept");
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The pageblock's migratetype, by __reset_isolation_pfn()'s rule: only the
 * free-side walk, before it has found a target (check_source false,
 * check_target true), refuses a block that is not MIGRATE_MOVABLE, its bit
 * kept: the free scanner does not start in it. Once a walk looks for both
 * (the migrate side after a source, the free side after a target) the type
 * is not asked and the sample decides. In each row every page is LRU but
 * the row's blocks, which hold free pages in a pageblock of the type shown.
 */
enum block_kind {
	MOVABLE_FREE,	/* pfn b free (order 0) in a MOVABLE pageblock */
	UNMOVABLE_FREE, /* b..b+3 a free order-2 block in an UNMOVABLE pageblock */
};

static const struct {
	const char *name;
	uint64_t first, second; /* the blocks made (second UINT64_MAX: none) */
	enum block_kind first_kind, second_kind;
	uint64_t probe; /* the block whose bit is judged */
	bool cleared;	/* its bit after the reset, by the rule */
} type_rows[] = {
	{"free side, no target yet: a movable block", 60, UINT64_MAX, MOVABLE_FREE, MOVABLE_FREE,
	 60, true},
	{"free side, no target yet: an unmovable block", 60, UINT64_MAX, UNMOVABLE_FREE,
	 MOVABLE_FREE, 60, false},
	{"free side after a target: an unmovable block", 60, 56, MOVABLE_FREE, UNMOVABLE_FREE, 56,
	 true},
	{"migrate side after a source: an unmovable block", BLK, UINT64_MAX, UNMOVABLE_FREE,
	 MOVABLE_FREE, BLK, true},
};

/*
 * An UNMOVABLE pageblock holding a free order-2 block at b: its fill pages
 * freed, the block taken whole by an unmovable order-2 request (which
 * claims the pageblock, steal_suitable_fallback()), then freed.
 */
static void unmovable_free_block(struct mm_sim *sim, uint64_t b)
{
	uint32_t gen;

	free_fill(sim, b, b + 4);
	ck_assert_int_eq(mm_alloc_pages(sim, 2, MM_GFP_KERNEL | MM_GFP_MEMALLOC, -1, 2, &gen),
			 (long long)b);
	mm_free_pages(sim, b, 2, 2, gen);
	ck_assert_int_eq(get_pfnblock_migratetype(sim, b), MIGRATE_UNMOVABLE);
}

static void make_block(struct mm_sim *sim, uint64_t b, enum block_kind kind)
{
	if (kind == UNMOVABLE_FREE) {
		unmovable_free_block(sim, b);
		return;
	}
	free_fill(sim, b, b + 1);
	ck_assert_int_eq(get_pfnblock_migratetype(sim, b), MIGRATE_MOVABLE);
}

START_TEST(test_reset_free_side_refuses_unmovable_block)
{
	struct mm_sim *sim = filled_machine();
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	/* the unmovable block first: its order-2 request must find it the only free one */
	if (type_rows[_i].second != UINT64_MAX)
		make_block(sim, type_rows[_i].second, type_rows[_i].second_kind);
	make_block(sim, type_rows[_i].first, type_rows[_i].first_kind);
	for (uint64_t pfn = 0; pfn < 64; pfn += 4)
		set_pageblock_skip(sim, pfn);
	z->compact_blockskip_flush = true;
	mm_reset_isolation_suitable(sim, 0);
	ck_assert_msg(get_pageblock_skip(sim, type_rows[_i].probe) != type_rows[_i].cleared,
		      "%s: block %llu's bit %s, want %s", type_rows[_i].name,
		      (unsigned long long)type_rows[_i].probe / 4,
		      get_pageblock_skip(sim, type_rows[_i].probe) ? "set" : "clear",
		      type_rows[_i].cleared ? "cleared" : "kept");
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The sample stays in its pageblock: __reset_isolation_pfn() looks at every
 * 8th page from the block's start up to the block's last pfn (or the
 * zone's), never at the next block's first page. Pageblocks of 8 pages, so
 * a block's only sample is its first page; every page LRU but pfn 0, an
 * unmovable page. Block 0 has no source: the migrate side's walk must find
 * its first usable block at pfn 8 and restart the migrate scanner there,
 * block 0's bit kept. A sample one page too far sees block 1's LRU page and
 * takes block 0 for the source.
 */
START_TEST(test_reset_sample_stays_in_its_block)
{
	struct mm_sim *sim = filled_machine_of(3, 3, 64);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];

	unmovable_at(sim, 0);
	for (uint64_t pfn = 0; pfn < 64; pfn += 8)
		set_pageblock_skip(sim, pfn);
	z->compact_blockskip_flush = true;
	mm_reset_isolation_suitable(sim, 0);
	ck_assert_msg(get_pageblock_skip(sim, 0), "block 0 holds no source: its bit kept");
	ck_assert_msg(!get_pageblock_skip(sim, 8), "block 1's LRU page: cleared");
	ck_assert_uint_eq(z->compact_init_migrate_pfn, 8);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Nor does it leave the zone: a pageblock the zone's end cuts is sampled up
 * to the zone's last pfn. One Normal zone of 56 pages, pageblocks of 16,
 * so the last block is pfns 48-55 and its samples are 48 alone (56 is past
 * the zone). The sim first ran a 64-page machine whose pfn 56 was a free
 * page; the memmap past the new machine keeps it, as a fuzz target's sim
 * does. Every page of the new machine LRU but pfn 48, an unmovable page:
 * the free side's walk, which starts in that block, finds no free page in
 * it and must keep its bit.
 */
START_TEST(test_reset_sample_stays_in_its_zone)
{
	struct mm_sim *sim = filled_machine_of(4, 4, 64);
	struct mm_config cfg;

	free_fill(sim, 56, 57);
	ck_assert_int_eq(pfn_to_page(sim, 56)->state, PG_BUDDY);
	cfg_tiny(&cfg, 1, 4, 4);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 56, 56);
	ck_assert_int_eq(mm_sim_init(sim, &cfg, -1), 0);
	mm_zone_pcp_disable(sim, 0, ZONE_NORMAL);
	sim->serial = true;
	fill_zone(sim, 56);
	unmovable_at(sim, 48);
	for (uint64_t pfn = 0; pfn < 56; pfn += 16)
		set_pageblock_skip(sim, pfn);
	sim->node_data[0]->node_zones[ZONE_NORMAL].compact_blockskip_flush = true;
	mm_reset_isolation_suitable(sim, 0);
	ck_assert_msg(get_pageblock_skip(sim, 48), "block 48 holds no free page: its bit kept");
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *reset_sample_suite(void)
{
	Suite *s = suite_create("reset_sample");
	TCase *tc = tcase_create("__reset_isolation_pfn");

	tcase_add_loop_test(tc, test_reset_clears_by_block_content, 0, (int)ARRAY_SIZE(rows));
	tcase_add_test(tc, test_reset_sample_stays_in_its_block);
	tcase_add_test(tc, test_reset_sample_stays_in_its_zone);
	tcase_add_loop_test(tc, test_reset_free_side_refuses_unmovable_block, 0,
			    (int)ARRAY_SIZE(type_rows));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(reset_sample_suite());
}

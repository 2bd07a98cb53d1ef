/* SPDX-License-Identifier: MIT */
/*
 * test_compaction_free_scan.c - the linear free scanner, isolate_freepages()
 * (mm/compaction.c 6.7), as a decision table: where free pages lie, the
 * mode and the targets wanted; the targets it takes, where it leaves
 * cc->free_pfn, what it counts as scanned and the skip bits and cached
 * free pfn it leaves, worked out by hand from the kernel's rule:
 *
 *   from the block holding cc->free_pfn down to the block after the one
 *   holding cc->migrate_pfn; a block that is no suitable target (not
 *   MOVABLE) or is marked skip is passed over;
 *   isolate_freepages_block() reads every stride-th pfn of the block from
 *   where the scan stands, counting each read (and 2^order - 1 more for a
 *   block it takes); it stops right after the take that makes the targets
 *   suffice (nr_migratepages <= nr_freepages);
 *   a block read to its end is marked skip, and the cached free pfn
 *   lowered to the block below it (update_pageblock_skip());
 *   the targets suffice: stop (at the block below when this one was read
 *   to its end); a block left early: stop;
 *   a block that gave pages: stride 1; one that gave none: stride doubles,
 *   at most COMPACT_CLUSTER_MAX;
 *   the stride starts at COMPACT_CLUSTER_MAX in async mode, at 1 in the
 *   sync modes; cc->free_pfn = where the scan stopped.
 *
 * The machine: pfns [0, 256) in 32-page pageblocks, every page an order-0
 * movable fill page but the row's free ones (each beside an allocated
 * buddy, so each stays order 0). The even pfns of block 0
 * are free too, below the scan (low_pfn = 32): they keep the zone above
 * the order-0 watermark that __isolate_free_page() asks for. cc->order 0
 * (no fast search), migrate_pfn 0, free_pfn 224.
 */
#include "test_compaction_machine.h"

#define FS_PAGES 256
#define FS_MAX	 4

struct free_scan_row {
	const char *name;
	bool async;
	unsigned int wanted;	    /* cc->nr_migratepages */
	uint32_t free[FS_MAX];	    /* the free pages above block 0, 0-terminated */
	uint32_t taken[FS_MAX];	    /* the targets, in the order taken */
	uint64_t free_pfn_after;    /* cc->free_pfn */
	unsigned long scanned;	    /* cc->total_free_scanned */
	bool marked[2];		    /* skip bits of blocks 224 and 192 after */
	uint64_t cached_free_after; /* zone->compact_cached_free_pfn (224 before) */
};

/* clang-format off */
static const struct free_scan_row fs_rows[] = {
	/* Sync: 224 read, 225 taken: enough, stop after it. */
	{"sync: the first free page", false, 1, {225}, {225}, 226, 2, {false, false}, 224},
	/* Async: stride 32 reads only 224 of the top block, which is marked. */
	{"async: the stride passes 225 by", true, 1, {225, 192}, {192}, 193, 2, {true, false}, 192},
	{"async: the block's first pfn", true, 1, {224}, {224}, 225, 1, {false, false}, 224},
	/* Sync: the top block gives nothing (32 read), stride 2 in block 192. */
	{"sync: stride 2 after an empty block", false, 1, {193, 196}, {196}, 197, 32 + 3,
	 {true, false}, 192},
	/* Two wanted: 230 taken, the block read to its end (marked); stride 1 again. */
	{"sync: a block that gave one, then stride 1", false, 2, {230, 193}, {230, 193}, 194,
	 32 + 2, {true, false}, 192},
	/* Sync, six empty blocks: 32 + 16 + 8 + 4 + 2 + 1 read (strides 1 to 32), 32 at 32. */
	{"sync: the stride doubles up to 32", false, 1, {32}, {32}, 33, 63 + 1, {true, true}, 32},
};
/* clang-format on */

/* Frees the order-0 fill pages at pfns[0..n). */
static void free_pages_at(struct mm_sim *sim, const uint32_t *pfns, unsigned int n)
{
	struct compact_state *cs = sim->compact;

	for (uint32_t s = 0; s < cs->nr_fill; s++)
		for (unsigned int k = 0; k < n; k++)
			if (cs->fill[s].pfn == (long long)pfns[k]) {
				mm_free_pages(sim, pfns[k], 0, OWNER_FILL | s, cs->fill[s].gen);
				cs->fill[s].pfn = -1;
			}
}

/* Frees the order-0 fill pages [start, start + n), in pfn order. */
static void free_run(struct mm_sim *sim, uint32_t start, unsigned int n)
{
	for (uint32_t pfn = start; pfn < start + n; pfn++)
		free_pages_at(sim, &pfn, 1);
}

/* The even pfns of block 0, below every scan: the order-0 watermark's pages. */
static void free_block0_evens(struct mm_sim *sim)
{
	for (uint32_t pfn = 0; pfn < 32; pfn += 2)
		free_pages_at(sim, &pfn, 1);
}

/* A free scan of zone z from the top block (224) down to block 0, order 0 */
static struct compact_control free_scan_control(struct zone *z, bool async, unsigned int wanted,
						uint32_t *sources, uint32_t *targets)
{
	return (struct compact_control){
		.zone = z,
		.order = 0,
		.migratetype = MIGRATE_MOVABLE,
		.mode = async ? MM_MIGRATE_ASYNC : MM_MIGRATE_SYNC_LIGHT,
		.whole_zone = true,
		.migrate_pfn = 0,
		.free_pfn = 224,
		.fast_found_pfn = UINT64_MAX,
		.nr_migratepages = wanted,
		.migratepages = sources,
		.freepages = targets,
	};
}

START_TEST(test_free_scanner_table)
{
	const struct free_scan_row *r = &fs_rows[_i];
	struct mm_op refresh = {.kind = MM_OP_STAT_REFRESH};
	uint32_t targets[FS_PAGES], sources[FS_PAGES] = {0};
	unsigned int n_free = 0, n_taken = 0;
	struct mm_sim *sim = compaction_table_machine(6, 5, 0, FS_PAGES);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	struct vrec vr;

	free_block0_evens(sim);
	while (n_free < FS_MAX && r->free[n_free])
		n_free++;
	while (n_taken < FS_MAX && r->taken[n_taken])
		n_taken++;
	free_pages_at(sim, r->free, n_free);
	/* NR_FREE_PAGES exact: __isolate_free_page()'s watermark reads it */
	ck_assert_int_eq(mm_apply_op(sim, &refresh, NULL, 0, 0), 0);
	ck_assert_uint_eq(z->compact_cached_free_pfn, 224);
	sim_record(sim, &vr);

	struct compact_control cc = free_scan_control(z, r->async, r->wanted, sources, targets);
	uint64_t got;

	compact_check_pass_begin(&cc);
	got = compaction_alloc(&cc);
	ck_assert_msg(got == r->taken[n_taken - 1] && cc.nr_freepages == n_taken - 1,
		      "%s: target %llu, %lu left; want %u, %u", r->name, (unsigned long long)got,
		      cc.nr_freepages, r->taken[n_taken - 1], n_taken - 1);
	for (unsigned int i = 0; i + 1 < n_taken; i++)
		ck_assert_uint_eq(targets[i], r->taken[i]);
	ck_assert_msg(cc.free_pfn == r->free_pfn_after && cc.total_free_scanned == r->scanned,
		      "%s: free_pfn %llu, %lu scanned; want %llu, %lu", r->name,
		      (unsigned long long)cc.free_pfn, cc.total_free_scanned,
		      (unsigned long long)r->free_pfn_after, r->scanned);
	ck_assert_msg(get_pageblock_skip(sim, 224) == r->marked[0] &&
			      get_pageblock_skip(sim, 192) == r->marked[1],
		      "%s: skip bits of 224 and 192: %d %d", r->name, get_pageblock_skip(sim, 224),
		      get_pageblock_skip(sim, 192));
	ck_assert_uint_eq(z->compact_cached_free_pfn, r->cached_free_after);
	ck_assert_msg(vr.n == 0, "%s: %s", r->name, vr.first);
	cc.nr_migratepages = 0;
	release_freepages(&cc);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * A compound page in the scanned block (isolate_freepages_block(), 6.10):
 * one whose order is at most MAX_PAGE_ORDER and that ends inside the block
 * is skipped whole, its 2^order pages counted as scanned; one running past
 * the block's end is read as the stride falls. The machine as above
 * (pageblock order 5) with the row's max_order; the row's block is
 * allocated at head, pfn 160 is the one free target; cc->free_pfn 224.
 */
struct compound_row {
	const char *name;
	unsigned int max_order, order;
	uint32_t head;
	bool async;
	unsigned long scanned; /* blocks 224, head's, 160 */
};

/* clang-format off */
static const struct compound_row compound_rows[] = {
	/* 224 (1), 192 and the 31 pages after it (32), 160 (1). */
	{"async: a max-order page is skipped whole", 5, 5, 192, true, 1 + 32 + 1},
	/* 192..255: 224 and 192 are read alone, as at stride 32. */
	{"async: a page past the block's end is read as pages", 6, 6, 192, true, 1 + 1 + 1},
	/* Block 224 read at stride 1 (32); stride 2: 192 skipped whole (4), then 197..223 (14). */
	{"sync: an order-2 page at stride 2", 6, 2, 192, false, 32 + 4 + 14 + 1},
};
/* clang-format on */

START_TEST(test_free_scanner_compound)
{
	const struct compound_row *r = &compound_rows[_i];
	struct mm_op refresh = {.kind = MM_OP_STAT_REFRESH};
	uint32_t target = 160, targets[4], sources[4] = {0}, gen;
	struct mm_sim *sim = compaction_table_machine(r->max_order, 5, 0, FS_PAGES);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	const unsigned int nr = 1u << r->order;
	long long head;

	free_block0_evens(sim);
	free_run(sim, r->head, nr);
	/* the only free block of its order: the allocation takes it */
	head = mm_alloc_pages(sim, r->order, MM_GFP_MOVABLE | MM_GFP_MEMALLOC, -1, 0xc0ffee, &gen);
	ck_assert_int_eq(head, r->head);
	free_pages_at(sim, &target, 1);
	ck_assert_int_eq(mm_apply_op(sim, &refresh, NULL, 0, 0), 0);

	struct compact_control cc = free_scan_control(z, r->async, 1, sources, targets);

	compact_check_pass_begin(&cc);
	ck_assert_uint_eq(compaction_alloc(&cc), target);
	ck_assert_msg(cc.total_free_scanned == r->scanned, "%s: %lu scanned, want %lu", r->name,
		      cc.total_free_scanned, r->scanned);
	cc.nr_migratepages = 0;
	release_freepages(&cc);
	mm_free_pages(sim, r->head, r->order, 0xc0ffee, gen);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * suitable_migration_target() (6.9, 1883e8ac96dd): a block whose first
 * page is a free page of the pass's order or more (of pageblock_order or
 * more when the pass asks no order) is no target. The machine as above
 * (max order 6, pageblock order 5), two targets wanted: pfn 64 is a free
 * order-0 page and block 32 starts with a free page of the row's order;
 * every other page from 32 up is allocated. Both lie below the fast
 * search's reach (min_pfn 96 with migrate_pfn 0 and free_pfn 224), so the
 * linear scan decides. It takes 64 (block 64 gave: stride 1), then the
 * whole free page of block 32 when the block is suitable; else nothing
 * more, as block 32 is the last above the migration scanner. Under the
 * variant the old rule (pageblock_order always) gives the other answer in
 * three rows, and the oracle, which keeps the 6.9 rule, reports it: a
 * block entered that the rule refuses, or a suitable one passed over at
 * stride 1 with a free page in it.
 */
struct target_order_row {
	int order;		 /* cc->order */
	unsigned int free_order; /* the free page at pfn 32 */
	bool suitable;		 /* the 6.9 rule: block 32 is a target */
	bool suitable_before;	 /* before 1883e8ac96dd: limit pageblock_order */
};

/* clang-format off */
static const struct target_order_row target_order_rows[] = {
	{-1, 4, true, true},  {-1, 5, false, false},
	{0, 4, true, true},   {0, 5, false, false},
	{3, 2, true, true},   {3, 3, false, true},  {3, 4, false, true},
	{5, 4, true, true},   {5, 5, false, false},
	{6, 5, true, false},
};
/* clang-format on */

static void run_target_order_row(const struct target_order_row *r, bool variant)
{
	struct mm_op refresh = {.kind = MM_OP_STAT_REFRESH};
	uint32_t targets[34], sources[2] = {0};
	const unsigned int nr = 1u << r->free_order;
	struct mm_sim *sim = compaction_table_machine(6, 5, 0, FS_PAGES);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	bool want = variant ? r->suitable_before : r->suitable;
	struct vrec vr;

	if (variant)
		_mm_policy_apply_variant(&sim->policy,
					 mm_variant_lookup("compaction-target-pageblock-order"));
	free_block0_evens(sim);
	free_run(sim, 64, 1);
	free_run(sim, 32, nr);
	ck_assert_int_eq(mm_apply_op(sim, &refresh, NULL, 0, 0), 0);
	sim_record(sim, &vr);

	struct compact_control cc = free_scan_control(z, false, 2, sources, targets);

	cc.order = r->order;
	cc.search_order = r->order;
	compact_check_pass_begin(&cc);
	ck_assert_uint_eq(compaction_alloc(&cc), want ? 32 + nr - 1 : 64);
	ck_assert_msg(cc.nr_freepages == (want ? nr : 0) && targets[0] == 64,
		      "order %d, free order %u%s: %lu targets left, the first %u", r->order,
		      r->free_order, variant ? " (variant)" : "", cc.nr_freepages, targets[0]);
	/* the oracle holds the 6.9 rule: only a row where the rules differ breaks it */
	if (want == r->suitable)
		ck_assert_msg(vr.n == 0, "order %d: %s", r->order, vr.first);
	else
		ck_assert_msg(
			vrec_has(&vr, want ? "INV-COMPACT-FREE-TARGET" : "INV-COMPACT-FREE-SCAN"),
			"order %d, free order %u: the oracle said %s", r->order, r->free_order,
			vr.n ? vr.first : "nothing");
	cc.nr_migratepages = 0;
	release_freepages(&cc);
	if (!variant)
		ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}

START_TEST(test_free_scanner_target_order)
{
	run_target_order_row(&target_order_rows[_i], false);
}
END_TEST

START_TEST(test_free_scanner_target_order_variant)
{
	run_target_order_row(&target_order_rows[_i], true);
}
END_TEST

static Suite *free_scan_suite(void)
{
	Suite *s = suite_create("compaction_free_scan");
	TCase *tc = tcase_create("table");

	tcase_add_loop_test(tc, test_free_scanner_table, 0, (int)ARRAY_SIZE(fs_rows));
	tcase_add_loop_test(tc, test_free_scanner_compound, 0, (int)ARRAY_SIZE(compound_rows));
	tcase_add_loop_test(tc, test_free_scanner_target_order, 0,
			    (int)ARRAY_SIZE(target_order_rows));
	tcase_add_loop_test(tc, test_free_scanner_target_order_variant, 0,
			    (int)ARRAY_SIZE(target_order_rows));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(free_scan_suite());
}

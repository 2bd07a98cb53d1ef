/* SPDX-License-Identifier: MIT */
/*
 * test_compact_start.c - where a compaction pass starts its scanners:
 * compact_zone()'s setup (mm/compaction.c, 6.x), over its whole input grid.
 *
 * The rule, for a zone [start, end) and pageblock_start(end - 1) = the
 * first pfn of the zone's last pageblock:
 * - a whole-zone pass starts at migrate_pfn = start and free_pfn =
 *   pageblock_start(end - 1), and leaves the cached pfns alone;
 * - any other takes migrate_pfn = compact_cached_migrate_pfn[sync] (sync:
 *   the mode is not async) and free_pfn = compact_cached_free_pfn. A free
 *   pfn outside [start, end) becomes pageblock_start(end - 1), stored back
 *   as the cached free pfn; a migrate pfn outside [start, end) becomes
 *   start, stored back as BOTH cached migrate pfns. The pass is then
 *   whole-zone if migrate_pfn <= compact_init_migrate_pfn.
 * Then compact_finished(): if the scanners start in the same pageblock or
 * crossed (free_pfn's block <= migrate_pfn's), the cached pfns go back to
 * reset_cached_positions()'s (start, start, pageblock_start(end - 1)), a
 * direct compaction asks for the skip-bit flush, and the pass ends
 * COMPLETE if whole-zone, else PARTIAL_SKIPPED. Otherwise a free block of
 * the requested order on the pass's migratetype list ends it SUCCESS
 * before any scanner moves.
 *
 * Each row is one pass on a zone that is all free (so a block of the order
 * is listed) with its HIGH mark set out of reach, so that the pass is not
 * skipped as already satisfied (compaction_suitable() reads MIN): every
 * pass stops before its first round, and what it leaves in the control
 * and the zone is the setup alone. The zone starts at pfn 16 with 4-page
 * pageblocks and ends at 48 (a whole block), 49 (a last block of one
 * page: pageblock_start(end - 1) = 48, not 44) or 50.
 */
#include "common.h"
#include "internal.h"

#define ZSTART 16u
#define PB     4u /* pageblock_order 2 */

static const uint64_t zone_ends[] = {48, 49, 50};

/* Cached pfns tried: below the zone, its edges, inside, past its end. */
static const uint64_t cached_pfns[] = {0, 12, 15, 16, 20, 44, 47, 48, 49, 50, 52, 4096};

static uint64_t pb_start(uint64_t pfn)
{
	return pfn & ~(uint64_t)(PB - 1);
}

static bool in_zone(uint64_t pfn, uint64_t end)
{
	return pfn >= ZSTART && pfn < end;
}

struct start_row {
	uint64_t end, m0, m1, f, init;
	int mode;
	bool whole;
};

struct start_want {
	uint64_t migrate, free, m0, m1, f;
	bool whole, flush;
	int result;
};

/* The rule above, written out. */
static struct start_want start_rule(const struct start_row *r)
{
	struct start_want w = {.m0 = r->m0, .m1 = r->m1, .f = r->f, .whole = r->whole};
	uint64_t last_block = pb_start(r->end - 1);

	if (r->whole) {
		w.migrate = ZSTART;
		w.free = last_block;
	} else {
		w.migrate = r->mode != MM_MIGRATE_ASYNC ? r->m1 : r->m0;
		w.free = r->f;
		if (!in_zone(w.free, r->end))
			w.free = w.f = last_block;
		if (!in_zone(w.migrate, r->end))
			w.migrate = w.m0 = w.m1 = ZSTART;
		w.whole = w.migrate <= r->init;
	}
	if (w.free / PB <= w.migrate / PB) {
		w.m0 = w.m1 = ZSTART;
		w.f = last_block;
		w.flush = true;
		w.result = w.whole ? MM_COMPACT_COMPLETE : MM_COMPACT_PARTIAL_SKIPPED;
	} else {
		w.result = MM_COMPACT_SUCCESS;
	}
	return w;
}

/*
 * A row the rule cannot tell from a round: a migrate pfn taken inside
 * the zone but not at a pageblock's start makes compact_finished() go on
 * to a round (it always finishes a pageblock), which moves the scanners.
 */
static bool row_stops_at_setup(const struct start_row *r)
{
	struct start_want w = start_rule(r);

	return w.result != MM_COMPACT_SUCCESS || w.migrate % PB == 0;
}

static struct mm_sim *zone_to(uint64_t end)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, ZSTART, end - ZSTART, end - ZSTART);
	sim = sim_new_buddy_only(&cfg);
	sim->serial = true; /* as the executor runs compaction */
	return sim;
}

static unsigned int run_rows(struct mm_sim *sim, struct start_row *r)
{
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	unsigned int rows = 0;
	struct vrec vr;

	ck_assert_uint_eq(zone_end_pfn(z), r->end);
	ck_assert_uint_eq(atomic_long_read(&z->vm_stat[NR_FREE_PAGES]), r->end - ZSTART);
	unsigned long min = z->_watermark[WMARK_MIN], high = z->_watermark[WMARK_HIGH];

	z->_watermark[WMARK_MIN] = 1;
	z->_watermark[WMARK_HIGH] = 1000;
	sim_record(sim, &vr);
	for (unsigned int a = 0; a < ARRAY_SIZE(cached_pfns); a++)
		for (unsigned int b = 0; b < ARRAY_SIZE(cached_pfns); b++)
			for (unsigned int c = 0; c < ARRAY_SIZE(cached_pfns); c++)
				for (unsigned int k = 0; k < 8; k++) {
					r->m0 = cached_pfns[a];
					r->m1 = cached_pfns[b];
					r->f = cached_pfns[c];
					r->mode = k & 1 ? MM_MIGRATE_SYNC_LIGHT : MM_MIGRATE_ASYNC;
					r->whole = k & 2;
					r->init = k & 4 ? 20 : 0;
					if (!row_stops_at_setup(r))
						continue;

					struct start_want w = start_rule(r);
					struct compact_control cc = {
						.zone = z,
						.order = 2,
						.search_order = 2,
						.migratetype = MIGRATE_MOVABLE,
						.mode = r->mode,
						.alloc_flags = ALLOC_WMARK_HIGH,
						.highest_zoneidx = ZONE_NORMAL,
						.direct_compaction = true,
						.whole_zone = r->whole,
						.prio_whole_zone = r->whole,
						.fast_found_pfn = COMPACT_NO_PFN,
					};
					z->compact_cached_migrate_pfn[0] = r->m0;
					z->compact_cached_migrate_pfn[1] = r->m1;
					z->compact_cached_free_pfn = r->f;
					z->compact_init_migrate_pfn = r->init;
					z->compact_blockskip_flush = false;

					int ret = compact_zone(&cc);

					ck_assert_msg(
						ret == w.result && cc.migrate_pfn == w.migrate &&
							cc.free_pfn == w.free &&
							cc.whole_zone == w.whole &&
							z->compact_cached_migrate_pfn[0] == w.m0 &&
							z->compact_cached_migrate_pfn[1] == w.m1 &&
							z->compact_cached_free_pfn == w.f &&
							z->compact_blockskip_flush == w.flush,
						"zone [16, %llu), cached %llu/%llu free %llu, init "
						"%llu, %s%s: got %s migrate %llu free %llu whole "
						"%d, "
						"cached %llu/%llu free %llu, flush %d; want %s "
						"migrate %llu free %llu whole %d, cached %llu/%llu "
						"free %llu, flush %d",
						(unsigned long long)r->end,
						(unsigned long long)r->m0,
						(unsigned long long)r->m1, (unsigned long long)r->f,
						(unsigned long long)r->init,
						r->mode ? "sync light" : "async",
						r->whole ? ", whole zone" : "",
						mm_compact_result_name(ret),
						(unsigned long long)cc.migrate_pfn,
						(unsigned long long)cc.free_pfn, cc.whole_zone,
						(unsigned long long)
							z->compact_cached_migrate_pfn[0],
						(unsigned long long)
							z->compact_cached_migrate_pfn[1],
						(unsigned long long)z->compact_cached_free_pfn,
						z->compact_blockskip_flush,
						mm_compact_result_name(w.result),
						(unsigned long long)w.migrate,
						(unsigned long long)w.free, w.whole,
						(unsigned long long)w.m0, (unsigned long long)w.m1,
						(unsigned long long)w.f, w.flush);
					ck_assert_msg(vr.n == 0, "%s", vr.first);
					rows++;
				}
	/* nothing moved: the zone is still all free */
	ck_assert_uint_eq(atomic_long_read(&z->vm_stat[NR_FREE_PAGES]), r->end - ZSTART);
	z->_watermark[WMARK_MIN] = min;
	z->_watermark[WMARK_HIGH] = high;
	return rows;
}

START_TEST(test_compact_zone_setup_grid)
{
	struct start_row r = {.end = zone_ends[_i]};
	struct mm_sim *sim = zone_to(r.end);
	unsigned int rows = run_rows(sim, &r);

	/* most of the grid is run: 12^3 cached triples x 8 (mode, whole, init) */
	ck_assert_uint_ge(rows, 12 * 12 * 12 * 8 * 3 / 4);
	struct vrec vr;

	sim_record(sim, &vr);
	ck_assert_msg(mm_check_full(sim) == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *compact_start_suite(void)
{
	Suite *s = suite_create("compact_start");
	TCase *tc = tcase_create("setup");

	tcase_add_loop_test(tc, test_compact_zone_setup_grid, 0, (int)ARRAY_SIZE(zone_ends));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(compact_start_suite());
}

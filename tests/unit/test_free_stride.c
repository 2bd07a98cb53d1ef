/* SPDX-License-Identifier: MIT */
/*
 * test_free_stride.c - the linear free scanner's stride (isolate_freepages(),
 * mm/compaction.c since 5.1's "sample pageblocks for free pages"), over a
 * grid of where the free pages are.
 *
 * The rule: the scan starts in free_pfn's pageblock and walks down a block
 * at a time while the block lies at or above pageblock_end_pfn(migrate_pfn).
 * In each block it looks at the block's first pfn and every stride-th pfn
 * after it (a compound page is stepped over whole; none here). The stride
 * starts at COMPACT_CLUSTER_MAX (32) for an async pass and at 1 otherwise;
 * after a block that gave no page it doubles, up to 32, and after one that
 * gave it is 1 again. The scan stops once it holds a target for every
 * isolated source.
 *
 * The zone: pfns [0, 64), 4-page pageblocks, every page allocated order-0
 * movable but block 0 (free, below the scan: it keeps the free count above
 * the watermark __isolate_free_page() asks for). The scan starts at 60 with
 * the migration scanner at 0 (so it may go down to block 1). A row frees
 * one page at each pfn of blocks 1 to 15 in turn, alone or behind a page
 * at 60 that an earlier block gives first (then two targets are wanted);
 * the pages the scan takes must be the rule's, worked out in the test.
 */
#include "common.h"
#include "internal.h"

#define GFP_MOV	  (MM_GFP_MOVABLE | MM_GFP_KERNEL)
#define ZPAGES	  64u
#define PB	  4u
#define SCAN_FROM 60u
#define LOW	  4u /* pageblock_end_pfn(migrate_pfn 0) */

/* The rule above: which free pages (is_free[pfn]) the scan takes, want at most. */
static unsigned int stride_rule(bool async, const bool *is_free, unsigned int want, uint64_t *took)
{
	unsigned int stride = async ? COMPACT_CLUSTER_MAX : 1, n = 0;

	for (uint64_t b = SCAN_FROM; b >= LOW; b -= PB) {
		unsigned int gave = 0;

		for (uint64_t pfn = b; pfn < b + PB && n < want; pfn += stride)
			if (is_free[pfn]) {
				took[n++] = pfn;
				gave++;
			}
		if (n >= want)
			break;
		stride = gave ? 1
			      : (stride << 1 < COMPACT_CLUSTER_MAX ? stride << 1
								   : COMPACT_CLUSTER_MAX);
	}
	return n;
}

static int cmp_pfn(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One row: a fresh zone, the page at page_pfn (and 60 if lead) freed, one scan. */
static void run_row(bool async, bool lead, uint64_t page_pfn)
{
	bool is_free[ZPAGES] = {false};
	uint64_t want_pfns[2], got[2];
	unsigned int want = lead ? 2 : 1, nwant, ngot = 0;
	struct mm_config cfg;
	struct mm_sim *sim;
	uint32_t gen[ZPAGES];
	struct vrec vr;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, ZPAGES, ZPAGES);
	sim = sim_new_buddy_only(&cfg);
	sim->serial = true; /* as the executor runs compaction; the oracle judges it */
	mm_set_current_cpu(0);
	for (unsigned int i = 0; i < ZPAGES; i++)
		ck_assert_int_eq(mm_alloc_pages(sim, 0, GFP_MOV, -1, i, &gen[i]), (long long)i);
	for (unsigned int i = 0; i < LOW; i++)
		mm_free_pages(sim, i, 0, i, gen[i]);
	is_free[page_pfn] = true;
	if (lead)
		is_free[SCAN_FROM] = true;
	for (unsigned int i = LOW; i < ZPAGES; i++)
		if (is_free[i])
			mm_free_pages(sim, i, 0, i, gen[i]);
	nwant = stride_rule(async, is_free, want, want_pfns);

	struct compact_control cc = {
		.zone = &sim->node_data[0]->node_zones[ZONE_NORMAL],
		.freepages = sim->compact->freepages,
		.nr_migratepages = want,
		.order = -1, /* no fast search: the linear scan alone */
		.search_order = -1,
		.migratetype = MIGRATE_MOVABLE,
		.mode = async ? MM_MIGRATE_ASYNC : MM_MIGRATE_SYNC_LIGHT,
		.migrate_pfn = 0,
		.whole_zone = true, /* from the zone start: compact_zone() would say so */
		.free_pfn = SCAN_FROM,
		.fast_found_pfn = COMPACT_NO_PFN,
	};
	sim_record(sim, &vr);
	compact_check_pass_begin(&cc); /* the pass's per-block marks start clear */
	uint64_t first = compaction_alloc(&cc);
	if (first != COMPACT_NO_PFN) {
		got[ngot++] = first;
		for (unsigned long i = 0; i < cc.nr_freepages && ngot < 2; i++)
			got[ngot++] = cc.freepages[i];
	}
	qsort(got, ngot, sizeof(got[0]), cmp_pfn);
	qsort(want_pfns, nwant, sizeof(want_pfns[0]), cmp_pfn);
	ck_assert_msg(ngot == nwant && (!ngot || got[0] == want_pfns[0]) &&
			      (ngot < 2 || got[1] == want_pfns[1]),
		      "%s scan from %u, free page at %llu%s: took %u (%lld %lld), want %u "
		      "(%lld %lld)",
		      async ? "async" : "sync light", SCAN_FROM, (unsigned long long)page_pfn,
		      lead ? " behind one at 60" : "", ngot, ngot ? (long long)got[0] : -1LL,
		      ngot > 1 ? (long long)got[1] : -1LL, nwant,
		      nwant ? (long long)want_pfns[0] : -1LL,
		      nwant > 1 ? (long long)want_pfns[1] : -1LL);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	if (first != COMPACT_NO_PFN)
		cc.freepages[cc.nr_freepages++] = first; /* back with the rest */
	release_freepages(&cc);
	ck_assert_msg(mm_check_full(sim) == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}

/* _i: the mode (bit 0: async), a lead page at 60 (bit 1); each pfn of blocks 1 to 15 a row. */
START_TEST(test_free_scan_stride_grid)
{
	bool async = _i & 1, lead = _i & 2;

	/* with a lead, the rows stop below its block (those are the lone grid's) */
	for (uint64_t pfn = LOW; pfn < (lead ? SCAN_FROM : ZPAGES); pfn++)
		run_row(async, lead, pfn);
}
END_TEST

static Suite *free_stride_suite(void)
{
	Suite *s = suite_create("free_stride");
	TCase *tc = tcase_create("isolate_freepages");

	tcase_add_loop_test(tc, test_free_scan_stride_grid, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(free_stride_suite());
}

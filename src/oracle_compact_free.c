/* SPDX-License-Identifier: MIT */
/*
 * oracle_compact_free.c - the linear free scanner (isolate_freepages())
 * against mm/compaction.c's rules, recomputed here from the scan's inputs
 * and the memmap after it, never from the scanner's own decisions:
 *
 *   INV-COMPACT-FREE-TARGET  every page the scan isolated lies in the zone,
 *                            in [low, end of the start block) with low =
 *                            pageblock_end_pfn(migrate_pfn), in a block
 *                            suitable_migration_target() accepts (judged
 *                            as the scan enters it), and is
 *                            compaction's own order-0 page; the
 *                            zone's nr_isolated_free grew by exactly the
 *                            pages taken; and (any scanner) each block taken
 *                            was a free page of its order, taken while
 *                            compaction was still short of targets
 *   INV-COMPACT-FREE-SCAN    a scan short of targets ends below low (the
 *                            scanners met) or at the free page the
 *                            watermark refused; and no block it passed over
 *                            whole at stride 1 (the checker follows the
 *                            adaptive stride), suitable and not marked
 *                            skip, still holds a free page
 *
 * Run after the linear scan only (a fast-search hit returns before it).
 * Cost: O(pages between where the scan started and where it stopped), the
 * scan's own cost.
 */
#include "internal.h"

/* The lowest order of a free page that bars a block (6.9: the pass's, else a pageblock). */
static int rule_target_order_limit(const struct compact_control *cc)
{
	return cc->order > 0 ? cc->order : (int)cc->zone->sim->pageblock_order;
}

/*
 * suitable_migration_target(), the rule (6.9): a MOVABLE block (any block
 * at the whole-zone priority) whose first page is not a free page of the
 * pass's order or more (of a pageblock or more when the pass asks no
 * order). The priority's flag is the checker's own (compaction_oracle.c).
 */
static bool rule_suitable_target(const struct compact_control *cc, uint64_t block_pfn)
{
	const struct mm_sim *sim = cc->zone->sim;
	const struct page *page = &sim->mem_map[block_pfn];

	if (page->state == PG_BUDDY && (int)page->order >= rule_target_order_limit(cc))
		return false;
	return cc->prio_whole_zone || (sim->pageblock_flags[block_pfn >> sim->pageblock_order] &
				       PB_MIGRATETYPE_MASK) == MIGRATE_MOVABLE;
}

static void report_target(struct compact_control *cc, uint64_t pfn, long long want, long long got,
			  const char *why)
{
	zone_report(cc->zone, "INV-COMPACT-FREE-TARGET", (long long)pfn, want, got,
		    "the free scanner isolated pfn %llu: %s (scan from %llu, migrate pfn %llu)",
		    (unsigned long long)pfn, why, (unsigned long long)cc->free_pfn,
		    (unsigned long long)cc->migrate_pfn);
}

/* INV-COMPACT-FREE-TARGET over the pages the linear scan took. */
static void check_targets(struct compact_control *cc, uint64_t start_pfn, uint64_t low,
			  long isolated_before)
{
	struct zone *zone = cc->zone;
	struct mm_sim *sim = zone->sim;
	uint64_t top = pageblock_end_pfn(sim, start_pfn);
	long grown = zone->nr_isolated_free - isolated_before;

	if (grown != (long)cc->nr_freepages)
		report_target(cc, COMPACT_NO_PFN, (long long)cc->nr_freepages, grown,
			      "nr_isolated_free grew by other than the pages taken");
	for (unsigned long i = 0; i < cc->nr_freepages; i++) {
		uint64_t pfn = cc->freepages[i];
		const struct page *page = pfn_to_page(sim, pfn);

		if (!zone_spans_pfn(zone, pfn) || pfn < low || pfn >= top)
			report_target(cc, pfn, (long long)low, (long long)pfn,
				      "outside the zone or the scan's window");
		else if (!rule_suitable_target(cc, pageblock_start_pfn(sim, pfn)))
			report_target(cc, pfn, MIGRATE_MOVABLE, get_pfnblock_migratetype(sim, pfn),
				      "its pageblock is no suitable migration target");
		else if (page->state != PG_ALLOC || page->order ||
			 page->stamp.owner != OWNER_ISOLATED_FREE)
			report_target(cc, pfn, PG_ALLOC, page->state,
				      "it is not compaction's isolated order-0 page");
	}
}

/*
 * In [from, to): the first free page (a buddy head), or COMPACT_NO_PFN,
 * and whether compaction holds an isolated page there (this scan's: the
 * earlier scans' targets have all been used or released by now).
 */
static uint64_t first_free_page(const struct mm_sim *sim, uint64_t from, uint64_t to,
				bool *isolated)
{
	uint64_t found = COMPACT_NO_PFN;

	*isolated = false;
	for (uint64_t pfn = from; pfn < to; pfn++) {
		const struct page *page = &sim->mem_map[pfn];
		if (page->state == PG_BUDDY && found == COMPACT_NO_PFN)
			found = pfn;
		else if (page->state == PG_ALLOC && page->stamp.owner == OWNER_ISOLATED_FREE)
			*isolated = true;
	}
	return found;
}

static void report_scan(struct compact_control *cc, uint64_t pfn, long long want, long long got,
			const char *why, uint64_t start_pfn)
{
	zone_report(cc->zone, "INV-COMPACT-FREE-SCAN", (long long)pfn, want, got,
		    "the free scanner %s (scan from %llu to %llu, low %llu, %lu of %lu targets)",
		    why, (unsigned long long)start_pfn, (unsigned long long)cc->free_pfn,
		    (unsigned long long)pageblock_end_pfn(cc->zone->sim, cc->migrate_pfn),
		    cc->nr_freepages, cc->nr_migratepages);
}

/* INV-COMPACT-FREE-SCAN: where the scan stopped, and what it left behind. */
static void check_scan(struct compact_control *cc, uint64_t start_pfn, uint64_t low)
{
	struct zone *zone = cc->zone;
	struct mm_sim *sim = zone->sim;
	uint64_t nr = UINT64_C(1) << sim->pageblock_order;
	uint64_t end = cc->free_pfn, first = zone->zone_start_pfn;
	bool short_of_targets = cc->nr_freepages < cc->nr_migratepages;

	/* Short and still above low: only a refused free page stops it there. */
	if (short_of_targets && end >= low && end < zone_end_pfn(zone) &&
	    sim->mem_map[end].state != PG_BUDDY) {
		report_scan(cc, end, (long long)low - 1, (long long)end,
			    "stopped short of targets above the migration scanner, not at a "
			    "refused free page",
			    start_pfn);
		return;
	}
	/*
	 * The blocks passed over whole: from the start block (from start_pfn
	 * on) down to the block above the one the scan stopped in, none below
	 * low. Only those scanned at stride 1 must be drained: the stride
	 * starts at 1 (COMPACT_CLUSTER_MAX when async), doubles after a
	 * scanned block that gave nothing and is 1 again after one that gave
	 * a page. A block with its skip bit set may have been skipped: no
	 * claim on it, and the stride after it is unknown unless it gave.
	 */
	bool stride1 = cc->mode != MM_MIGRATE_ASYNC;

	if (first < low)
		first = low;
	for (uint64_t b = pageblock_start_pfn(sim, start_pfn); b >= first; b -= nr) {
		/* the start block from start_pfn on, the others whole */
		uint64_t from = start_pfn < b + nr ? start_pfn : b, to = b + nr, pfn;
		bool gave, skipped;

		if (end >= low && b <= end)
			break; /* the block it stopped in (or above): not passed over */
		if (to > zone_end_pfn(zone))
			to = zone_end_pfn(zone);
		if (!rule_suitable_target(cc, b))
			continue; /* not scanned: the stride stays */
		skipped = !cc->prio_whole_zone && get_pageblock_skip(sim, b);
		pfn = first_free_page(sim, from, to, &gave);
		if (stride1 && !skipped && pfn != COMPACT_NO_PFN) {
			report_scan(cc, pfn, 0, (long long)sim->mem_map[pfn].order,
				    "passed over a free page of a suitable block at stride 1",
				    start_pfn);
			return;
		}
		stride1 = gave;
		if (b < nr)
			break; /* pfn 0's block: nothing below */
	}
}

/*
 * The linear scan enters a block (compact_check_free_visit()): it must be
 * one suitable_migration_target() accepts, judged now, while the block's
 * first page is as the scanner read it. After the scan the memmap no
 * longer tells: a free page taken from the block's start is a target.
 */
void _mm_oracle_free_visit(struct compact_control *cc, uint64_t block_pfn)
{
	const struct mm_sim *sim = cc->zone->sim;
	const struct page *page = &sim->mem_map[block_pfn];

	if (!sim->serial || sim->compact->in_shadow || rule_suitable_target(cc, block_pfn))
		return;
	if (page->state == PG_BUDDY)
		report_target(cc, block_pfn, rule_target_order_limit(cc) - 1, page->order,
			      "the scan entered a block starting with a free page of the pass's "
			      "order or more");
	else
		report_target(cc, block_pfn, MIGRATE_MOVABLE,
			      get_pfnblock_migratetype(sim, block_pfn),
			      "the scan entered a block that is no suitable migration target");
}

void _mm_oracle_free_take(struct compact_control *cc, uint64_t pfn, unsigned int order)
{
	const struct zone *zone = cc->zone;
	const struct mm_sim *sim = zone->sim;

	if (!sim->serial || sim->compact->in_shadow)
		return;
	if (!zone_spans_pfn(zone, pfn) || sim->mem_map[pfn].state != PG_BUDDY ||
	    sim->mem_map[pfn].order != order)
		report_target(cc, pfn, PG_BUDDY,
			      zone_spans_pfn(zone, pfn) ? sim->mem_map[pfn].state : -1,
			      "it is not a free page of the order isolated");
	else if (cc->nr_freepages >= cc->nr_migratepages)
		report_target(cc, pfn, (long long)cc->nr_migratepages - 1,
			      (long long)cc->nr_freepages, "targets already sufficed");
}

void _mm_oracle_free_scan(struct compact_control *cc, uint64_t start_pfn, long isolated_before)
{
	const struct mm_sim *sim = cc->zone->sim;
	uint64_t low;

	if (!sim->serial || sim->compact->in_shadow)
		return;
	/* isolate_freepages(): low_pfn = pageblock_end_pfn(cc->migrate_pfn) */
	low = pageblock_end_pfn(sim, cc->migrate_pfn);
	check_targets(cc, start_pfn, low, isolated_before);
	check_scan(cc, start_pfn, low);
}

/* SPDX-License-Identifier: MIT */
/*
 * compaction_check.c - the invariants of a compaction pass (seed 001),
 * checked as the scanners run, at O(1) per pageblock visit:
 *
 *   INV-COMPACT-FASTFIND-UNSCANNED  a block fast_find_migrateblock() returned
 *                                   gets scanned past its skip test
 *   INV-COMPACT-RESCAN              no pageblock is entered fresh more than
 *                                   COMPACT_MAX_BLOCK_ENTRIES times in a pass
 *   INV-COMPACT-SCANNER-OVERLAP     the linear free scanner and the migration
 *                                   scanner never scan the same pageblock
 *   INV-COMPACT-DEFER               deferral state within the kernel's bounds
 *   INV-COMPACT-MIGRATE-STAMP       a migrated page keeps its contents
 *   (and INV-COMPACT-RESCAN again when a pass runs far more rounds than its zone needs)
 *
 * INV-COMPACT-SKIP-HINT, which reruns a pass, is in compaction_shadow.c.
 */
#include "internal.h"

#include <string.h>

/*
 * A correct pass enters a pageblock at its first pfn at most twice: once
 * by fast_find_migrateblock() or the linear scan, once more when
 * reinit_migrate_pfn() sends the scanner back over it (its skip bit then
 * turns it away, unless the pass ignores the bits, which also disables the
 * fast search). Continuations after COMPACT_CLUSTER_MAX isolations and
 * finish_pageblock rescans start mid-block and do not count. Twice that
 * bound leaves room; the endless reselection of seed 001 passes any bound.
 */
#define COMPACT_MAX_BLOCK_ENTRIES 4

#define SCANNED_MIGRATE 0x1u
#define SCANNED_FREE	0x2u

static size_t block_index(const struct zone *zone, uint64_t pfn)
{
	return (size_t)(pfn >> zone->sim->pageblock_order);
}

void compact_check_pass_begin(struct compact_control *cc)
{
	struct zone *zone = cc->zone;
	struct compact_state *cs = zone->sim->compact;
	size_t first = block_index(zone, zone->zone_start_pfn);
	size_t n = block_index(zone, zone_end_pfn(zone) - 1) - first + 1;

	memset(cs->visits + first, 0, n);
	memset(cs->scanned_by + first, 0, n);
	cs->pass_iterations = 0;
	cs->stats.compact_passes++;
	compact_check_prio_start(cc);
}

static void report_overlap(struct compact_control *cc, uint64_t pfn, const char *scanner)
{
	if (cc->zone->sim->compact->in_shadow)
		return;
	zone_report(cc->zone, "INV-COMPACT-SCANNER-OVERLAP",
		    (long long)pageblock_start_pfn(cc->zone->sim, pfn), 0, 1,
		    "the %s scanner entered a pageblock the other scanner scanned in this pass "
		    "(migrate pfn %llu, free pfn %llu)",
		    scanner, (unsigned long long)cc->migrate_pfn, (unsigned long long)cc->free_pfn);
}

bool compact_check_migrate_visit(struct compact_control *cc, uint64_t pfn)
{
	struct zone *zone = cc->zone;
	struct compact_state *cs = zone->sim->compact;
	size_t b = block_index(zone, pfn);

	if (cs->scanned_by[b] & SCANNED_FREE)
		report_overlap(cc, pfn, "migration");
	cs->scanned_by[b] |= SCANNED_MIGRATE;
	if (pfn != zone->zone_start_pfn && !pageblock_aligned(zone->sim, pfn))
		return true; /* a continuation */
	if (cs->visits[b] && cs->visits[b] < UINT8_MAX)
		cs->stats.compact_block_rescans++;
	if (++cs->visits[b] <= COMPACT_MAX_BLOCK_ENTRIES)
		return true;
	if (cs->in_shadow)
		return false; /* blind to the bits, the shadow may reselect: it just stops */
	zone_report(zone, "INV-COMPACT-RESCAN", (long long)pageblock_start_pfn(zone->sim, pfn),
		    COMPACT_MAX_BLOCK_ENTRIES, cs->visits[b],
		    "the migration scanner entered this pageblock %u times in one pass (order %d, "
		    "skip bit %d): compaction is reselecting it",
		    cs->visits[b], cc->order, get_pageblock_skip(zone->sim, pfn));
	return false;
}

/*
 * The fewest pfns a round of compact_zone() moves the migration scanner
 * when it stops isolating early. isolate_migratepages_block() stops at
 * COMPACT_CLUSTER_MAX isolations; in async direct compaction
 * (skip_on_failure) it also stops at the end of the first cc->order
 * aligned block it isolated from, to migrate that block now, so an order-1
 * pass may run a round per two pages.
 */
static unsigned long compact_round_min_advance(const struct compact_control *cc)
{
	unsigned long step = COMPACT_CLUSTER_MAX;

	/* cc->order is 0..max_order (MM_MAX_PAGE_ORDER): the shift is defined. */
	if (cc->direct_compaction && cc->mode == MM_MIGRATE_ASYNC && (1UL << cc->order) < step)
		step = 1UL << cc->order;
	return step;
}

/*
 * A backstop for loops the entry count cannot see (none is known). A
 * round's isolate_migratepages() ends at a pageblock's end or without
 * isolating (once per block entry), or early after moving the scanner at
 * least compact_round_min_advance() pfns, except when it started
 * unaligned: right after a COMPACT_CLUSTER_MAX stop, or in a zone's
 * unaligned first block. So a pass runs at most
 * 2 * (entries + scanned / step) rounds; the entry check allows
 * COMPACT_MAX_BLOCK_ENTRIES entries a block, each scanning at most the
 * block, so scanned <= COMPACT_MAX_BLOCK_ENTRIES * spanned. A pass past
 * that does not end. Reported as INV-COMPACT-RESCAN.
 */
bool compact_check_round(struct compact_control *cc)
{
	struct zone *zone = cc->zone;
	struct compact_state *cs = zone->sim->compact;
	unsigned long blocks = (unsigned long)(block_index(zone, zone_end_pfn(zone) - 1) -
					       block_index(zone, zone->zone_start_pfn) + 1);
	unsigned long limit =
		2 * COMPACT_MAX_BLOCK_ENTRIES *
		((unsigned long)zone->spanned_pages / compact_round_min_advance(cc) + blocks + 1);

	if (++cs->pass_iterations <= limit)
		return true;
	if (!cs->in_shadow)
		zone_report(zone, "INV-COMPACT-RESCAN", -1, (long long)limit, cs->pass_iterations,
			    "a pass ran %u rounds without the scanners meeting (order %d)",
			    cs->pass_iterations, cc->order);
	return false;
}

void compact_check_free_visit(struct compact_control *cc, uint64_t pfn)
{
	struct compact_state *cs = cc->zone->sim->compact;
	size_t b = block_index(cc->zone, pfn);

	if (cs->scanned_by[b] & SCANNED_MIGRATE)
		report_overlap(cc, pfn, "free");
	cs->scanned_by[b] |= SCANNED_FREE;
}

void compact_check_fast_found(struct compact_control *cc, uint64_t block_pfn,
			      unsigned long scanned_past_test)
{
	cc->fast_found_pfn = UINT64_MAX;
	if (scanned_past_test || cc->zone->sim->compact->in_shadow)
		return;
	zone_report(cc->zone, "INV-COMPACT-FASTFIND-UNSCANNED", (long long)block_pfn, 1, 0,
		    "fast_find_migrateblock() returned this pageblock but no pfn of it was scanned "
		    "(skip bit %d)",
		    get_pageblock_skip(cc->zone->sim, block_pfn));
}

void compact_check_defer(struct zone *zone)
{
	unsigned int limit = 1u << (zone->compact_defer_shift <= COMPACT_MAX_DEFER_SHIFT
					    ? zone->compact_defer_shift
					    : COMPACT_MAX_DEFER_SHIFT);

	if (zone->compact_defer_shift > COMPACT_MAX_DEFER_SHIFT)
		zone_report(zone, "INV-COMPACT-DEFER", -1, COMPACT_MAX_DEFER_SHIFT,
			    zone->compact_defer_shift, "compact_defer_shift above the maximum");
	if (zone->compact_considered > limit)
		zone_report(zone, "INV-COMPACT-DEFER", -1, limit, zone->compact_considered,
			    "compact_considered above 1 << compact_defer_shift");
	if (zone->compact_order_failed < 0 ||
	    zone->compact_order_failed > (int)zone->sim->max_order + 1)
		zone_report(zone, "INV-COMPACT-DEFER", -1, zone->sim->max_order + 1,
			    zone->compact_order_failed,
			    "compact_order_failed out of 0..max_order+1");
}

void compact_check_migrated(struct mm_sim *sim, const struct mm_handle *h, uint64_t dst,
			    uint32_t owner)
{
	const struct page *page = pfn_to_page(sim, dst);

	if (h->pfn == (long long)dst && page->stamp.owner == owner && page->stamp.gen == h->gen &&
	    page->state == PG_ALLOC && page->order == 0)
		return;
	mm_report_violation(sim, "INV-COMPACT-MIGRATE-STAMP", page_zone(sim, page)->node,
			    (int)page_zone(sim, page)->type, smp_processor_id(), (long long)dst,
			    h->gen, page->stamp.gen,
			    "migrated page holds owner %u, its handle expects owner %u at pfn %lld",
			    page->stamp.owner, owner, h->pfn);
}

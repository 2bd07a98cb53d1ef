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
 *   INV-COMPACT-SOURCES             the migrate list holds exactly the sources
 *                                   isolated since it was last drained
 *   (and INV-COMPACT-RESCAN again when a pass runs far more rounds than its zone needs)
 *
 * INV-COMPACT-SKIP-HINT, which reruns a pass, is in compaction_shadow.c.
 *
 * Under threads (docs/compaction.md, "Under threads") the per-pass state
 * is the pass's thread's (cc->cs), and a check that other CPUs can make
 * wrong judges only what they cannot have touched: RESCAN when no reset
 * ran during the pass (zone->compact_resets), FASTFIND-UNSCANNED when no
 * other thread set a skip bit since fast_find returned the block
 * (sim->compact_skip_sets minus this thread's own), DEFER only its
 * absolute bounds (the kernel's lockless updates may leave considered
 * above 1 << shift for a while).
 */
#include "internal.h"

#include <limits.h>
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
	struct compact_state *cs = cc_state(cc);
	size_t first = block_index(zone, zone->zone_start_pfn);
	size_t n = block_index(zone, zone_end_pfn(zone) - 1) - first + 1;

	memset(cs->visits + first, 0, n);
	memset(cs->scanned_by + first, 0, n);
	cs->pass_iterations = 0;
	cs->src_held = 0;
	cs->stats.compact_passes++;
	compact_check_prio_start(cc);
	compact_skip_hint_pass_begin(cc);
}

static void report_overlap(struct compact_control *cc, uint64_t pfn, const char *scanner)
{
	if (cc_state(cc)->in_shadow)
		return;
	zone_report(cc->zone, "INV-COMPACT-SCANNER-OVERLAP",
		    (long long)pageblock_start_pfn(cc->zone->sim, pfn), 0, 1,
		    "the %s scanner entered a pageblock the other scanner scanned in this pass "
		    "(migrate pfn %llu, free pfn %llu)",
		    scanner, (unsigned long long)cc->migrate_pfn, (unsigned long long)cc->free_pfn);
}

/* Under threads: a reset ran since the pass began, so the pass may legitimately re-enter blocks. */
static bool reset_raced(const struct compact_control *cc)
{
	return !cc->zone->sim->serial &&
	       atomic_load(&cc->zone->compact_resets) != cc->resets_at_start;
}

bool compact_check_migrate_visit(struct compact_control *cc, uint64_t pfn)
{
	struct zone *zone = cc->zone;
	struct compact_state *cs = cc_state(cc);
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
	if (cs->in_shadow || reset_raced(cc))
		return false; /* blind to the bits, or bits cleared meanwhile: it just stops */
	zone_report(zone, "INV-COMPACT-RESCAN", (long long)pageblock_start_pfn(zone->sim, pfn),
		    COMPACT_MAX_BLOCK_ENTRIES, cs->visits[b],
		    "the migration scanner entered this pageblock %u times in one pass (order %d, "
		    "skip bit %d): compaction is reselecting it",
		    cs->visits[b], cc->order, get_pageblock_skip(zone->sim, pfn));
	return false;
}

void compact_check_source_isolated(struct compact_control *cc)
{
	cc_state(cc)->src_held++;
}

/*
 * INV-COMPACT-SOURCES. Each round's sources are migrated or put back, and
 * compact_zone() ends with the list empty (its VM_BUG_ON): when the list
 * is handed to migration or put back, and at the pass's end, it holds
 * exactly the sources the checker saw isolated since it was last drained.
 * A stale entry would be migrated twice; a lost one never.
 */
void compact_check_sources(struct compact_control *cc, const char *where, bool drain)
{
	struct compact_state *cs = cc_state(cc);

	if (cc->nr_migratepages != cs->src_held)
		zone_report(cc->zone, "INV-COMPACT-SOURCES", (long long)cc->migrate_pfn,
			    (long long)cs->src_held, (long long)cc->nr_migratepages,
			    "the migrate list %s holds %lu sources, %lu isolated since it was "
			    "last drained",
			    where, cc->nr_migratepages, cs->src_held);
	if (drain)
		cs->src_held = 0;
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
	struct compact_state *cs = cc_state(cc);
	unsigned long blocks = (unsigned long)(block_index(zone, zone_end_pfn(zone) - 1) -
					       block_index(zone, zone->zone_start_pfn) + 1);
	unsigned long limit =
		2 * COMPACT_MAX_BLOCK_ENTRIES *
		((unsigned long)zone->spanned_pages / compact_round_min_advance(cc) + blocks + 1);

	if (++cs->pass_iterations <= limit)
		return true;
	if (!cs->in_shadow && !reset_raced(cc))
		zone_report(zone, "INV-COMPACT-RESCAN", -1, (long long)limit, cs->pass_iterations,
			    "a pass ran %u rounds without the scanners meeting (order %d)",
			    cs->pass_iterations, cc->order);
	return false;
}

void compact_check_free_visit(struct compact_control *cc, uint64_t pfn)
{
	struct compact_state *cs = cc_state(cc);
	size_t b = block_index(cc->zone, pfn);

	if (cs->scanned_by[b] & SCANNED_MIGRATE)
		report_overlap(cc, pfn, "free");
	cs->scanned_by[b] |= SCANNED_FREE;
	_mm_oracle_free_visit(cc, pfn);
}

/*
 * Under threads: the skip bits set so far when fast_find_migrateblock()
 * starts reading them. Taken at the return, a bit another pass set between
 * the candidate's skip test and the return was not counted as another's.
 */
void compact_check_fast_returned(struct compact_control *cc)
{
	struct mm_sim *sim = cc->zone->sim;

	if (sim->serial)
		return;
	cc->skip_sets_at_find = atomic_load(&sim->compact_skip_sets);
	cc->own_sets_at_find = compact_own_skip_sets;
}

/*
 * Under threads: another pass set a skip bit since fast_find returned the
 * block, perhaps the block's own, which then rightly turns the scanner
 * away (the kernel has the same harmless race). Only this pass's own
 * marking is the bug: with no other set, the block's bit is this pass's.
 */
static bool others_set_skip_bits(const struct compact_control *cc)
{
	const struct mm_sim *sim = cc->zone->sim;
	unsigned long all, own;

	if (sim->serial)
		return false;
	all = atomic_load(&((struct mm_sim *)sim)->compact_skip_sets) - cc->skip_sets_at_find;
	own = compact_own_skip_sets - cc->own_sets_at_find;
	return all != own;
}

void compact_check_fast_found(struct compact_control *cc, uint64_t block_pfn,
			      unsigned long scanned_past_test)
{
	cc->fast_found_pfn = UINT64_MAX;
	if (scanned_past_test || cc_state(cc)->in_shadow || others_set_skip_bits(cc))
		return;
	zone_report(cc->zone, "INV-COMPACT-FASTFIND-UNSCANNED", (long long)block_pfn, 1, 0,
		    "fast_find_migrateblock() returned this pageblock but no pfn of it was scanned "
		    "(skip bit %d)",
		    get_pageblock_skip(cc->zone->sim, block_pfn));
}

/*
 * Serial: considered within 1 << shift. Under threads only the absolute
 * bounds: compaction_deferred() may store a limit computed from a shift
 * that compaction_defer_reset() just lowered (the kernel's race too; the
 * next call clamps it again), but no store exceeds 1 << the maximum shift.
 */
void compact_check_defer(struct zone *zone)
{
	unsigned int shift = READ_ONCE(zone->compact_defer_shift);
	unsigned int considered = READ_ONCE(zone->compact_considered);
	int failed = READ_ONCE(zone->compact_order_failed);
	unsigned int limit = 1u << (zone->sim->serial && shift <= COMPACT_MAX_DEFER_SHIFT
					    ? shift
					    : COMPACT_MAX_DEFER_SHIFT);

	if (shift > COMPACT_MAX_DEFER_SHIFT)
		zone_report(zone, "INV-COMPACT-DEFER", -1, COMPACT_MAX_DEFER_SHIFT, shift,
			    "compact_defer_shift above the maximum");
	if (considered > limit)
		zone_report(zone, "INV-COMPACT-DEFER", -1, limit, considered,
			    zone->sim->serial ? "compact_considered above 1 << compact_defer_shift"
					      : "compact_considered above 1 << the maximum shift");
	if (failed < 0 || failed > (int)zone->sim->max_order + 1)
		zone_report(zone, "INV-COMPACT-DEFER", -1, zone->sim->max_order + 1, failed,
			    "compact_order_failed out of 0..max_order+1");
}

/*
 * The page at dst holds what the source held: owner and gen as the
 * handle (serial) or the LRU's record (threads, handle_pfn -1) say, and
 * the handle, if any, now names dst.
 */
void compact_check_migrated(struct mm_sim *sim, uint64_t dst, long long handle_pfn, uint32_t owner,
			    uint32_t gen)
{
	const struct page *page = pfn_to_page(sim, dst);

	if ((handle_pfn < 0 || handle_pfn == (long long)dst) && page->stamp.owner == owner &&
	    page->stamp.gen == gen && page->state == PG_ALLOC && page->order == 0)
		return;
	mm_report_violation(
		sim, "INV-COMPACT-MIGRATE-STAMP", page_zone(sim, page)->node,
		(int)page_zone(sim, page)->type, smp_processor_id(), (long long)dst, gen,
		page->stamp.gen,
		"migrated page holds owner %u, its source's expects owner %u at pfn %lld",
		page->stamp.owner, owner, handle_pfn);
}

unsigned int compact_quiet_begin(struct zone *zone)
{
	if (zone->sim->serial)
		return 0;
	/* the only pass: a mark that moves when a pass starts or a reset runs */
	if (atomic_load(&zone->compact_in_flight) != 1)
		return UINT_MAX;
	return atomic_load(&zone->compact_pass_starts) + atomic_load(&zone->compact_resets);
}

bool compact_quiet_end(struct zone *zone, unsigned int mark)
{
	if (zone->sim->serial)
		return true;
	return mark != UINT_MAX && atomic_load(&zone->compact_in_flight) == 1 &&
	       atomic_load(&zone->compact_pass_starts) + atomic_load(&zone->compact_resets) == mark;
}

/* SPDX-License-Identifier: MIT */
/*
 * compaction_oracle.c - compaction's decisions and resets against the
 * kernel's rules, recomputed here from their inputs (issue 14):
 *
 *   INV-COMPACT-PRIO        a direct pass at MIN_COMPACT_PRIORITY scans the
 *                           whole zone, ignoring the skip bits and block
 *                           suitability, and no other priority does; a
 *                           costly order runs at sync light or above, and
 *                           the mode is the priority's (async or sync
 *                           light; sync only compact_node()'s); a pass
 *                           is whole-zone by that or by starting at the
 *                           reset's first usable block, and only a
 *                           whole-zone pass ends COMPLETE
 *   INV-COMPACT-CACHED-PFN  when the scanners meet, the cached pfns are
 *                           where reset_cached_positions() puts them; after
 *                           a flush, where the reset's walk leaves them
 *   INV-COMPACT-SKIP-FLUSH  at a flush point (kswapd going to sleep, a
 *                           restart after the maximum deferrals) the flush
 *                           request is consumed and every block's skip bit
 *                           is as the checker's replay of the reset's walk
 *                           leaves it; a direct pass whose scanners met
 *                           asks for one
 *
 * Under threads each is judged only where no other CPU can have moved
 * what it reads: PRIO's whole-zone rule when no reset ran since the pass
 * began, CACHED-PFN when no other pass and no reset ran on the zone
 * between the reset of the pfns and the check, the flush request and the
 * flush itself only in serial runs (docs/compaction.md, "Under threads").
 */
#include "internal.h"

#include <string.h>

/*
 * models compact_zone_order()'s control settings for a priority, and the
 * pairs the kernel builds (6.7): a direct pass migrates async exactly at
 * COMPACT_PRIO_ASYNC, else sync light, and a costly order (> 3) never runs
 * below MIN_COMPACT_COSTLY_PRIORITY (sync light); a sync pass is
 * compact_node()'s, whole zone at any order. Stated here, not asked of
 * compaction.c.
 */
void compact_check_priority(struct compact_control *cc, int prio)
{
	bool min_prio = prio == MM_COMPACT_PRIO_SYNC_FULL; /* MIN_COMPACT_PRIORITY */
	bool node_pass = min_prio && cc->mode == MM_MIGRATE_SYNC;
	int floor = cc->order > PAGE_ALLOC_COSTLY_ORDER ? MM_COMPACT_PRIO_SYNC_LIGHT
							: MM_COMPACT_PRIO_SYNC_FULL;
	int want_mode = prio == MM_COMPACT_PRIO_ASYNC ? MM_MIGRATE_ASYNC : MM_MIGRATE_SYNC_LIGHT;

	if (!node_pass && (prio < floor || cc->mode != want_mode))
		zone_report(cc->zone, "INV-COMPACT-PRIO", -1, floor, prio,
			    "direct compaction of order %d at priority %d with migrate mode %d: "
			    "the kernel builds priority >= %d, mode %d",
			    cc->order, prio, cc->mode, floor, want_mode);
	cc->prio_whole_zone = min_prio;
	if (cc->whole_zone == min_prio && cc->ignore_skip_hint == min_prio &&
	    cc->ignore_block_suitable == min_prio && cc->direct_compaction)
		return;
	zone_report(cc->zone, "INV-COMPACT-PRIO", -1, min_prio, cc->whole_zone,
		    "direct compaction at priority %d: whole_zone %d ignore_skip_hint %d "
		    "ignore_block_suitable %d, the rule gives %d for each",
		    prio, cc->whole_zone, cc->ignore_skip_hint, cc->ignore_block_suitable,
		    min_prio);
}

/*
 * At the pass's start: it is whole-zone when its priority asks, or when
 * the migration scanner starts at or below where the last reset found the
 * first usable block (compact_zone(): cc->migrate_pfn <=
 * compact_init_migrate_pfn). A priority's whole-zone pass starts at the
 * zone's first pfn and its last pageblock.
 */
void compact_check_prio_start(struct compact_control *cc)
{
	const struct zone *zone = cc->zone;
	uint64_t free_start =
		(zone_end_pfn(zone) - 1) & ~((UINT64_C(1) << zone->sim->pageblock_order) - 1);

	cc->whole_zone_rule =
		cc->prio_whole_zone || cc->migrate_pfn <= READ_ONCE(zone->compact_init_migrate_pfn);
	/* a reset since the pass began may have moved the first usable block */
	cc->rule_unjudged =
		!zone->sim->serial && atomic_load(&zone->compact_resets) != cc->resets_at_start;
	if (cc_state(cc)->in_shadow || cc->rule_unjudged)
		return;
	if (cc->whole_zone != cc->whole_zone_rule)
		zone_report(cc->zone, "INV-COMPACT-PRIO", (long long)cc->migrate_pfn,
			    cc->whole_zone_rule, cc->whole_zone,
			    "a pass starting at migrate pfn %llu (reset's first usable %llu, "
			    "priority whole-zone %d) has whole_zone %d",
			    (unsigned long long)cc->migrate_pfn,
			    (unsigned long long)READ_ONCE(zone->compact_init_migrate_pfn),
			    cc->prio_whole_zone, cc->whole_zone);
	if (!cc->prio_whole_zone)
		return;
	if (cc->whole_zone && cc->migrate_pfn == zone->zone_start_pfn && cc->free_pfn == free_start)
		return;
	zone_report(cc->zone, "INV-COMPACT-PRIO", (long long)cc->migrate_pfn,
		    (long long)zone->zone_start_pfn, (long long)cc->migrate_pfn,
		    "a MIN_COMPACT_PRIORITY pass starts at migrate pfn %llu, free pfn %llu "
		    "(whole_zone %d): not the whole zone",
		    (unsigned long long)cc->migrate_pfn, (unsigned long long)cc->free_pfn,
		    cc->whole_zone);
}

/* After the scanners met: reset_cached_positions() and the flush request. */
void compact_check_scanners_met(const struct compact_control *cc, unsigned int quiet)
{
	struct zone *zone = cc->zone;
	uint64_t start = zone->zone_start_pfn;
	uint64_t free_start =
		(zone_end_pfn(zone) - 1) & ~((UINT64_C(1) << zone->sim->pageblock_order) - 1);
	uint64_t m0 = READ_ONCE(zone->compact_cached_migrate_pfn[0]);
	uint64_t m1 = READ_ONCE(zone->compact_cached_migrate_pfn[1]);
	uint64_t f = READ_ONCE(zone->compact_cached_free_pfn);

	/* Under threads: only if no other pass or reset can have moved them since. */
	if ((m0 != start || m1 != start || f != free_start) && compact_quiet_end(zone, quiet))
		zone_report(cc->zone, "INV-COMPACT-CACHED-PFN", -1, (long long)start, (long long)m0,
			    "scanners met: cached migrate pfns %llu/%llu free pfn %llu, the reset "
			    "puts them at %llu and %llu",
			    (unsigned long long)m0, (unsigned long long)m1, (unsigned long long)f,
			    (unsigned long long)start, (unsigned long long)free_start);
	/* Under threads kswapd may consume the request at once, a success clear it. */
	if (zone->sim->serial && cc->direct_compaction && !zone->compact_blockskip_flush)
		zone_report(
			cc->zone, "INV-COMPACT-SKIP-FLUSH", -1, 1, 0,
			"a direct pass whose scanners met did not ask for the skip bits' flush");
}

/* __compact_finished(): scanners that met end a whole-zone pass COMPLETE, others PARTIAL_SKIPPED */
void compact_check_result(const struct compact_control *cc, int result)
{
	int want = cc->whole_zone_rule ? MM_COMPACT_COMPLETE : MM_COMPACT_PARTIAL_SKIPPED;

	if ((result != MM_COMPACT_COMPLETE && result != MM_COMPACT_PARTIAL_SKIPPED) ||
	    result == want || cc_state(cc)->in_shadow || cc->rule_unjudged)
		return;
	zone_report(cc->zone, "INV-COMPACT-PRIO", -1, want, result,
		    "a pass whose scanners met ended %s; whole-zone by the rule: %d",
		    mm_compact_result_name(result), cc->whole_zone_rule);
}

struct compact_defer_state zone_defer_state(const struct zone *zone)
{
	return (struct compact_defer_state){.considered = READ_ONCE(zone->compact_considered),
					    .shift = READ_ONCE(zone->compact_defer_shift),
					    .order_failed = READ_ONCE(zone->compact_order_failed)};
}

/*
 * The deferral rules (6.x) from the fields before the event: a failure
 * (defer_compaction()) zeroes considered, lowers order_failed to the order
 * and raises the shift by one up to COMPACT_MAX_DEFER_SHIFT; a question
 * (compaction_deferred()) at an order below order_failed is answered "not
 * deferred" and changes nothing, else considered + 1 below 1 << shift is
 * stored and answered "deferred", and otherwise 1 << shift is stored and
 * answered "not deferred"; a success (compaction_defer_reset()) zeroes
 * considered and the shift when the allocation succeeded, and raises
 * order_failed past the order. Returns the answer a question gets.
 */
static bool rule_defer(struct compact_defer_state *s, enum compact_defer_event ev, int order,
		       bool alloc_success)
{
	unsigned int considered;

	switch (ev) {
	case DEFER_EVENT_FAILED:
		s->considered = 0;
		if (order < s->order_failed)
			s->order_failed = order;
		if (s->shift < COMPACT_MAX_DEFER_SHIFT)
			s->shift++;
		return false;
	case DEFER_EVENT_ASKED:
		if (order < s->order_failed)
			return false;
		considered = s->considered + 1;
		if (considered < 1u << s->shift) {
			s->considered = considered;
			return true;
		}
		s->considered = 1u << s->shift;
		return false;
	case DEFER_EVENT_SUCCESS:
		if (alloc_success)
			s->considered = s->shift = 0;
		if (order >= s->order_failed)
			s->order_failed = order + 1;
		return false;
	}
	return false;
}

/*
 * After a deferral event, serial runs: the zone's fields and a question's
 * answer are what the rule gives from the fields before it (the bounds of
 * compact_check_defer() judge a start outside them).
 */
void compact_check_defer_rule(struct zone *zone, const struct compact_defer_state *before,
			      enum compact_defer_event ev, int order, bool arg)
{
	static const char *const what[] = {"defer_compaction()", "compaction_deferred()",
					   "compaction_defer_reset()"};
	struct compact_defer_state want = *before, got;
	bool answer;

	if (!zone->sim->serial || before->shift > COMPACT_MAX_DEFER_SHIFT)
		return;
	answer = rule_defer(&want, ev, order, arg);
	got = zone_defer_state(zone);
	if (ev == DEFER_EVENT_ASKED && answer != arg)
		zone_report(zone, "INV-COMPACT-DEFER", -1, answer, arg,
			    "%s at order %d answered %d from considered %u, shift %u, "
			    "order_failed %d; the rule answers %d",
			    what[ev], order, arg, before->considered, before->shift,
			    before->order_failed, answer);
	else if (got.considered != want.considered || got.shift != want.shift ||
		 got.order_failed != want.order_failed)
		zone_report(zone, "INV-COMPACT-DEFER", -1, want.considered, got.considered,
			    "%s at order %d left considered %u, shift %u, order_failed %d; "
			    "the rule gives %u, %u, %d",
			    what[ev], order, got.considered, got.shift, got.order_failed,
			    want.considered, want.shift, want.order_failed);
}

/* models compaction_restarting() with a pending flush: __reset_isolation_suitable() must run */
bool compact_flush_due(const struct zone *zone, int order)
{
	return READ_ONCE(zone->compact_blockskip_flush) &&
	       order >= READ_ONCE(zone->compact_order_failed) &&
	       READ_ONCE(zone->compact_defer_shift) == COMPACT_MAX_DEFER_SHIFT &&
	       READ_ONCE(zone->compact_considered) >= (1u << COMPACT_MAX_DEFER_SHIFT);
}

/*
 * Before a flush point: the pageblock flags the flush starts from, which
 * the checker's replay of __reset_isolation_suitable() reads (serial runs).
 */
void compact_check_flush_begin(struct mm_sim *sim)
{
	struct compact_state *cs = sim->compact;

	if (!sim->serial || !cs)
		return;
	memcpy(cs->flush_before, sim->pageblock_flags,
	       (size_t)(sim->max_pfn >> sim->pageblock_order) + 1);
	cs->flush_saved = true;
}

/* The rule's PageLRU in the model: an allocated order-0 movable page. */
static bool rule_page_lru(const struct page *page)
{
	return page->state == PG_ALLOC && page->order == 0 && page->alloc_mt == MIGRATE_MOVABLE;
}

/* pageblock_skip_persistent(): pfn lies in an allocation of a pageblock or more. */
static bool rule_skip_persistent(const struct mm_sim *sim, uint64_t pfn)
{
	for (unsigned int o = sim->pageblock_order; o <= sim->max_order; o++) {
		const struct page *head = &sim->mem_map[pfn & ~((UINT64_C(1) << o) - 1)];

		if (head->state == PG_ALLOC && head->order == o)
			return true;
	}
	return false;
}

/*
 * __reset_isolation_pfn(), the rule (6.x) on the checker's copy of the
 * flags (bits): a block of the zone, not persistent, counts as usable
 * without a look when both sides are searched and its bit is clear; the
 * free side alone takes MOVABLE blocks only; else a sample of every
 * 1 << PAGE_ALLOC_COSTLY_ORDER pages from the block's start (within the
 * zone) finds a source (LRU page) or a target (free page), and the bit
 * is cleared.
 */
static bool rule_reset_pfn(const struct zone *zone, uint8_t *bits, uint64_t pfn, bool source,
			   bool target)
{
	const struct mm_sim *sim = zone->sim;
	uint64_t nr = UINT64_C(1) << sim->pageblock_order;
	uint64_t start = pfn & ~(nr - 1), last = start + nr - 1;
	uint8_t *b = &bits[pfn >> sim->pageblock_order];

	if (pfn < zone->zone_start_pfn || pfn >= zone_end_pfn(zone) ||
	    rule_skip_persistent(sim, pfn))
		return false;
	if (source && target && !(*b & PB_SKIP))
		return true;
	if (!source && target && (*b & PB_MIGRATETYPE_MASK) != MIGRATE_MOVABLE)
		return false;
	if (start < zone->zone_start_pfn)
		start = zone->zone_start_pfn;
	if (last > zone_end_pfn(zone) - 1)
		last = zone_end_pfn(zone) - 1;
	for (uint64_t p = start; p <= last; p += UINT64_C(1) << PAGE_ALLOC_COSTLY_ORDER) {
		const struct page *page = &sim->mem_map[p];

		if ((source && rule_page_lru(page)) || (target && page->state == PG_BUDDY)) {
			*b &= (uint8_t)~PB_SKIP;
			return true;
		}
	}
	return false;
}

struct rule_reset {
	uint64_t migrate, free;		  /* the cached pfns the walk leaves */
	uint64_t init_migrate, init_free; /* COMPACT_NO_PFN: not set by the walk */
};

/*
 * __reset_isolation_suitable()'s walk, the rule: from both ends at once,
 * the migration side looking for sources (and targets once it found its
 * first usable block), the free side for targets (and sources likewise);
 * the first usable block from each end is where its scanner restarts,
 * and with none between them both are left where the walk stopped. The
 * walk stops at a pfn below one pageblock, as the model's does (a zone at
 * pfn 0 smaller than two pageblocks would wrap the kernel's free pfn).
 */
static struct rule_reset rule_reset_walk(const struct zone *zone, uint8_t *bits)
{
	uint64_t nr = UINT64_C(1) << zone->sim->pageblock_order;
	uint64_t m = zone->zone_start_pfn, f = zone_end_pfn(zone) - 1;
	uint64_t reset_m = f, reset_f = m;
	struct rule_reset r = {.init_migrate = COMPACT_NO_PFN, .init_free = COMPACT_NO_PFN};

	for (; m < f; m += nr, f -= nr) {
		if (rule_reset_pfn(zone, bits, m, true, r.init_migrate != COMPACT_NO_PFN) &&
		    m < reset_m)
			r.init_migrate = reset_m = m;
		if (rule_reset_pfn(zone, bits, f, r.init_free != COMPACT_NO_PFN, true) &&
		    f > reset_f)
			r.init_free = reset_f = f;
		if (f < nr)
			break;
	}
	r.migrate = reset_m < reset_f ? reset_m : m;
	r.free = reset_m < reset_f ? reset_f : f;
	return r;
}

static void report_flush(struct zone *zone, const char *id, long long pfn, long long want,
			 long long got, const char *what)
{
	zone_report(zone, id, pfn, want, got, "after the skip bits' flush: %s", what);
}

/*
 * After a flush point: the request is consumed, and the flush did what
 * __reset_isolation_suitable()'s rule does from the flags it started
 * from (compact_check_flush_begin()): every block's skip bit as the
 * rule's walk leaves it (a bit left set is a stale hint, seed 001; one
 * cleared that the rule keeps, a flush that samples wrong), and the
 * scanners' cached and first-usable pfns where the walk puts them
 * (INV-COMPACT-CACHED-PFN). A pageblock shared with a neighbouring zone
 * is not compared: kswapd's sleep flushes the neighbour too.
 */
MM_NO_COVERAGE void compact_check_flushed(struct zone *zone)
{
	struct mm_sim *sim = zone->sim;
	struct compact_state *cs = sim->compact;
	uint64_t nr = UINT64_C(1) << sim->pageblock_order;
	struct rule_reset r;

	if (!sim->serial || !zone->spanned_pages)
		return;
	if (zone->compact_blockskip_flush) {
		report_flush(zone, "INV-COMPACT-SKIP-FLUSH", -1, 0, 1,
			     "the flush was due and the request is still pending");
		return;
	}
	if (!cs || !cs->flush_saved)
		return;
	r = rule_reset_walk(zone, cs->flush_before);
	for (uint64_t b = (zone->zone_start_pfn + nr - 1) & ~(nr - 1); b + nr <= zone_end_pfn(zone);
	     b += nr) {
		bool want = cs->flush_before[b >> sim->pageblock_order] & PB_SKIP;
		bool got = get_pageblock_skip(sim, b);

		if (want != got) {
			report_flush(zone, "INV-COMPACT-SKIP-FLUSH", (long long)b, want, got,
				     want ? "the reset's rule keeps this block's skip bit"
					  : "the reset's rule clears this block's skip bit");
			return;
		}
	}
	if (READ_ONCE(zone->compact_cached_migrate_pfn[0]) != r.migrate ||
	    READ_ONCE(zone->compact_cached_migrate_pfn[1]) != r.migrate ||
	    READ_ONCE(zone->compact_cached_free_pfn) != r.free)
		report_flush(zone, "INV-COMPACT-CACHED-PFN", -1, (long long)r.migrate,
			     (long long)READ_ONCE(zone->compact_cached_migrate_pfn[0]),
			     "the cached migrate and free pfns are not where the reset's walk "
			     "leaves them");
	else if ((r.init_migrate != COMPACT_NO_PFN &&
		  READ_ONCE(zone->compact_init_migrate_pfn) != r.init_migrate) ||
		 (r.init_free != COMPACT_NO_PFN &&
		  READ_ONCE(zone->compact_init_free_pfn) != r.init_free))
		report_flush(zone, "INV-COMPACT-CACHED-PFN", -1, (long long)r.init_migrate,
			     (long long)READ_ONCE(zone->compact_init_migrate_pfn),
			     "the first usable blocks are not where the reset's walk found them");
}

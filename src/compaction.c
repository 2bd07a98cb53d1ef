/* SPDX-License-Identifier: MIT */
/*
 * compaction.c - memory compaction (seed 001), modelled on mm/compaction.c
 * (6.5+, with the May 2023 skip-bit series): the migration scanner walks up
 * from the zone start isolating movable pages, the free scanner walks down
 * from the zone end isolating free pages, migration moves each page (and
 * its stamp, and the handle that reaches it) to a free page, until the
 * scanners meet or a free block of the wanted order exists. The fast
 * searches (fast_find_migrateblock, fast_isolate_freepages) pick blocks
 * from the free lists instead; the pageblock skip bits (src/pageblock.c)
 * keep both from rescanning blocks. This file holds compact_zone() and its
 * callers: try_to_compact_pages() (direct compaction), mm_compact_zone()
 * and mm_kcompactd_step(), with deferral and suitability; the free scanner
 * is in compaction_free.c, the migration scanner and migration in
 * compaction_migrate.c. The priorities and migrate modes direct compaction
 * and the compact op run at, with the costly orders' floor, follow 6.7.
 *
 * Simplifications: only order-0 movable pages migrate (larger allocations
 * are skipped like THP); migrated-from pages go straight back to the buddy
 * (the kernel frees them to the pcp lists and flushes those when the
 * scanner leaves the cc->order block); no capture_control; no proactive
 * compaction. Under threads (a stress run) compaction migrates only the
 * blocks the run lends it (mm_set_migrate_src()); each thread has its own
 * compact_control lists, and the zone's cached pfns and deferral fields are
 * read and written once each, without a lock, as the kernel does.
 */
#include "internal.h"

#include <string.h>

bool compaction_possible(struct mm_sim *sim)
{
	if (!sim->compact)
		return false;
	return sim->serial || (sim->migrate_src.isolate && compact_state_current(sim));
}

/* ------------------------------------------------------------------------
 * Deferral: skip compaction of a zone after it failed, exponentially
 * ---------------------------------------------------------------------- */

/*
 * Each deferral function ends with the checker's comparison against the
 * kernel's rule applied to the fields it started from
 * (compaction_oracle.c).
 */
void defer_compaction(struct zone *zone, int order)
{
	struct compact_defer_state before = zone_defer_state(zone);
	unsigned int shift = READ_ONCE(zone->compact_defer_shift) + 1;

	WRITE_ONCE(zone->compact_considered, 0);
	if (order < READ_ONCE(zone->compact_order_failed))
		WRITE_ONCE(zone->compact_order_failed, order);
	WRITE_ONCE(zone->compact_defer_shift,
		   shift > COMPACT_MAX_DEFER_SHIFT ? COMPACT_MAX_DEFER_SHIFT : shift);
	compact_check_defer_rule(zone, &before, DEFER_EVENT_FAILED, order, false);
}

static bool __compaction_deferred(struct zone *zone, int order)
{
	unsigned int defer_limit = 1u << READ_ONCE(zone->compact_defer_shift);
	unsigned int considered = READ_ONCE(zone->compact_considered) + 1;

	if (order < READ_ONCE(zone->compact_order_failed))
		return false;
	if (considered >= defer_limit) {
		WRITE_ONCE(zone->compact_considered, defer_limit);
		return false;
	}
	WRITE_ONCE(zone->compact_considered, considered);
	return true;
}

/* models compaction_deferred(): true if compaction should be skipped this time */
bool compaction_deferred(struct zone *zone, int order)
{
	struct compact_defer_state before = zone_defer_state(zone);
	bool deferred = __compaction_deferred(zone, order);

	compact_check_defer_rule(zone, &before, DEFER_EVENT_ASKED, order, deferred);
	return deferred;
}

/* After a success at order (the allocation succeeded, or is expected to). */
void compaction_defer_reset(struct zone *zone, int order, bool alloc_success)
{
	struct compact_defer_state before = zone_defer_state(zone);

	if (alloc_success) {
		WRITE_ONCE(zone->compact_considered, 0);
		WRITE_ONCE(zone->compact_defer_shift, 0);
	}
	if (order >= READ_ONCE(zone->compact_order_failed))
		WRITE_ONCE(zone->compact_order_failed, order + 1);
	compact_check_defer_rule(zone, &before, DEFER_EVENT_SUCCESS, order, alloc_success);
}

/* Returns true if restarting compaction after many failures. */
bool compaction_restarting(struct zone *zone, int order)
{
	unsigned int shift = READ_ONCE(zone->compact_defer_shift);

	if (order < READ_ONCE(zone->compact_order_failed))
		return false;
	return shift == COMPACT_MAX_DEFER_SHIFT &&
	       READ_ONCE(zone->compact_considered) >= 1u << shift;
}

/* ------------------------------------------------------------------------
 * Suitability
 * ---------------------------------------------------------------------- */

/*
 * models fragmentation_index(): towards 0 a failure at order is for lack of
 * memory, towards 1000 for fragmentation; -1000 if a block is free already.
 */
static int fragmentation_index(const struct zone *zone, unsigned int order)
{
	unsigned long total = 0, suitable = 0, pages = 0;

	for (unsigned int o = 0; o <= zone->sim->max_order; o++) {
		/* no lock, as fill_contig_page_info() */
		unsigned long blocks = READ_ONCE(zone->free_area[o].nr_free);
		total += blocks;
		pages += blocks << o;
		if (o >= order)
			suitable += blocks << (o - order);
	}
	if (!total)
		return 0;
	if (suitable)
		return -1000;
	return (int)(1000 - (1000 + pages * 1000 / (1UL << order)) / total);
}

/*
 * models compaction_suitable(): enough order-0 pages above the mark (low
 * for costly orders, else min) plus compact_gap (2 << order) to migrate
 * into, and for costly orders a failure due to fragmentation
 * (fragmentation index outside [0, extfrag_threshold = 500]).
 */
bool compaction_suitable(struct zone *zone, int order, int highest_zoneidx)
{
	unsigned long mark = order > PAGE_ALLOC_COSTLY_ORDER ? wmark_pages(zone, WMARK_LOW)
							     : wmark_pages(zone, WMARK_MIN);

	mark += 2UL << order;
	if (!__zone_watermark_ok(zone, 0, mark, highest_zoneidx, ALLOC_CMA,
				 zone_page_state(zone, NR_FREE_PAGES)))
		return false;
	if (order > PAGE_ALLOC_COSTLY_ORDER) {
		int fragindex = fragmentation_index(zone, (unsigned int)order);
		if (fragindex >= 0 && fragindex <= 500)
			return false;
	}
	return true;
}

/* models compact_scanners_met() */
static bool compact_scanners_met(const struct compact_control *cc)
{
	unsigned int pb = cc->zone->sim->pageblock_order;

	return (cc->free_pfn >> pb) <= (cc->migrate_pfn >> pb);
}

/* ------------------------------------------------------------------------
 * compact_zone() and its callers
 * ---------------------------------------------------------------------- */

/* models __compact_finished() without proactive compaction */
static int __compact_finished(struct compact_control *cc)
{
	struct zone *zone = cc->zone;

	if (compact_scanners_met(cc)) {
		unsigned int quiet = compact_quiet_begin(zone); /* the checker's */
		reset_cached_positions(zone);
		/* kswapd clears the skip bits when it sleeps: only a direct request asks. */
		if (cc->direct_compaction && !zone->sim->policy.compact_no_flush_request)
			WRITE_ONCE(zone->compact_blockskip_flush, true);
		compact_check_scanners_met(cc, quiet);
		if (cc->whole_zone || zone->sim->policy.compact_partial_as_complete)
			return MM_COMPACT_COMPLETE;
		return MM_COMPACT_PARTIAL_SKIPPED;
	}
	/* Always finish a pageblock: fewer fallbacks later. */
	if (!pageblock_aligned(zone->sim, cc->migrate_pfn))
		return MM_COMPACT_CONTINUE;
	/*
	 * The kernel looks at the lists without zone->lock (list_empty()); the
	 * model's list heads are plain fields, so under threads it takes the lock.
	 */
	bool locked = !zone->sim->serial, found = false;
	if (locked)
		zone_lock(zone);
	for (unsigned int order = (unsigned int)cc->order; order <= zone->sim->max_order && !found;
	     order++) {
		bool can_steal;
		found = !free_area_empty(&zone->free_area[order], cc->migratetype) ||
			find_suitable_fallback(zone, order, cc->migratetype, true, &can_steal) !=
				-1;
	}
	if (locked)
		zone_unlock(zone);
	if (found)
		return MM_COMPACT_SUCCESS;
	return cc->contended ? MM_COMPACT_CONTENDED : MM_COMPACT_CONTINUE;
}

/* Sets up the scanners from the cached pfns (or the whole zone). */
static void compact_zone_start(struct compact_control *cc)
{
	struct zone *zone = cc->zone;
	uint64_t start_pfn = zone->zone_start_pfn, end_pfn = zone_end_pfn(zone);
	int sync = cc->mode != MM_MIGRATE_ASYNC;

	cc->fast_start_pfn = 0;
	if (cc->whole_zone) {
		cc->migrate_pfn = start_pfn;
		cc->free_pfn = pageblock_start_pfn(zone->sim, end_pfn - 1);
		return;
	}
	cc->migrate_pfn = READ_ONCE(zone->compact_cached_migrate_pfn[sync]);
	cc->free_pfn = READ_ONCE(zone->compact_cached_free_pfn);
	if (cc->free_pfn < start_pfn || cc->free_pfn >= end_pfn) {
		cc->free_pfn = pageblock_start_pfn(zone->sim, end_pfn - 1);
		WRITE_ONCE(zone->compact_cached_free_pfn, cc->free_pfn);
	}
	if (cc->migrate_pfn < start_pfn || cc->migrate_pfn >= end_pfn) {
		cc->migrate_pfn = start_pfn;
		WRITE_ONCE(zone->compact_cached_migrate_pfn[0], cc->migrate_pfn);
		WRITE_ONCE(zone->compact_cached_migrate_pfn[1], cc->migrate_pfn);
	}
	if (cc->migrate_pfn <= READ_ONCE(zone->compact_init_migrate_pfn))
		cc->whole_zone = true;
}

/*
 * One migration round of compact_zone(): isolate sources, migrate them.
 * Returns MM_COMPACT_CONTINUE or the pass's result.
 */
static int compact_zone_round(struct compact_control *cc, uint64_t *last_migrated_pfn,
			      bool *update_cached)
{
	struct zone *zone = cc->zone;
	struct mm_sim *sim = zone->sim;
	uint64_t iteration_start_pfn = cc->migrate_pfn;
	long err;

	/* A block migrated from last round is finished (and then marked). */
	cc->finish_pageblock = !sim->policy.compact_no_finish_pageblock &&
			       pageblock_start_pfn(sim, *last_migrated_pfn) ==
				       pageblock_start_pfn(sim, iteration_start_pfn);
rescan:
	switch (isolate_migratepages(cc)) {
	case ISOLATE_ABORT:
		putback_movable_pages(cc);
		return MM_COMPACT_CONTENDED;
	case ISOLATE_NONE:
		if (*update_cached)
			WRITE_ONCE(zone->compact_cached_migrate_pfn[1],
				   READ_ONCE(zone->compact_cached_migrate_pfn[0]));
		return MM_COMPACT_CONTINUE;
	case ISOLATE_SUCCESS:
		*update_cached = false;
		*last_migrated_pfn = pageblock_start_pfn(sim, cc->migrate_pfn - 1);
		if (*last_migrated_pfn < zone->zone_start_pfn)
			*last_migrated_pfn = zone->zone_start_pfn;
		break;
	}
	err = migrate_pages(cc);
	cc->nr_migratepages = 0;
	if (sim->serial)
		_mm_buddy_check_counts(zone); /* isolated targets in conservation */
	if (err) {
		if (err == -12 && !compact_scanners_met(cc))
			return MM_COMPACT_CONTENDED;
		/*
		 * A failure in a partially scanned block: finish the block so
		 * that it is marked, or fast_find_migrateblock() picks it again.
		 */
		if (!pageblock_aligned(sim, cc->migrate_pfn) && !cc->ignore_skip_hint &&
		    !cc->finish_pageblock && cc->mode < MM_MIGRATE_SYNC &&
		    !sim->policy.compact_no_finish_pageblock) {
			cc->finish_pageblock = true;
			goto rescan;
		}
	}
	return MM_COMPACT_CONTINUE;
}

/*
 * compact_zone()'s check_drain: once the migrate scanner has left the
 * cc->order aligned block it last migrated from, this CPU's pcp pages of
 * the zone go back to the buddy (lru_add_drain_cpu_zone()), where they can
 * merge for compact_finished() to see; then no more drains until the next
 * migration.
 */
static void check_drain(struct compact_control *cc, uint64_t *last_migrated_pfn)
{
	int cpu = smp_processor_id();

	if (cc->order <= 0 || !*last_migrated_pfn)
		return;
	if (*last_migrated_pfn >= (cc->migrate_pfn & ~((UINT64_C(1) << cc->order) - 1)))
		return;
	if (cpu >= 0 && (unsigned int)cpu < cc->zone->sim->nr_cpus)
		drain_pages_zone((unsigned int)cpu, cc->zone);
	*last_migrated_pfn = 0;
}

/* models compact_zone() */
static int __compact_zone(struct compact_control *cc)
{
	struct zone *zone = cc->zone;
	struct mm_sim *sim = zone->sim;
	struct compact_state *cs = cc->cs;
	uint64_t last_migrated_pfn = 0;
	bool update_cached;
	int ret;

	cc->total_migrate_scanned = cc->total_free_scanned = 0;
	cc->nr_migratepages = cc->nr_freepages = 0;
	cc->freepages = cs->freepages;
	cc->migratepages = cs->migratepages;
	cc->fast_found_pfn = COMPACT_NO_PFN;
	if (zone_watermark_ok(zone, (unsigned int)cc->order,
			      wmark_pages(zone, cc->alloc_flags & ALLOC_WMARK_MASK),
			      cc->highest_zoneidx, cc->alloc_flags))
		return MM_COMPACT_SUCCESS;
	if (!compaction_suitable(zone, cc->order, cc->highest_zoneidx))
		return MM_COMPACT_SKIPPED;
	/* Failures recently, and about to retry after deferring: clear the bits. */
	bool flush_due = compact_flush_due(zone, cc->order); /* the checker's */
	if (flush_due)
		compact_check_flush_begin(sim);
	if (compaction_restarting(zone, cc->order))
		__reset_isolation_suitable(zone);
	if (flush_due)
		compact_check_flushed(zone);
	/* the checker's, under threads: resets from here on may let the pass re-enter blocks */
	if (!sim->serial)
		cc->resets_at_start = atomic_load(&zone->compact_resets);
	compact_zone_start(cc);
	update_cached = cc->mode == MM_MIGRATE_ASYNC &&
			READ_ONCE(zone->compact_cached_migrate_pfn[0]) ==
				READ_ONCE(zone->compact_cached_migrate_pfn[1]);
	compact_check_pass_begin(cc);
	while ((ret = __compact_finished(cc)) == MM_COMPACT_CONTINUE) {
		ret = compact_zone_round(cc, &last_migrated_pfn, &update_cached);
		if (ret != MM_COMPACT_CONTINUE)
			break;
		check_drain(cc, &last_migrated_pfn);
		if (!compact_check_round(cc)) {
			ret = MM_COMPACT_CONTENDED;
			break;
		}
	}
	if (ret == MM_COMPACT_NO_SUITABLE_PAGE)
		ret = MM_COMPACT_CONTINUE;
	compact_check_sources(cc, "at the pass's end", false);
	cc->nr_migratepages = 0;
	if (cc->nr_freepages) {
		/* The cached free pfn only goes back, to the first block of a returned page. */
		uint64_t free_pfn = pageblock_start_pfn(sim, release_freepages(cc));
		if (free_pfn > READ_ONCE(zone->compact_cached_free_pfn))
			WRITE_ONCE(zone->compact_cached_free_pfn, free_pfn);
	}
	cs->stats.compact_migrate_scanned += cc->total_migrate_scanned;
	cs->stats.compact_free_scanned += cc->total_free_scanned;
	compact_check_result(cc, ret);
	return ret;
}

/*
 * A pass with its thread's lists. Under threads the checker counts the
 * passes in flight on the zone, and the resets, to know which checks it
 * can judge (compaction_check.c).
 */
int compact_zone(struct compact_control *cc)
{
	struct zone *zone = cc->zone;
	int ret;

	cc->cs = compact_state_current(zone->sim);
	if (zone->sim->serial)
		return __compact_zone(cc);
	atomic_fetch_add(&zone->compact_pass_starts, 1);
	atomic_fetch_add(&zone->compact_in_flight, 1);
	ret = __compact_zone(cc);
	atomic_fetch_sub(&zone->compact_in_flight, 1);
	return ret;
}

/* models compact_zone_order(), with the mode given apart from the priority */
static int compact_zone_order(struct zone *zone, int order, int prio, int mode, int migratetype,
			      unsigned int alloc_flags, int highest_zoneidx)
{
	struct compact_control cc = {
		.zone = zone,
		.order = order,
		.search_order = order,
		.migratetype = migratetype,
		.mode = mode,
		.alloc_flags = alloc_flags,
		.highest_zoneidx = highest_zoneidx,
		.direct_compaction = true,
		.whole_zone = prio == MM_COMPACT_PRIO_SYNC_FULL,
		.ignore_skip_hint = prio == MM_COMPACT_PRIO_SYNC_FULL,
		.ignore_block_suitable = prio == MM_COMPACT_PRIO_SYNC_FULL,
	};
	compact_check_priority(&cc, prio);
	struct compact_control cc0 = cc;
	bool check = compact_skip_hint_wanted(&cc);
	int ret;

	if (check)
		compact_skip_hint_before(&cc);
	ret = compact_zone(&cc);
	if (check)
		compact_skip_hint_after(&cc0, ret, cc.free_side_marked);
	return ret;
}

static int try_to_compact_zones(struct mm_sim *sim, unsigned int order, unsigned int alloc_flags,
				struct zone **zonelist, int highest_zoneidx, int migratetype,
				int prio, int mode)
{
	int rc = MM_COMPACT_SKIPPED;

	if (!compaction_possible(sim))
		return MM_COMPACT_SKIPPED;
	for (struct zone **zp = zonelist; *zp; zp++) {
		struct zone *zone = *zp;
		int status;

		if ((int)zone->type > highest_zoneidx)
			continue;
		if (prio > MM_COMPACT_PRIO_SYNC_FULL && compaction_deferred(zone, (int)order)) {
			rc = rc > MM_COMPACT_DEFERRED ? rc : MM_COMPACT_DEFERRED;
			compact_check_defer(zone);
			continue;
		}
		status = compact_zone_order(zone, (int)order, prio, mode, migratetype, alloc_flags,
					    highest_zoneidx);
		rc = status > rc ? status : rc;
		if (status == MM_COMPACT_SUCCESS) {
			/* Expected to succeed: the caller confirms with alloc_success. */
			compaction_defer_reset(zone, (int)order, false);
			compact_check_defer(zone);
			break;
		}
		if (prio != MM_COMPACT_PRIO_ASYNC &&
		    (status == MM_COMPACT_COMPLETE || status == MM_COMPACT_PARTIAL_SKIPPED))
			defer_compaction(zone, (int)order);
		compact_check_defer(zone);
	}
	return rc;
}

/* models try_to_compact_pages(): direct compaction of each zone of the zonelist */
int try_to_compact_pages(struct mm_sim *sim, unsigned int order, unsigned int alloc_flags,
			 struct zone **zonelist, int highest_zoneidx, int migratetype, int prio)
{
	return try_to_compact_zones(
		sim, order, alloc_flags, zonelist, highest_zoneidx, migratetype, prio,
		prio == MM_COMPACT_PRIO_ASYNC ? MM_MIGRATE_ASYNC : MM_MIGRATE_SYNC_LIGHT);
}

/*
 * models should_compact_retry()'s floor (6.7): the slow path escalates a
 * costly order (> PAGE_ALLOC_COSTLY_ORDER) no further than
 * MIN_COMPACT_COSTLY_PRIORITY (sync light); the rest go to
 * MIN_COMPACT_PRIORITY (sync full, whole zone).
 */
int compact_min_priority(unsigned int order)
{
	return order > PAGE_ALLOC_COSTLY_ORDER ? MM_COMPACT_PRIO_SYNC_LIGHT
					       : MM_COMPACT_PRIO_SYNC_FULL;
}

/*
 * The compact op's (priority, mode) as the kernel builds them: direct
 * compaction (compact_zone_order()) migrates async at the async priority
 * and sync light at the others, never beyond the costly floor; a sync pass
 * is compact_node()'s (the compact_memory sysctl), whole zone at any
 * order, here the sync full priority. Any other pair maps to the nearest
 * of these, so every op still runs.
 */
static void compact_kernel_pair(unsigned int order, int *prio, int *mode)
{
	if (*prio == MM_COMPACT_PRIO_SYNC_FULL && *mode == MM_MIGRATE_SYNC)
		return;
	if (*prio < compact_min_priority(order))
		*prio = compact_min_priority(order);
	*mode = *prio == MM_COMPACT_PRIO_ASYNC ? MM_MIGRATE_ASYNC : MM_MIGRATE_SYNC_LIGHT;
}

int mm_compact_zone(struct mm_sim *sim, int node, enum zone_type zt, unsigned int order, int prio,
		    int mode, int migratetype)
{
	struct zone *zonelist[] = {NULL, NULL}; /* one zone, then the end */

	if (node < 0 || (unsigned int)node >= sim->nr_nodes || (unsigned int)zt >= MAX_NR_ZONES ||
	    order > sim->max_order)
		return -1;
	zonelist[0] = &sim->node_data[node]->node_zones[zt];
	if (!managed_zone(zonelist[0]))
		return -1;
	compact_kernel_pair(order, &prio, &mode);
	return try_to_compact_zones(sim, order, ALLOC_WMARK_MIN, zonelist, (int)zt, migratetype,
				    prio, mode);
}

/* models kcompactd_do_work(): background compaction of every zone of a node */
int mm_kcompactd_step(struct mm_sim *sim, int node, unsigned int order)
{
	struct mm_compact_stats *st;

	if (!compaction_possible(sim) || node < 0 || (unsigned int)node >= sim->nr_nodes ||
	    order > sim->max_order)
		return 1;
	st = compact_stats(sim);
	st->compact_daemon_wake++;
	for (int zt = 0; zt < MAX_NR_ZONES; zt++) {
		struct zone *zone = &sim->node_data[node]->node_zones[zt];
		struct compact_control cc = {
			.zone = zone,
			.order = (int)order,
			.search_order = (int)order,
			.migratetype = MIGRATE_UNMOVABLE, /* GFP_KERNEL */
			.mode = MM_MIGRATE_SYNC_LIGHT,
			.alloc_flags = ALLOC_WMARK_MIN,
			.highest_zoneidx = zt,
		};
		int status;

		if (!managed_zone(zone) || compaction_deferred(zone, (int)order))
			continue;
		if (zone_watermark_ok(zone, order, wmark_pages(zone, WMARK_MIN), zt, 0) ||
		    !compaction_suitable(zone, (int)order, zt))
			continue;
		status = compact_zone(&cc);
		if (status == MM_COMPACT_SUCCESS) {
			compaction_defer_reset(zone, (int)order, false);
		} else if (status == MM_COMPACT_PARTIAL_SKIPPED || status == MM_COMPACT_COMPLETE) {
			/* Free pages stranded on the pcp lists could merge: drain them. */
			mm_drain_all_pages(sim);
			defer_compaction(zone, (int)order);
		}
		compact_check_defer(zone);
		st->compact_daemon_migrate_scanned += cc.total_migrate_scanned;
		st->compact_daemon_free_scanned += cc.total_free_scanned;
	}
	return 0;
}

/* The outcome of one direct compaction attempt of the allocator's slow path. */
void compaction_direct_outcome(struct mm_sim *sim, struct zone *zone, unsigned int order)
{
	struct mm_compact_stats *st = compact_stats(sim);

	st->compact_stall++;
	if (!zone) {
		st->compact_fail++;
		return;
	}
	WRITE_ONCE(zone->compact_blockskip_flush, false);
	compaction_defer_reset(zone, (int)order, true);
	st->compact_success++;
}

const char *mm_compact_result_name(int result)
{
	static const char *const names[] = {
		"not_suitable_zone", "skipped",		"deferred",  "no_suitable_page", "continue",
		"complete",	     "partial_skipped", "contended", "success",
	};

	return result >= 0 && result <= MM_COMPACT_SUCCESS ? names[result] : "?";
}

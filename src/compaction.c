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
 * keep both from rescanning blocks. Entry points: compact_zone(),
 * try_to_compact_pages() (direct compaction) and mm_kcompactd_step().
 *
 * Simplifications: only order-0 movable pages migrate (larger allocations
 * are skipped like THP); migrated-from pages go straight back to the buddy
 * (the kernel frees them to the pcp lists and flushes those when the
 * scanner leaves the cc->order block); no capture_control; no proactive
 * compaction; compaction needs a serial run (the executor), so under real
 * threads the compaction ops are skipped.
 */
#include "internal.h"

#include <string.h>

typedef enum {
	ISOLATE_ABORT,	 /* abort compaction now */
	ISOLATE_NONE,	 /* no pages isolated, continue scanning */
	ISOLATE_SUCCESS, /* pages isolated, migrate */
} isolate_migrate_t;

#define NO_PFN UINT64_MAX

bool compaction_possible(const struct mm_sim *sim)
{
	return sim->serial && sim->compact;
}

/* ------------------------------------------------------------------------
 * Deferral: skip compaction of a zone after it failed, exponentially
 * ---------------------------------------------------------------------- */

void defer_compaction(struct zone *zone, int order)
{
	zone->compact_considered = 0;
	zone->compact_defer_shift++;
	if (order < zone->compact_order_failed)
		zone->compact_order_failed = order;
	if (zone->compact_defer_shift > COMPACT_MAX_DEFER_SHIFT)
		zone->compact_defer_shift = COMPACT_MAX_DEFER_SHIFT;
}

/* Returns true if compaction should be skipped this time. */
bool compaction_deferred(struct zone *zone, int order)
{
	unsigned int defer_limit = 1u << zone->compact_defer_shift;

	if (order < zone->compact_order_failed)
		return false;
	if (++zone->compact_considered >= defer_limit) {
		zone->compact_considered = defer_limit;
		return false;
	}
	return true;
}

/* After a success at order (the allocation succeeded, or is expected to). */
void compaction_defer_reset(struct zone *zone, int order, bool alloc_success)
{
	if (alloc_success) {
		zone->compact_considered = 0;
		zone->compact_defer_shift = 0;
	}
	if (order >= zone->compact_order_failed)
		zone->compact_order_failed = order + 1;
}

/* Returns true if restarting compaction after many failures. */
bool compaction_restarting(struct zone *zone, int order)
{
	if (order < zone->compact_order_failed)
		return false;
	return zone->compact_defer_shift == COMPACT_MAX_DEFER_SHIFT &&
	       zone->compact_considered >= 1u << zone->compact_defer_shift;
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
		unsigned long blocks = zone->free_area[o].nr_free;
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

/* ------------------------------------------------------------------------
 * The free scanner: isolating migration targets
 * ---------------------------------------------------------------------- */

/* Makes an isolated free block compaction's own order-0 pages (split_map_pages). */
static void take_free_pages(struct compact_control *cc, uint64_t pfn, unsigned long nr)
{
	struct mm_sim *sim = cc->zone->sim;

	for (unsigned long i = 0; i < nr; i++) {
		struct page *page = pfn_to_page(sim, pfn + i);
		page->order = 0;
		page->alloc_mt = MIGRATE_MOVABLE;
		page->spare = 0;
		page->stamp.owner = OWNER_ISOLATED_FREE;
		page->stamp.gen = 0;
		WRITE_ONCE(page->state, PG_ALLOC);
		cc->freepages[cc->nr_freepages++] = (uint32_t)(pfn + i);
	}
	cc->zone->nr_isolated_free += (long)nr;
	compact_stats(sim)->compact_isolated += nr;
}

/* Isolates the free block at pfn, taking zone->lock unless locked; returns the pages taken. */
static unsigned long isolate_free_block(struct compact_control *cc, uint64_t pfn,
					unsigned int order, bool locked)
{
	unsigned long nr;

	if (!locked)
		zone_lock(cc->zone);
	nr = __isolate_free_page(cc->zone, pfn, order);
	if (!locked)
		zone_unlock(cc->zone);
	if (nr)
		take_free_pages(cc, pfn, nr);
	return nr;
}

/*
 * models isolate_freepages_block() (not strict): takes the free blocks of
 * [*start_pfn, end_pfn) every stride pfns until there are targets for
 * every isolated source. *start_pfn returns where it stopped.
 */
static unsigned long isolate_freepages_block(struct compact_control *cc, uint64_t *start_pfn,
					     uint64_t end_pfn, unsigned int stride)
{
	struct mm_sim *sim = cc->zone->sim;
	unsigned long nr_scanned = 0, total_isolated = 0;
	uint64_t blockpfn = *start_pfn;

	for (; blockpfn < end_pfn; blockpfn += stride) {
		const struct page *page = pfn_to_page(sim, blockpfn);
		unsigned long isolated;

		nr_scanned++;
		if (page->state == PG_ALLOC && page->order) {
			/* A compound page: skip it whole. */
			blockpfn += (UINT64_C(1) << page->order) - 1;
			nr_scanned += (1UL << page->order) - 1;
			continue;
		}
		if (page->state != PG_BUDDY)
			continue;
		isolated = isolate_free_block(cc, blockpfn, page->order, false);
		if (!isolated)
			break;
		nr_scanned += isolated - 1;
		total_isolated += isolated;
		if (cc->nr_migratepages <= cc->nr_freepages) {
			blockpfn += isolated;
			break;
		}
		blockpfn += isolated - 1;
	}
	if (blockpfn > end_pfn)
		blockpfn = end_pfn;
	*start_pfn = blockpfn;
	cc->total_free_scanned += nr_scanned;
	return total_isolated;
}

/* models suitable_migration_target(): a MOVABLE block without a pageblock-sized free page */
static bool suitable_migration_target(const struct compact_control *cc, uint64_t pfn)
{
	const struct mm_sim *sim = cc->zone->sim;
	const struct page *page = &sim->mem_map[pfn];

	if (page->state == PG_BUDDY && page->order >= sim->pageblock_order)
		return false;
	if (cc->ignore_block_suitable)
		return true;
	return get_pfnblock_migratetype(sim, pfn) == MIGRATE_MOVABLE;
}

/* models freelist_scan_limit() */
static unsigned int freelist_scan_limit(const struct compact_control *cc)
{
	unsigned int shift = cc->fast_search_fail < 31 ? cc->fast_search_fail : 31;

	return (COMPACT_CLUSTER_MAX >> shift) + 1;
}

/* models compact_scanners_met() */
static bool compact_scanners_met(const struct compact_control *cc)
{
	unsigned int pb = cc->zone->sim->pageblock_order;

	return (cc->free_pfn >> pb) <= (cc->migrate_pfn >> pb);
}

/* models fast_isolate_around(): the rest of the block a fast-found target sits in */
static void fast_isolate_around(struct compact_control *cc, uint64_t pfn)
{
	struct zone *zone = cc->zone;
	uint64_t start, end;

	if (cc->nr_freepages >= cc->nr_migratepages)
		return;
	if (cc->direct_compaction && cc->mode == MM_MIGRATE_ASYNC)
		return;
	start = pageblock_start_pfn(zone->sim, pfn);
	if (start < zone->zone_start_pfn)
		start = zone->zone_start_pfn;
	end = pageblock_end_pfn(zone->sim, pfn);
	if (end > zone_end_pfn(zone))
		end = zone_end_pfn(zone);
	isolate_freepages_block(cc, &start, end, 1);
	/* Full or nearly full: skip it in the future. */
	if (start == end && !cc->no_set_skip_hint)
		set_pageblock_skip(zone->sim, pfn);
}

/* models next_search_order(): orders round-robin below cc->order */
static int next_search_order(struct compact_control *cc, int order)
{
	order--;
	if (order < 0)
		order = cc->order - 1;
	if (order == cc->search_order) {
		cc->search_order--;
		if (cc->search_order < 0)
			cc->search_order = cc->order - 1;
		return -1;
	}
	return order;
}

/*
 * One order of fast_isolate_freepages(): walks the MOVABLE list from its
 * tail for a page in the top quarter of the scan space (else the highest in
 * the top half). Returns the page taken or NO_PFN.
 */
static uint64_t fast_isolate_order(struct compact_control *cc, int order, uint64_t low_pfn,
				   uint64_t min_pfn, unsigned int *limit, uint64_t *highest,
				   unsigned long *nr_scanned)
{
	struct zone *zone = cc->zone;
	struct mm_sim *sim = zone->sim;
	struct free_area *area = &zone->free_area[order];
	unsigned int order_scanned = 0;
	uint64_t page = NO_PFN, high_pfn = 0;
	uint32_t freepage = PFN_NIL;

	for (uint32_t p = area->tail[MIGRATE_MOVABLE]; p != PFN_NIL;
	     p = pfn_to_page(sim, p)->lru.prev) {
		order_scanned++;
		(*nr_scanned)++;
		freepage = p;
		if (p >= *highest) {
			uint64_t b = pageblock_start_pfn(sim, p);
			*highest = b > zone->zone_start_pfn ? b : zone->zone_start_pfn;
		}
		if (p >= low_pfn) {
			cc->fast_search_fail = 0;
			cc->search_order = order;
			page = p;
			break;
		}
		if (p >= min_pfn && p > high_pfn) {
			high_pfn = p;
			*limit >>= 1; /* a candidate: shorten the scan */
		}
		if (order_scanned >= *limit)
			break;
	}
	if (page == NO_PFN && high_pfn) {
		page = high_pfn;
		freepage = (uint32_t)high_pfn;
	}
	/* Reorder so that a future search skips recent pages (move_freelist_head). */
	if (freepage != PFN_NIL)
		pfn_list_rotate_to(sim, &area->head[MIGRATE_MOVABLE], &area->tail[MIGRATE_MOVABLE],
				   freepage);
	if (page != NO_PFN) {
		unsigned long nr = isolate_free_block(cc, page, (unsigned int)order, true);
		if (!nr)
			return NO_PFN;
		*nr_scanned += nr - 1;
	}
	if (order_scanned >= *limit)
		*limit = *limit >> 1 ? *limit >> 1 : 1;
	return page;
}

/* models fast_isolate_freepages(): a short search of the free lists for a target */
static void fast_isolate_freepages(struct compact_control *cc)
{
	struct zone *zone = cc->zone;
	struct mm_sim *sim = zone->sim;
	unsigned int limit = freelist_scan_limit(cc) >> 1 ? freelist_scan_limit(cc) >> 1 : 1;
	unsigned long nr_scanned = 0;
	uint64_t low_pfn, min_pfn, distance, highest = 0, page = NO_PFN;
	bool scan_start = false;

	if (cc->order <= 0)
		return;
	/* Starting the scan: search deeper, and take the highest pfn if nothing suits. */
	if (cc->free_pfn >= zone->compact_init_free_pfn) {
		limit = 1u << (sim->pageblock_order - 1);
		scan_start = true;
	}
	distance = cc->free_pfn - cc->migrate_pfn;
	low_pfn = pageblock_start_pfn(sim, cc->free_pfn - (distance >> 2));
	min_pfn = pageblock_start_pfn(sim, cc->free_pfn - (distance >> 1));
	if (min_pfn > low_pfn)
		low_pfn = min_pfn;
	if (cc->order - 1 < cc->search_order)
		cc->search_order = cc->order - 1;
	for (int order = cc->search_order; page == NO_PFN && order >= 0;
	     order = next_search_order(cc, order)) {
		if (!zone->free_area[order].nr_free)
			continue;
		zone_lock(zone);
		page = fast_isolate_order(cc, order, low_pfn, min_pfn, &limit, &highest,
					  &nr_scanned);
		zone_unlock(zone);
		if (cc->nr_freepages >= cc->nr_migratepages)
			break;
	}
	if (page == NO_PFN) {
		cc->fast_search_fail++;
		if (scan_start) {
			/* The highest pfn found above min, else (direct) the min mark. */
			if (highest >= min_pfn) {
				page = highest;
				cc->free_pfn = highest;
			} else if (cc->direct_compaction && zone_spans_pfn(zone, min_pfn)) {
				page = min_pfn;
				cc->free_pfn = min_pfn;
			}
		}
	}
	if (highest && highest >= zone->compact_cached_free_pfn) {
		highest -= UINT64_C(1) << sim->pageblock_order;
		zone->compact_cached_free_pfn = highest;
	}
	cc->total_free_scanned += nr_scanned;
	if (page != NO_PFN)
		fast_isolate_around(cc, page);
}

/* models isolate_freepages(): the free scanner, down from cc->free_pfn */
static void isolate_freepages(struct compact_control *cc)
{
	struct zone *zone = cc->zone;
	struct mm_sim *sim = zone->sim;
	uint64_t nr = UINT64_C(1) << sim->pageblock_order;
	uint64_t isolate_start_pfn, block_start_pfn, block_end_pfn, low_pfn;
	unsigned int stride;

	fast_isolate_freepages(cc);
	if (cc->nr_freepages)
		return;
	isolate_start_pfn = cc->free_pfn;
	block_start_pfn = pageblock_start_pfn(sim, isolate_start_pfn);
	block_end_pfn = block_start_pfn + nr < zone_end_pfn(zone) ? block_start_pfn + nr
								  : zone_end_pfn(zone);
	low_pfn = pageblock_end_pfn(sim, cc->migrate_pfn);
	stride = cc->mode == MM_MIGRATE_ASYNC ? COMPACT_CLUSTER_MAX : 1;

	for (; block_start_pfn >= low_pfn; block_end_pfn = block_start_pfn, block_start_pfn -= nr,
					   isolate_start_pfn = block_start_pfn) {
		unsigned long nr_isolated;

		/* pageblock_pfn_to_page(): the block must lie in the zone */
		if (block_start_pfn < zone->zone_start_pfn)
			break;
		if (!suitable_migration_target(cc, block_start_pfn) ||
		    !isolation_suitable(cc, block_start_pfn))
			continue;
		compact_check_free_visit(cc, block_start_pfn);
		nr_isolated =
			isolate_freepages_block(cc, &isolate_start_pfn, block_end_pfn, stride);
		/* The whole block scanned: skip it next time. */
		if (isolate_start_pfn == block_end_pfn)
			update_pageblock_skip(cc, block_start_pfn, block_start_pfn - nr);
		if (cc->nr_freepages >= cc->nr_migratepages) {
			/* Restart at the previous block if this one has more to give. */
			if (isolate_start_pfn >= block_end_pfn)
				isolate_start_pfn = block_start_pfn - nr;
			break;
		} else if (isolate_start_pfn < block_end_pfn) {
			break; /* isolation failed early */
		}
		if (nr_isolated) {
			stride = 1;
			continue;
		}
		stride = stride << 1 < COMPACT_CLUSTER_MAX ? stride << 1 : COMPACT_CLUSTER_MAX;
		if (block_start_pfn < nr)
			break; /* would wrap below pfn 0 */
	}
	cc->free_pfn = isolate_start_pfn;
}

/* models compaction_alloc(): a target page, isolating more when none is left */
static uint64_t compaction_alloc(struct compact_control *cc)
{
	if (!cc->nr_freepages) {
		isolate_freepages(cc);
		if (!cc->nr_freepages)
			return NO_PFN;
	}
	return cc->freepages[--cc->nr_freepages];
}

/* models release_freepages(): unused targets back to the buddy; returns the highest pfn */
static uint64_t release_freepages(struct compact_control *cc)
{
	struct zone *zone = cc->zone;
	struct mm_sim *sim = zone->sim;
	uint64_t high = 0;

	zone_lock(zone);
	while (cc->nr_freepages) {
		uint64_t pfn = cc->freepages[--cc->nr_freepages];
		struct page *page = pfn_to_page(sim, pfn);
		WRITE_ONCE(page->state, PG_FREE_TAIL);
		page->order = 0;
		zone->nr_isolated_free--;
		__free_one_page(zone, pfn, 0, get_pfnblock_migratetype(sim, pfn), FPI_NONE);
		if (pfn > high)
			high = pfn;
	}
	zone_unlock(zone);
	return high;
}

/* ------------------------------------------------------------------------
 * Migration
 * ---------------------------------------------------------------------- */

/*
 * Moves the order-0 page src to the isolated free page dst: the contents
 * (the stamp and type) go along and the handle that reaches the page
 * follows it; src is freed.
 */
static void migrate_page(struct compact_control *cc, struct mm_handle *h, uint64_t src,
			 uint64_t dst)
{
	struct zone *zone = cc->zone;
	struct mm_sim *sim = zone->sim;
	struct page *from = pfn_to_page(sim, src), *to = pfn_to_page(sim, dst);
	uint32_t owner = from->stamp.owner;

	to->alloc_mt = from->alloc_mt;
	to->spare = 0;
	to->stamp = from->stamp;
	zone->nr_isolated_free--;
	zone_account_allocated(zone, 1);
	h->pfn = (long long)dst;
	compact_check_migrated(sim, h, dst, owner);
	free_one_page(zone, src, 0);
}

/*
 * models migrate_pages() for compaction: every isolated page gets a target
 * or the run stops (-ENOMEM); a page with an extra reference
 * (PAGE_MIGRATE_BUSY) fails in every mode and its target goes back.
 * Returns the pages that failed, or -ENOMEM (-12).
 */
static long migrate_pages(struct compact_control *cc)
{
	struct mm_sim *sim = cc->zone->sim;
	struct mm_compact_stats *st = compact_stats(sim);
	long failed = 0;

	for (unsigned long i = 0; i < cc->nr_migratepages; i++) {
		uint64_t src = cc->migratepages[i];
		struct mm_handle *h = compaction_handle_of(sim, src);
		uint64_t dst;

		if (!h || (pfn_to_page(sim, src)->spare & PAGE_MIGRATE_BUSY)) {
			st->pgmigrate_fail++;
			failed++;
			continue;
		}
		dst = compaction_alloc(cc);
		if (dst == NO_PFN) {
			st->pgmigrate_fail += cc->nr_migratepages - i;
			return -12;
		}
		migrate_page(cc, h, src, dst);
		st->pgmigrate_success++;
	}
	return failed;
}

/* ------------------------------------------------------------------------
 * The migration scanner: isolating migration sources
 * ---------------------------------------------------------------------- */

/* Returns true if page is a movable page migration can reach (PageLRU). */
static bool page_isolatable(struct mm_sim *sim, uint64_t pfn)
{
	const struct page *page = pfn_to_page(sim, pfn);

	return page->state == PG_ALLOC && page->order == 0 && page->alloc_mt == MIGRATE_MOVABLE &&
	       compaction_handle_of(sim, pfn);
}

/* models update_cached_migrate() */
static void update_cached_migrate(struct compact_control *cc, uint64_t pfn)
{
	struct zone *zone = cc->zone;

	if (cc->no_set_skip_hint)
		return;
	pfn = pageblock_end_pfn(zone->sim, pfn);
	if (pfn > zone->compact_cached_migrate_pfn[0])
		zone->compact_cached_migrate_pfn[0] = pfn;
	if (cc->mode != MM_MIGRATE_ASYNC && pfn > zone->compact_cached_migrate_pfn[1])
		zone->compact_cached_migrate_pfn[1] = pfn;
}

static uint64_t block_end_order(uint64_t pfn, int order)
{
	return (pfn + 1 + (UINT64_C(1) << order) - 1) & ~((UINT64_C(1) << order) - 1);
}

/*
 * models isolate_migratepages_block(): isolates the movable pages of
 * [low_pfn, end_pfn), one pageblock at most. The skip bit is tested at the
 * block's first pfn (valid_page), test-and-set at the first LRU page, and
 * set at the end of a block that isolated nothing or was finished.
 * Returns 0, or -1 when the pass must stop (the checker's rescan bound).
 */
static int isolate_migratepages_block(struct compact_control *cc, uint64_t low_pfn,
				      uint64_t end_pfn)
{
	struct zone *zone = cc->zone;
	struct mm_sim *sim = zone->sim;
	uint64_t block = pageblock_start_pfn(sim, low_pfn), valid = NO_PFN, next_skip_pfn = 0;
	unsigned long nr_scanned = 0, nr_isolated = 0, past_test = 0;
	bool skip_on_failure = false, skip_updated = false;

	cc->migrate_pfn = low_pfn;
	if (!compact_check_migrate_visit(cc, low_pfn))
		return -1;
	if (cc->direct_compaction && cc->mode == MM_MIGRATE_ASYNC) {
		skip_on_failure = true;
		next_skip_pfn = block_end_order(low_pfn, cc->order);
	}
	for (; low_pfn < end_pfn; low_pfn++) {
		const struct page *page;

		if (skip_on_failure && low_pfn >= next_skip_pfn) {
			/* The previous cc->order block is all isolated: migrate it now. */
			if (nr_isolated)
				break;
			next_skip_pfn = block_end_order(low_pfn, cc->order);
		}
		nr_scanned++;
		/* Only the block's first pfn is tested: a continuation must not abort. */
		if (valid == NO_PFN && sim->policy.compact_skip_test_pfn(zone, low_pfn)) {
			if (!isolation_suitable(cc, low_pfn)) {
				low_pfn = end_pfn;
				goto isolate_abort;
			}
			valid = low_pfn;
		}
		past_test++;
		page = pfn_to_page(sim, low_pfn);
		if (page->state == PG_BUDDY) {
			if (page->order > 0 && page->order <= sim->max_order) {
				low_pfn += (UINT64_C(1) << page->order) - 1;
				nr_scanned += (1UL << page->order) - 1;
			}
			continue;
		}
		if (page->state == PG_ALLOC && page->order) {
			/* Compound pages are not compacted: skip them whole. */
			low_pfn += (UINT64_C(1) << page->order) - 1;
			nr_scanned += (1UL << page->order) - 1;
			goto isolate_fail;
		}
		if (!page_isolatable(sim, low_pfn))
			goto isolate_fail;
		/* The lru lock: the block's bit is test-and-set here (policy). */
		if (sim->policy.compact_lru_skip(cc, valid, low_pfn, &skip_updated)) {
			low_pfn = end_pfn;
			goto isolate_abort;
		}
		cc->migratepages[cc->nr_migratepages++] = (uint32_t)low_pfn;
		nr_isolated++;
		/* Do not isolate too much unless the block is being finished. */
		if (cc->nr_migratepages >= COMPACT_CLUSTER_MAX && !cc->finish_pageblock &&
		    !cc->contended) {
			++low_pfn;
			break;
		}
		continue;
	isolate_fail:
		if (!skip_on_failure)
			continue;
		/* The cc->order block cannot become free: put its pages back. */
		if (nr_isolated) {
			cc->nr_migratepages = 0;
			nr_isolated = 0;
		}
		if (low_pfn < next_skip_pfn) {
			low_pfn = next_skip_pfn - 1;
			next_skip_pfn += UINT64_C(1) << cc->order;
		}
	}
	if (low_pfn > end_pfn)
		low_pfn = end_pfn;
isolate_abort:
	/* A block scanned to its end that isolated nothing, or was finished, is skipped next time.
	 */
	if (low_pfn == end_pfn && (!nr_isolated || cc->finish_pageblock)) {
		if (!cc->no_set_skip_hint && valid != NO_PFN && !skip_updated)
			set_pageblock_skip(sim, valid);
		update_cached_migrate(cc, low_pfn);
	}
	cc->total_migrate_scanned += nr_scanned;
	compact_stats(sim)->compact_isolated += nr_isolated;
	cc->migrate_pfn = low_pfn;
	if (cc->fast_found_pfn == block ||
	    (block < zone->zone_start_pfn && cc->fast_found_pfn == zone->zone_start_pfn))
		compact_check_fast_found(cc, cc->fast_found_pfn, past_test);
	return 0;
}

/* models update_fast_start_pfn() */
static void update_fast_start_pfn(struct compact_control *cc, uint64_t pfn)
{
	if (cc->fast_start_pfn == NO_PFN)
		return;
	if (!cc->fast_start_pfn || pfn < cc->fast_start_pfn)
		cc->fast_start_pfn = pfn;
}

/* models reinit_migrate_pfn(): after a failed fast search, back to the lowest block found */
static uint64_t reinit_migrate_pfn(struct compact_control *cc)
{
	if (!cc->fast_start_pfn || cc->fast_start_pfn == NO_PFN)
		return cc->migrate_pfn;
	cc->migrate_pfn = cc->fast_start_pfn;
	cc->fast_start_pfn = NO_PFN;
	return cc->migrate_pfn;
}

/*
 * models fast_find_migrateblock(): a source block that already has free
 * pages, found on the MOVABLE free lists from order - 1 down to
 * PAGE_ALLOC_COSTLY_ORDER, inside the first half of the scan space (an
 * eighth of it once the scanner has moved). It relies on the skip bits to
 * avoid repeats, so the block it returns must get scanned and marked.
 */
uint64_t fast_find_migrateblock(struct compact_control *cc)
{
	struct zone *zone = cc->zone;
	struct mm_sim *sim = zone->sim;
	unsigned int limit = freelist_scan_limit(cc), nr_scanned = 0;
	uint64_t pfn = cc->migrate_pfn, distance, high_pfn;
	bool found_block = false;

	if (cc->ignore_skip_hint || cc->finish_pageblock)
		return pfn;
	/* Not at a block or zone start: a continuation of the current block. */
	if (pfn != zone->zone_start_pfn && pfn != pageblock_start_pfn(sim, pfn))
		return pfn;
	/* Small orders scan linearly; direct non-movable requests keep movable blocks. */
	if (cc->order <= PAGE_ALLOC_COSTLY_ORDER)
		return pfn;
	if (cc->direct_compaction && cc->migratetype != MIGRATE_MOVABLE)
		return pfn;
	distance = (cc->free_pfn - cc->migrate_pfn) >> 1;
	if (cc->migrate_pfn != zone->zone_start_pfn)
		distance >>= 2;
	high_pfn = pageblock_start_pfn(sim, cc->migrate_pfn + distance);

	for (int order = cc->order - 1;
	     order >= PAGE_ALLOC_COSTLY_ORDER && !found_block && nr_scanned < limit; order--) {
		struct free_area *area = &zone->free_area[order];
		uint32_t *head = &area->head[MIGRATE_MOVABLE], *tail = &area->tail[MIGRATE_MOVABLE];

		if (!area->nr_free)
			continue;
		zone_lock(zone);
		for (uint32_t p = *head; p != PFN_NIL; p = pfn_to_page(sim, p)->lru.next) {
			uint32_t next = pfn_to_page(sim, p)->lru.next;
			if (nr_scanned++ >= limit) {
				/* move_freelist_tail(): what was looked at goes to the tail */
				if (p != *head && next != PFN_NIL)
					pfn_list_rotate_to(sim, head, tail, next);
				break;
			}
			if (p >= high_pfn || get_pageblock_skip(sim, p))
				continue;
			if (p != *head && next != PFN_NIL)
				pfn_list_rotate_to(sim, head, tail, next);
			update_fast_start_pfn(cc, p);
			pfn = pageblock_start_pfn(sim, p);
			if (pfn < zone->zone_start_pfn)
				pfn = zone->zone_start_pfn;
			if (sim->policy.compact_fast_find_marks_skip)
				set_pageblock_skip(
					sim, pfn); /* variant compaction-fast-find-marks-skip */
			cc->fast_search_fail = 0;
			found_block = true;
			break;
		}
		zone_unlock(zone);
	}
	cc->total_migrate_scanned += nr_scanned;
	if (!found_block) {
		cc->fast_search_fail++;
		pfn = reinit_migrate_pfn(cc);
	} else {
		cc->fast_found_pfn = pfn;
	}
	return pfn;
}

/* models suitable_migration_source() */
static bool suitable_migration_source(const struct compact_control *cc, uint64_t pfn)
{
	const struct mm_sim *sim = cc->zone->sim;
	const struct page *page = &sim->mem_map[pfn];
	int block_mt;

	if (page->state == PG_ALLOC && page->order >= sim->pageblock_order)
		return false; /* pageblock_skip_persistent() */
	if (cc->mode != MM_MIGRATE_ASYNC || !cc->direct_compaction)
		return true;
	block_mt = get_pfnblock_migratetype(sim, pfn);
	if (cc->migratetype == MIGRATE_MOVABLE)
		return block_mt == MIGRATE_MOVABLE;
	return block_mt == cc->migratetype;
}

/* models isolate_migratepages(): the first suitable block from the migration pfn */
static isolate_migrate_t isolate_migratepages(struct compact_control *cc)
{
	struct zone *zone = cc->zone;
	struct mm_sim *sim = zone->sim;
	uint64_t nr = UINT64_C(1) << sim->pageblock_order;
	uint64_t low_pfn, block_start_pfn, block_end_pfn;
	bool fast_find_block;

	low_pfn = fast_find_migrateblock(cc);
	block_start_pfn = pageblock_start_pfn(sim, low_pfn);
	if (block_start_pfn < zone->zone_start_pfn)
		block_start_pfn = zone->zone_start_pfn;
	/* fast_find checked the skip bit already. */
	fast_find_block = low_pfn != cc->migrate_pfn && !cc->fast_search_fail;
	block_end_pfn = pageblock_end_pfn(sim, low_pfn);

	for (; block_end_pfn <= cc->free_pfn;
	     fast_find_block = false, cc->migrate_pfn = low_pfn = block_end_pfn,
	     block_start_pfn = block_end_pfn, block_end_pfn += nr) {
		/* pageblock_pfn_to_page(): the block must lie in the zone */
		if (block_end_pfn > zone_end_pfn(zone))
			break;
		if (sim->policy.compact_skip_test_pfn(zone, low_pfn) && !fast_find_block &&
		    !isolation_suitable(cc, low_pfn))
			continue;
		if (!suitable_migration_source(cc, block_start_pfn)) {
			update_cached_migrate(cc, block_end_pfn);
			continue;
		}
		if (isolate_migratepages_block(cc, low_pfn, block_end_pfn))
			return ISOLATE_ABORT;
		break;
	}
	if (cc->fast_found_pfn != NO_PFN)
		compact_check_fast_found(cc, cc->fast_found_pfn, 0);
	return cc->nr_migratepages ? ISOLATE_SUCCESS : ISOLATE_NONE;
}

/* ------------------------------------------------------------------------
 * compact_zone() and its callers
 * ---------------------------------------------------------------------- */

/* models __compact_finished() without proactive compaction */
static int __compact_finished(struct compact_control *cc)
{
	struct zone *zone = cc->zone;

	if (compact_scanners_met(cc)) {
		reset_cached_positions(zone);
		/* kswapd clears the skip bits when it sleeps: only a direct request asks. */
		if (cc->direct_compaction)
			zone->compact_blockskip_flush = true;
		return cc->whole_zone ? MM_COMPACT_COMPLETE : MM_COMPACT_PARTIAL_SKIPPED;
	}
	/* Always finish a pageblock: fewer fallbacks later. */
	if (!pageblock_aligned(zone->sim, cc->migrate_pfn))
		return MM_COMPACT_CONTINUE;
	for (unsigned int order = (unsigned int)cc->order; order <= zone->sim->max_order; order++) {
		bool can_steal;
		if (!free_area_empty(&zone->free_area[order], cc->migratetype))
			return MM_COMPACT_SUCCESS;
		if (find_suitable_fallback(zone, order, cc->migratetype, true, &can_steal) != -1)
			return MM_COMPACT_SUCCESS;
	}
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
	cc->migrate_pfn = zone->compact_cached_migrate_pfn[sync];
	cc->free_pfn = zone->compact_cached_free_pfn;
	if (cc->free_pfn < start_pfn || cc->free_pfn >= end_pfn) {
		cc->free_pfn = pageblock_start_pfn(zone->sim, end_pfn - 1);
		zone->compact_cached_free_pfn = cc->free_pfn;
	}
	if (cc->migrate_pfn < start_pfn || cc->migrate_pfn >= end_pfn) {
		cc->migrate_pfn = start_pfn;
		zone->compact_cached_migrate_pfn[0] = cc->migrate_pfn;
		zone->compact_cached_migrate_pfn[1] = cc->migrate_pfn;
	}
	if (cc->migrate_pfn <= zone->compact_init_migrate_pfn)
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
		cc->nr_migratepages = 0;
		return MM_COMPACT_CONTENDED;
	case ISOLATE_NONE:
		if (*update_cached)
			zone->compact_cached_migrate_pfn[1] = zone->compact_cached_migrate_pfn[0];
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

/* models compact_zone() */
int compact_zone(struct compact_control *cc)
{
	struct zone *zone = cc->zone;
	struct mm_sim *sim = zone->sim;
	struct compact_state *cs = sim->compact;
	uint64_t last_migrated_pfn = 0;
	bool update_cached;
	int ret;

	cc->total_migrate_scanned = cc->total_free_scanned = 0;
	cc->nr_migratepages = cc->nr_freepages = 0;
	cc->freepages = cs->freepages;
	cc->migratepages = cs->migratepages;
	cc->fast_found_pfn = NO_PFN;
	if (zone_watermark_ok(zone, (unsigned int)cc->order,
			      wmark_pages(zone, cc->alloc_flags & ALLOC_WMARK_MASK),
			      cc->highest_zoneidx, cc->alloc_flags))
		return MM_COMPACT_SUCCESS;
	if (!compaction_suitable(zone, cc->order, cc->highest_zoneidx))
		return MM_COMPACT_SKIPPED;
	/* Failures recently, and about to retry after deferring: clear the bits. */
	if (compaction_restarting(zone, cc->order))
		__reset_isolation_suitable(zone);
	compact_zone_start(cc);
	update_cached = cc->mode == MM_MIGRATE_ASYNC &&
			zone->compact_cached_migrate_pfn[0] == zone->compact_cached_migrate_pfn[1];
	compact_check_pass_begin(cc);
	while ((ret = __compact_finished(cc)) == MM_COMPACT_CONTINUE) {
		ret = compact_zone_round(cc, &last_migrated_pfn, &update_cached);
		if (ret != MM_COMPACT_CONTINUE)
			break;
	}
	if (ret == MM_COMPACT_NO_SUITABLE_PAGE)
		ret = MM_COMPACT_CONTINUE;
	cc->nr_migratepages = 0;
	if (cc->nr_freepages) {
		/* The cached free pfn only goes back, to the first block of a returned page. */
		uint64_t free_pfn = pageblock_start_pfn(sim, release_freepages(cc));
		if (free_pfn > zone->compact_cached_free_pfn)
			zone->compact_cached_free_pfn = free_pfn;
	}
	cs->stats.compact_migrate_scanned += cc->total_migrate_scanned;
	cs->stats.compact_free_scanned += cc->total_free_scanned;
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

	return compact_zone(&cc);
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

int mm_compact_zone(struct mm_sim *sim, int node, enum zone_type zt, unsigned int order, int prio,
		    int mode, int migratetype)
{
	struct zone *zonelist[2] = {NULL, NULL};

	if (node < 0 || (unsigned int)node >= sim->nr_nodes || (unsigned int)zt >= MAX_NR_ZONES ||
	    order > sim->max_order)
		return -1;
	zonelist[0] = &sim->node_data[node]->node_zones[zt];
	if (!managed_zone(zonelist[0]))
		return -1;
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
	zone->compact_blockskip_flush = false;
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

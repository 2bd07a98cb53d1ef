/* SPDX-License-Identifier: MIT */
/*
 * compaction_free.c - compaction's free scanner (seed 001), modelled on
 * mm/compaction.c: isolate_freepages() walks down from cc->free_pfn taking
 * the free pages of MOVABLE blocks, after fast_isolate_freepages() tried
 * the free lists; compaction_alloc() hands the targets to migration and
 * release_freepages() returns the unused ones. Isolated free pages are
 * compaction's own (zone->nr_isolated_free) until then.
 *
 * Under threads the linear scan reads page descriptors without zone->lock
 * and re-checks a candidate under it before taking it, as
 * isolate_freepages_block() does.
 */
#include "internal.h"

/* ------------------------------------------------------------------------
 * The free scanner: isolating migration targets
 * ---------------------------------------------------------------------- */

/*
 * Makes an isolated free block compaction's own order-0 pages
 * (split_map_pages), under zone->lock: lockless scanners read the pages.
 */
static void take_free_pages(struct compact_control *cc, uint64_t pfn, unsigned long nr)
{
	struct mm_sim *sim = cc->zone->sim;

	for (unsigned long i = 0; i < nr; i++) {
		struct page *page = pfn_to_page(sim, pfn + i);
		WRITE_ONCE(page->order, 0);
		WRITE_ONCE(page->alloc_mt, MIGRATE_MOVABLE);
		page->spare = 0;
		page->stamp.owner = OWNER_ISOLATED_FREE;
		page->stamp.gen = 0;
		WRITE_ONCE(page->state, PG_ALLOC);
		cc->freepages[cc->nr_freepages++] = (uint32_t)(pfn + i);
	}
	cc->zone->nr_isolated_free += (long)nr;
	compact_stats(sim)->compact_isolated += nr;
}

/* isolate_free_block(): the page was no longer a free block when rechecked under the lock */
#define FREE_BLOCK_RACED ((unsigned long)-1)

/*
 * Isolates the free block at pfn, taking zone->lock unless locked; returns
 * the pages taken, 0 when the watermark refused, or FREE_BLOCK_RACED when
 * the lockless look was stale (the kernel's recheck of PageBuddy and the
 * order under the lock; in a serial run it always holds).
 */
static unsigned long isolate_free_block(struct compact_control *cc, uint64_t pfn,
					unsigned int order, bool locked)
{
	const struct page *page = pfn_to_page(cc->zone->sim, pfn);
	unsigned long nr = FREE_BLOCK_RACED;

	_mm_oracle_free_take(cc, pfn, order);
	if (!locked)
		zone_lock(cc->zone);
	if (page->state == PG_BUDDY) {
		nr = __isolate_free_page(cc->zone, pfn, page->order);
		if (nr)
			take_free_pages(cc, pfn, nr);
	}
	if (!locked)
		zone_unlock(cc->zone);
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
		uint8_t state = READ_ONCE(page->state), order = READ_ONCE(page->order);
		unsigned long isolated;

		nr_scanned++;
		/*
		 * A compound page: skip it whole when its order is sane (read
		 * without the lock) and it ends inside the block; one that
		 * runs past end_pfn is read on page by page.
		 */
		if (state == PG_ALLOC && order && order <= sim->max_order &&
		    blockpfn + (UINT64_C(1) << order) <= end_pfn) {
			blockpfn += (UINT64_C(1) << order) - 1;
			nr_scanned += (1UL << order) - 1;
			continue;
		}
		if (state != PG_BUDDY)
			continue;
		isolated = isolate_free_block(cc, blockpfn, order, false);
		if (isolated == FREE_BLOCK_RACED)
			continue;
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

/*
 * models suitable_migration_target() (6.9, 1883e8ac96dd): a MOVABLE block
 * whose first page is no free page of the order compaction works for (a
 * pageblock when it asks none): migrating into that page would split
 * what the pass is trying to make.
 */
static bool suitable_migration_target(const struct compact_control *cc, uint64_t pfn)
{
	const struct mm_sim *sim = cc->zone->sim;
	const struct page *page = &sim->mem_map[pfn];
	unsigned int limit = cc->order > 0 && !sim->policy.compact_target_pageblock_order
				     ? (unsigned int)cc->order
				     : sim->pageblock_order;

	if (READ_ONCE(page->state) == PG_BUDDY && READ_ONCE(page->order) >= limit)
		return false;
	if (cc->ignore_block_suitable)
		return true;
	return get_pfnblock_migratetype(sim, pfn) == MIGRATE_MOVABLE;
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
	if (start == end && !cc->no_set_skip_hint) {
		cc->free_side_marked = true;
		set_pageblock_skip(zone->sim, pfn);
	}
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
 * the top half). Returns the page taken or COMPACT_NO_PFN; *isolate_failed
 * says a candidate was found but could not be isolated.
 */
static uint64_t fast_isolate_order(struct compact_control *cc, int order, uint64_t low_pfn,
				   uint64_t min_pfn, unsigned int *limit, uint64_t *highest,
				   unsigned long *nr_scanned, bool *isolate_failed)
{
	struct zone *zone = cc->zone;
	struct mm_sim *sim = zone->sim;
	struct free_area *area = &zone->free_area[order];
	unsigned int order_scanned = 0;
	uint64_t page = COMPACT_NO_PFN, high_pfn = 0;
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
	if (page == COMPACT_NO_PFN && high_pfn) {
		page = high_pfn;
		freepage = (uint32_t)high_pfn;
	}
	/* Reorder so that a future search skips recent pages (move_freelist_head). */
	if (freepage != PFN_NIL)
		pfn_list_rotate_to(sim, &area->head[MIGRATE_MOVABLE], &area->tail[MIGRATE_MOVABLE],
				   freepage);
	if (page != COMPACT_NO_PFN) {
		unsigned long nr = isolate_free_block(cc, page, (unsigned int)order, true);
		if (nr && nr != FREE_BLOCK_RACED) {
			*nr_scanned += nr - 1;
		} else {
			/* The watermark refused it: the caller aborts the search. */
			*isolate_failed = true;
			page = COMPACT_NO_PFN;
		}
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
	uint64_t low_pfn, min_pfn, distance, highest = 0, page = COMPACT_NO_PFN;
	bool scan_start = false;

	if (cc->order <= 0)
		return;
	/* Starting the scan: search deeper, and take the highest pfn if nothing suits. */
	if (cc->free_pfn >= READ_ONCE(zone->compact_init_free_pfn)) {
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
	for (int order = cc->search_order; page == COMPACT_NO_PFN && order >= 0;
	     order = next_search_order(cc, order)) {
		bool isolate_failed = false;

		if (!READ_ONCE(zone->free_area[order].nr_free))
			continue;
		zone_lock(zone);
		page = fast_isolate_order(cc, order, low_pfn, min_pfn, &limit, &highest,
					  &nr_scanned, &isolate_failed);
		zone_unlock(zone);
		/*
		 * If isolation fails, abort the search: next_search_order() from
		 * search_order + 1 ends the loop. Going on to the next order
		 * instead never ends when every list's candidate is refused,
		 * since each candidate resets cc->search_order to its order.
		 */
		if (isolate_failed)
			order = cc->search_order + 1;
		if (cc->nr_freepages >= cc->nr_migratepages)
			break;
	}
	if (page == COMPACT_NO_PFN) {
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
	if (highest && highest >= READ_ONCE(zone->compact_cached_free_pfn)) {
		highest -= UINT64_C(1) << sim->pageblock_order;
		WRITE_ONCE(zone->compact_cached_free_pfn, highest);
	}
	cc->total_free_scanned += nr_scanned;
	if (page != COMPACT_NO_PFN)
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
	uint64_t scan_start_pfn;
	long isolated_before;

	fast_isolate_freepages(cc);
	if (cc->nr_freepages)
		return;
	/* the checker's before-image: where the scan starts, what was isolated */
	scan_start_pfn = cc->free_pfn;
	isolated_before = zone->nr_isolated_free;
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
	_mm_oracle_free_scan(cc, scan_start_pfn, isolated_before);
}

/* models compaction_alloc(): a target page, isolating more when none is left */
uint64_t compaction_alloc(struct compact_control *cc)
{
	if (!cc->nr_freepages) {
		isolate_freepages(cc);
		if (!cc->nr_freepages)
			return COMPACT_NO_PFN;
	}
	return cc->freepages[--cc->nr_freepages];
}

/* models release_freepages(): unused targets back to the buddy; returns the highest pfn */
uint64_t release_freepages(struct compact_control *cc)
{
	struct zone *zone = cc->zone;
	struct mm_sim *sim = zone->sim;
	uint64_t high = 0;

	zone_lock(zone);
	while (cc->nr_freepages) {
		uint64_t pfn = cc->freepages[--cc->nr_freepages];
		struct page *page = pfn_to_page(sim, pfn);
		WRITE_ONCE(page->state, PG_FREE_TAIL);
		WRITE_ONCE(page->order, 0); /* lockless scanners read it */
		zone->nr_isolated_free--;
		__free_one_page(zone, pfn, 0, get_pfnblock_migratetype(sim, pfn), FPI_NONE);
		if (pfn > high)
			high = pfn;
	}
	zone_unlock(zone);
	return high;
}

/* SPDX-License-Identifier: MIT */
/*
 * compaction_migrate.c - compaction's migration scanner and migration
 * (seed 001), modelled on mm/compaction.c: isolate_migratepages() takes
 * the next suitable pageblock, or the one fast_find_migrateblock() finds on
 * the free lists, and isolate_migratepages_block() isolates its movable
 * pages, testing and setting the block's skip bit on the way (the policies
 * in src/pageblock.c); migrate_pages() moves each to a target.
 *
 * Under threads the scanner reads page descriptors without a lock, as the
 * kernel does, and a page is a migration source only once the run's LRU
 * gave it up (sim->migrate_src, isolate_lru_page() under the LRU's lock):
 * then nobody else frees or moves it until it is put back.
 */
#include "internal.h"

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

	WRITE_ONCE(to->alloc_mt, from->alloc_mt);
	to->spare = 0;
	if (!sim->policy.compact_migrate_drops_stamp)
		to->stamp = from->stamp;
	if (sim->serial) {
		zone->nr_isolated_free--;
	} else {
		zone_lock(zone); /* other passes isolate and release into it */
		zone->nr_isolated_free--;
		zone_unlock(zone);
	}
	zone_account_allocated(zone, 1);
	if (h) {
		h->pfn = (long long)dst;
		compact_check_migrated(sim, dst, h->pfn, owner, h->gen);
	}
	/*
	 * folio_put(): the source's last reference frees it to this CPU's
	 * list, not free in NR_FREE_PAGES until a drain (check_drain()).
	 */
	free_frozen_pages(zone, src, 0);
}

/*
 * Under threads: the isolated source i goes back to the run's LRU at pfn,
 * its new place or, when it did not move, its old one.
 */
static void putback_source(struct compact_control *cc, unsigned long i, uint64_t pfn)
{
	struct mm_sim *sim = cc->zone->sim;

	sim->migrate_src.putback(sim->migrate_src.arg, cc->migratepages[i], pfn);
}

void putback_movable_pages(struct compact_control *cc)
{
	compact_check_sources(cc, "put back", true);
	if (!cc->zone->sim->serial)
		for (unsigned long i = 0; i < cc->nr_migratepages; i++)
			putback_source(cc, i, cc->migratepages[i]);
	cc->nr_migratepages = 0;
}

/*
 * models migrate_pages() for compaction: every isolated page gets a target
 * or the run stops (-ENOMEM); a page with an extra reference
 * (PAGE_MIGRATE_BUSY) fails in every mode and its target goes back.
 * Returns the pages that failed, or -ENOMEM (-12).
 */
long migrate_pages(struct compact_control *cc)
{
	struct mm_sim *sim = cc->zone->sim;
	struct mm_compact_stats *st = compact_stats(sim);
	long failed = 0;

	compact_check_sources(cc, "handed to migration", true);
	for (unsigned long i = 0; i < cc->nr_migratepages; i++) {
		uint64_t src = cc->migratepages[i];
		struct mm_handle *h = sim->serial ? handle_of_block(sim, src) : NULL;
		uint64_t dst;

		if ((sim->serial && !h) || (pfn_to_page(sim, src)->spare & PAGE_MIGRATE_BUSY)) {
			st->pgmigrate_fail++;
			failed++;
			if (!sim->serial)
				putback_source(cc, i, src);
			continue;
		}
		dst = compaction_alloc(cc);
		if (dst == COMPACT_NO_PFN) {
			st->pgmigrate_fail += cc->nr_migratepages - i;
			for (; !sim->serial && i < cc->nr_migratepages; i++)
				putback_source(cc, i, cc->migratepages[i]);
			return -12;
		}
		migrate_page(cc, h, src, dst);
		if (!sim->serial) {
			/* the stamp the LRU recorded at isolation: the ground truth */
			compact_check_migrated(sim, dst, -1, cc->cs->mig_owner[i],
					       cc->cs->mig_gen[i]);
			putback_source(cc, i, dst);
		}
		st->pgmigrate_success++;
	}
	return failed;
}

/* ------------------------------------------------------------------------
 * The migration scanner: isolating migration sources
 * ---------------------------------------------------------------------- */

/*
 * Returns true if page is a movable page migration can reach (PageLRU).
 * Under threads a lockless look: the LRU's lock decides (isolate_source()).
 */
static bool page_isolatable(struct mm_sim *sim, uint64_t pfn)
{
	const struct page *page = pfn_to_page(sim, pfn);

	if (!sim->serial)
		return READ_ONCE(page->state) == PG_ALLOC && READ_ONCE(page->order) == 0;
	return page->state == PG_ALLOC && page->order == 0 && page->alloc_mt == MIGRATE_MOVABLE &&
	       handle_of_block(sim, pfn);
}

/*
 * models isolate_lru_page() under threads: the run's LRU gives the page
 * up under its lock, with the stamp it recorded; a page of a movable
 * request only (what is on it now is stable: the LRU handed it over).
 */
static bool isolate_source(struct compact_control *cc, uint64_t pfn)
{
	struct mm_sim *sim = cc->zone->sim;
	unsigned long n = cc->nr_migratepages;

	if (!sim->migrate_src.isolate(sim->migrate_src.arg, pfn, &cc->cs->mig_owner[n],
				      &cc->cs->mig_gen[n]))
		return false;
	if (pfn_to_page(sim, pfn)->alloc_mt == MIGRATE_MOVABLE)
		return true;
	sim->migrate_src.putback(sim->migrate_src.arg, pfn, pfn);
	return false;
}

/* models update_cached_migrate() */
static void update_cached_migrate(struct compact_control *cc, uint64_t pfn)
{
	struct zone *zone = cc->zone;

	if (cc->no_set_skip_hint)
		return;
	pfn = pageblock_end_pfn(zone->sim, pfn);
	if (pfn > READ_ONCE(zone->compact_cached_migrate_pfn[0]))
		WRITE_ONCE(zone->compact_cached_migrate_pfn[0], pfn);
	if (cc->mode != MM_MIGRATE_ASYNC && pfn > READ_ONCE(zone->compact_cached_migrate_pfn[1]))
		WRITE_ONCE(zone->compact_cached_migrate_pfn[1], pfn);
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
	uint64_t block = pageblock_start_pfn(sim, low_pfn), valid = COMPACT_NO_PFN,
		 next_skip_pfn = 0;
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
		if (valid == COMPACT_NO_PFN && sim->policy.compact_skip_test_pfn(zone, low_pfn)) {
			if (!isolation_suitable(cc, low_pfn)) {
				low_pfn = end_pfn;
				goto isolate_abort;
			}
			valid = low_pfn;
		}
		past_test++;
		page = pfn_to_page(sim, low_pfn);
		/* No zone->lock here (buddy_order_unsafe()): a racing order is a hint. */
		uint8_t state = READ_ONCE(page->state), order = READ_ONCE(page->order);
		if (state == PG_BUDDY) {
			if (order > 0 && order <= sim->max_order) {
				low_pfn += (UINT64_C(1) << order) - 1;
				nr_scanned += (1UL << order) - 1;
			}
			continue;
		}
		if (state == PG_ALLOC && order && order <= sim->max_order) {
			/* Compound pages are not compacted: skip them whole. */
			low_pfn += (UINT64_C(1) << order) - 1;
			nr_scanned += (1UL << order) - 1;
			goto isolate_fail;
		}
		if (!page_isolatable(sim, low_pfn))
			goto isolate_fail;
		/* The lru lock: the block's bit is test-and-set here (policy). */
		if (sim->policy.compact_lru_skip(cc, valid, low_pfn, &skip_updated)) {
			low_pfn = end_pfn;
			goto isolate_abort;
		}
		if (!sim->serial && !isolate_source(cc, low_pfn))
			goto isolate_fail;
		cc->migratepages[cc->nr_migratepages++] = (uint32_t)low_pfn;
		compact_check_source_isolated(cc);
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
			putback_movable_pages(cc);
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
		if (!cc->no_set_skip_hint && valid != COMPACT_NO_PFN && !skip_updated)
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
	if (cc->fast_start_pfn == COMPACT_NO_PFN)
		return;
	if (!cc->fast_start_pfn || pfn < cc->fast_start_pfn)
		cc->fast_start_pfn = pfn;
}

/* models reinit_migrate_pfn(): after a failed fast search, back to the lowest block found */
static uint64_t reinit_migrate_pfn(struct compact_control *cc)
{
	if (!cc->fast_start_pfn || cc->fast_start_pfn == COMPACT_NO_PFN)
		return cc->migrate_pfn;
	cc->migrate_pfn = cc->fast_start_pfn;
	cc->fast_start_pfn = COMPACT_NO_PFN;
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
	/* before the first skip-bit read: a bit another pass sets after it excuses the scanner */
	compact_check_fast_returned(cc);

	for (int order = cc->order - 1;
	     order >= PAGE_ALLOC_COSTLY_ORDER && !found_block && nr_scanned < limit; order--) {
		struct free_area *area = &zone->free_area[order];
		uint32_t *head = &area->head[MIGRATE_MOVABLE], *tail = &area->tail[MIGRATE_MOVABLE];

		if (!READ_ONCE(area->nr_free))
			continue;
		zone_lock(zone);
		for (uint32_t p = *head; p != PFN_NIL; p = pfn_to_page(sim, p)->lru.next) {
			uint32_t next = pfn_to_page(sim, p)->lru.next;
			if (nr_scanned++ >= limit) {
				/* move_freelist_tail(): what was looked at goes to the tail */
				if (next != PFN_NIL)
					pfn_list_rotate_to(sim, head, tail, next);
				break;
			}
			if (p >= high_pfn || pageblock_skip_seen(cc, p))
				continue;
			/* p too, even at the head: the list moves unless p is its last */
			if (next != PFN_NIL)
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
	int block_mt;

	if (_mm_pageblock_skip_persistent(sim, pfn))
		return false;
	if (cc->mode != MM_MIGRATE_ASYNC || !cc->direct_compaction)
		return true;
	block_mt = get_pfnblock_migratetype(sim, pfn);
	if (cc->migratetype == MIGRATE_MOVABLE)
		return block_mt == MIGRATE_MOVABLE;
	return block_mt == cc->migratetype;
}

/* models isolate_migratepages(): the first suitable block from the migration pfn */
isolate_migrate_t isolate_migratepages(struct compact_control *cc)
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
			/*
			 * Under threads another CPU may have retyped or taken the
			 * block since fast_find chose it: the checker cannot judge.
			 * Found at the migration pfn, the block is tested here as
			 * any other (fast_find_block is false), with the same race.
			 */
			if (cc->fast_found_pfn == block_start_pfn && !sim->serial)
				cc->fast_found_pfn = COMPACT_NO_PFN;
			update_cached_migrate(cc, block_end_pfn);
			continue;
		}
		if (isolate_migratepages_block(cc, low_pfn, block_end_pfn))
			return ISOLATE_ABORT;
		break;
	}
	if (cc->fast_found_pfn != COMPACT_NO_PFN)
		compact_check_fast_found(cc, cc->fast_found_pfn, 0);
	return cc->nr_migratepages ? ISOLATE_SUCCESS : ISOLATE_NONE;
}

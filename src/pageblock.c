/* SPDX-License-Identifier: MIT */
/*
 * pageblock.c - the compaction skip bit of each pageblock (PB_SKIP beside
 * the migratetype bits): who tests it, who sets it, and
 * __reset_isolation_suitable(), which clears it once a full compaction has
 * finished (kswapd before it sleeps, or a restart after deferral). Modelled
 * on mm/compaction.c (6.5+, after the May 2023 series). The bits are hints:
 * a wrong one only costs a scan, or, as seed 001 shows, loses a block or
 * makes compaction spin.
 */
#include "internal.h"

bool get_pageblock_skip(const struct mm_sim *sim, uint64_t pfn)
{
	return READ_ONCE(sim->pageblock_flags[pfn >> sim->pageblock_order]) & PB_SKIP;
}

_Thread_local unsigned long compact_own_skip_sets;

/*
 * The skip bit is an atomic bit op, as set_pfnblock_flags_mask()'s
 * cmpxchg: passes on other CPUs set and kswapd clears bits of the same
 * byte without zone->lock. Under threads the checker counts the sets.
 */
void set_pageblock_skip(struct mm_sim *sim, uint64_t pfn)
{
	uint8_t *f = &sim->pageblock_flags[pfn >> sim->pageblock_order];

	__atomic_fetch_or(f, (uint8_t)PB_SKIP, __ATOMIC_RELAXED);
	if (!sim->serial) {
		atomic_fetch_add_explicit(&sim->compact_skip_sets, 1, memory_order_relaxed);
		compact_own_skip_sets++;
	}
}

void clear_pageblock_skip(struct mm_sim *sim, uint64_t pfn)
{
	uint8_t *f = &sim->pageblock_flags[pfn >> sim->pageblock_order];

	__atomic_fetch_and(f, (uint8_t)~PB_SKIP, __ATOMIC_RELAXED);
}

/*
 * Policies: the pfn of a block where isolate_migratepages() and
 * isolate_migratepages_block() test the bit (the kernel's valid_page). The
 * kernel takes a block's first pfn or the zone's first pfn, so that the
 * partial first block of a zone with an unaligned start is tested and
 * marked like any other.
 */
bool compact_skip_test_pfn_default(const struct zone *zone, uint64_t pfn)
{
	return pageblock_aligned(zone->sim, pfn) || pfn == zone->zone_start_pfn;
}

/* variant compaction-aligned-only-skip-test: a zone's unaligned first block is never tested or
 * marked */
bool compact_skip_test_pfn_aligned_only(const struct zone *zone, uint64_t pfn)
{
	return pageblock_aligned(zone->sim, pfn);
}

/*
 * Policies: isolate_migratepages_block() reaching a block's first LRU page
 * (it takes the lru lock there). Since 590ccea80af9 (6.5) it test-and-sets
 * the bit of valid_page (UINT64_MAX: none) and aborts a block another
 * compactor already marked, unless it is finishing the block. Returns true
 * to abort.
 */
bool compact_lru_skip_default(struct compact_control *cc, uint64_t valid_pfn, uint64_t lru_pfn,
			      bool *skip_updated)
{
	(void)lru_pfn;
	if (*skip_updated || valid_pfn == UINT64_MAX)
		return false;
	*skip_updated = true;
	return test_and_set_skip(cc, valid_pfn) && !cc->finish_pageblock;
}

/*
 * variant compaction-fast-find-no-mark (6.1): only an aligned first LRU page
 * tests and sets the bit, yet any first LRU page counts as the update, so a
 * block whose first LRU page is unaligned is never marked, not even at its
 * end.
 */
bool compact_lru_skip_aligned(struct compact_control *cc, uint64_t valid_pfn, uint64_t lru_pfn,
			      bool *skip_updated)
{
	(void)valid_pfn;
	if (*skip_updated)
		return false;
	*skip_updated = true;
	return pageblock_aligned(cc->zone->sim, lru_pfn) && test_and_set_skip(cc, lru_pfn);
}

/*
 * The skip bit a pass's tests see: the live one, or for the checker's
 * shadow pass the one its scan began with (compaction_shadow.c).
 */
bool pageblock_skip_seen(const struct compact_control *cc, uint64_t pfn)
{
	const struct mm_sim *sim = cc->zone->sim;

	if (cc->skip_seen)
		return cc->skip_seen[(pfn >> sim->pageblock_order) - cc->skip_seen_first] & PB_SKIP;
	return get_pageblock_skip(sim, pfn);
}

/* Returns true if the pageblock should be scanned for pages to isolate. */
bool isolation_suitable(const struct compact_control *cc, uint64_t pfn)
{
	if (cc->ignore_skip_hint)
		return true;
	return !pageblock_skip_seen(cc, pfn);
}

/* Sets the bit if it was clear; returns true if it was already set. */
bool test_and_set_skip(struct compact_control *cc, uint64_t pfn)
{
	bool skip;

	if (cc->ignore_skip_hint)
		return false;
	skip = pageblock_skip_seen(cc, pfn);
	if (!skip && !cc->no_set_skip_hint)
		set_pageblock_skip(cc->zone->sim, pfn);
	return skip;
}

/*
 * models update_pageblock_skip(): the free scanner found nothing more in
 * the block; it restarts below it next time.
 */
void update_pageblock_skip(struct compact_control *cc, uint64_t block_pfn, uint64_t pfn)
{
	struct zone *zone = cc->zone;

	if (cc->no_set_skip_hint)
		return;
	cc->free_side_marked = true;
	set_pageblock_skip(zone->sim, block_pfn);
	if (pfn < zone->compact_cached_free_pfn)
		zone->compact_cached_free_pfn = pfn;
}

void reset_cached_positions(struct zone *zone)
{
	WRITE_ONCE(zone->compact_cached_migrate_pfn[0], zone->zone_start_pfn);
	WRITE_ONCE(zone->compact_cached_migrate_pfn[1], zone->zone_start_pfn);
	WRITE_ONCE(zone->compact_cached_free_pfn,
		   pageblock_start_pfn(zone->sim, zone_end_pfn(zone) - 1));
}

/*
 * models pageblock_skip_persistent(): the page at pfn lies in an allocation
 * of pageblock_order or more (compound_head()'s order). A tail's head is
 * at the alignment of its allocation's order below it: at a pageblock's
 * first pfn only a larger order's (the second pageblock of an order
 * pageblock_order + 1 block is as persistent as the first), but
 * __reset_isolation_suitable()'s free side asks at each block's last pfn,
 * inside an allocation of exactly pageblock_order too.
 */
bool _mm_pageblock_skip_persistent(const struct mm_sim *sim, uint64_t pfn)
{
	const struct page *page = pfn_to_page((struct mm_sim *)sim, pfn);

	/* Without a lock: the pages may change under the walk, as in the kernel. */
	if (READ_ONCE(page->state) == PG_ALLOC_TAIL) {
		for (unsigned int o = sim->pageblock_order; o <= sim->max_order; o++) {
			uint64_t head = pfn & ~((UINT64_C(1) << o) - 1);
			const struct page *h = pfn_to_page((struct mm_sim *)sim, head);
			if (READ_ONCE(h->state) == PG_ALLOC && READ_ONCE(h->order) == o)
				return true;
		}
		return false;
	}
	return READ_ONCE(page->state) == PG_ALLOC && READ_ONCE(page->order) >= sim->pageblock_order;
}

/* A page compaction could move: an allocated order-0 movable head (PageLRU). */
static bool page_lru(const struct page *page)
{
	return READ_ONCE(page->state) == PG_ALLOC && READ_ONCE(page->order) == 0 &&
	       READ_ONCE(page->alloc_mt) == MIGRATE_MOVABLE;
}

/*
 * models __reset_isolation_pfn(): clears the block's bit if a sample of
 * every 8th page (1 << PAGE_ALLOC_COSTLY_ORDER) finds an LRU page (a
 * source) or a free page (a target). Returns true if the block was found
 * usable.
 */
static bool __reset_isolation_pfn(struct zone *zone, uint64_t pfn, bool check_source,
				  bool check_target)
{
	struct mm_sim *sim = zone->sim;
	uint64_t start, end;

	if (!zone_spans_pfn(zone, pfn) || _mm_pageblock_skip_persistent(sim, pfn))
		return false;
	if (check_source && check_target && !get_pageblock_skip(sim, pfn))
		return true;
	/* A target scanner does not start in a block that is not movable. */
	if (!check_source && check_target && get_pfnblock_migratetype(sim, pfn) != MIGRATE_MOVABLE)
		return false;
	start = pageblock_start_pfn(sim, pfn);
	if (start < zone->zone_start_pfn)
		start = zone->zone_start_pfn;
	end = pageblock_end_pfn(sim, pfn) - 1;
	if (end > zone_end_pfn(zone) - 1)
		end = zone_end_pfn(zone) - 1;
	for (uint64_t p = start; p <= end; p += UINT64_C(1) << PAGE_ALLOC_COSTLY_ORDER) {
		const struct page *page = pfn_to_page(sim, p);
		if ((check_source && page_lru(page)) ||
		    (check_target && READ_ONCE(page->state) == PG_BUDDY)) {
			clear_pageblock_skip(sim, p);
			return true;
		}
	}
	return false;
}

/*
 * models __reset_isolation_suitable(): only after a full compaction set
 * compact_blockskip_flush. Walks from both ends at once; the first usable
 * block from each end becomes the scanners' restart point.
 */
void __reset_isolation_suitable(struct zone *zone)
{
	struct mm_sim *sim = zone->sim;
	uint64_t nr = UINT64_C(1) << sim->pageblock_order;
	uint64_t migrate_pfn = zone->zone_start_pfn, free_pfn = zone_end_pfn(zone) - 1;
	uint64_t reset_migrate = free_pfn, reset_free = migrate_pfn;
	bool source_set = false, free_set = false;

	if (!READ_ONCE(zone->compact_blockskip_flush))
		return;
	if (!sim->policy.compact_reset_keeps_request)
		WRITE_ONCE(zone->compact_blockskip_flush, false);
	atomic_fetch_add(&zone->compact_resets, 1); /* the checker's (compaction_check.c) */
	for (; migrate_pfn < free_pfn; migrate_pfn += nr, free_pfn -= nr) {
		if (__reset_isolation_pfn(zone, migrate_pfn, true, source_set) &&
		    migrate_pfn < reset_migrate) {
			source_set = true;
			reset_migrate = migrate_pfn;
			WRITE_ONCE(zone->compact_init_migrate_pfn, reset_migrate);
			WRITE_ONCE(zone->compact_cached_migrate_pfn[0], reset_migrate);
			WRITE_ONCE(zone->compact_cached_migrate_pfn[1], reset_migrate);
		}
		if (__reset_isolation_pfn(zone, free_pfn, free_set, true) &&
		    free_pfn > reset_free) {
			free_set = true;
			reset_free = free_pfn;
			WRITE_ONCE(zone->compact_init_free_pfn, reset_free);
			WRITE_ONCE(zone->compact_cached_free_pfn, reset_free);
		}
		if (free_pfn < nr)
			break; /* the kernel's pfns never come this close to 0 */
	}
	/* Leave no distance if no suitable block was reset. */
	if (reset_migrate >= reset_free) {
		WRITE_ONCE(zone->compact_cached_migrate_pfn[0], migrate_pfn);
		WRITE_ONCE(zone->compact_cached_migrate_pfn[1], migrate_pfn);
		WRITE_ONCE(zone->compact_cached_free_pfn, free_pfn);
	}
}

/* models reset_isolation_suitable(): kswapd, before it sleeps */
void reset_isolation_suitable(struct pglist_data *pgdat)
{
	for (int zt = 0; zt < MAX_NR_ZONES; zt++) {
		struct zone *zone = &pgdat->node_zones[zt];
		if (!populated_zone(zone) || !READ_ONCE(zone->compact_blockskip_flush))
			continue;
		__reset_isolation_suitable(zone);
	}
}

void mm_reset_isolation_suitable(struct mm_sim *sim, int node)
{
	if (node < 0 || (unsigned int)node >= sim->nr_nodes)
		return;
	reset_isolation_suitable(sim->node_data[node]);
}

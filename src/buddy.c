/* SPDX-License-Identifier: MIT */
/*
 * buddy.c - the buddy allocator: free_area lists per order and migratetype,
 * merging on free (__free_one_page), splitting on allocation (expand,
 * __rmqueue_smallest) and migratetype fallbacks with block stealing
 * (__rmqueue_fallback), modelled on mm/page_alloc.c around 6.10.
 * Its invariants are at the end of the file.
 */
#include "internal.h"

#include <string.h>

/* ------------------------------------------------------------------------
 * Free lists: doubly linked by pfn, heads readable without the lock
 * ---------------------------------------------------------------------- */

bool free_area_empty(const struct free_area *area, int mt)
{
	return READ_ONCE(area->head[mt]) == PFN_NIL;
}

static void set_buddy_order(struct page *page, unsigned int order)
{
	WRITE_ONCE(page->order, (uint8_t)order);
	WRITE_ONCE(page->state, PG_BUDDY);
}

static void __add_to_free_list(struct zone *zone, uint64_t pfn, unsigned int order, int mt,
			       bool tail)
{
	struct free_area *area = &zone->free_area[order];

	set_buddy_order(pfn_to_page(zone->sim, pfn), order);
	pfn_list_add(zone->sim, &area->head[mt], &area->tail[mt], pfn, tail);
	WRITE_ONCE(area->nr_free, area->nr_free + 1);
}

static void __unlink_free_block(struct zone *zone, uint64_t pfn, unsigned int order, int mt)
{
	struct free_area *area = &zone->free_area[order];

	pfn_list_del(zone->sim, &area->head[mt], &area->tail[mt], pfn);
	WRITE_ONCE(area->nr_free, area->nr_free - 1);
}

/*
 * The checker's PB_APART marks (unreserve_highatomic_pageblock()) of the
 * pageblocks of a block of a pageblock or more that leaves the free lists.
 */
static void clear_apart(struct mm_sim *sim, uint64_t pfn, unsigned int order)
{
	if (order < sim->pageblock_order)
		return;
	for (uint64_t b = 0; b < UINT64_C(1) << (order - sim->pageblock_order); b++) {
		uint8_t *f = &sim->pageblock_flags[(pfn >> sim->pageblock_order) + b];
		/* atomic: compaction sets the skip bit of this byte without zone->lock */
		if (READ_ONCE(*f) & PB_APART)
			__atomic_fetch_and(f, (uint8_t)~PB_APART, __ATOMIC_RELAXED);
	}
}

/* The caller sets the page's new state. */
static void __del_page_from_free_list(struct zone *zone, uint64_t pfn, unsigned int order, int mt)
{
	__unlink_free_block(zone, pfn, order, mt);
	clear_apart(zone->sim, pfn, order);
}

/* A block that changes lists stays the free block it was: its PB_APART marks too. */
static void __move_to_free_list(struct zone *zone, uint64_t pfn, unsigned int order, int old_mt,
				int new_mt)
{
	__unlink_free_block(zone, pfn, order, old_mt);
	__add_to_free_list(zone, pfn, order, new_mt, true);
}

/*
 * models move_to_free_list() for unreserve_highatomic_pageblock(): the
 * free block of a pageblock or more at pfn changes lists and type as it
 * is, marked apart (PB_APART): a free buddy it could merge with now stays
 * apart in the kernel until one of the two leaves its list.
 */
void move_free_block_apart(struct zone *zone, uint64_t pfn, unsigned int order, int old_mt,
			   int new_mt)
{
	struct mm_sim *sim = zone->sim;

	__move_to_free_list(zone, pfn, order, old_mt, new_mt);
	account_freepages(zone, -(1L << order), old_mt);
	account_freepages(zone, 1L << order, new_mt);
	change_pageblock_range(sim, pfn, order, new_mt);
	for (uint64_t b = 0; b < UINT64_C(1) << (order - sim->pageblock_order); b++) {
		uint8_t *f = &sim->pageblock_flags[(pfn >> sim->pageblock_order) + b];
		__atomic_fetch_or(f, (uint8_t)PB_APART, __ATOMIC_RELAXED);
	}
}

/*
 * Every zone of every input's boot, populated or not: the lists' ends are
 * all-ones words (PFN_NIL), set a free_area at a time.
 */
MM_SCAN void _mm_free_area_init(struct zone *zone)
{
	_Static_assert(PFN_NIL == UINT32_MAX, "an empty list's ends are all-ones bytes");
	for (unsigned int o = 0; o < MM_NR_PAGE_ORDERS; o++) {
		struct free_area *area = &zone->free_area[o];
		memset(area->head, 0xff, sizeof(area->head));
		memset(area->tail, 0xff, sizeof(area->tail));
		area->nr_free = 0;
	}
}

/* ------------------------------------------------------------------------
 * Freeing: merge with free buddies as far as the rules allow
 * ---------------------------------------------------------------------- */

/* Returns true if the page at buddy_pfn is a free buddy of order in zone's zone. */
static bool page_is_buddy(struct zone *zone, uint64_t buddy_pfn, unsigned int order)
{
	struct mm_sim *sim = zone->sim;
	const struct page *buddy;

	if (buddy_pfn >= sim->max_pfn)
		return false;
	buddy = pfn_to_page(sim, buddy_pfn);
	/* A page that is not a buddy may be changing under a pcp lock: read once. */
	return READ_ONCE(buddy->state) == PG_BUDDY && READ_ONCE(buddy->order) == order &&
	       buddy->zone_id == zone->zone_id;
}

/* models buddy_merge_likely(): put the block at the tail if its parent may merge soon */
static bool buddy_merge_likely(struct zone *zone, uint64_t pfn, uint64_t buddy_pfn,
			       unsigned int order)
{
	uint64_t higher;

	if (order >= zone->sim->max_order - 1)
		return false;
	higher = buddy_pfn & pfn;
	return page_is_buddy(zone, higher ^ (UINT64_C(1) << (order + 1)), order + 1);
}

/* A tail keeps no order: the full scan compares tails as one word. */
static void set_free_tail(struct page *page)
{
	WRITE_ONCE(page->state, PG_FREE_TAIL);
	WRITE_ONCE(page->order, 0);
}

/*
 * models account_freepages() (6.12+, with c928807f6f6b's nr_free_highatomic);
 * the checker also keeps the exact count and its figures
 */
void account_freepages(struct zone *zone, long nr_pages, int mt)
{
	lockdep_assert_held(&zone->lock); /* as mm/page_alloc.c's account_freepages() */
	if (mt == MIGRATE_ISOLATE)
		return;
	zone->vm_stat_exact[NR_FREE_PAGES] += nr_pages;
	__mod_zone_page_state(zone, NR_FREE_PAGES, nr_pages);
	if (mt == MIGRATE_HIGHATOMIC)
		WRITE_ONCE(zone->nr_free_highatomic, zone->nr_free_highatomic + nr_pages);
}

static void merge_and_list(struct zone *zone, uint64_t pfn, unsigned int order, int mt,
			   unsigned int fpi_flags);

/*
 * models __free_one_page(). The caller holds zone->lock; mt is the
 * migratetype of the pageblock the block sits in. The tail pages become
 * PG_FREE_TAIL; a merged buddy's head becomes a tail of the new block.
 */
void __free_one_page(struct zone *zone, uint64_t pfn, unsigned int order, int mt,
		     unsigned int fpi_flags)
{
	account_freepages(zone, 1L << order, mt);
	merge_and_list(zone, pfn, order, mt, fpi_flags);
}

/* __free_one_page() after its accounting: merge as far as the rules allow, then list. */
static void merge_and_list(struct zone *zone, uint64_t pfn, unsigned int order, int mt,
			   unsigned int fpi_flags)
{
	struct mm_sim *sim = zone->sim;
	uint64_t buddy_pfn = pfn ^ (UINT64_C(1) << order);
	bool across = false;

	while (order < sim->max_order) {
		if ((int)order == sim->policy.buddy_no_merge_order)
			break; /* variant buddy-no-merge-order3 */
		buddy_pfn = pfn ^ (UINT64_C(1) << order);
		if (!page_is_buddy(zone, buddy_pfn, order))
			break;
		int buddy_mt = mt;
		if (order >= sim->pageblock_order) {
			/*
			 * Blocks of types without fallbacks (isolate,
			 * highatomic) must keep their own accounting.
			 */
			buddy_mt = get_pfnblock_migratetype(sim, buddy_pfn);
			if (mt != buddy_mt && (!migratetype_is_mergeable(mt) ||
					       !migratetype_is_mergeable(buddy_mt))) {
				/* variant isolate-merge-across (before d9dddbf55667) */
				if (!sim->policy.buddy_merge_across_isolate ||
				    (mt != MIGRATE_ISOLATE && buddy_mt != MIGRATE_ISOLATE))
					break;
				across = true;
			}
		}
		__del_page_from_free_list(zone, buddy_pfn, order, buddy_mt);
		set_free_tail(pfn_to_page(sim, buddy_pfn));
		/* Match the buddy's type so that a later expand() files both halves right. */
		if (buddy_mt != mt && !across)
			set_pageblock_migratetype(sim, buddy_pfn, mt);
		set_free_tail(pfn_to_page(sim, pfn));
		pfn &= buddy_pfn;
		order++;
		count_event(sim, merges);
	}
	/* The old kernel kept both blocks' types; list the block by its head's, as lookups do. */
	if (across)
		mt = get_pfnblock_migratetype(sim, pfn);
	__add_to_free_list(
		zone, pfn, order, mt,
		(fpi_flags & FPI_TO_TAIL) ||
			buddy_merge_likely(zone, pfn, pfn ^ (UINT64_C(1) << order), order));
}

/*
 * models __free_pages_memory() + __free_pages_core(): hands the initialised
 * pfns [start, end) to the buddy in the largest aligned blocks that fit,
 * to the tail of the lists, counting them as managed. zone->lock held.
 */
static void free_pfn_range(struct zone *zone, uint64_t start, uint64_t end, bool boot)
{
	struct mm_sim *sim = zone->sim;
	long freed[MIGRATE_TYPES] = {0};

	for (uint64_t pfn = start; pfn < end;) {
		unsigned int order = sim->max_order;
		while (order &&
		       ((pfn & ((UINT64_C(1) << order) - 1)) || pfn + (UINT64_C(1) << order) > end))
			order--;
		int mt = get_pfnblock_migratetype(sim, pfn);
		atomic_long_add(1L << order, &zone->managed_pages);
		/* as __free_one_page(): the accounting (at boot, the range's), then the merge */
		if (boot)
			freed[mt] += 1L << order;
		else
			account_freepages(zone, 1L << order, mt);
		merge_and_list(zone, pfn, order, mt, FPI_TO_TAIL);
		pfn += UINT64_C(1) << order;
	}
	for (int mt = 0; mt < MIGRATE_TYPES; mt++)
		if (freed[mt])
			account_freepages(zone, freed[mt], mt);
}

void _mm_free_pfn_range(struct zone *zone, uint64_t start, uint64_t end)
{
	free_pfn_range(zone, start, end, false);
}

/*
 * The same at boot (memblock_free_all()), before the pagesets are sized:
 * their vmstat threshold is 0, so each block's NR_FREE_PAGES update folds
 * into the zone and global counters at once, and one update per
 * migratetype for the range leaves every counter and diff as the blocks'
 * updates one by one would (test_boot_free). Every fuzz input boots: the
 * boot's free went from 992 samples to 626 in 400,000 fuzz_pcp executions.
 */
void _mm_free_boot_range(struct zone *zone, uint64_t start, uint64_t end)
{
	free_pfn_range(zone, start, end, true);
}

/* ------------------------------------------------------------------------
 * Allocation: split, smallest first, then fall back to other types
 * ---------------------------------------------------------------------- */

/* models expand(): keep the low half, file the upper halves; returns pages filed */
static unsigned long expand(struct zone *zone, uint64_t pfn, unsigned int low, unsigned int high,
			    int mt)
{
	unsigned long nr_added = 0;
	uint64_t size = UINT64_C(1) << high;

	while (high > low) {
		high--;
		size >>= 1;
		__add_to_free_list(zone, pfn + size, high, mt, false);
		nr_added += size;
		count_event(zone->sim, splits);
	}
	return nr_added;
}

static void page_del_and_expand(struct zone *zone, uint64_t pfn, unsigned int order,
				unsigned int high, int mt)
{
	unsigned long nr_pages = 1UL << high;

	__del_page_from_free_list(zone, pfn, high, mt);
	nr_pages -= expand(zone, pfn, order, high, mt);
	account_freepages(zone, -(long)nr_pages, mt);
}

/* The caller makes the returned head (and its tails) allocated. */
struct page *__rmqueue_smallest(struct zone *zone, unsigned int order, int mt)
{
	for (unsigned int o = order; o <= zone->sim->max_order; o++) {
		uint32_t pfn = zone->free_area[o].head[mt];
		if (pfn == PFN_NIL)
			continue;
		page_del_and_expand(zone, pfn, order, o, mt);
		return pfn_to_page(zone->sim, pfn);
	}
	return NULL;
}

static const int fallbacks[MIGRATE_PCPTYPES][MIGRATE_PCPTYPES - 1] = {
	[MIGRATE_UNMOVABLE] = {MIGRATE_RECLAIMABLE, MIGRATE_MOVABLE},
	[MIGRATE_MOVABLE] = {MIGRATE_RECLAIMABLE, MIGRATE_UNMOVABLE},
	[MIGRATE_RECLAIMABLE] = {MIGRATE_UNMOVABLE, MIGRATE_MOVABLE},
};

/* models can_steal_fallback(): may the requester claim the whole block? */
static bool can_steal_fallback(const struct mm_sim *sim, unsigned int order, int start_mt)
{
	if (order >= sim->pageblock_order)
		return true;
	return order >= sim->pageblock_order / 2 || start_mt == MIGRATE_RECLAIMABLE ||
	       start_mt == MIGRATE_UNMOVABLE;
}

/*
 * models find_suitable_fallback(): the first fallback type with a free
 * block of this order; with only_stealable, only if the requester may
 * claim the whole pageblock (compaction's success test).
 */
int find_suitable_fallback(const struct zone *zone, unsigned int order, int mt, bool only_stealable,
			   bool *can_steal)
{
	const struct free_area *area = &zone->free_area[order];

	if (area->nr_free == 0)
		return -1;
	*can_steal = false;
	for (int i = 0; i < MIGRATE_PCPTYPES - 1; i++) {
		int fmt = fallbacks[mt][i];
		if (free_area_empty(area, fmt))
			continue;
		if (can_steal_fallback(zone->sim, order, mt))
			*can_steal = true;
		if (!only_stealable || *can_steal)
			return fmt;
	}
	return -1;
}

/*
 * models prep_move_freepages_block(): counts free and movable (LRU) pages
 * of the pageblock around pfn. False when the block crosses the zone edge.
 */
bool prep_move_freepages_block(struct zone *zone, uint64_t pfn, uint64_t *start_pfn,
			       unsigned long *free_pages, unsigned long *movable_pages)
{
	struct mm_sim *sim = zone->sim;
	uint64_t start = pageblock_start_pfn(sim, pfn);
	uint64_t end = start + (UINT64_C(1) << sim->pageblock_order);

	if (!zone_spans_pfn(zone, start) || !zone_spans_pfn(zone, end - 1))
		return false;
	*start_pfn = start;
	*free_pages = *movable_pages = 0;
	for (uint64_t p = start; p < end;) {
		const struct page *page = pfn_to_page(sim, p);
		int state = READ_ONCE(page->state);
		if (state == PG_BUDDY) {
			*free_pages += 1UL << page->order;
			p += UINT64_C(1) << page->order;
			continue;
		}
		/* Like PageLRU(), a racy look at pages other CPUs own. */
		if ((state == PG_ALLOC || state == PG_ALLOC_TAIL) &&
		    READ_ONCE(page->alloc_mt) == MIGRATE_MOVABLE)
			(*movable_pages)++;
		p++;
	}
	return true;
}

/* models __move_freepages_block(): refile every free block of the pageblock */
void __move_freepages_block(struct zone *zone, uint64_t start, int old_mt, int new_mt)
{
	struct mm_sim *sim = zone->sim;
	uint64_t end = start + (UINT64_C(1) << sim->pageblock_order);
	long moved = 0;

	for (uint64_t p = start; p < end;) {
		const struct page *page = pfn_to_page(sim, p);
		if (READ_ONCE(page->state) != PG_BUDDY) {
			p++;
			continue;
		}
		unsigned int order = page->order;
		__move_to_free_list(zone, p, order, old_mt, new_mt);
		moved += 1L << order;
		p += UINT64_C(1) << order;
	}
	account_freepages(zone, -moved, old_mt);
	account_freepages(zone, moved, new_mt);
}

/*
 * models move_freepages_block_isolate() (6.10): turns the pageblock at
 * start into mt and refiles its free pages. A free block larger than a
 * pageblock that covers it (as its head or a tail block) is taken off its
 * list whole and handed back a pageblock at a time, each piece typed by
 * its own pageblock (split_large_buddy()), so that no free block spans an
 * isolated block and a normal one. zone->lock held; the block is in zone.
 */
void move_freepages_block_isolate(struct zone *zone, uint64_t start, int mt)
{
	struct mm_sim *sim = zone->sim;
	uint64_t nr_pb = UINT64_C(1) << sim->pageblock_order;

	for (unsigned int o = sim->pageblock_order + 1; o <= sim->max_order; o++) {
		uint64_t head = start & ~((UINT64_C(1) << o) - 1);
		struct page *page = pfn_to_page(sim, head);
		int hmt;

		if (head < zone->zone_start_pfn || READ_ONCE(page->state) != PG_BUDDY ||
		    page->order != o || page->zone_id != zone->zone_id)
			continue;
		hmt = get_pfnblock_migratetype(sim, head);
		__del_page_from_free_list(zone, head, o, hmt);
		account_freepages(zone, -(1L << o), hmt);
		set_free_tail(page);
		set_pageblock_migratetype(sim, start, mt);
		/* models split_large_buddy() */
		for (uint64_t p = head; p < head + (UINT64_C(1) << o); p += nr_pb)
			__free_one_page(zone, p, sim->pageblock_order,
					get_pfnblock_migratetype(sim, p), FPI_NONE);
		return;
	}
	__move_freepages_block(zone, start, get_pfnblock_migratetype(sim, start), mt);
	set_pageblock_migratetype(sim, start, mt);
}

/* models __offline_isolated_pages()'s del_page_from_free_list(): not counted free */
void remove_isolated_free_block(struct zone *zone, uint64_t pfn)
{
	unsigned int order = pfn_to_page(zone->sim, pfn)->order;

	__del_page_from_free_list(zone, pfn, order, MIGRATE_ISOLATE);
	account_freepages(zone, -(1L << order), MIGRATE_ISOLATE);
}

/*
 * models __isolate_free_page() + __putback_isolated_page() as
 * unset_migratetype_isolate() (6.10) uses them: a free block of at least
 * a pageblock at the start of a block just turned back from ISOLATE is
 * freed again, so that it merges with a free buddy it could not merge
 * with while isolated.
 */
void putback_pageblock_buddy(struct zone *zone, uint64_t start)
{
	struct mm_sim *sim = zone->sim;
	struct page *page = pfn_to_page(sim, start);
	int mt = get_pfnblock_migratetype(sim, start);

	if (READ_ONCE(page->state) != PG_BUDDY || page->order < sim->pageblock_order ||
	    page->order >= sim->max_order)
		return;
	__del_page_from_free_list(zone, start, page->order, mt);
	unsigned int order = page->order;
	account_freepages(zone, -(1L << order), mt);
	set_free_tail(page);
	__free_one_page(zone, start, order, mt, FPI_NONE);
}

/*
 * models __isolate_free_page(): compaction takes a free block off the lists
 * if the zone stays above its min mark. A block of half a pageblock or more
 * turns its pageblocks MOVABLE, as the block is about to hold movable
 * pages. The kernel moves every mergeable block, a MOVABLE one too: its
 * other free pages go to the tails of their lists. The caller makes the
 * pages its own. Returns the pages taken.
 */
unsigned long __isolate_free_page(struct zone *zone, uint64_t pfn, unsigned int order)
{
	struct mm_sim *sim = zone->sim;
	int mt = get_pfnblock_migratetype(sim, pfn);
	uint64_t nr = UINT64_C(1) << order;

	if (mt != MIGRATE_ISOLATE &&
	    !zone_watermark_ok(zone, 0, wmark_pages(zone, WMARK_MIN) + nr, 0, ALLOC_CMA))
		return 0;
	__del_page_from_free_list(zone, pfn, order, mt);
	/* No longer a buddy (__ClearPageBuddy): the block moves below must not see it. */
	set_free_tail(pfn_to_page(sim, pfn));
	account_freepages(zone, -(long)nr, mt);
	if (order + 1 >= sim->pageblock_order) {
		uint64_t step = UINT64_C(1) << sim->pageblock_order;
		for (uint64_t p = pageblock_start_pfn(sim, pfn); p < pfn + nr; p += step) {
			int bmt = get_pfnblock_migratetype(sim, p);
			if (!migratetype_is_mergeable(bmt) || !zone_spans_pfn(zone, p) ||
			    !zone_spans_pfn(zone, p + step - 1))
				continue;
			__move_freepages_block(zone, p, bmt, MIGRATE_MOVABLE);
			set_pageblock_migratetype(sim, p, MIGRATE_MOVABLE);
		}
	}
	return (unsigned long)nr;
}

/* models steal_suitable_fallback() (6.10), with its boost_watermark() call */
static struct page *steal_suitable_fallback(struct zone *zone, uint64_t pfn,
					    unsigned int current_order, unsigned int order,
					    int start_type, unsigned int alloc_flags,
					    bool whole_block)
{
	struct mm_sim *sim = zone->sim;
	int block_type = get_pfnblock_migratetype(sim, pfn);
	unsigned long free_pages, movable_pages, alike_pages;
	uint64_t start_pfn;

	if (block_type == MIGRATE_HIGHATOMIC)
		goto single_page;

	if (current_order >= sim->pageblock_order) {
		unsigned long nr_added;

		__del_page_from_free_list(zone, pfn, current_order, block_type);
		change_pageblock_range(sim, pfn, current_order, start_type);
		nr_added = expand(zone, pfn, order, current_order, start_type);
		account_freepages(zone, -(1L << current_order), block_type);
		account_freepages(zone, (long)nr_added, start_type);
		count_event(sim, blocks_stolen);
		return pfn_to_page(sim, pfn);
	}

	/*
	 * Reclaim ahead of the next fallback: boost the marks, and have
	 * rmqueue() wake kswapd, as the node may look balanced without it.
	 * Variant boost-wake-without-boost (before 597c892038e0): the wake is
	 * asked for whether boost_watermark() boosted or not.
	 */
	bool wake_was = atomic_load_explicit(&zone->flags, memory_order_relaxed) &
			ZONE_BOOSTED_WATERMARK;			      /* the checker's */
	unsigned int factor = READ_ONCE(sim->watermark_boost_factor); /* the checker's */
	bool boosted = boost_watermark(zone);
	if ((boosted || sim->policy.boost_wake_without_boost) && (alloc_flags & ALLOC_KSWAPD))
		atomic_fetch_or_explicit(&zone->flags, ZONE_BOOSTED_WATERMARK,
					 memory_order_relaxed);
	if (boosted)
		_mm_check_boost_bound(zone); /* O(1), where the boost grew */
	if (!wake_was)
		_mm_check_boost_wake(zone, factor); /* O(1) */

	if (!whole_block)
		goto single_page;
	if (!prep_move_freepages_block(zone, pfn, &start_pfn, &free_pages, &movable_pages))
		goto single_page;

	if (start_type == MIGRATE_MOVABLE)
		alike_pages = movable_pages;
	else if (block_type == MIGRATE_MOVABLE)
		alike_pages = (1UL << sim->pageblock_order) - (free_pages + movable_pages);
	else
		alike_pages = 0;

	if (free_pages + alike_pages >= (1UL << (sim->pageblock_order - 1))) {
		__move_freepages_block(zone, start_pfn, block_type, start_type);
		set_pageblock_migratetype(sim, start_pfn, start_type);
		count_event(sim, blocks_stolen);
		return __rmqueue_smallest(zone, order, start_type);
	}

single_page:
	page_del_and_expand(zone, pfn, order, current_order, block_type);
	return pfn_to_page(sim, pfn);
}

/* models __rmqueue_fallback(): the largest block of another type first */
static struct page *__rmqueue_fallback(struct zone *zone, unsigned int order, int start_mt,
				       unsigned int alloc_flags)
{
	struct mm_sim *sim = zone->sim;
	unsigned int min_order = order;
	bool can_steal = false;
	int fmt = -1;
	int o;

	if (order < sim->pageblock_order && (alloc_flags & ALLOC_NOFRAGMENT))
		min_order = sim->pageblock_order;

	for (o = (int)sim->max_order; o >= (int)min_order; o--) {
		fmt = find_suitable_fallback(zone, (unsigned int)o, start_mt, false, &can_steal);
		if (fmt == -1)
			continue;
		/*
		 * A movable request that cannot claim the block splits the
		 * smallest block instead: it does not fragment for long.
		 */
		if (!can_steal && start_mt == MIGRATE_MOVABLE && (unsigned int)o > order)
			goto find_smallest;
		goto do_steal;
	}
	return NULL;

find_smallest:
	for (o = (int)order; o <= (int)sim->max_order; o++) {
		fmt = find_suitable_fallback(zone, (unsigned int)o, start_mt, false, &can_steal);
		if (fmt != -1)
			break;
	}

do_steal:
	count_event(sim, fallbacks);
	return steal_suitable_fallback(zone, zone->free_area[o].head[fmt], (unsigned int)o, order,
				       start_mt, alloc_flags, can_steal);
}

/* models __rmqueue() without CMA */
struct page *__rmqueue(struct zone *zone, unsigned int order, int mt, unsigned int alloc_flags)
{
	struct page *page = __rmqueue_smallest(zone, order, mt);

	if (!page)
		page = __rmqueue_fallback(zone, order, mt, alloc_flags);
	return page;
}

/* ------------------------------------------------------------------------
 * Invariants
 * ---------------------------------------------------------------------- */

/*
 * The first word of a descriptor (state, order, zone) as one load: the
 * full scan compares every tail page against a template this way.
 */
static MM_ALWAYS_INLINE uint32_t page_word(const struct page *page)
{
	uint32_t w;

	memcpy(&w, page, sizeof(w));
	return w;
}

static MM_ALWAYS_INLINE uint32_t page_tag_mask(void)
{
	struct page t = {.state = 0xff, .order = 0xff, .zone_id = 0xffff};
	return page_word(&t);
}

static MM_ALWAYS_INLINE uint32_t tail_tag(int tail_state, uint16_t zone_id)
{
	struct page t = {.state = (uint8_t)tail_state, .zone_id = zone_id};
	return page_word(&t) & page_tag_mask();
}

/*
 * Returns the index of the first of head[1..nr) that is not a tail like
 * want, or nr. The hottest loop of a fuzz run, and its reads stay inside
 * the memmap by construction (the block was checked to lie in the zone):
 * left out of ASan's instrumentation.
 */
MM_NO_COVERAGE MM_NO_ASAN static uint64_t first_bad_tail(const struct page *head, uint64_t nr,
							 uint32_t want, uint32_t mask)
{
	for (uint64_t i = 1; i < nr; i++) {
		uint32_t w;
		memcpy(&w, &head[i], sizeof(w)); /* page_word(), kept out of ASan */
		if ((w & mask) != want)
			return i;
	}
	return nr;
}

/* totals: zone_pcp_totals() if the caller has them already, or NULL */
MM_NO_COVERAGE static unsigned long check_counts(struct zone *zone, const struct pcp_totals *totals)
{
	unsigned long bad = 0;
	long sum = 0, isolated_pages = 0, highatomic_pages = 0;

	for (unsigned int o = 0; o <= zone->sim->max_order; o++) {
		const struct free_area *area = &zone->free_area[o];
		sum += (long)(area->nr_free << o);
		/*
		 * Isolated and highatomic blocks are rare: walking their lists
		 * stays cheap. A list longer than nr_free (a cycle a bug made)
		 * stops there, its count then off.
		 */
		unsigned long n = 0;
		for (uint32_t p = area->head[MIGRATE_ISOLATE]; p != PFN_NIL && n++ <= area->nr_free;
		     p = pfn_to_page(zone->sim, p)->lru.next)
			isolated_pages += 1L << o;
		n = 0;
		for (uint32_t p = area->head[MIGRATE_HIGHATOMIC];
		     p != PFN_NIL && n++ <= area->nr_free; p = pfn_to_page(zone->sim, p)->lru.next)
			highatomic_pages += 1L << o;
	}
	if (highatomic_pages != zone->nr_free_highatomic) {
		zone_report(zone, "INV-HIGHATOMIC-NRFREE", -1, highatomic_pages,
			    zone->nr_free_highatomic,
			    "nr_free_highatomic differs from the HIGHATOMIC lists' pages");
		bad++;
	}
	/*
	 * ISOLATE blocks are free but not in NR_FREE_PAGES (account_freepages).
	 * The exact count: the estimate drifts by design (INV-VMSTAT-*).
	 */
	long nr_free = zone->vm_stat_exact[NR_FREE_PAGES];
	if (sum - isolated_pages != nr_free) {
		zone_report(zone, "INV-BUDDY-NRFREE", -1, sum - isolated_pages, nr_free,
			    "exact NR_FREE_PAGES differs from the free lists' nr_free*2^order");
		bad++;
	}
	/*
	 * Pages move between the pcp lists and allocations under pcp locks,
	 * not zone->lock: the totals only add up when one thread drives.
	 */
	if (!zone->sim->serial)
		return bad;
	struct pcp_totals t = totals ? *totals : zone_pcp_totals(zone);
	long alloc = t.allocated, pcp = t.pcp;
	long managed = (long)zone_managed_pages(zone);
	/* Compaction's isolated free pages (cc->freepages) are off the lists but not allocated. */
	isolated_pages += zone->nr_isolated_free;
	if (nr_free + isolated_pages + pcp + alloc != managed) {
		zone_report(zone, "INV-ZONE-CONSERVATION", -1, managed,
			    nr_free + isolated_pages + pcp + alloc,
			    "free %ld + isolated %ld + pcp %ld + allocated %ld != managed", nr_free,
			    isolated_pages, pcp, alloc);
		bad++;
	}
	return bad;
}

/*
 * The cheap check, after every op on a zone: the free lists' counters add
 * up to NR_FREE_PAGES, and free + allocated == managed. O(orders), and in
 * serial runs one pass over the zone's pagesets.
 */
unsigned long _mm_buddy_check_counts(struct zone *zone)
{
	return check_counts(zone, NULL);
}

MM_SCAN static unsigned long check_free_lists(struct zone *zone, unsigned long *listed_pages)
{
	struct mm_sim *sim = zone->sim;
	unsigned long bad = 0;

	*listed_pages = 0;
	for (unsigned int o = 0; o <= sim->max_order; o++) {
		const struct free_area *area = &zone->free_area[o];
		unsigned long n = 0;
		for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
			uint32_t prev = PFN_NIL;
			for (uint32_t p = area->head[mt]; p != PFN_NIL;) {
				const struct page *page = pfn_to_page(sim, p);
				if (!zone_spans_pfn(zone, p) || page->state != PG_BUDDY ||
				    page->order != o || page->lru.prev != prev ||
				    page->zone_id != zone->zone_id) {
					zone_report(zone, "INV-BUDDY-LIST", p, (long long)o,
						    page->state == PG_BUDDY ? page->order : -1,
						    "free_area[%u] %s list holds a %s page", o,
						    mm_migratetype_name(mt),
						    _mm_page_state_name(page->state));
					return bad + 1;
				}
				int block_mt = get_pfnblock_migratetype(sim, p);
				if (block_mt != mt) {
					zone_report(zone, "INV-BUDDY-MT", p, mt, block_mt,
						    "order-%u block on the %s list sits in a %s "
						    "pageblock",
						    o, mm_migratetype_name(mt),
						    mm_migratetype_name(block_mt));
					bad++;
				}
				if (++n > area->nr_free) {
					zone_report(zone, "INV-BUDDY-LIST", p,
						    (long long)area->nr_free, (long long)n,
						    "free_area[%u] longer than nr_free", o);
					return bad + 1;
				}
				prev = p;
				p = page->lru.next;
			}
			if (area->tail[mt] != prev) {
				zone_report(zone, "INV-BUDDY-LIST", prev, prev, area->tail[mt],
					    "free_area[%u] %s tail pointer is stale", o,
					    mm_migratetype_name(mt));
				bad++;
			}
		}
		if (n != area->nr_free) {
			zone_report(zone, "INV-BUDDY-NRFREE", -1, (long long)n,
				    (long long)area->nr_free, "free_area[%u].nr_free", o);
			bad++;
		}
		*listed_pages += n << o;
	}
	return bad;
}

/* Returns true if the free block at pfn should have merged with its buddy. */
static MM_ALWAYS_INLINE bool mergeable_buddy(struct zone *zone, uint64_t pfn, unsigned int order)
{
	struct mm_sim *sim = zone->sim;
	uint64_t buddy_pfn = pfn ^ (UINT64_C(1) << order);

	if (order >= sim->max_order || !page_is_buddy(zone, buddy_pfn, order))
		return false;
	if (order >= sim->pageblock_order) {
		int mt = get_pfnblock_migratetype(sim, pfn);
		int bmt = get_pfnblock_migratetype(sim, buddy_pfn);
		if (mt != bmt && (!migratetype_is_mergeable(mt) || !migratetype_is_mergeable(bmt)))
			return false;
		/* Left apart by an unreserve (PB_APART): the kernel merges them at a later free. */
		if ((READ_ONCE(sim->pageblock_flags[pfn >> sim->pageblock_order]) |
		     READ_ONCE(sim->pageblock_flags[buddy_pfn >> sim->pageblock_order])) &
		    PB_APART)
			return false;
	}
	return true;
}

/*
 * The offline pages of a run of reserved and uninitialised pages: the
 * reserved ones in isolated pageblocks. offline_pages() leaves its blocks
 * so, and nothing else can: isolation refuses a block with a reserved or
 * uninitialised page (has_unmovable_pages()), and a boot-reserved page
 * lies in a block memmap_init() made MOVABLE.
 */
MM_SCAN static unsigned long offline_in_run(struct mm_sim *sim, uint64_t pfn, uint64_t run)
{
	unsigned long n = 0;

	for (uint64_t end = pfn + run, next; pfn < end; pfn = next) {
		next = pageblock_end_pfn(sim, pfn);
		if (next > end)
			next = end;
		if (get_pfnblock_migratetype(sim, pfn) != MIGRATE_ISOLATE)
			continue;
		for (uint64_t p = pfn; p < next; p++)
			n += pfn_to_page(sim, p)->state == PG_RESERVED;
	}
	return n;
}

/*
 * The full scan: every pfn of the zone is in exactly one block state, blocks
 * are aligned and inside the zone, no two free buddies could still merge,
 * and the lists and counters agree. free + pcp + allocated + reserved ==
 * spanned holds by the walk's own steps: each block or run it accepts
 * advances pfn by what it counts, and any other page ends the walk.
 * t: the zone's pcp totals, from _mm_pcp_check_zone()'s pass.
 */
MM_SCAN unsigned long _mm_buddy_check_zone(struct zone *zone, const struct pcp_totals *t)
{
	struct mm_sim *sim = zone->sim;
	uint64_t start = zone->zone_start_pfn, end = start + zone->spanned_pages;
	unsigned long bad = 0, nfree = 0, nalloc = 0, listed = 0, npcp = 0;
	unsigned long noffline = 0;
	const uint32_t reserved_word = tail_tag(PG_RESERVED, zone->zone_id);
	const uint32_t uninit_word = tail_tag(PG_UNINIT, zone->zone_id);

	for (uint64_t pfn = start; pfn < end;) {
		const struct page *page = pfn_to_page(sim, pfn);
		int tail_state;

		if (page->zone_id != zone->zone_id) {
			zone_report(zone, "INV-PAGE-ZONE", pfn, zone->zone_id, page->zone_id,
				    "page descriptor names another zone");
			return bad + 1;
		}
		switch (page->state) {
		case PG_RESERVED:
		case PG_UNINIT: {
			/* no block starts here: such a page has no order (buddy_order() is 0) */
			if (page->order) {
				zone_report(zone, "INV-PAGE-STATE", pfn, 0, page->order,
					    "a %s page with order %u",
					    _mm_page_state_name(page->state), page->order);
				return bad + 1;
			}
			/* a zone's reserved tail and deferred range are runs: one word a page */
			uint64_t run = 1;
			while (pfn + run < end && (page_word(page + run) == reserved_word ||
						   page_word(page + run) == uninit_word))
				run++;
			noffline += offline_in_run(sim, pfn, run);
			pfn += run;
			continue;
		}
		case PG_BUDDY:
		case PG_PCP:
			tail_state = PG_FREE_TAIL;
			break;
		case PG_ALLOC:
			tail_state = PG_ALLOC_TAIL;
			break;
		default:
			zone_report(zone, "INV-PAGE-STATE", pfn, PG_BUDDY, page->state,
				    "a %s page where a block must start",
				    _mm_page_state_name(page->state));
			return bad + 1;
		}
		unsigned int order = page->order;
		uint64_t nr = UINT64_C(1) << order;
		if (order > sim->max_order || (pfn & (nr - 1)) || pfn + nr > end) {
			zone_report(zone, "INV-BUDDY-ALIGN", pfn, 0, order,
				    "order-%u %s block misaligned or crossing the zone end", order,
				    _mm_page_state_name(page->state));
			return bad + 1;
		}
		uint32_t want = tail_tag(tail_state, zone->zone_id);
		uint64_t i = first_bad_tail(pfn_to_page(sim, pfn), nr, want, page_tag_mask());
		if (i < nr) {
			zone_report(zone, "INV-PAGE-STATE", pfn + i, tail_state,
				    pfn_to_page(sim, pfn + i)->state,
				    "inside the order-%u %s block at pfn %llu", order,
				    _mm_page_state_name(page->state), (unsigned long long)pfn);
			return bad + 1;
		}
		if (page->state == PG_BUDDY) {
			nfree += nr;
			/* Each pair once: from its lower half. */
			if (!(pfn & nr) && mergeable_buddy(zone, pfn, order)) {
				zone_report(
					zone, "INV-BUDDY-MERGED", pfn, order + 1, order,
					"free order-%u buddies at %llu and %llu were not merged",
					order, (unsigned long long)pfn,
					(unsigned long long)(pfn ^ nr));
				bad++;
			}
			if (order > sim->pageblock_order) {
				int mt = get_pfnblock_migratetype(sim, pfn);
				for (uint64_t b = 1; b < (nr >> sim->pageblock_order); b++) {
					uint64_t bp = pfn + (b << sim->pageblock_order);
					if (get_pfnblock_migratetype(sim, bp) != mt) {
						zone_report(zone, "INV-BUDDY-MT", bp, mt,
							    get_pfnblock_migratetype(sim, bp),
							    "pageblocks of one free order-%u block "
							    "differ in type",
							    order);
						bad++;
						break;
					}
				}
			}
		} else if (page->state == PG_PCP) {
			npcp += nr;
		} else {
			nalloc += nr;
		}
		pfn += nr;
	}

	bad += check_free_lists(zone, &listed);
	if (listed != nfree) {
		zone_report(zone, "INV-BUDDY-LIST", -1, (long long)nfree, (long long)listed,
			    "pages in free blocks vs pages on the free lists");
		bad++;
	}
	/* Pages compaction isolated look allocated (they are its own) but are not counted so. */
	if (nalloc != (unsigned long)(t->allocated + zone->nr_isolated_free)) {
		zone_report(zone, "INV-ZONE-CONSERVATION", -1, (long long)nalloc,
			    t->allocated + zone->nr_isolated_free,
			    "allocated pages in the memmap vs the zone's count");
		bad++;
	}
	if (npcp != (unsigned long)t->pcp) {
		zone_report(zone, "INV-PCP-COUNT", -1, (long long)npcp, t->pcp,
			    "pcp pages in the memmap vs the zone's pcp total");
		bad++;
	}
	if ((long)noffline != zone->offlined_pages) {
		zone_report(zone, "INV-ZONE-OFFLINE", -1, (long long)noffline, zone->offlined_pages,
			    "reserved pages of isolated pageblocks (offline) vs the zone's "
			    "offlined pages");
		bad++;
	}
	return bad + check_counts(zone, t);
}

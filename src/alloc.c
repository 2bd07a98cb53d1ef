/* SPDX-License-Identifier: MIT */
/*
 * alloc.c - the allocation and free entry points: gfp to zone, migratetype
 * and alloc flags, zonelists, get_page_from_freelist() with its watermark
 * checks, the fast path and the slow path's retry at the min mark, and the
 * page stamps that catch a block handed out twice. ALLOC_NOFRAGMENT and
 * ALLOC_KSWAPD in the fast path, the no-fallback retry and the boosted
 * watermark's kswapd wake in rmqueue() follow 6.10.
 */
#include "internal.h"

#include <string.h>

/* ------------------------------------------------------------------------
 * Zonelists
 * ---------------------------------------------------------------------- */

/*
 * models __build_all_zonelists() and build_zonelists(): the nodes in the
 * order find_next_best_node() picks (topology.c: the local node first
 * unless memoryless, then by distance); in each node, highest zone first.
 * Only zones with managed pages are listed.
 */
void _mm_build_zonelists(struct mm_sim *sim)
{
	unsigned int node_load[MM_MAX_NODES] = {0}, order[MM_MAX_NODES];

	for (unsigned int n = 0; n < sim->nr_nodes; n++) {
		struct pglist_data *pgdat = sim->node_data[n];
		unsigned int nr = 0, nr_local = 0;
		unsigned int nr_order = _mm_zonelist_node_order(sim, n, node_load, order);

		for (unsigned int k = 0; k < nr_order; k++) {
			struct pglist_data *other = sim->node_data[order[k]];
			for (int zt = MAX_NR_ZONES - 1; zt >= 0; zt--) {
				struct zone *z = &other->node_zones[zt];
				if (!managed_zone(z))
					continue;
				pgdat->zonelist[nr++] = z;
				if (order[k] == n)
					pgdat->zonelist_nofallback[nr_local++] = z;
			}
		}
		pgdat->zonelist[nr] = NULL;
		pgdat->zonelist_nofallback[nr_local] = NULL;
	}
}

/* ------------------------------------------------------------------------
 * gfp
 * ---------------------------------------------------------------------- */

const uint16_t mm_gfp_common[MM_NR_GFP_COMMON] = {
	MM_GFP_KERNEL,
	MM_GFP_KERNEL | MM_GFP_MOVABLE,
	MM_GFP_KERNEL | MM_GFP_RECLAIMABLE,
	MM_GFP_HIGHUSER_MOVABLE,
	MM_GFP_ATOMIC,
	MM_GFP_NOWAIT,
	MM_GFP_NOWAIT | MM_GFP_MOVABLE | MM_GFP_NOMEMALLOC,
	MM_GFP_KERNEL | MM_GFP_DMA32,
	MM_GFP_ATOMIC | MM_GFP_RECLAIMABLE,
	MM_GFP_KERNEL | MM_GFP_HIGH,
	MM_GFP_KERNEL | MM_GFP_THISNODE,
};

/* models gfp_zone() for a machine without ZONE_HIGHMEM */
static int gfp_zone(unsigned int gfp)
{
	if (gfp & MM_GFP_DMA)
		return ZONE_DMA;
	if (gfp & MM_GFP_DMA32)
		return ZONE_DMA32;
	if ((gfp & (MM_GFP_HIGHMEM | MM_GFP_MOVABLE)) == (MM_GFP_HIGHMEM | MM_GFP_MOVABLE))
		return ZONE_MOVABLE;
	return ZONE_NORMAL;
}

/* models gfp_migratetype() */
static int gfp_migratetype(unsigned int gfp)
{
	if (gfp & MM_GFP_MOVABLE)
		return MIGRATE_MOVABLE;
	if (gfp & MM_GFP_RECLAIMABLE)
		return MIGRATE_RECLAIMABLE;
	return MIGRATE_UNMOVABLE;
}

/* models gfp_to_alloc_flags() (6.3+), the slow path's flags */
static unsigned int gfp_to_alloc_flags(unsigned int gfp, unsigned int order)
{
	unsigned int alloc_flags = ALLOC_WMARK_MIN | ALLOC_CPUSET;

	if (gfp & MM_GFP_HIGH)
		alloc_flags |= ALLOC_MIN_RESERVE;
	if (gfp & MM_GFP_KSWAPD_RECLAIM)
		alloc_flags |= ALLOC_KSWAPD;
	if (!(gfp & MM_GFP_DIRECT_RECLAIM)) {
		/* Cannot sleep: allowed deeper, unless it asked not to be. */
		if (!(gfp & MM_GFP_NOMEMALLOC)) {
			alloc_flags |= ALLOC_NON_BLOCK;
			if (order > 0)
				alloc_flags |= ALLOC_HIGHATOMIC;
		}
		if (alloc_flags & ALLOC_MIN_RESERVE)
			alloc_flags &= ~(unsigned int)ALLOC_CPUSET;
	}
	return alloc_flags;
}

/* models __gfp_pfmemalloc_flags(): PF_MEMALLOC and OOM victims */
static unsigned int gfp_pfmemalloc_flags(unsigned int gfp)
{
	if (gfp & MM_GFP_NOMEMALLOC)
		return 0;
	if (gfp & MM_GFP_MEMALLOC)
		return ALLOC_NO_WATERMARKS;
	if (gfp & MM_GFP_OOM)
		return ALLOC_OOM;
	return 0;
}

/*
 * models alloc_flags_nofragment() (6.10, CONFIG_ZONE_DMA32): the fast
 * path's ALLOC_KSWAPD (the gfp bit itself) and ALLOC_NOFRAGMENT when the
 * preferred zone is Normal with DMA32 below it, assumed populated on a
 * single node: the first pass may not steal below a pageblock.
 */
unsigned int alloc_flags_nofragment(const struct zone *zone, unsigned int gfp)
{
	unsigned int alloc_flags = (gfp & MM_GFP_KSWAPD_RECLAIM) ? ALLOC_KSWAPD : 0;

	if (!zone || zone->type != ZONE_NORMAL)
		return alloc_flags;
	/*
	 * populated_zone(), by the managed count: memory hotplug changes
	 * present_pages under locks an allocation does not take (the model's
	 * online_pages() under threads), the managed count atomically.
	 */
	if (zone->sim->nr_nodes > 1 &&
	    !managed_zone(&zone->sim->node_data[zone->node]->node_zones[ZONE_DMA32]))
		return alloc_flags;
	return alloc_flags | ALLOC_NOFRAGMENT;
}

/* ------------------------------------------------------------------------
 * Taking a block from a zone
 * ---------------------------------------------------------------------- */

struct alloc_context {
	struct zone **zonelist;
	struct zone *preferred; /* ac->preferred_zoneref's zone, NULL: none eligible */
	int highest_zoneidx;
	int migratetype;
	unsigned int gfp;
	uint32_t refused_mask[(MM_MAX_ZONEREFS + 31) / 32]; /* zone ids the wmark refused */
	unsigned int refused_words; /* the mask's words the machine's zone ids use */
	long admit_drift;	    /* checker: the vmstat drift bound the admission relied on */
	bool admit_pending;	    /* checker: admitted, admit_drift not taken yet */
	/* checker: the boost the admission's mark held (a fallback steal may raise it after) */
	unsigned long admit_boost;
	/* checker: the flags this pass is entitled to, from the gfp table (oracle_gfp.c) */
	unsigned int oracle_flags;
};

/* models reserve_highatomic_pageblock(): keep a block for high-order atomics */
static void reserve_highatomic_pageblock(struct zone *zone, uint64_t pfn)
{
	struct mm_sim *sim = zone->sim;
	unsigned long max_managed = zone_managed_pages(zone) / 100 + (1UL << sim->pageblock_order);

	if (READ_ONCE(zone->nr_reserved_highatomic) >= max_managed)
		return;
	zone_lock(zone);
	if (zone->nr_reserved_highatomic >= max_managed)
		goto out;
	int mt = get_pfnblock_migratetype(sim, pfn);
	if (mt == MIGRATE_HIGHATOMIC || mt == MIGRATE_ISOLATE)
		goto out;
	uint64_t start = pageblock_start_pfn(sim, pfn);
	if (!zone_spans_pfn(zone, start) ||
	    !zone_spans_pfn(zone, start + (UINT64_C(1) << sim->pageblock_order) - 1))
		goto out;
	/* Refile the block's free pages, then flip its type. */
	for (uint64_t p = start; p < start + (UINT64_C(1) << sim->pageblock_order);) {
		struct page *page = pfn_to_page(sim, p);
		if (READ_ONCE(page->state) != PG_BUDDY) {
			p++;
			continue;
		}
		unsigned int o = page->order;
		if (o > sim->pageblock_order)
			goto out; /* a free block larger than the pageblock: leave it */
		p += UINT64_C(1) << o;
	}
	__move_freepages_block(zone, start, mt, MIGRATE_HIGHATOMIC);
	set_pageblock_migratetype(sim, start, MIGRATE_HIGHATOMIC);
	WRITE_ONCE(zone->nr_reserved_highatomic,
		   zone->nr_reserved_highatomic + (1UL << sim->pageblock_order));
out:
	zone_unlock(zone);
}

/*
 * Marks a block allocated and stamps every page. Other CPUs may read the
 * states while scanning a pageblock (prep_move_freepages_block), so the
 * writes are WRITE_ONCE.
 */
static void prep_new_page(struct zone *zone, struct page *page, unsigned int order, int mt,
			  uint32_t owner, uint32_t gen)
{
	uint64_t nr = UINT64_C(1) << order;

	for (uint64_t i = 0; i < nr; i++) {
		WRITE_ONCE(page[i].order, i ? 0 : (uint8_t)order);
		WRITE_ONCE(page[i].alloc_mt, (uint8_t)mt);
		page[i].spare = 0; /* a pcp page's cpu; for compaction, no PAGE_MIGRATE_BUSY */
		page[i].stamp.owner = owner;
		page[i].stamp.gen = gen;
		WRITE_ONCE(page[i].state, i ? PG_ALLOC_TAIL : PG_ALLOC);
	}
	zone_account_allocated(zone, (long)nr);
}

/*
 * The checker's count of the free highatomic pages: the HIGHATOMIC lists
 * walked, not nr_free_highatomic. Empty lists without a reserve: O(1).
 */
MM_NO_COVERAGE static long highatomic_free_pages(const struct zone *zone)
{
	long n = 0;

	if (!zone->nr_reserved_highatomic && !zone->nr_free_highatomic)
		return 0;
	for (unsigned int o = 0; o <= zone->sim->max_order; o++) {
		unsigned long k = 0; /* a cycle a bug made stops at nr_free */
		for (uint32_t p = zone->free_area[o].head[MIGRATE_HIGHATOMIC];
		     p != PFN_NIL && k++ <= zone->free_area[o].nr_free;
		     p = zone->sim->mem_map[p].lru.next)
			n += 1L << o;
	}
	return n;
}

/*
 * The mark an admission was held to: the boosted one, except an order-0
 * __GFP_HIGH request at min, which zone_watermark_fast() lets past the
 * boost (the kernel's rule, restated here).
 */
MM_NO_COVERAGE static long admission_mark(const struct zone *zone, unsigned int oracle_flags,
					  unsigned int order, unsigned long boost)
{
	int wmark = (int)(oracle_flags & ALLOC_WMARK_MASK);

	if (!order && (oracle_flags & ALLOC_MIN_RESERVE) && wmark == WMARK_MIN)
		return (long)READ_ONCE(zone->_watermark[WMARK_MIN]);
	return (long)(READ_ONCE(zone->_watermark[wmark]) + boost);
}

/*
 * The exact free pages an admitted allocation must leave, drift aside.
 * oracle_flags are the flags the gfp table entitles the pass to, not the
 * ones the allocator computed: a request handed reserves it may not use
 * is held to its own floor.
 */
MM_NO_COVERAGE static long admission_floor(const struct zone *zone, unsigned int oracle_flags,
					   int highest_zoneidx, unsigned int order,
					   unsigned long boost)
{
	long mark = admission_mark(zone, oracle_flags, order, boost);
	long floor = _mm_oracle_reserve_floor(mark, oracle_flags) +
		     (long)zone->lowmem_reserve[highest_zoneidx];

	/* The free highatomic pages are what the request may not use (c928807f6f6b). */
	if (!(oracle_flags & ALLOC_RESERVES))
		floor += highatomic_free_pages(zone);
	return floor;
}

/*
 * INV-WMARK-HIGHATOMIC under threads. Other CPUs move the estimate, the
 * reserve and the HIGHATOMIC lists between the refusal and any check, so
 * the same watermark check (same flags, the mark read again) is evaluated
 * again under zone->lock, where all of them hold still: if it refuses
 * now, the free pages less the free highatomic pages (the lists walked
 * under the lock) must not exceed the mark plus the lowmem reserve. The
 * lowmem reserve is written without the lock (the sysctl): a check it
 * moved under is not judged. Costs a lock hold per such refusal, in
 * zones with a reserve only.
 */
static void check_refusal_highatomic_locked(struct zone *zone, int highest_zoneidx,
					    unsigned int alloc_flags)
{
	zone_lock(zone);
	unsigned long mark = wmark_pages(zone, alloc_flags & ALLOC_WMARK_MASK);
	long reserve = (long)READ_ONCE(zone->lowmem_reserve[highest_zoneidx]);
	long floor = (long)mark + reserve;
	if (!zone_watermark_fast(zone, 0, mark, highest_zoneidx, alloc_flags) &&
	    reserve == (long)READ_ONCE(zone->lowmem_reserve[highest_zoneidx])) {
		long usable = zone_page_state(zone, NR_FREE_PAGES) - highatomic_free_pages(zone);
		if (usable > floor)
			zone_report(
				zone, "INV-WMARK-HIGHATOMIC", -1, floor, usable,
				"under zone->lock an order-0 request is refused with %ld usable "
				"free pages above the mark %ld (reserve %lu)",
				usable, floor, zone->nr_reserved_highatomic);
	}
	zone_unlock(zone);
}

/*
 * INV-WMARK-HIGHATOMIC: an order-0 request the watermark check refused had
 * no more free pages, by the estimate it read, than the mark, the lowmem
 * reserve and the free highatomic pages it may not use (the lists walked):
 * a refusal for highatomic pages that are not free (c928807f6f6b's
 * spurious OOM) fails it. Only with a highatomic reserve; under threads
 * judged again under zone->lock (above).
 */
MM_NO_COVERAGE static void check_refusal_highatomic(struct zone *zone, unsigned int order,
						    unsigned long mark, int highest_zoneidx,
						    unsigned int alloc_flags)
{
	long free_pages, floor;

	if (order || !READ_ONCE(zone->nr_reserved_highatomic) ||
	    (alloc_flags & (ALLOC_RESERVES | ALLOC_NO_WATERMARKS)))
		return;
	if (!zone->sim->serial) {
		check_refusal_highatomic_locked(zone, highest_zoneidx, alloc_flags);
		return;
	}
	free_pages = zone_page_state(zone, NR_FREE_PAGES) - highatomic_free_pages(zone);
	floor = (long)mark + (long)zone->lowmem_reserve[highest_zoneidx];
	if (free_pages > floor)
		zone_report(zone, "INV-WMARK-HIGHATOMIC", -1, floor, free_pages,
			    "order-0 request refused with %ld usable free pages above the mark "
			    "%ld (reserve %lu)",
			    free_pages, floor, zone->nr_reserved_highatomic);
}

/*
 * models unreserve_highatomic_pageblock() (6.10, with 6.12's size for a
 * multi-block buddy): the first free
 * HIGHATOMIC block of a zone of the zonelist goes back to the request's
 * migratetype with its pageblock(s), and the reserve shrinks by a
 * pageblock. Always forced, as should_reclaim_retry() calls it before
 * OOM: the unforced call, which keeps a zone's last reserved pageblock,
 * follows a direct reclaim that made progress, and the model's makes none.
 */
static bool unreserve_highatomic_pageblock(struct mm_sim *sim, const struct alloc_context *ac)
{
	uint64_t nr_pb = UINT64_C(1) << sim->pageblock_order;

	for (struct zone **zp = ac->zonelist; *zp; zp++) {
		struct zone *zone = *zp;

		if ((int)zone->type > ac->highest_zoneidx)
			continue;
		zone_lock(zone);
		for (unsigned int o = 0; o <= sim->max_order; o++) {
			uint32_t pfn = zone->free_area[o].head[MIGRATE_HIGHATOMIC];
			uint64_t start = pageblock_start_pfn(sim, pfn);

			if (pfn == PFN_NIL)
				continue;
			int mt = get_pfnblock_migratetype(sim, pfn);
			/*
			 * A free block can span several reserved pageblocks: all of
			 * them go back (6.12's max(pageblock, 1 << order); 6.10 took
			 * one pageblock off and left the count above the blocks).
			 */
			uint64_t size = (UINT64_C(1) << o) > nr_pb ? UINT64_C(1) << o : nr_pb;
			/* WRITE_ONCE: reserve_highatomic_pageblock() reads it unlocked. */
			if (mt == MIGRATE_HIGHATOMIC)
				WRITE_ONCE(zone->nr_reserved_highatomic,
					   zone->nr_reserved_highatomic -
						   (zone->nr_reserved_highatomic < size
							    ? zone->nr_reserved_highatomic
							    : (unsigned long)size));
			if (o < sim->pageblock_order) {
				/* Reserving it succeeded, so it does not cross the zone edge. */
				__move_freepages_block(zone, start, mt, ac->migratetype);
				set_pageblock_migratetype(sim, start, ac->migratetype);
			} else {
				/*
				 * move_to_free_list() of the block alone, not freed again:
				 * a buddy it could merge with now stays apart (6.10-6.12).
				 */
				move_free_block_apart(zone, pfn, o, mt, ac->migratetype);
			}
			zone_unlock(zone);
			return true;
		}
		zone_unlock(zone);
	}
	return false;
}

/*
 * What the estimate the admission read may be off by: the CPUs' diffs,
 * each within the threshold of its last update. rmqueue() takes it before
 * the buddy path, where nothing has changed since the admission, and
 * before the allocation's own update folds a diff under a newer, smaller
 * threshold. O(CPUs) only when the block would leave the floor behind.
 */
MM_NO_COVERAGE static long admission_drift(const struct zone *zone, unsigned int order,
					   const struct alloc_context *ac)
{
	if (!zone->sim->serial ||
	    zone->vm_stat_exact[NR_FREE_PAGES] - (1L << order) >=
		    admission_floor(zone, ac->oracle_flags, ac->highest_zoneidx, order,
				    ac->admit_boost))
		return 0;
	return _mm_vmstat_drift_bound(zone, NR_FREE_PAGES);
}

/*
 * The admission invariant: an allocation that passed the watermark check
 * leaves exact free pages at least at the reserve floor, less the drift
 * its estimate was allowed. Races between CPUs legitimately break it, so
 * only serial runs check it.
 *
 * --strict-watermarks adds the property the kernel does not promise: no
 * ordinary allocation takes exact free pages below the min mark's reserve
 * floor, drift or not. Its violation names the machine's drift bound, a
 * configuration finding rather than a bug.
 */
MM_NO_COVERAGE static void check_admission(struct zone *zone, unsigned int order,
					   unsigned int alloc_flags, const struct alloc_context *ac)
{
	unsigned int oracle_flags = ac->oracle_flags;

	if (!zone->sim->serial || (oracle_flags & ALLOC_NO_WATERMARKS))
		return;
	long free_after = zone->vm_stat_exact[NR_FREE_PAGES];
	long floor =
		admission_floor(zone, oracle_flags, ac->highest_zoneidx, order, ac->admit_boost) -
		ac->admit_drift;
	if (free_after < floor)
		zone_report(zone, "INV-WMARK-MIN", -1, floor, free_after,
			    "allocation with flags %#x left exact free pages below the reserve "
			    "floor less the vmstat drift bound %ld",
			    alloc_flags, ac->admit_drift);
	if (!zone->sim->strict_watermarks)
		return;
	unsigned int min_flags = (oracle_flags & ~(unsigned int)ALLOC_WMARK_MASK) | ALLOC_WMARK_MIN;
	long strict = admission_floor(zone, min_flags, ac->highest_zoneidx, order, ac->admit_boost);
	if (free_after < strict)
		zone_report(
			zone, "INV-WMARK-STRICT", -1, strict, free_after,
			"exact free pages below the min reserve floor: %u CPUs online, "
			"vmstat drift bound %ld, low - min %ld; the kernel's thresholds allow it",
			mm_num_online_cpus(zone->sim), _mm_vmstat_drift_bound(zone, NR_FREE_PAGES),
			(long)wmark_pages(zone, WMARK_LOW) - (long)wmark_pages(zone, WMARK_MIN));
}

/*
 * The same invariant under threads. Other CPUs take pages between the
 * watermark check and this one, so the admission is evaluated again under
 * zone->lock, from the estimate, the exact count and the marks the lock
 * holds still (every NR_FREE_PAGES diff changes under it): an estimate at
 * low + 2^order or more must find exact free pages at min + 2^order or
 * more while the pressure thresholds bound the diffs. Costs a lock hold
 * per admission at low, and only while kswapd is in its pressure window.
 */
MM_NO_COVERAGE void _mm_check_admission_under_pressure_locked(struct zone *zone, unsigned int order)
{
	if (!READ_ONCE(zone->sim->node_data[zone->node]->kswapd.pressure))
		return;
	zone_lock(zone);
	long boost = (long)READ_ONCE(zone->watermark_boost);
	long low = (long)zone->_watermark[WMARK_LOW] + boost;
	long want = (long)zone->_watermark[WMARK_MIN] + boost + (1L << order);
	long est = zone_page_state(zone, NR_FREE_PAGES);
	long exact = zone->vm_stat_exact[NR_FREE_PAGES];
	if (est - (1L << order) >= low && exact < want && _mm_vmstat_pressure_in_force_locked(zone))
		zone_report(zone, "INV-VMSTAT-PRESSURE", -1, want, exact,
			    "under zone->lock the estimate %ld admits at low (%ld) under pressure "
			    "thresholds with exact free pages below min + 2^%u",
			    est, low, order);
	zone_unlock(zone);
}

/*
 * Seed 002's invariant: once kswapd's pressure thresholds bound every
 * CPU's diff and low - min leaves each CPU a page, an allocation the
 * estimate admits at low finds exact free pages at min + its size or more.
 * O(1) unless it fails; then the precondition's O(CPUs) walk decides.
 */
MM_NO_COVERAGE static void check_admission_under_pressure(struct zone *zone, unsigned int order,
							  unsigned int alloc_flags)
{
	if (!zone->sim->serial) {
		if ((alloc_flags & (ALLOC_WMARK_MASK | ALLOC_NO_WATERMARKS)) == ALLOC_WMARK_LOW)
			_mm_check_admission_under_pressure_locked(zone, order);
		return;
	}
	/* The fast path: the low mark and no reserves (its KSWAPD and NOFRAGMENT bits aside). */
	if ((alloc_flags & ~(unsigned int)(ALLOC_KSWAPD | ALLOC_NOFRAGMENT)) != ALLOC_WMARK_LOW)
		return;
	long exact = zone->vm_stat_exact[NR_FREE_PAGES];
	long want = (long)wmark_pages(zone, WMARK_MIN) + (1L << order);
	if (exact < want && _mm_vmstat_pressure_in_force(zone))
		zone_report(zone, "INV-VMSTAT-PRESSURE", -1, want, exact,
			    "admitted at low on the estimate %ld under pressure thresholds with "
			    "exact free pages below min + 2^%u",
			    zone_page_state(zone, NR_FREE_PAGES), order);
}

/* models rmqueue_buddy() */
static struct page *rmqueue_buddy(struct zone *zone, unsigned int order, unsigned int alloc_flags,
				  struct alloc_context *ac, uint32_t owner, uint32_t gen)
{
	struct page *page = NULL;

	zone_lock(zone);
	if (alloc_flags & ALLOC_HIGHATOMIC)
		page = __rmqueue_smallest(zone, order, MIGRATE_HIGHATOMIC);
	if (!page) {
		page = __rmqueue(zone, order, ac->migratetype, alloc_flags);
		/* Failing now is worse than failing a high-order atomic later. */
		if (!page && (alloc_flags & (ALLOC_OOM | ALLOC_NON_BLOCK)))
			page = __rmqueue_smallest(zone, order, MIGRATE_HIGHATOMIC);
	}
	if (page) {
		prep_new_page(zone, page, order, ac->migratetype, owner, gen);
		_mm_vmstat_note_free(zone);
		check_admission(zone, order, alloc_flags, ac);
	}
	zone_unlock(zone);
	return page;
}

/*
 * models rmqueue(): small orders through this CPU's pcp list, the rest from
 * the buddy; then the kswapd wake a boost asked for (ZONE_BOOSTED_WATERMARK),
 * which only a caller that may wake kswapd (ALLOC_KSWAPD) delivers.
 */
static struct page *rmqueue(struct zone *zone, unsigned int order, unsigned int alloc_flags,
			    struct alloc_context *ac, uint32_t owner, uint32_t gen)
{
	struct page *page = NULL;

	if (pcp_allowed_order(zone->sim, order) && zone->per_cpu_pageset) {
		page = rmqueue_pcplist(zone, order, ac->migratetype, alloc_flags);
		if (page)
			prep_new_page(zone, page, order, ac->migratetype, owner, gen);
	}
	if (!page) {
		/*
		 * Only the buddy path checks the admission. A pcp attempt that
		 * returned nothing took nothing either, so the drift taken now
		 * is the one at the admission.
		 */
		if (ac->admit_pending)
			ac->admit_drift = admission_drift(zone, order, ac);
		page = rmqueue_buddy(zone, order, alloc_flags, ac, owner, gen);
	}
	/* Test, then clear: no atomic read-modify-write in the common case. */
	if ((alloc_flags & ALLOC_KSWAPD) &&
	    (atomic_load_explicit(&zone->flags, memory_order_relaxed) & ZONE_BOOSTED_WATERMARK)) {
		atomic_fetch_and_explicit(&zone->flags, ~ZONE_BOOSTED_WATERMARK,
					  memory_order_relaxed);
		wakeup_kswapd(zone, 0, 0, (int)zone->type);
	}
	return page;
}

static void mark_refused(struct alloc_context *ac, const struct zone *z)
{
	ac->refused_mask[z->zone_id / 32] |= 1u << (z->zone_id % 32);
}

static bool was_refused(const struct alloc_context *ac, const struct zone *z)
{
	return ac->refused_mask[z->zone_id / 32] & (1u << (z->zone_id % 32));
}

/* The zone allocations start from (ac->preferred_zoneref): the first the request may use. */
static struct zone *preferred_zone(const struct alloc_context *ac)
{
	for (struct zone **zp = ac->zonelist; *zp; zp++)
		if ((int)(*zp)->type <= ac->highest_zoneidx)
			return *zp;
	return NULL;
}

/*
 * The no-fallback pass gave up (every local zone tried, or the next zone is
 * remote): the retry without ALLOC_NOFRAGMENT. The checker first confirms
 * that no zone of the pass could have served the request without
 * fragmenting (INV-NOFRAG-RETRY).
 */
static unsigned int nofrag_retry(struct mm_sim *sim, unsigned int order, unsigned int alloc_flags,
				 const struct alloc_context *ac)
{
	if (sim->serial && ac->preferred)
		_mm_check_nofrag_retry(sim, ac->zonelist, ac->highest_zoneidx, ac->preferred->node,
				       order, ac->migratetype, ac->refused_mask);
	return alloc_flags & ~(unsigned int)ALLOC_NOFRAGMENT;
}

/*
 * models get_page_from_freelist() (6.10) without cpusets, dirty limits or
 * node reclaim, with ALLOC_NOFRAGMENT's retry: a first pass that may not
 * fragment, over the local node's zones, then the whole zonelist again
 * without the restriction (locality before fragmentation avoidance). A
 * pass in which the watermark refused every zone it tried would only be
 * repeated with the same refusals (nothing changed, and the marks do not
 * depend on the flag): the model goes on without repeating it.
 */
static struct page *get_page_from_freelist(struct mm_sim *sim, unsigned int order,
					   unsigned int alloc_flags, struct alloc_context *ac,
					   uint32_t owner, uint32_t gen)
{
	bool no_fallback, reached; /* reached: a zone's lists were tried this pass */

retry:
	no_fallback = alloc_flags & ALLOC_NOFRAGMENT;
	reached = false;
	/*
	 * The machine's words only, and the first by a store: a memset of the
	 * 64-node mask per pass was an ASan range check per allocation.
	 */
	ac->refused_mask[0] = 0;
	for (unsigned int w = 1; w < ac->refused_words; w++)
		ac->refused_mask[w] = 0;
	for (struct zone **zp = ac->zonelist; *zp; zp++) {
		struct zone *zone = *zp;
		if ((int)zone->type > ac->highest_zoneidx)
			continue;
		if (no_fallback && sim->nr_nodes > 1 && zone->node != ac->preferred->node) {
			alloc_flags = nofrag_retry(sim, order, alloc_flags, ac);
			if (reached)
				goto retry;
			no_fallback =
				false; /* the local zones would refuse again: go on from here */
		}

		/*
		 * Below the high mark the pcp lists shrink on free (nr_pcp_high);
		 * detected here, off the hotter free path. A zone above it is
		 * above every lower mark too: the kernel goes straight to
		 * try_this_zone, without the allocation's own check.
		 */
		bool above_high = false;
		if (!(atomic_load_explicit(&zone->flags, memory_order_relaxed) & ZONE_BELOW_HIGH)) {
			above_high = zone_watermark_fast(zone, order, wmark_pages(zone, WMARK_HIGH),
							 ac->highest_zoneidx, alloc_flags);
			if (!above_high)
				atomic_fetch_or_explicit(&zone->flags, ZONE_BELOW_HIGH,
							 memory_order_relaxed);
		}

		unsigned long mark = wmark_pages(zone, alloc_flags & ALLOC_WMARK_MASK);
		ac->admit_drift = 0;
		ac->admit_pending = false;
		ac->admit_boost = READ_ONCE(zone->watermark_boost);
		if (!above_high &&
		    !zone_watermark_fast(zone, order, mark, ac->highest_zoneidx, alloc_flags)) {
			count_event(sim, wmark_refused);
			check_refusal_highatomic(zone, order, mark, ac->highest_zoneidx,
						 alloc_flags);
			if (!(alloc_flags & ALLOC_NO_WATERMARKS)) {
				mark_refused(ac, zone);
				if (!(sim->policy.wmark_ignore_min &&
				      (alloc_flags & ALLOC_WMARK_MASK) == WMARK_MIN))
					continue;
			}
		} else {
			check_admission_under_pressure(zone, order, alloc_flags);
			ac->admit_pending = true;
		}

		reached = true;
		struct page *page = rmqueue(zone, order, alloc_flags, ac, owner, gen);
		if (page) {
			if (was_refused(ac, zone) && !(alloc_flags & ALLOC_NO_WATERMARKS))
				zone_report(zone, "INV-WMARK-REFUSED", page_to_pfn(sim, page), 0, 1,
					    "took an order-%u block from a zone the watermark "
					    "check refused (flags %#x)",
					    order, alloc_flags);
			if ((alloc_flags & ALLOC_HIGHATOMIC) && order > 0)
				reserve_highatomic_pageblock(zone, page_to_pfn(sim, page));
			return page;
		}
	}
	/* A single node can be fragmented in every zone: try again, fragmenting. */
	if (no_fallback && reached) {
		alloc_flags = nofrag_retry(sim, order, alloc_flags, ac);
		goto retry;
	}
	return NULL;
}

/*
 * models __alloc_pages_direct_compact() at each priority the slow path
 * escalates through (async, sync light, then full; a costly order stops
 * at sync light: should_compact_retry(), 6.7), seed 001. Only for a
 * request that asked for it (MM_GFP_COMPACT): plain allocations keep the
 * behaviour the other fuzz targets and traces rely on.
 */
static struct page *alloc_pages_direct_compact(struct mm_sim *sim, unsigned int order,
					       unsigned int alloc_flags, struct alloc_context *ac,
					       uint32_t owner, uint32_t gen)
{
	for (int prio = MM_COMPACT_PRIO_ASYNC; prio >= compact_min_priority(order); prio--) {
		struct page *page;

		if (try_to_compact_pages(sim, order, alloc_flags, ac->zonelist, ac->highest_zoneidx,
					 ac->migratetype, prio) == MM_COMPACT_SKIPPED)
			continue;
		page = get_page_from_freelist(sim, order, alloc_flags, ac, owner, gen);
		compaction_direct_outcome(sim, page ? page_zone(sim, page) : NULL, order);
		if (page)
			return page;
	}
	return NULL;
}

/* models __alloc_pages(): the fast path at low, then the slow path at min */
long long mm_alloc_pages(struct mm_sim *sim, unsigned int order, unsigned int gfp,
			 int preferred_nid, uint32_t owner, uint32_t *gen)
{
	struct alloc_context ac; /* field by field: no memset of the whole refused mask */
	struct page *page;
	int cpu = smp_processor_id();

	if (order > sim->max_order)
		return -1;
	if (preferred_nid < 0 || (unsigned int)preferred_nid >= sim->nr_nodes)
		preferred_nid = mm_cpu_to_node(sim, cpu) < 0 ? 0 : mm_cpu_to_node(sim, cpu);
	struct pglist_data *pgdat = sim->node_data[preferred_nid];
	ac.zonelist = (gfp & MM_GFP_THISNODE) ? pgdat->zonelist_nofallback : pgdat->zonelist;
	ac.highest_zoneidx = gfp_zone(gfp);
	ac.migratetype = gfp_migratetype(gfp);
	ac.gfp = gfp;
	ac.refused_words = (sim->nr_nodes * MAX_NR_ZONES + 31) / 32;
	ac.admit_drift = 0;
	ac.admit_pending = false;
	ac.admit_boost = 0;

	/* A generation unique per (CPU, allocation): the CPU's own counter and its number. */
	struct mm_cpu_stats *cs = this_cpu_stats(sim);
	unsigned int seq = atomic_load_explicit(&cs->gen_seq, memory_order_relaxed) + 1;
	atomic_store_explicit(&cs->gen_seq, seq, memory_order_relaxed);
	*gen = seq << 8 | ((unsigned int)cpu & 0xff);
	/*
	 * The fast path: the low mark, no reserves (prepare_alloc_pages()),
	 * and no fragmenting fallback on the first pass.
	 */
	ac.oracle_flags = ALLOC_WMARK_LOW;
	ac.preferred = preferred_zone(&ac);
	page = get_page_from_freelist(sim, order,
				      ALLOC_WMARK_LOW | alloc_flags_nofragment(ac.preferred, gfp),
				      &ac, owner, *gen);
	if (!page) {
		unsigned int alloc_flags = gfp_to_alloc_flags(gfp, order);
		unsigned int reserve_flags = gfp_pfmemalloc_flags(gfp);

		ac.oracle_flags = _mm_oracle_alloc_flags(gfp, order);

		/* __alloc_pages_slowpath(): kswapd first, then the retry at min */
		if (alloc_flags & ALLOC_KSWAPD) {
			wake_all_kswapds(sim, order, gfp, ac.zonelist, ac.highest_zoneidx);
			_mm_derived_check_kswapd_wakes(sim, ac.zonelist, order, ac.highest_zoneidx);
		}

		if (reserve_flags)
			alloc_flags = reserve_flags | (alloc_flags & ALLOC_KSWAPD);
		_mm_oracle_check_alloc(sim, gfp, order, alloc_flags, ac.highest_zoneidx,
				       ac.migratetype);
		page = get_page_from_freelist(sim, order, alloc_flags, &ac, owner, *gen);
		if (!page && order && (gfp & MM_GFP_COMPACT) && (gfp & MM_GFP_DIRECT_RECLAIM) &&
		    !reserve_flags && compaction_possible(sim))
			page = alloc_pages_direct_compact(sim, order, alloc_flags, &ac, owner,
							  *gen);
		/*
		 * should_reclaim_retry() before OOM: reclaim made no progress, so
		 * exhaust the highatomic reserve, a block per retry. Costly orders
		 * without __GFP_RETRY_MAYFAIL give up before it. Each unreserve
		 * retypes a pageblock, so no run retries more often than the machine
		 * has pageblocks; the bound ends the loop where free lists a bug
		 * corrupted keep a HIGHATOMIC head that no retype takes off.
		 */
		uint64_t retries = (sim->max_pfn >> sim->pageblock_order) + 1;
		while (!page && (gfp & MM_GFP_DIRECT_RECLAIM) && order <= PAGE_ALLOC_COSTLY_ORDER &&
		       retries-- && unreserve_highatomic_pageblock(sim, &ac))
			page = get_page_from_freelist(sim, order, alloc_flags, &ac, owner, *gen);
	}
	if (!page) {
		count_event(sim, alloc_fail);
		return -1;
	}
	count_event(sim, alloc_success);
	return (long long)page_to_pfn(sim, page);
}

/* ------------------------------------------------------------------------
 * Freeing
 * ---------------------------------------------------------------------- */

/*
 * Verifies the block is allocated as (order, owner, gen). Only reads: other
 * CPUs scanning a pageblock under zone->lock may look at these pages.
 */
static bool free_pages_prepare(struct mm_sim *sim, uint64_t pfn, unsigned int order, uint32_t owner,
			       uint32_t gen)
{
	struct page *head = pfn_to_page(sim, pfn);
	struct zone *zone = page_zone(sim, head);

	/* an order past max_order is no head's: reported here, with the head's order */
	if (head->state != PG_ALLOC || head->order != order) {
		zone_report(zone, "INV-FREE-BAD", (long long)pfn, order,
			    head->state == PG_ALLOC ? head->order : -1,
			    "freeing an order-%u block whose head is %s", order,
			    _mm_page_state_name(head->state));
		return false;
	}
	for (uint64_t i = 0, nr = UINT64_C(1) << order; i < nr; i++) {
		struct page *page = head + i;
		if (page->stamp.owner != owner || page->stamp.gen != gen ||
		    page->state != (i ? PG_ALLOC_TAIL : PG_ALLOC)) {
			zone_report(zone, "INV-PAGE-STAMP", (long long)(pfn + i), gen,
				    page->stamp.gen,
				    "page %llu of the block freed by owner %u holds owner %u (%s): "
				    "handed out twice",
				    (unsigned long long)i, owner, page->stamp.owner,
				    _mm_page_state_name(page->state));
			return false;
		}
	}
	return true;
}

/*
 * models free_one_page() with split_large_buddy(): a block larger than a
 * pageblock is freed a pageblock at a time, each with its own type.
 */
void free_one_page(struct zone *zone, uint64_t pfn, unsigned int order)
{
	struct mm_sim *sim = zone->sim;
	unsigned int chunk = order > sim->pageblock_order ? sim->pageblock_order : order;
	uint64_t end = pfn + (UINT64_C(1) << order);

	bool locked = !sim->policy.free_without_zone_lock;

	if (locked)
		zone_lock(zone);
	zone_account_allocated(zone, -(1L << order));
	/* Tails of allocations have order 0 already; __free_one_page makes heads buddies. */
	for (uint64_t p = pfn; p < end; p++)
		WRITE_ONCE(pfn_to_page(sim, p)->state, PG_FREE_TAIL);
	for (; pfn < end; pfn += UINT64_C(1) << chunk) {
		WRITE_ONCE(pfn_to_page(sim, pfn)->order, 0);
		__free_one_page(zone, pfn, chunk, get_pfnblock_migratetype(sim, pfn), FPI_NONE);
	}
	if (locked)
		zone_unlock(zone);
}

/*
 * The free after free_pages_prepare(): a block of a pcp order goes to this
 * CPU's list (free_unref_page()), any other, or any block of a zone whose
 * lists are off, straight to the buddy.
 */
void free_frozen_pages(struct zone *zone, uint64_t pfn, unsigned int order)
{
	if (pcp_allowed_order(zone->sim, order) && zone->per_cpu_pageset)
		free_unref_page(zone->sim, pfn, order);
	else
		free_one_page(zone, pfn, order);
}

void mm_free_pages(struct mm_sim *sim, uint64_t pfn, unsigned int order, uint32_t owner,
		   uint32_t gen)
{
	if (pfn >= sim->max_pfn || pfn_to_page(sim, pfn)->state <= PG_RESERVED) {
		mm_report_violation(sim, "INV-FREE-BAD", -1, -1, smp_processor_id(), (long long)pfn,
				    order, -1, "freeing a pfn that no zone hands out");
		return;
	}
	struct zone *zone = page_zone(sim, pfn_to_page(sim, pfn));

	/* The owner frees its own block: the stamp is stable without the lock. */
	if (!free_pages_prepare(sim, pfn, order, owner, gen))
		return;
	count_event(sim, frees);
	free_frozen_pages(zone, pfn, order);
}

/* SPDX-License-Identifier: MIT */
/*
 * pcp.c - the per-cpu page lists: small blocks (orders 0..3) freed to and
 * allocated from a per-cpu, per-zone cache so that zone->lock is taken
 * once per batch instead of once per page. Sizing (batch, high_min,
 * high_max) follows zone_batchsize()/zone_highsize() (6.7+); the runtime
 * high auto-tunes between them (nr_pcp_high, nr_pcp_alloc, nr_pcp_free).
 * Seed 000 is about this sizing going stale after deferred init.
 * decay_pcp_high() (vmstat_update's decay of an idle high) follows 6.7,
 * unchanged through 6.15. PCPF_FREE_HIGH_BATCH (a CPU whose cache slice
 * holds more than 3 batches keeps a batch of high-order frees before a
 * free_high flush) follows 6.10: set per CPU by setup_pcp_cacheinfo(cpu)
 * from cacheinfo_cpu_online(), the 3 * batch rule since 6.7. The
 * invariants are at the end of the file.
 */
#include "internal.h"

#include <string.h>

static inline int order_to_pindex(int mt, unsigned int order)
{
	return (int)order * MIGRATE_PCPTYPES + mt;
}

static MM_ALWAYS_INLINE unsigned int pindex_to_order(int pindex)
{
	return (unsigned int)(pindex / MIGRATE_PCPTYPES);
}

static inline struct per_cpu_pages *zone_pcp(const struct zone *zone, unsigned int cpu)
{
	return &zone->per_cpu_pageset[cpu];
}

/* pcp->lock of the kernel */
static void pcp_lock(struct zone *zone, unsigned int cpu)
{
	spin_lock(&zone->pcp_locks[cpu].lock);
}

static void pcp_unlock(struct zone *zone, unsigned int cpu)
{
	spin_unlock(&zone->pcp_locks[cpu].lock);
}

/* ------------------------------------------------------------------------
 * Sizing policies
 * ---------------------------------------------------------------------- */

static unsigned long rounddown_pow_of_two(unsigned long n)
{
	unsigned long r = 1;

	while (r <= n / 2)
		r <<= 1;
	return r;
}

/*
 * models zone_batchsize(): about 0.1% of the zone or 1MB, whichever is
 * smaller, a quarter of it, clamped to 2^n - 1 (cache aliasing).
 *
 *   managed pages    batch
 *   < 8192           1 (0 before the caller's max(1, .))
 *   16384            3
 *   65536            15
 *   >= 262144        63
 */
int default_zone_batchsize(unsigned long managed)
{
	unsigned long batch = managed >> 10;

	if (batch > (1UL << 20) >> MM_PAGE_SHIFT)
		batch = (1UL << 20) >> MM_PAGE_SHIFT;
	batch /= 4;
	if (batch < 1)
		batch = 1;
	return (int)rounddown_pow_of_two(batch + batch / 2) - 1;
}

/*
 * models zone_highsize() (6.7+): total_pages (the low watermark, or
 * managed / fraction) split over the CPUs local to the zone, at least
 * 4 * batch.
 */
int default_zone_highsize(unsigned long total_pages, int batch, int nr_split_cpus)
{
	int high = (int)(total_pages / (unsigned long)nr_split_cpus);

	return high > batch << 2 ? high : batch << 2;
}

/* CPUs whose pcp lists the zone's high is split over: the node's online CPUs. */
static int nr_split_cpus(const struct zone *zone, int onlining)
{
	const struct mm_sim *sim = zone->sim;
	/* the kernel's cpu_online argument: a CPU coming up counts */
	int n = onlining +
		(int)atomic_load_explicit(&sim->node_nr_online[zone->node], memory_order_acquire);

	return n ? n : (int)mm_num_online_cpus(sim);
}

MM_SCAN_INLINE static inline void pageset_update(struct per_cpu_pages *pcp, int high_min,
						 int high_max, int batch)
{
	WRITE_ONCE(pcp->batch, batch);
	WRITE_ONCE(pcp->high_min, high_min);
	WRITE_ONCE(pcp->high_max, high_max);
}

MM_SCAN static void __zone_set_pageset_high_and_batch(struct zone *zone, int high_min, int high_max,
						      int batch)
{
	/* every CPU's sizing at once: pcp_batch_high_lock keeps another resize out */
	lockdep_assert_held(&zone->sim->pcp_batch_high_lock);
	for (unsigned int cpu = 0; cpu < zone->sim->nr_cpus; cpu++)
		pageset_update(&zone->per_cpu_pageset[cpu], high_min, high_max, batch);
}

/*
 * Computes (high_min, high_max, batch) from the zone's current values, the
 * low mark with boost (low_wmark_pages() includes it: a sizing while
 * boosted keeps the boost until the next one).
 */
static void pcp_sizing(const struct zone *zone, int cpu_online, unsigned long boost, int *high_min,
		       int *high_max, int *batch)
{
	const struct mm_sim *sim = zone->sim;
	unsigned int fraction = sim->percpu_pagelist_high_fraction;
	unsigned long managed = zone_managed_pages(zone);
	int split = nr_split_cpus(zone, cpu_online);
	int b = sim->policy.zone_batchsize(managed);

	*batch = b > 1 ? b : 1;
	if (fraction) {
		/* Tuned by hand: no auto-tuning between min and max. */
		*high_min = sim->policy.zone_highsize(managed / fraction, *batch, split);
		*high_max = *high_min;
	} else {
		*high_min = sim->policy.zone_highsize(
			READ_ONCE(zone->_watermark[WMARK_LOW]) + boost, *batch, split);
		*high_max = sim->policy.zone_highsize(managed / MIN_PERCPU_PAGELIST_HIGH_FRACTION,
						      *batch, split);
	}
}

/* models zone_set_pageset_high_and_batch() */
void zone_set_pageset_high_and_batch(struct zone *zone, int cpu_online)
{
	int high_min, high_max, batch;

	lockdep_assert_held(&zone->sim->pcp_batch_high_lock); /* zone_pcp_update() takes it */
	if (!zone->per_cpu_pageset)
		return;
	zone->pcp_sizing_boost = READ_ONCE(zone->watermark_boost);
	pcp_sizing(zone, cpu_online, zone->pcp_sizing_boost, &high_min, &high_max, &batch);
	if (zone->pageset_high_min == high_min && zone->pageset_high_max == high_max &&
	    zone->pageset_batch == batch)
		return;
	zone->pageset_high_min = high_min;
	zone->pageset_high_max = high_max;
	zone->pageset_batch = batch;
	if (!zone->pcp_disabled)
		__zone_set_pageset_high_and_batch(zone, high_min, high_max, batch);
}

/* The cache slice in pages: cacheinfo's per_cpu_data_slice_size >> PAGE_SHIFT. */
static unsigned long slice_pages(const struct mm_sim *sim)
{
	return ((unsigned long)sim->cfg.cache_slice_kb << 10) >> MM_PAGE_SHIFT;
}

/*
 * The rule of zone_pcp_update_cacheinfo() (6.10): with a cache slice above
 * 3 batches, PCPF_FREE_HIGH_BATCH lets the lists keep a batch of
 * high-order frees before free_high flushes them (free_unref_page_commit()).
 * Judged against the batch of this moment only: a later resize leaves the
 * flag as it is, in the kernel too.
 */
static bool slice_keeps_batch(unsigned long pages, int batch)
{
	return pages > 3UL * (unsigned long)batch;
}

/* models zone_pcp_update_cacheinfo() (6.10), under pcp->lock */
static void zone_pcp_update_cacheinfo(struct zone *zone, unsigned int cpu)
{
	struct per_cpu_pages *pcp = zone_pcp(zone, cpu);

	pcp_lock(zone, cpu);
	if (slice_keeps_batch(slice_pages(zone->sim), pcp->batch))
		pcp->flags |= PCPF_FREE_HIGH_BATCH;
	else
		pcp->flags &= (uint8_t)~PCPF_FREE_HIGH_BATCH;
	pcp_unlock(zone, cpu);
}

/*
 * models cacheinfo_sysfs_init() (a device initcall): cacheinfo_cpu_online()
 * on every CPU online at boot, as one scan. Boot runs on one thread (no
 * pcp lock), every CPU has its zone's batch, and per_cpu_pages_init() left
 * every flag clear: only a zone whose rule sets the flag is written. The
 * checker notes the rule's flag once per zone.
 */
MM_SCAN void cacheinfo_boot(struct mm_sim *sim)
{
	for_each_zone(sim, z) {
		if (!z->per_cpu_pageset || !populated_zone(z))
			continue;
		_mm_oracle_note_cacheinfo_boot(z);
		if (!slice_keeps_batch(slice_pages(sim), z->pageset_batch))
			continue;
		for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++)
			if (cpu_online(sim, cpu))
				z->per_cpu_pageset[cpu].flags |= PCPF_FREE_HIGH_BATCH;
	}
}

/*
 * models cacheinfo_cpu_online() (6.10) on a CPU with a last-level cache of
 * its own: its per_cpu_data_slice_size is the whole cache (the config's
 * cache_slice_kb) and setup_pcp_cacheinfo(cpu) updates this CPU's flag in
 * every populated zone. Sharing CPUs would have theirs redone too, and a
 * CPU going down would change their slice (cacheinfo_cpu_pre_down());
 * with a private cache neither happens. Runs after page_alloc_cpu_online()
 * when a CPU comes up (CPUHP_AP_BASE_CACHEINFO_ONLINE comes after
 * CPUHP_PAGE_ALLOC); at boot, cacheinfo_boot() does the same.
 */
void cacheinfo_cpu_online(struct mm_sim *sim, unsigned int cpu)
{
	for_each_zone(sim, z) {
		if (!z->per_cpu_pageset || !populated_zone(z))
			continue;
		zone_pcp_update_cacheinfo(z, cpu);
		_mm_oracle_note_cacheinfo(z, cpu);
	}
}

/* models zone_pcp_update(): under pcp_batch_high_lock */
void zone_pcp_update(struct zone *zone, int cpu_online)
{
	mutex_lock(&zone->sim->pcp_batch_high_lock);
	zone_set_pageset_high_and_batch(zone, cpu_online);
	mutex_unlock(&zone->sim->pcp_batch_high_lock);
}

/*
 * models per_cpu_pages_init() and setup_zone_pageset(): the boot pageset,
 * then zone_set_pageset_high_and_batch() (the zone had no sizing yet, so it
 * writes every CPU), folded into one write of each CPU's pageset.
 */
MM_SCAN void _mm_pcp_init_zone(struct zone *zone)
{
	struct per_cpu_pages boot = {.high = BOOT_PAGESET_HIGH, .batch = BOOT_PAGESET_BATCH};

	for (int i = 0; i < NR_PCP_LISTS; i++)
		boot.head[i] = boot.tail[i] = PFN_NIL;
	zone->pcp_sizing_boost = READ_ONCE(zone->watermark_boost);
	pcp_sizing(zone, 0, zone->pcp_sizing_boost, &zone->pageset_high_min,
		   &zone->pageset_high_max, &zone->pageset_batch);
	pageset_update(&boot, zone->pageset_high_min, zone->pageset_high_max, zone->pageset_batch);
	for (unsigned int cpu = 0; cpu < zone->sim->nr_cpus; cpu++)
		zone->per_cpu_pageset[cpu] = boot;
}

/* ------------------------------------------------------------------------
 * pcp list primitives (the caller holds pcp->lock)
 * ---------------------------------------------------------------------- */

static void pcp_list_add(struct per_cpu_pages *pcp, struct mm_sim *sim, int pindex, uint64_t pfn,
			 bool tail)
{
	pfn_list_add(sim, &pcp->head[pindex], &pcp->tail[pindex], pfn, tail);
}

static void pcp_list_del(struct per_cpu_pages *pcp, struct mm_sim *sim, int pindex, uint64_t pfn)
{
	pfn_list_del(sim, &pcp->head[pindex], &pcp->tail[pindex], pfn);
}

static void mark_pcp_page(struct page *page, unsigned int order, unsigned int cpu)
{
	WRITE_ONCE(page->order, (uint8_t)order);
	page->spare = cpu;
	WRITE_ONCE(page->state, PG_PCP);
}

/*
 * Variant pcp-stale-migratetype (before 51bb1a4093cc): the page keeps the
 * migratetype its pageblock had when it entered the pcp list
 * (set_freepage_migratetype()), in alloc_mt, which a free page does not use.
 */
static void pcp_cache_migratetype(struct mm_sim *sim, uint64_t pfn)
{
	if (sim->policy.pcp_stale_migratetype)
		pfn_to_page(sim, pfn)->alloc_mt = (uint8_t)get_pfnblock_migratetype(sim, pfn);
}

/*
 * The checker's ground truth for INV-PCP-FLUSH-MT: the migratetype the
 * page's pageblock had when the page went onto a pcp list, in page->pad
 * (unused otherwise), noted at both ways onto a list whatever the variant.
 */
static void note_listed_migratetype(struct mm_sim *sim, uint64_t pfn)
{
	pfn_to_page(sim, pfn)->pad = (uint8_t)get_pfnblock_migratetype(sim, pfn);
}

/* The migratetype free_pcppages_bulk() frees a page as: its pageblock's, or the stale one. */
static int pcp_page_migratetype(const struct mm_sim *sim, uint64_t pfn)
{
	if (sim->policy.pcp_stale_migratetype)
		return sim->mem_map[pfn].alloc_mt;
	return get_pfnblock_migratetype(sim, pfn);
}

/*
 * INV-PCP-FLUSH-MT: a page leaves a pcp list for the free list of its
 * pageblock's migratetype as it is now (free_pcppages_bulk() looks it up,
 * 51bb1a4093cc); under the variant, of the type the block had when the
 * page was listed, and never of another: a cached type that is stale for
 * any other reason (never set, set from the request) is a bug the variant
 * does not model.
 */
MM_NO_COVERAGE static void check_flush_migratetype(struct zone *zone, uint64_t pfn, int mt)
{
	struct mm_sim *sim = zone->sim;
	int want = sim->policy.pcp_stale_migratetype ? pfn_to_page(sim, pfn)->pad
						     : get_pfnblock_migratetype(sim, pfn);

	if (mt != want)
		zone_report(zone, "INV-PCP-FLUSH-MT", (long long)pfn, want, mt,
			    "a pcp page freed to the buddy as migratetype %d; its pageblock is %d, "
			    "was %d when the page was listed",
			    mt, get_pfnblock_migratetype(sim, pfn), pfn_to_page(sim, pfn)->pad);
}

/* ------------------------------------------------------------------------
 * Freeing to the lists and flushing them
 * ---------------------------------------------------------------------- */

/*
 * models free_pcppages_bulk(): count pages back to the buddy under one
 * zone->lock hold, round-robin over the lists from pindex, each list from
 * its tail (the coldest pages). Returns the pages freed. A count of 0
 * (nr_pcp_free() when high equals batch) still takes the lock, as the
 * kernel's does: that round trip is a cost a sizing policy pays.
 */
static int free_pcppages_bulk(struct zone *zone, int count, struct per_cpu_pages *pcp, int pindex)
{
	struct mm_sim *sim = zone->sim;
	int freed = 0;

	if (count > pcp->count)
		count = pcp->count;
	pindex = pindex - 1;
	zone_lock(zone);
	count_event(sim, pcp_bulk_frees);
	while (count > 0) {
		do {
			if (++pindex > NR_PCP_LISTS - 1)
				pindex = 0;
		} while (pcp->head[pindex] == PFN_NIL);

		unsigned int order = pindex_to_order(pindex);
		int nr_pages = 1 << order;
		do {
			uint64_t pfn = pcp->tail[pindex];
			pcp_list_del(pcp, sim, pindex, pfn);
			count -= nr_pages;
			WRITE_ONCE(pcp->count, pcp->count - nr_pages);
			freed += nr_pages;
			WRITE_ONCE(pfn_to_page(sim, pfn)->state, PG_FREE_TAIL);
			int mt = pcp_page_migratetype(sim, pfn);
			check_flush_migratetype(zone, pfn, mt);
			__free_one_page(zone, pfn, order, mt, FPI_NONE);
		} while (count > 0 && pcp->head[pindex] != PFN_NIL);
	}
	zone_unlock(zone);
	count_events(sim, pcp_pages_flushed, (unsigned long long)freed);
	return freed;
}

/* models nr_pcp_high(): the effective high for this free, tuning pcp->high */
static int nr_pcp_high(struct per_cpu_pages *pcp, struct zone *zone, int batch, bool free_high)
{
	int high_min = READ_ONCE(pcp->high_min), high_max = READ_ONCE(pcp->high_max);
	int high = pcp->high = clamp_int(pcp->high, high_min, high_max);
	unsigned int zflags = atomic_load_explicit(&zone->flags, memory_order_relaxed);

	if (!high)
		return 0;
	if (free_high) {
		int h = high - (batch << CONFIG_PCP_BATCH_SCALE_MAX);
		pcp->high = h > high_min ? h : high_min;
		return 0;
	}
	/* Reclaim active: keep the lists short. */
	if (zflags & ZONE_RECLAIM_ACTIVE) {
		int free_count = pcp->free_count > batch ? pcp->free_count : batch;
		int h = high - free_count;
		pcp->high = h > high_min ? h : high_min;
		return batch << 2 < pcp->high ? batch << 2 : pcp->high;
	}
	if (high_min == high_max)
		return high;
	if (zflags & ZONE_BELOW_HIGH) {
		int free_count = pcp->free_count > batch ? pcp->free_count : batch;
		int h = high - free_count;
		pcp->high = h > high_min ? h : high_min;
		high = pcp->count > high_min ? pcp->count : high_min;
	} else if (pcp->count >= high) {
		int need_high = pcp->free_count + batch;
		/* Large enough to hold a batch of freed pages. */
		if (pcp->high < need_high)
			pcp->high = clamp_int(need_high, high_min, high_max);
	}
	return high;
}

/* models nr_pcp_free(): how many pages a flush returns to the buddy */
static int nr_pcp_free(const struct per_cpu_pages *pcp, int batch, int high, bool free_high)
{
	if (free_high) {
		int n = batch << CONFIG_PCP_BATCH_SCALE_MAX;
		return pcp->count < n ? pcp->count : n;
	}
	/* pcp disabled or the boot pageset */
	if (high < batch)
		return 1;
	/* Leave at least a batch; more after a run of frees, to cut lock round trips. */
	return clamp_int(pcp->free_count, batch, high - batch);
}

/*
 * INV-PCP-FLUSH's bound: free_pcppages_bulk() hands back whole blocks of at
 * most PAGE_ALLOC_COSTLY_ORDER until the count asked is met, so it frees at
 * least that count and less than a largest block more.
 */
MM_NO_COVERAGE bool _mm_pcp_flush_count_ok(int expect, int freed)
{
	return freed >= expect && freed < expect + (1 << PAGE_ALLOC_COSTLY_ORDER);
}

/* models free_unref_page_commit(): the caller holds pcp->lock */
static void free_unref_page_commit(struct zone *zone, struct per_cpu_pages *pcp, uint64_t pfn,
				   int mt, unsigned int order, unsigned int cpu)
{
	struct mm_sim *sim = zone->sim;
	int pindex = order_to_pindex(mt, order);
	bool free_high = false;
	int batch, high, freed = 0;

	/* A free cools the doubling of the refill size (nr_pcp_alloc). */
	pcp->alloc_factor >>= 1;
	mark_pcp_page(pfn_to_page(sim, pfn), order, cpu);
	pcp_list_add(pcp, sim, pindex, pfn, false);
	WRITE_ONCE(pcp->count, pcp->count + (1 << order));

	batch = READ_ONCE(pcp->batch);
	/* the checker's: the inputs of the free_high decision (oracle_pcp.c) */
	struct pcp_free_inputs in = {pcp->flags, pcp->free_count, pcp->count, batch, order};
	/* High-order frees without allocations in between fragment: flush them all. */
	if (order && order <= PAGE_ALLOC_COSTLY_ORDER) {
		free_high = pcp->free_count >= batch && (pcp->flags & PCPF_PREV_FREE_HIGH_ORDER) &&
			    (!(pcp->flags & PCPF_FREE_HIGH_BATCH) || pcp->count >= batch);
		pcp->flags |= PCPF_PREV_FREE_HIGH_ORDER;
	} else if (pcp->flags & PCPF_PREV_FREE_HIGH_ORDER) {
		pcp->flags &= (uint8_t)~PCPF_PREV_FREE_HIGH_ORDER;
	}
	if (pcp->free_count < (batch << CONFIG_PCP_BATCH_SCALE_MAX))
		pcp->free_count = (short)(pcp->free_count + (1 << order));
	high = nr_pcp_high(pcp, zone, batch, free_high);
	if (pcp->count >= high) {
		int want = nr_pcp_free(pcp, batch, high, free_high);
		int expect = want < pcp->count ? want : pcp->count;
		int before = pcp->count;

		freed = free_pcppages_bulk(zone, want, pcp, pindex);

		count_event(sim, pcp_drains_high);
		if (!_mm_pcp_flush_count_ok(expect, freed) || pcp->count != before - freed)
			zone_report(zone, "INV-PCP-FLUSH", (long long)pfn, expect, freed,
				    "cpu %u: flush at count %d >= high %d freed %d pages", cpu,
				    before, high, freed);
		if ((atomic_load_explicit(&zone->flags, memory_order_relaxed) & ZONE_BELOW_HIGH) &&
		    zone_watermark_ok(zone, 0, wmark_pages(zone, WMARK_HIGH), ZONE_MOVABLE, 0))
			atomic_fetch_and_explicit(&zone->flags, ~ZONE_BELOW_HIGH,
						  memory_order_relaxed);
	}
	_mm_oracle_check_free_high(zone, cpu, &in, pcp->flags, free_high, freed);
}

/*
 * models free_unref_page(): an order <= 3 block goes to the freeing CPU's
 * list for the block's zone, whichever CPU allocated it. The caller has
 * verified the stamps (free_pages_prepare) and owns the block.
 */
void free_unref_page(struct mm_sim *sim, uint64_t pfn, unsigned int order)
{
	struct zone *zone = page_zone(sim, pfn_to_page(sim, pfn));
	unsigned int cpu = (unsigned int)smp_processor_id();
	int mt = get_pfnblock_migratetype(sim, pfn);
	struct per_cpu_pages *pcp;

	/* Isolated blocks go straight back; highatomic ones are listed as movable. */
	if (mt != MIGRATE_ISOLATE) {
		note_listed_migratetype(sim, pfn);
		pcp_cache_migratetype(sim, pfn);
	}
	if (mt >= MIGRATE_PCPTYPES) {
		if (mt == MIGRATE_ISOLATE) {
			free_one_page(zone, pfn, order);
			return;
		}
		mt = MIGRATE_MOVABLE;
	}
	for (uint64_t p = pfn + 1; p < pfn + (UINT64_C(1) << order); p++)
		WRITE_ONCE(pfn_to_page(sim, p)->state, PG_FREE_TAIL);
	pcp = zone_pcp(zone, cpu);
	pcp_lock(zone, cpu);
	zone_account_allocated(zone, -(1L << order));
	free_unref_page_commit(zone, pcp, pfn, mt, order, cpu);
	pcp_unlock(zone, cpu);
}

/*
 * The high one decay step leaves, from a high above high_min (the policy
 * hook's default): an eighth less each time, but no further than leaves
 * count - batch << CONFIG_PCP_BATCH_SCALE_MAX to free (the work of one
 * step is bounded), and never below high_min. Models the max3() of
 * decay_pcp_high() (6.7+).
 */
int decayed_pcp_high(int high, int count, int batch, int high_min)
{
	int h = count - (batch << CONFIG_PCP_BATCH_SCALE_MAX);
	int eighth = high - (high >> 3);

	if (h < eighth)
		h = eighth;
	return h > high_min ? h : high_min;
}

/*
 * models decay_pcp_high() (6.7+), run by refresh_cpu_vm_stats() on the CPU
 * itself: a high above high_min decays by the policy's rule (the kernel's is
 * decayed_pcp_high() above), and pages above the new high go back to the
 * buddy. Returns the work there is still to do (the kernel re-arms
 * vmstat_update on it).
 */
int decay_pcp_high(struct zone *zone, unsigned int cpu)
{
	struct per_cpu_pages *pcp;
	int todo = 0;

	if (!zone->per_cpu_pageset || cpu >= zone->sim->nr_cpus)
		return 0;
	pcp = zone_pcp(zone, cpu);
	/*
	 * An idle CPU (high at most high_min, nothing above it) has nothing to
	 * decay: the kernel looks without the lock too. Only serial runs may
	 * look so here, as the owner's writes are plain; vm.stat_refresh visits
	 * every online CPU of every zone.
	 */
	if (zone->sim->serial && pcp->high <= READ_ONCE(pcp->high_min) && pcp->count <= pcp->high)
		return 0;
	pcp_lock(zone, cpu);
	int high_before = pcp->high, count_before = pcp->count; /* the checker's */
	int high_min = READ_ONCE(pcp->high_min), batch = READ_ONCE(pcp->batch);
	if (pcp->high > high_min) {
		pcp->high =
			zone->sim->policy.decayed_pcp_high(pcp->high, pcp->count, batch, high_min);
		if (pcp->high > high_min)
			todo++;
	}
	int to_drain = pcp->count - pcp->high;
	if (to_drain > 0) {
		free_pcppages_bulk(zone, to_drain, pcp, 0);
		todo++;
	}
	_mm_pcp_check_high_range(zone, cpu, high_before, count_before);
	pcp_unlock(zone, cpu);
	return todo;
}

/* ------------------------------------------------------------------------
 * Allocating from the lists
 * ---------------------------------------------------------------------- */

/* models nr_pcp_alloc(): how many blocks one refill takes from the buddy */
static int nr_pcp_alloc(struct per_cpu_pages *pcp, struct zone *zone, unsigned int order)
{
	int base_batch = READ_ONCE(pcp->batch);
	int high_min = READ_ONCE(pcp->high_min), high_max = READ_ONCE(pcp->high_max);
	int high = pcp->high = clamp_int(pcp->high, high_min, high_max);
	int batch, max_nr_alloc;

	/* pcp disabled or the boot pageset */
	if (high < base_batch)
		return 1;
	batch = order ? base_batch : base_batch << pcp->alloc_factor;
	/* A larger high would have spared this trip to the zone. */
	if (high_min != high_max &&
	    !(atomic_load_explicit(&zone->flags, memory_order_relaxed) & ZONE_BELOW_HIGH)) {
		high = high + batch < high_max ? high + batch : high_max;
		pcp->high = high;
	}
	if (!order) {
		max_nr_alloc = high - pcp->count - base_batch;
		if (max_nr_alloc < base_batch)
			max_nr_alloc = base_batch;
		/* Allocation runs without frees double the refill each time. */
		if (batch <= max_nr_alloc && pcp->alloc_factor < CONFIG_PCP_BATCH_SCALE_MAX)
			pcp->alloc_factor++;
		if (batch > max_nr_alloc)
			batch = max_nr_alloc;
	}
	/* Batch 1 (tiny zones, the boot pageset) must not cache pages. */
	if (batch > 1) {
		batch >>= order;
		if (batch < 2)
			batch = 2;
	}
	return batch;
}

/*
 * models rmqueue_bulk(): count blocks from the buddy under one zone->lock
 * hold, appended in pfn order. The caller holds pcp->lock.
 */
static int rmqueue_bulk(struct zone *zone, unsigned int order, int count, struct per_cpu_pages *pcp,
			int pindex, int mt, unsigned int alloc_flags, unsigned int cpu)
{
	struct mm_sim *sim = zone->sim;
	int i;

	zone_lock(zone);
	count_event(sim, pcp_refills);
	for (i = 0; i < count; i++) {
		struct page *page = __rmqueue(zone, order, mt, alloc_flags);
		if (!page)
			break;
		mark_pcp_page(page, order, cpu);
		note_listed_migratetype(sim, page_to_pfn(sim, page));
		pcp_cache_migratetype(sim, page_to_pfn(sim, page));
		pcp_list_add(pcp, sim, pindex, page_to_pfn(sim, page), true);
	}
	_mm_vmstat_note_free(zone);
	zone_unlock(zone);
	count_events(sim, pcp_pages_refilled, (unsigned long long)i << order);
	return i;
}

/*
 * models rmqueue_pcplist(): the first block of this CPU's list, refilled
 * from the buddy when empty. The block is returned still marked PG_PCP;
 * the caller makes it allocated.
 */
struct page *rmqueue_pcplist(struct zone *zone, unsigned int order, int mt,
			     unsigned int alloc_flags)
{
	struct mm_sim *sim = zone->sim;
	unsigned int cpu = (unsigned int)smp_processor_id();
	struct per_cpu_pages *pcp = zone_pcp(zone, cpu);
	int pindex = order_to_pindex(mt, order);
	uint64_t pfn;

	pcp_lock(zone, cpu);
	/* An allocation ends a run of frees. */
	pcp->free_count >>= 1;
	if (pcp->head[pindex] == PFN_NIL) {
		int batch = nr_pcp_alloc(pcp, zone, order);
		int alloced = rmqueue_bulk(zone, order, batch, pcp, pindex, mt, alloc_flags, cpu);

		WRITE_ONCE(pcp->count, pcp->count + (alloced << order));
		if (pcp->head[pindex] == PFN_NIL) {
			pcp_unlock(zone, cpu);
			return NULL;
		}
	}
	pfn = pcp->head[pindex];
	pcp_list_del(pcp, sim, pindex, pfn);
	WRITE_ONCE(pcp->count, pcp->count - (1 << order));
	pcp_unlock(zone, cpu);
	return pfn_to_page(sim, pfn);
}

/* ------------------------------------------------------------------------
 * Drains and hotplug
 * ---------------------------------------------------------------------- */

/* models drain_pages_zone(): everything, a bounded chunk per lock hold. Returns the pages. */
long drain_pages_zone(unsigned int cpu, struct zone *zone)
{
	struct per_cpu_pages *pcp;
	long drained = 0;
	int count;

	if (!zone->per_cpu_pageset)
		return 0;
	pcp = zone_pcp(zone, cpu);
	do {
		pcp_lock(zone, cpu);
		count = pcp->count;
		if (count) {
			int batch = READ_ONCE(pcp->batch);
			int to_drain = batch << CONFIG_PCP_BATCH_SCALE_MAX;
			int freed;
			if (to_drain > count)
				to_drain = count;
			freed = free_pcppages_bulk(zone, to_drain, pcp, 0);
			drained += freed;
			count -= freed;
		}
		pcp_unlock(zone, cpu);
	} while (count > 0);
	return drained;
}

void mm_drain_local_pages(struct mm_sim *sim)
{
	unsigned int cpu = (unsigned int)smp_processor_id();

	for_each_zone(sim, z)
		drain_pages_zone(cpu, z);
}

/* cpu's lists of the zone hold pages: an unlocked look, as the kernel's */
MM_SCAN_INLINE static inline bool cpu_has_pcps(const struct zone *z, unsigned int cpu)
{
	return z->per_cpu_pageset && READ_ONCE(z->per_cpu_pageset[cpu].count);
}

/* The first CPU from cpu on with pages on a pcp list of any zone (cpus_with_pcps). */
MM_SCAN static unsigned int next_cpu_with_pcps(const struct mm_sim *sim, unsigned int cpu)
{
	for (; cpu < sim->nr_cpus; cpu++)
		for_each_zone(sim, z)
			if (cpu_has_pcps(z, cpu))
				return cpu;
	return cpu;
}

/*
 * models drain_all_pages(NULL): the kernel drains only the CPUs in its
 * cpus_with_pcps mask, built from each pcp->count read without the lock; a
 * list filled after that look waits for the next drain, in the kernel too.
 * A CPU's empty lists cost it nothing here either (no lock taken). So every
 * update of pcp->count, under the lock, is a WRITE_ONCE.
 */
void mm_drain_all_pages(struct mm_sim *sim)
{
	for (unsigned int cpu = next_cpu_with_pcps(sim, 0); cpu < sim->nr_cpus;
	     cpu = next_cpu_with_pcps(sim, cpu + 1))
		for_each_zone(sim, z)
			if (cpu_has_pcps(z, cpu))
				drain_pages_zone(cpu, z);
	count_event(sim, pcp_drain_all);
}

/* models page_alloc_cpu_dead(): the dead CPU's lists drained, its vmstat diffs folded, sizing
 * redone */
void page_alloc_cpu_dead(struct mm_sim *sim, unsigned int cpu)
{
	for_each_zone(sim, z) {
		count_events(sim, pcp_pages_drained_offline, drain_pages_zone(cpu, z));
	}
	cpu_vm_stats_fold(sim, cpu);
	for_each_zone(sim, z)
		if (populated_zone(z))
			zone_pcp_update(z, 0);
}

/* models page_alloc_cpu_online(): the CPU counts in the split from now on */
void page_alloc_cpu_online(struct mm_sim *sim, unsigned int cpu)
{
	(void)cpu;
	for_each_zone(sim, z)
		if (populated_zone(z))
			zone_pcp_update(z, 0);
}

/* models zone_pcp_disable(): high 0 and batch 1, then a forced drain */
void mm_zone_pcp_disable(struct mm_sim *sim, int node, enum zone_type zt)
{
	struct zone *z = &sim->node_data[node]->node_zones[zt];

	if (!z->per_cpu_pageset || z->pcp_disabled)
		return;
	/*
	 * The kernel holds pcp_batch_high_lock until the enable; one thread
	 * runs every op here, so a flag keeps sizing updates off instead.
	 */
	mutex_lock(&sim->pcp_batch_high_lock);
	z->pcp_disabled = true;
	__zone_set_pageset_high_and_batch(z, 0, 0, 1);
	mutex_unlock(&sim->pcp_batch_high_lock);
	for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++)
		drain_pages_zone(cpu, z);
}

/* models zone_pcp_enable() */
void mm_zone_pcp_enable(struct mm_sim *sim, int node, enum zone_type zt)
{
	struct zone *z = &sim->node_data[node]->node_zones[zt];

	if (!z->per_cpu_pageset || !z->pcp_disabled)
		return;
	mutex_lock(&sim->pcp_batch_high_lock);
	z->pcp_disabled = false;
	__zone_set_pageset_high_and_batch(z, z->pageset_high_min, z->pageset_high_max,
					  z->pageset_batch);
	mutex_unlock(&sim->pcp_batch_high_lock);
}

int mm_set_high_fraction(struct mm_sim *sim, unsigned int fraction)
{
	if (fraction && fraction < MIN_PERCPU_PAGELIST_HIGH_FRACTION)
		return -1;
	mutex_lock(&sim->hotplug_lock);
	sim->percpu_pagelist_high_fraction = fraction;
	for_each_zone(sim, z)
		if (populated_zone(z))
			zone_pcp_update(z, 0);
	mutex_unlock(&sim->hotplug_lock);
	return 0;
}

int mm_pcp_info(const struct mm_sim *sim, int node, enum zone_type zt, int cpu,
		struct mm_pcp_info *out)
{
	if (node < 0 || (unsigned int)node >= sim->nr_nodes || (unsigned int)zt >= MAX_NR_ZONES ||
	    cpu < 0 || (unsigned int)cpu >= sim->nr_cpus)
		return -1;
	const struct zone *z = &sim->node_data[node]->node_zones[zt];
	if (!z->per_cpu_pageset)
		return -1;
	const struct per_cpu_pages *pcp = zone_pcp(z, (unsigned int)cpu);
	out->count = READ_ONCE(pcp->count);
	out->high = READ_ONCE(pcp->high);
	out->high_min = READ_ONCE(pcp->high_min);
	out->high_max = READ_ONCE(pcp->high_max);
	out->batch = READ_ONCE(pcp->batch);
	out->stat_threshold = READ_ONCE(z->per_cpu_zonestats[cpu].stat_threshold);
	return 0;
}

/* One CPU's share of the totals; both come from the pageset's first cache line. */
MM_SCAN_INLINE static inline void pcp_totals_add(struct pcp_totals *t,
						 const struct per_cpu_pages *pcp)
{
	t->pcp += READ_ONCE(pcp->count);
	t->allocated += atomic_load_explicit(&pcp->nr_allocated, memory_order_relaxed);
}

MM_SCAN struct pcp_totals zone_pcp_totals(const struct zone *z)
{
	struct pcp_totals t = {0, 0};

	if (z->per_cpu_pageset)
		for (unsigned int cpu = 0; cpu < z->sim->nr_cpus; cpu++)
			pcp_totals_add(&t, &z->per_cpu_pageset[cpu]);
	return t;
}

/* ------------------------------------------------------------------------
 * Invariants
 * ---------------------------------------------------------------------- */

/* All heads and tails PFN_NIL. */
MM_SCAN_INLINE static inline bool lists_empty(const struct per_cpu_pages *pcp)
{
	uint32_t all = PFN_NIL;

	for (int i = 0; i < NR_PCP_LISTS; i++)
		all &= pcp->head[i] & pcp->tail[i];
	return all == PFN_NIL;
}

/*
 * Full scan of one zone's lists (quiescent): every listed block is PG_PCP
 * of this cpu and order, in the zone, on the list of its order; count
 * equals the pages listed. The same pass sums the totals the buddy
 * check's conservation laws want (what zone_pcp_totals() gives), into *t.
 */
MM_SCAN unsigned long _mm_pcp_check_zone(struct zone *zone, struct pcp_totals *t)
{
	struct mm_sim *sim = zone->sim;
	unsigned long bad = 0;

	*t = (struct pcp_totals){0, 0};
	if (!zone->per_cpu_pageset)
		return 0;
	for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++) {
		const struct per_cpu_pages *pcp = &zone->per_cpu_pageset[cpu];
		long pages = 0;

		pcp_totals_add(t, pcp);
		/* Most lists of most CPUs are empty: one look tells. */
		if (!pcp->count && lists_empty(pcp))
			continue;
		for (int pindex = 0; pindex < NR_PCP_LISTS; pindex++) {
			unsigned int order = pindex_to_order(pindex);
			uint32_t prev = PFN_NIL;
			long n = 0;
			for (uint32_t p = pcp->head[pindex]; p != PFN_NIL;) {
				const struct page *page = pfn_to_page(sim, p);
				if (!zone_spans_pfn(zone, p) || page->state != PG_PCP ||
				    page->order != order || page->spare != cpu ||
				    page->lru.prev != prev || (p & ((1u << order) - 1))) {
					mm_report_violation(
						sim, "INV-PCP-LIST", zone->node, (int)zone->type,
						(int)cpu, p, order, page->order,
						"pcp list %d (order %u) holds a %s page of cpu %u",
						pindex, order, _mm_page_state_name(page->state),
						page->spare);
					goto broken;
				}
				if (++n > (long)(zone->spanned_pages >> order)) {
					mm_report_violation(sim, "INV-PCP-LIST", zone->node,
							    (int)zone->type, (int)cpu, p, 0, n,
							    "pcp list %d loops", pindex);
					goto broken;
				}
				prev = p;
				p = page->lru.next;
			}
			if (pcp->tail[pindex] != prev) {
				mm_report_violation(sim, "INV-PCP-LIST", zone->node,
						    (int)zone->type, (int)cpu, prev, prev,
						    pcp->tail[pindex],
						    "pcp list %d tail pointer is stale", pindex);
				bad++;
			}
			pages += n << order;
		}
		if (pages != pcp->count) {
			mm_report_violation(sim, "INV-PCP-COUNT", zone->node, (int)zone->type,
					    (int)cpu, -1, pages, pcp->count,
					    "pcp->count differs from the pages on its lists");
			bad++;
		}
	}
	return bad;
broken:
	/* A broken list ends the walk; the totals are still the whole zone's. */
	*t = zone_pcp_totals(zone);
	return bad + 1;
}

/*
 * INV-PCP-HIGH-RANGE: decay_pcp_high() leaves a CPU's high where the
 * kernel's rule puts it, recomputed here from the high and count before:
 * max(count - batch << CONFIG_PCP_BATCH_SCALE_MAX, high - high / 8,
 * high_min) when high was above high_min, else unchanged. A policy plugin's
 * decayed_pcp_high() is the rule under test instead; whatever the rule, no
 * decay takes a high below high_min, nor above the high before except by
 * the count term (a count left above high_max by a resize). The count is
 * at most the new high: the rest went back to the buddy. The bounds are
 * the sizing INV-PCP-SIZING holds to the kernel's formulas. O(1), after
 * each decay, serial runs.
 */
unsigned long _mm_pcp_check_high_range(struct zone *zone, unsigned int cpu, int high_before,
				       int count_before)
{
	const struct mm_policy *plugin = _mm_policy_plugin();
	const struct per_cpu_pages *pcp = zone_pcp(zone, cpu);
	int lo = READ_ONCE(pcp->high_min), hi = READ_ONCE(pcp->high_max);
	int high = READ_ONCE(pcp->high), count = READ_ONCE(pcp->count);
	int batch = READ_ONCE(pcp->batch);
	long drain_floor = (long)count_before - ((long)batch << CONFIG_PCP_BATCH_SCALE_MAX);
	long want = high_before;

	if (!zone->sim->serial)
		return 0;
	if (high_before > lo) {
		long eighth = high_before - (high_before >> 3);
		want = drain_floor > eighth ? drain_floor : eighth;
		if (want < lo)
			want = lo;
		if (plugin && plugin->decayed_pcp_high)
			want = plugin->decayed_pcp_high(high_before, count_before, batch, lo);
	}
	/* Never below high_min, never raised but by the count term. */
	bool floor_ok = high_before < lo || high >= lo;
	bool not_raised = high <= high_before || high <= drain_floor;
	if (high == want && count <= high && floor_ok && not_raised)
		return 0;
	/* A plugin's rule may itself break a bound: then the bound is what was expected. */
	if (high == want && !floor_ok)
		want = lo;
	else if (high == want && !not_raised)
		want = high_before > drain_floor ? high_before : drain_floor;
	mm_report_violation(zone->sim, "INV-PCP-HIGH-RANGE", zone->node, (int)zone->type, (int)cpu,
			    -1, want, high,
			    "after decay_pcp_high: high %d (was %d) count %d (was %d), "
			    "high_min %d high_max %d, by %s rule",
			    high, high_before, count, count_before, lo, hi,
			    plugin && plugin->decayed_pcp_high ? "the plugin's" : "the kernel's");
	return 1;
}

MM_SCAN_INLINE static inline bool batch_is_kernel_value(int batch)
{
	/* zone_batchsize() yields 2^n - 1 up to 63; max(1, .) makes 0 into 1 */
	return batch >= 1 && batch <= 63 && !((batch + 1) & batch);
}

/*
 * Sizing: batch is one of the kernel's values and high_min and high_max are
 * at least 4 * batch (INV-PCP-HIGH-FLOOR, whatever the policy; high_min may
 * exceed high_max when the low mark is above managed / 8); once deferred init
 * has completed, every CPU's batch/high_min/high_max equal the policy
 * computed from the zone's current managed pages, low mark and CPUs
 * (INV-PCP-SIZING: stale sizing, seed 000).
 */
MM_SCAN unsigned long _mm_pcp_check_sizing(struct zone *zone)
{
	struct mm_sim *sim = zone->sim;
	int high_min, high_max, batch;
	unsigned long bad = 0;

	if (!zone->per_cpu_pageset || zone->pcp_disabled)
		return 0;
	pcp_sizing(zone, 0, zone->pcp_sizing_boost, &high_min, &high_max, &batch);
	for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++) {
		const struct per_cpu_pages *pcp = &zone->per_cpu_pageset[cpu];
		int b = READ_ONCE(pcp->batch), lo = READ_ONCE(pcp->high_min);
		int hi = READ_ONCE(pcp->high_max);

		if (!batch_is_kernel_value(b) || lo < b << 2 || hi < b << 2) {
			mm_report_violation(sim, "INV-PCP-HIGH-FLOOR", zone->node, (int)zone->type,
					    (int)cpu, -1, 4LL * b, lo,
					    "batch %d high_min %d high_max %d: high below 4*batch",
					    b, lo, hi);
			return bad + 1;
		}
		if (!sim->deferred_pending && (b != batch || lo != high_min || hi != high_max)) {
			mm_report_violation(
				sim, "INV-PCP-SIZING", zone->node, (int)zone->type, (int)cpu, -1,
				batch, b,
				"batch/high_min/high_max %d/%d/%d, policy gives %d/%d/%d "
				"for %lu managed pages",
				b, lo, hi, batch, high_min, high_max, zone_managed_pages(zone));
			return bad + 1;
		}
	}
	return bad;
}

int _mm_op_drain_local(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	(void)op;
	mm_drain_local_pages(ctx->sim);
	return 0;
}

int _mm_op_drain_all(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	(void)op;
	mm_drain_all_pages(ctx->sim);
	return 0;
}

int _mm_op_pcp_disable(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	mm_zone_pcp_disable(ctx->sim, op->pcp.node, (enum zone_type)op->pcp.zone);
	return 0;
}

int _mm_op_pcp_enable(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	mm_zone_pcp_enable(ctx->sim, op->pcp.node, (enum zone_type)op->pcp.zone);
	return 0;
}

int _mm_op_set_high_fraction(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	if (mm_set_high_fraction(ctx->sim, op->sysctl.value))
		return 1;
	_mm_check_sizing(ctx->sim);
	return 0;
}

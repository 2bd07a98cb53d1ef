/* SPDX-License-Identifier: MIT */
/*
 * watermark.c - min_free_kbytes, the per-zone min/low/high/promo marks,
 * lowmem_reserve, and the watermark checks allocations pass through.
 * Formulas as mm/page_alloc.c (6.x); checked against a real /proc/zoneinfo
 * by tests/unit/test_zoneinfo.c. Watermark boosting (boost_watermark(),
 * vm.watermark_boost_factor) follows 6.10, where the boost on fallback
 * steals is as it has been since 5.0 (1c30844d2dfe).
 */
#include "internal.h"

/* The kernel's sysctl_lowmem_reserve_ratio (no HIGHMEM zone on 64-bit). */
static const unsigned int lowmem_reserve_ratio[MAX_NR_ZONES] = {
	[ZONE_DMA] = 256,   [ZONE_DMA32] = 256, [ZONE_NORMAL] = 32,
	[ZONE_MOVABLE] = 0, [ZONE_DEVICE] = 0,
};

/* models int_sqrt(): floor of the square root */
static unsigned long int_sqrt(unsigned long x)
{
	unsigned long r = 0, bit = 1UL << (sizeof(long) * 8 - 2);

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

/*
 * models calculate_min_free_kbytes(): sqrt(16 * lowmem kB), clamped to
 * [128, 262144]. Lowmem is what nr_free_buffer_pages() sees at boot, before
 * any watermark exists: the managed pages of every zone up to Normal.
 *
 *   lowmem     min_free_kbytes
 *   16MB       512k
 *   128MB      1448k
 *   1GB        4096k
 *   16GB       16384k
 *   64GB       32768k
 */
unsigned int calculate_min_free_kbytes(const struct mm_sim *sim)
{
	unsigned long lowmem_pages = 0;

	for_each_zone(sim, z)
		if (z->type <= ZONE_NORMAL)
			lowmem_pages += zone_managed_pages(z);
	unsigned long kbytes = int_sqrt(lowmem_pages * (1UL << (MM_PAGE_SHIFT - 10)) * 16);
	if (kbytes < 128)
		kbytes = 128;
	if (kbytes > 262144)
		kbytes = 262144;
	return (unsigned int)kbytes;
}

/* models mult_frac(): x * n / d without overflowing x * n */
static unsigned long mult_frac(unsigned long x, unsigned long n, unsigned long d)
{
	return (x / d) * n + ((x % d) * n) / d;
}

/* models __setup_per_zone_wmarks() */
void __setup_per_zone_wmarks(struct mm_sim *sim)
{
	unsigned long pages_min = sim->min_free_kbytes >> (MM_PAGE_SHIFT - 10);
	unsigned long lowmem_pages = 0;

	for_each_zone(sim, z)
		if (z->type != ZONE_MOVABLE)
			lowmem_pages += zone_managed_pages(z);

	for_each_zone(sim, z) {
		unsigned long managed = zone_managed_pages(z);
		unsigned long tmp = lowmem_pages ? pages_min * managed / lowmem_pages : 0;

		zone_lock(z);
		if (z->type == ZONE_MOVABLE) {
			/* No lowmem share: a small fixed reserve, SWAP_CLUSTER_MAX..128. */
			unsigned long min_pages = managed / 1024;
			if (min_pages < 32)
				min_pages = 32;
			if (min_pages > 128)
				min_pages = 128;
			WRITE_ONCE(z->_watermark[WMARK_MIN], min_pages);
		} else {
			WRITE_ONCE(z->_watermark[WMARK_MIN], tmp);
		}
		/* The gap between marks: a quarter of min, or the scale factor's share. */
		unsigned long gap = mult_frac(managed, sim->watermark_scale_factor, 10000);
		if ((tmp >> 2) > gap)
			gap = tmp >> 2;
		WRITE_ONCE(z->watermark_boost, 0);
		WRITE_ONCE(z->_watermark[WMARK_LOW], z->_watermark[WMARK_MIN] + gap);
		WRITE_ONCE(z->_watermark[WMARK_HIGH], z->_watermark[WMARK_LOW] + gap);
		WRITE_ONCE(z->_watermark[WMARK_PROMO], z->_watermark[WMARK_HIGH] + gap);
		zone_unlock(z);
	}
}

/*
 * models setup_per_zone_lowmem_reserve(): zone i keeps back, from requests
 * that could use zone j > i, the managed pages of zones i+1..j divided by
 * its ratio. An empty zone or a zero ratio reserves nothing.
 */
void setup_per_zone_lowmem_reserve(struct mm_sim *sim)
{
	for (unsigned int n = 0; n < sim->nr_nodes; n++) {
		struct pglist_data *pgdat = sim->node_data[n];
		for (int i = 0; i < MAX_NR_ZONES - 1; i++) {
			struct zone *zone = &pgdat->node_zones[i];
			unsigned int ratio = lowmem_reserve_ratio[i];
			bool clear = !ratio || !zone_managed_pages(zone);
			unsigned long managed = 0;

			for (int j = i + 1; j < MAX_NR_ZONES; j++) {
				managed += zone_managed_pages(&pgdat->node_zones[j]);
				WRITE_ONCE(zone->lowmem_reserve[j], clear ? 0 : managed / ratio);
			}
		}
	}
}

/* models setup_per_zone_wmarks(): new marks, then pcp high follows the low mark */
void setup_per_zone_wmarks(struct mm_sim *sim)
{
	__setup_per_zone_wmarks(sim);
	for_each_zone(sim, z)
		zone_pcp_update(z, 0);
}

/* models init_per_zone_wmark_min(), the boot-time initcall */
void init_per_zone_wmark_min(struct mm_sim *sim)
{
	if (!sim->user_min_free_kbytes)
		sim->min_free_kbytes = calculate_min_free_kbytes(sim);
	setup_per_zone_wmarks(sim);
	refresh_zone_stat_thresholds(sim);
	setup_per_zone_lowmem_reserve(sim);
}

void mm_set_min_free_kbytes(struct mm_sim *sim, unsigned int kbytes)
{
	mutex_lock(&sim->hotplug_lock);
	sim->min_free_kbytes = kbytes;
	sim->user_min_free_kbytes = true;
	setup_per_zone_wmarks(sim);
	mutex_unlock(&sim->hotplug_lock);
}

void mm_set_watermark_scale_factor(struct mm_sim *sim, unsigned int factor)
{
	if (factor < 1 || factor > 3000)
		return; /* the sysctl's range rejects it */
	mutex_lock(&sim->hotplug_lock);
	sim->watermark_scale_factor = factor;
	setup_per_zone_wmarks(sim);
	mutex_unlock(&sim->hotplug_lock);
}

unsigned int mm_sim_min_free_kbytes(const struct mm_sim *sim)
{
	return sim->min_free_kbytes;
}

/* ------------------------------------------------------------------------
 * The checks
 * ---------------------------------------------------------------------- */

/*
 * models __zone_watermark_unusable_free() (6.12+, c928807f6f6b: the free
 * highatomic pages, not the reserve's size; no CMA, no unaccepted memory)
 */
long __zone_watermark_unusable_free(const struct zone *z, unsigned int order,
				    unsigned int alloc_flags)
{
	long unusable = (1L << order) - 1;

	/* Callers without access to reserves may not count the highatomic blocks. */
	if (!(alloc_flags & ALLOC_RESERVES))
		unusable += z->sim->policy.highatomic_unusable_reserved
				    ? (long)READ_ONCE(z->nr_reserved_highatomic)
				    : READ_ONCE(z->nr_free_highatomic);
	return unusable;
}

/*
 * The mark after the reserve rules: __GFP_HIGH may use half of min, a
 * non-blocking __GFP_HIGH request a further quarter, an OOM victim half of
 * what is left.
 */
long _mm_wmark_reserve_floor(long mark, unsigned int alloc_flags)
{
	long min = mark;

	if (alloc_flags & ALLOC_RESERVES) {
		if (alloc_flags & ALLOC_MIN_RESERVE) {
			min -= min / 2;
			if (alloc_flags & ALLOC_NON_BLOCK)
				min -= min / 4;
		}
		if (alloc_flags & ALLOC_OOM)
			min -= min / 2;
	}
	return min;
}

/* models __zone_watermark_ok() */
bool __zone_watermark_ok(const struct zone *z, unsigned int order, unsigned long mark,
			 int highest_zoneidx, unsigned int alloc_flags, long free_pages)
{
	long min = _mm_wmark_reserve_floor((long)mark, alloc_flags);

	free_pages -= __zone_watermark_unusable_free(z, order, alloc_flags);
	/* An order-0 failure means no higher order can pass either. */
	if (free_pages <= min + (long)READ_ONCE(z->lowmem_reserve[highest_zoneidx]))
		return false;
	if (!order)
		return true;

	/* For a high-order request, at least one suitable block must be free. */
	for (unsigned int o = order; o <= z->sim->max_order; o++) {
		const struct free_area *area = &z->free_area[o];
		if (!READ_ONCE(area->nr_free))
			continue;
		for (int mt = 0; mt < MIGRATE_PCPTYPES; mt++)
			if (!free_area_empty(area, mt))
				return true;
		if ((alloc_flags & (ALLOC_HIGHATOMIC | ALLOC_OOM)) &&
		    !free_area_empty(area, MIGRATE_HIGHATOMIC))
			return true;
	}
	return false;
}

bool zone_watermark_ok(const struct zone *z, unsigned int order, unsigned long mark,
		       int highest_zoneidx, unsigned int alloc_flags)
{
	return __zone_watermark_ok(z, order, mark, highest_zoneidx, alloc_flags,
				   zone_page_state(z, NR_FREE_PAGES));
}

/* models zone_watermark_fast(): an order-0 shortcut before the full check */
bool zone_watermark_fast(const struct zone *z, unsigned int order, unsigned long mark,
			 int highest_zoneidx, unsigned int alloc_flags)
{
	long free_pages = zone_page_state(z, NR_FREE_PAGES);

	if (!order) {
		long usable = free_pages;
		long reserved = __zone_watermark_unusable_free(z, 0, alloc_flags);

		/* reserved may overestimate the highatomic reserves */
		usable -= usable < reserved ? usable : reserved;
		if (usable > (long)mark + (long)READ_ONCE(z->lowmem_reserve[highest_zoneidx]))
			return true;
	}
	if (__zone_watermark_ok(z, order, mark, highest_zoneidx, alloc_flags, free_pages))
		return true;
	/* __GFP_HIGH order-0 requests ignore boosting at the min mark. */
	if (!order && (alloc_flags & ALLOC_MIN_RESERVE) && READ_ONCE(z->watermark_boost) &&
	    (alloc_flags & ALLOC_WMARK_MASK) == WMARK_MIN)
		return __zone_watermark_ok(z, order, READ_ONCE(z->_watermark[WMARK_MIN]),
					   highest_zoneidx, alloc_flags, free_pages);
	return false;
}

/*
 * models zone_watermark_ok_safe(): where the CPUs could drift past the
 * low - min gap (a drift mark is set) and the estimate is below the mark,
 * pay for the snapshot. kswapd's balance checks use it; allocations do not.
 */
bool zone_watermark_ok_safe(struct zone *z, unsigned int order, unsigned long mark,
			    int highest_zoneidx)
{
	long free_pages = zone_page_state(z, NR_FREE_PAGES);
	unsigned long drift_mark = READ_ONCE(z->percpu_drift_mark);
	bool snapshot = drift_mark && free_pages < (long)drift_mark;

	if (snapshot)
		free_pages = zone_page_state_snapshot(z, NR_FREE_PAGES);
	bool ok = __zone_watermark_ok(z, order, mark, highest_zoneidx, 0, free_pages);

	/* Below the drift mark the answer must be the exact one (one thread: a stable view). */
	if (snapshot && z->sim->serial) {
		long exact = z->vm_stat_exact[NR_FREE_PAGES];
		bool want = __zone_watermark_ok(z, order, mark, highest_zoneidx, 0,
						exact < 0 ? 0 : exact);
		if (ok != want)
			zone_report(
				z, "INV-VMSTAT-SAFE", -1, want, ok,
				"zone_watermark_ok_safe below the drift mark (snapshot %ld, exact "
				"%ld, mark %lu)",
				free_pages, exact, mark);
	}
	return ok;
}

/*
 * The largest boost the kernel's rule allows: factor / 10000 of the high
 * mark (mult_frac), at least a pageblock; 0 where boosting is off (factor
 * 0, a high mark the factor rounds to 0).
 */
unsigned long _mm_boost_bound(const struct zone *zone, unsigned int factor)
{
	unsigned long pageblock_nr_pages = 1UL << zone->sim->pageblock_order;
	unsigned long max_boost = mult_frac(READ_ONCE(zone->_watermark[WMARK_HIGH]), factor, 10000);

	if (!max_boost)
		return 0;
	return max_boost > pageblock_nr_pages ? max_boost : pageblock_nr_pages;
}

/*
 * models boost_watermark() (6.10): a fallback steal raises the zone's
 * marks by a pageblock, up to the bound, so that kswapd reclaims ahead of
 * the next fallback. Zones under four pageblocks are left alone (a boost
 * there is an OOM). zone->lock held.
 */
bool boost_watermark(struct zone *zone)
{
	unsigned long pageblock_nr_pages = 1UL << zone->sim->pageblock_order;
	unsigned int factor = READ_ONCE(zone->sim->watermark_boost_factor); /* the sysctl's */
	unsigned long max_boost, boost;

	if (!factor)
		return false;
	if (pageblock_nr_pages * 4 > zone_managed_pages(zone))
		return false;
	/* A high mark still 0 (boot): reclaim could not meet a boost, do not start one. */
	max_boost = _mm_boost_bound(zone, factor);
	if (!max_boost)
		return false;
	boost = zone->watermark_boost + pageblock_nr_pages;
	WRITE_ONCE(zone->watermark_boost, boost < max_boost ? boost : max_boost);
	return true;
}

/*
 * INV-BOOST-BOUND: watermark_boost <= max(pageblock_nr_pages, high *
 * factor / 10000), the bound recomputed here from the mark and the sysctl
 * (not from anything boost_watermark() kept). A factor lowered after a
 * boost lowers the bound only for the next boost in the kernel too, so the
 * bound is the largest of the factors since the boost was last 0: the
 * checker's boost_factor_seen. O(1): after every op on the zone's node.
 */
MM_NO_COVERAGE unsigned long _mm_check_boost_bound(struct zone *zone)
{
	unsigned long boost = READ_ONCE(zone->watermark_boost);
	unsigned int factor = READ_ONCE(zone->sim->boost_factor_seen);

	if (!boost)
		return 0;
	unsigned long bound = _mm_boost_bound(zone, factor);
	if (boost <= bound)
		return 0;
	zone_report(zone, "INV-BOOST-BOUND", -1, (long long)bound, (long long)boost,
		    "watermark_boost above max(pageblock, high %lu * factor %u / 10000)",
		    READ_ONCE(zone->_watermark[WMARK_HIGH]), factor);
	return 1;
}

/* models the vm.watermark_boost_factor sysctl: any value >= 0, used by the next boost */
void mm_set_watermark_boost_factor(struct mm_sim *sim, unsigned int factor)
{
	mutex_lock(&sim->hotplug_lock);
	/* The seen maximum first: a boost under the new factor is within the checker's bound. */
	if (factor > sim->boost_factor_seen)
		WRITE_ONCE(sim->boost_factor_seen, factor);
	WRITE_ONCE(sim->watermark_boost_factor, factor);
	mutex_unlock(&sim->hotplug_lock);
}

int _mm_op_set_boost_factor(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	mm_set_watermark_boost_factor(ctx->sim, op->sysctl.value);
	return 0;
}

int _mm_op_set_min_free_kbytes(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	mm_set_min_free_kbytes(ctx->sim, op->sysctl.value);
	_mm_check_sizing(ctx->sim);
	return 0;
}

int _mm_op_set_wsf(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	mm_set_watermark_scale_factor(ctx->sim, op->sysctl.value);
	_mm_check_sizing(ctx->sim);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * reclaim.c - kswapd, one per node (seed 002). An allocation that fails
 * the low watermark wakes it; while it is awake the node's vmstat
 * thresholds are the pressure ones, so the estimate the allocator checks
 * cannot drift past the low - min gap; a step reclaims pages back from the
 * allocations made reclaimable (__GFP_RECLAIMABLE) until the node is
 * balanced at the high mark, judged by zone_watermark_ok_safe(); going
 * back to sleep restores the normal thresholds and flushes the compaction
 * skip bits a direct compaction asked to.
 *
 * The model's kswapd runs as ops, not as a thread: the fuzzer decides when
 * it gets the CPU, including not before the allocations that needed it.
 *
 * Watermark boosting in balance_pgdat() (nr_boost_reclaim, the boosts
 * taken back at the end of a run), pgdat_watermark_boosted() in
 * wakeup_kswapd() and ZONE_RECLAIM_ACTIVE (set_reclaim_active(),
 * clear_reclaim_active()) follow 6.10.
 */
#include "internal.h"

#define SWAP_CLUSTER_MAX     32 /* pages a reclaim pass aims for */
#define MAX_RECLAIM_RETRIES  16 /* kswapd_failures past which a node is hopeless */
#define KSWAPD_ZONEIDX_UNSET MAX_NR_ZONES

void _mm_kswapd_reset(struct mm_sim *sim)
{
	for (unsigned int n = 0; n < sim->nr_nodes; n++)
		sim->node_data[n]->kswapd =
			(struct kswapd_state){.highest_zoneidx = KSWAPD_ZONEIDX_UNSET};
}

/*
 * models pgdat_balanced(): one zone up to highest_zoneidx at its high mark
 * is enough, by the safe check; a node with no such zone needs no kswapd.
 */
bool pgdat_balanced(struct pglist_data *pgdat, unsigned int order, int highest_zoneidx)
{
	bool any = false;

	for (int zt = 0; zt <= highest_zoneidx && zt < MAX_NR_ZONES; zt++) {
		struct zone *zone = &pgdat->node_zones[zt];
		if (!managed_zone(zone))
			continue;
		any = true;
		if (zone_watermark_ok_safe(zone, order, wmark_pages(zone, WMARK_HIGH),
					   highest_zoneidx))
			return true;
	}
	return !any;
}

/* models pgdat_watermark_boosted(): a zone up to highest_zoneidx has a boost to reclaim */
static bool pgdat_watermark_boosted(struct pglist_data *pgdat, int highest_zoneidx)
{
	for (int zt = highest_zoneidx; zt >= 0; zt--)
		if (zt < MAX_NR_ZONES && managed_zone(&pgdat->node_zones[zt]) &&
		    READ_ONCE(pgdat->node_zones[zt].watermark_boost))
			return true;
	return false;
}

/*
 * models wakeup_kswapd(): records the largest order and zone asked for,
 * and wakes a sleeping kswapd unless the node is hopeless, or balanced
 * with no boost to reclaim.
 * Waking does not switch thresholds; kswapd does, once it runs.
 */
void wakeup_kswapd(struct zone *zone, unsigned int gfp, unsigned int order, int highest_zoneidx)
{
	struct mm_sim *sim = zone->sim;
	struct pglist_data *pgdat = sim->node_data[zone->node];
	struct kswapd_state *k = &pgdat->kswapd;

	(void)gfp; /* no kcompactd to hand a hopeless node to */
	if (!managed_zone(zone))
		return;
	mutex_lock(&sim->kswapd_lock);
	if (k->highest_zoneidx == KSWAPD_ZONEIDX_UNSET ||
	    (k->highest_zoneidx < highest_zoneidx && !sim->policy.kswapd_wake_first_zone_only))
		k->highest_zoneidx = highest_zoneidx;
	if (k->order < order)
		k->order = order;
	bool wake = !k->awake && k->failures < MAX_RECLAIM_RETRIES;
	mutex_unlock(&sim->kswapd_lock);
	if (!wake || (pgdat_balanced(pgdat, order, highest_zoneidx) &&
		      !pgdat_watermark_boosted(pgdat, highest_zoneidx)))
		return;
	mutex_lock(&sim->kswapd_lock);
	if (!k->awake) {
		k->awake = true;
		WRITE_ONCE(k->pressure, false);
		count_event(sim, kswapd_wakes);
	}
	mutex_unlock(&sim->kswapd_lock);
}

/*
 * models wake_all_kswapds(): each node of the zonelist once, through its
 * first managed zone. A zone without managed pages (offlined, or before
 * deferred init) is passed over before the node counts as woken, so the
 * node is still woken through a lower zone.
 */
void wake_all_kswapds(struct mm_sim *sim, unsigned int order, unsigned int gfp,
		      struct zone **zonelist, int highest_zoneidx)
{
	int last_node = -1;

	(void)sim;
	for (struct zone **zp = zonelist; *zp; zp++) {
		struct zone *zone = *zp;
		if ((int)zone->type > highest_zoneidx || !managed_zone(zone) ||
		    zone->node == last_node)
			continue;
		last_node = zone->node;
		wakeup_kswapd(zone, gfp, order, highest_zoneidx);
	}
}

/*
 * Frees one reclaimable allocation of the zone through its handle, as the
 * current CPU: the pages go back the way any free goes (pcp or buddy).
 * Returns the pages freed, 0 when the pfn holds no reclaimable head; *next
 * is the pfn after the block that starts at pfn (pfn + 1 if none does).
 */
static unsigned long reclaim_block(struct mm_sim *sim, uint64_t pfn, uint64_t *next)
{
	const struct page *page = pfn_to_page(sim, pfn);
	unsigned int order = page->order;

	*next = pfn + 1;
	if (page->state != PG_ALLOC && page->state != PG_BUDDY && page->state != PG_PCP)
		return 0;
	*next = pfn + (UINT64_C(1) << order); /* its tails hold no head */
	if (page->state != PG_ALLOC || page->alloc_mt != MIGRATE_RECLAIMABLE)
		return 0;
	struct mm_handle *h = handle_of_block(sim, pfn);
	if (!h)
		return 0; /* not an allocation the running program can lose */
	mm_free_pages(sim, pfn, order, page->stamp.owner, h->gen);
	h->pfn = -1;
	return 1UL << order;
}

/*
 * models shrink_node() for the one reclaimable pool: up to
 * SWAP_CLUSTER_MAX pages from the node's zones up to highest_zoneidx,
 * highest first. Only one thread can own the program's handles.
 */
static unsigned long shrink_node(struct mm_sim *sim, struct pglist_data *pgdat, int highest_zoneidx)
{
	unsigned long reclaimed = 0;

	if (!sim->serial) {
		if (sim->reclaimer)
			reclaimed = sim->reclaimer(sim->reclaimer_arg, pgdat->node_id,
						   SWAP_CLUSTER_MAX);
		count_events(sim, kswapd_reclaimed, reclaimed);
		return reclaimed;
	}
	for (int zt = highest_zoneidx; zt >= 0 && reclaimed < SWAP_CLUSTER_MAX; zt--) {
		struct zone *zone = &pgdat->node_zones[zt];
		uint64_t end = zone->zone_start_pfn + zone->spanned_pages;
		/* Block by block, in pfn order: O(blocks), not O(pages), per step. */
		for (uint64_t pfn = zone->zone_start_pfn, next;
		     pfn < end && reclaimed < SWAP_CLUSTER_MAX; pfn = next)
			reclaimed += reclaim_block(sim, pfn, &next);
	}
	count_events(sim, kswapd_reclaimed, reclaimed);
	return reclaimed;
}

/* models set_reclaim_active() and clear_reclaim_active(): nr_pcp_high() keeps lists short */
static void set_reclaim_active(struct pglist_data *pgdat, int highest_zoneidx, bool active)
{
	for (int zt = 0; zt <= highest_zoneidx && zt < MAX_NR_ZONES; zt++) {
		struct zone *zone = &pgdat->node_zones[zt];
		if (!managed_zone(zone))
			continue;
		if (active)
			atomic_fetch_or_explicit(&zone->flags, ZONE_RECLAIM_ACTIVE,
						 memory_order_relaxed);
		else
			atomic_fetch_and_explicit(&zone->flags, ~ZONE_RECLAIM_ACTIVE,
						  memory_order_relaxed);
	}
}

/*
 * models balance_pgdat() (6.10) for one reclaim pass: the boosts of the
 * zones up to highest_zoneidx are reclaim to do even on a balanced node
 * (nr_boost_reclaim), dropped if the node is not balanced (plain reclaim
 * first); at the end each zone gives back the boost it had at the start,
 * whatever the pass achieved: a new fallback boosts again.
 */
static void balance_pgdat(struct mm_sim *sim, struct pglist_data *pgdat, unsigned int order,
			  int highest_zoneidx)
{
	unsigned long zone_boosts[MAX_NR_ZONES] = {0}, nr_boost_reclaim = 0;
	struct kswapd_state *k = &pgdat->kswapd;
	/* the variant's: every zone of the node, not the ones reclaimed for */
	int boost_end = sim->policy.boost_decay_whole_node ? MAX_NR_ZONES : highest_zoneidx + 1;

	for (int zt = 0; zt < boost_end && zt < MAX_NR_ZONES; zt++) {
		struct zone *zone = &pgdat->node_zones[zt];
		if (!managed_zone(zone))
			continue;
		zone_boosts[zt] = READ_ONCE(zone->watermark_boost);
		nr_boost_reclaim += zone_boosts[zt];
	}
	bool boosted = nr_boost_reclaim;

	set_reclaim_active(pgdat, highest_zoneidx, true);
	bool balanced = pgdat_balanced(pgdat, order, highest_zoneidx);
	if (!balanced && nr_boost_reclaim)
		nr_boost_reclaim = 0; /* the restart: the watermarks before the boost */
	if (nr_boost_reclaim || !balanced) {
		unsigned long reclaimed = shrink_node(sim, pgdat, highest_zoneidx);
		mutex_lock(&sim->kswapd_lock);
		k->failures = reclaimed ? 0 : k->failures + 1;
		mutex_unlock(&sim->kswapd_lock);
	}
	set_reclaim_active(pgdat, highest_zoneidx, false);

	if (!boosted)
		return;
	for (int zt = 0; zt < boost_end && zt < MAX_NR_ZONES; zt++) {
		struct zone *zone = &pgdat->node_zones[zt];
		if (!zone_boosts[zt])
			continue;
		zone_lock(zone); /* boosts grow under zone->lock */
		unsigned long b = zone->watermark_boost;
		WRITE_ONCE(zone->watermark_boost, b - (b < zone_boosts[zt] ? b : zone_boosts[zt]));
		zone_unlock(zone);
	}
}

/*
 * INV-BOOST-DECAY: a balance_pgdat() run takes back every boost it found
 * on the zones up to its highest zone, and touches no other zone's. With
 * one thread nothing boosts during the run, so those zones end at 0 and
 * the others where they were. before: the boosts the checker read before
 * the run (serial runs).
 */
MM_NO_COVERAGE unsigned long _mm_check_boost_decay(struct pglist_data *pgdat, int highest_zoneidx,
						   const unsigned long *before)
{
	unsigned long bad = 0;

	for (int zt = 0; zt < MAX_NR_ZONES; zt++) {
		struct zone *zone = &pgdat->node_zones[zt];
		unsigned long want = zt <= highest_zoneidx && managed_zone(zone) ? 0 : before[zt];
		unsigned long boost = READ_ONCE(zone->watermark_boost);
		if (boost == want)
			continue;
		zone_report(zone, "INV-BOOST-DECAY", -1, (long long)want, (long long)boost,
			    "after kswapd's balance_pgdat() up to zone %d the boost is %lu "
			    "(was %lu)",
			    highest_zoneidx, boost, before[zt]);
		bad++;
	}
	return bad;
}

/*
 * INV-BOOST-WAKE: a fallback steal sets ZONE_BOOSTED_WATERMARK (rmqueue()
 * then wakes kswapd) only when the kernel's rule let boost_watermark()
 * boost: the boost factor is not 0, the zone manages at least 4
 * pageblocks, and the high mark times the factor reaches 10000 (else
 * max_boost is 0). Recomputed here from the sysctl's value, read before
 * the steal (a write since is not judged), and the zone's managed pages
 * and high mark under zone->lock. The caller judges only a steal that
 * found the flag clear, so a set flag is this steal's. O(1).
 */
unsigned long _mm_check_boost_wake(struct zone *zone, unsigned int factor)
{
	unsigned long pageblock_nr_pages = 1UL << zone->sim->pageblock_order;
	unsigned long high = READ_ONCE(zone->_watermark[WMARK_HIGH]);

	if (!(atomic_load_explicit(&zone->flags, memory_order_relaxed) & ZONE_BOOSTED_WATERMARK) ||
	    factor != READ_ONCE(zone->sim->watermark_boost_factor))
		return 0;
	if (factor && pageblock_nr_pages * 4 <= zone_managed_pages(zone) &&
	    (unsigned long long)high * factor >= 10000)
		return 0;
	zone_report(zone, "INV-BOOST-WAKE", -1, 0, 1,
		    "a fallback steal asked for a kswapd wake without a boost: factor %u, %lu "
		    "managed pages (pageblock %lu), high mark %lu",
		    factor, zone_managed_pages(zone), pageblock_nr_pages, high);
	return 1;
}

/*
 * One run of kswapd: the half of kswapd_try_to_sleep() after the wake-up
 * (pressure thresholds), then balance_pgdat() for one reclaim pass.
 * Returns 1 (skipped) when kswapd sleeps.
 */
int _mm_kswapd_step(struct mm_sim *sim, int node)
{
	struct pglist_data *pgdat = sim->node_data[node];
	struct kswapd_state *k = &pgdat->kswapd;

	mutex_lock(&sim->kswapd_lock);
	if (!k->awake) {
		mutex_unlock(&sim->kswapd_lock);
		return 1;
	}
	if (!k->pressure) {
		set_pgdat_percpu_threshold(pgdat, sim->policy.pressure_threshold);
		WRITE_ONCE(k->pressure, true);
	}
	unsigned int order = k->order;
	int zoneidx =
		k->highest_zoneidx == KSWAPD_ZONEIDX_UNSET ? MAX_NR_ZONES - 1 : k->highest_zoneidx;
	mutex_unlock(&sim->kswapd_lock);

	unsigned long before[MAX_NR_ZONES];
	for (int zt = 0; zt < MAX_NR_ZONES; zt++)
		before[zt] = READ_ONCE(pgdat->node_zones[zt].watermark_boost);
	balance_pgdat(sim, pgdat, order, zoneidx);
	if (sim->serial)
		_mm_check_boost_decay(pgdat, zoneidx, before);
	return 0;
}

/*
 * models kswapd_try_to_sleep() deciding to sleep (prepare_kswapd_sleep()):
 * balanced or hopeless. The normal thresholds come back before the sleep.
 * Returns 1 when kswapd stays awake (or was asleep).
 */
int _mm_kswapd_try_to_sleep(struct mm_sim *sim, int node)
{
	struct pglist_data *pgdat = sim->node_data[node];
	struct kswapd_state *k = &pgdat->kswapd;

	mutex_lock(&sim->kswapd_lock);
	bool awake = k->awake, hopeless = k->failures >= MAX_RECLAIM_RETRIES;
	unsigned int order = k->order;
	int zoneidx =
		k->highest_zoneidx == KSWAPD_ZONEIDX_UNSET ? MAX_NR_ZONES - 1 : k->highest_zoneidx;
	mutex_unlock(&sim->kswapd_lock);
	if (!awake || (!hopeless && !pgdat_balanced(pgdat, order, zoneidx)))
		return 1;

	/* kswapd_try_to_sleep(): the skip bits a direct compaction asked to flush, then the
	 * thresholds */
	reset_isolation_suitable(pgdat);
	mutex_lock(&sim->kswapd_lock);
	set_pgdat_percpu_threshold(pgdat, sim->policy.normal_threshold);
	k->awake = false;
	WRITE_ONCE(k->pressure, false);
	k->order = 0;
	k->highest_zoneidx = KSWAPD_ZONEIDX_UNSET;
	mutex_unlock(&sim->kswapd_lock);
	return 0;
}

void mm_set_reclaimer(struct mm_sim *sim, mm_reclaim_fn fn, void *arg)
{
	sim->reclaimer = fn;
	sim->reclaimer_arg = arg;
}

bool mm_kswapd_awake(const struct mm_sim *sim, int node, bool *pressure)
{
	if (node < 0 || (unsigned int)node >= sim->nr_nodes)
		return false;
	const struct kswapd_state *k = &sim->node_data[node]->kswapd;
	if (pressure)
		*pressure = k->pressure;
	return k->awake;
}

static struct zone *op_zone(struct mm_sim *sim, const struct mm_op *op)
{
	if (op->vmstat.node < 0 || (unsigned int)op->vmstat.node >= sim->nr_nodes ||
	    op->vmstat.zone >= MAX_NR_ZONES)
		return NULL;
	struct zone *zone = &sim->node_data[op->vmstat.node]->node_zones[op->vmstat.zone];
	return managed_zone(zone) ? zone : NULL;
}

int _mm_op_vmstat_fold(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	struct mm_sim *sim = ctx->sim;
	struct vmstat_rearm_view before;

	/* the checker's: under threads other CPUs' frees move the lists between */
	if (sim->serial)
		_mm_vmstat_rearm_before(sim, op->cpu, &before);
	int changes = refresh_cpu_vm_stats(sim, op->cpu);
	if (sim->serial)
		_mm_vmstat_check_rearm(sim, op->cpu, &before, changes);
	return 0;
}

int _mm_op_vmstat_read(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	struct zone *zone = op_zone(ctx->sim, op);

	if (!zone)
		return 1;
	if (op->vmstat.how == MM_VMSTAT_READ_SNAPSHOT)
		(void)zone_page_state_snapshot(zone, NR_FREE_PAGES);
	else if (op->vmstat.how == MM_VMSTAT_READ_SAFE)
		(void)zone_watermark_ok_safe(zone, 0, wmark_pages(zone, WMARK_HIGH),
					     (int)zone->type);
	else
		(void)zone_page_state(zone, NR_FREE_PAGES);
	return 0;
}

int _mm_op_vmstat_refresh(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	mutex_lock(&ctx->sim->hotplug_lock);
	refresh_zone_stat_thresholds(ctx->sim);
	mutex_unlock(&ctx->sim->hotplug_lock);
	/* the checker: what the kernel recomputed at this op (check_derived.c) */
	_mm_derived_vmstat_op(ctx->sim, op, 0);
	return 0;
}

int _mm_op_kswapd_wake(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	struct zone *zone = op_zone(ctx->sim, op);

	if (!zone)
		return 1;
	wakeup_kswapd(zone, MM_GFP_KERNEL, op->vmstat.order, (int)op->vmstat.zone);
	_mm_derived_vmstat_op(ctx->sim, op, 0);
	return 0;
}

static bool op_node_ok(struct mm_sim *sim, const struct mm_op *op)
{
	return op->vmstat.node >= 0 && (unsigned int)op->vmstat.node < sim->nr_nodes;
}

int _mm_op_kswapd_step(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	int skipped = op_node_ok(ctx->sim, op) ? _mm_kswapd_step(ctx->sim, op->vmstat.node) : 1;

	_mm_derived_vmstat_op(ctx->sim, op, skipped);
	return skipped;
}

int _mm_op_kswapd_sleep(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	struct mm_sim *sim = ctx->sim;
	bool flush[MAX_NR_ZONES] = {false}, any = false;

	if (!op_node_ok(sim, op))
		return 1;
	/* the checker: the zones whose skip bits kswapd's sleep must flush */
	struct zone *zones = sim->node_data[op->vmstat.node]->node_zones;
	for (int zt = 0; zt < MAX_NR_ZONES; zt++)
		any |= flush[zt] = READ_ONCE(zones[zt].compact_blockskip_flush);
	if (any) /* the flags copy only where a flush will be checked */
		compact_check_flush_begin(sim);
	int skipped = _mm_kswapd_try_to_sleep(sim, op->vmstat.node);
	for (int zt = 0; !skipped && zt < MAX_NR_ZONES; zt++)
		if (flush[zt])
			compact_check_flushed(&zones[zt]);
	_mm_derived_vmstat_op(sim, op, skipped);
	return skipped;
}

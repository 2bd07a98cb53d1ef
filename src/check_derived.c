/* SPDX-License-Identifier: MIT */
/*
 * check_derived.c - derived state equals the rule (INV-DERIVED-*): every
 * quantity the kernel computes from the machine's inputs (managed pages,
 * online CPUs, sysctls, node shape) at known points is recomputed here,
 * from the kernel's formulas written out again, and compared with what
 * the model stored. None of these checks calls the function that computed
 * the value it checks. A policy plugin's rule (docs/policy-lab.md) is
 * the policy under test, not a bug: where one is loaded, its function is
 * the rule its quantity is held against; the other invariants judge it.
 *
 * Where the kernel itself leaves a value stale, the rule is held against
 * the inputs of the kernel's last recompute, kept in a shadow the checker
 * updates at the ops where the kernel recomputes (struct derived_shadow);
 * that the value differs from what the inputs now give is reported only in
 * the strict mode (INV-DERIVED-STALE, --strict-watermarks).
 */
#include "internal.h"

#include <limits.h>
#include <string.h>

#define KSWAPD_ZONEIDX_UNSET MAX_NR_ZONES

MM_SCAN_INLINE static int fls_rule(unsigned long x)
{
	int r = 0;

	for (; x; x >>= 1)
		r++;
	return r;
}

/* ------------------------------------------------------------------------
 * The rules, as the kernel states them
 * ---------------------------------------------------------------------- */

/* models calculate_min_free_kbytes(): clamp(int_sqrt(16 * lowmem kB), 128, 262144) */
MM_SCAN_INLINE static unsigned long rule_min_free_kbytes(const struct mm_sim *sim)
{
	unsigned long lowmem = 0, kb, r = 0;

	for_each_zone(sim, z)
		if (z->type <= ZONE_NORMAL)
			lowmem += zone_managed_pages(z);
	kb = lowmem * (1UL << (MM_PAGE_SHIFT - 10)) * 16;
	/* the largest r with r * r <= kb, by bisection (a product: no division per step) */
	for (unsigned long lo = 0, hi = (1UL << 32) - 1; lo < hi;) {
		unsigned long mid = lo + (hi - lo + 1) / 2;
		if (mid * mid <= kb) {
			lo = mid;
			r = mid;
		} else {
			hi = mid - 1;
		}
	}
	return r < 128 ? 128 : r > 262144 ? 262144 : r;
}

struct wmarks {
	unsigned long min, low, high, promo;
};

/* models __setup_per_zone_wmarks() for one zone; lowmem: Σ managed of the non-Movable zones */
MM_SCAN_INLINE static struct wmarks rule_wmarks(const struct mm_sim *sim, const struct zone *zone,
						unsigned long lowmem)
{
	unsigned long pages_min = sim->min_free_kbytes / (1UL << (MM_PAGE_SHIFT - 10));
	unsigned long managed = zone_managed_pages(zone), share, gap, scaled;
	struct wmarks w;

	share = lowmem ? pages_min * managed / lowmem : 0;
	if (zone->type == ZONE_MOVABLE) {
		/* clamp(managed / 1024, SWAP_CLUSTER_MAX, 128) */
		w.min = managed / 1024;
		w.min = w.min < 32 ? 32 : w.min > 128 ? 128 : w.min;
	} else {
		w.min = share;
	}
	scaled = managed * sim->watermark_scale_factor / 10000;
	gap = share / 4 > scaled ? share / 4 : scaled;
	w.low = w.min + gap;
	w.high = w.min + 2 * gap;
	w.promo = w.min + 3 * gap;
	return w;
}

/* sysctl_lowmem_reserve_ratio: DMA 256, DMA32 256, Normal 32, none above */
static unsigned long rule_lowmem_ratio(int zt)
{
	return zt == ZONE_DMA || zt == ZONE_DMA32 ? 256 : zt == ZONE_NORMAL ? 32 : 0;
}

/* models setup_per_zone_lowmem_reserve() for lowmem_reserve[j] of zone i */
MM_SCAN_INLINE static unsigned long rule_lowmem_reserve(const struct pglist_data *pgdat, int i,
							int j)
{
	unsigned long ratio = rule_lowmem_ratio(i), sum = 0;

	if (j <= i || !ratio || !zone_managed_pages(&pgdat->node_zones[i]))
		return 0;
	for (int k = i + 1; k <= j; k++)
		sum += zone_managed_pages(&pgdat->node_zones[k]);
	return sum / ratio;
}

/* models zone_batchsize() with its caller's max(1, .): 2^n - 1 from about 0.025% */
MM_SCAN_INLINE static int rule_pcp_batch(unsigned long managed)
{
	const struct mm_policy *plugin = _mm_policy_plugin();
	unsigned long b = managed / 1024, p = 1;

	if (plugin && plugin->zone_batchsize) {
		int pb = plugin->zone_batchsize(managed);
		return pb > 1 ? pb : 1;
	}

	if (b > 256) /* SZ_1M / PAGE_SIZE */
		b = 256;
	b /= 4;
	if (!b)
		b = 1;
	while (2 * p <= b + b / 2)
		p *= 2;
	return p - 1 ? (int)(p - 1) : 1;
}

/* models zone_highsize() (6.7+): total over the node's online CPUs (split), at least 4 batches */
MM_SCAN_INLINE static int rule_pcp_high(unsigned long total, int batch, unsigned int split)
{
	const struct mm_policy *plugin = _mm_policy_plugin();
	unsigned long high = total / split;

	if (plugin && plugin->zone_highsize)
		return plugin->zone_highsize(total, batch, (int)split);
	return high > 4UL * (unsigned long)batch ? (int)high : 4 * batch;
}

/* models calculate_normal_threshold() */
MM_SCAN_INLINE static int rule_normal_threshold(const struct mm_sim *sim, const struct zone *zone)
{
	const struct mm_policy *plugin = _mm_policy_plugin();
	if (plugin && plugin->normal_threshold)
		return plugin->normal_threshold(zone);
	int cpus = fls_rule(mm_num_online_cpus(sim));
	int mem = fls_rule(zone_managed_pages(zone) >> (27 - MM_PAGE_SHIFT));
	int t = 2 * cpus * (1 + mem);

	return t > 125 ? 125 : t;
}

/* models calculate_pressure_threshold() (88f5acf88ae6): clamp((low - min) / CPUs, 1, 125) */
static int rule_pressure_threshold(const struct mm_sim *sim, const struct zone *zone)
{
	const struct mm_policy *plugin = _mm_policy_plugin();
	if (plugin && plugin->pressure_threshold)
		return plugin->pressure_threshold(zone);
	long gap = (long)wmark_pages(zone, WMARK_LOW) - (long)wmark_pages(zone, WMARK_MIN);
	long t = gap / (long)mm_num_online_cpus(sim);

	return t < 1 ? 1 : t > 125 ? 125 : (int)t;
}

/* The drift mark refresh_zone_stat_thresholds() sets now, or `old` where it sets none. */
MM_SCAN_INLINE static unsigned long
rule_drift_mark(const struct mm_sim *sim, const struct zone *zone, int t, unsigned long old)
{
	unsigned long tolerate = wmark_pages(zone, WMARK_LOW) - wmark_pages(zone, WMARK_MIN);
	unsigned long max_drift = (unsigned long)mm_num_online_cpus(sim) * (unsigned long)t;

	return max_drift > tolerate ? wmark_pages(zone, WMARK_HIGH) + max_drift : old;
}

/* models compute_batch_value(): max(32, 2 * online CPUs) */
static int rule_percpu_counter_batch(const struct mm_sim *sim)
{
	int two = 2 * (int)mm_num_online_cpus(sim);

	return two < 32 ? 32 : two;
}

/* models mm_compute_batch(): RAM per present CPU / 4 (/ 256 under NEVER), at least max(2n, 32) */
static int rule_commit_batch(unsigned int present, unsigned long ram, int policy)
{
	const struct mm_policy *plugin = _mm_policy_plugin();
	if (plugin && plugin->mm_compute_batch) /* the batch under test is the plugin's */
		return plugin->mm_compute_batch(present, ram, policy);
	unsigned long n = present ? present : 1;
	unsigned long floor = 2 * n < 32 ? 32 : 2 * n;
	unsigned long per_cpu = ram / n / (policy == MM_OVERCOMMIT_NEVER ? 256 : 4);

	if (per_cpu > INT_MAX)
		per_cpu = INT_MAX;
	return (int)(per_cpu > floor ? per_cpu : floor);
}

/* ------------------------------------------------------------------------
 * The shadow of the kernel's recompute points (vmstat thresholds)
 * ---------------------------------------------------------------------- */

static struct derived_zone *dz(struct mm_sim *sim, const struct zone *zone)
{
	return &sim->derived.zone[zone->node][zone->type];
}

/* refresh_zone_stat_thresholds() ran: what it set, from the inputs now */
static void shadow_refresh(struct mm_sim *sim)
{
	for_each_zone(sim, z) {
		if (!z->per_cpu_zonestats)
			continue;
		struct derived_zone *d = dz(sim, z);
		d->threshold = (int8_t)rule_normal_threshold(sim, z);
		d->drift_mark = rule_drift_mark(sim, z, d->threshold, d->drift_mark);
	}
}

/* set_pgdat_percpu_threshold(): only the zones with a drift mark */
static void shadow_set_node(struct mm_sim *sim, int node, bool pressure)
{
	for (int zt = 0; zt < MAX_NR_ZONES; zt++) {
		struct zone *z = &sim->node_data[node]->node_zones[zt];
		struct derived_zone *d = dz(sim, z);
		if (!z->per_cpu_zonestats || !d->drift_mark)
			continue;
		d->threshold = (int8_t)(pressure ? rule_pressure_threshold(sim, z)
						 : rule_normal_threshold(sim, z));
	}
	sim->derived.pressure[node] = pressure;
}

void _mm_derived_boot(struct mm_sim *sim)
{
	/* the rows of the machine's nodes: the shadow covers 64 nodes, a fuzz machine a few */
	memset(sim->derived.zone, 0, sim->cfg.nr_nodes * sizeof(sim->derived.zone[0]));
	memset(sim->derived.pressure, 0, sizeof(sim->derived.pressure));
	sim->derived.ram = 0;
	for (unsigned int n = 0; n < sim->cfg.nr_nodes; n++)
		for (int zt = 0; zt < MAX_NR_ZONES; zt++)
			sim->derived.ram += (unsigned long)sim->cfg.zones[n][zt].managed;
	shadow_refresh(sim);
	sim->derived.online = mm_num_online_cpus(sim);
	sim->derived.pending = sim->deferred_pending;
}

/*
 * The ops since the last check: a CPU came or went (page_alloc_cpu_online /
 * vmstat_cpu_dead refresh the thresholds), or deferred init completed
 * (page_alloc_init_late's watermark initcall refreshes them). Every such op
 * is followed by a check in serial runs, so no two go by unseen.
 */
static void shadow_follow(struct mm_sim *sim)
{
	unsigned int online = mm_num_online_cpus(sim);

	if (online != sim->derived.online || (sim->derived.pending && !sim->deferred_pending))
		shadow_refresh(sim);
	sim->derived.online = online;
	sim->derived.pending = sim->deferred_pending;
}

MM_SCAN static unsigned long check_vmstat_nodes(struct mm_sim *sim, unsigned int first,
						unsigned int end);

void _mm_derived_vmstat_op(struct mm_sim *sim, const struct mm_op *op, int skipped)
{
	if (!sim->serial || skipped)
		return;
	bool set = true; /* the op set thresholds: check them; the rest wait for a scan */

	/* Memory hotplug's init_per_zone_wmark_min() refreshes them too. */
	if (op->kind == MM_OP_VMSTAT_REFRESH || op->kind == MM_OP_OFFLINE_PAGES ||
	    op->kind == MM_OP_ONLINE_PAGES)
		shadow_refresh(sim);
	else if (op->kind == MM_OP_KSWAPD_STEP && !sim->derived.pressure[op->vmstat.node])
		shadow_set_node(sim, op->vmstat.node, true); /* kswapd runs: pressure thresholds */
	else if (op->kind == MM_OP_KSWAPD_SLEEP)
		shadow_set_node(sim, op->vmstat.node,
				false); /* kswapd_try_to_sleep(): normal again */
	else
		set = false;
	if (op->kind == MM_OP_KSWAPD_WAKE)
		_mm_derived_check_kswapd_request(sim, op->vmstat.node, op->vmstat.order,
						 (int)op->vmstat.zone);
	/* kswapd's ops set one node's thresholds: the others wait for the next scan */
	if (set && (op->kind == MM_OP_KSWAPD_STEP || op->kind == MM_OP_KSWAPD_SLEEP))
		check_vmstat_nodes(sim, op->vmstat.node, op->vmstat.node + 1);
	else if (set)
		_mm_derived_check_vmstat(sim);
}

/* ------------------------------------------------------------------------
 * The checks
 * ---------------------------------------------------------------------- */

#define zreport(z, id, cpu, exp, act, ...)                                                         \
	mm_report_violation((z)->sim, id, (z)->node, (int)(z)->type, cpu, -1, (long long)(exp),    \
			    (long long)(act), __VA_ARGS__)

/*
 * INV-DERIVED-VMSTAT-THRESH, INV-DERIVED-DRIFT-MARK: every online CPU's
 * stat_threshold and each zone's drift mark are what the kernel's last
 * recompute set (the shadow). O(zones x CPUs): after hotplug, sysctl,
 * refresh and kswapd ops, and at full scans.
 */
MM_SCAN_INLINE static unsigned long check_vmstat_zone(struct mm_sim *sim, const struct zone *z)
{
	unsigned long bad = 0;

	if (!z->per_cpu_zonestats)
		return 0;
	const struct derived_zone *d = dz(sim, z);
	if (READ_ONCE(z->percpu_drift_mark) != d->drift_mark) {
		zreport(z, "INV-DERIVED-DRIFT-MARK", -1, d->drift_mark, z->percpu_drift_mark,
			"percpu_drift_mark is not what refresh_zone_stat_thresholds() set");
		bad++;
	}
	for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++) {
		int8_t t = READ_ONCE(z->per_cpu_zonestats[cpu].stat_threshold);
		if (t == d->threshold || !cpu_online(sim, cpu))
			continue;
		zreport(z, "INV-DERIVED-VMSTAT-THRESH", (int)cpu, d->threshold, t,
			"stat_threshold is not the %s threshold of the last recompute",
			sim->derived.pressure[z->node] && d->drift_mark ? "pressure" : "normal");
		bad++;
		break;
	}
	/*
	 * The kernel's own staleness: a watermark sysctl refreshes no
	 * threshold, so the mark may be computed for an old low - min.
	 */
	if (sim->strict_watermarks && !sim->deferred_pending) {
		unsigned long now =
			rule_drift_mark(sim, z, rule_normal_threshold(sim, z), d->drift_mark);
		if (now != d->drift_mark) {
			zreport(z, "INV-DERIVED-STALE", -1, now, d->drift_mark,
				"the drift mark was computed for other watermarks: a refresh now "
				"would set it (the kernel allows this)");
			bad++;
		}
	}
	return bad;
}

/* The zones of nodes first..end-1 */
MM_SCAN static unsigned long check_vmstat_nodes(struct mm_sim *sim, unsigned int first,
						unsigned int end)
{
	unsigned long bad = 0;

	shadow_follow(sim);
	for (unsigned int n = first; n < end; n++)
		for (int zt = 0; zt < MAX_NR_ZONES; zt++)
			bad += check_vmstat_zone(sim, &sim->node_data[n]->node_zones[zt]);
	return bad;
}

unsigned long _mm_derived_check_vmstat(struct mm_sim *sim)
{
	return sim->serial ? check_vmstat_nodes(sim, 0, sim->nr_nodes) : 0;
}

/* INV-DERIVED-WMARK, -MIN-FREE-KBYTES, -LOWMEM: the watermark setup's outputs */
MM_SCAN static unsigned long check_wmarks(struct mm_sim *sim)
{
	unsigned long bad = 0, lowmem = 0;

	for_each_zone(sim, z)
		if (z->type != ZONE_MOVABLE)
			lowmem += zone_managed_pages(z);

	if (!sim->user_min_free_kbytes && sim->min_free_kbytes != rule_min_free_kbytes(sim)) {
		mm_report_violation(sim, "INV-DERIVED-MIN-FREE-KBYTES", -1, -1, -1, -1,
				    (long long)rule_min_free_kbytes(sim), sim->min_free_kbytes,
				    "min_free_kbytes is not int_sqrt(16 * lowmem kB) clamped");
		bad++;
	}
	for_each_zone(sim, z) {
		struct wmarks w = rule_wmarks(sim, z, lowmem);
		unsigned long want[NR_WMARK] = {[WMARK_MIN] = w.min,
						[WMARK_LOW] = w.low,
						[WMARK_HIGH] = w.high,
						[WMARK_PROMO] = w.promo};
		for (int i = 0; i < NR_WMARK; i++) {
			if (z->_watermark[i] == want[i])
				continue;
			zreport(z, "INV-DERIVED-WMARK", -1, want[i], z->_watermark[i],
				"watermark %d is not __setup_per_zone_wmarks()'s for %lu managed, "
				"min_free_kbytes %u, scale factor %u",
				i, zone_managed_pages(z), sim->min_free_kbytes,
				sim->watermark_scale_factor);
			bad++;
			break;
		}
		bad += _mm_check_boost_bound(z); /* boost_watermark() boosts now */
		for (int j = 0; j < MAX_NR_ZONES; j++) {
			unsigned long r =
				rule_lowmem_reserve(sim->node_data[z->node], (int)z->type, j);
			if (z->lowmem_reserve[j] == r)
				continue;
			zreport(z, "INV-DERIVED-LOWMEM", -1, r, z->lowmem_reserve[j],
				"lowmem_reserve[%d] is not the managed pages above over the ratio",
				j);
			bad++;
			break;
		}
	}
	return bad;
}

/* models zone_pcp_update()'s sizing of z: split over the node's online CPUs (all if none) */
MM_SCAN_INLINE static void rule_pcp_sizing(const struct mm_sim *sim, const struct zone *z,
					   unsigned int node_online, int *batch, int *lo, int *hi)
{
	unsigned long managed = zone_managed_pages(z);
	unsigned int fraction = sim->percpu_pagelist_high_fraction;
	unsigned int n = node_online ? node_online : mm_num_online_cpus(sim);

	/* low_wmark_pages() as the last sizing saw it: the boost of that moment */
	unsigned long low = z->_watermark[WMARK_LOW] + z->pcp_sizing_boost;

	*batch = rule_pcp_batch(managed);
	*lo = rule_pcp_high(fraction ? managed / fraction : low, *batch, n);
	*hi = fraction ? *lo : rule_pcp_high(managed / 8, *batch, n);
}

/*
 * INV-DERIVED-PCP-BATCH, INV-DERIVED-PCP-HIGH: zone_pcp_update()'s outputs,
 * the zone's copy; INV-PCP-SIZING holds every CPU's pageset to it.
 */
MM_SCAN static unsigned long check_pcp(struct mm_sim *sim)
{
	unsigned int split[MM_MAX_NODES] = {0};
	unsigned long bad = 0;

	for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++)
		split[sim->cpu_to_node[cpu]] += cpu_online(sim, cpu);
	for_each_zone(sim, z) {
		if (!z->per_cpu_pageset)
			continue;
		unsigned long managed = zone_managed_pages(z);
		int batch, lo, hi;

		rule_pcp_sizing(sim, z, split[z->node], &batch, &lo, &hi);

		if (z->pageset_batch != batch) {
			zreport(z, "INV-DERIVED-PCP-BATCH", -1, batch, z->pageset_batch,
				"the zone's pcp batch is not zone_batchsize(%lu)", managed);
			bad++;
		} else if (z->pageset_high_min != lo || z->pageset_high_max != hi) {
			zreport(z, "INV-DERIVED-PCP-HIGH", -1, z->pageset_high_min != lo ? lo : hi,
				z->pageset_high_min != lo ? z->pageset_high_min
							  : z->pageset_high_max,
				"high_min/high_max %d/%d, zone_highsize() gives %d/%d",
				z->pageset_high_min, z->pageset_high_max, lo, hi);
			bad++;
		}
	}
	return bad;
}

/* INV-DERIVED-PCPU-BATCH, INV-DERIVED-COMMIT-BATCH: the counters' batches */
MM_SCAN unsigned long _mm_derived_check_counters(struct mm_sim *sim)
{
	struct pcpu_state *s = sim->pcc;
	unsigned long bad = 0, ram;

	if (!s)
		return 0;
	if (s->percpu_counter_batch != rule_percpu_counter_batch(sim)) {
		mm_report_violation(sim, "INV-DERIVED-PCPU-BATCH", -1, -1, -1, -1,
				    rule_percpu_counter_batch(sim), s->percpu_counter_batch,
				    "percpu_counter_batch is not max(32, 2 * %u online CPUs)",
				    mm_num_online_cpus(sim));
		bad++;
	}
	/* totalram: every page the machine will manage (mm_compute_batch_init runs late) */
	ram = sim->derived.ram;
	int want = rule_commit_batch(sim->nr_cpus, ram, s->sysctl_overcommit_memory);
	if (s->totalram != ram || s->vm_committed_as_batch != want) {
		mm_report_violation(sim, "INV-DERIVED-COMMIT-BATCH", -1, -1, -1, -1, want,
				    s->vm_committed_as_batch,
				    "vm_committed_as_batch for %u present CPUs, %lu pages (model "
				    "%lu), policy %d",
				    sim->nr_cpus, ram, s->totalram, s->sysctl_overcommit_memory);
		bad++;
	}
	unsigned long admin = ram / 32 < 2048 ? ram / 32 : 2048;
	unsigned long user = ram / 32 < 32768 ? ram / 32 : 32768;
	if (s->admin_reserve != admin || s->user_reserve != user) {
		mm_report_violation(sim, "INV-DERIVED-COMMIT-BATCH", -1, -1, -1, -1,
				    (long long)admin, (long long)s->admin_reserve,
				    "admin/user reserve %lu/%lu, the rule gives %lu/%lu",
				    s->admin_reserve, s->user_reserve, admin, user);
		bad++;
	}
	return bad;
}

/*
 * INV-KSWAPD-REQUEST: after wakeup_kswapd(order, highest_zoneidx) on a
 * node with that zone managed, kswapd's recorded request covers it: its
 * order at least `order`, its highest zone index set and at least
 * `highest_zoneidx` (until kswapd sleeps and clears them).
 */
unsigned long _mm_derived_check_kswapd_request(struct mm_sim *sim, int node, unsigned int order,
					       int highest_zoneidx)
{
	const struct kswapd_state *k = &sim->node_data[node]->kswapd;

	if (!sim->serial)
		return 0;
	if (k->order >= order && k->highest_zoneidx != KSWAPD_ZONEIDX_UNSET &&
	    k->highest_zoneidx >= highest_zoneidx)
		return 0;
	mm_report_violation(sim, "INV-KSWAPD-REQUEST", node, -1, smp_processor_id(), -1,
			    (long long)order << 8 | (unsigned int)highest_zoneidx,
			    (long long)k->order << 8 | (unsigned int)k->highest_zoneidx,
			    "kswapd asked for order %u zone %d records order %u zone %d", order,
			    highest_zoneidx, k->order, k->highest_zoneidx);
	return 1;
}

/* After wake_all_kswapds(): every node of the zonelist with a zone it could use. */
void _mm_derived_check_kswapd_wakes(struct mm_sim *sim, struct zone **zonelist, unsigned int order,
				    int highest_zoneidx)
{
	for (struct zone **zp = zonelist; *zp; zp++)
		if ((int)(*zp)->type <= highest_zoneidx && managed_zone(*zp))
			_mm_derived_check_kswapd_request(sim, (*zp)->node, order, highest_zoneidx);
}

/*
 * The most a zone of `managed` pages can hold reserved: the cap
 * (managed / 100 + a pageblock) is tested before each reservation of one
 * more pageblock, so at most the cap rounded up to whole pageblocks.
 */
static unsigned long highatomic_most(unsigned long managed, unsigned long nr_pb)
{
	unsigned long cap = managed / 100 + nr_pb;

	return (cap + nr_pb - 1) / nr_pb * nr_pb;
}

/*
 * INV-DERIVED-HIGHATOMIC: nr_reserved_highatomic is a pageblock's pages per
 * HIGHATOMIC pageblock of the zone, and no more than the cap
 * reserve_highatomic_pageblock() tests before each reservation
 * (managed / 100 + a pageblock) rounded up to whole pageblocks. The cap is
 * the one of the most pages the zone ever managed, the node shape's:
 * offline_pages() lowers managed after a reservation and nothing gives the
 * reserve back, in the kernel too. A reserve above the cap of today is
 * that window, reported only in strict mode (INV-DERIVED-STALE).
 * O(pageblocks).
 */
MM_SCAN static unsigned long check_highatomic(struct mm_sim *sim)
{
	unsigned long bad = 0, nr_pb = 1UL << sim->pageblock_order;

	for_each_zone(sim, z) {
		if (!z->spanned_pages)
			continue;
		unsigned long blocks = 0;
		for (uint64_t pfn = pageblock_start_pfn(sim, z->zone_start_pfn);
		     pfn < zone_end_pfn(z); pfn += nr_pb)
			if (pfn >= z->zone_start_pfn &&
			    (READ_ONCE(sim->pageblock_flags[pfn >> sim->pageblock_order]) &
			     PB_MIGRATETYPE_MASK) == MIGRATE_HIGHATOMIC)
				blocks++;
		unsigned long shape = (unsigned long)sim->cfg.zones[z->node][z->type].managed;
		unsigned long most = highatomic_most(shape, nr_pb);
		if (z->nr_reserved_highatomic != blocks * nr_pb ||
		    z->nr_reserved_highatomic > most) {
			zreport(z, "INV-DERIVED-HIGHATOMIC", -1, blocks * nr_pb,
				z->nr_reserved_highatomic,
				"nr_reserved_highatomic against %lu HIGHATOMIC pageblocks (at most "
				"%lu for the zone's %lu pages)",
				blocks, most, shape);
			bad++;
			continue;
		}
		if (!sim->strict_watermarks)
			continue;
		unsigned long today = highatomic_most(zone_managed_pages(z), nr_pb);
		if (z->nr_reserved_highatomic > today) {
			zreport(z, "INV-DERIVED-STALE", -1, today, z->nr_reserved_highatomic,
				"nr_reserved_highatomic above the cap of the %lu pages managed "
				"now: reserved before some went offline (the kernel allows this)",
				zone_managed_pages(z));
			bad++;
		}
	}
	return bad;
}

/*
 * INV-DERIVED-MANAGED: present pages are the node shape's, and managed
 * pages grow to the configured managed pages by the time deferred init
 * completes, never past them (what memblock_free_all() and
 * deferred_init_memmap() hand the buddy), less the pages offline_pages()
 * took out and online_pages() has not given back (all of them managed:
 * offlining refuses reserved pages). O(zones).
 */
MM_SCAN static unsigned long check_managed(struct mm_sim *sim)
{
	unsigned long bad = 0;

	for_each_zone(sim, z) {
		const struct mm_zone_config *zc = &sim->cfg.zones[z->node][z->type];
		unsigned long managed = zone_managed_pages(z);
		uint64_t present = zc->present - (uint64_t)z->offlined_pages;
		unsigned long want = (unsigned long)zc->managed - (unsigned long)z->offlined_pages;
		if (z->present_pages == present && managed <= want &&
		    (sim->deferred_pending || managed == want))
			continue;
		zreport(z, "INV-DERIVED-MANAGED", -1, want, managed,
			"managed %lu present %llu, the node shape less %ld offline gives %lu and "
			"%llu%s",
			managed, (unsigned long long)z->present_pages, z->offlined_pages, want,
			(unsigned long long)present,
			sim->deferred_pending ? " (deferred init pending: at most)" : "");
		bad++;
	}
	return bad;
}

/*
 * The derived-state checks that hold whenever the machine is quiescent:
 * after the ops the kernel recomputes for (exec.c's sizing points) and at
 * full scans. The watermark, reserve and pcp rules use the managed pages
 * now, which the kernel's values follow once deferred init has completed;
 * before that they hold the boot values (the seed 000 window).
 */
unsigned long _mm_check_derived(struct mm_sim *sim)
{
	unsigned long bad;

	if (!sim->serial)
		return 0;
	bad = _mm_derived_check_vmstat(sim) + _mm_derived_check_counters(sim) + check_managed(sim);
	if (!sim->deferred_pending)
		bad += check_wmarks(sim) + check_pcp(sim);
	return bad;
}

unsigned long _mm_check_derived_full(struct mm_sim *sim)
{
	if (!sim->serial)
		return 0;
	return _mm_check_derived(sim) + check_highatomic(sim);
}

/*
 * What a CPU going on- or offline recomputes, by the rules above, for a
 * checker outside serial runs (harness/stress/stress_offline.c), which
 * keeps every other recompute still while it compares: the normal vmstat
 * threshold and the drift mark refresh_zone_stat_thresholds() sets (old:
 * the mark before the event, kept where the CPUs cannot drift past
 * low - min), and the zone's pcp sizing zone_pcp_update() sets.
 */
void _mm_derived_hotplug_rules(const struct mm_sim *sim, const struct zone *z,
			       unsigned long old_mark, struct derived_hotplug_rules *r)
{
	unsigned int node_online = 0;

	for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++)
		node_online += sim->cpu_to_node[cpu] == z->node && cpu_online(sim, cpu);
	r->threshold = rule_normal_threshold(sim, z);
	r->drift_mark = rule_drift_mark(sim, z, r->threshold, old_mark);
	rule_pcp_sizing(sim, z, node_online, &r->batch, &r->high_min, &r->high_max);
}

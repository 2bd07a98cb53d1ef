/* SPDX-License-Identifier: MIT */
/*
 * vmstat.c - the zone counters as the kernel keeps them (seed 002): a
 * zone-wide atomic plus a small signed diff per CPU that folds into it
 * only past the CPU's threshold. Readers of the atomic alone see an
 * estimate off by up to the sum of the thresholds; the snapshot adds every
 * online CPU's diff at the price of a remote cache line each. While kswapd
 * is awake the thresholds drop to the pressure values, so that the drift
 * fits between the low and min watermarks. The checker keeps the exact
 * value beside each counter and the threshold each diff was last bounded by.
 * Follows mm/vmstat.c 6.15; vmstat_update's pcp decay (decay_pcp_high()
 * from refresh_cpu_vm_stats()) is 6.7+.
 */
#include "internal.h"

#include <limits.h>
#include <string.h>

static int fls_ul(unsigned long x)
{
	int r = 0;

	while (x) {
		r++;
		x >>= 1;
	}
	return r;
}

/*
 * models calculate_normal_threshold(): grows with the CPU count and,
 * slowly, with the zone size (in 128 MB units), at most 125 (an s8 diff).
 *
 *   CPUs   zone 1 GB   zone 4 GB   zone 16 GB
 *   2      20          28          36
 *   8      40          56          72
 *   64     70          98          125
 */
int calculate_normal_threshold(const struct zone *zone)
{
	unsigned long mem = zone_managed_pages(zone) >> (27 - MM_PAGE_SHIFT);
	int threshold = 2 * fls_ul(mm_num_online_cpus(zone->sim)) * (1 + fls_ul(mem));

	return threshold < 125 ? threshold : 125;
}

/*
 * models calculate_pressure_threshold() (88f5acf88ae6): small enough that
 * every CPU drifting together stays within the low - min gap, at least 1.
 */
int calculate_pressure_threshold(const struct zone *zone)
{
	long distance = (long)wmark_pages(zone, WMARK_LOW) - (long)wmark_pages(zone, WMARK_MIN);
	long threshold = distance / (long)mm_num_online_cpus(zone->sim);

	if (threshold < 1)
		threshold = 1;
	return threshold < 125 ? (int)threshold : 125;
}

/* Every online CPU's stat_threshold of the zone: the loop both threshold setters share. */
MM_SCAN static void zone_set_stat_threshold(struct zone *zone, int8_t threshold)
{
	for (unsigned int cpu = 0; cpu < zone->sim->nr_cpus; cpu++)
		if (cpu_online(zone->sim, cpu))
			WRITE_ONCE(zone->per_cpu_zonestats[cpu].stat_threshold, threshold);
}

/*
 * models refresh_zone_stat_thresholds(): the normal threshold on every
 * online CPU, and a drift mark where the CPUs together could drift past
 * the low - min gap. The mark is never cleared, as in the kernel.
 */
void refresh_zone_stat_thresholds(struct mm_sim *sim)
{
	unsigned int online = mm_num_online_cpus(sim);

	for_each_zone(sim, z) {
		if (!z->per_cpu_zonestats)
			continue;
		int threshold = sim->policy.normal_threshold(z);
		zone_set_stat_threshold(z, (int8_t)threshold);
		unsigned long tolerate = wmark_pages(z, WMARK_LOW) - wmark_pages(z, WMARK_MIN);
		unsigned long max_drift = (unsigned long)online * (unsigned long)threshold;
		if (max_drift > tolerate)
			WRITE_ONCE(z->percpu_drift_mark, wmark_pages(z, WMARK_HIGH) + max_drift);
	}
}

/*
 * models set_pgdat_percpu_threshold(): kswapd's switch between the normal
 * and the pressure thresholds, only in zones whose CPUs could drift past
 * low - min. Like the kernel it neither folds nor clamps the diffs: a diff
 * made under the larger threshold stays until its CPU next updates it.
 */
void set_pgdat_percpu_threshold(struct pglist_data *pgdat,
				int (*calculate_threshold)(const struct zone *zone))
{
	struct mm_sim *sim = pgdat->node_zones[0].sim;

	/*
	 * The model keeps the online-CPU walk out of hotplug's way; the kernel
	 * lets them race and relies on the refresh at CPU online to fix it.
	 */
	mutex_lock(&sim->hotplug_lock);
	for (int zt = 0; zt < MAX_NR_ZONES; zt++) {
		struct zone *zone = &pgdat->node_zones[zt];
		if (!zone->per_cpu_zonestats || !READ_ONCE(zone->percpu_drift_mark))
			continue;
		/* Stored into the s8 field as the kernel does: a value past 127 wraps. */
		zone_set_stat_threshold(zone, (int8_t)calculate_threshold(zone));
	}
	mutex_unlock(&sim->hotplug_lock);
}

static struct per_cpu_zonestat *this_cpu_zonestat(struct zone *zone)
{
	unsigned int cpu = (unsigned int)smp_processor_id();

	return &zone->per_cpu_zonestats[cpu < zone->sim->nr_cpus ? cpu : 0];
}

/* models zone_page_state_add(): a fold into the zone and global atomics */
MM_SCAN_INLINE static inline void zone_page_state_add(long x, struct zone *zone,
						      enum zone_stat_item item)
{
	atomic_long_add(x, &zone->vm_stat[item]);
	atomic_long_add(x, &zone->sim->vm_zone_stat[item]);
	count_event(zone->sim, vmstat_folds);
}

/*
 * models __mod_zone_page_state(): the diff absorbs delta unless the sum
 * passes the threshold, then all of it folds. Caller holds zone->lock.
 */
void __mod_zone_page_state(struct zone *zone, enum zone_stat_item item, long delta)
{
	struct per_cpu_zonestat *pcp = this_cpu_zonestat(zone);
	long x = delta + READ_ONCE(pcp->vm_stat_diff[item]);
	int8_t t = READ_ONCE(pcp->stat_threshold);

	if (x > t || -x > t) {
		zone_page_state_add(x, zone, item);
		x = 0;
	}
	WRITE_ONCE(pcp->vm_stat_diff[item], (int8_t)x);
	WRITE_ONCE(pcp->update_threshold[item], t);
	count_event(zone->sim, vmstat_updates);
}

/*
 * One step of __inc_zone_state() (dir 1) or __dec_zone_state() (dir -1):
 * past the threshold it folds half a threshold more than it has and
 * leaves the diff half a threshold the other way, so a counter that keeps
 * moving one way folds about every 1.5 thresholds instead of every one.
 */
static void zone_state_step(struct zone *zone, enum zone_stat_item item, int dir)
{
	struct per_cpu_zonestat *pcp = this_cpu_zonestat(zone);
	int8_t t = READ_ONCE(pcp->stat_threshold);
	int v = READ_ONCE(pcp->vm_stat_diff[item]) + dir;

	if (v * dir > t) {
		int overstep = t >> 1;
		zone_page_state_add(v + dir * overstep, zone, item);
		v = -dir * overstep;
	}
	WRITE_ONCE(pcp->vm_stat_diff[item], (int8_t)v);
	WRITE_ONCE(pcp->update_threshold[item], t);
	count_event(zone->sim, vmstat_updates);
}

/* models __inc_zone_state() */
void __inc_zone_state(struct zone *zone, enum zone_stat_item item)
{
	zone_state_step(zone, item, 1);
}

/* models __dec_zone_state() */
void __dec_zone_state(struct zone *zone, enum zone_stat_item item)
{
	zone_state_step(zone, item, -1);
}

/* The online CPUs' diffs, summed; *lines counts those of CPUs other than self. */
MM_SCAN static long online_diffs_sum(const struct zone *zone, enum zone_stat_item item,
				     unsigned int self, unsigned long *lines)
{
	long sum = 0;

	for (unsigned int cpu = 0; cpu < zone->sim->nr_cpus; cpu++) {
		if (!cpu_online(zone->sim, cpu))
			continue;
		sum += READ_ONCE(zone->per_cpu_zonestats[cpu].vm_stat_diff[item]);
		*lines += cpu != self;
	}
	return sum;
}

/*
 * models zone_page_state_snapshot(): the estimate plus every online CPU's
 * diff, each a cache line another CPU owns. Offline CPUs were folded when
 * they died.
 */
long zone_page_state_snapshot(struct zone *zone, enum zone_stat_item item)
{
	struct mm_sim *sim = zone->sim;
	unsigned long lines = 0;
	long x = atomic_long_read(&zone->vm_stat[item]) +
		 online_diffs_sum(zone, item, (unsigned int)smp_processor_id(), &lines);

	count_event(sim, snapshot_reads);
	count_events(sim, snapshot_remote_lines, lines);
	return x < 0 ? 0 : x;
}

/*
 * One CPU's diffs of the zone folded, under zone->lock; each diff now
 * bounded by the threshold. global: NULL, or where each item's folded diff
 * is added (refresh_cpu_vm_stats()).
 */
MM_SCAN_INLINE static inline void fold_cpu_diffs(struct zone *zone, struct per_cpu_zonestat *pcp,
						 long *global)
{
	for (int item = 0; item < NR_VM_ZONE_STAT_ITEMS; item++) {
		int v = READ_ONCE(pcp->vm_stat_diff[item]);
		if (v) {
			WRITE_ONCE(pcp->vm_stat_diff[item], 0);
			zone_page_state_add(v, zone, (enum zone_stat_item)item);
			if (global)
				global[item] += v;
		}
		WRITE_ONCE(pcp->update_threshold[item], READ_ONCE(pcp->stat_threshold));
	}
}

/*
 * models drain_zonestat(): folds one CPU's diffs of one zone. The model
 * takes zone->lock, which every diff update holds (see per_cpu_zonestat).
 */
static void drain_zonestat_into(struct zone *zone, unsigned int cpu, long *global)
{
	if (!zone->per_cpu_zonestats || cpu >= zone->sim->nr_cpus)
		return;
	spin_lock(&zone->lock);
	fold_cpu_diffs(zone, &zone->per_cpu_zonestats[cpu], global);
	spin_unlock(&zone->lock);
}

void drain_zonestat(struct zone *zone, unsigned int cpu)
{
	drain_zonestat_into(zone, cpu, NULL);
}

/* Every online CPU's drain_zonestat() of the zone, in one hold of zone->lock: a scan. */
MM_SCAN static void drain_zonestat_online(struct zone *zone)
{
	struct mm_sim *sim = zone->sim;

	if (!zone->per_cpu_zonestats)
		return;
	spin_lock(&zone->lock);
	for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++)
		if (cpu_online(sim, cpu))
			fold_cpu_diffs(zone, &zone->per_cpu_zonestats[cpu], NULL);
	spin_unlock(&zone->lock);
}

/*
 * models refresh_cpu_vm_stats(true): vmstat_update's periodic fold, run as
 * the CPU itself, and (6.7+) the decay of its pcp highs, decay_pcp_high().
 * Returns the kernel's changes: the zones whose decay has work left, plus
 * (fold_diff()) the items whose diffs, summed over the zones, were not 0.
 * vmstat_update re-arms itself on a nonzero return; vmstat_shepherd looks
 * at the diffs alone, so the decay's part is what keeps an idle CPU's high
 * decaying (INV-VMSTAT-REARM).
 */
int refresh_cpu_vm_stats(struct mm_sim *sim, unsigned int cpu)
{
	long global[NR_VM_ZONE_STAT_ITEMS] = {0};
	int changes = 0;

	for_each_zone(sim, z) {
		drain_zonestat_into(z, cpu, global);
		/* zones with pagesets: the populated ones */
		if (decay_pcp_high(z, cpu) && !sim->policy.vmstat_decay_no_rearm)
			changes++;
	}
	for (int item = 0; item < NR_VM_ZONE_STAT_ITEMS; item++)
		changes += global[item] != 0;
	return changes;
}

/*
 * INV-VMSTAT-REARM (serial runs): vmstat_update re-arms itself exactly
 * when the kernel's rule says so, recomputed from what the CPU held before
 * and the pcp state after: an item whose diffs on this CPU, summed over the
 * zones, were not 0 (fold_diff()), or a zone whose high is still above
 * high_min after the decay or whose list held more pages than the new high
 * (decay_pcp_high()'s drain). A lapse leaves an idle CPU's high inflated
 * for good, as vmstat_shepherd re-queues the work for diffs only; a re-arm
 * without work keeps a worker waking. O(zones + items).
 */
void _mm_vmstat_rearm_before(struct mm_sim *sim, unsigned int cpu, struct vmstat_rearm_view *v)
{
	memset(v->global, 0, sizeof(v->global));
	for_each_zone(sim, z) {
		int i = z->node * MAX_NR_ZONES + (int)z->type;
		v->count[i] = z->per_cpu_pageset && cpu < sim->nr_cpus
				      ? z->per_cpu_pageset[cpu].count
				      : 0;
		if (!z->per_cpu_zonestats || cpu >= sim->nr_cpus)
			continue;
		for (int item = 0; item < NR_VM_ZONE_STAT_ITEMS; item++)
			v->global[item] += z->per_cpu_zonestats[cpu].vm_stat_diff[item];
	}
}

void _mm_vmstat_check_rearm(struct mm_sim *sim, unsigned int cpu, const struct vmstat_rearm_view *v,
			    int changes)
{
	bool want = false;

	for (int item = 0; item < NR_VM_ZONE_STAT_ITEMS; item++)
		want |= v->global[item] != 0;
	for_each_zone(sim, z) {
		if (!z->per_cpu_pageset || cpu >= sim->nr_cpus)
			continue;
		const struct per_cpu_pages *pcp = &z->per_cpu_pageset[cpu];
		want |= pcp->high > pcp->high_min ||
			v->count[z->node * MAX_NR_ZONES + (int)z->type] > pcp->high;
	}
	if (want != (changes != 0))
		mm_report_violation(sim, "INV-VMSTAT-REARM", -1, -1, (int)cpu, -1, want,
				    changes != 0,
				    "vmstat_update on cpu %u returned %d changes: it must re-arm "
				    "only while diffs were folded or a pcp high can still decay",
				    cpu, changes);
}

/*
 * models cpu_vm_stats_fold(): a dead CPU's diffs, folded by another (no
 * pcp decay: its lists were drained). The model's fold is the same
 * whoever runs it (drain_zonestat() locks).
 */
void cpu_vm_stats_fold(struct mm_sim *sim, unsigned int cpu)
{
	for_each_zone(sim, z)
		drain_zonestat(z, cpu);
}

/* The checker's bound on |estimate - exact|: each CPU's diff within its last threshold. */
MM_SCAN long _mm_vmstat_drift_bound(const struct zone *zone, enum zone_stat_item item)
{
	long bound = 0;

	for (unsigned int cpu = 0; cpu < zone->sim->nr_cpus; cpu++) {
		int t = READ_ONCE(zone->per_cpu_zonestats[cpu].update_threshold[item]);
		bound += t < 0 ? -t : t;
	}
	return bound;
}

/*
 * The precondition of the seed's invariant: kswapd has switched this
 * zone's node to the thresholds the kernel's rules give for the zone as it
 * is now (pressure where the CPUs' normal drift would pass low - min),
 * every online CPU has updated its diff under them, and the gap leaves
 * each CPU at least one page. A watermark sysctl changes the gap without
 * a refresh (as in the kernel), so a drift mark and thresholds computed
 * for the old gap do not count: the guarantee lapses until the next
 * refresh (docs/vmstat.md).
 */
/* The threshold the kernel's rules give the zone's CPUs under pressure; 0 when the gap is too
 * small. */
static int8_t pressure_want(const struct zone *zone, unsigned int online)
{
	const struct mm_sim *sim = zone->sim;
	long gap = (long)READ_ONCE(zone->_watermark[WMARK_LOW]) -
		   (long)READ_ONCE(zone->_watermark[WMARK_MIN]);

	if (gap < (long)online)
		return 0;
	int normal = sim->policy.normal_threshold(zone);
	return (int8_t)((long)online * normal > gap ? sim->policy.pressure_threshold(zone)
						    : normal);
}

bool _mm_vmstat_pressure_in_force(const struct zone *zone)
{
	const struct mm_sim *sim = zone->sim;

	if (!sim->node_data[zone->node]->kswapd.pressure)
		return false;
	int8_t want = pressure_want(zone, mm_num_online_cpus(sim));
	if (!want)
		return false;
	/*
	 * Reached only when an admission left exact free below min, so not a
	 * scan: how many CPUs in a row already update under the wanted
	 * threshold is the fuzzer's way towards the seed's failure.
	 */
	for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++) {
		const struct per_cpu_zonestat *pcp = &zone->per_cpu_zonestats[cpu];
		if (!cpu_online(sim, cpu))
			continue;
		if (pcp->stat_threshold != want || pcp->update_threshold[NR_FREE_PAGES] != want)
			return false;
	}
	return true;
}

/*
 * The same precondition under threads, from what zone->lock (held) keeps
 * still: every NR_FREE_PAGES diff and the threshold of its last update
 * change only under the lock, so the estimate is off the exact count by at
 * most the sum of those thresholds. Every CPU seen online must have
 * updated under the wanted threshold and every CPU seen offline must hold
 * no diff; a hotplug event during the walk (the online count read before
 * and after differs) voids the check. The CPUs' current stat_threshold
 * (kswapd writes it without the lock) does not matter to the bound.
 */
MM_SCAN bool _mm_vmstat_pressure_in_force_locked(const struct zone *zone)
{
	const struct mm_sim *sim = zone->sim;
	unsigned int online = mm_num_online_cpus(sim), seen = 0;

	if (!READ_ONCE(sim->node_data[zone->node]->kswapd.pressure))
		return false;
	int8_t want = pressure_want(zone, online);
	if (!want)
		return false;
	for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++) {
		const struct per_cpu_zonestat *pcp = &zone->per_cpu_zonestats[cpu];
		if (!cpu_online(sim, cpu)) {
			if (READ_ONCE(pcp->vm_stat_diff[NR_FREE_PAGES]))
				return false;
			continue;
		}
		seen++;
		if (READ_ONCE(pcp->update_threshold[NR_FREE_PAGES]) != want)
			return false;
	}
	return seen == online && mm_num_online_cpus(sim) == online;
}

/*
 * The figures, sampled under zone->lock once an allocation has taken its
 * pages: not inside account_freepages(), where moving a pageblock between
 * free lists dips the count by the whole block for a moment.
 */
void _mm_vmstat_note_free(struct zone *zone)
{
	long exact = zone->vm_stat_exact[NR_FREE_PAGES];
	long drift = zone_page_state(zone, NR_FREE_PAGES) - exact;

	if (drift < 0)
		drift = -drift;
	if (drift > zone->max_drift)
		zone->max_drift = drift;
	if (exact < zone->min_exact_free)
		zone->min_exact_free = exact;
}

/* zone_init() zeroed the zone itself; its CPUs' diffs live in the machine's buffer. */
MM_SCAN void _mm_vmstat_init_zone(struct zone *zone)
{
	for (unsigned int cpu = 0; cpu < zone->sim->nr_cpus; cpu++)
		zone->per_cpu_zonestats[cpu] = (struct per_cpu_zonestat){0};
	zone->min_exact_free = LONG_MAX;
}

/*
 * The full check, under zone->lock: the exact value is the atomic plus
 * every CPU's diff, no diff exceeds the threshold it was last bounded by,
 * a dead CPU holds none, and so the estimate is within the bound.
 */
MM_SCAN unsigned long _mm_vmstat_check_zone(struct zone *zone)
{
	struct mm_sim *sim = zone->sim;
	unsigned long bad = 0;

	if (!zone->per_cpu_zonestats)
		return 0;
	for (int item = 0; item < NR_VM_ZONE_STAT_ITEMS; item++) {
		long sum = atomic_long_read(&zone->vm_stat[item]), bound = 0;
		for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++) {
			const struct per_cpu_zonestat *pcp = &zone->per_cpu_zonestats[cpu];
			int diff = pcp->vm_stat_diff[item], t = pcp->update_threshold[item];
			sum += diff;
			if (t < 0)
				t = -t;
			bound += t; /* _mm_vmstat_drift_bound(), in the same pass */
			if (diff > t || -diff > t) {
				mm_report_violation(sim, "INV-VMSTAT-DIFF", zone->node,
						    (int)zone->type, (int)cpu, -1, t, diff,
						    "a per-cpu diff is past the threshold of its "
						    "last update");
				bad++;
			}
			/* Under threads an op may still finish on a CPU going offline. */
			if (diff && sim->serial && !cpu_online(sim, cpu)) {
				mm_report_violation(sim, "INV-VMSTAT-DEAD-FOLD", zone->node,
						    (int)zone->type, (int)cpu, -1, 0, diff,
						    "an offline CPU still holds a diff");
				bad++;
			}
		}
		if (sum != zone->vm_stat_exact[item]) {
			zone_report(zone, "INV-VMSTAT-EXACT", -1, zone->vm_stat_exact[item], sum,
				    "zone counter plus the per-cpu diffs is not the exact value");
			bad++;
		}
		long drift = zone_page_state(zone, (enum zone_stat_item)item) -
			     zone->vm_stat_exact[item];
		if (drift > bound || -drift > bound) {
			zone_report(zone, "INV-VMSTAT-DRIFT", -1, bound, drift,
				    "|estimate - exact| is past the sum of the CPUs' thresholds");
			bad++;
		}
	}
	return bad;
}

/* The global copies are the sums of the zones' atomics. */
MM_NO_COVERAGE unsigned long _mm_vmstat_check_global(struct mm_sim *sim)
{
	unsigned long bad = 0;

	for (int item = 0; item < NR_VM_ZONE_STAT_ITEMS; item++) {
		long sum = 0;
		for_each_zone(sim, z)
			sum += atomic_long_read(&z->vm_stat[item]);
		long global = atomic_long_read(&sim->vm_zone_stat[item]);
		if (global != sum) {
			mm_report_violation(sim, "INV-VMSTAT-GLOBAL", -1, -1, -1, -1, sum, global,
					    "the global counter is not the sum of the zones'");
			bad++;
		}
	}
	return bad;
}

unsigned long mm_zone_drift_mark(const struct mm_sim *sim, int node, enum zone_type zt)
{
	if (node < 0 || (unsigned int)node >= sim->nr_nodes || (unsigned int)zt >= MAX_NR_ZONES)
		return 0;
	return READ_ONCE(sim->node_data[node]->node_zones[zt].percpu_drift_mark);
}

int mm_zone_free_diff(const struct mm_sim *sim, int node, enum zone_type zt, int cpu)
{
	if (node < 0 || (unsigned int)node >= sim->nr_nodes || (unsigned int)zt >= MAX_NR_ZONES ||
	    cpu < 0 || (unsigned int)cpu >= sim->nr_cpus)
		return 0;
	const struct zone *z = &sim->node_data[node]->node_zones[zt];
	return z->per_cpu_zonestats
		       ? READ_ONCE(z->per_cpu_zonestats[cpu].vm_stat_diff[NR_FREE_PAGES])
		       : 0;
}

/* INV-VMSTAT-EXACT: with every online CPU's diffs folded, the estimate is the exact value. */
static void check_refreshed_exact(struct mm_sim *sim)
{
	for_each_zone(sim, z) {
		if (!z->per_cpu_zonestats)
			continue;
		for (int item = 0; item < NR_VM_ZONE_STAT_ITEMS; item++) {
			long est = zone_page_state(z, (enum zone_stat_item)item);
			if (est != z->vm_stat_exact[item])
				zone_report(z, "INV-VMSTAT-EXACT", -1, z->vm_stat_exact[item], est,
					    "after vm.stat_refresh the estimate is not the exact "
					    "value");
		}
	}
}

/*
 * models vmstat_refresh(), the vm.stat_refresh sysctl: every online CPU
 * runs refresh_cpu_vm_stats(true) (schedule_on_each_cpu(refresh_vm_stats)),
 * which folds its diffs and then, 6.7+, decays its pcp highs
 * (decay_pcp_high(), each decay checked by INV-PCP-HIGH-RANGE). The works
 * run on all CPUs at once; the model takes the order where every fold
 * comes before any decay, one the kernel allows. Between the two the
 * estimate must be the exact value, not merely within the drift bound:
 * what a reader of /proc/vmstat relies on after writing it. The pages a
 * decay frees land in the diffs after the fold, in the kernel too, so the
 * promise is judged before the decays. The decays run as the writer's
 * CPU here (its diff counts their frees), under each decayed CPU's pcp lock.
 */
int _mm_op_stat_refresh(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	struct mm_sim *sim = ctx->sim;

	(void)op;
	for_each_zone(sim, z)
		drain_zonestat_online(z);
	/* under threads the workers' updates go on: no exact value to expect */
	if (sim->serial)
		check_refreshed_exact(sim);
	for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++)
		if (cpu_online(sim, cpu))
			for_each_zone(sim, z)
				decay_pcp_high(z, cpu);
	return 0;
}

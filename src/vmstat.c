/* SPDX-License-Identifier: MIT */
/*
 * vmstat.c - the per-cpu vmstat thresholds: how far each CPU's diff of a
 * zone counter may drift before it folds into the zone, and the drift mark
 * below which zone_watermark_ok_safe() must not trust the estimate (seed
 * 002). This first part computes and refreshes the thresholds as the
 * kernel does; the diffs themselves come with the rest of issue 4.
 */
#include "internal.h"

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
		for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++)
			if (mm_cpu_is_online(sim, (int)cpu))
				WRITE_ONCE(z->per_cpu_zonestats[cpu].stat_threshold,
					   (int8_t)threshold);
		unsigned long tolerate = wmark_pages(z, WMARK_LOW) - wmark_pages(z, WMARK_MIN);
		unsigned long max_drift = (unsigned long)online * (unsigned long)threshold;
		if (max_drift > tolerate)
			WRITE_ONCE(z->percpu_drift_mark, wmark_pages(z, WMARK_HIGH) + max_drift);
	}
}

void _mm_vmstat_init_zone(struct zone *zone)
{
	for (unsigned int cpu = 0; cpu < zone->sim->nr_cpus; cpu++)
		zone->per_cpu_zonestats[cpu] = (struct per_cpu_zonestat){0};
	zone->percpu_drift_mark = 0;
}

unsigned long mm_zone_drift_mark(const struct mm_sim *sim, int node, enum zone_type zt)
{
	if (node < 0 || (unsigned int)node >= sim->nr_nodes || (unsigned int)zt >= MAX_NR_ZONES)
		return 0;
	return READ_ONCE(sim->node_data[node]->node_zones[zt].percpu_drift_mark);
}

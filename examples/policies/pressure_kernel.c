/* SPDX-License-Identifier: MIT */
/*
 * pressure_kernel.c - calculate_pressure_threshold() as merged
 * (88f5acf88ae6), in the kernel's own words: every online CPU drifting by
 * its threshold together stays within the low - min gap; at least 1, at
 * most 125. The model's rule written as a plugin: it runs clean where
 * pressure_v1.c is caught.
 */
#include "internal.h"

#define max(a, b) ((a) > (b) ? (a) : (b))
#define min(a, b) ((a) < (b) ? (a) : (b))

int calculate_pressure_threshold(const struct zone *zone)
{
	int threshold;
	int watermark_distance;

	/*
	 * As vmstats are not up to date, there is drift between the estimated
	 * and real values. For high thresholds and a high number of CPUs, it
	 * is possible for the min watermark to be breached while the estimated
	 * value looks fine. The pressure threshold is a reduced value such
	 * that even the maximum amount of drift will not accidentally breach
	 * the min watermark
	 */
	watermark_distance = (int)(wmark_pages(zone, WMARK_LOW) - wmark_pages(zone, WMARK_MIN));
	threshold = max(1, (int)(watermark_distance / (int)mm_num_online_cpus(zone->sim)));

	/*
	 * Maximum threshold is 125
	 */
	threshold = min(125, threshold);

	return threshold;
}

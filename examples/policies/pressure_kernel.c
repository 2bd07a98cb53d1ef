/* SPDX-License-Identifier: MIT */
/*
 * pressure_kernel.c - calculate_pressure_threshold() as merged (88f5acf88ae6):
 * every online CPU drifting by its threshold together stays within the
 * low - min gap; at least 1, at most 125. The model's own rule, written
 * as a plugin: it runs clean where pressure_v1.c is caught.
 */
#include "internal.h"

int calculate_pressure_threshold(const struct zone *zone)
{
	long distance = (long)wmark_pages(zone, WMARK_LOW) - (long)wmark_pages(zone, WMARK_MIN);
	long threshold = distance / (long)mm_num_online_cpus(zone->sim);

	if (threshold < 1)
		threshold = 1;
	return threshold < 125 ? (int)threshold : 125;
}

/* SPDX-License-Identifier: MIT */
/*
 * pressure_v1.c - seed 002's calculate_pressure_threshold() as first posted
 * (linux-mm, October 2010): the division binds to the low mark alone, so
 * the threshold is about the high mark itself instead of the low - min
 * gap shared by every CPU. Too large: a CPU's unfolded drift hides the
 * zone's fall below min. mmfuzz catches it (docs/policy-lab.md).
 *
 *   mmfuzz policy build examples/policies/pressure_v1.c -o pressure_v1.so
 *   mmfuzz run --policy ./pressure_v1.so corpus/variants/vmstat-pressure-v1.txt
 */
#include "internal.h"

int calculate_pressure_threshold(const struct zone *zone)
{
	long threshold = (long)wmark_pages(zone, WMARK_HIGH) -
			 (long)wmark_pages(zone, WMARK_LOW) / (long)mm_num_online_cpus(zone->sim);

	return threshold > 1 ? (int)threshold : 1;
}

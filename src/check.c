/* SPDX-License-Identifier: MIT */
/*
 * check.c - runs the subsystems' invariants: the cheap per-op checks on the
 * zones an op touched, and the full scans (every K ops and at the end).
 * The checks themselves live beside their subsystem.
 */
#include "internal.h"

/*
 * Under zone->lock: other CPUs may be moving pages (no stat: not the
 * model's lock traffic). With real threads a check per op would be a
 * zone->lock trip per op, the contention the pcp lists exist to avoid:
 * each CPU checks every 64th op instead, the quiesce points do the rest.
 */
unsigned long _mm_check_zone_cheap(struct zone *z)
{
	unsigned long bad;

	if (!z->spanned_pages)
		return 0;
	if (!z->sim->serial) {
		struct mm_cpu_stats *cs = this_cpu_stats(z->sim);
		unsigned int t = atomic_load_explicit(&cs->cheap_ticks, memory_order_relaxed) + 1;
		atomic_store_explicit(&cs->cheap_ticks, t, memory_order_relaxed);
		if (t % 64)
			return 0;
	}
	spin_lock(&z->lock);
	bad = _mm_buddy_check_counts(z);
	spin_unlock(&z->lock);
	return bad;
}

/* The caller quiesces the machine: no op may run during a full scan. */
MM_NO_COVERAGE unsigned long mm_check_full(struct mm_sim *sim)
{
	unsigned long bad = 0;

	count_event(sim, full_checks);
	for_each_zone(sim, z) {
		if (!z->spanned_pages)
			continue;
		struct pcp_totals t;
		/* The lists first: their pass also sums what the buddy check's laws want. */
		bad += _mm_pcp_check_zone(z, &t);
		spin_lock(&z->lock);
		bad += _mm_buddy_check_zone(z, &t);
		bad += _mm_vmstat_check_zone(z);
		spin_unlock(&z->lock);
		bad += _mm_pcp_check_sizing(z);
	}
	return bad + _mm_vmstat_check_global(sim) + _mm_check_derived_full(sim);
}

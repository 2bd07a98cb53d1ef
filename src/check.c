/* SPDX-License-Identifier: MIT */
/*
 * check.c - runs the subsystems' invariants: the cheap per-op checks on the
 * zones an op touched, and the full scans (every K ops and at the end).
 * The checks themselves live beside their subsystem.
 */
#include "internal.h"

unsigned long _mm_check_zone_cheap(struct zone *z)
{
	if (!z->spanned_pages)
		return 0;
	return _mm_buddy_check_counts(z);
}

/* The caller quiesces the machine: no op may run during a full scan. */
MM_NO_COVERAGE unsigned long mm_check_full(struct mm_sim *sim)
{
	unsigned long bad = 0;

	stat_inc(&sim->stats.full_checks);
	for_each_zone(sim, z) {
		if (!z->spanned_pages)
			continue;
		zone_lock(z);
		bad += _mm_buddy_check_zone(z);
		zone_unlock(z);
	}
	return bad;
}

/* SPDX-License-Identifier: MIT */
/*
 * compaction_shadow.c - INV-COMPACT-SKIP-HINT (seed 001): the skip bits are
 * hints, so a pass that obeys them succeeds whenever the same pass blind to
 * the bits it sets itself would. The checker compares the two on one
 * state: it saves the zone's state before a direct compaction pass, and if
 * the pass does not succeed, reruns it from that state with every skip-bit
 * test reading the bits as they were when the scan began (after the
 * restart's reset, which the rerun makes too), then puts back the state
 * the real pass left.
 *
 * The bits the pass found are honoured by both: a kernel reset samples
 * every 8th page and may leave a usable block marked, and the kernel
 * accepts that (docs/compaction.md, "Skip bits never stale"). A bit that
 * makes the pass fail where the shadow succeeds was set by the pass itself,
 * which is the kind of bug seed 001 is about. Not every such bit: the free
 * scanner marks the target blocks it emptied (update_pageblock_skip(),
 * fast_isolate_around()), and the fast free search may empty one the
 * migration scanner has still to reach, which then skips it, in the kernel
 * too; a pass in which the free scanner marked a block is not compared. A
 * blind shadow that keeps picking one block stops at the rescan bound and
 * counts as a failure. Nor does a blind success count that entered a
 * pageblock a second time (fast_find_migrateblock() picking it again, or
 * reinit_migrate_pfn()): the kernel marks a block when the migration
 * scanner enters it (test_and_set_skip() at its first LRU page) precisely
 * so that a pass does not come back to it. A finish_pageblock rescan that
 * gives up (async direct compaction drops an order block at its first
 * failure) leaves the block marked and "scanning will proceed as normal"
 * (compact_zone()), even if the pages it did not reach could have been
 * migrated on another visit. What the check still catches is a bit that
 * turns a block away, or cuts its scan short, on the pass's first visit.
 *
 * Cost: only serial runs, only direct passes that heed the bits, and only
 * when they fail: two copies of the zone's memmap, its pageblock flags,
 * its vmstat diffs, the pass CPU's pcp lists and the handles.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

struct compact_snapshot {
	uint8_t zone[sizeof(struct zone)];
	struct page *pages;
	uint8_t *pb;
	uint8_t *seen; /* the shadow's: the flags as its scan began (before's only) */
	struct mm_handle *handles, *fill;
	/*
	 * A pass runs on one CPU and counts, and moves vmstat diffs, on that
	 * CPU only: its entries are all it can change (a 256-CPU machine's
	 * would be 48 KiB a copy).
	 */
	unsigned int cpu;
	uint8_t cpu_stats[sizeof(struct mm_cpu_stats)]; /* bytes: the type is cache-line aligned */
	struct per_cpu_zonestat zonestat;
	/* the pcp lists check_drain() empties: their pages' links are in the memmap copy */
	uint8_t pcp[sizeof(struct per_cpu_pages)];
	long vm_zone_stat[NR_VM_ZONE_STAT_ITEMS];
	size_t pages_cap, pb_cap, seen_cap, handles_cap, fill_cap;
	struct mm_compact_stats stats;
};

static int fit(void *p, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (n <= *cap)
		return 0;
	q = realloc(*(void **)p, n * size);
	if (!q)
		return -1;
	*(void **)p = q;
	*cap = n;
	return 0;
}

static size_t first_block(const struct zone *z)
{
	return (size_t)(z->zone_start_pfn >> z->sim->pageblock_order);
}

static size_t nr_blocks(const struct zone *z)
{
	return (size_t)((zone_end_pfn(z) - 1) >> z->sim->pageblock_order) - first_block(z) + 1;
}

/* Saves what a pass of compaction on zone can change; false when memory is short. */
static bool snapshot_save(struct compact_snapshot *s, struct zone *z)
{
	struct mm_sim *sim = z->sim;
	struct compact_state *cs = sim->compact;

	if (fit(&s->pages, &s->pages_cap, z->spanned_pages, sizeof(struct page)) ||
	    fit(&s->pb, &s->pb_cap, nr_blocks(z), 1) ||
	    fit(&s->handles, &s->handles_cap, sim->nr_handles + 1, sizeof(struct mm_handle)) ||
	    fit(&s->fill, &s->fill_cap, cs->nr_fill + 1, sizeof(struct mm_handle)))
		return false;
	memcpy(s->zone, z, sizeof(*z));
	memcpy(s->pages, pfn_to_page(sim, z->zone_start_pfn),
	       z->spanned_pages * sizeof(struct page));
	memcpy(s->pb, sim->pageblock_flags + first_block(z), nr_blocks(z));
	if (sim->handles)
		memcpy(s->handles, sim->handles, sim->nr_handles * sizeof(struct mm_handle));
	memcpy(s->fill, cs->fill, cs->nr_fill * sizeof(struct mm_handle));
	s->cpu = (unsigned int)smp_processor_id();
	if (s->cpu >= sim->nr_cpus)
		s->cpu = 0; /* as this_cpu_stats() */
	memcpy(s->cpu_stats, this_cpu_stats(sim), sizeof(s->cpu_stats));
	s->zonestat = z->per_cpu_zonestats[s->cpu];
	if (z->per_cpu_pageset)
		memcpy(s->pcp, &z->per_cpu_pageset[s->cpu], sizeof(s->pcp));
	for (int i = 0; i < NR_VM_ZONE_STAT_ITEMS; i++)
		s->vm_zone_stat[i] = atomic_long_read(&sim->vm_zone_stat[i]);
	s->stats = cs->stats;
	return true;
}

/* Puts back what snapshot_save() saved; zone->lock stays the live one. */
static void snapshot_restore(const struct compact_snapshot *s, struct zone *z)
{
	struct mm_sim *sim = z->sim;
	struct compact_state *cs = sim->compact;
	spinlock_t lock = z->lock;

	memcpy(z, s->zone, sizeof(*z));
	z->lock = lock;
	memcpy(pfn_to_page(sim, z->zone_start_pfn), s->pages,
	       z->spanned_pages * sizeof(struct page));
	memcpy(sim->pageblock_flags + first_block(z), s->pb, nr_blocks(z));
	if (sim->handles)
		memcpy(sim->handles, s->handles, sim->nr_handles * sizeof(struct mm_handle));
	memcpy(cs->fill, s->fill, cs->nr_fill * sizeof(struct mm_handle));
	memcpy(this_cpu_stats(sim), s->cpu_stats, sizeof(s->cpu_stats));
	z->per_cpu_zonestats[s->cpu] = s->zonestat;
	if (z->per_cpu_pageset)
		memcpy(&z->per_cpu_pageset[s->cpu], s->pcp, sizeof(s->pcp));
	for (int i = 0; i < NR_VM_ZONE_STAT_ITEMS; i++)
		atomic_long_set(&sim->vm_zone_stat[i], s->vm_zone_stat[i]);
	cs->stats = s->stats;
}

static struct compact_snapshot *snapshot_get(struct compact_snapshot **s)
{
	if (!*s)
		*s = calloc(1, sizeof(**s));
	return *s;
}

/* Returns true if this pass is one the checker compares: see the file's comment. */
bool compact_skip_hint_wanted(const struct compact_control *cc)
{
	const struct mm_sim *sim = cc->zone->sim;

	return sim->serial && sim->compact && !sim->compact->in_shadow && !cc->ignore_skip_hint;
}

/* The shadow's scan begins: what its skip tests read from now on. */
void compact_skip_hint_pass_begin(struct compact_control *cc)
{
	const struct zone *z = cc->zone;

	if (cc->skip_seen)
		memcpy(cc->skip_seen, z->sim->pageblock_flags + first_block(z), nr_blocks(z));
}

void compact_skip_hint_before(struct compact_control *cc)
{
	struct compact_state *cs = cc->zone->sim->compact;
	struct compact_snapshot *s = snapshot_get(&cs->before);

	if (!s || !snapshot_save(s, cc->zone))
		cs->before_valid = false;
	else
		cs->before_valid = true;
}

/* After the real pass that started from the saved state, with the result it had. */
void compact_skip_hint_after(const struct compact_control *cc0, int result, bool free_side_marked)
{
	struct zone *z = cc0->zone;
	struct compact_state *cs = z->sim->compact;
	struct compact_snapshot *after = snapshot_get(&cs->after);
	struct compact_control shadow = *cc0;
	unsigned long long rescans;
	bool reentered;
	int blind;

	if (!cs->before_valid || free_side_marked || result == MM_COMPACT_SUCCESS ||
	    result == MM_COMPACT_SKIPPED)
		return;
	if (!after || !snapshot_save(after, z) ||
	    fit(&cs->before->seen, &cs->before->seen_cap, nr_blocks(z), 1))
		return;
	snapshot_restore(cs->before, z);
	shadow.skip_seen = cs->before->seen;
	shadow.skip_seen_first = first_block(z);
	rescans = cs->stats.compact_block_rescans;
	cs->in_shadow = true;
	blind = compact_zone(&shadow);
	cs->in_shadow = false;
	/* Did the blind pass enter a pageblock a second time (see the file's comment)? */
	reentered = cs->stats.compact_block_rescans != rescans;
	snapshot_restore(after, z);
	if (blind == MM_COMPACT_SUCCESS && !reentered)
		zone_report(
			z, "INV-COMPACT-SKIP-HINT", -1, MM_COMPACT_SUCCESS, result,
			"an order-%d pass ended %s; the same pass blind to the skip bits it set "
			"itself succeeded",
			cc0->order, mm_compact_result_name(result));
}

void _mm_compaction_shadow_destroy(struct compact_state *cs)
{
	struct compact_snapshot *s[2] = {cs->before, cs->after};

	for (int i = 0; i < 2; i++) {
		if (!s[i])
			continue;
		free(s[i]->pages);
		free(s[i]->pb);
		free(s[i]->seen);
		free(s[i]->handles);
		free(s[i]->fill);
		free(s[i]);
	}
	cs->before = cs->after = NULL;
}

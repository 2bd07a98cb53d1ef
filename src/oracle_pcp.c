/* SPDX-License-Identifier: MIT */
/*
 * oracle_pcp.c - the free_high rule of free_unref_page_commit() (6.7+),
 * written out from its inputs, and INV-PCP-FREE-HIGH: the model took the
 * decision the rule gives, kept the high-order flag the rule keeps, and a
 * free_high free sent back at least the pages the rule asks for.
 * INV-PCP-FREE-HIGH-BATCH: PCPF_FREE_HIGH_BATCH is what the rule of
 * zone_pcp_update_cacheinfo() (6.10) gave at the CPU's last cacheinfo
 * update, from the machine's cache slice, and no free changes it; the
 * free_high decision is judged with that expected flag, not the model's.
 */
#include "internal.h"

/*
 * A free of order 1..PAGE_ALLOC_COSTLY_ORDER right after another such free
 * (PCPF_PREV_FREE_HIGH_ORDER), once a batch has been freed since the last
 * allocation (free_count >= batch), and, with PCPF_FREE_HIGH_BATCH, a batch
 * on the lists: flush the lists instead of keeping them.
 */
bool _mm_oracle_free_high(const struct pcp_free_inputs *in)
{
	static const bool high_order[] = {false, true, true, true}; /* orders 0..3 */
	bool costly_or_less = in->order < sizeof(high_order) / sizeof(high_order[0]);

	if (!costly_or_less || !high_order[in->order])
		return false;
	if (!(in->flags & PCPF_PREV_FREE_HIGH_ORDER) || in->free_count < in->batch)
		return false;
	return !(in->flags & PCPF_FREE_HIGH_BATCH) || in->count >= in->batch;
}

/*
 * The rule of zone_pcp_update_cacheinfo(), written from the config: a
 * cache slice of more than 3 batches of pages keeps a batch.
 */
static bool slice_holds_batches(const struct mm_sim *sim, int batch)
{
	unsigned long slice_pages = sim->cfg.cache_slice_kb >> (MM_PAGE_SHIFT - 10);

	return batch >= 0 && slice_pages > 3 * (unsigned long)batch;
}

/* The checker's per-CPU record: which flag the last update since boot gave. */
#define FHB_CLEAR 1
#define FHB_SET	  2

/*
 * At boot every CPU has the zone's batch: the rule's flag is noted once per
 * zone, and each CPU's first free compares its flag with it. O(1).
 */
void _mm_oracle_note_cacheinfo_boot(struct zone *zone)
{
	zone->free_high_batch_boot = slice_holds_batches(zone->sim, zone->pageset_batch);
}

/*
 * After the model's cacheinfo update of cpu's pageset in zone: the flag
 * must be the rule's for the batch of this moment; the checker keeps the
 * expected flag for the frees to come (under the pcp lock, as they read
 * it). O(1) per zone per CPU coming up.
 */
void _mm_oracle_note_cacheinfo(struct zone *zone, unsigned int cpu)
{
	spinlock_t *lock = &zone->pcp_locks[cpu].lock;
	const struct per_cpu_pages *pcp = &zone->per_cpu_pageset[cpu];

	spin_lock(lock);
	int batch = pcp->batch;
	bool want = slice_holds_batches(zone->sim, batch);
	bool got = pcp->flags & PCPF_FREE_HIGH_BATCH;
	zone->per_cpu_zonestats[cpu].free_high_batch = want ? FHB_SET : FHB_CLEAR;
	spin_unlock(lock);
	if (want != got)
		zone_report(zone, "INV-PCP-FREE-HIGH-BATCH", -1, want, got,
			    "cpu %u: cacheinfo update with a %u KB slice and batch %d left "
			    "PCPF_FREE_HIGH_BATCH %s",
			    cpu, zone->sim->cfg.cache_slice_kb, batch, got ? "set" : "clear");
}

void _mm_oracle_check_free_high(struct zone *zone, unsigned int cpu,
				const struct pcp_free_inputs *in, uint8_t flags_after,
				bool free_high, int freed)
{
	/* The flag as the checker expects it, in place of the model's. */
	uint8_t noted = zone->per_cpu_zonestats[cpu].free_high_batch;
	bool expect = noted ? noted == FHB_SET : zone->free_high_batch_boot;
	uint8_t batch_flag = expect ? PCPF_FREE_HIGH_BATCH : 0;
	struct pcp_free_inputs rule = *in;

	if ((in->flags & PCPF_FREE_HIGH_BATCH) != batch_flag ||
	    (flags_after & PCPF_FREE_HIGH_BATCH) != batch_flag) {
		zone_report(zone, "INV-PCP-FREE-HIGH-BATCH", -1, !!batch_flag,
			    !!(flags_after & PCPF_FREE_HIGH_BATCH),
			    "cpu %u: an order-%u free with flags %#x left flags %#x; the last "
			    "cacheinfo update gave PCPF_FREE_HIGH_BATCH %s",
			    cpu, in->order, in->flags, flags_after, batch_flag ? "set" : "clear");
		return;
	}
	rule.flags = (uint8_t)((in->flags & ~PCPF_FREE_HIGH_BATCH) | batch_flag);
	bool want = _mm_oracle_free_high(&rule);
	bool prev_want = in->order >= 1 && in->order <= PAGE_ALLOC_COSTLY_ORDER;
	/* free_high: nr_pcp_high() gives 0, nr_pcp_free() batch << CONFIG_PCP_BATCH_SCALE_MAX */
	int need = in->batch << CONFIG_PCP_BATCH_SCALE_MAX;

	if (need > in->count)
		need = in->count;
	if (want != free_high || !(flags_after & PCPF_PREV_FREE_HIGH_ORDER) != !prev_want)
		zone_report(zone, "INV-PCP-FREE-HIGH", -1, want, free_high,
			    "cpu %u: an order-%u free with flags %#x, free_count %d, count %d, "
			    "batch %d: free_high %d (the rule: %d), flags after %#x",
			    cpu, in->order, in->flags, in->free_count, in->count, in->batch,
			    free_high, want, flags_after);
	else if (want && freed < need)
		zone_report(zone, "INV-PCP-FREE-HIGH", -1, need, freed,
			    "cpu %u: a free_high free of order %u sent back %d pages, the rule "
			    "asks for min(count %d, batch %d << %d)",
			    cpu, in->order, freed, in->count, in->batch,
			    CONFIG_PCP_BATCH_SCALE_MAX);
}

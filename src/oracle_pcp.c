/* SPDX-License-Identifier: MIT */
/*
 * oracle_pcp.c - the free_high rule of free_unref_page_commit() (6.7+),
 * written out from its inputs, and INV-PCP-FREE-HIGH: the model took the
 * decision the rule gives, kept the high-order flag the rule keeps, and a
 * free_high free sent back at least the pages the rule asks for.
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

void _mm_oracle_check_free_high(struct zone *zone, unsigned int cpu,
				const struct pcp_free_inputs *in, uint8_t flags_after,
				bool free_high, int freed)
{
	bool want = _mm_oracle_free_high(in);
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

/* SPDX-License-Identifier: MIT */
/*
 * page.c - the memmap's pageblock flags: three migratetype bits and the
 * compaction skip bit per pageblock, as the kernel's pageblock_flags.
 */
#include "internal.h"

static const char *const state_names[NR_PAGE_STATES] = {
	"nozone", "reserved", "buddy", "free-tail", "allocated", "allocated-tail", "pcp", "uninit",
};

const char *_mm_page_state_name(int state)
{
	return state >= 0 && state < NR_PAGE_STATES ? state_names[state] : "?";
}

void set_pageblock_migratetype(struct mm_sim *sim, uint64_t pfn, int mt)
{
	uint8_t *f = &sim->pageblock_flags[pfn >> sim->pageblock_order];
	WRITE_ONCE(*f, (uint8_t)((*f & ~PB_MIGRATETYPE_MASK) | (unsigned int)mt));
}

/* Sets every pageblock of an order >= pageblock_order block. */
void change_pageblock_range(struct mm_sim *sim, uint64_t pfn, unsigned int order, int mt)
{
	uint64_t nr = UINT64_C(1) << (order - sim->pageblock_order);

	for (uint64_t i = 0; i < nr; i++)
		set_pageblock_migratetype(sim, pfn + (i << sim->pageblock_order), mt);
}

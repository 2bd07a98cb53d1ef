/* SPDX-License-Identifier: MIT */
/*
 * page.c - the memmap: pageblock flags (three migratetype bits and the
 * compaction skip bit per pageblock, as the kernel's pageblock_flags) and
 * the pfn-linked lists that free_area and the pcp lists are made of.
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
	uint8_t old = READ_ONCE(*f);

	/* a compare-and-swap: compaction sets the skip bit in this byte without zone->lock */
	while (!__atomic_compare_exchange_n(
		f, &old, (uint8_t)((old & ~PB_MIGRATETYPE_MASK) | (unsigned int)mt), true,
		__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Sets every pageblock of an order >= pageblock_order block. */
void change_pageblock_range(struct mm_sim *sim, uint64_t pfn, unsigned int order, int mt)
{
	uint64_t nr = UINT64_C(1) << (order - sim->pageblock_order);

	for (uint64_t i = 0; i < nr; i++)
		set_pageblock_migratetype(sim, pfn + (i << sim->pageblock_order), mt);
}

/*
 * The free_area and pcp lists: doubly linked through the pages' lru links,
 * by pfn. head is WRITE_ONCE: free_area_empty() reads it without the lock.
 */
void pfn_list_add(struct mm_sim *sim, uint32_t *head, uint32_t *tail, uint64_t pfn, bool at_tail)
{
	struct page *page = pfn_to_page(sim, pfn);
	uint32_t p = (uint32_t)pfn;

	if (*head == PFN_NIL) {
		page->lru.next = page->lru.prev = PFN_NIL;
		*tail = p;
		WRITE_ONCE(*head, p);
	} else if (at_tail) {
		page->lru.next = PFN_NIL;
		page->lru.prev = *tail;
		pfn_to_page(sim, *tail)->lru.next = p;
		*tail = p;
	} else {
		page->lru.prev = PFN_NIL;
		page->lru.next = *head;
		pfn_to_page(sim, *head)->lru.prev = p;
		WRITE_ONCE(*head, p);
	}
}

void pfn_list_del(struct mm_sim *sim, uint32_t *head, uint32_t *tail, uint64_t pfn)
{
	struct page *page = pfn_to_page(sim, pfn);

	if (page->lru.prev == PFN_NIL)
		WRITE_ONCE(*head, page->lru.next);
	else
		pfn_to_page(sim, page->lru.prev)->lru.next = page->lru.next;
	if (page->lru.next == PFN_NIL)
		*tail = page->lru.prev;
	else
		pfn_to_page(sim, page->lru.next)->lru.prev = page->lru.prev;
	page->lru.next = page->lru.prev = PFN_NIL;
}

/*
 * Rotates the list so that pfn becomes its head, keeping the cyclic order:
 * the kernel's list_cut_before() + list_splice_tail(), with which the
 * compaction scanners move what they have looked at out of the way.
 */
void pfn_list_rotate_to(struct mm_sim *sim, uint32_t *head, uint32_t *tail, uint32_t pfn)
{
	struct page *page = pfn_to_page(sim, pfn);
	uint32_t old_head = *head, prev = page->lru.prev;

	if (old_head == pfn || prev == PFN_NIL)
		return;
	pfn_to_page(sim, *tail)->lru.next = old_head;
	pfn_to_page(sim, old_head)->lru.prev = *tail;
	pfn_to_page(sim, prev)->lru.next = PFN_NIL;
	page->lru.prev = PFN_NIL;
	*tail = prev;
	WRITE_ONCE(*head, pfn);
}

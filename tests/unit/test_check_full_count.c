/* SPDX-License-Identifier: MIT */
/*
 * test_check_full_count.c - mm_check_full() returns the violations it
 * found (src/mmcore.h): each corruption below is reported, and the scan's
 * return counts every report once. A walk that stops at a broken pcp list
 * must still count that list's report; a scan that reports and returns 0
 * tells a caller that trusts the return that the machine is sound.
 */
#include "common.h"
#include "internal.h"

#define GFP_MOV (MM_GFP_MOVABLE | MM_GFP_KERNEL)

enum corruption {
	PCP_FOREIGN_PAGE, /* a listed page claims another CPU: the walk stops (broken) */
	PCP_STALE_TAIL,	  /* the list's tail pointer names no page of it */
	PCP_COUNT_OFF,	  /* pcp->count one above the pages listed */
	BUDDY_NR_FREE,	  /* NR_FREE_PAGES (exact) one above the free lists */
};

static const struct {
	const char *what;
	enum corruption how;
	const char *id;
} rows[] = {
	{"a foreign page on a pcp list", PCP_FOREIGN_PAGE, "INV-PCP-LIST"},
	{"a stale pcp tail", PCP_STALE_TAIL, "INV-PCP-LIST"},
	{"pcp->count off by one", PCP_COUNT_OFF, "INV-PCP-COUNT"},
	{"NR_FREE_PAGES off by one", BUDDY_NR_FREE, "INV-BUDDY-NRFREE"},
};

/* One Normal zone of 64 pages, two CPUs; one order-0 page on CPU 0's list. */
START_TEST(test_check_full_counts_each_report)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct vrec vr;
	uint32_t gen;

	cfg_tiny(&cfg, 2, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 64, 64);
	sim = sim_new(&cfg);
	mm_set_current_cpu(0);
	long long pfn = mm_alloc_pages(sim, 0, GFP_MOV, -1, 0, &gen);
	ck_assert_int_ge(pfn, 0);
	mm_free_pages(sim, (uint64_t)pfn, 0, 0, gen);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	struct page *page = pfn_to_page(sim, (uint64_t)pfn);
	struct per_cpu_pages *pcp = &z->per_cpu_pageset[0];
	ck_assert_int_eq(page->state, PG_PCP);
	ck_assert_int_eq(pcp->count, 1);

	switch (rows[_i].how) {
	case PCP_FOREIGN_PAGE:
		page->spare = 1;
		break;
	case PCP_STALE_TAIL:
		for (int i = 0; i < NR_PCP_LISTS; i++)
			if (pcp->head[i] == (uint32_t)pfn)
				pcp->tail[i] = PFN_NIL;
		break;
	case PCP_COUNT_OFF:
		pcp->count++;
		break;
	case BUDDY_NR_FREE:
		z->vm_stat_exact[NR_FREE_PAGES]++;
		break;
	}
	sim_record(sim, &vr);
	unsigned long got = mm_check_full(sim);
	ck_assert_msg(vrec_has(&vr, rows[_i].id), "%s: %s not reported (first: %s)", rows[_i].what,
		      rows[_i].id, vr.first);
	ck_assert_msg(got == vr.n, "%s: mm_check_full() returned %lu, %u reported (first: %s)",
		      rows[_i].what, got, vr.n, vr.first);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *check_full_count_suite(void)
{
	Suite *s = suite_create("check_full_count");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_check_full_counts_each_report, 0, (int)ARRAY_SIZE(rows));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(check_full_count_suite());
}

/* SPDX-License-Identifier: MIT */
/*
 * test_taken_zone.h - the machine the compaction pass tests
 * (test_compact_in_flight.c, _thread_state.c, _defer_table.c) run whole
 * passes on: one node, one Normal zone [0, pages) in pageblocks of 32,
 * max_order 6, every page the watermark lets go taken by an order-0
 * movable allocation, then every stride-th page freed. And an LRU that
 * gives no page up, for threaded passes (which ask it for each source):
 * such a pass isolates nothing and ends when the scanners meet.
 */
#ifndef TEST_TAKEN_ZONE_H
#define TEST_TAKEN_ZONE_H

#include "common.h"
#include "internal.h"

struct taken_zone {
	struct mm_sim *sim;
	struct zone *zone;
	uint64_t pages;
	uint32_t *gen;
	bool *held;
};

/* Frees pfn if the test holds it. */
static inline void taken_free(struct taken_zone *t, uint64_t pfn)
{
	if (!t->held[pfn])
		return;
	mm_free_pages(t->sim, pfn, 0, 7, t->gen[pfn]);
	t->held[pfn] = false;
}

static inline struct taken_zone taken_zone(unsigned int nr_cpus, uint64_t pages,
					   unsigned int stride, bool serial, struct vrec *vr)
{
	struct taken_zone t = {.pages = pages};
	struct mm_config cfg;
	uint32_t gen;
	long long pfn;

	t.gen = calloc(pages, sizeof(*t.gen));
	t.held = calloc(pages, sizeof(*t.held));
	ck_assert_ptr_nonnull(t.gen);
	ck_assert_ptr_nonnull(t.held);
	cfg_tiny(&cfg, nr_cpus, 6, 5);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, pages, pages);
	t.sim = sim_new(&cfg);
	t.sim->serial = serial;
	t.zone = &t.sim->node_data[0]->node_zones[ZONE_NORMAL];
	sim_record(t.sim, vr);
	mm_set_current_cpu(0);
	while ((pfn = mm_alloc_pages(t.sim, 0, MM_GFP_HIGHUSER_MOVABLE, 0, 7, &gen)) >= 0)
		t.gen[pfn] = gen, t.held[pfn] = true;
	for (uint64_t p = 0; p < pages; p += stride)
		taken_free(&t, p);
	return t;
}

static inline void taken_zone_destroy(struct taken_zone *t)
{
	mm_sim_destroy(t->sim);
	free(t->gen);
	free(t->held);
}

static inline bool lru_refuses(void *arg, uint64_t pfn, uint32_t *owner, uint32_t *gen)
{
	(void)arg;
	(void)pfn;
	(void)owner;
	(void)gen;
	return false;
}

static inline void lru_no_putback(void *arg, uint64_t old_pfn, uint64_t new_pfn)
{
	(void)arg;
	(void)old_pfn;
	(void)new_pfn;
}

static const struct mm_migrate_src lru_refusing = {.isolate = lru_refuses,
						   .putback = lru_no_putback};

#endif

/* SPDX-License-Identifier: MIT */
/*
 * stress_lru.c - the reclaimable pool kswapd reclaims from under threads.
 *
 * With --hold above the default, a worker releasing a pooled block may
 * put it on its node's LRU instead of freeing it: the block leaves the
 * worker (its pool no longer names it) and the LRU owns it. kswapd's
 * reclaimer (mm_set_reclaimer()) takes the oldest blocks off under the
 * LRU's lock and hands them to workers' inboxes (the transfer queue), so
 * each block has one owner at a time and is freed once;
 * a second free would fail the page stamps (INV-PAGE-STAMP). The LRU
 * holds up to (--hold - 33)% of the memory, so the zones sit near their
 * watermarks and kswapd's pressure-threshold window races real
 * allocations.
 */
#include "stress.h"

#include <stdlib.h>

static int block_node(const struct stress_run *run, const struct stress_block *b)
{
	for (unsigned int z = 0; z < run->nr_zones; z++)
		if ((uint64_t)b->pfn >= run->zones[z].start && (uint64_t)b->pfn < run->zones[z].end)
			return run->zones[z].node;
	return -1;
}

/*
 * Gives b to a worker's inbox: that worker frees it as its CPU. kswapd's
 * thread may not free as a CPU itself: the CPU's worker runs as it at the
 * same time, and per-cpu state has one writer.
 */
static bool to_inbox(struct stress_run *run, const struct stress_block *b)
{
	unsigned int w = atomic_fetch_add_explicit(&run->lru_rotor, 1, memory_order_relaxed) %
			 run->nr_workers;

	return stress_inbox_push(run->t[w], b);
}

/*
 * kswapd's reclaimer: up to nr pages off the node's LRU, oldest first,
 * each handed to a worker that frees it. Ownership moves under the locks
 * (LRU, then inbox): one owner at a time, so one free per block.
 */
static unsigned long lru_reclaim(void *arg, int node, unsigned long nr)
{
	struct stress_run *run = arg;
	struct stress_lru *l = &run->lru[node];
	unsigned long freed = 0;

	pthread_mutex_lock(&l->lock);
	/* A block compaction holds isolated is off the LRU: reclaim waits for it. */
	while (freed < nr && l->n && !stress_compact_lru_isolated(l, l->head) &&
	       to_inbox(run, &l->b[l->head])) {
		stress_compact_lru_clear(run, l, l->head);
		freed += 1UL << l->b[l->head].order;
		atomic_fetch_sub_explicit(&run->lru_pages, UINT64_C(1) << l->b[l->head].order,
					  memory_order_relaxed);
		l->head = (l->head + 1) % l->cap;
		l->n--;
	}
	pthread_mutex_unlock(&l->lock);
	return freed;
}

int stress_lru_init(struct stress_run *run)
{
	unsigned int hold = run->o.hold_pct;

	run->lru_budget = hold > STRESS_HOLD_DEFAULT
				  ? run->managed_pages * (hold - STRESS_HOLD_DEFAULT) / 100
				  : 0;
	if (!run->lru_budget)
		return 0;
	unsigned int cap =
		run->lru_budget < STRESS_LRU_MAX ? (unsigned int)run->lru_budget : STRESS_LRU_MAX;
	for (unsigned int n = 0; n < run->cfg.nr_nodes; n++)
		pthread_mutex_init(&run->lru[n].lock, NULL);
	for (unsigned int n = 0; n < run->cfg.nr_nodes; n++) {
		struct stress_lru *l = &run->lru[n];
		l->b = calloc(cap, sizeof(*l->b));
		if (!l->b)
			return -1;
		l->cap = cap;
	}
	mm_set_reclaimer(run->sim, lru_reclaim, run);
	return 0;
}

/* Hands b to its node's LRU; false when the LRU is off or full (b stays the caller's). */
bool stress_lru_add(struct stress_run *run, const struct stress_block *b)
{
	int node = block_node(run, b);
	uint64_t pages = UINT64_C(1) << b->order;

	if (!run->lru_budget || node < 0 ||
	    atomic_load_explicit(&run->lru_pages, memory_order_relaxed) + pages > run->lru_budget)
		return false;
	struct stress_lru *l = &run->lru[node];
	bool ok = false;
	pthread_mutex_lock(&l->lock);
	if (l->n < l->cap) {
		l->b[(l->head + l->n) % l->cap] = *b;
		stress_compact_lru_set(run, l, (l->head + l->n) % l->cap);
		l->n++;
		atomic_fetch_add_explicit(&run->lru_pages, pages, memory_order_relaxed);
		ok = true;
	}
	pthread_mutex_unlock(&l->lock);
	return ok;
}

/* Calls fn on every block the LRUs hold (quiesced: for the held-pages count). */
void stress_lru_for_each(struct stress_run *run,
			 void (*fn)(struct stress_run *run, const struct stress_block *b,
				    uint64_t *held),
			 uint64_t *held)
{
	for (unsigned int n = 0; run->lru_budget && n < run->cfg.nr_nodes; n++) {
		struct stress_lru *l = &run->lru[n];
		pthread_mutex_lock(&l->lock);
		for (unsigned int k = 0; k < l->n; k++)
			fn(run, &l->b[(l->head + k) % l->cap], held);
		pthread_mutex_unlock(&l->lock);
	}
}

/* After the threads are joined: every block on the LRUs freed as CPU 0. */
void stress_lru_free_all(struct stress_run *run)
{
	mm_set_current_cpu(0);
	for (unsigned int n = 0; run->lru_budget && n < run->cfg.nr_nodes; n++) {
		struct stress_lru *l = &run->lru[n];
		for (; l->n; l->n--, l->head = (l->head + 1) % l->cap) {
			const struct stress_block *b = &l->b[l->head];
			mm_free_pages(run->sim, (uint64_t)b->pfn, b->order, b->owner, b->gen);
			stress_compact_lru_clear(run, l, l->head);
		}
	}
	atomic_store(&run->lru_pages, 0);
}

void stress_lru_destroy(struct stress_run *run)
{
	for (unsigned int n = 0; run->lru_budget && n < run->cfg.nr_nodes; n++) {
		free(run->lru[n].b);
		pthread_mutex_destroy(&run->lru[n].lock);
	}
}

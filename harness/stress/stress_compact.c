/* SPDX-License-Identifier: MIT */
/*
 * stress_compact.c - compaction under threads.
 *
 * The kernel migrates LRU pages: a pass isolates them under the LRU lock
 * (isolate_lru_page()), so nobody else frees or moves them, migrates them
 * and puts them back (putback_lru_page()). The stress run's LRU (--hold,
 * stress_lru.c) is the analogue: a block on it belongs to no worker. This
 * file lends it to compaction (mm_set_migrate_src()): a pfn index says
 * which slot holds the block at a pfn, isolation marks the slot (kswapd's
 * reclaim then waits for it), putback moves the slot to the new pfn. The
 * stamp the slot recorded when the block joined the LRU is the ground
 * truth INV-COMPACT-MIGRATE-STAMP compares the migrated page with.
 *
 * The mix entries: direct compaction from allocating workers (a costly
 * order movable allocation with __GFP_COMPACT, which compacts when it
 * fails at min, and decoded compact ops, one zone at a priority), and a
 * kcompactd service thread that runs kcompactd_do_work() on a node as an
 * online CPU, whose worker waits meanwhile (its per-CPU counts have one
 * writer). kswapd's service flushes the skip bits concurrently.
 */
#include "stress.h"

#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The LRU of the node whose zone holds pfn; NULL if none. */
static struct stress_lru *lru_of(struct stress_run *run, uint64_t pfn)
{
	for (unsigned int z = 0; z < run->nr_zones; z++)
		if (pfn >= run->zones[z].start && pfn < run->zones[z].end)
			return &run->lru[run->zones[z].node];
	return NULL;
}

void stress_compact_lru_set(struct stress_run *run, struct stress_lru *l, unsigned int slot)
{
	if (!run->lru_slot)
		return;
	run->lru_slot[l->b[slot].pfn] = (int32_t)slot;
	l->isolated[slot] = 0;
}

void stress_compact_lru_clear(struct stress_run *run, struct stress_lru *l, unsigned int slot)
{
	if (run->lru_slot)
		run->lru_slot[l->b[slot].pfn] = -1;
}

bool stress_compact_lru_isolated(const struct stress_lru *l, unsigned int slot)
{
	return l->isolated && l->isolated[slot];
}

/* isolate_lru_page(): the order-0 block at pfn leaves the LRU, with the stamp it recorded. */
static bool lru_isolate(void *arg, uint64_t pfn, uint32_t *owner, uint32_t *gen)
{
	struct stress_run *run = arg;
	struct stress_lru *l = lru_of(run, pfn);
	bool ok = false;

	if (!l || !run->lru_budget)
		return false;
	pthread_mutex_lock(&l->lock);
	int32_t slot = run->lru_slot[pfn];
	if (slot >= 0 && !l->isolated[slot] && l->b[slot].order == 0) {
		l->isolated[slot] = 1;
		*owner = l->b[slot].owner;
		*gen = l->b[slot].gen;
		ok = true;
	}
	pthread_mutex_unlock(&l->lock);
	return ok;
}

/* putback_lru_page(): the block isolated at old_pfn is back on the LRU, at new_pfn. */
static void lru_putback(void *arg, uint64_t old_pfn, uint64_t new_pfn)
{
	struct stress_run *run = arg;
	struct stress_lru *l = lru_of(run, old_pfn);

	pthread_mutex_lock(&l->lock);
	int32_t slot = run->lru_slot[old_pfn];
	run->lru_slot[old_pfn] = -1;
	l->b[slot].pfn = (long long)new_pfn;
	stress_compact_lru_set(run, l, (unsigned int)slot);
	pthread_mutex_unlock(&l->lock);
}

int stress_compact_init(struct stress_run *run)
{
	uint64_t end = 0;

	for (unsigned int e = 0; e < run->mix_len; e++)
		if (run->o.weights[e] && !strcmp(run->mix[e].name, "kcompactd"))
			run->cpu_locks = true; /* it runs as a worker's CPU */
	for (unsigned int z = 0; z < run->nr_zones; z++)
		if (run->zones[z].end > end)
			end = run->zones[z].end;
	run->lru_slot = malloc(end * sizeof(*run->lru_slot));
	if (!run->lru_slot)
		return -1;
	for (uint64_t p = 0; p < end; p++)
		run->lru_slot[p] = -1;
	/* Without the LRU (--hold 33 or less) passes scan and isolate targets but migrate nothing. */
	for (unsigned int n = 0; run->lru_budget && n < run->cfg.nr_nodes; n++) {
		run->lru[n].isolated = calloc(run->lru[n].cap, 1);
		if (!run->lru[n].isolated)
			return -1;
	}
	mm_set_migrate_src(run->sim, &(struct mm_migrate_src){.isolate = lru_isolate,
							      .putback = lru_putback,
							      .arg = run});
	return 0;
}

void stress_compact_destroy(struct stress_run *run)
{
	for (unsigned int n = 0; run->lru_budget && n < run->cfg.nr_nodes; n++)
		free(run->lru[n].isolated);
	free(run->lru_slot);
}

void stress_compact_summary(struct stress_run *run)
{
	struct mm_compact_stats st;

	mm_sim_compact_stats(run->sim, &st);
	printf("compaction: %llu passes, %llu pages migrated (%llu failed), %llu direct stalls "
	       "(%llu succeeded), %llu kcompactd wakes, %llu blocks re-entered\n",
	       st.compact_passes, st.pgmigrate_success, st.pgmigrate_fail, st.compact_stall,
	       st.compact_success, st.compact_daemon_wake, st.compact_block_rescans);
}

static unsigned int below(struct stress_thread *t, unsigned int n)
{
	return n ? (unsigned int)(mm_splitmix64(&t->rng) % n) : 0;
}

/*
 * A costly-order allocation that may direct-compact
 * (__alloc_pages_direct_compact() after the slow path failed at min):
 * orders above PAGE_ALLOC_COSTLY_ORDER up to a pageblock, where
 * fast_find_migrateblock() runs; mostly movable (THP-like), where a direct
 * pass may use the fast search.
 */
int stress_run_compact_alloc(struct stress_thread *t, struct mm_op *op, struct stress_block *b)
{
	const struct mm_config *cfg = &t->run->cfg;
	unsigned int lo = PAGE_ALLOC_COSTLY_ORDER + 1;
	unsigned int hi =
		cfg->pageblock_order < cfg->max_order ? cfg->pageblock_order : cfg->max_order;

	op->alloc.order = (uint8_t)(hi >= lo ? lo + below(t, hi - lo + 1) : hi);
	op->alloc.gfp = (below(t, 4) ? MM_GFP_HIGHUSER_MOVABLE : MM_GFP_KERNEL) | MM_GFP_COMPACT;
	op->alloc.node = below(t, 4) ? -1 : op->alloc.node;
	return stress_alloc_block(t, op, b);
}

/* A decoded compact op: one zone's direct compaction at the priority it names, as this CPU. */
int stress_run_compact_zone(struct stress_thread *t, struct mm_op *op, struct stress_block *b)
{
	(void)b;
	return stress_apply(t, op) ? 0 : 1;
}

/*
 * kcompactd on a random node at an order a failed allocation could have
 * woken it with, run as an online CPU whose worker waits on its cpu_lock.
 */
int stress_run_kcompactd(struct stress_thread *t, struct mm_op *unused, struct stress_block *b)
{
	struct stress_run *run = t->run;
	int cpu = stress_pick_online_cpu(t);

	(void)unused;
	(void)b;
	if (cpu < 0)
		return 1;
	struct mm_op op = {.kind = MM_OP_KCOMPACTD, .cpu = (uint16_t)cpu};
	op.compact.node = (int16_t)below(t, run->cfg.nr_nodes);
	op.compact.order = (uint8_t)(1 + below(t, run->cfg.max_order));
	pthread_mutex_lock(&run->t[cpu]->cpu_lock);
	bool done = stress_apply(t, &op) != 0;
	pthread_mutex_unlock(&run->t[cpu]->cpu_lock);
	return done ? 0 : 1;
}

/* SPDX-License-Identifier: MIT */
/*
 * compaction_pool.c - what compaction needs around it: the scratch lists
 * reused across inputs, the handles that reach a movable page (the
 * executor's, or the fill pool's), the fill and free-pattern ops that
 * fragment a zone cheaply, and the compaction ops of mm_apply_op().
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Grows *p to n elements of size; 0, or -1 when memory is short. */
static int grow(void *p, size_t n, size_t size)
{
	void *q = realloc(*(void **)p, n * size);

	if (!q)
		return -1;
	*(void **)p = q;
	return 0;
}

/* Per mm_sim_init(): the lists sized for this machine, the pool empty, the stats zero. */
int _mm_compaction_reset(struct mm_sim *sim)
{
	struct compact_state *cs = sim->compact;
	size_t nr_blocks = (size_t)(sim->max_pfn >> sim->pageblock_order) + 1;

	if (!cs) {
		static atomic_ullong cookies;
		cs = calloc(1, sizeof(*cs));
		if (!cs)
			return -1;
		cs->cookie = atomic_fetch_add(&cookies, 1) + 1;
		sim->compact = cs;
	}
	if (sim->max_pfn > cs->pfn_cap) {
		if (grow(&cs->freepages, sim->max_pfn, sizeof(uint32_t)) ||
		    grow(&cs->migratepages, sim->max_pfn, sizeof(uint32_t)) ||
		    grow(&cs->fill, sim->max_pfn, sizeof(*cs->fill)))
			return -1;
		cs->pfn_cap = sim->max_pfn;
	}
	if (nr_blocks > cs->block_cap) {
		if (grow(&cs->visits, nr_blocks, 1) || grow(&cs->scanned_by, nr_blocks, 1) ||
		    grow(&cs->flush_before, nr_blocks, 1))
			return -1;
		cs->block_cap = nr_blocks;
	}
	cs->flush_saved = false;
	/*
	 * The kernel leaves the cached pfns zero, out of range of any real
	 * zone, so the first compaction starts at the ends; a model zone may
	 * start at pfn 0, so they start there explicitly.
	 */
	for_each_zone(sim, z)
		if (z->spanned_pages)
			reset_cached_positions(z);
	/* This machine's size, not the buffer's: slot numbers must not depend on earlier inputs. */
	cs->cap_fill = (uint32_t)sim->max_pfn;
	cs->nr_fill = cs->fill_cursor = 0;
	memset(&cs->stats, 0, sizeof(cs->stats));
	return 0;
}

static void compact_state_free(struct compact_state *cs)
{
	free(cs->freepages);
	free(cs->migratepages);
	free(cs->mig_owner);
	free(cs->mig_gen);
	free(cs->visits);
	free(cs->scanned_by);
	free(cs->flush_before);
	free(cs->fill);
	_mm_compaction_shadow_destroy(cs);
	free(cs);
}

void _mm_compaction_destroy(struct mm_sim *sim)
{
	struct compact_state *cs = sim->compact, *t, *next;

	if (!cs)
		return;
	for (t = atomic_exchange(&sim->compact_threads, NULL); t; t = next) {
		next = t->next_thread;
		compact_state_free(t);
	}
	compact_state_free(cs);
	sim->compact = NULL;
}

/*
 * A thread's own compaction state under threads: the kernel's
 * compact_control lives on the stack of the task that compacts, with its
 * lists, so passes on several CPUs share nothing but the zone. Made at the
 * thread's first pass, kept on sim->compact_threads until the machine goes;
 * the cookie tells a machine from a new one at the same address.
 */
static struct compact_state *compact_state_thread(struct mm_sim *sim)
{
	static _Thread_local struct compact_state *mine;
	static _Thread_local uint64_t mine_cookie;
	struct compact_state *cs;
	size_t nr_blocks = (size_t)(sim->max_pfn >> sim->pageblock_order) + 1;
	/*
	 * A round isolates sources from one pageblock at most, and the free
	 * scanners stop once the targets cover them, having taken one free
	 * block (of max_order at most) too many: the lists never hold more
	 * than a pageblock plus a max_order block. Twice that, not max_pfn:
	 * a big machine has up to 1024 threads that compact.
	 */
	size_t n = 2 * (((size_t)1 << sim->pageblock_order) + ((size_t)1 << sim->max_order));

	if (mine && mine_cookie == sim->compact->cookie)
		return mine;
	if (n > sim->max_pfn)
		n = sim->max_pfn;
	cs = calloc(1, sizeof(*cs));
	if (!cs)
		return NULL;
	if (grow(&cs->freepages, n, sizeof(uint32_t)) ||
	    grow(&cs->migratepages, n, sizeof(uint32_t)) ||
	    grow(&cs->mig_owner, n, sizeof(uint32_t)) || grow(&cs->mig_gen, n, sizeof(uint32_t)) ||
	    grow(&cs->visits, nr_blocks, 1) || grow(&cs->scanned_by, nr_blocks, 1)) {
		compact_state_free(cs);
		return NULL;
	}
	cs->pfn_cap = n;
	cs->block_cap = nr_blocks;
	cs->next_thread = atomic_load(&sim->compact_threads);
	while (!atomic_compare_exchange_weak(&sim->compact_threads, &cs->next_thread, cs))
		;
	mine = cs;
	mine_cookie = sim->compact->cookie;
	return cs;
}

struct compact_state *compact_state_current(struct mm_sim *sim)
{
	return sim->serial ? sim->compact : compact_state_thread(sim);
}

/* The serial path's, or (threads) this thread's: each counts what its own passes did. */
struct mm_compact_stats *compact_stats(struct mm_sim *sim)
{
	return &compact_state_current(sim)->stats;
}

_Static_assert(sizeof(struct mm_compact_stats) % sizeof(unsigned long long) == 0,
	       "mm_sim_compact_stats() sums the stats as unsigned long long");

/* The machine's counts and every thread's: exact when no pass runs (quiesced, or the end). */
void mm_sim_compact_stats(const struct mm_sim *sim, struct mm_compact_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!sim->compact)
		return;
	*out = sim->compact->stats;
	for (const struct compact_state *t = atomic_load(&((struct mm_sim *)sim)->compact_threads);
	     t; t = t->next_thread) {
		const unsigned long long *from = (const void *)&t->stats;
		unsigned long long *to = (void *)out;
		for (size_t i = 0; i < sizeof(*out) / sizeof(*from); i++)
			to[i] += from[i];
	}
}

void mm_set_migrate_src(struct mm_sim *sim, const struct mm_migrate_src *src)
{
	if (src)
		sim->migrate_src = *src;
	else
		memset(&sim->migrate_src, 0, sizeof(sim->migrate_src));
}

double mm_compact_scan_efficiency(const struct mm_compact_stats *s)
{
	return s->compact_free_scanned ? 100.0 * (double)s->compact_migrate_scanned /
						 (double)s->compact_free_scanned
				       : 0.0;
}

/*
 * mmtests' compaction cost (compaction-stats): the free-scan term reads a
 * key that does not exist, so it is always 0; kept out, as the published
 * figures were computed without it.
 */
double mm_compact_cost(const struct mm_compact_stats *s)
{
	return (7.0 * (double)s->compact_migrate_scanned + 19.0 * (double)s->compact_isolated +
		1038.0 * (double)s->pgmigrate_success + 14.0 * (double)s->pgmigrate_fail) /
	       1e6;
}

/*
 * The handle that reaches the allocated page at pfn, if its stamp and the
 * handle agree: a fill pool slot, or the executor's handle of that number.
 * A page nothing reaches cannot be migrated nor reclaimed (the stress
 * test's pages).
 */
struct mm_handle *handle_of_block(struct mm_sim *sim, uint64_t pfn)
{
	const struct page *page = pfn_to_page(sim, pfn);
	uint32_t owner = page->stamp.owner;
	struct mm_handle *h;

	if (owner == OWNER_ISOLATED_FREE)
		return NULL;
	if (owner & OWNER_FILL) {
		owner &= ~OWNER_FILL;
		if (owner >= sim->compact->nr_fill)
			return NULL;
		h = &sim->compact->fill[owner];
	} else {
		if (!sim->handles || owner >= sim->nr_handles)
			return NULL;
		h = &sim->handles[owner];
	}
	return h->pfn == (long long)pfn && h->gen == page->stamp.gen ? h : NULL;
}

unsigned int mm_fill_live(const struct mm_sim *sim)
{
	unsigned int n = 0;

	if (sim->compact)
		for (uint32_t i = 0; i < sim->compact->nr_fill; i++)
			n += sim->compact->fill[i].pfn >= 0;
	return n;
}

/* A free slot of the pool, reusing freed ones; UINT32_MAX if full. */
static uint32_t fill_slot(struct compact_state *cs)
{
	if (cs->nr_fill < cs->cap_fill)
		return cs->nr_fill++;
	for (uint32_t i = 0; i < cs->nr_fill; i++) {
		uint32_t s = (cs->fill_cursor + i) % cs->nr_fill;
		if (cs->fill[s].pfn < 0) {
			cs->fill_cursor = s + 1;
			return s;
		}
	}
	return UINT32_MAX;
}

static const unsigned int fill_zone_gfp[4] = {MM_GFP_DMA, MM_GFP_DMA32, 0, MM_GFP_HIGHMEM};

/*
 * MM_OP_FILL: pages blocks of the order, the zone (DMA, DMA32, Normal,
 * Movable) the highest allowed. Block k is unmovable when unmovable_every
 * divides k, else movable, and then busy (migration fails) when
 * busy_every divides k. Stops at the first allocation that fails.
 */
static void fill_apply(struct mm_sim *sim, const struct mm_op *op)
{
	struct compact_state *cs = sim->compact;
	unsigned int n = op->fill.pages, zone = op->fill.zone & 3;
	unsigned int unmovable_every = op->fill.unmovable_every, busy_every = op->fill.busy_every;

	for (unsigned int k = 0; k < n; k++) {
		bool unmovable = unmovable_every && k % unmovable_every == 0;
		unsigned int gfp = MM_GFP_KERNEL | fill_zone_gfp[zone];
		uint32_t slot = fill_slot(cs);
		struct mm_handle *h;

		if (slot == UINT32_MAX)
			return;
		if (!unmovable)
			gfp |= MM_GFP_MOVABLE;
		else if (zone == 3)
			gfp &= ~MM_GFP_HIGHMEM;
		h = &cs->fill[slot];
		h->order = op->fill.order;
		h->pfn = mm_alloc_pages(sim, op->fill.order, gfp, op->fill.node, OWNER_FILL | slot,
					&h->gen);
		if (h->pfn < 0)
			return;
		if (!unmovable && busy_every && k % busy_every == 0)
			pfn_to_page(sim, (uint64_t)h->pfn)->spare |= PAGE_MIGRATE_BUSY;
	}
}

/* MM_OP_FREE_PATTERN: frees the live pool slots i with i % every == offset. */
static void free_pattern_apply(struct mm_sim *sim, const struct mm_op *op)
{
	struct compact_state *cs = sim->compact;
	unsigned int every = op->pattern.every ? op->pattern.every : 1;

	for (uint32_t i = op->pattern.offset; i < cs->nr_fill; i += every) {
		struct mm_handle *h = &cs->fill[i];
		if (h->pfn < 0)
			continue;
		mm_free_pages(sim, (uint64_t)h->pfn, h->order, OWNER_FILL | i, h->gen);
		h->pfn = -1;
	}
}

/* The compaction ops' entry points. */
int _mm_op_compact(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	if (!compaction_possible(ctx->sim))
		return 1;
	return mm_compact_zone(ctx->sim, op->compact.node, (enum zone_type)op->compact.zone,
			       op->compact.order, op->compact.prio, op->compact.mode,
			       op->compact.mt) < 0;
}

int _mm_op_kcompactd(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	if (!compaction_possible(ctx->sim))
		return 1;
	return mm_kcompactd_step(ctx->sim, op->compact.node, op->compact.order);
}

int _mm_op_reset_skip(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	if (!compaction_possible(ctx->sim))
		return 1;
	mm_reset_isolation_suitable(ctx->sim, op->compact.node);
	return 0;
}

int _mm_op_fill(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	/* The fill pool is the executor's: under threads the workers allocate. */
	if (!ctx->sim->serial || !compaction_possible(ctx->sim))
		return 1;
	fill_apply(ctx->sim, op);
	return 0;
}

int _mm_op_free_pattern(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	/* The fill pool is the executor's: under threads the workers allocate. */
	if (!ctx->sim->serial || !compaction_possible(ctx->sim))
		return 1;
	free_pattern_apply(ctx->sim, op);
	return 0;
}

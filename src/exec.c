/* SPDX-License-Identifier: MIT */
/*
 * exec.c - the deterministic executor: runs a program's ops in order, each
 * as its simulated CPU, on one thread, so the schedule is part of the input
 * and every run of the same program is the same run. Cheap checks follow
 * each op on the zone it touched; full scans run every K ops and at the end.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

struct mm_exec {
	struct mm_sim *sim;
	struct mm_handle *h;
	size_t cap;
	const struct mm_exec_opts *opts;
	long cur_op;
	long first_violation_op;
	unsigned long skipped;
};

void mm_exec_opts_default(struct mm_exec_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->variant = -1;
	o->check_every = 256;
	o->stop_on_violation = true;
}

struct mm_exec *mm_exec_create(void)
{
	struct mm_exec *ex = calloc(1, sizeof(*ex));

	if (!ex)
		return NULL;
	ex->sim = mm_sim_create();
	if (!ex->sim) {
		free(ex);
		return NULL;
	}
	return ex;
}

void mm_exec_destroy(struct mm_exec *ex)
{
	if (!ex)
		return;
	mm_sim_destroy(ex->sim);
	free(ex->h);
	free(ex);
}

struct mm_sim *mm_exec_sim(struct mm_exec *ex)
{
	return ex->sim;
}

unsigned long mm_exec_skipped(const struct mm_exec *ex)
{
	return ex->skipped;
}

static void on_violation(const struct mm_violation *v, void *arg)
{
	struct mm_exec *ex = arg;

	if (ex->first_violation_op < 0)
		ex->first_violation_op = ex->cur_op;
	if (ex->opts->on_violation)
		ex->opts->on_violation(v, ex->opts->arg);
}

/* Every zone's invariants, then the counters' (percpu_counter, committed, rss). */
static void check_full(struct mm_sim *sim)
{
	mm_check_full(sim);
	_mm_counters_check_full(sim);
}

static struct zone *pfn_zone(struct mm_sim *sim, long long pfn)
{
	return page_zone(sim, pfn_to_page(sim, (uint64_t)pfn));
}

/*
 * After an event the kernel resizes the pcp lists for (hotplug, watermark
 * sysctls, deferred init completing): is the sizing current? Only one
 * thread's view is stable enough to ask; the stress test asks at quiesce.
 */
void _mm_check_sizing(struct mm_sim *sim)
{
	if (!sim->serial)
		return;
	_mm_check_derived(sim);
	for_each_zone(sim, z)
		if (z->per_cpu_pageset)
			_mm_pcp_check_sizing(z);
}

int _mm_op_alloc(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	struct mm_handle *h;

	if (ctx->alloc_handle >= ctx->nr_handles)
		return 1;
	h = &ctx->handles[ctx->alloc_handle];
	h->order = op->alloc.order;
	h->pfn = mm_alloc_pages(ctx->sim, op->alloc.order, op->alloc.gfp, op->alloc.node,
				ctx->alloc_handle, &h->gen);
	if (h->pfn >= 0)
		_mm_check_zone_cheap(pfn_zone(ctx->sim, h->pfn));
	return 0;
}

int _mm_op_free(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	uint32_t handle = op->free.handle;
	struct mm_handle *h;

	if (handle >= ctx->nr_handles || ctx->handles[handle].pfn < 0)
		return 1;
	h = &ctx->handles[handle];
	mm_free_pages(ctx->sim, (uint64_t)h->pfn, h->order, handle, h->gen);
	_mm_check_zone_cheap(pfn_zone(ctx->sim, h->pfn));
	h->pfn = -1;
	return 0;
}

int _mm_op_check(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	(void)op;
	check_full(ctx->sim);
	return 0;
}

int mm_apply_op(struct mm_sim *sim, const struct mm_op *op, struct mm_handle *handles,
		uint32_t nr_handles, uint32_t alloc_handle)
{
	struct mm_op_ctx ctx = {sim, handles, nr_handles, alloc_handle};
	const struct mm_op_desc *d;

	if (op->kind >= MM_NR_OP_KINDS)
		return 1;
	d = &mm_op_descs[op->kind];
	if (!d->no_cpu && !d->offline_ok && !mm_cpu_is_online(sim, op->cpu)) {
		/* An offline CPU runs nothing; its allocation simply never happens. */
		if (op->kind == MM_OP_ALLOC && alloc_handle < nr_handles)
			handles[alloc_handle].pfn = -1;
		return 1;
	}
	mm_set_current_cpu(op->cpu);
	/*
	 * Compaction moves blocks and kswapd reclaims them, both through the
	 * executor's handles (serial runs only).
	 */
	if (sim->serial) {
		sim->handles = handles;
		sim->nr_handles = nr_handles;
	}
	return d->apply(&ctx, op);
}

long mm_exec_run(struct mm_exec *ex, const struct mm_prog *p, const struct mm_exec_opts *o,
		 long *failed_op)
{
	struct mm_exec_opts def;
	uint32_t next_handle = 0;

	if (!o) {
		mm_exec_opts_default(&def);
		o = &def;
	}
	*failed_op = -1;
	if (p->nr_allocs > ex->cap) {
		struct mm_handle *h = realloc(ex->h, p->nr_allocs * sizeof(*h));
		if (!h)
			return -1;
		ex->h = h;
		ex->cap = p->nr_allocs;
	}
	ex->opts = o;
	ex->first_violation_op = -1;
	ex->skipped = 0;
	ex->cur_op = 0;
	uint32_t adopt = o->snapshot ? o->snapshot->nr_handles : 0;
	if (adopt > p->nr_allocs)
		return -1;
	/* this thread alone runs the machine, its boot included, until the return */
	bool up = mm_locks_up;
	mm_locks_up = true;
	if (o->snapshot ? mm_snapshot_restore(ex->sim, o->snapshot, o->variant)
			: mm_sim_init(ex->sim, &p->cfg, o->variant)) {
		mm_locks_up = up;
		return -1;
	}
	ex->sim->serial = true;
	mm_sim_set_strict_watermarks(ex->sim, o->strict_watermarks);
	mm_sim_set_violation_handler(ex->sim, on_violation, ex);
	if (o->on_boot)
		o->on_boot(o->arg);

	/*
	 * A full scan of a machine no op has changed since the last one would
	 * find what that one found: a check op right after another, or before
	 * the end, is not run twice. Boot counts as a change.
	 */
	bool changed = true;
	for (unsigned int i = 0; i < p->nr_ops; i++) {
		const struct mm_op *op = &p->ops[i];
		ex->cur_op = i;
		if (op->kind == MM_OP_ALLOC && next_handle < adopt)
			ex->h[next_handle] =
				o->snapshot->handles[next_handle]; /* held at the snapshot */
		else if (op->kind != MM_OP_CHECK || changed)
			ex->skipped += (unsigned long)mm_apply_op(ex->sim, op, ex->h, p->nr_allocs,
								  next_handle);
		changed = op->kind != MM_OP_CHECK;
		next_handle += op->kind == MM_OP_ALLOC;
		if (o->on_op)
			o->on_op(o->arg);
		if (o->check_every && (i + 1) % o->check_every == 0 && changed) {
			check_full(ex->sim);
			changed = false;
		}
		if (o->stop_on_violation && ex->first_violation_op >= 0)
			break;
	}
	if ((ex->first_violation_op < 0 || !o->stop_on_violation) && changed) {
		ex->cur_op = p->nr_ops;
		mm_set_current_cpu(0);
		check_full(ex->sim);
	}
	*failed_op = ex->first_violation_op;
	mm_locks_up = up;
	return (long)mm_sim_violations(ex->sim);
}

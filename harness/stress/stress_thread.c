/* SPDX-License-Identifier: MIT */
/*
 * stress_thread.c - the threads of `mmfuzz stress` and the workload mix
 * they run.
 *
 * A worker is one simulated CPU. It fills a chunk of random bytes from its
 * own splitmix64 stream, decodes them with mm_decode_ops() (the op layer
 * the fuzz targets use) and runs the ops through mm_apply_op() as its CPU.
 * The mix table admits each decoded op at its entry's share of the
 * workers' ops, so --weights sets the rates whatever the decoder's own
 * distribution is. Blocks outlive their chunk in a small pool; some are
 * handed to another worker's inbox and freed there, as that CPU (pages
 * freed on a different CPU than allocated, as in mimalloc's test-stress).
 * Mechanisms that are not per-CPU work (hotplug, sysctl writes, pcp
 * disabling, deferred init) run on service threads paced to their share of
 * all ops.
 *
 * A new mechanism is one entry of stress_mix_default[]: a decoded op kind
 * the workers admit (a pcp drain, a vmstat fold) or a service thread of
 * its own (kswapd, kcompactd).
 */
#include "stress.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

unsigned long long stress_total_ops(struct stress_run *run)
{
	unsigned long long n = 0;

	for (unsigned int i = 0; i < run->nr_threads; i++)
		n += atomic_load_explicit(&run->t[i]->ops, memory_order_relaxed);
	return n;
}

/* A counter only its own thread writes: no locked read-modify-write. */
static void own_inc(atomic_ullong *c)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/*
 * The flight recorder's order: the monotonic clock in ns, the thread in the
 * low byte, strictly increasing per thread. A shared counter would be one
 * cache line every op of every thread writes: it cost 6x at 2 threads.
 */
static uint64_t next_seq(struct stress_thread *t)
{
	struct timespec ts;
	uint64_t ns, seq;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	seq = ns << 8 | (t->idx & 0xff);
	if (seq <= t->last_seq)
		seq = ((t->last_seq >> 8) + 1) << 8 | (t->idx & 0xff);
	t->last_seq = seq;
	return seq;
}

static unsigned int below(struct stress_thread *t, unsigned int n)
{
	return n ? (unsigned int)(mm_splitmix64(&t->rng) % n) : 0;
}

static void pause_us(long us)
{
	struct timespec ts = {0, us * 1000};

	nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------------------
 * Running one op: the global sequence, the core, the flight recorder
 * ---------------------------------------------------------------------- */

/*
 * The sequence number is taken before the op runs, so that an op which
 * ran on a CPU that went offline meanwhile still sorts before the offline.
 * Returns the op's sequence number, or 0 when the core skipped it.
 */
static uint64_t apply(struct stress_thread *t, struct mm_op *op, struct mm_handle *h,
		      uint32_t alloc_handle, uint64_t alloc_seq)
{
	struct stress_run *run = t->run;
	uint64_t seq = next_seq(t);
	int skipped;

	/* A worker's CPU does not go offline in the middle of its op (cpu_lock). */
	bool lock = !t->service && run->cpu_locks;
	if (lock)
		pthread_mutex_lock(&t->cpu_lock);
	skipped = mm_apply_op(run->sim, op, h, STRESS_MAX_HANDLES, alloc_handle);
	if (lock)
		pthread_mutex_unlock(&t->cpu_lock);
	if (skipped) {
		own_inc(&t->skipped);
		return 0;
	}
	stress_record(t, seq, op, op->kind == MM_OP_ALLOC ? seq : alloc_seq);
	own_inc(&t->ops);
	return seq;
}

uint64_t stress_apply(struct stress_thread *t, struct mm_op *op)
{
	return apply(t, op, NULL, 0, 0);
}

/* Frees b as this thread's CPU. Returns 0 when freed, 1 when skipped (CPU offline). */
static int free_block(struct stress_thread *t, const struct stress_block *b)
{
	struct mm_op op = {.kind = MM_OP_FREE, .cpu = (uint16_t)t->cpu, .free.handle = b->owner};

	/* mm_apply_op() frees handles[arg] with arg as the stamp's owner. */
	t->scratch[b->owner] = (struct mm_handle){.pfn = b->pfn, .gen = b->gen, .order = b->order};
	return apply(t, &op, t->scratch, 0, b->alloc_seq) ? 0 : 1;
}

/* ------------------------------------------------------------------------
 * The mix
 * ---------------------------------------------------------------------- */

static unsigned int pick_order(struct stress_thread *t)
{
	unsigned int max_order = t->run->cfg.max_order;
	unsigned int high = max_order > 4 ? 4 + below(t, max_order - 3) : max_order;
	unsigned int r = below(t, 100);

	switch (t->run->o.orders) {
	case ORDERS_ZERO:
		return 0;
	case ORDERS_HIGH:
		r = r < 50 ? high : r % 4;
		return r <= max_order ? r : max_order;
	default:
		if (r < 10)
			return high;
		/* 70% order 0, then 1, 2 and 3 alike: the sizes that fill pcp lists. */
		r = r < 73 ? 0 : 1 + (r - 73) / 9;
		return r <= max_order ? r : max_order;
	}
}

/*
 * The decoder draws orders uniformly and gfp bits at random; the mix
 * reshapes them to what a machine runs, and mostly allocates on the
 * local node.
 */
static int run_alloc(struct stress_thread *t, struct mm_op *op, struct stress_block *b)
{
	op->alloc.order = (uint8_t)pick_order(t);
	/* masks real callers pass; one alloc in eight keeps the decoder's raw mask */
	if (below(t, 8))
		op->alloc.gfp = mm_gfp_common[below(t, MM_NR_GFP_COMMON)];
	if (below(t, 4))
		op->alloc.node = -1;
	return stress_alloc_block(t, op, b);
}

int stress_alloc_block(struct stress_thread *t, struct mm_op *op, struct stress_block *b)
{
	uint64_t seq = apply(t, op, t->scratch, b->owner, 0);

	if (!seq)
		return 1;
	b->pfn = t->scratch[b->owner].pfn;
	b->gen = t->scratch[b->owner].gen;
	b->order = op->alloc.order;
	b->alloc_seq = seq;
	if (b->pfn < 0)
		own_inc(&t->alloc_fail);
	return 0;
}

static int run_free(struct stress_thread *t, struct mm_op *op, struct stress_block *b)
{
	(void)op;
	return free_block(t, b);
}

/* Returns true if b went into another worker's inbox. */
static bool hand_over(struct stress_thread *t, const struct stress_block *b)
{
	struct stress_run *run = t->run;

	if (run->nr_workers < 2)
		return false;
	unsigned int i = below(t, run->nr_workers - 1);
	return stress_inbox_push(run->t[i >= t->idx ? i + 1 : i], b);
}

/* Appends b to to's inbox (to frees it as its CPU); false when the inbox is full. */
bool stress_inbox_push(struct stress_thread *to, const struct stress_block *b)
{
	bool ok = false;

	pthread_mutex_lock(&to->inbox_lock);
	if (to->nr_inbox < STRESS_INBOX) {
		to->inbox[to->nr_inbox++] = *b;
		atomic_store_explicit(&to->inbox_hint, 1, memory_order_relaxed);
		ok = true;
	}
	pthread_mutex_unlock(&to->inbox_lock);
	return ok;
}

/* The block is freed by another CPU; a full inbox (or no other CPU) frees it here. */
static int run_remote_free(struct stress_thread *t, struct mm_op *op, struct stress_block *b)
{
	if (hand_over(t, b)) {
		own_inc(&t->remote_sent);
		return 0;
	}
	return run_free(t, op, b);
}

/* Returns a CPU in the wanted state, starting from a random one; -1 if none. */
static int pick_cpu(struct stress_thread *t, bool online)
{
	unsigned int n = t->run->nr_workers, start = below(t, n);

	for (unsigned int k = 0; k < n; k++) {
		int cpu = (int)((start + k) % n);
		if (mm_cpu_is_online(t->run->sim, cpu) == online)
			return cpu;
	}
	return -1;
}

int stress_pick_online_cpu(struct stress_thread *t)
{
	return pick_cpu(t, true);
}

/*
 * Takes a CPU offline or brings one back. At most a quarter of the CPUs
 * (at least one) are offline at once, so most workers keep running.
 */
static int run_hotplug(struct stress_thread *t, struct mm_op *unused, struct stress_block *b)
{
	struct stress_run *run = t->run;
	unsigned int offline = run->nr_workers - mm_num_online_cpus(run->sim);
	unsigned int max_offline = run->nr_workers / 4 ? run->nr_workers / 4 : 1;
	bool bring_up = offline && (offline >= max_offline || below(t, 2));
	struct mm_op op = {.kind = bring_up ? MM_OP_CPU_ONLINE : MM_OP_CPU_OFFLINE};
	int cpu = pick_cpu(t, !bring_up);
	uint64_t seq;

	(void)unused;
	(void)b;
	if (cpu < 0)
		return 1;
	op.cpu = (uint16_t)cpu;
	/*
	 * takedown_cpu() stops the dying CPU before page_alloc_cpu_dead()
	 * drains its lists: nothing it ran is left half done. The count is odd
	 * while it runs: a counter op's drift bound then allows any CPU count.
	 */
	stress_takedown_begin(run, cpu);
	atomic_fetch_add_explicit(&run->hotplug_seq, 1, memory_order_acq_rel);
	seq = apply(t, &op, NULL, 0, 0);
	atomic_fetch_add_explicit(&run->hotplug_seq, 1, memory_order_acq_rel);
	stress_takedown_end(run, cpu);
	return seq ? 0 : 1;
}

/*
 * Writes the watermark and pcp sysctls: min_free_kbytes from 128 kB to an
 * eighth of memory, watermark_scale_factor over its range, and
 * percpu_pagelist_high_fraction (0: the kernel's auto-tuned high).
 */
static int run_sysctl(struct stress_thread *t, struct mm_op *unused, struct stress_block *b)
{
	static const unsigned int wsf[] = {1, 10, 10, 100, 1000, 3000};
	static const unsigned int fraction[] = {0, 0, 8, 16, 63}; /* what a trace can say */
	struct stress_run *run = t->run;
	uint64_t kb = run->managed_pages << (MM_PAGE_SHIFT - 10);
	const uint64_t kbytes[] = {128, kb / 1024, kb / 256, kb / 64, kb / 16, kb / 8};
	struct mm_op op = {0};
	int cpu = pick_cpu(t, true);

	(void)unused;
	(void)b;
	if (cpu < 0)
		return 1;
	op.cpu = (uint16_t)cpu;
	switch (below(t, 3)) {
	case 0:
		op.kind = MM_OP_SET_MIN_FREE_KBYTES;
		op.sysctl.value = (uint32_t)kbytes[below(t, sizeof(kbytes) / sizeof(kbytes[0]))];
		break;
	case 1:
		op.kind = MM_OP_SET_WSF;
		op.sysctl.value = wsf[below(t, sizeof(wsf) / sizeof(wsf[0]))];
		break;
	default:
		op.kind = MM_OP_SET_HIGH_FRACTION;
		op.sysctl.value = fraction[below(t, sizeof(fraction) / sizeof(fraction[0]))];
		break;
	}
	return apply(t, &op, NULL, 0, 0) ? 0 : 1;
}

/* A decoded op that names no block (a pcp drain), run as it is. */
static int run_plain(struct stress_thread *t, struct mm_op *op, struct stress_block *b)
{
	(void)b;
	return apply(t, op, NULL, 0, 0) ? 0 : 1;
}

/*
 * What memory offlining does to a zone's pcp lists: disabled (drained,
 * high 0, batch 1) for a while, then enabled. One zone at a time; the run
 * enables them all at its end.
 */
static int run_pcp_disable(struct stress_thread *t, struct mm_op *unused, struct stress_block *b)
{
	struct stress_run *run = t->run;
	struct mm_op op = {.kind = MM_OP_PCP_DISABLE};
	int cpu = pick_cpu(t, true);
	unsigned int z;

	(void)unused;
	(void)b;
	if (cpu < 0)
		return 1;
	if (t->svc_zone >= 0) {
		op.kind = MM_OP_PCP_ENABLE;
		z = (unsigned int)t->svc_zone;
	} else {
		z = below(t, run->nr_zones);
	}
	op.cpu = (uint16_t)cpu;
	op.pcp.node = (int16_t)run->zones[z].node;
	op.pcp.zone = (uint8_t)run->zones[z].type;
	if (!apply(t, &op, NULL, 0, 0))
		return 1;
	t->svc_zone = op.kind == MM_OP_PCP_DISABLE ? (int)z : -1;
	return 0;
}

/*
 * Deferred struct page init (--deferred-init): steps of a few pageblocks
 * on random nodes, racing with the first allocations, then the completion
 * (page_alloc_init_late) once no node has any left.
 */
static int run_deferred_init(struct stress_thread *t, struct mm_op *unused, struct stress_block *b)
{
	struct stress_run *run = t->run;
	struct mm_op op = {.kind = MM_OP_DEFERRED_STEP};
	int cpu = pick_cpu(t, true);

	(void)unused;
	(void)b;
	if (cpu < 0 || !mm_deferred_init_pending(run->sim))
		return 1;
	op.cpu = (uint16_t)cpu;
	if (t->svc_zone >= (int)run->cfg.nr_nodes) {
		op.kind = MM_OP_DEFERRED_COMPLETE;
	} else {
		op.pcp.node = (int16_t)below(t, run->cfg.nr_nodes);
		op.pcp.pageblocks = (uint8_t)(1 + below(t, 4));
	}
	/* svc_zone counts the steps in a row that found nothing left to initialise. */
	if (apply(t, &op, NULL, 0, 0)) {
		t->svc_zone = 0;
		return 0;
	}
	t->svc_zone++;
	return 1;
}

/*
 * kswapd on a node: woken (if the node is not balanced), a few steps that
 * switch the node to the pressure thresholds, then a try to sleep that
 * switches back. Under threads kswapd reclaims nothing (the handles are
 * the workers'); the threshold switches race the workers' diff updates,
 * which is the point.
 */
static int run_kswapd(struct stress_thread *t, struct mm_op *unused, struct stress_block *b)
{
	static const uint8_t cycle[] = {MM_OP_KSWAPD_WAKE, MM_OP_KSWAPD_STEP, MM_OP_KSWAPD_STEP,
					MM_OP_KSWAPD_SLEEP};
	struct stress_run *run = t->run;
	int cpu = pick_cpu(t, true);
	unsigned int z = below(t, run->nr_zones);

	(void)unused;
	(void)b;
	if (cpu < 0)
		return 1;
	struct mm_op op = {.kind = cycle[(unsigned int)t->svc_zone % sizeof(cycle)],
			   .cpu = (uint16_t)cpu,
			   .vmstat = {.node = (int16_t)run->zones[z].node,
				      .zone = (uint8_t)run->zones[z].type}};
	t->svc_zone = (int)(((unsigned int)t->svc_zone + 1) % sizeof(cycle));
	return apply(t, &op, NULL, 0, 0) ? 0 : 1;
}

/*
 * One entry per mechanism. Decoded ops of a kind no entry admits are
 * dropped: hotplug and sysctl ops have their own threads, and a full
 * check (MM_OP_CHECK) is only valid at a quiesce point.
 */
const struct stress_mix_entry stress_mix_default[] = {
	{"alloc", "allocate: order 0-3 mostly, a tenth of high orders; common gfp masks", 50,
	 MIX_WORKER_OP, MM_OP_ALLOC, run_alloc},
	{"free", "free one of this CPU's blocks, as this CPU", 35, MIX_WORKER_OP, MM_OP_FREE,
	 run_free},
	{"remote-free", "hand one of this CPU's blocks to another CPU, which frees it", 10,
	 MIX_WORKER_OP, MM_OP_FREE, run_remote_free},
	{"drain", "drain this CPU's pcp lists (drain_local_pages)", 1, MIX_WORKER_OP,
	 MM_OP_DRAIN_LOCAL, run_plain},
	{"drain-all", "drain every CPU's pcp lists (drain_all_pages)", 1, MIX_WORKER_OP,
	 MM_OP_DRAIN_ALL, run_plain},
	{"vmstat-fold", "fold this CPU's vmstat diffs (vmstat_update)", 1, MIX_WORKER_OP,
	 MM_OP_VMSTAT_FOLD, run_plain},
	{"vmstat-read", "read a zone's free pages: estimate, snapshot or zone_watermark_ok_safe", 1,
	 MIX_WORKER_OP, MM_OP_VMSTAT_READ, run_plain},
	{"hotplug", "a thread taking simulated CPUs offline and back online", 2, MIX_SERVICE, 0,
	 run_hotplug},
	{"sysctl",
	 "a thread writing min_free_kbytes, watermark_scale_factor, percpu_pagelist_high_fraction",
	 1, MIX_SERVICE, 0, run_sysctl},
	{"pcp-disable",
	 "a thread disabling a zone's pcp lists for a while, as memory offlining does", 1,
	 MIX_SERVICE, 0, run_pcp_disable},
	{"deferred-init",
	 "with --deferred-init: a thread initialising the rest as workers allocate", 1, MIX_SERVICE,
	 0, run_deferred_init},
	{"kswapd",
	 "a thread waking kswapd, stepping it (pressure thresholds) and putting it to sleep", 1,
	 MIX_SERVICE, 0, run_kswapd},
	{"pcpu-add", "percpu_counter_add_batch on c0..c15 as this CPU", 2, MIX_WORKER_OP,
	 MM_OP_PCPU_ADD, stress_run_pcpu_add},
	{"pcpu-compare", "__percpu_counter_compare: the read, or the sum when near", 1,
	 MIX_WORKER_OP, MM_OP_PCPU_COMPARE, stress_run_pcpu_compare},
	{"pcpu-sync", "percpu_counter_sync: fold this CPU's local", 1, MIX_WORKER_OP,
	 MM_OP_PCPU_SYNC, stress_run_pcpu_sync},
	{"mmap", "mmap on a shared mm: vm_committed_as charge, rss faulted in", 1, MIX_WORKER_OP,
	 MM_OP_MMAP, stress_run_mm_op},
	{"brk", "brk on a shared mm: as mmap, anonymous", 1, MIX_WORKER_OP, MM_OP_BRK,
	 stress_run_mm_op},
	{"munmap", "munmap: rss and the charge given back", 1, MIX_WORKER_OP, MM_OP_MUNMAP,
	 stress_run_mm_op},
	{"fork", "fork: the rss counters' init_many, the parent's charge copied", 1, MIX_WORKER_OP,
	 MM_OP_FORK, stress_run_mm_op},
	{"exit", "exit: the charge given back, check_mm's sums", 1, MIX_WORKER_OP, MM_OP_EXIT,
	 stress_run_mm_op},
	{"overcommit", "a thread switching vm.overcommit_memory (NEVER syncs every CPU)", 1,
	 MIX_SERVICE, 0, stress_run_overcommit},
	{"isolate",
	 "a thread offlining and onlining pageblocks and taking them with alloc_contig_range", 1,
	 MIX_SERVICE, 0, stress_run_isolate},
	{"compact",
	 "a costly-order movable allocation that direct-compacts when it fails "
	 "(__alloc_pages_direct_compact)",
	 1, MIX_WORKER_OP, MM_OP_ALLOC, stress_run_compact_alloc},
	{"compact-zone", "a decoded compact op: one zone's direct compaction at its priority", 1,
	 MIX_WORKER_OP, MM_OP_COMPACT, stress_run_compact_zone},
	{"kcompactd", "a thread running kcompactd_do_work() on a node, as an online CPU", 1,
	 MIX_SERVICE, 0, stress_run_kcompactd},
};
const unsigned int stress_mix_len = sizeof(stress_mix_default) / sizeof(stress_mix_default[0]);

_Static_assert(sizeof(stress_mix_default) / sizeof(stress_mix_default[0]) <= STRESS_MIX_MAX,
	       "STRESS_MIX_MAX is too small for the mix table");

/*
 * Picks the worker entry for a decoded op: among the entries that take
 * its kind, the one furthest below its share. Returns -1 when the op is
 * to be dropped (no entry takes it, or every one is at its share and
 * must is false).
 */
static int admit(struct stress_thread *t, unsigned int kind, bool must)
{
	struct stress_run *run = t->run;
	long long best_gap = 0;
	int best = -1;

	for (unsigned int e = 0; e < run->mix_len; e++) {
		const struct stress_mix_entry *m = &run->mix[e];
		unsigned int w = run->o.weights[e];
		if (m->kind != MIX_WORKER_OP || m->op_kind != kind || !w)
			continue;
		/* share of the ops so far, counting this one, minus what it ran */
		long long gap = (long long)w * (long long)(t->mix_total + 1) -
				(long long)t->mix_ran[e] * run->worker_weight;
		if (best < 0 || gap > best_gap) {
			best = (int)e;
			best_gap = gap;
		}
	}
	if (best >= 0 && best_gap <= 0 && !must)
		return -1;
	return best;
}

/*
 * Counting admissions rather than ops that did something keeps the
 * shares moving when a free finds its block gone: a failed allocation,
 * or one the mix dropped.
 */
static void count_admitted(struct stress_thread *t, int e)
{
	t->mix_ran[e]++;
	t->mix_total++;
}

/* ------------------------------------------------------------------------
 * Chunks, the pool and the inbox
 * ---------------------------------------------------------------------- */

static int new_chunk(struct stress_thread *t)
{
	uint8_t buf[STRESS_CHUNK_BYTES];

	for (size_t i = 0; i < sizeof(buf); i += 8) {
		uint64_t r = mm_splitmix64(&t->rng);
		memcpy(buf + i, &r, 8);
	}
	t->prog.nr_ops = t->prog.nr_allocs = 0;
	if (mm_decode_ops(buf, sizeof(buf), &t->prog))
		return -1;
	/* Each alloc takes one byte at least: the handles always fit. */
	for (unsigned int i = 0; i < t->prog.nr_allocs && i < STRESS_MAX_HANDLES; i++)
		t->chunk[i].pfn = -1;
	t->next_op = 0;
	t->next_alloc = 0;
	return 0;
}

/* Releases pool[i] locally or to another CPU, by the mix. Returns 0 if it left the pool. */
static int release_pooled(struct stress_thread *t, unsigned int i)
{
	struct stress_block b = t->pool[i];
	int e = admit(t, MM_OP_FREE, true);
	struct mm_op op = {.kind = MM_OP_FREE, .cpu = (uint16_t)t->cpu, .free.handle = b.owner};

	/* They go to kswapd's LRU while it has room (--hold). */
	if (stress_lru_add(t->run, &b))
		e = -1;
	else if (e < 0 ? free_block(t, &b) : t->run->mix[e].run(t, &op, &b))
		return 1;
	if (e >= 0)
		count_admitted(t, e);
	t->pool_pages -= UINT64_C(1) << b.order;
	t->pool[i] = t->pool[--t->nr_pool];
	return 0;
}

/*
 * Ends a chunk: its live blocks join the pool, then random pool blocks are
 * released until the pool is within its block and page bounds. Returns
 * false while a release is skipped (the CPU went offline): the next chunk
 * waits, so the pool never overflows.
 */
static bool end_chunk(struct stress_thread *t)
{
	struct stress_run *run = t->run;
	uint64_t budget = run->managed_pages / (3 * (uint64_t)run->nr_workers);

	for (unsigned int i = 0; i < t->prog.nr_allocs && i < STRESS_MAX_HANDLES; i++) {
		if (t->chunk[i].pfn < 0)
			continue;
		t->pool[t->nr_pool++] = t->chunk[i];
		t->pool_pages += UINT64_C(1) << t->chunk[i].order;
		t->chunk[i].pfn = -1;
	}
	t->prog.nr_allocs = 0;
	while (t->nr_pool && (t->nr_pool > STRESS_POOL_MAX || t->pool_pages > budget))
		if (release_pooled(t, below(t, t->nr_pool)))
			return false;
	return true;
}

/* Frees what other CPUs handed over, newest first; stops at a skip (CPU offline). */
static void drain_inbox(struct stress_thread *t)
{
	struct stress_block b;
	unsigned int i;

	for (;;) {
		pthread_mutex_lock(&t->inbox_lock);
		if (!t->nr_inbox) {
			atomic_store_explicit(&t->inbox_hint, 0, memory_order_relaxed);
			pthread_mutex_unlock(&t->inbox_lock);
			return;
		}
		i = t->nr_inbox - 1;
		b = t->inbox[i];
		pthread_mutex_unlock(&t->inbox_lock);
		if (free_block(t, &b))
			return;
		own_inc(&t->remote_freed);
		/* Senders only append, and only this thread removes: slot i still holds b. */
		pthread_mutex_lock(&t->inbox_lock);
		t->inbox[i] = t->inbox[--t->nr_inbox];
		pthread_mutex_unlock(&t->inbox_lock);
	}
}

/* Runs the chunk's next decoded op, if the mix admits it. */
static void step(struct stress_thread *t)
{
	struct mm_op op = t->prog.ops[t->next_op++];
	struct stress_block *b = NULL, gone = {.pfn = -1};
	int e;

	if (op.kind == MM_OP_ALLOC) {
		uint32_t handle = t->next_alloc++;
		if (handle >= STRESS_MAX_HANDLES)
			return;
		b = &t->chunk[handle];
		b->owner = handle;
	} else if (op.kind == MM_OP_FREE) {
		b = op.free.handle < STRESS_MAX_HANDLES ? &t->chunk[op.free.handle] : &gone;
	}
	e = admit(t, op.kind, false);
	if (e < 0)
		return;
	count_admitted(t, e);
	/* The thread runs as its CPU, whatever CPU the decoder drew. */
	op.cpu = (uint16_t)t->cpu;
	if (op.kind == MM_OP_FREE) {
		if (b->pfn < 0)
			return; /* its allocation failed or was dropped */
		if (!t->run->mix[e].run(t, &op, b))
			b->pfn = -1;
		return;
	}
	t->run->mix[e].run(t, &op, b);
}

/* ------------------------------------------------------------------------
 * Quiesce points and the thread bodies
 * ---------------------------------------------------------------------- */

/* Waits at the quiesce barrier until the monitor has run its checks. */
static void park(struct stress_thread *t)
{
	struct stress_run *run = t->run;

	pthread_mutex_lock(&run->q_lock);
	/* The request may have ended (the run stopped) since the flag was read. */
	if (atomic_load_explicit(&run->q_req, memory_order_relaxed)) {
		unsigned int gen = run->q_gen;
		atomic_store_explicit(&t->state, ST_PARKED, memory_order_relaxed);
		run->q_parked++;
		pthread_cond_signal(&run->q_parked_cond);
		while (gen == run->q_gen)
			pthread_cond_wait(&run->q_resume, &run->q_lock);
	}
	atomic_store_explicit(&t->state, ST_RUNNING, memory_order_relaxed);
	pthread_mutex_unlock(&run->q_lock);
}

static void leave(struct stress_thread *t)
{
	struct stress_run *run = t->run;

	pthread_mutex_lock(&run->q_lock);
	run->q_active--;
	atomic_store_explicit(&t->state, ST_DONE, memory_order_relaxed);
	pthread_cond_signal(&run->q_parked_cond);
	pthread_mutex_unlock(&run->q_lock);
}

static bool stopping(const struct stress_run *run)
{
	return atomic_load_explicit(&run->stop, memory_order_acquire);
}

static bool quiesce_requested(const struct stress_run *run)
{
	return atomic_load_explicit(&run->q_req, memory_order_acquire);
}

static void enter(struct stress_thread *t)
{
	struct stress_run *run = t->run;

	if (run->o.pin)
		stress_host_pin(run->host, t->idx, t->service ? -1 : t->cpu, t->node);
	pthread_barrier_wait(&run->start);
	atomic_store_explicit(&t->state, ST_RUNNING, memory_order_relaxed);
}

/* The test hook behind --test-stall: worker 0 stops making progress, without parking. */
static void stall(struct stress_thread *t)
{
	while (!stopping(t->run))
		pause_us(10000);
}

void *stress_worker_main(void *arg)
{
	struct stress_thread *t = arg;
	struct stress_run *run = t->run;
	bool chunk_done = true;

	mm_set_current_cpu(t->cpu);
	enter(t);
	while (!stopping(run)) {
		if (quiesce_requested(run)) {
			park(t);
			continue;
		}
		if (run->o.test_stall > 0 && t->idx == 0 &&
		    cli_now() - run->t0 >= run->o.test_stall) {
			stall(t);
			break;
		}
		if (!mm_cpu_is_online(run->sim, t->cpu)) {
			/* An offline CPU runs nothing: wait for the hotplug thread. */
			atomic_store_explicit(&t->state, ST_OFFLINE, memory_order_relaxed);
			own_inc(&t->offline_waits);
			while (!mm_cpu_is_online(run->sim, t->cpu) && !stopping(run) &&
			       !quiesce_requested(run))
				pause_us(50);
			atomic_store_explicit(&t->state, ST_RUNNING, memory_order_relaxed);
			continue;
		}
		if (atomic_load_explicit(&t->inbox_hint, memory_order_relaxed))
			drain_inbox(t);
		if (t->next_op < t->prog.nr_ops) {
			step(t);
			continue;
		}
		if (!chunk_done && !(chunk_done = end_chunk(t)))
			continue;
		if (new_chunk(t)) {
			fprintf(stderr, "mmfuzz: stress: out of memory decoding ops\n");
			atomic_store_explicit(&run->stop, true, memory_order_release);
			break;
		}
		chunk_done = false;
	}
	leave(t);
	return NULL;
}

/* A service thread runs one step each time the ops reach its share of all ops. */
void *stress_service_main(void *arg)
{
	struct stress_thread *t = arg;
	struct stress_run *run = t->run;
	unsigned int e = (unsigned int)(t->service - run->mix);
	unsigned long long steps = 0;

	enter(t);
	while (!stopping(run)) {
		if (quiesce_requested(run)) {
			park(t);
			continue;
		}
		unsigned long long due =
			stress_total_ops(run) * run->o.weights[e] / run->total_weight;
		/* A burst at most per wake-up: a slow wake must not become a storm. */
		for (unsigned int i = 0; steps < due && i < 64 && !quiesce_requested(run); i++) {
			stress_service_step_begin(t);
			t->service->run(t, NULL, NULL);
			stress_service_step_end(t);
			steps++;
			t->mix_ran[e]++;
		}
		pause_us(200);
	}
	leave(t);
	return NULL;
}

/* ------------------------------------------------------------------------
 * Setting up, counting what is held, and the final free
 * ---------------------------------------------------------------------- */

static struct stress_thread *thread_new(struct stress_run *run, unsigned int idx, int cpu, int node,
					const struct stress_mix_entry *service)
{
	bool placed;
	struct stress_thread *t = stress_host_alloc(run->host, node, sizeof(*t), &placed);
	uint64_t s = run->o.seed ^ (UINT64_C(0x9e3779b97f4a7c15) * (idx + 1));

	if (!t)
		return NULL;
	t->placed = placed;
	t->run = run;
	t->idx = idx;
	t->cpu = cpu;
	t->node = node;
	t->service = service;
	t->rng = mm_splitmix64(&s);
	mm_prog_init(&t->prog);
	t->prog.cfg = run->cfg;
	pthread_mutex_init(&t->inbox_lock, NULL);
	pthread_mutex_init(&t->cpu_lock, NULL);
	for (unsigned int i = 0; i < STRESS_MAX_HANDLES; i++)
		t->chunk[i].pfn = -1;
	t->svc_zone = service && service->run == run_deferred_init ? 0 : -1;
	return t;
}

int stress_threads_create(struct stress_run *run, char *err, size_t errlen)
{
	unsigned int cpu = 0;

	for (unsigned int n = 0; n < run->cfg.nr_nodes; n++) {
		for (unsigned int i = 0; i < run->cfg.cpus_per_node[n]; i++, cpu++) {
			run->t[cpu] = thread_new(run, cpu, (int)cpu, (int)n, NULL);
			if (!run->t[cpu])
				goto nomem;
			run->nr_threads++;
		}
	}
	run->nr_workers = cpu;
	for (unsigned int e = 0; e < run->mix_len; e++) {
		if (run->mix[e].kind != MIX_SERVICE || !run->o.weights[e])
			continue;
		unsigned int idx = run->nr_threads;
		run->t[idx] = thread_new(run, idx, 0, 0, &run->mix[e]);
		if (!run->t[idx])
			goto nomem;
		run->nr_threads++;
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory for the threads' state");
	return -1;
}

void stress_threads_destroy(struct stress_run *run)
{
	for (unsigned int i = 0; i < run->nr_threads; i++) {
		struct stress_thread *t = run->t[i];
		mm_prog_free(&t->prog);
		pthread_mutex_destroy(&t->inbox_lock);
		pthread_mutex_destroy(&t->cpu_lock);
		stress_host_free(t, sizeof(*t), t->placed);
		run->t[i] = NULL;
	}
	run->nr_threads = run->nr_workers = 0;
}

static void add_held(struct stress_run *run, const struct stress_block *b, uint64_t *held)
{
	for (unsigned int z = 0; z < run->nr_zones; z++) {
		if ((uint64_t)b->pfn >= run->zones[z].start &&
		    (uint64_t)b->pfn < run->zones[z].end) {
			held[z] += UINT64_C(1) << b->order;
			return;
		}
	}
}

void stress_held_pages(struct stress_run *run, uint64_t *held)
{
	memset(held, 0, run->nr_zones * sizeof(*held));
	for (unsigned int i = 0; i < run->nr_workers; i++) {
		struct stress_thread *t = run->t[i];
		for (unsigned int k = 0; k < STRESS_MAX_HANDLES; k++)
			if (t->chunk[k].pfn >= 0)
				add_held(run, &t->chunk[k], held);
		for (unsigned int k = 0; k < t->nr_pool; k++)
			add_held(run, &t->pool[k], held);
		pthread_mutex_lock(&t->inbox_lock);
		for (unsigned int k = 0; k < t->nr_inbox; k++)
			add_held(run, &t->inbox[k], held);
		pthread_mutex_unlock(&t->inbox_lock);
	}
	stress_lru_for_each(run, add_held, held);
}

/* Every CPU online and every pcp list enabled, then each held block freed as its CPU. */
void stress_free_all(struct stress_run *run)
{
	for (unsigned int cpu = 0; cpu < run->nr_workers; cpu++)
		mm_cpu_online(run->sim, (int)cpu);
	mm_set_current_cpu(0);
	for (unsigned int z = 0; z < run->nr_zones; z++)
		mm_zone_pcp_enable(run->sim, run->zones[z].node, run->zones[z].type);
	for (unsigned int i = 0; i < run->nr_workers; i++) {
		struct stress_thread *t = run->t[i];
		for (unsigned int k = 0; k < STRESS_MAX_HANDLES; k++)
			if (t->chunk[k].pfn >= 0 && !free_block(t, &t->chunk[k]))
				t->chunk[k].pfn = -1;
		while (t->nr_pool && !free_block(t, &t->pool[t->nr_pool - 1]))
			t->nr_pool--;
		while (t->nr_inbox && !free_block(t, &t->inbox[t->nr_inbox - 1]))
			t->nr_inbox--;
		t->pool_pages = 0;
	}
	stress_lru_free_all(run);
}

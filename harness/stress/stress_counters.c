/* SPDX-License-Identifier: MIT */
/*
 * stress_counters.c - the counter ops under threads: percpu_counter adds,
 * compares and syncs on c0..c15, mmap/brk/munmap/fork/exit on the shared
 * mms (vm_committed_as and the rss counters), and a service thread that
 * switches vm.overcommit_memory. Each worker runs them as its own CPU.
 *
 * The ground truth lives here, beside the model, never in it:
 *   - an atomic ledger per counter c0..c15 of every amount added or set;
 *   - per mm what the calls did to it (mapped pages per rss type, pages
 *     charged), from their outcomes and the kernel's rules for munmap and
 *     fork, under a lock per mm (the ops of one mm are serial in the
 *     kernel too: mmap_lock), and the committed total over all of them.
 * Per op, as the CPU that ran it (only that CPU writes its local):
 *   INV-PCPU-DRIFT  the CPU's local after an add is below the batch the
 *                   kernel's rule gives for that add (a sync leaves 0);
 *   INV-COMMIT-DRIFT after a switch to OVERCOMMIT_NEVER, every CPU's local
 *                   of vm_committed_as is below the NEVER batch.
 * At quiesce points and at the end (every thread parked):
 *   INV-PCPU-SUM    each counter's exact sum equals its ledger;
 *   INV-COMMIT-SUM  vm_committed_as's sum equals the charges of the live mms;
 *   INV-RSS-SUM     each mm is live exactly when its ledger says so, and
 *                   each rss counter's sum equals its mapped pages.
 * The batch rules are recomputed here: max(32, 2 x online CPUs) for
 * percpu_counter_batch (compute_batch_value), and mm_compute_batch()'s
 * max(32, 2 x present CPUs, totalram / present / (NEVER ? 256 : 4)).
 */
#include "stress.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one mm should hold, from the calls' outcomes. */
struct stress_mm {
	pthread_mutex_t lock;
	bool live;
	long long mapped[NR_MM_COUNTERS];
	long long committed;
};

struct stress_counters {
	atomic_llong pcpu[MM_MAX_PCPU_COUNTERS]; /* every amount added, or the value set */
	atomic_llong committed;			 /* the live mms' charges */
	struct stress_mm mm[MM_MAX_MMS];
	atomic_int policy;	/* vm.overcommit_memory as the service last set it */
	atomic_uint policy_seq; /* odd while the service switches it */
	uint64_t rng;		/* the monitor's, for percpu_counter_set at quiesce points */
};

int stress_counters_init(struct stress_run *run)
{
	struct stress_counters *c = calloc(1, sizeof(*c));

	if (!c)
		return -1;
	for (unsigned int m = 0; m < MM_MAX_MMS; m++)
		pthread_mutex_init(&c->mm[m].lock, NULL);
	atomic_init(&c->policy, MM_OVERCOMMIT_GUESS);
	c->rng = run->o.seed ^ UINT64_C(0x636f756e74657273);
	run->counters = c;
	return 0;
}

void stress_counters_destroy(struct stress_run *run)
{
	struct stress_counters *c = run->counters;

	if (!c)
		return;
	for (unsigned int m = 0; m < MM_MAX_MMS; m++)
		pthread_mutex_destroy(&c->mm[m].lock);
	free(c);
	run->counters = NULL;
}

/* Reports a violation the harness found, from any thread. */
static void report(struct stress_run *run, const char *id, int cpu, long long expected,
		   long long actual, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void report(struct stress_run *run, const char *id, int cpu, long long expected,
		   long long actual, const char *fmt, ...)
{
	struct mm_violation v = {.id = id,
				 .node = -1,
				 .zone = -1,
				 .cpu = cpu,
				 .pfn = -1,
				 .expected = expected,
				 .actual = actual};
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v.detail, sizeof(v.detail), fmt, ap);
	va_end(ap);
	stress_report(run, &v);
}

/* ------------------------------------------------------------------------
 * The batch rules, recomputed
 * ---------------------------------------------------------------------- */

/* compute_batch_value(): the default batch with nr CPUs online */
static long long rule_pcpu_batch(unsigned int nr)
{
	return 2LL * nr > 32 ? 2LL * nr : 32;
}

/* mm_compute_batch(): vm_committed_as's batch under policy, nr = present CPUs */
static long long rule_commit_batch(const struct stress_run *run, int policy)
{
	unsigned long long nr = run->nr_workers ? run->nr_workers : 1;
	unsigned long long batch = 2 * nr > 32 ? 2 * nr : 32;
	unsigned long long memsized =
		run->managed_pages / nr / (policy == MM_OVERCOMMIT_NEVER ? 256 : 4);

	if (memsized > INT_MAX)
		memsized = INT_MAX;
	return (long long)(memsized > batch ? memsized : batch);
}

/* A seqcount's value while stable (even); its readers retry nothing: they widen. */
static unsigned int seq_read(atomic_uint *s)
{
	return atomic_load_explicit(s, memory_order_acquire);
}

/*
 * The default batch an op between seq0 and now added with: the rule for
 * the CPUs online, or, when a hotplug op ran meanwhile, for all of them
 * (the batch only grows with the CPU count).
 */
static long long default_batch_since(struct stress_run *run, unsigned int seq0)
{
	unsigned int seq1 = seq_read(&run->hotplug_seq);

	if ((seq0 & 1) || seq0 != seq1)
		return rule_pcpu_batch(run->nr_workers);
	return rule_pcpu_batch(mm_num_online_cpus(run->sim));
}

/* The commit batch since pseq0: the policy's, or the largest when a switch ran meanwhile. */
static long long commit_batch_since(struct stress_run *run, unsigned int pseq0, int policy)
{
	struct stress_counters *c = run->counters;

	if ((pseq0 & 1) || pseq0 != seq_read(&c->policy_seq))
		return rule_commit_batch(run, MM_OVERCOMMIT_GUESS);
	return rule_commit_batch(run, policy);
}

/* INV-PCPU-DRIFT for this CPU's local right after its own add with batch. */
static void check_local(struct stress_thread *t, const char *what, int idx, long long local,
			long long batch)
{
	long long mag = local < 0 ? -local : local;

	if (mag > batch - 1)
		report(t->run, "INV-PCPU-DRIFT", t->cpu, batch - 1, local,
		       "%s%d: cpu%d's local after its add is %lld, the batch is %lld", what, idx,
		       t->cpu, local, batch);
}

/* ------------------------------------------------------------------------
 * The ops' counters c0..c15
 * ---------------------------------------------------------------------- */

/*
 * The decoder draws amounts and page counts uniformly over 16 bits: every
 * add would fold and every mmap map hundreds of MB. Seven in eight are
 * reshaped to what a machine does (a few pages faulted in, counters
 * stepped by small amounts), so locals build up below the batch and
 * spread over the CPUs; the eighth keeps the decoder's value.
 */
static bool keep_raw(struct stress_thread *t)
{
	return !(mm_splitmix64(&t->rng) % 8);
}

static unsigned int small(struct stress_thread *t, unsigned int n)
{
	return (unsigned int)(mm_splitmix64(&t->rng) % n);
}

int stress_run_pcpu_add(struct stress_thread *t, struct mm_op *op, struct stress_block *b)
{
	struct stress_run *run = t->run;
	unsigned int c = op->counter.counter, seq0 = seq_read(&run->hotplug_seq);
	long long batch;

	(void)b;
	if (!keep_raw(t))
		op->counter.value = (int32_t)small(t, 17) - 8;
	if (!stress_apply(t, op))
		return 1;
	if (c >= MM_MAX_PCPU_COUNTERS)
		return 0;
	atomic_fetch_add_explicit(&run->counters->pcpu[c], op->counter.value, memory_order_relaxed);
	batch = op->counter.batch ? op->counter.batch : default_batch_since(run, seq0);
	check_local(t, "c", (int)c, mm_pcpu_local(run->sim, c, t->cpu), batch);
	return 0;
}

/*
 * No check of its answer: while other CPUs add there is no exact total to
 * compare with (INV-PCPU-COMPARE is a serial check). An rhs near the
 * counter makes it take __percpu_counter_sum() under fbc->lock, racing
 * the adds and the hotplug folds.
 */
int stress_run_pcpu_compare(struct stress_thread *t, struct mm_op *op, struct stress_block *b)
{
	(void)b;
	if (!keep_raw(t))
		op->counter.value = (int32_t)small(t, 129) - 64;
	return stress_apply(t, op) ? 0 : 1;
}

/* percpu_counter_sync() folds this CPU's local: nothing else adds to it meanwhile. */
int stress_run_pcpu_sync(struct stress_thread *t, struct mm_op *op, struct stress_block *b)
{
	unsigned int c = op->counter.counter;

	(void)b;
	if (!stress_apply(t, op))
		return 1;
	if (c < MM_MAX_PCPU_COUNTERS)
		check_local(t, "c", (int)c, mm_pcpu_local(t->run->sim, c, t->cpu), 1);
	return 0;
}

/* ------------------------------------------------------------------------
 * The mms: mmap, brk, munmap, fork, exit
 * ---------------------------------------------------------------------- */

static void charge(struct stress_counters *c, struct stress_mm *m, long long pages)
{
	m->committed += pages;
	atomic_fetch_add_explicit(&c->committed, pages, memory_order_relaxed);
}

/* What the op did, by the kernel's rules, given that it ran (the model did not skip it). */
static void account(struct stress_counters *c, const struct mm_op *op)
{
	struct stress_mm *m = &c->mm[op->mm.mm];
	long long pages = op->mm.pages;

	switch (op->kind) {
	case MM_OP_MMAP:
	case MM_OP_BRK:
		/* a refused charge maps nothing */
		if (!mm_vm_enough_last()) {
			charge(c, m, pages);
			m->mapped[op->kind == MM_OP_BRK ? MM_ANONPAGES : op->mm.type] += pages;
		}
		break;
	case MM_OP_MUNMAP: {
		/* unmaps what is mapped of the type; gives back what is charged */
		long long *mapped = &m->mapped[op->mm.type];
		long long n = pages < *mapped ? pages : *mapped;
		*mapped -= n;
		charge(c, m, -(n < m->committed ? n : m->committed));
		break;
	}
	case MM_OP_EXIT:
		charge(c, m, -m->committed);
		memset(m->mapped, 0, sizeof(m->mapped));
		m->live = false;
		break;
	default:
		break;
	}
}

/*
 * fork: the child is live when it returned one (an injected failure or a
 * refused charge of the parent's pages leaves none); it then holds what
 * the parent held.
 */
static void account_fork(struct stress_run *run, const struct mm_op *op)
{
	struct stress_counters *c = run->counters;
	struct stress_mm *child = &c->mm[op->mm.mm];
	int parent = (int)op->mm.parent - 1;

	if (!mm_mm_live(run->sim, op->mm.mm))
		return;
	child->live = true;
	if (parent < 0 || !c->mm[parent].live)
		return;
	memcpy(child->mapped, c->mm[parent].mapped, sizeof(child->mapped));
	charge(c, child, c->mm[parent].committed);
}

/*
 * vm_committed_as's local on this CPU, and the rss counters the op added
 * to (mapped moved: before holds the mm's mapped pages before it), below
 * their batches. A local the op did not add to may be from an add with
 * more CPUs online; vm_committed_as's batch does not follow hotplug.
 */
static void check_mm_locals(struct stress_thread *t, const struct mm_op *op,
			    const long long *before, unsigned int seq0, unsigned int pseq0,
			    int policy)
{
	struct stress_run *run = t->run;
	const struct stress_mm *m = &run->counters->mm[op->mm.mm];
	long long rss_batch = default_batch_since(run, seq0);

	check_local(t, "vm_committed_as", 0, mm_vm_committed_local(run->sim, t->cpu),
		    commit_batch_since(run, pseq0, policy));
	for (int type = 0; m->live && type < NR_MM_COUNTERS; type++)
		if (m->mapped[type] != before[type])
			check_local(t, mm_rss_type_name(type), op->mm.mm,
				    mm_rss_local(run->sim, op->mm.mm, type, t->cpu), rss_batch);
}

int stress_run_mm_op(struct stress_thread *t, struct mm_op *op, struct stress_block *b)
{
	struct stress_run *run = t->run;
	struct stress_counters *c = run->counters;
	int idx = op->mm.mm, parent = op->kind == MM_OP_FORK ? (int)op->mm.parent - 1 : -1;
	int lo = parent >= 0 && parent < idx ? parent : idx, hi = lo == idx ? parent : idx;
	unsigned int seq0 = seq_read(&run->hotplug_seq), pseq0 = seq_read(&c->policy_seq);
	int policy = atomic_load_explicit(&c->policy, memory_order_acquire);
	int ret = 1;

	(void)b;
	if (idx >= MM_MAX_MMS || parent >= MM_MAX_MMS)
		return 1;
	if (!keep_raw(t))
		op->mm.pages = (uint16_t)(1 + small(t, 64));
	pthread_mutex_lock(&c->mm[lo].lock);
	if (hi >= 0 && hi != lo)
		pthread_mutex_lock(&c->mm[hi].lock);
	long long before[NR_MM_COUNTERS];
	memcpy(before, c->mm[idx].mapped, sizeof(before));
	if (stress_apply(t, op)) {
		if (op->kind == MM_OP_FORK)
			account_fork(run, op);
		else
			account(c, op);
		check_mm_locals(t, op, before, seq0, pseq0, policy);
		ret = 0;
	}
	if (hi >= 0 && hi != lo)
		pthread_mutex_unlock(&c->mm[hi].lock);
	pthread_mutex_unlock(&c->mm[lo].lock);
	return ret;
}

/* ------------------------------------------------------------------------
 * The overcommit service
 * ---------------------------------------------------------------------- */

/*
 * INV-COMMIT-DRIFT: once the switch to NEVER returns, the sync has folded
 * every CPU's local and every add since used the NEVER batch, whatever
 * the other CPUs do meanwhile (each add runs under its CPU's cpu_lock,
 * which the sync takes in turn).
 */
static void check_never_locals(struct stress_thread *t)
{
	struct stress_run *run = t->run;
	long long bound = rule_commit_batch(run, MM_OVERCOMMIT_NEVER) - 1;

	for (unsigned int cpu = 0; cpu < run->nr_workers; cpu++) {
		long long l = mm_vm_committed_local(run->sim, (int)cpu);
		if ((l < 0 ? -l : l) > bound)
			report(run, "INV-COMMIT-DRIFT", (int)cpu, bound, l,
			       "after the switch to OVERCOMMIT_NEVER cpu%u's local of "
			       "vm_committed_as is %lld, the NEVER batch is %lld",
			       cpu, l, bound + 1);
	}
}

/* Switches vm.overcommit_memory to a random policy, as a random online CPU. */
int stress_run_overcommit(struct stress_thread *t, struct mm_op *unused, struct stress_block *b)
{
	struct stress_counters *c = t->run->counters;
	struct mm_op op = {.kind = MM_OP_SET_OVERCOMMIT};
	int cpu = stress_pick_online_cpu(t), policy = (int)(mm_splitmix64(&t->rng) % 3);
	uint64_t seq;

	(void)unused;
	(void)b;
	if (cpu < 0)
		return 1;
	op.cpu = (uint16_t)cpu;
	op.sysctl.value = (uint32_t)policy;
	atomic_fetch_add_explicit(&c->policy_seq, 1, memory_order_acq_rel);
	seq = stress_apply(t, &op);
	if (seq)
		atomic_store_explicit(&c->policy, policy, memory_order_release);
	atomic_fetch_add_explicit(&c->policy_seq, 1, memory_order_acq_rel);
	if (seq && policy == MM_OVERCOMMIT_NEVER)
		check_never_locals(t);
	return seq ? 0 : 1;
}

/* ------------------------------------------------------------------------
 * Quiesce points and the end
 * ---------------------------------------------------------------------- */

static unsigned long check_sums(struct stress_run *run)
{
	struct stress_counters *c = run->counters;
	unsigned long bad = 0;
	long long want, have;

	for (unsigned int i = 0; i < MM_MAX_PCPU_COUNTERS; i++) {
		want = atomic_load_explicit(&c->pcpu[i], memory_order_relaxed);
		have = mm_pcpu_sum(run->sim, i);
		if (have == want)
			continue;
		report(run, "INV-PCPU-SUM", -1, want, have,
		       "c%u: the sum is not every amount the threads added or set", i);
		bad++;
	}
	want = atomic_load_explicit(&c->committed, memory_order_relaxed);
	have = mm_vm_committed_sum(run->sim);
	if (have != want) {
		report(run, "INV-COMMIT-SUM", -1, want, have,
		       "vm_committed_as's sum is not the pages the live mms were charged");
		bad++;
	}
	for (int m = 0; m < MM_MAX_MMS; m++) {
		struct stress_mm *sm = &c->mm[m];
		if (mm_mm_live(run->sim, m) != sm->live) {
			report(run, "INV-RSS-SUM", -1, sm->live, !sm->live,
			       "m%d is %slive, the forks and exits say it is %s", m,
			       sm->live ? "not " : "", sm->live ? "live" : "gone");
			bad++;
			continue;
		}
		for (int type = 0; sm->live && type < NR_MM_COUNTERS; type++) {
			have = mm_rss_sum(run->sim, m, type);
			if (have == sm->mapped[type])
				continue;
			report(run, "INV-RSS-SUM", -1, sm->mapped[type], have,
			       "m%d %s: the rss sum is not the pages mapped", m,
			       mm_rss_type_name(type));
			bad++;
		}
	}
	return bad;
}

/* A quiesce point's percpu_counter_set(): nobody adds meanwhile, as its callers ensure. */
static void set_one(struct stress_run *run)
{
	struct stress_counters *c = run->counters;
	uint64_t r = mm_splitmix64(&c->rng);
	struct mm_op op = {.kind = MM_OP_PCPU_SET, .cpu = 0};

	if (r % 4)
		return;
	op.counter.counter = (uint8_t)(r >> 8) % MM_MAX_PCPU_COUNTERS;
	op.counter.value = (int32_t)((r >> 16) % 2001) - 1000;
	if (mm_apply_op(run->sim, &op, NULL, 0, 0))
		return;
	atomic_store_explicit(&c->pcpu[op.counter.counter], op.counter.value, memory_order_relaxed);
}

/* Every live mm exits, as CPU 0: check_mm's sums, then no charge is left. */
static unsigned long exit_all(struct stress_run *run)
{
	struct stress_counters *c = run->counters;
	long long have;

	mm_set_current_cpu(0);
	for (int m = 0; m < MM_MAX_MMS; m++) {
		struct mm_op op = {.kind = MM_OP_EXIT, .cpu = 0, .mm.mm = (uint8_t)m};
		if (!c->mm[m].live || mm_apply_op(run->sim, &op, NULL, 0, 0))
			continue;
		account(c, &op);
	}
	have = mm_vm_committed_sum(run->sim);
	if (!have)
		return 0;
	report(run, "INV-COMMIT-SUM", -1, 0, have,
	       "every mm exited: vm_committed_as must be back to 0");
	return 1;
}

unsigned long stress_counters_check(struct stress_run *run, bool final)
{
	/* the model's own full check first: its shadows, the per-cpu ledger */
	unsigned long bad = mm_check_counters_full(run->sim) + check_sums(run);

	if (bad)
		return bad;
	if (final)
		return exit_all(run);
	set_one(run);
	return 0;
}

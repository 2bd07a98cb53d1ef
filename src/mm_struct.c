/* SPDX-License-Identifier: MIT */
/*
 * mm_struct.c - up to MM_MAX_MMS address spaces whose rss counters
 * (mm->rss_stat[NR_MM_COUNTERS]) are percpu_counters, as since
 * f1a7941243c1 (v6.2): fork allocates them (one init_many since 6.6, four
 * inits before: seed 004's unixbench spawn -19.2%), mmap/brk charge
 * vm_committed_as and fault pages in, munmap and exit give them back, and
 * __mmdrop's check_mm wants every counter's exact sum at zero ("BUG: Bad
 * rss-counter state"). Also the executor's entry for the counter ops.
 *
 * Under threads each op holds its mms' mm_lock (mmap_lock: fork holds the
 * child's and the parent's, in slot order) and then its CPU's cpu_lock, so
 * an mm's counters and page tables change one op at a time while
 * vm_committed_as and the percpu_counters list are shared by all CPUs.
 * The checks of one mm's counters hold under its lock; those of
 * vm_committed_as and of the per-cpu ledger need a quiescent machine and
 * run per op in serial runs only.
 */
#include "internal.h"

#include <errno.h>
#include <string.h>

static const char *const rss_names[NR_MM_COUNTERS] = {"file", "anon", "swap", "shmem"};

const char *mm_rss_type_name(int type)
{
	return type >= 0 && type < NR_MM_COUNTERS ? rss_names[type] : "?";
}

static struct mm_struct *mm_slot(const struct mm_sim *sim, int idx)
{
	return idx >= 0 && idx < MM_MAX_MMS ? &sim->pcc->mm[idx] : NULL;
}

static struct mm_struct *live_mm(const struct mm_sim *sim, int idx)
{
	struct mm_struct *mm = mm_slot(sim, idx);

	return mm && mm->live ? mm : NULL;
}

bool mm_mm_live(const struct mm_sim *sim, int mm)
{
	return live_mm(sim, mm) != NULL;
}

/* the checker's ledger: the pages of a type the page tables map, whatever the counter says */
static void rss_ledger_add(struct mm_struct *mm, int type, long value)
{
	__atomic_fetch_add(&mm->rss_stat[type].truth, (int64_t)value, __ATOMIC_RELAXED);
}

/* models add_mm_counter(): the default batch; the checker's ledger moves with it */
static void add_mm_counter(struct mm_sim *sim, struct mm_struct *mm, int type, long value)
{
	rss_ledger_add(mm, type, value);
	percpu_counter_add(sim, &mm->rss_stat[type], value);
}

/*
 * models add_mm_rss_vec(): copy_pte_range() counts the pages it copies by
 * type and charges the child once per type. The variant's loop stops a
 * type short, so MM_SHMEMPAGES, the last, is mapped but never counted.
 */
static void add_mm_rss_vec(struct mm_sim *sim, struct mm_struct *mm, const unsigned long *rss)
{
	for (int i = 0; i < NR_MM_COUNTERS; i++) {
		if (!rss[i])
			continue;
		if (i == MM_SHMEMPAGES && sim->policy.rss_vec_skips_last)
			rss_ledger_add(mm, i, (long)rss[i]);
		else
			add_mm_counter(sim, mm, i, (long)rss[i]);
	}
}

long long mm_get_mm_counter(const struct mm_sim *sim, int idx, int type)
{
	struct mm_struct *mm = live_mm(sim, idx);

	if (!mm || type < 0 || type >= NR_MM_COUNTERS)
		return 0;
	return percpu_counter_read_positive(&mm->rss_stat[type]);
}

MM_NO_COVERAGE static unsigned long check_mm_counters(struct mm_sim *sim, struct mm_struct *mm,
						      int idx)
{
	unsigned long bad = 0;

	if (!_mm_pcpu_group_ok(sim, mm->rss_stat, NR_MM_COUNTERS))
		for (int i = 0; i < NR_MM_COUNTERS; i++)
			bad += _mm_pcpu_check_counter(sim, &mm->rss_stat[i], rss_names[i], idx);
	return bad;
}

/* ------------------------------------------------------------------------
 * fork: mm_init() and dup_mmap()
 * ---------------------------------------------------------------------- */

static int mm_init_rss(struct mm_sim *sim, struct mm_struct *mm)
{
	mm->rss_one_by_one = sim->policy.rss_counters_one_by_one;
	if (!mm->rss_one_by_one)
		return percpu_counter_init_many(sim, mm->rss_stat, 0, NR_MM_COUNTERS);
	/* before c439d5e8a0de: an allocation and a list insertion per counter */
	for (int i = 0; i < NR_MM_COUNTERS; i++) {
		if (percpu_counter_init(sim, &mm->rss_stat[i], 0)) {
			while (i > 0)
				percpu_counter_destroy(sim, &mm->rss_stat[--i]);
			return -ENOMEM;
		}
	}
	return 0;
}

static void mm_destroy_rss(struct mm_sim *sim, struct mm_struct *mm)
{
	if (!mm->rss_one_by_one) {
		percpu_counter_destroy_many(sim, mm->rss_stat, NR_MM_COUNTERS);
		return;
	}
	for (int i = 0; i < NR_MM_COUNTERS; i++)
		percpu_counter_destroy(sim, &mm->rss_stat[i]);
}

/*
 * models mm_init() (kernel/fork.c, 6.6+): mm_alloc_cid() then the rss
 * counters; a failure unwinds in reverse. The variant's error path takes
 * the label past mm_destroy_cid(): the cid's per-cpu area leaks.
 */
static int mm_init(struct mm_sim *sim, struct mm_struct *mm)
{
	mm->pcpu_cid = __alloc_percpu_gfp(sim, sizeof(int32_t));
	if (!mm->pcpu_cid)
		return -ENOMEM;
	if (mm_init_rss(sim, mm))
		goto fail_pcpu;
	return 0;
fail_pcpu:
	if (!sim->policy.rss_leak_on_fork_failure)
		free_percpu(sim, mm->pcpu_cid); /* mm_destroy_cid() */
	mm->pcpu_cid = NULL;
	return -ENOMEM;
}

/*
 * models check_mm(): every rss counter must sum to exactly zero. The
 * kernel sums (the locals of a dead mm are scattered over the CPUs its
 * threads ran on); reading fbc->count alone sees them as a false "Bad
 * rss-counter state". INV-RSS-BAD-STATE: a true bad state (the exact sum
 * is not zero). INV-RSS-CHECK-AGREES: the model's verdict is the truth's.
 */
static void check_mm(struct mm_sim *sim, struct mm_struct *mm, int idx)
{
	for (int i = 0; i < NR_MM_COUNTERS; i++) {
		struct percpu_counter *fbc = &mm->rss_stat[i];
		int64_t x = sim->policy.rss_check_uses_read ? percpu_counter_read(fbc)
							    : __percpu_counter_sum(sim, fbc);
		int64_t truth = READ_ONCE(fbc->truth);

		if (truth)
			mm_report_violation(
				sim, "INV-RSS-BAD-STATE", -1, -1, smp_processor_id(), -1, 0, truth,
				"BUG: Bad rss-counter state mm:m%d type:%s", idx, rss_names[i]);
		if ((x != 0) != (truth != 0))
			mm_report_violation(
				sim, "INV-RSS-CHECK-AGREES", -1, -1, smp_processor_id(), -1, truth,
				x,
				"check_mm of m%d %s: the model sees %lld, the exact sum "
				"is %lld",
				idx, rss_names[i], (long long)x, (long long)truth);
	}
}

/* models exit_mmap() then __mmdrop(): zap, unaccount, check_mm, free */
static void mmput(struct mm_sim *sim, struct mm_struct *mm, int idx)
{
	for (int i = 0; i < NR_MM_COUNTERS; i++) {
		if (mm->mapped[i])
			add_mm_counter(sim, mm, i, -(long)mm->mapped[i]);
		mm->mapped[i] = 0;
	}
	if (mm->committed)
		vm_unacct_memory(sim, (long)mm->committed);
	mm->committed = mm->total_vm = 0;
	check_mm(sim, mm, idx);
	mm_destroy_rss(sim, mm);
	free_percpu(sim, mm->pcpu_cid);
	mm->pcpu_cid = NULL;
	mm->live = false;
}

/* The ops' locks (see the top): slot a's mm_lock, then b's (-1: none), then the CPU's. */
static bool mm_op_lock(struct mm_sim *sim, int a, int b)
{
	struct pcpu_state *s = sim->pcc;
	int lo = b >= 0 && b < a ? b : a, hi = lo == a ? b : a;

	mutex_lock(&s->mm_lock[lo]);
	if (hi >= 0 && hi != lo)
		mutex_lock(&s->mm_lock[hi]);
	if (pcpu_preempt_disable(sim))
		return true;
	if (hi >= 0 && hi != lo)
		mutex_unlock(&s->mm_lock[hi]);
	mutex_unlock(&s->mm_lock[lo]);
	return false;
}

static void mm_op_unlock(struct mm_sim *sim, int a, int b)
{
	struct pcpu_state *s = sim->pcc;

	pcpu_preempt_enable(sim);
	if (b >= 0 && b != a)
		mutex_unlock(&s->mm_lock[b]);
	mutex_unlock(&s->mm_lock[a]);
}

/* The per-op checks of what every CPU shares: serial runs only (see the top). */
static void check_shared(struct mm_sim *sim)
{
	if (!sim->serial)
		return;
	_mm_committed_check(sim);
	_mm_mm_check_ledger(sim);
}

/*
 * models copy_mm() -> dup_mm(): mm_init(), then dup_mmap() charges the
 * parent's accountable mappings and copies its page tables (the child's
 * rss). A dup_mmap failure frees the half-built mm through mmput().
 */
static int fork_locked(struct mm_sim *sim, int child, int parent, unsigned int fail)
{
	struct pcpu_state *s = sim->pcc;
	struct mm_struct *mm = mm_slot(sim, child), *p;

	if (mm->live)
		return 1;
	p = live_mm(sim, parent);
	pcc_stat(s, forks, 1);
	memset(mm, 0, sizeof(*mm));
	_mm_pcpu_in_fork = true;
	_mm_pcpu_fail_countdown = fail <= MM_FORK_FAIL_ALLOC5 ? fail : 0;
	if (mm_init(sim, mm)) {
		_mm_pcpu_fail_countdown = 0;
		pcc_stat(s, forks_failed, 1);
		goto out;
	}
	_mm_pcpu_fail_countdown = 0;
	mm->live = true;
	if (fail == MM_FORK_FAIL_DUP_MMAP)
		goto free_pt;
	if (p) {
		if (p->committed && __vm_enough_memory(sim, p->total_vm, (long)p->committed, false))
			goto free_pt;
		mm->total_vm = p->total_vm;
		mm->committed = p->committed;
		memcpy(mm->mapped, p->mapped, sizeof(mm->mapped));
		add_mm_rss_vec(sim, mm, mm->mapped);
	}
	check_mm_counters(sim, mm, child);
	goto out;
free_pt:
	pcc_stat(s, forks_failed, 1);
	mmput(sim, mm, child);
out:
	_mm_pcpu_in_fork = false;
	return 0;
}

int mm_fork(struct mm_sim *sim, int child, int parent, unsigned int fail)
{
	int ret;

	if (child < 0 || child >= MM_MAX_MMS || parent < -1 || parent >= MM_MAX_MMS ||
	    fail > MM_FORK_FAIL_MAX)
		return 1;
	if (!mm_op_lock(sim, child, parent))
		return 1;
	ret = fork_locked(sim, child, parent, fail);
	mm_op_unlock(sim, child, parent);
	if (!ret)
		check_shared(sim);
	return ret;
}

int mm_exit(struct mm_sim *sim, int idx)
{
	struct mm_struct *mm = mm_slot(sim, idx);

	if (!mm || !mm_op_lock(sim, idx, -1))
		return 1;
	if (!mm->live) {
		mm_op_unlock(sim, idx, -1);
		return 1;
	}
	pcc_stat(sim->pcc, exits, 1);
	mmput(sim, mm, idx);
	mm_op_unlock(sim, idx, -1);
	check_shared(sim);
	return 0;
}

/* ------------------------------------------------------------------------
 * mmap, brk, munmap
 * ---------------------------------------------------------------------- */

static int mmap_locked(struct mm_sim *sim, int idx, unsigned long pages, int type,
		       unsigned int flags)
{
	struct mm_struct *mm = live_mm(sim, idx);

	if (!mm)
		return 1;
	if (flags & MM_MMAP_BRK)
		type = MM_ANONPAGES;
	if (!__vm_enough_memory(sim, mm->total_vm, (long)pages, flags & MM_MMAP_ADMIN)) {
		mm->total_vm += pages;
		mm->committed += pages;
		/* the pages fault in on this CPU */
		mm->mapped[type] += pages;
		add_mm_counter(sim, mm, type, (long)pages);
	}
	check_mm_counters(sim, mm, idx);
	return 0;
}

/* A refused charge (-ENOMEM) is not a skip: the op ran, the kernel said no. */
int mm_mmap(struct mm_sim *sim, int idx, unsigned long pages, int type, unsigned int flags)
{
	int ret;

	if (idx < 0 || idx >= MM_MAX_MMS || type < 0 || type >= NR_MM_COUNTERS ||
	    !mm_op_lock(sim, idx, -1))
		return 1;
	ret = mmap_locked(sim, idx, pages, type, flags);
	mm_op_unlock(sim, idx, -1);
	if (!ret && sim->serial)
		_mm_committed_check(sim);
	return ret;
}

static int munmap_locked(struct mm_sim *sim, int idx, unsigned long pages, int type)
{
	struct mm_struct *mm = live_mm(sim, idx);
	unsigned long n, u;

	if (!mm)
		return 1;
	n = pages < mm->mapped[type] ? pages : mm->mapped[type];
	u = n < mm->committed ? n : mm->committed;
	mm->mapped[type] -= n;
	if (n)
		add_mm_counter(sim, mm, type, -(long)n);
	mm->committed -= u;
	if (u)
		vm_unacct_memory(sim, (long)u);
	mm->total_vm -= n < mm->total_vm ? n : mm->total_vm;
	check_mm_counters(sim, mm, idx);
	return 0;
}

int mm_munmap(struct mm_sim *sim, int idx, unsigned long pages, int type)
{
	int ret;

	if (idx < 0 || idx >= MM_MAX_MMS || type < 0 || type >= NR_MM_COUNTERS ||
	    !mm_op_lock(sim, idx, -1))
		return 1;
	ret = munmap_locked(sim, idx, pages, type);
	mm_op_unlock(sim, idx, -1);
	if (!ret && sim->serial)
		_mm_committed_check(sim);
	return ret;
}

/* Under the mm's lock: its rss counter's exact sum, and one CPU's local of it. */
long long mm_rss_sum(struct mm_sim *sim, int idx, int type)
{
	struct mm_struct *mm = mm_slot(sim, idx);
	long long sum = 0;

	if (!mm || type < 0 || type >= NR_MM_COUNTERS)
		return 0;
	mutex_lock(&sim->pcc->mm_lock[idx]);
	if (mm->live)
		sum = __percpu_counter_sum(sim, &mm->rss_stat[type]);
	mutex_unlock(&sim->pcc->mm_lock[idx]);
	return sum;
}

long long mm_rss_local(struct mm_sim *sim, int idx, int type, int cpu)
{
	struct mm_struct *mm = mm_slot(sim, idx);
	long long l = 0;

	if (!mm || type < 0 || type >= NR_MM_COUNTERS || cpu < 0 ||
	    (unsigned int)cpu >= sim->nr_cpus)
		return 0;
	mutex_lock(&sim->pcc->mm_lock[idx]);
	if (mm->live)
		l = READ_ONCE(mm->rss_stat[type].counters[(size_t)cpu * mm->rss_stat[type].stride]);
	mutex_unlock(&sim->pcc->mm_lock[idx]);
	return l;
}

/* ------------------------------------------------------------------------
 * The ledger, the full check, teardown, stats and the ops
 * ---------------------------------------------------------------------- */

/*
 * INV-PCPU-LEAK: the per-cpu allocations alive are exactly those the live
 * objects own: the ops' counters, vm_committed_as, and per live mm its cid
 * and its rss counters (one allocation, or four one by one). A failed
 * init_many leaves nothing behind. INV-PCPU-LIST: every live counter is
 * listed once and nothing else is.
 */
unsigned long _mm_mm_check_ledger(struct mm_sim *sim)
{
	struct pcpu_state *s = sim->pcc;
	long want = 2;
	unsigned int listed, want_listed = MM_MAX_PCPU_COUNTERS + 1;
	unsigned long bad = 0;

	for (int i = 0; i < MM_MAX_MMS; i++) {
		if (!s->mm[i].live)
			continue;
		want += 1 + (s->mm[i].rss_one_by_one ? NR_MM_COUNTERS : 1);
		want_listed += NR_MM_COUNTERS;
	}
	if (s->pcpu_live != want) {
		mm_report_violation(sim, "INV-PCPU-LEAK", -1, -1, smp_processor_id(), -1, want,
				    s->pcpu_live,
				    "per-cpu allocations alive: %ld, the live mms and counters "
				    "own %ld",
				    s->pcpu_live, want);
		bad++;
	}
	listed = mm_pcpu_counters_listed(sim);
	if (listed != want_listed) {
		mm_report_violation(
			sim, "INV-PCPU-LIST", -1, -1, smp_processor_id(), -1, want_listed, listed,
			"percpu_counters list holds %u counters, %u are live", listed, want_listed);
		bad++;
	}
	return bad;
}

MM_NO_COVERAGE unsigned long _mm_counters_check_full(struct mm_sim *sim)
{
	struct pcpu_state *s = sim->pcc;
	unsigned long bad = 0;

	/* Untouched since the reset, the counters are as the reset built them. */
	if (!s || !s->touched)
		return 0;
	if (!_mm_pcpu_group_ok(sim, s->ctr, MM_MAX_PCPU_COUNTERS))
		for (int i = 0; i < MM_MAX_PCPU_COUNTERS; i++)
			bad += _mm_pcpu_check_counter(sim, &s->ctr[i], "c", i);
	for (int m = 0; m < MM_MAX_MMS; m++)
		if (s->mm[m].live)
			bad += check_mm_counters(sim, &s->mm[m], m);
	bad += _mm_committed_check(sim);
	bad += _mm_mm_check_ledger(sim);
	return bad;
}

unsigned long mm_check_counters_full(struct mm_sim *sim)
{
	return _mm_counters_check_full(sim);
}

/* The per-input reset: frees the last machine's mms, quietly (no checks). */
void _mm_mm_teardown_all(struct mm_sim *sim)
{
	struct pcpu_state *s = sim->pcc;

	for (int i = 0; i < MM_MAX_MMS; i++) {
		struct mm_struct *mm = &s->mm[i];

		if (!mm->live)
			continue;
		mm_destroy_rss(sim, mm);
		free_percpu(sim, mm->pcpu_cid);
		mm->pcpu_cid = NULL;
		mm->live = false;
	}
}

void mm_sim_counter_stats(const struct mm_sim *sim, struct mm_counter_stats *out)
{
	const struct pcpu_state *s = sim->pcc;

	memset(out, 0, sizeof(*out));
	if (!s)
		return;
#define GET(f) out->f = atomic_load_explicit(&s->f, memory_order_relaxed)
	GET(pcpu_adds);
	GET(pcpu_folds);
	GET(pcpu_sums);
	GET(pcpu_sum_cpus_read);
	GET(committed_adds);
	GET(committed_folds);
	GET(vm_enough_refused);
	GET(pcpu_allocs);
	GET(pcpu_frees);
	GET(list_lock_acquisitions);
	GET(forks);
	GET(forks_failed);
	GET(exits);
	GET(fork_pcpu_allocs);
	GET(fork_list_locks);
#undef GET
}

/* The counter ops' machine, marked touched: its full checks have counters to scan. */
static struct mm_sim *touch(struct mm_op_ctx *ctx)
{
	if (!READ_ONCE(ctx->sim->pcc->touched))
		WRITE_ONCE(ctx->sim->pcc->touched, true);
	return ctx->sim;
}

int _mm_op_pcpu_add(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	return mm_pcpu_add(touch(ctx), op->counter.counter, op->counter.value, op->counter.batch);
}

int _mm_op_pcpu_compare(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	mm_pcpu_compare(touch(ctx), op->counter.counter, op->counter.value, op->counter.batch);
	return 0;
}

int _mm_op_pcpu_set(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	mm_pcpu_set(touch(ctx), op->counter.counter, op->counter.value);
	return 0;
}

int _mm_op_pcpu_sync(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	return mm_pcpu_sync(touch(ctx), op->counter.counter);
}

int _mm_op_mmap(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	return mm_mmap(touch(ctx), op->mm.mm, op->mm.pages, op->mm.type,
		       op->mm.admin ? MM_MMAP_ADMIN : 0);
}

int _mm_op_brk(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	return mm_mmap(touch(ctx), op->mm.mm, op->mm.pages, MM_ANONPAGES,
		       MM_MMAP_BRK | (op->mm.admin ? MM_MMAP_ADMIN : 0));
}

int _mm_op_munmap(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	return mm_munmap(touch(ctx), op->mm.mm, op->mm.pages, op->mm.type);
}

int _mm_op_fork(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	return mm_fork(touch(ctx), op->mm.mm, (int)op->mm.parent - 1, op->mm.fail);
}

int _mm_op_exit(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	return mm_exit(touch(ctx), op->mm.mm);
}

int _mm_op_set_overcommit(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	return mm_set_overcommit_memory(touch(ctx), (int)op->sysctl.value) ? 1 : 0;
}

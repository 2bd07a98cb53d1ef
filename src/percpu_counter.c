/* SPDX-License-Identifier: MIT */
/*
 * percpu_counter.c - models lib/percpu_counter.c (6.6+, with init_many):
 * a global count under a lock plus a small signed local per CPU, folded
 * into the count when |local| reaches the batch. Reads are cheap and
 * approximate; sums are exact, take the lock and read every online CPU's
 * local. Every counter sits on one global list so that a dead CPU's locals
 * can be folded (percpu_counter_cpu_dead). Seeds 003 and 004 are about the
 * cost and the accuracy of this trade; the invariants are at the end.
 *
 * Locals are written only as their own CPU (smp_processor_id()) and read by
 * sums and the dead-CPU fold without synchronisation, as in the kernel:
 * READ_ONCE/WRITE_ONCE keep that an intended race under ThreadSanitizer.
 * Under threads (mmfuzz stress) an op runs holding its CPU's cpu_lock
 * (pcpu_preempt_disable) so that no fold of that CPU's locals by hotplug
 * or the overcommit switch races its adds; the per-op checks that read
 * other CPUs' locals or the exact total run in serial runs only, and the
 * full checks at quiesce points.
 */
#include "internal.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * The global list and the per-cpu allocator
 * ---------------------------------------------------------------------- */

static void INIT_LIST_HEAD(struct list_head *h)
{
	h->next = h->prev = h;
}

static void list_add(struct list_head *n, struct list_head *head)
{
	n->next = head->next;
	n->prev = head;
	head->next->prev = n;
	head->next = n;
}

static void list_del(struct list_head *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = NULL;
}

_Thread_local unsigned int _mm_pcpu_fail_countdown;
_Thread_local bool _mm_pcpu_in_fork;

/* The calling CPU's cpu_lock, held while it is online (struct pcpu_state). */
bool pcpu_preempt_disable(struct mm_sim *sim)
{
	int cpu = smp_processor_id();

	if (cpu < 0 || (unsigned int)cpu >= sim->nr_cpus)
		return false;
	spin_lock(&sim->pcc->cpu_lock[cpu]);
	if (cpu_online(sim, (unsigned int)cpu))
		return true;
	/* An offline CPU runs nothing: its task is elsewhere. */
	spin_unlock(&sim->pcc->cpu_lock[cpu]);
	return false;
}

void pcpu_preempt_enable(struct mm_sim *sim)
{
	spin_unlock(&sim->pcc->cpu_lock[smp_processor_id()]);
}

#define fbc_of(pos) ((struct percpu_counter *)((char *)(pos)-offsetof(struct percpu_counter, list)))

static void percpu_counters_lock(struct pcpu_state *s)
{
	spin_lock(&s->percpu_counters_lock);
	pcc_stat(s, list_lock_acquisitions, 1);
	if (_mm_pcpu_in_fork)
		pcc_stat(s, fork_list_locks, 1);
}

/*
 * models __alloc_percpu_gfp(): size bytes for each possible CPU, zeroed,
 * CPU c's area at c * size. One allocation however many counters it holds;
 * a fork's injected failure makes the Nth one return NULL.
 */
/* A per-cpu area: its capacity in bytes just before the CPUs' slots. */
struct pcpu_area {
	size_t cap;
	_Alignas(16) unsigned char data[];
};

void *__alloc_percpu_gfp(struct mm_sim *sim, size_t size)
{
	struct pcpu_state *s = sim->pcc;
	size_t bytes = sim->nr_cpus * size;
	struct pcpu_area *a = NULL;

	if (_mm_pcpu_fail_countdown && --_mm_pcpu_fail_countdown == 0)
		return NULL;
	spin_lock(&s->pcpu_alloc_lock);
	/* Any cached area large enough: machines of every CPU count share them. */
	for (int i = 0; i < PCPU_CACHE_SLOTS && !a; i++) {
		if (s->pcpu_cache[i] && s->pcpu_cache_size[i] >= bytes) {
			a = s->pcpu_cache[i];
			s->pcpu_cache[i] = NULL;
			mm_unpoison(a->data, bytes); /* the rest stays poisoned */
			memset(a->data, 0, bytes);
		}
	}
	if (!a) {
		a = calloc(1, sizeof(*a) + bytes);
		if (!a) {
			spin_unlock(&s->pcpu_alloc_lock);
			return NULL;
		}
		a->cap = bytes;
	}
	s->pcpu_live++;
	spin_unlock(&s->pcpu_alloc_lock);
	pcc_stat(s, pcpu_allocs, 1);
	if (_mm_pcpu_in_fork)
		pcc_stat(s, fork_pcpu_allocs, 1);
	return a->data;
}

void free_percpu(struct mm_sim *sim, void *p)
{
	struct pcpu_state *s = sim->pcc;
	struct pcpu_area *a;
	int slot = 0;

	if (!p)
		return;
	a = (struct pcpu_area *)((unsigned char *)p - offsetof(struct pcpu_area, data));
	spin_lock(&s->pcpu_alloc_lock);
	/* An empty slot, else the smallest area if this one is larger. */
	for (int i = 0; i < PCPU_CACHE_SLOTS; i++) {
		if (!s->pcpu_cache[i]) {
			slot = i;
			break;
		}
		if (s->pcpu_cache_size[i] < s->pcpu_cache_size[slot])
			slot = i;
	}
	if (!s->pcpu_cache[slot] || s->pcpu_cache_size[slot] < a->cap) {
		struct pcpu_area *old = s->pcpu_cache[slot];
		s->pcpu_cache[slot] = a;
		s->pcpu_cache_size[slot] = a->cap;
		mm_poison(a->data, a->cap);
		a = old;
	}
	s->pcpu_live--;
	spin_unlock(&s->pcpu_alloc_lock);
	free(a);
	pcc_stat(s, pcpu_frees, 1);
}

static unsigned int this_cpu(const struct mm_sim *sim)
{
	unsigned int cpu = (unsigned int)smp_processor_id();

	return cpu < sim->nr_cpus ? cpu : 0;
}

MM_SCAN_INLINE static inline int32_t *per_cpu_local(const struct percpu_counter *fbc,
						    unsigned int cpu)
{
	return &fbc->counters[(size_t)cpu * fbc->stride];
}

MM_SCAN_INLINE static inline int32_t *per_cpu_maxb(const struct percpu_counter *fbc,
						   unsigned int cpu)
{
	return &fbc->maxb[(size_t)cpu * fbc->stride];
}

/* The most a local may hold in magnitude: the largest batch since its last fold, less one. */
MM_SCAN_INLINE static inline int64_t maxb_bound(int32_t maxb)
{
	return maxb > 0 ? (int64_t)maxb - 1 : 0;
}

/*
 * INV-PCPU-SUM-EXACT: __percpu_counter_sum() returns exactly the checker's
 * ledger (fbc->truth: every amount added since the last init or set), the
 * one read the kernel promises exact (serial runs). Unlike INV-PCPU-SUM, which adds the
 * locals up again itself, this judges the value the sum's callers get
 * (compare, check_mm, the ops). O(1): the sum has already been paid.
 */
static void pcpu_check_sum_exact(struct mm_sim *sim, struct percpu_counter *fbc, int64_t sum)
{
	int64_t truth = READ_ONCE(fbc->truth);

	/* Threads add between the sum and the ledger's read: only a serial run is exact. */
	if (sum != truth && sim->serial)
		mm_report_violation(sim, "INV-PCPU-SUM-EXACT", -1, -1, smp_processor_id(), -1,
				    truth, sum,
				    "__percpu_counter_sum() returned %lld, the exact total is %lld",
				    (long long)sum, (long long)truth);
}

/*
 * INV-PCPU-SYNC: after percpu_counter_sync() the syncing CPU's local is 0
 * and count moved by what the local held (the ledger is unchanged, so
 * INV-PCPU-SUM checks the count): the sync folded, as the kernel's does.
 */
void _mm_pcpu_check_synced(struct mm_sim *sim, const struct percpu_counter *fbc, unsigned int cpu,
			   int64_t count_before, int32_t local_before, const char *what, int idx)
{
	int32_t local = READ_ONCE(*per_cpu_local(fbc, cpu));
	int64_t count = READ_ONCE(fbc->count);

	/* Other CPUs' folds move count too: only a serial run pins it. */
	if ((local != 0 || count != count_before + local_before) && sim->serial)
		mm_report_violation(sim, "INV-PCPU-SYNC", -1, -1, (int)cpu, -1,
				    count_before + local_before, count,
				    "%s%d: after sync cpu%u's local is %d (want 0), count %lld "
				    "(want %lld + %d)",
				    what, idx, cpu, local, (long long)count,
				    (long long)count_before, local_before);
}

/* ------------------------------------------------------------------------
 * init and destroy
 * ---------------------------------------------------------------------- */

/*
 * models __percpu_counter_init_many() (c439d5e8a0de): one per-cpu
 * allocation for all nr_counters and one locked list insertion for all of
 * them; on failure fbc[0].counters = NULL, nothing allocated, nothing
 * listed. Each CPU's area holds the nr_counters locals and then the
 * checker's maxb shadow of each (so the shadow costs no allocation).
 */
int percpu_counter_init_many(struct mm_sim *sim, struct percpu_counter *fbc, int64_t amount,
			     unsigned int nr_counters)
{
	struct pcpu_state *s = sim->pcc;
	int32_t *counters;

	counters = __alloc_percpu_gfp(sim, 2 * nr_counters * sizeof(*counters));
	if (!counters) {
		fbc[0].counters = NULL;
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < nr_counters; i++) {
		spin_lock_init(&fbc[i].lock);
		fbc[i].count = amount;
		fbc[i].counters = counters + i;
		fbc[i].maxb = counters + nr_counters + i;
		fbc[i].stride = 2 * nr_counters;
		fbc[i].truth = amount;
	}
	percpu_counters_lock(s);
	for (unsigned int i = 0; i < nr_counters; i++)
		list_add(&fbc[i].list, &s->percpu_counters);
	spin_unlock(&s->percpu_counters_lock);
	return 0;
}

/* models percpu_counter_destroy_many(): unlisted under one lock, freed once. */
void percpu_counter_destroy_many(struct mm_sim *sim, struct percpu_counter *fbc,
				 unsigned int nr_counters)
{
	struct pcpu_state *s = sim->pcc;

	if (!fbc[0].counters)
		return;
	percpu_counters_lock(s);
	for (unsigned int i = 0; i < nr_counters; i++)
		list_del(&fbc[i].list);
	spin_unlock(&s->percpu_counters_lock);
	free_percpu(sim, fbc[0].counters);
	for (unsigned int i = 0; i < nr_counters; i++) {
		spin_lock_destroy(&fbc[i].lock);
		fbc[i].counters = NULL;
		fbc[i].maxb = NULL;
	}
}

/* ------------------------------------------------------------------------
 * add, read, sum, compare, set, sync
 * ---------------------------------------------------------------------- */

/*
 * models percpu_counter_add_batch(): the local absorbs the amount unless
 * |local + amount| reaches the batch (>=, where vmstat uses >): then all of
 * it goes to fbc->count under the lock and the local is zero. So a local
 * never holds more than batch - 1 in magnitude.
 */
bool percpu_counter_add_batch(struct mm_sim *sim, struct percpu_counter *fbc, int64_t amount,
			      int32_t batch)
{
	unsigned int cpu = this_cpu(sim);
	int32_t *pcount = per_cpu_local(fbc, cpu), *pmaxb = per_cpu_maxb(fbc, cpu);
	int64_t count = READ_ONCE(*pcount) + amount;

	pcc_stat(sim->pcc, pcpu_adds, 1);
	if (count >= batch || -count >= batch) {
		spin_lock(&fbc->lock);
		WRITE_ONCE(fbc->count, fbc->count + count);
		WRITE_ONCE(*pcount, 0);
		WRITE_ONCE(*pmaxb, 0);
		spin_unlock(&fbc->lock);
		pcc_stat(sim->pcc, pcpu_folds, 1);
		return true;
	}
	WRITE_ONCE(*pcount, (int32_t)count);
	if (READ_ONCE(*pmaxb) < batch)
		WRITE_ONCE(*pmaxb, batch);
	return false;
}

/* models percpu_counter_add(): the default batch */
void percpu_counter_add(struct mm_sim *sim, struct percpu_counter *fbc, int64_t amount)
{
	percpu_counter_add_batch(sim, fbc, amount, READ_ONCE(sim->pcc->percpu_counter_batch));
}

/* for_each_cpu_or(cpu_online_mask, cpu_dying_mask): the CPUs whose locals count */
MM_SCAN_INLINE static inline bool cpu_summed(const struct mm_sim *sim, unsigned int cpu)
{
	return cpu_online(sim, cpu) ||
	       atomic_load_explicit(&sim->pcc->cpu_dying[cpu], memory_order_acquire);
}

/* The online (and dying) CPUs' locals, summed; *nr_read: how many were read. */
MM_SCAN static int64_t online_locals_sum(const struct mm_sim *sim, const struct percpu_counter *fbc,
					 unsigned long long *nr_read)
{
	int64_t sum = 0;

	for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++) {
		if (!cpu_summed(sim, cpu))
			continue;
		sum += READ_ONCE(*per_cpu_local(fbc, cpu));
		(*nr_read)++;
	}
	return sum;
}

/*
 * models __percpu_counter_sum(): count plus the locals of the online and
 * the dying CPUs (for_each_cpu_or, 8b57b11cca88), under the lock, with no
 * fold. A CPU going offline is dying until percpu_counter_cpu_dead() has
 * folded its locals: a sum racing the offline counts them once, before or
 * after the fold.
 */
int64_t __percpu_counter_sum(struct mm_sim *sim, struct percpu_counter *fbc)
{
	unsigned long long nr_read = 0;
	int64_t ret;

	spin_lock(&fbc->lock);
	ret = fbc->count + online_locals_sum(sim, fbc, &nr_read);
	spin_unlock(&fbc->lock);
	pcc_stat(sim->pcc, pcpu_sums, 1);
	pcc_stat(sim->pcc, pcpu_sum_cpus_read, nr_read);
	pcpu_check_sum_exact(sim, fbc, ret);
	return ret;
}

/*
 * models __percpu_counter_compare(): the approximate count answers when it
 * is further than batch * num_online_cpus() from rhs, the sum otherwise.
 */
int __percpu_counter_compare(struct mm_sim *sim, struct percpu_counter *fbc, int64_t rhs,
			     int32_t batch)
{
	int64_t count = percpu_counter_read(fbc);
	int64_t d = count - rhs;

	if ((d < 0 ? -d : d) > (int64_t)batch * mm_num_online_cpus(sim))
		return count > rhs ? 1 : -1;
	count = __percpu_counter_sum(sim, fbc);
	return count > rhs ? 1 : count < rhs ? -1 : 0;
}

MM_SCAN static void zero_locals(const struct mm_sim *sim, struct percpu_counter *fbc)
{
	for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++) {
		WRITE_ONCE(*per_cpu_local(fbc, cpu), 0);
		WRITE_ONCE(*per_cpu_maxb(fbc, cpu), 0);
	}
}

/* models percpu_counter_set(): every possible CPU's local is zeroed */
void percpu_counter_set(struct mm_sim *sim, struct percpu_counter *fbc, int64_t amount)
{
	spin_lock(&fbc->lock);
	if (!sim->policy.pcpu_set_keeps_locals)
		zero_locals(sim, fbc);
	WRITE_ONCE(fbc->count, amount);
	spin_unlock(&fbc->lock);
}

/* Moves cpu's local into the count, under the counter's lock. */
static void fold_cpu(struct percpu_counter *fbc, unsigned int cpu)
{
	int32_t *pcount = per_cpu_local(fbc, cpu);

	spin_lock(&fbc->lock);
	WRITE_ONCE(fbc->count, fbc->count + READ_ONCE(*pcount));
	WRITE_ONCE(*pcount, 0);
	WRITE_ONCE(*per_cpu_maxb(fbc, cpu), 0);
	spin_unlock(&fbc->lock);
}

/* models percpu_counter_sync() (0a4954a850b0): folds the local CPU only */
void percpu_counter_sync(struct mm_sim *sim, struct percpu_counter *fbc)
{
	fold_cpu(fbc, this_cpu(sim));
}

/* ------------------------------------------------------------------------
 * CPU hotplug
 * ---------------------------------------------------------------------- */

/* models compute_batch_value(): max(32, 2 * num_online_cpus()) */
static void compute_batch_value(struct mm_sim *sim)
{
	int nr = (int)mm_num_online_cpus(sim);

	WRITE_ONCE(sim->pcc->percpu_counter_batch, 2 * nr > 32 ? 2 * nr : 32);
}

void percpu_counter_cpu_online(struct mm_sim *sim, unsigned int cpu)
{
	(void)cpu;
	compute_batch_value(sim);
}

/*
 * models percpu_counter_cpu_dead(): the dead CPU's local of every listed
 * counter goes into its count, or sums (online CPUs only) would lose it.
 * The CPU is marked offline first; its cpu_lock waits out an op that was
 * running on it, and no op starts on it after (stop_machine's guarantee).
 */
void percpu_counter_cpu_dead(struct mm_sim *sim, unsigned int cpu)
{
	struct pcpu_state *s = sim->pcc;

	compute_batch_value(sim);
	spin_lock(&s->cpu_lock[cpu]);
	percpu_counters_lock(s);
	for (struct list_head *pos = s->percpu_counters.next; pos != &s->percpu_counters;
	     pos = pos->next)
		fold_cpu(fbc_of(pos), cpu);
	spin_unlock(&s->percpu_counters_lock);
	atomic_store_explicit(&s->cpu_dying[cpu], false, memory_order_release);
	spin_unlock(&s->cpu_lock[cpu]);
}

void percpu_counter_cpu_dying(struct mm_sim *sim, unsigned int cpu)
{
	atomic_store_explicit(&sim->pcc->cpu_dying[cpu], true, memory_order_release);
}

/* ------------------------------------------------------------------------
 * The ops' counters c0..c15 (public API); the ground truth moves first
 * ---------------------------------------------------------------------- */

static struct percpu_counter *op_counter(const struct mm_sim *sim, unsigned int idx)
{
	return idx < MM_MAX_PCPU_COUNTERS ? &sim->pcc->ctr[idx] : NULL;
}

int mm_pcpu_add(struct mm_sim *sim, unsigned int idx, long long amount, int batch)
{
	struct percpu_counter *fbc = op_counter(sim, idx);

	if (!fbc || !pcpu_preempt_disable(sim))
		return 1;
	__atomic_fetch_add(&fbc->truth, amount, __ATOMIC_RELAXED);
	if (batch > 0)
		percpu_counter_add_batch(sim, fbc, amount, batch);
	else
		percpu_counter_add(sim, fbc, amount);
	pcpu_preempt_enable(sim);
	if (sim->serial)
		_mm_pcpu_check_counter(sim, fbc, "c", (int)idx);
	return 0;
}

long long mm_pcpu_local(const struct mm_sim *sim, unsigned int idx, int cpu)
{
	const struct percpu_counter *fbc = op_counter(sim, idx);

	if (!fbc || cpu < 0 || (unsigned int)cpu >= sim->nr_cpus)
		return 0;
	return READ_ONCE(*per_cpu_local(fbc, (unsigned int)cpu));
}

long long mm_pcpu_read(const struct mm_sim *sim, unsigned int idx)
{
	const struct percpu_counter *fbc = op_counter(sim, idx);

	return fbc ? percpu_counter_read(fbc) : 0;
}

long long mm_pcpu_sum(struct mm_sim *sim, unsigned int idx)
{
	struct percpu_counter *fbc = op_counter(sim, idx);

	return fbc ? __percpu_counter_sum(sim, fbc) : 0;
}

/* The drift the CPUs' locals may hold: Σ (largest batch since each fold - 1). */
MM_SCAN static int64_t maxb_drift_allowed(const struct mm_sim *sim,
					  const struct percpu_counter *fbc)
{
	int64_t allowed = 0;

	for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++)
		allowed += maxb_bound(READ_ONCE(*per_cpu_maxb(fbc, cpu)));
	return allowed;
}

/*
 * INV-PCPU-COMPARE: compare agrees with sign(exact - rhs) whenever the
 * kernel promises it: when batch * num_online_cpus() covers the drift the
 * adds since each CPU's last fold allow (sum of maxb - 1). A caller that
 * compares with a smaller batch than it adds with gets no promise.
 */
int mm_pcpu_compare(struct mm_sim *sim, unsigned int idx, long long rhs, int batch)
{
	struct percpu_counter *fbc = op_counter(sim, idx);
	int64_t allowed = 0, exact;
	int ret, want;

	if (!fbc || !pcpu_preempt_disable(sim))
		return 0;
	if (batch <= 0)
		batch = READ_ONCE(sim->pcc->percpu_counter_batch);
	ret = __percpu_counter_compare(sim, fbc, rhs, batch);
	pcpu_preempt_enable(sim);
	/* Other CPUs add meanwhile under threads: no exact total to compare with. */
	if (!sim->serial)
		return ret;

	spin_lock(&fbc->lock);
	allowed = maxb_drift_allowed(sim, fbc);
	exact = READ_ONCE(fbc->truth);
	spin_unlock(&fbc->lock);
	want = exact > rhs ? 1 : exact < rhs ? -1 : 0;
	if (ret != want && allowed <= (int64_t)batch * mm_num_online_cpus(sim))
		mm_report_violation(sim, "INV-PCPU-COMPARE", -1, -1, smp_processor_id(), -1, want,
				    ret,
				    "c%u: compare(rhs=%lld, batch=%d) = %d, exact %lld (read %lld, "
				    "drift allowed %lld)",
				    idx, rhs, batch, ret, (long long)exact,
				    (long long)percpu_counter_read(fbc), (long long)allowed);
	_mm_pcpu_check_counter(sim, fbc, "c", (int)idx);
	return ret;
}

/*
 * percpu_counter_set() zeroes every CPU's local: the kernel's callers set
 * a counter nobody adds to at the time, so stress sets only at quiesce
 * points (its row says MM_STRESS_QUIESCE).
 */
void mm_pcpu_set(struct mm_sim *sim, unsigned int idx, long long value)
{
	struct percpu_counter *fbc = op_counter(sim, idx);

	if (!fbc)
		return;
	__atomic_store_n(&fbc->truth, value, __ATOMIC_RELAXED);
	percpu_counter_set(sim, fbc, value);
	_mm_pcpu_check_counter(sim, fbc, "c", (int)idx);
}

int mm_pcpu_sync(struct mm_sim *sim, unsigned int idx)
{
	struct percpu_counter *fbc = op_counter(sim, idx);
	unsigned int cpu = this_cpu(sim);
	int64_t count_before;
	int32_t local_before;

	if (!fbc || !pcpu_preempt_disable(sim))
		return 1;
	/* the checker's before-image: what the sync must move */
	count_before = READ_ONCE(fbc->count);
	local_before = READ_ONCE(*per_cpu_local(fbc, cpu));
	percpu_counter_sync(sim, fbc);
	pcpu_preempt_enable(sim);
	_mm_pcpu_check_synced(sim, fbc, cpu, count_before, local_before, "c", (int)idx);
	if (sim->serial)
		_mm_pcpu_check_counter(sim, fbc, "c", (int)idx);
	return 0;
}

int mm_percpu_counter_batch(const struct mm_sim *sim)
{
	return READ_ONCE(sim->pcc->percpu_counter_batch);
}

long mm_pcpu_live_allocs(const struct mm_sim *sim)
{
	return sim->pcc->pcpu_live;
}

/* Bounded: a corrupt list must not hang the checker. */
unsigned int mm_pcpu_counters_listed(struct mm_sim *sim)
{
	struct pcpu_state *s = sim->pcc;
	unsigned int n = 0;

	spin_lock(&s->percpu_counters_lock);
	for (struct list_head *pos = s->percpu_counters.next;
	     pos && pos != &s->percpu_counters && n <= 4096; pos = pos->next)
		n++;
	spin_unlock(&s->percpu_counters_lock);
	return n;
}

/* ------------------------------------------------------------------------
 * Invariants
 * ---------------------------------------------------------------------- */

/*
 * INV-PCPU-DRIFT: each CPU's |local| <= (largest batch it added with since
 * its last fold) - 1, so |read - sum| <= the sum of those, which is
 * (batch - 1) * ncpus while the batch stays put. A batch change leaves the
 * old locals: the bound is the max batch since each CPU's fold, not the
 * batch in force (the policy switch to NEVER syncs for that reason; see
 * INV-COMMIT-DRIFT).
 * INV-PCPU-SUM: count + the online CPUs' locals (what sum sees) equals the
 * exact total of every amount added or set, and an offline CPU holds no
 * local: hotplug must not lose a fold.
 */
MM_SCAN unsigned long _mm_pcpu_check_counter(struct mm_sim *sim, struct percpu_counter *fbc,
					     const char *what, int idx)
{
	unsigned long bad = 0;
	int64_t online_sum, truth;

	if (!fbc->counters)
		return 0;
	spin_lock(&fbc->lock);
	online_sum = fbc->count;
	for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++) {
		int32_t l = READ_ONCE(*per_cpu_local(fbc, cpu));
		int32_t mb = READ_ONCE(*per_cpu_maxb(fbc, cpu));
		int64_t bound = maxb_bound(mb);
		int64_t mag = l < 0 ? -(int64_t)l : l;

		if (mag > bound) {
			mm_report_violation(sim, "INV-PCPU-DRIFT", -1, -1, (int)cpu, -1, bound, l,
					    "%s%d: |local| %d above the largest batch since its "
					    "last fold (%d) - 1",
					    what, idx, l, mb);
			bad++;
		}
		if (cpu_summed(sim, cpu))
			online_sum += l;
		else if (l) {
			mm_report_violation(sim, "INV-PCPU-SUM", -1, -1, (int)cpu, -1, 0, l,
					    "%s%d: offline cpu%u still holds a local of %d", what,
					    idx, cpu, l);
			bad++;
		}
	}
	truth = READ_ONCE(fbc->truth);
	spin_unlock(&fbc->lock);
	if (online_sum != truth) {
		mm_report_violation(sim, "INV-PCPU-SUM", -1, -1, -1, -1, truth, online_sum,
				    "%s%d: count + locals of the online CPUs != every amount "
				    "added",
				    what, idx);
		bad++;
	}
	return bad;
}

/*
 * The same invariants for the nr counters of one percpu_counter_init_many()
 * group at once, reporting nothing: true when all hold. Each CPU's area
 * holds the group's locals side by side and their maxb shadows after
 * them, so one pass over the areas, a short loop the compiler vectorises
 * per CPU, replaces a strided pass per counter (the ops' 16 counters, on
 * every CPU). Full checks and per-op checks run on a quiescent machine,
 * so the loads are plain. A group that fails, or is not laid out so, goes
 * to _mm_pcpu_check_counter(), which reports what failed, in its order.
 */
MM_SCAN bool _mm_pcpu_group_ok(struct mm_sim *sim, struct percpu_counter *fbc, unsigned int nr)
{
	const int32_t *area = fbc[0].counters;
	int64_t sum[MM_MAX_PCPU_COUNTERS];
	size_t stride = 2 * (size_t)nr;
	int bad = 0;

	if (!area)
		return true;
	if (nr > MM_MAX_PCPU_COUNTERS)
		return false;
	for (unsigned int i = 0; i < nr; i++)
		if (fbc[i].counters != area + i || fbc[i].maxb != area + nr + i ||
		    fbc[i].stride != stride)
			return false;
	for (unsigned int i = 0; i < nr; i++) {
		spin_lock(&fbc[i].lock);
		sum[i] = fbc[i].count;
	}
	for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++, area += stride) {
		const int32_t *local = area, *maxb = area + nr;
		int online = cpu_summed(sim, cpu);
		for (unsigned int i = 0; i < nr; i++) {
			int64_t mag = local[i] < 0 ? -(int64_t)local[i] : local[i];
			bad |= (mag > maxb_bound(maxb[i])) | (!online & (local[i] != 0));
			sum[i] += online ? local[i] : 0;
		}
	}
	for (unsigned int i = 0; i < nr; i++) {
		bad |= sum[i] != READ_ONCE(fbc[i].truth);
		spin_unlock(&fbc[i].lock);
	}
	return !bad;
}

/* ------------------------------------------------------------------------
 * The per-input reset
 * ---------------------------------------------------------------------- */

/* Frees what the last machine left: its mms, the ops' counters, vm_committed_as. */
static void pcpu_state_teardown(struct mm_sim *sim)
{
	struct pcpu_state *s = sim->pcc;

	_mm_mm_teardown_all(sim);
	percpu_counter_destroy_many(sim, s->ctr, MM_MAX_PCPU_COUNTERS);
	percpu_counter_destroy(sim, &s->vm_committed_as);
}

MM_NO_COVERAGE int _mm_pcpu_state_reset(struct mm_sim *sim)
{
	struct pcpu_state *s = sim->pcc;

	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -1;
		spin_lock_init(&s->percpu_counters_lock);
		spin_lock_init(&s->pcpu_alloc_lock);
		for (int c = 0; c < MM_MAX_CPUS; c++)
			spin_lock_init(&s->cpu_lock[c]);
		for (int m = 0; m < MM_MAX_MMS; m++)
			mutex_init(&s->mm_lock[m]);
		INIT_LIST_HEAD(&s->percpu_counters);
		sim->pcc = s;
	} else {
		pcpu_state_teardown(sim); /* each counter off the list: it is empty again */
	}
	s->pcpu_live = 0;
	_mm_pcpu_fail_countdown = 0;
	_mm_pcpu_in_fork = false;
	s->touched = false;
	memset(s->mm, 0, sizeof(s->mm));
	compute_batch_value(sim);
	if (percpu_counter_init_many(sim, s->ctr, 0, MM_MAX_PCPU_COUNTERS) ||
	    _mm_committed_init(sim))
		return -1;
	/* Boot's allocations are not the workload's: the figures start here. */
	atomic_ullong *first = &s->pcpu_adds, *last = &s->fork_list_locks;
	for (atomic_ullong *c = first; c <= last; c++)
		atomic_store_explicit(c, 0, memory_order_relaxed);
	sim->reset_bytes += sizeof(*s) + 2 * sim->nr_cpus * (MM_MAX_PCPU_COUNTERS + 1) * 4;
	return 0;
}

void _mm_pcpu_state_destroy(struct mm_sim *sim)
{
	if (!sim->pcc)
		return;
	pcpu_state_teardown(sim);
	for (int i = 0; i < PCPU_CACHE_SLOTS; i++)
		free(sim->pcc->pcpu_cache[i]);
	spin_lock_destroy(&sim->pcc->percpu_counters_lock);
	spin_lock_destroy(&sim->pcc->pcpu_alloc_lock);
	for (int c = 0; c < MM_MAX_CPUS; c++)
		spin_lock_destroy(&sim->pcc->cpu_lock[c]);
	for (int m = 0; m < MM_MAX_MMS; m++)
		mutex_destroy(&sim->pcc->mm_lock[m]);
	free(sim->pcc);
	sim->pcc = NULL;
}

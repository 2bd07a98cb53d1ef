/* SPDX-License-Identifier: MIT */
/*
 * committed.c - vm_committed_as, the percpu_counter of committed address
 * space (mm/util.c, mm/mm_init.c 5.9+): its batch per overcommit policy
 * (mm_compute_batch), vm_acct_memory/vm_unacct_memory,
 * __vm_enough_memory, and the vm.overcommit_memory switch. Seed 003: with
 * a batch of 2 * ncpus every large brk folded under the counter's lock.
 *
 * Model constants, fixed at boot from the machine's total managed pages
 * (totalram; the model has no swap and no hugetlb):
 *   commit limit   = totalram * overcommit_ratio (50) / 100
 *   admin reserve  = min(totalram / 32, 2048 pages = 8 MB)	(init_admin_reserve)
 *   user reserve   = min(totalram / 32, 32768 pages = 128 MB)	(init_user_reserve)
 * The kernel takes 1/32 of the free pages at boot; the model's boot frees
 * all of totalram.
 */
#include "internal.h"

#include <errno.h>
#include <limits.h>

#define OVERCOMMIT_RATIO 50

MM_NO_COVERAGE static unsigned long check_commit_drift(struct mm_sim *sim);

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

int mm_compute_batch_for(unsigned int nr_present_cpus, unsigned long ram_pages, int policy)
{
	unsigned long long nr = nr_present_cpus ? nr_present_cpus : 1;
	unsigned long long memsized, batch = 2 * nr > 32 ? 2 * nr : 32;

	memsized = ram_pages / nr / (policy == MM_OVERCOMMIT_NEVER ? 256 : 4);
	if (memsized > INT_MAX)
		memsized = INT_MAX;
	return (int)(memsized > batch ? memsized : batch);
}

/* models mm_compute_batch(): nr = num_present_cpus(), every CPU the machine has */
static void mm_compute_batch(struct mm_sim *sim, int policy)
{
	WRITE_ONCE(sim->pcc->vm_committed_as_batch,
		   sim->policy.mm_compute_batch(sim->nr_cpus, sim->pcc->totalram, policy));
}

/* The batch vm_committed_as adds with: pcpu-batch-2ncpu is Tim Chen's "before" (pre-3.11). */
static int committed_batch(const struct mm_sim *sim)
{
	if (sim->policy.pcpu_batch_2ncpu)
		return READ_ONCE(sim->pcc->percpu_counter_batch);
	return READ_ONCE(sim->pcc->vm_committed_as_batch);
}

int _mm_committed_init(struct mm_sim *sim)
{
	struct pcpu_state *s = sim->pcc;
	unsigned long ram = 0;

	for (unsigned int n = 0; n < sim->cfg.nr_nodes; n++)
		for (int zt = 0; zt < MAX_NR_ZONES; zt++)
			ram += (unsigned long)sim->cfg.zones[n][zt].managed;
	s->totalram = ram;
	s->admin_reserve = (unsigned long)min_int((int)(ram / 32), 2048);
	s->user_reserve = ram / 32 < 32768 ? ram / 32 : 32768;
	s->sysctl_overcommit_memory = MM_OVERCOMMIT_GUESS;
	s->never_bound = 0;
	mm_compute_batch(sim, MM_OVERCOMMIT_GUESS);
	return percpu_counter_init(sim, &s->vm_committed_as, 0);
}

/* The checker's never_bound only grows between switches: a max other CPUs race. */
static void never_bound_at_least(struct pcpu_state *s, int batch)
{
	int old = READ_ONCE(s->never_bound);

	while (batch > old && !__atomic_compare_exchange_n(&s->never_bound, &old, batch, false,
							   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

void vm_acct_memory(struct mm_sim *sim, long pages)
{
	struct pcpu_state *s = sim->pcc;
	int batch = committed_batch(sim);

	/* the checker's ledger first, then the kernel's counter */
	__atomic_fetch_add(&s->vm_committed_as.truth, (int64_t)pages, __ATOMIC_RELAXED);
	if (READ_ONCE(s->sysctl_overcommit_memory) == MM_OVERCOMMIT_NEVER)
		never_bound_at_least(s, batch);
	pcc_stat(s, committed_adds, 1);
	if (percpu_counter_add_batch(sim, &s->vm_committed_as, pages, batch))
		pcc_stat(s, committed_folds, 1);
}

void vm_unacct_memory(struct mm_sim *sim, long pages)
{
	vm_acct_memory(sim, -pages);
}

unsigned long mm_vm_commit_limit(const struct mm_sim *sim)
{
	return sim->pcc->totalram * OVERCOMMIT_RATIO / 100;
}

/*
 * INV-COMMIT-NEVER: an admission under NEVER means read_positive < allowed
 * with the committed batch in force, so the exact total may exceed
 * allowed - 1 by at most the locals: (never_bound - 1) per online CPU.
 */
MM_NO_COVERAGE static void check_never_admission(struct mm_sim *sim, long allowed, long pages)
{
	struct pcpu_state *s = sim->pcc;
	int64_t exact = READ_ONCE(s->vm_committed_as.truth);
	int64_t limit =
		allowed - 1 + (int64_t)(READ_ONCE(s->never_bound) - 1) * mm_num_online_cpus(sim);

	/* Under threads other CPUs' charges in flight count in exact too. */
	if (sim->serial && exact > limit)
		mm_report_violation(
			sim, "INV-COMMIT-NEVER", -1, -1, smp_processor_id(), -1, limit, exact,
			"OVERCOMMIT_NEVER admitted %ld pages: committed %lld > allowed "
			"%ld - 1 + (batch %d - 1) x %u online CPUs",
			pages, (long long)exact, allowed, s->never_bound, mm_num_online_cpus(sim));
}

/* This thread's last verdict, for the stress harness's ledger (mm_vm_enough_last). */
_Thread_local int _mm_vm_enough_last;

int mm_vm_enough_last(void)
{
	return _mm_vm_enough_last;
}

/*
 * models __vm_enough_memory(): account first; ALWAYS admits, GUESS refuses
 * only more than RAM + swap at once, NEVER admits while the approximate
 * total stays below the commit limit less the reserves. A refusal
 * unaccounts again.
 */
int __vm_enough_memory(struct mm_sim *sim, unsigned long total_vm, long pages, bool cap_sys_admin)
{
	struct pcpu_state *s = sim->pcc;
	int policy = READ_ONCE(s->sysctl_overcommit_memory);
	long allowed, reserve;

	_mm_vm_enough_last = 0;
	vm_acct_memory(sim, pages);
	if (policy == MM_OVERCOMMIT_ALWAYS)
		return 0;
	if (policy == MM_OVERCOMMIT_GUESS) {
		if (pages > (long)s->totalram)
			goto error;
		return 0;
	}
	allowed = (long)mm_vm_commit_limit(sim);
	if (!cap_sys_admin)
		allowed -= (long)s->admin_reserve;
	reserve = (long)s->user_reserve;
	allowed -= (long)(total_vm / 32) < reserve ? (long)(total_vm / 32) : reserve;
	if (percpu_counter_read_positive(&s->vm_committed_as) < allowed) {
		check_never_admission(sim, allowed, pages);
		return 0;
	}
error:
	vm_unacct_memory(sim, pages);
	pcc_stat(s, vm_enough_refused, 1);
	_mm_vm_enough_last = -ENOMEM;
	return -ENOMEM;
}

int mm_vm_enough_memory(struct mm_sim *sim, unsigned long total_vm, long pages, bool cap_sys_admin)
{
	int ret;

	if (!pcpu_preempt_disable(sim))
		return -ENOMEM;
	ret = __vm_enough_memory(sim, total_vm, pages, cap_sys_admin);
	pcpu_preempt_enable(sim);
	if (sim->serial)
		_mm_committed_check(sim);
	return ret;
}

/*
 * models overcommit_policy_handler() (5.9+): the new batch, then a sync on
 * every CPU (schedule_on_each_cpu) so no local holds more than the new,
 * smaller batch allows, and only then the policy. The variant publishes
 * NEVER first and never syncs: __vm_enough_memory then trusts a read that
 * the old batch's locals leave far below the exact total.
 */
int mm_set_overcommit_memory(struct mm_sim *sim, int policy)
{
	struct pcpu_state *s = sim->pcc;
	int cpu = smp_processor_id();

	if (policy < MM_OVERCOMMIT_GUESS || policy > MM_OVERCOMMIT_NEVER)
		return -1;
	mutex_lock(&sim->hotplug_lock);
	if (sim->policy.commit_switch_no_sync) {
		WRITE_ONCE(s->sysctl_overcommit_memory, policy);
		mm_compute_batch(sim, policy);
	} else {
		mm_compute_batch(sim, policy);
		if (policy == MM_OVERCOMMIT_NEVER) {
			/* schedule_on_each_cpu(): each sync runs as its CPU, between its ops */
			for (unsigned int c = 0; c < sim->nr_cpus; c++) {
				if (!mm_cpu_is_online(sim, (int)c))
					continue;
				mm_set_current_cpu((int)c);
				spin_lock(&s->cpu_lock[c]);
				percpu_counter_sync(sim, &s->vm_committed_as);
				spin_unlock(&s->cpu_lock[c]);
			}
			mm_set_current_cpu(cpu);
		}
		WRITE_ONCE(s->sysctl_overcommit_memory, policy);
	}
	/* the checker: what the kernel promises from here on, whatever the model did */
	if (policy == MM_OVERCOMMIT_NEVER)
		WRITE_ONCE(s->never_bound, mm_compute_batch_for(sim->nr_cpus, s->totalram, policy));
	mutex_unlock(&sim->hotplug_lock);
	/*
	 * Under threads only the drift holds while other CPUs add: every op
	 * runs under its CPU's cpu_lock, which the sync took in turn.
	 */
	if (sim->serial)
		_mm_committed_check(sim);
	else
		check_commit_drift(sim);
	return 0;
}

int mm_vm_committed_as_batch(const struct mm_sim *sim)
{
	return committed_batch(sim);
}

int mm_overcommit_policy(const struct mm_sim *sim)
{
	return READ_ONCE(sim->pcc->sysctl_overcommit_memory);
}

long long mm_vm_committed_read(const struct mm_sim *sim)
{
	return percpu_counter_read(&sim->pcc->vm_committed_as);
}

long long mm_vm_committed_sum(struct mm_sim *sim)
{
	return __percpu_counter_sum(sim, &sim->pcc->vm_committed_as);
}

long long mm_vm_committed_local(const struct mm_sim *sim, int cpu)
{
	const struct percpu_counter *fbc = &sim->pcc->vm_committed_as;

	if (cpu < 0 || (unsigned int)cpu >= sim->nr_cpus || !fbc->counters)
		return 0;
	return READ_ONCE(fbc->counters[(size_t)cpu * fbc->stride]);
}

/*
 * INV-COMMIT-DRIFT: under NEVER no CPU's local of vm_committed_as exceeds
 * the NEVER batch - 1 (or the largest batch added with since the switch):
 * what the switch's sync guarantees, and what __vm_enough_memory's read
 * relies on. _mm_committed_check() adds the counter's own INV-PCPU-SUM
 * and INV-PCPU-DRIFT.
 */
MM_NO_COVERAGE static unsigned long check_commit_drift(struct mm_sim *sim)
{
	struct pcpu_state *s = sim->pcc;
	struct percpu_counter *fbc = &s->vm_committed_as;
	int never_bound = READ_ONCE(s->never_bound);
	unsigned long bad = 0;

	if (!fbc->counters || READ_ONCE(s->sysctl_overcommit_memory) != MM_OVERCOMMIT_NEVER)
		return bad;
	for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++) {
		int32_t l = READ_ONCE(fbc->counters[(size_t)cpu * fbc->stride]);
		int64_t mag = l < 0 ? -(int64_t)l : l;

		if (mag > never_bound - 1) {
			mm_report_violation(sim, "INV-COMMIT-DRIFT", -1, -1, (int)cpu, -1,
					    never_bound - 1, l,
					    "OVERCOMMIT_NEVER: cpu%u's local of vm_committed_as is "
					    "%d, the NEVER batch is %d",
					    cpu, l, never_bound);
			bad++;
		}
	}
	return bad;
}

unsigned long _mm_committed_check(struct mm_sim *sim)
{
	unsigned long bad =
		_mm_pcpu_check_counter(sim, &sim->pcc->vm_committed_as, "vm_committed_as", 0);

	return bad + _mm_derived_check_counters(sim) + check_commit_drift(sim);
}

/* SPDX-License-Identifier: MIT */
/*
 * topology.c - nodes and simulated CPUs: cpu_to_node, hotplug, and the CPU
 * the calling thread runs as (thread-local, so the stress test can run one
 * thread per simulated CPU and the executor can switch per op).
 */
#include "internal.h"

_Thread_local int _mm_current_cpu;

void mm_set_current_cpu(int cpu)
{
	_mm_current_cpu = cpu;
}

int mm_current_cpu(void)
{
	return smp_processor_id();
}

MM_NO_COVERAGE void _mm_topology_init(struct mm_sim *sim)
{
	unsigned int cpu = 0;

	for (unsigned int n = 0; n < MM_MAX_NODES; n++) {
		unsigned int nr = n < sim->cfg.nr_nodes ? sim->cfg.cpus_per_node[n] : 0;
		for (unsigned int i = 0; i < nr; i++)
			sim->cpu_to_node[cpu++] = (int)n;
		atomic_store_explicit(&sim->node_nr_online[n], nr, memory_order_relaxed);
	}
	sim->nr_cpus = cpu;
	for (unsigned int c = 0; c < MM_MAX_CPUS; c++)
		atomic_store_explicit(&sim->cpu_online[c], c < cpu, memory_order_relaxed);
	atomic_store_explicit(&sim->nr_online, cpu, memory_order_relaxed);
}

unsigned int mm_nr_cpus(const struct mm_sim *sim)
{
	return sim->nr_cpus;
}

int mm_cpu_to_node(const struct mm_sim *sim, int cpu)
{
	return cpu >= 0 && (unsigned int)cpu < sim->nr_cpus ? sim->cpu_to_node[cpu] : -1;
}

bool mm_cpu_is_online(const struct mm_sim *sim, int cpu)
{
	return cpu >= 0 && (unsigned int)cpu < sim->nr_cpus &&
	       atomic_load_explicit(&sim->cpu_online[cpu], memory_order_acquire);
}

unsigned int mm_num_online_cpus(const struct mm_sim *sim)
{
	return atomic_load_explicit(&sim->nr_online, memory_order_acquire);
}

/* Returns 0, or -1 when cpu is not a CPU of this machine or already online. */
int mm_cpu_online(struct mm_sim *sim, int cpu)
{
	int ret = -1;

	if (cpu < 0 || (unsigned int)cpu >= sim->nr_cpus)
		return -1;
	pthread_mutex_lock(&sim->hotplug_lock);
	if (!atomic_load_explicit(&sim->cpu_online[cpu], memory_order_relaxed)) {
		atomic_store_explicit(&sim->cpu_online[cpu], true, memory_order_release);
		atomic_fetch_add_explicit(&sim->nr_online, 1, memory_order_release);
		atomic_fetch_add_explicit(&sim->node_nr_online[sim->cpu_to_node[cpu]], 1,
					  memory_order_release);
		page_alloc_cpu_online(sim, (unsigned int)cpu);
		refresh_zone_stat_thresholds(sim); /* vmstat_cpu_online() */
		percpu_counter_cpu_online(sim, (unsigned int)cpu);
		ret = 0;
	}
	pthread_mutex_unlock(&sim->hotplug_lock);
	return ret;
}

/* Returns 0, or -1 when cpu is offline already or the last one online. */
int mm_cpu_offline(struct mm_sim *sim, int cpu)
{
	int ret = -1;

	if (cpu < 0 || (unsigned int)cpu >= sim->nr_cpus)
		return -1;
	pthread_mutex_lock(&sim->hotplug_lock);
	if (atomic_load_explicit(&sim->cpu_online[cpu], memory_order_relaxed) &&
	    atomic_load_explicit(&sim->nr_online, memory_order_relaxed) > 1) {
		percpu_counter_cpu_dying(sim, (unsigned int)cpu); /* set_cpu_dying() */
		atomic_store_explicit(&sim->cpu_online[cpu], false, memory_order_release);
		atomic_fetch_sub_explicit(&sim->nr_online, 1, memory_order_release);
		atomic_fetch_sub_explicit(&sim->node_nr_online[sim->cpu_to_node[cpu]], 1,
					  memory_order_release);
		page_alloc_cpu_dead(sim, (unsigned int)cpu);
		refresh_zone_stat_thresholds(sim); /* vmstat_cpu_dead() */
		percpu_counter_cpu_dead(sim, (unsigned int)cpu);
		ret = 0;
	}
	pthread_mutex_unlock(&sim->hotplug_lock);
	return ret;
}

int _mm_op_cpu_offline(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	if (mm_cpu_offline(ctx->sim, op->cpu))
		return 1;
	_mm_check_sizing(ctx->sim);
	return 0;
}

int _mm_op_cpu_online(struct mm_op_ctx *ctx, const struct mm_op *op)
{
	if (mm_cpu_online(ctx->sim, op->cpu))
		return 1;
	_mm_check_sizing(ctx->sim);
	return 0;
}

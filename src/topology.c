/* SPDX-License-Identifier: MIT */
/*
 * topology.c - nodes and simulated CPUs: cpu_to_node, hotplug, the CPU
 * the calling thread runs as (thread-local, so the stress test can run one
 * thread per simulated CPU and the executor can switch per op), and node
 * distances with the order build_zonelists() gives them.
 */
#include "internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	/* Past nr_cpus nothing reads it: a fuzz reset pays for this machine's CPUs only. */
	for (unsigned int c = 0; c < cpu; c++)
		atomic_store_explicit(&sim->cpu_online[c], true, memory_order_relaxed);
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
	mutex_lock(&sim->hotplug_lock);
	if (!atomic_load_explicit(&sim->cpu_online[cpu], memory_order_relaxed)) {
		atomic_store_explicit(&sim->cpu_online[cpu], true, memory_order_release);
		atomic_fetch_add_explicit(&sim->nr_online, 1, memory_order_release);
		atomic_fetch_add_explicit(&sim->node_nr_online[sim->cpu_to_node[cpu]], 1,
					  memory_order_release);
		page_alloc_cpu_online(sim, (unsigned int)cpu);
		refresh_zone_stat_thresholds(sim); /* vmstat_cpu_online() */
		percpu_counter_cpu_online(sim, (unsigned int)cpu);
		cacheinfo_cpu_online(sim, (unsigned int)cpu);
		ret = 0;
	}
	mutex_unlock(&sim->hotplug_lock);
	return ret;
}

/* Returns 0, or -1 when cpu is offline already or the last one online. */
int mm_cpu_offline(struct mm_sim *sim, int cpu)
{
	int ret = -1;

	if (cpu < 0 || (unsigned int)cpu >= sim->nr_cpus)
		return -1;
	mutex_lock(&sim->hotplug_lock);
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
	mutex_unlock(&sim->hotplug_lock);
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

/* ------------------------------------------------------------------------
 * Node distances and the zonelists' node order
 * ---------------------------------------------------------------------- */

#define LOCAL_DISTANCE		   10 /* include/linux/topology.h */
#define REMOTE_DISTANCE		   20
#define PENALTY_FOR_NODE_WITH_CPUS 1
#define MAX_NUMNODES		   MM_MAX_NODES

/* models node_distance() (6.7): the table, or LOCAL/REMOTE_DISTANCE without one */
int mm_node_distance(const struct mm_sim *sim, int a, int b)
{
	if (sim->node_distance)
		return sim->node_distance[(size_t)a * sim->nr_nodes + (size_t)b];
	return a == b ? LOCAL_DISTANCE : REMOTE_DISTANCE;
}

/*
 * models numa_set_distance()'s rule (6.7): LOCAL_DISTANCE on the diagonal and
 * more than it elsewhere (the kernel warns and drops any other entry; a
 * model of a machine refuses it). Then build_all_zonelists().
 */
int mm_sim_set_node_distances(struct mm_sim *sim, const uint8_t *d, unsigned int nr, char *err,
			      size_t errlen)
{
	uint8_t *t;

	if (nr != sim->nr_nodes) {
		snprintf(err, errlen, "%u rows of distances for %u nodes", nr, sim->nr_nodes);
		return -1;
	}
	for (unsigned int a = 0; a < nr; a++) {
		for (unsigned int b = 0; b < nr; b++) {
			unsigned int v = d[a * nr + b];
			if (a == b ? v != LOCAL_DISTANCE : v <= LOCAL_DISTANCE) {
				snprintf(err, errlen,
					 "distance %u -> %u is %u: a node is at %d from itself "
					 "and above %d from any other",
					 a, b, v, LOCAL_DISTANCE, LOCAL_DISTANCE);
				return -1;
			}
		}
	}
	t = malloc((size_t)nr * nr);
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(t, d, (size_t)nr * nr);
	free(sim->node_distance);
	sim->node_distance = t;
	_mm_build_zonelists(sim);
	return 0;
}

/* node_state(n, N_MEMORY): the node has present pages */
static bool node_has_memory(const struct mm_sim *sim, unsigned int n)
{
	for (int zt = 0; zt < MAX_NR_ZONES; zt++)
		if (sim->cfg.zones[n][zt].present)
			return true;
	return false;
}

/*
 * models find_next_best_node() (6.7+: a memoryless local node is skipped):
 * the unused node with memory nearest to local, nodes below it one worse,
 * nodes with CPUs one worse again (headless nodes take the overflow), and
 * among equals the least loaded. -1 when every node with memory is used.
 */
static int find_next_best_node(const struct mm_sim *sim, unsigned int local, bool *used,
			       const unsigned int *node_load)
{
	long min_val = LONG_MAX;
	int best = -1;

	if (!used[local] && node_has_memory(sim, local)) {
		used[local] = true;
		return (int)local;
	}
	for (unsigned int n = 0; n < sim->nr_nodes; n++) {
		if (used[n] || !node_has_memory(sim, n))
			continue;
		long val = mm_node_distance(sim, (int)local, (int)n);
		val += n < local;
		if (sim->cfg.cpus_per_node[n])
			val += PENALTY_FOR_NODE_WITH_CPUS;
		val *= MAX_NUMNODES;
		val += node_load[n];
		if (val < min_val) {
			min_val = val;
			best = (int)n;
		}
	}
	if (best >= 0)
		used[best] = true;
	return best;
}

/*
 * models build_zonelists()' node order (6.7): the first node of each new
 * distance gets a load, so equidistant nodes take turns being first.
 */
unsigned int _mm_zonelist_node_order(const struct mm_sim *sim, unsigned int local,
				     unsigned int *node_load, unsigned int *order)
{
	bool used[MM_MAX_NODES] = {false};
	unsigned int nr = 0, prev = local;
	int node;

	while ((node = find_next_best_node(sim, local, used, node_load)) >= 0) {
		if (mm_node_distance(sim, (int)local, node) !=
		    mm_node_distance(sim, (int)local, (int)prev))
			node_load[node] += 1;
		order[nr++] = (unsigned int)node;
		prev = (unsigned int)node;
	}
	return nr;
}

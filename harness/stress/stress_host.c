/* SPDX-License-Identifier: MIT */
/*
 * stress_host.c - where the threads of `mmfuzz stress` run on the host.
 *
 * --pin pins thread i to the i-th CPU the process may use (modulo their
 * number). Built with libnuma (CMake finds it: MMFUZZ_HAVE_NUMA), pinning
 * goes by node: the simulated nodes with CPUs map in order onto the host
 * nodes with CPUs the process may use and memory it may allocate on
 * (modulo their number: node 0 need not exist, and a host's CPU-less
 * memory nodes, CXL or HBM, take no threads), a worker is pinned to a CPU
 * of its node's host node, and its thread state is allocated there with
 * numa_alloc_onnode(). A simulated CPU-less node maps to no host node. The
 * model's memmap is allocated by the core and stays wherever first touch
 * puts it.
 */
#include "stress.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef MMFUZZ_HAVE_NUMA
#include <numa.h>
#endif

struct stress_host {
	bool pin;
	unsigned int nr_cpus;
	int cpus[CPU_SETSIZE]; /* the host CPUs the process may run on, ascending */
	unsigned int nr_sim_nodes;
	unsigned int first_cpu[MM_MAX_NODES]; /* the first simulated CPU of each node */
	bool numa;
	unsigned int nr_nodes;
	int nodes[MM_MAX_NODES * 8];   /* host nodes with allowed CPUs and memory, ascending */
	int sim_to_host[MM_MAX_NODES]; /* -1: a CPU-less simulated node */
};

#ifdef MMFUZZ_HAVE_NUMA
static int numa_cpu(const struct stress_host *h, int hn, unsigned int k);

static void numa_setup(struct stress_host *h, const struct mm_config *cfg)
{
	struct bitmask *mems;
	unsigned int k = 0;

	if (numa_available() < 0)
		return;
	mems = numa_get_mems_allowed();
	if (!mems)
		return;
	for (int n = 0; n <= numa_max_node(); n++) {
		if (!numa_bitmask_isbitset(mems, (unsigned int)n) || numa_cpu(h, n, 0) < 0 ||
		    h->nr_nodes == sizeof(h->nodes) / sizeof(h->nodes[0]))
			continue;
		h->nodes[h->nr_nodes++] = n;
	}
	numa_bitmask_free(mems);
	if (!h->nr_nodes)
		return;
	h->numa = true;
	for (unsigned int n = 0; n < cfg->nr_nodes; n++)
		h->sim_to_host[n] = cfg->cpus_per_node[n] ? h->nodes[k++ % h->nr_nodes] : -1;
}

/* The k-th allowed CPU of host node hn, or -1 if it has none (a memory-only node). */
static int numa_cpu(const struct stress_host *h, int hn, unsigned int k)
{
	struct bitmask *cpus = numa_allocate_cpumask();
	int found[CPU_SETSIZE];
	unsigned int nr = 0;
	int cpu = -1;

	if (!cpus)
		return -1;
	if (!numa_node_to_cpus(hn, cpus))
		for (unsigned int i = 0; i < h->nr_cpus; i++)
			if (numa_bitmask_isbitset(cpus, (unsigned int)h->cpus[i]))
				found[nr++] = h->cpus[i];
	numa_free_cpumask(cpus);
	if (nr)
		cpu = found[k % nr];
	return cpu;
}
#endif

struct stress_host *stress_host_create(bool pin, const struct mm_config *cfg, char *err,
				       size_t errlen)
{
	struct stress_host *h = calloc(1, sizeof(*h));
	cpu_set_t set;
	unsigned int first = 0;

	if (!h) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	h->pin = pin;
	h->nr_sim_nodes = cfg->nr_nodes;
	for (unsigned int n = 0; n < cfg->nr_nodes; n++) {
		h->first_cpu[n] = first;
		first += cfg->cpus_per_node[n];
	}
	if (!pin)
		return h;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set)) {
		snprintf(err, errlen, "--pin: cannot read the CPUs this process may use");
		free(h);
		return NULL;
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			h->cpus[h->nr_cpus++] = c;
	if (!h->nr_cpus) {
		snprintf(err, errlen, "--pin: this process may run on no CPU");
		free(h);
		return NULL;
	}
#ifdef MMFUZZ_HAVE_NUMA
	numa_setup(h, cfg);
#endif
	return h;
}

void stress_host_destroy(struct stress_host *h)
{
	free(h);
}

int stress_host_pin(const struct stress_host *h, unsigned int idx, int cpu, int node)
{
	int host_cpu = -1;
	cpu_set_t set;

	if (!h->pin || !h->nr_cpus)
		return -1;
#ifdef MMFUZZ_HAVE_NUMA
	if (h->numa && cpu >= 0 && node >= 0 && node < MM_MAX_NODES && h->sim_to_host[node] >= 0)
		host_cpu =
			numa_cpu(h, h->sim_to_host[node], (unsigned int)cpu - h->first_cpu[node]);
#else
	(void)cpu;
	(void)node;
#endif
	if (host_cpu < 0)
		host_cpu = h->cpus[idx % h->nr_cpus];
	CPU_ZERO(&set);
	CPU_SET(host_cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		return -1;
	return host_cpu;
}

void *stress_host_alloc(const struct stress_host *h, int node, size_t size, bool *placed)
{
	*placed = false;
#ifdef MMFUZZ_HAVE_NUMA
	if (h->numa && node >= 0 && node < MM_MAX_NODES && h->sim_to_host[node] >= 0) {
		/* numa_alloc_onnode() maps fresh pages: zeroed, as calloc's. */
		void *p = numa_alloc_onnode(size, h->sim_to_host[node]);
		if (p) {
			*placed = true;
			return p;
		}
	}
#else
	(void)h;
	(void)node;
#endif
	return calloc(1, size);
}

void stress_host_free(void *p, size_t size, bool placed)
{
#ifdef MMFUZZ_HAVE_NUMA
	if (placed) {
		numa_free(p, size);
		return;
	}
#else
	(void)size;
	(void)placed;
#endif
	free(p);
}

void stress_host_describe(const struct stress_host *h, char *buf, size_t len)
{
	int n = 0;

	if (!h->pin) {
		snprintf(buf, len, "not pinned");
		return;
	}
	n = snprintf(buf, len, "pinned to %u host CPUs", h->nr_cpus);
	if (n < 0 || (size_t)n >= len)
		return;
	if (!h->numa) {
#ifdef MMFUZZ_HAVE_NUMA
		snprintf(buf + n, len - (size_t)n, " (libnuma: NUMA not available)");
#else
		snprintf(buf + n, len - (size_t)n, " (built without libnuma: no node placement)");
#endif
		return;
	}
	n += snprintf(buf + n, len - (size_t)n, "; simulated node -> host node:");
	for (unsigned int s = 0; s < h->nr_sim_nodes && n >= 0 && (size_t)n < len; s++)
		if (h->sim_to_host[s] >= 0)
			n += snprintf(buf + n, len - (size_t)n, " %u->%d", s, h->sim_to_host[s]);
}

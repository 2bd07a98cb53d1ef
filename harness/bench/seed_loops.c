/* SPDX-License-Identifier: MIT */
/*
 * seed_loops.c - the loops of seeds 003 and 004 (see seed_loops.h).
 */
#include "seed_loops.h"

static int apply(struct mm_sim *sim, struct mm_op op)
{
	return mm_apply_op(sim, &op, NULL, 0, 0) ? -1 : 0;
}

void bench_brk_config(struct mm_config *cfg, unsigned int ncpus)
{
	mm_config_init(cfg);
	cfg->cpus_per_node[0] = ncpus;
	cfg->zones[0][ZONE_NORMAL] = (struct mm_zone_config){0, S3_PAGES, S3_PAGES, S3_PAGES};
}

int bench_brk_setup(struct mm_sim *sim)
{
	struct mm_op never = {.kind = MM_OP_SET_OVERCOMMIT, .sysctl.value = MM_OVERCOMMIT_NEVER};
	struct mm_op fork = {.kind = MM_OP_FORK, .mm.mm = 0}; /* m0, no parent */

	if (mm_apply_op(sim, &never, NULL, 0, 0) || mm_apply_op(sim, &fork, NULL, 0, 0))
		return -1;
	return mm_mm_live(sim, 0) ? 0 : -1;
}

long bench_brk_loop(struct mm_sim *sim, unsigned int ncpus, unsigned int rounds, unsigned int pages)
{
	long calls = 0;

	for (unsigned int r = 0; r < rounds; r++) {
		for (unsigned int cpu = 0; cpu < ncpus; cpu++) {
			struct mm_op grow = {.kind = MM_OP_BRK,
					     .cpu = (uint16_t)cpu,
					     .mm.pages = (uint16_t)pages};
			struct mm_op shrink = {
				.kind = MM_OP_MUNMAP,
				.cpu = (uint16_t)cpu,
				.mm = {.pages = (uint16_t)pages, .type = MM_ANONPAGES}};
			if (mm_apply_op(sim, &grow, NULL, 0, 0) ||
			    mm_apply_op(sim, &shrink, NULL, 0, 0))
				return -1;
			calls += 2;
		}
	}
	return calls;
}

void bench_spawn_config(struct mm_config *cfg)
{
	mm_config_init(cfg);
	cfg->nr_nodes = S4_NODES;
	for (unsigned int n = 0; n < S4_NODES; n++) {
		cfg->cpus_per_node[n] = S4_CPUS;
		cfg->zones[n][ZONE_NORMAL] = (struct mm_zone_config){(uint64_t)n * S4_PAGES,
								     S4_PAGES, S4_PAGES, S4_PAGES};
	}
}

int bench_spawn_setup(struct mm_sim *sim)
{
	if (apply(sim, (struct mm_op){.kind = MM_OP_FORK, .mm.mm = 0}) || /* m0, no parent */
	    apply(sim, (struct mm_op){.kind = MM_OP_MMAP,
				      .mm = {.pages = S4_PARENT_PAGES, .type = MM_ANONPAGES}}))
		return -1;
	return mm_mm_live(sim, 0) ? 0 : -1;
}

int bench_spawn_loop(struct mm_sim *sim, unsigned int forks)
{
	unsigned int ncpus = S4_NODES * S4_CPUS;

	for (unsigned int i = 0; i < forks; i++) {
		uint16_t cpu = (uint16_t)(i % ncpus), next = (uint16_t)((i + 1) % ncpus);
		if (apply(sim, (struct mm_op){.kind = MM_OP_FORK,
					      .cpu = cpu,
					      .mm = {.mm = 1, .parent = 1}}) || /* m1 from m0 */
		    apply(sim, (struct mm_op){.kind = MM_OP_MMAP,
					      .cpu = next,
					      .mm = {.mm = 1,
						     .pages = S4_TOUCH_PAGES,
						     .type = MM_ANONPAGES}}) ||
		    apply(sim, (struct mm_op){.kind = MM_OP_EXIT, .cpu = next, .mm.mm = 1}))
			return -1;
	}
	return 0;
}

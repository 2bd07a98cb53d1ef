/* SPDX-License-Identifier: MIT */
/*
 * brk_loop.c - seed 003's brk loop (see brk_loop.h).
 */
#include "brk_loop.h"

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

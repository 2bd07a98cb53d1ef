/* SPDX-License-Identifier: MIT */
/*
 * commit_batch_2ncpu.c - vm_committed_as's batch as it was before Tim
 * Chen's 3.11 patch (seed 003): percpu_counter_batch, max(32, 2 * ncpus),
 * whatever the RAM and the overcommit policy. Correct (the invariants
 * hold) but every brk larger than the batch folds under the counter's
 * lock: compare `mmfuzz bench --policy` figures with and without it.
 */
#include "internal.h"

/* models mm_compute_batch() before 3.11: the counters' common batch */
int mm_compute_batch(unsigned int nr_present_cpus, unsigned long ram_pages, int overcommit_policy)
{
	int two = 2 * (int)(nr_present_cpus ? nr_present_cpus : 1);

	(void)ram_pages;
	(void)overcommit_policy;
	return two > 32 ? two : 32;
}

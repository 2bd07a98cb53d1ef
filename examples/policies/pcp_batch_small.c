/* SPDX-License-Identifier: MIT */
/*
 * pcp_batch_small.c - a pcp batch of 1 for every zone: correct (the
 * invariants hold) but every refill and drain takes zone->lock. Compare
 * `mmfuzz bench --policy` figures with and without it (seed 000's cost).
 */
#include "internal.h"

int zone_batchsize(unsigned long managed)
{
	(void)managed;
	return 1;
}

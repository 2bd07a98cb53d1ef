/* SPDX-License-Identifier: MIT */
/*
 * pcp_decay_fifth.c - the pcp high decay as a posting of the 2023
 * auto-tuning series had it: a fifth off the high each step (its review
 * asked why 20%), where the merged decay_pcp_high() (51a755c56dc0, 6.7)
 * takes an eighth. Correct (high stays at or above high_min, the pages
 * above it are freed), it gives an idle CPU's pages back sooner;
 * INV-PCP-HIGH-RANGE judges each step by this rule (ctest
 * policy/pcp_decay_fifth/clean).
 */
#include "internal.h"

int decayed_pcp_high(int high, int count, int batch, int high_min)
{
	int h = count - (batch << CONFIG_PCP_BATCH_SCALE_MAX);

	if (h < high * 4 / 5)
		h = high * 4 / 5;
	return h > high_min ? h : high_min;
}

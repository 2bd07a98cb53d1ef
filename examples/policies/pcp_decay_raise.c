/* SPDX-License-Identifier: MIT */
/*
 * pcp_decay_raise.c - a decay rule with its sign slipped: an eighth added
 * each step instead of taken off. An idle CPU's list then grows where it
 * should shrink, past the high it had and past any count it holds.
 * INV-PCP-HIGH-RANGE holds any rule to never raise a high but by the count
 * term, so this one is caught (ctest policy/pcp_decay_raise/caught).
 */
#include "internal.h"

int decayed_pcp_high(int high, int count, int batch, int high_min)
{
	int h = count - (batch << CONFIG_PCP_BATCH_SCALE_MAX);
	int eighth = high + (high >> 3);

	if (h < eighth)
		h = eighth;
	return h > high_min ? h : high_min;
}

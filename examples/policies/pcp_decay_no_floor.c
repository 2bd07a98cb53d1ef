/* SPDX-License-Identifier: MIT */
/*
 * pcp_decay_no_floor.c - a decay rule that forgets high_min: an eighth off
 * each step, down to nothing. An idle CPU's list then shrinks below the
 * floor zone_highsize() sized it for. INV-PCP-HIGH-RANGE holds any rule to
 * high_min, so this one is caught (ctest policy/pcp_decay_no_floor/caught).
 */
#include "internal.h"

int decayed_pcp_high(int high, int count, int batch, int high_min)
{
	int h = count - (batch << CONFIG_PCP_BATCH_SCALE_MAX);

	(void)high_min;
	return h > high - (high >> 3) ? h : high - (high >> 3);
}

/* SPDX-License-Identifier: MIT */
/*
 * fuzz_pcp.c - the per-cpu page lists and deferred struct page init:
 * allocations and frees on up to 8 CPUs per node (frees often on another
 * CPU than the allocating one), drains, hotplug, pcp disable/enable, the
 * sysctls that resize the lists, and deferred init steps racing the first
 * allocations. The sizing invariant catches seed 000's stale batch/high.
 *
 * Build: cmake --preset fuzz && cmake --build --preset fuzz
 * Run:   build/fuzz/fuzz_pcp build/fuzz/corpus/pcp
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* More CPUs per node, fewer nodes: the lists are per (zone, cpu). */
	return mmfuzz_run_target(data, size, "fuzz_pcp");
}

/* SPDX-License-Identifier: MIT */
/*
 * fuzz_system.c - every mechanism on one machine: allocations, pcp lists,
 * hotplug and deferred init, counters and mm_structs, vmstat drift and
 * kswapd, compaction and its skip bits, on up to 2 nodes of up to 64 CPUs.
 * The other targets fuzz one subsystem's shape; the interactions live here
 * (compaction while pcp lists hold pages and vmstat drifts, hotplug during
 * deferred init, counters while kswapd reclaims). Its seeds are every
 * target's plus corpus/system/.
 *
 * Build: cmake --preset fuzz && cmake --build --preset fuzz
 * Run:   build/fuzz/fuzz_system build/fuzz/corpus/system
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return mmfuzz_run_target(data, size, "fuzz_system");
}

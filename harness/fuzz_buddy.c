/* SPDX-License-Identifier: MIT */
/*
 * fuzz_buddy.c - the buddy allocator and watermarks: allocations of every
 * order, migratetype and gfp, frees on any CPU, hotplug and sysctls, on
 * small machines of up to 2 nodes and 4 CPUs each.
 *
 * Build: cmake --preset fuzz && cmake --build --preset fuzz
 * Run:   build/fuzz/fuzz_buddy build/fuzz/corpus/buddy
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return mmfuzz_run_target(data, size, "fuzz_buddy");
}

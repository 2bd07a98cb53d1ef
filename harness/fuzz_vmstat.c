/* SPDX-License-Identifier: MIT */
/*
 * fuzz_vmstat.c - the vmstat per-cpu diffs and kswapd (seed 002): machines
 * of 1 to 256 CPUs (2 nodes of up to 128) on small zones, where the
 * estimate's drift is large against the watermark gaps; allocations,
 * frees and pcp changes drive the diffs, folds, snapshot reads and
 * kswapd's wake/step/sleep switch the thresholds. The seed's invariant
 * (INV-VMSTAT-PRESSURE) catches a pressure threshold that lets the CPUs
 * drift past low - min.
 *
 * Build: cmake --preset fuzz && cmake --build --preset fuzz
 * Run:   build/fuzz/fuzz_vmstat build/fuzz/corpus/vmstat
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return mmfuzz_run_target(data, size, "fuzz_vmstat");
}

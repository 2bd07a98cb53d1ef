/* SPDX-License-Identifier: MIT */
/*
 * fuzz_counters.c - percpu_counter, vm_committed_as and the mm rss
 * counters (seeds 003 and 004): counter adds with any batch, compares,
 * sets and syncs on up to 16 CPUs, mmap/brk/munmap that charge commit and
 * rss, fork (with injected allocation and dup_mmap failures) and exit with
 * check_mm, overcommit policy switches, and CPU hotplug folding the dead
 * CPU's locals. The counter ops sit behind the CHECK opcode's prefix.
 *
 * Build: cmake --preset fuzz && cmake --build --preset fuzz
 * Run:   build/fuzz/fuzz_counters build/fuzz/corpus/counters
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Many CPUs, little memory: locals and folds are per CPU, not per page. */
	return mmfuzz_run_target(data, size, "fuzz_counters");
}

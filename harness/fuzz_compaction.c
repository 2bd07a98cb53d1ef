/* SPDX-License-Identifier: MIT */
/*
 * fuzz_compaction.c - memory compaction and the pageblock skip bits (seed
 * 001): fill and free-pattern ops fragment zones of small pageblocks, then
 * direct compaction at every priority and mode, kcompactd steps, skip-bit
 * resets (kswapd going to sleep) and allocations that direct-compact run
 * the scanners. The checks catch a fast-found block left unscanned, a
 * block reselected without end (kcompactd at 100% CPU) and the scanners
 * overlapping, plus every buddy invariant as pages migrate.
 *
 * Build: cmake --preset fuzz && cmake --build --preset fuzz
 * Run:   build/fuzz/fuzz_compaction -max_len=256 build/fuzz/corpus/compaction
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return mmfuzz_run_target(data, size, "fuzz_compaction");
}

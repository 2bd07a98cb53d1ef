/* SPDX-License-Identifier: MIT */
/*
 * fuzz_common.h - what every libFuzzer target shares: one executor reused
 * across inputs, the variant from MMFUZZ_VARIANT, and an abort carrying the
 * invariant's ID on the first violation.
 */
#ifndef MMFUZZ_FUZZ_COMMON_H
#define MMFUZZ_FUZZ_COMMON_H

#include "mmcore.h"

/* Decodes data under lim (NULL: the defaults) and runs it; aborts on a violation. */
int mmfuzz_run_input(const uint8_t *data, size_t size, const struct mm_limits *lim);
/* The same with the limits of the named target (mm_limits_for_target()). */
int mmfuzz_run_target(const uint8_t *data, size_t size, const char *target);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif

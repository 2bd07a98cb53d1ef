/* SPDX-License-Identifier: MIT */
/*
 * lockdep.c - the lock-ownership failure of src/atomic.h (INV-LOCK-HELD).
 * A lock is where the sim's report path may not be safe to enter, so the
 * failure is one stderr line and abort(), as a kernel BUG would be.
 */
#include "atomic.h"

#include <stdio.h>
#include <stdlib.h>

_Thread_local char mm_lock_self;

_Noreturn void mm_lock_violation(const char *what, const void *lock)
{
	fprintf(stderr, "mmfuzz: INV-LOCK-HELD lock=%p: %s\n", lock, what);
	fflush(stderr);
	abort();
}

/* SPDX-License-Identifier: MIT */
/*
 * lockdep.c - the locks of src/atomic.h and zone->lock, with their
 * ownership test (INV-LOCK-HELD) and the stress test's jitter points.
 * A lock is where the sim's report path may not be safe to enter, so the
 * failure is one stderr line and abort(), as a kernel BUG would be.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

_Thread_local char mm_lock_self;
_Thread_local bool mm_locks_up;

_Noreturn void mm_lock_violation(const char *what, const void *lock)
{
	fprintf(stderr, "mmfuzz: INV-LOCK-HELD lock=%p: %s\n", lock, what);
	fflush(stderr);
	abort();
}

void spin_lock(spinlock_t *l)
{
	if (!mm_locks_up)
		pthread_mutex_lock(&l->m);
	else if (atomic_load_explicit(&l->owner, memory_order_relaxed))
		mm_lock_violation("lock taken while held (recursive locking)", l);
	atomic_store_explicit(&l->owner, &mm_lock_self, memory_order_relaxed);
}

void spin_unlock(spinlock_t *l)
{
	if (!spin_is_held_by_me(l))
		mm_lock_violation("unlock of a lock this thread does not hold", l);
	atomic_store_explicit(&l->owner, NULL, memory_order_relaxed);
	if (!mm_locks_up)
		pthread_mutex_unlock(&l->m);
}

void lockdep_assert_held(spinlock_t *l)
{
	if (!spin_is_held_by_me(l))
		mm_lock_violation("lock not held where the kernel requires it", l);
}

void zone_lock(struct zone *z)
{
	spin_lock(&z->lock);
	count_event(z->sim, zone_lock_acquisitions);
	if (z->sim->jitter)
		z->sim->jitter(z->sim->jitter_arg);
}

void zone_unlock(struct zone *z)
{
	spin_unlock(&z->lock);
	if (z->sim->jitter)
		z->sim->jitter(z->sim->jitter_arg);
}

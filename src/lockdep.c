/* SPDX-License-Identifier: MIT */
/*
 * lockdep.c - the locks of src/atomic.h and zone->lock, with their
 * ownership test (INV-LOCK-HELD), the lock ledger of the machines'
 * teardowns (INV-LOCK-LEAK) and the stress test's jitter points.
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

atomic_long mm_locks_live;

/* The machines alive, and the locks alive when the first of them came up. */
static pthread_mutex_t machines_lock = PTHREAD_MUTEX_INITIALIZER;
static long machines_live, locks_before_machines;

void lockdep_machine_created(void)
{
	pthread_mutex_lock(&machines_lock);
	if (machines_live++ == 0)
		locks_before_machines = atomic_load_explicit(&mm_locks_live, memory_order_relaxed);
	pthread_mutex_unlock(&machines_lock);
}

/*
 * The kernel's spinlocks need no destroy; the model's do (a pthread
 * mutex), and spin_lock_destroy() is where "not destroyed while held"
 * (debug_mutex_destroy()) is checked, so a teardown that misses one leaks
 * the mutex and skips that check. Machines' lives may overlap (a test or
 * a tool may hold two), so the count is judged when the last of them is
 * gone: their threads are joined by then, and every lock initialised
 * since the first came up must be destroyed. The sim is gone, so no
 * report path: one stderr line and abort(), as INV-LOCK-HELD.
 */
void lockdep_machine_destroyed(void)
{
	long live = 0, before = 0;

	pthread_mutex_lock(&machines_lock);
	if (--machines_live == 0) {
		live = atomic_load_explicit(&mm_locks_live, memory_order_relaxed);
		before = locks_before_machines;
	}
	pthread_mutex_unlock(&machines_lock);
	if (live != before) {
		fprintf(stderr,
			"mmfuzz: INV-LOCK-LEAK: %ld locks alive after the last machine's "
			"teardown, expected %ld (those before the first machine): %ld %s\n",
			live, before, live > before ? live - before : before - live,
			live > before ? "initialised and never destroyed"
				      : "destroyed and never initialised");
		fflush(stderr);
		abort();
	}
}

/* As debug_spin_lock_before()'s "bad magic": only a live lock is taken. */
void spin_lock(spinlock_t *l)
{
	if (l->magic != MM_SPINLOCK_MAGIC)
		mm_lock_violation("bad magic: no live lock here (never initialised, "
				  "destroyed, or out of its array)",
				  l);
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

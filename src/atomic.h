/* SPDX-License-Identifier: MIT */
/*
 * atomic.h - the one place the core spells its memory-model choices.
 *
 * Fields that one CPU writes under a lock and others read without it (the
 * kernel's READ_ONCE/WRITE_ONCE) are plain objects accessed through relaxed
 * atomic builtins, so ThreadSanitizer sees them as intended races. Counters
 * that several CPUs update use <stdatomic.h> types.
 */
#ifndef MM_ATOMIC_H
#define MM_ATOMIC_H

#include <pthread.h>
#include <stdatomic.h>

#define READ_ONCE(x)	 __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static inline long atomic_long_read(const atomic_long *v)
{
	return atomic_load_explicit(v, memory_order_relaxed);
}

static inline void atomic_long_add(long i, atomic_long *v)
{
	atomic_fetch_add_explicit(v, i, memory_order_relaxed);
}

static inline void atomic_long_set(atomic_long *v, long i)
{
	atomic_store_explicit(v, i, memory_order_relaxed);
}

/*
 * A counter only its own CPU updates: a relaxed load and store, no locked
 * read-modify-write (the kernel's this_cpu_add()).
 */
static inline void stat_add(atomic_ullong *c, unsigned long long n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

static inline void this_cpu_long_add(atomic_long *c, long n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

/* The kernel's spinlock_t; a mutex keeps waiting threads off the CPU. */
typedef struct {
	pthread_mutex_t m;
} spinlock_t;

static inline void spin_lock_init(spinlock_t *l)
{
	pthread_mutex_init(&l->m, NULL);
}

static inline void spin_lock_destroy(spinlock_t *l)
{
	pthread_mutex_destroy(&l->m);
}

static inline void spin_lock(spinlock_t *l)
{
	pthread_mutex_lock(&l->m);
}

static inline void spin_unlock(spinlock_t *l)
{
	pthread_mutex_unlock(&l->m);
}

#endif /* MM_ATOMIC_H */

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
#include <stdbool.h>

/*
 * The accessors below are one instruction each; forced inline, because
 * clang keeps an out-of-line copy (a call, and in the fuzz build coverage
 * counters of its own) wherever the caller's sanitizer attributes differ
 * from the callee's, as in the MM_SCAN checks.
 */
#define MM_ALWAYS_INLINE inline __attribute__((always_inline))

#define READ_ONCE(x)	 __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static MM_ALWAYS_INLINE long atomic_long_read(const atomic_long *v)
{
	return atomic_load_explicit(v, memory_order_relaxed);
}

static MM_ALWAYS_INLINE void atomic_long_add(long i, atomic_long *v)
{
	atomic_fetch_add_explicit(v, i, memory_order_relaxed);
}

static MM_ALWAYS_INLINE void atomic_long_set(atomic_long *v, long i)
{
	atomic_store_explicit(v, i, memory_order_relaxed);
}

/*
 * A counter only its own CPU updates: a relaxed load and store, no locked
 * read-modify-write (the kernel's this_cpu_add()).
 */
static MM_ALWAYS_INLINE void stat_add(atomic_ullong *c, unsigned long long n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

static MM_ALWAYS_INLINE void this_cpu_long_add(atomic_long *c, long n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

/*
 * Lock ownership, as lockdep tracks it: a lock records the thread that
 * holds it (the address of a thread-local, one relaxed store per lock and
 * unlock). Unlocking a lock the thread does not hold, or a
 * lockdep_assert_held() on one, is a bug no sim can hear of from inside a
 * lock: mm_lock_violation() prints "mmfuzz: INV-LOCK-HELD ..." to stderr
 * and aborts. src/lockdep.c.
 */
extern _Thread_local char mm_lock_self; /* its address names the thread */
/*
 * This thread runs a machine no other thread touches (the executor's
 * serial runs: fuzzing, replay): its locks are a uniprocessor kernel's,
 * ownership without the mutex. Taking a lock held already is then a
 * violation, where the mutex would hang. mm_exec_run() sets it.
 */
extern _Thread_local bool mm_locks_up;
_Noreturn void mm_lock_violation(const char *what, const void *lock);

/*
 * The kernel's spinlock_t; a mutex keeps waiting threads off the CPU.
 * magic is CONFIG_DEBUG_SPINLOCK's: set by the init, cleared by the
 * destroy, so spin_lock() knows memory that is no live lock (a lock
 * never initialised, one destroyed, or an index one past a lock array).
 */
#define MM_SPINLOCK_MAGIC 0xdead4eadU

typedef struct {
	pthread_mutex_t m;
	_Atomic(const void *) owner; /* &mm_lock_self of the holder, or NULL */
	unsigned int magic;	     /* MM_SPINLOCK_MAGIC while initialised */
} spinlock_t;

/* A sleeping lock (struct mutex): the same thing with the same checks. */
typedef spinlock_t mm_mutex_t;

/*
 * Locks initialised and not yet destroyed, in the whole process: when the
 * last machine is torn down, as many as before the first came up
 * (INV-LOCK-LEAK, src/lockdep.c).
 */
extern atomic_long mm_locks_live;

static inline void spin_lock_init(spinlock_t *l)
{
	pthread_mutex_init(&l->m, NULL);
	atomic_init(&l->owner, NULL);
	l->magic = MM_SPINLOCK_MAGIC;
	atomic_fetch_add_explicit(&mm_locks_live, 1, memory_order_relaxed);
}

/*
 * As debug_mutex_destroy(): a lock is not destroyed while held, and not
 * twice (the owner field of a destroyed lock names no thread).
 */
static inline void spin_lock_destroy(spinlock_t *l)
{
	static const char destroyed;

	if (atomic_load_explicit(&l->owner, memory_order_relaxed))
		mm_lock_violation("lock destroyed while held, or destroyed twice", l);
	atomic_store_explicit(&l->owner, &destroyed, memory_order_relaxed);
	l->magic = 0;
	pthread_mutex_destroy(&l->m);
	atomic_fetch_sub_explicit(&mm_locks_live, 1, memory_order_relaxed);
}

static MM_ALWAYS_INLINE bool spin_is_held_by_me(spinlock_t *l)
{
	return atomic_load_explicit(&l->owner, memory_order_relaxed) == &mm_lock_self;
}

/*
 * Out of line, in src/lockdep.c, which the fuzz build leaves without
 * coverage counters: inlined, each lock and unlock site's ownership test
 * was an edge every input hit, features libFuzzer collects and learns
 * nothing from.
 */
void spin_lock(spinlock_t *l);
void spin_unlock(spinlock_t *l);
/* lockdep_assert_held(): the calling thread holds l. */
void lockdep_assert_held(spinlock_t *l);
/*
 * mm_sim_create() and mm_sim_destroy() call these: the last teardown of a
 * set of machines whose lives overlap checks that every lock initialised
 * since the first came up was destroyed (INV-LOCK-LEAK).
 */
void lockdep_machine_created(void);
void lockdep_machine_destroyed(void);

#define mutex_init    spin_lock_init
#define mutex_destroy spin_lock_destroy
#define mutex_lock    spin_lock
#define mutex_unlock  spin_unlock

#endif /* MM_ATOMIC_H */

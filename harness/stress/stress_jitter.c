/* SPDX-License-Identifier: MIT */
/*
 * stress_jitter.c - --jitter: short random delays at zone->lock
 * boundaries (mm_set_jitter()), as rcutorture's random delays, so the
 * races a big box shows by sheer numbers show on 2 cores. Each thread
 * draws from its own splitmix64 stream, seeded from --jitter and the
 * order in which threads first take a zone->lock.
 */
#include "stress.h"

#include <sched.h>
#include <time.h>

static _Thread_local uint64_t jitter_state;

static uint64_t jitter_next(struct stress_run *run)
{
	if (!jitter_state)
		jitter_state =
			run->o.jitter * UINT64_C(0x9e3779b97f4a7c15) +
			atomic_fetch_add_explicit(&run->jitter_threads, 1, memory_order_relaxed) +
			1;
	uint64_t z = (jitter_state += UINT64_C(0x9e3779b97f4a7c15));
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* One in 16 lock boundaries yields; one in 256 sleeps 1-64 us. */
static void jitter(void *arg)
{
	uint64_t r = jitter_next(arg);

	if ((r & 255) == 0) {
		struct timespec ts = {0, (long)(1000 * (1 + ((r >> 8) & 63)))};
		nanosleep(&ts, NULL);
	} else if ((r & 15) == 1) {
		sched_yield();
	}
}

void stress_jitter_init(struct stress_run *run)
{
	if (run->o.jitter)
		mm_set_jitter(run->sim, jitter, run);
}

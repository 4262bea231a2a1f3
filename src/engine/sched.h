/*
 * sched.h - the open-loop arrival schedule of one worker.
 *
 * A run at R requests/s over T threads gives each thread the rate R/T,
 * and thread i is shifted by i/R so that the threads interleave: together
 * they send at exactly k/R for k = 0, 1, 2, ... Intended times are
 * computed from k, never accumulated, so rounding does not drift over a
 * long run.
 */
#ifndef PACER_ENGINE_SCHED_H
#define PACER_ENGINE_SCHED_H

#include <math.h>
#include <stdint.h>

typedef struct sched {
    uint64_t start_ns; /* time of k = 0 for thread 0 */
    double ns_per_req; /* 1e9 / rate */
    double period_ns;  /* threads / rate, in ns (an estimate for inverting) */
    double phase_ns;   /* thread_index / rate, in ns (likewise) */
    uint32_t threads, index;
} sched;

/* Set up thread `index` of `threads` at `rate` requests/s in total. */
static inline void sched_init(sched *s, uint64_t start_ns, double rate, uint32_t threads,
                              uint32_t index)
{
    s->start_ns = start_ns;
    s->ns_per_req = 1e9 / rate;
    s->period_ns = 1e9 * (double)threads / rate;
    s->phase_ns = 1e9 * (double)index / rate;
    s->threads = threads;
    s->index = index;
}

/* Intended send time of this thread's k-th request: request n = index +
 * k * threads of the whole run, at n / rate, rounded to the nearest ns
 * (so R = 3 gives exactly 5 s for n = 15, not 4.999999999 s). */
static inline uint64_t sched_time(const sched *s, uint64_t k)
{
    double n = (double)s->index + (double)k * (double)s->threads;

    return s->start_ns + (uint64_t)llround(n * s->ns_per_req);
}

/* Number of this thread's requests whose intended time is before t. */
static inline uint64_t sched_count_before(const sched *s, uint64_t t)
{
    double x;
    uint64_t k;

    if (t <= s->start_ns)
        return 0;
    x = ((double)(t - s->start_ns) - s->phase_ns) / s->period_ns;
    if (x <= 0)
        return 0;
    k = (uint64_t)x;
    /* Correct the float estimate against the exact definition. */
    while (k > 0 && sched_time(s, k - 1) >= t)
        k--;
    while (sched_time(s, k) < t)
        k++;
    return k;
}

#endif

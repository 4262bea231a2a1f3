/*
 * sched.h - the open-loop arrival schedule of one worker.
 *
 * The run has ONE schedule: request n = 0, 1, 2, ... of the whole run is
 * intended at a time that is a function of n alone. Worker `index` of
 * `threads` (every worker of every shard, counted together) takes
 * n = index + k * threads, its k-th request, so the workers interleave and
 * their union is exactly the one schedule, whatever the split.
 *
 * A constant -R is the simple case: n / R, computed from n, never
 * accumulated, so rounding does not drift over a long run. A load shape
 * (--stages, -R A..B, --arrival poisson) is time rescaling: arrival n has
 * a unit-rate time u_n (n itself for constant arrivals; for Poisson, the
 * sum of n + 1 exponential gaps of mean 1, gap i drawn from a counter-based
 * generator at (seed, i), so it too is a function of n), and its intended
 * time is Lambda^-1(u_n), where Lambda(t) is the number of requests the
 * rate asks for up to t (the rate's integral, piecewise quadratic for
 * linear ramps). docs/methodology.md, "Load shapes", says why.
 */
#ifndef PACER_ENGINE_SCHED_H
#define PACER_ENGINE_SCHED_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"

/* One stage of a shape, as the schedule uses it: over [t0, t0 + dur) s the
 * rate is a + c * (t - t0) requests/s, and lam0 requests came before. */
typedef struct sched_seg {
    double t0, dur, a, c, lam0, lam1;
} sched_seg;

/* Where a Poisson worker has summed its gaps to: its k-th request, whose
 * unit time is sum / 2^SCHED_FIX_BITS. Integer, so stepping back is exact. */
typedef struct sched_cursor {
    uint64_t k, sum;
} sched_cursor;

#define SCHED_FIX_BITS 20

typedef struct sched {
    uint64_t start_ns; /* time of n = 0 (constant), of the shape's t = 0 */
    double ns_per_req; /* 1e9 / rate */
    double period_ns;  /* threads / rate, in ns (an estimate for inverting) */
    double phase_ns;   /* thread_index / rate, in ns (likewise) */
    uint32_t threads, index;
    /* A shape (shaped: false for a plain constant -R, which never looks here). */
    bool shaped, poisson;
    uint32_t nseg;
    sched_seg seg[PC_MAX_STAGES];
    double tail_rate;  /* after the last stage: its final rate (0: no more requests) */
    uint64_t seed;
    sched_cursor cur[2]; /* Poisson: two cursors, the nearer one moves */
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
    s->shaped = false;
    s->poisson = false;
}

/* The run's schedule: sched_init for a constant rate, else the shape's
 * stages (the mean rate is `rate`; with no stages the rate is `rate`
 * throughout, Poisson-spaced). */
void sched_init_run(sched *s, uint64_t start_ns, const pc_shape *shape, double rate,
                    uint32_t threads, uint32_t index);

/* The shaped counterparts of sched_time and sched_count_before (sched.c). */
uint64_t sched_shape_time(sched *s, uint64_t k);
uint64_t sched_shape_count_before(sched *s, uint64_t t);

/* Requests the rate asks for in [0, t_s) s after the start: Lambda(t),
 * all workers together (a shape's; rate * t for a constant one). */
double sched_expected(const sched *s, double t_s);

/* The rate (requests/s, all workers together) the schedule asks for at
 * t_s s after the start: the shape's rate at that instant (a step's new
 * rate from its first instant on; before the start, the first stage's
 * starting rate; after the end, tail_rate), -R for a constant one. Over an
 * interval, (sched_expected(b) - sched_expected(a)) / (b - a) is its mean. */
double sched_rate_at(const sched *s, double t_s);

/* The stage (0-based) that time t falls in: the first at or before the
 * start, the last after the end; 0 without stages. */
uint32_t sched_stage_of(const sched *s, uint64_t t);

/* When stage i ends (UINT64_MAX for the last one, and without stages). */
uint64_t sched_stage_end(const sched *s, uint32_t i);

/* The ramp row (pc_shape_steps: PC_RAMP_STEPS of equal time per stage
 * whose rate moves, in stage order) that time t falls in, or -1 (no
 * stages, or a stage that holds its rate); and when that row ends
 * (UINT64_MAX: the last row of the last stage, or no row). */
int64_t sched_step_of(const sched *s, uint64_t t);
uint64_t sched_step_end(const sched *s, uint64_t t);

/* Intended send time of this thread's k-th request: request n = index +
 * k * threads of the whole run, at n / rate, rounded to the nearest ns
 * (so R = 3 gives exactly 5 s for n = 15, not 4.999999999 s); for a shape,
 * at Lambda^-1(u_n). UINT64_MAX: the shape asks for no more requests. */
static inline uint64_t sched_time(sched *s, uint64_t k)
{
    double n;

    if (__builtin_expect(s->shaped, 0))
        return sched_shape_time(s, k);
    n = (double)s->index + (double)k * (double)s->threads;
    return s->start_ns + (uint64_t)llround(n * s->ns_per_req);
}

/* Number of this thread's requests whose intended time is before t. */
static inline uint64_t sched_count_before(sched *s, uint64_t t)
{
    double x;
    uint64_t k;

    if (__builtin_expect(s->shaped, 0))
        return sched_shape_count_before(s, t);
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

/* This thread's requests before the end of the run at t: the count, or
 * UINT64_MAX for Poisson arrivals, whose count is known only by drawing
 * every gap up to t (the loop stops at the end by time instead). */
static inline uint64_t sched_count_limit(sched *s, uint64_t t)
{
    return s->poisson && s->shaped ? UINT64_MAX : sched_count_before(s, t);
}

#endif

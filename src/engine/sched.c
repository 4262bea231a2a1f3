/*
 * sched.c - the shaped schedule (sched.h): the stages as a piecewise-linear
 * rate, its integral Lambda and Lambda's inverse, and Poisson arrivals as a
 * seeded, counter-based stream of exponential gaps.
 */
#include "engine/sched.h"

#include <math.h>

#define FIX_ONE ((double)(1ull << SCHED_FIX_BITS))

/* Gap i of the run's Poisson stream (between arrivals i - 1 and i; gap 0
 * is the first arrival's time), an Exp(1) draw in units of 2^-20 of the
 * mean gap: splitmix64 of (seed, i), so any worker on any machine draws the
 * same gap i without drawing the ones before it. */
uint64_t sched_gap(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
    double u;

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    u = ((double)(z >> 11) + 0.5) * 0x1p-53; /* in (0, 1), never 0 */
    return (uint64_t)(-log(u) * FIX_ONE + 0.5);
}

void sched_init_run(sched *s, uint64_t start_ns, const pc_shape *shape, double rate,
                    uint32_t threads, uint32_t index)
{
    double t = 0, lam = 0, prev = shape->start_rate;
    uint64_t sum = 0;

    sched_init(s, start_ns, rate, threads, index);
    if (!pc_shape_active(shape))
        return;
    s->shaped = true;
    s->poisson = shape->arrival == PC_ARRIVAL_POISSON;
    s->seed = shape->seed;
    s->nseg = shape->n;
    for (uint32_t i = 0; i < shape->n; i++) {
        sched_seg *g = &s->seg[i];
        double b = shape->stages[i].rate;

        g->t0 = t;
        g->dur = (double)shape->stages[i].dur_ns / 1e9;
        g->a = shape->stages[i].step ? b : prev;
        g->c = (b - g->a) / g->dur;
        g->lam0 = lam;
        g->lam1 = lam + (g->a + b) / 2 * g->dur;
        t += g->dur;
        lam = g->lam1;
        prev = b;
    }
    s->tail_rate = shape->n ? prev : rate;
    /* This worker's first request is n = index: gaps 0 .. index. */
    if (s->poisson)
        for (uint64_t j = 0; j <= index; j++)
            sum += sched_gap(s->seed, j);
    for (int i = 0; i < 2; i++)
        s->cur[i] = (sched_cursor){.k = 0, .sum = sum};
}

/* The shape's end: its duration (s) and the requests it asks for. */
static double shape_end(const sched *s, double *lam)
{
    if (!s->nseg) {
        *lam = 0;
        return 0;
    }
    *lam = s->seg[s->nseg - 1].lam1;
    return s->seg[s->nseg - 1].t0 + s->seg[s->nseg - 1].dur;
}

/* The first stage that ends after t_s (t_s before the shape's end). */
static uint32_t seg_at(const sched *s, double t_s)
{
    uint32_t lo = 0, hi = s->nseg;

    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;

        if (s->seg[mid].t0 + s->seg[mid].dur > t_s)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

double sched_expected(const sched *s, double t_s)
{
    const sched_seg *g;
    double lam, end, tau;

    if (!s->shaped)
        return t_s > 0 ? t_s * 1e9 / s->ns_per_req : 0;
    if (t_s <= 0)
        return 0;
    end = shape_end(s, &lam);
    if (t_s >= end)
        return lam + s->tail_rate * (t_s - end);
    g = &s->seg[seg_at(s, t_s)];
    tau = t_s - g->t0;
    return g->lam0 + g->a * tau + g->c * tau * tau / 2;
}

double sched_rate_at(const sched *s, double t_s)
{
    const sched_seg *g;
    double lam, end;

    if (!s->shaped)
        return 1e9 / s->ns_per_req;
    end = shape_end(s, &lam);
    if (!s->nseg || t_s >= end)
        return s->tail_rate;
    if (t_s <= 0)
        return s->seg[0].a;
    g = &s->seg[seg_at(s, t_s)];
    return g->a + g->c * (t_s - g->t0);
}

/* Lambda^-1(u): when (s after the start) the u-th unit of the rate's
 * integral is reached; INFINITY when the shape never gets there. */
static double lam_inv(const sched *s, double u)
{
    uint32_t lo = 0, hi = s->nseg;
    double lam, end = shape_end(s, &lam), d, disc, tau;
    const sched_seg *g;

    if (u >= lam)
        return s->tail_rate > 0 ? end + (u - lam) / s->tail_rate : INFINITY;
    /* The first stage whose integral reaches past u (never an empty one). */
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;

        if (s->seg[mid].lam1 > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    g = &s->seg[lo];
    d = u - g->lam0;
    if (d <= 0)
        return g->t0;
    /* a tau + c tau^2 / 2 = d, in the form that does not cancel. */
    disc = g->a * g->a + 2 * g->c * d;
    tau = 2 * d / (g->a + sqrt(disc > 0 ? disc : 0));
    return g->t0 + (tau < g->dur ? tau : g->dur);
}

static uint64_t to_ns(const sched *s, double t_s)
{
    double ns = t_s * 1e9;

    if (!(ns < 1.8e19 - (double)s->start_ns))
        return UINT64_MAX;
    return s->start_ns + (uint64_t)llround(ns);
}

uint32_t sched_stage_of(const sched *s, uint64_t t)
{
    uint32_t lo = 0, hi = s->shaped && s->nseg ? s->nseg - 1 : 0;

    /* The first stage that ends after t (the last one holds the rest). */
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;

        if (t < sched_stage_end(s, mid))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

uint64_t sched_stage_end(const sched *s, uint32_t i)
{
    if (!s->shaped || i + 1 >= s->nseg)
        return UINT64_MAX;
    return to_ns(s, s->seg[i].t0 + s->seg[i].dur);
}

/* Stage i's ramp rows start at this index (its rate moves: c != 0). */
static int64_t step_base(const sched *s, uint32_t i)
{
    int64_t base = 0;

    if (s->seg[i].c == 0)
        return -1;
    for (uint32_t j = 0; j < i; j++)
        base += s->seg[j].c != 0 ? PC_RAMP_STEPS : 0;
    return base;
}

/* Which of stage i's rows t is in (0 .. PC_RAMP_STEPS - 1: before the
 * stage, the first; after it, the last). */
static uint32_t step_part(const sched *s, uint32_t i, uint64_t t)
{
    uint64_t t0 = to_ns(s, s->seg[i].t0), d = to_ns(s, s->seg[i].t0 + s->seg[i].dur) - t0;
    uint64_t p = t <= t0 || !d ? 0 : (uint64_t)((double)(t - t0) * PC_RAMP_STEPS / (double)d);

    return p >= PC_RAMP_STEPS ? PC_RAMP_STEPS - 1 : (uint32_t)p;
}

int64_t sched_step_of(const sched *s, uint64_t t)
{
    uint32_t i;
    int64_t base;

    if (!s->shaped || !s->nseg)
        return -1;
    i = sched_stage_of(s, t);
    base = step_base(s, i);
    return base < 0 ? -1 : base + step_part(s, i, t);
}

uint64_t sched_step_end(const sched *s, uint64_t t)
{
    uint32_t i, p;
    uint64_t t0, t1;

    if (!s->shaped || !s->nseg)
        return UINT64_MAX;
    i = sched_stage_of(s, t);
    if (s->seg[i].c == 0)
        return sched_stage_end(s, i);
    p = step_part(s, i, t);
    if (p + 1 == PC_RAMP_STEPS)
        return sched_stage_end(s, i);
    t0 = to_ns(s, s->seg[i].t0);
    t1 = to_ns(s, s->seg[i].t0 + s->seg[i].dur);
    /* The first time whose row is past p (step_part's own arithmetic). */
    {
        uint64_t e = t0 + (uint64_t)ceil((double)(t1 - t0) * (p + 1) / PC_RAMP_STEPS);

        while (e > t0 && step_part(s, i, e - 1) > p)
            e--;
        while (step_part(s, i, e) <= p && e < t1)
            e++;
        return e;
    }
}

/* ---- Poisson: cursors over the gap stream ---------------------------- */

static void cur_step(const sched *s, sched_cursor *c, bool forward)
{
    uint64_t n = (uint64_t)s->index + c->k * s->threads, gaps = 0;

    if (forward) {
        for (uint64_t i = n + 1; i <= n + s->threads; i++)
            gaps += sched_gap(s->seed, i);
        c->sum += gaps;
        c->k++;
    } else {
        for (uint64_t i = n - s->threads + 1; i <= n; i++)
            gaps += sched_gap(s->seed, i);
        c->sum -= gaps;
        c->k--;
    }
}

static uint64_t cur_time(const sched *s, const sched_cursor *c)
{
    return to_ns(s, lam_inv(s, (double)c->sum / FIX_ONE));
}

static sched_cursor *nearer(sched *s, uint64_t k)
{
    uint64_t d0 = s->cur[0].k > k ? s->cur[0].k - k : k - s->cur[0].k;
    uint64_t d1 = s->cur[1].k > k ? s->cur[1].k - k : k - s->cur[1].k;

    return d0 <= d1 ? &s->cur[0] : &s->cur[1];
}

uint64_t sched_shape_time(sched *s, uint64_t k)
{
    sched_cursor *c;

    if (!s->poisson)
        return to_ns(s, lam_inv(s, (double)s->index + (double)k * (double)s->threads));
    c = nearer(s, k);
    while (c->k < k)
        cur_step(s, c, true);
    while (c->k > k)
        cur_step(s, c, false);
    return cur_time(s, c);
}

uint64_t sched_shape_count_before(sched *s, uint64_t t)
{
    double x;
    uint64_t k;

    if (t <= s->start_ns)
        return 0;
    /* The estimate: Lambda(t) requests of the whole run, 1/threads ours. */
    x = (sched_expected(s, (double)(t - s->start_ns) / 1e9) - (double)s->index) /
        (double)s->threads;
    k = x > 0 ? (x < 1.8e19 ? (uint64_t)x : UINT64_MAX / 2) : 0;
    if (s->poisson) {
        /* The cursor walks from where it is: only which one is a guess. */
        sched_cursor *c = nearer(s, k);

        if (cur_time(s, c) >= t) {
            while (c->k > 0) {
                cur_step(s, c, false);
                if (cur_time(s, c) < t) {
                    cur_step(s, c, true);
                    break;
                }
            }
        } else {
            do
                cur_step(s, c, true);
            while (cur_time(s, c) < t);
        }
        return c->k;
    }
    while (k > 0 && sched_shape_time(s, k - 1) >= t)
        k--;
    while (sched_shape_time(s, k) < t)
        k++;
    return k;
}

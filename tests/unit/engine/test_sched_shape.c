/*
 * test_sched_shape.c - unit tests for src/engine/sched.c, the shaped
 * schedule: stages (linear ramps and steps), -R A..B, Poisson arrivals.
 *
 * The oracles: a ramp's integral (requests asked for) in closed form; a
 * one-worker schedule, which G interleaved workers must reproduce exactly
 * (request n of the run is the same time whoever sends it); the
 * exponential distribution, by a Kolmogorov-Smirnov statistic computed
 * here.
 */
#include "engine/sched.h"
#include "unit.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define NS 1000000000ull
#define START 1234567890123ull

static pc_shape shape(double start_rate, int arrival, uint64_t seed)
{
    pc_shape s;

    memset(&s, 0, sizeof s);
    s.start_rate = start_rate;
    s.arrival = arrival;
    s.seed = seed;
    return s;
}

static void add(pc_shape *s, double secs, double rate, bool step)
{
    s->stages[s->n++] = (pc_stage){.dur_ns = (uint64_t)(secs * 1e9), .rate = rate, .step = step};
}

/* All workers' requests before t, with G workers. */
static uint64_t count_all(const pc_shape *sh, double rate, uint32_t G, uint64_t t)
{
    uint64_t total = 0;

    for (uint32_t g = 0; g < G; g++) {
        sched s;
        sched_init_run(&s, START, sh, rate, G, g);
        total += sched_count_before(&s, t);
    }
    return total;
}

/* ---- ramps and steps --------------------------------------------------- */

/* 0 -> 1000 req/s over 4 s asks for the integral, 2000 requests: exactly
 * that many are intended before the end, over 1, 2, 3 and 16 workers. */
static void test_ramp_0_1000_4s_is_2000(void)
{
    pc_shape sh = shape(0, PC_ARRIVAL_CONSTANT, 0);
    uint32_t gs[] = {1, 2, 3, 16};

    add(&sh, 4, 1000, false);
    for (size_t i = 0; i < sizeof gs / sizeof gs[0]; i++)
        CHECK_EQ_U64(count_all(&sh, 500, gs[i], START + 4 * NS), 2000);
    /* Half-way, the integral is 1000 * 2^2 / 8 = 500. */
    CHECK_EQ_U64(count_all(&sh, 500, 3, START + 2 * NS), 500);
}

/* On a ramp 0 -> R over D, request n is at sqrt(2 n D / R) s. */
static void test_ramp_times_closed_form(void)
{
    pc_shape sh = shape(0, PC_ARRIVAL_CONSTANT, 0);
    sched s;

    add(&sh, 4, 1000, false);
    sched_init_run(&s, START, &sh, 500, 1, 0);
    for (uint64_t n = 0; n < 2000; n++) {
        double want = sqrt(2.0 * (double)n * 4 / 1000) * 1e9;
        double got = (double)(sched_time(&s, n) - START);
        CHECK(fabs(got - want) <= 1.0);
    }
}

/* Steps hold their rate: 2s:100!,3s:300! is n/100 s, then 2 s + m/300 s. */
static void test_steps(void)
{
    pc_shape sh = shape(0, PC_ARRIVAL_CONSTANT, 0);
    sched s;

    add(&sh, 2, 100, true);
    add(&sh, 3, 300, true);
    sched_init_run(&s, START, &sh, 220, 1, 0);
    for (uint64_t n = 0; n < 200; n++)
        CHECK_EQ_U64(sched_time(&s, n), START + n * 10000000ull);
    for (uint64_t m = 0; m < 900; m++) {
        uint64_t want = START + 2 * NS + m * NS / 300, got = sched_time(&s, 200 + m);
        CHECK(got + 1 >= want && got <= want + 1);
    }
    CHECK_EQ_U64(count_all(&sh, 220, 4, START + 5 * NS), 1100);
}

/* --start-rate 200 then down to 0 over 2 s: 200 requests, then none. */
static void test_ramp_down_to_nothing(void)
{
    pc_shape sh = shape(200, PC_ARRIVAL_CONSTANT, 0);
    sched s;

    add(&sh, 2, 0, false);
    sched_init_run(&s, START, &sh, 100, 1, 0);
    CHECK_EQ_U64(sched_count_before(&s, START + 2 * NS), 200);
    CHECK_EQ_U64(sched_count_before(&s, START + 3600 * NS), 200);
    CHECK_EQ_U64(sched_time(&s, 200), UINT64_MAX);
    CHECK(sched_time(&s, 199) < START + 2 * NS);
}

/* ---- the same schedule, however it is split ---------------------------- */

static void shapes_under_test(pc_shape out[6])
{
    out[0] = shape(0, PC_ARRIVAL_CONSTANT, 0);
    add(&out[0], 4, 1000, false);
    out[1] = shape(50, PC_ARRIVAL_CONSTANT, 0);
    add(&out[1], 1, 700, false);
    add(&out[1], 1.5, 700, true);
    add(&out[1], 0.7, 30, false);
    add(&out[1], 2, 3333.3, true);
    out[2] = shape(0, PC_ARRIVAL_POISSON, 42);
    add(&out[2], 3, 2000, false);
    add(&out[2], 2, 500, true);
    out[3] = shape(0, PC_ARRIVAL_POISSON, 7); /* -R 1000 --arrival poisson */
    out[4] = shape(0, PC_ARRIVAL_POISSON, 0xdeadbeefcafef00dull);
    add(&out[4], 2, 1500, false);
    out[5] = shape(0, PC_ARRIVAL_CONSTANT, 0);
    add(&out[5], 1, 7, false);
    add(&out[5], 1, 3, false);
}

/* Worker g of G sends request n = g + k G of the one-worker schedule, at
 * exactly the same ns, for every shape and arrival kind. */
static void test_interleaving_equals_one_worker(void)
{
    enum { N = 4000 };
    static uint64_t one[N];
    pc_shape sh[6];
    uint32_t gs[] = {2, 3, 7, 16};

    shapes_under_test(sh);
    for (int i = 0; i < 6; i++) {
        sched s1;
        sched_init_run(&s1, START, &sh[i], 1000, 1, 0);
        for (uint64_t n = 0; n < N; n++)
            one[n] = sched_time(&s1, n);
        for (size_t j = 0; j < sizeof gs / sizeof gs[0]; j++) {
            uint32_t G = gs[j];
            for (uint32_t g = 0; g < G; g++) {
                sched s;
                sched_init_run(&s, START, &sh[i], 1000, G, g);
                for (uint64_t k = 0; g + k * G < N; k++)
                    if (sched_time(&s, k) != one[g + k * G]) {
                        snprintf(unit_msg, sizeof unit_msg,
                                 "%s:%d: shape %d G=%u g=%u k=%llu: %llu, one worker %llu",
                                 __FILE__, __LINE__, i, G, g, (unsigned long long)k,
                                 (unsigned long long)sched_time(&s, k),
                                 (unsigned long long)one[g + k * G]);
                        unit_failed_now = 1;
                        return;
                    }
            }
            /* ... and they count the same requests before any time. */
            for (uint64_t n = 1; n < N; n += 397) {
                uint64_t t = one[n] == UINT64_MAX ? START + 100 * NS : one[n];
                uint64_t want = 0;
                while (want < N && one[want] < t)
                    want++;
                CHECK_EQ_U64(count_all(&sh[i], 1000, G, t), want);
            }
        }
    }
}

/* sched_count_before(t) is the number of k with sched_time(k) < t, by
 * brute force, at random times (fixed seed), each shape, 1 and 3 workers,
 * visited in random order (the Poisson cursors move both ways). */
static void test_count_before_brute_force(void)
{
    pc_shape sh[6];

    shapes_under_test(sh);
    srand(99);
    for (int i = 0; i < 6; i++) {
        for (uint32_t G = 1; G <= 3; G += 2) {
            for (uint32_t g = 0; g < G; g++) {
                sched s, probe;
                sched_init_run(&s, START, &sh[i], 1000, G, g);
                sched_init_run(&probe, START, &sh[i], 1000, G, g);
                for (int trial = 0; trial < 60; trial++) {
                    uint64_t t = START - 1000 + (uint64_t)((double)rand() / RAND_MAX * 5.5e9);
                    uint64_t k = 0;
                    while (sched_time(&probe, k) < t)
                        k++;
                    CHECK_EQ_U64(sched_count_before(&s, t), k);
                    if (sched_time(&probe, k) != UINT64_MAX) {
                        uint64_t at = sched_time(&probe, k);
                        CHECK_EQ_U64(sched_count_before(&s, at), k);
                        CHECK_EQ_U64(sched_count_before(&s, at + 1), k + 1);
                    }
                }
            }
        }
    }
}

/* ---- Poisson ------------------------------------------------------------ */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The Kolmogorov-Smirnov statistic of n samples against Exp(1):
 * sup |F_n(x) - (1 - e^-x)|, sorting x in place. */
static double ks_exp(double *x, size_t n)
{
    double d = 0;

    qsort(x, n, sizeof *x, cmp_d);
    for (size_t i = 0; i < n; i++) {
        double f = 1 - exp(-x[i]);
        double lo = f - (double)i / (double)n, hi = (double)(i + 1) / (double)n - f;
        d = fmax(d, fmax(lo, hi));
    }
    return d;
}

/* The gaps (times the rate) of a schedule's first 5 s. */
static size_t gaps_5s(const pc_shape *sh, double rate, double *out, size_t cap)
{
    sched s;
    size_t n = 0;
    uint64_t prev;

    sched_init_run(&s, START, sh, rate, 1, 0);
    prev = sched_time(&s, 0);
    for (uint64_t k = 1; n < cap; k++) {
        uint64_t t = sched_time(&s, k);
        if (t >= START + 5 * NS)
            break;
        out[n++] = (double)(t - prev) / 1e9 * rate;
        prev = t;
    }
    return n;
}

/* Poisson at 1000 req/s for 5 s: the gaps are Exp(1) by KS at the 1%
 * level (critical value 1.628 / sqrt(n)), for several seeds; the same
 * check refuses a constant schedule's gaps, so it can fail. */
static void test_poisson_gaps_ks(void)
{
    static double x[20000];
    uint64_t seeds[] = {1, 2, 3, 12345, 0xfeedfacecafebeefull};
    pc_shape c = shape(0, PC_ARRIVAL_CONSTANT, 0);
    size_t n;

    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        pc_shape p = shape(0, PC_ARRIVAL_POISSON, seeds[i]);
        double d;

        n = gaps_5s(&p, 1000, x, 20000);
        CHECK(n > 4000);
        d = ks_exp(x, n);
        if (!(d < 1.628 / sqrt((double)n))) {
            snprintf(unit_msg, sizeof unit_msg, "%s:%d: seed %llu: KS D = %.4f over %zu gaps",
                     __FILE__, __LINE__, (unsigned long long)seeds[i], d, n);
            unit_failed_now = 1;
            return;
        }
    }
    add(&c, 5, 1000, true);
    n = gaps_5s(&c, 1000, x, 20000);
    CHECK(ks_exp(x, n) > 1.628 / sqrt((double)n));
}

/* The same seed gives the same intended times; another seed others. */
static void test_poisson_seed_repeats(void)
{
    pc_shape a = shape(0, PC_ARRIVAL_POISSON, 77), b = a, other = shape(0, PC_ARRIVAL_POISSON, 78);
    sched sa, sb, so;
    int differ = 0;

    sched_init_run(&sa, START, &a, 1000, 2, 1);
    sched_init_run(&sb, START, &b, 1000, 2, 1);
    sched_init_run(&so, START, &other, 1000, 2, 1);
    for (uint64_t k = 0; k < 5000; k++) {
        CHECK_EQ_U64(sched_time(&sa, k), sched_time(&sb, k));
        differ += sched_time(&sa, k) != sched_time(&so, k);
    }
    CHECK(differ > 4900);
}

/* The count in 5 s at 1000 req/s is Poisson(5000): within 4 sd (283) for
 * each of 20 seeds, and their mean within 4 sd / sqrt(20). A Poisson ramp
 * 0 -> 1000 over 4 s likewise around its integral, 2000 (sd 44.7). */
static void test_poisson_count(void)
{
    double sum = 0;

    for (uint64_t seed = 100; seed < 120; seed++) {
        pc_shape p = shape(0, PC_ARRIVAL_POISSON, seed), r = p;
        double n = (double)count_all(&p, 1000, 2, START + 5 * NS);

        CHECK(fabs(n - 5000) < 4 * sqrt(5000.0));
        sum += n;
        add(&r, 4, 1000, false);
        n = (double)count_all(&r, 500, 3, START + 4 * NS);
        CHECK(fabs(n - 2000) < 4 * sqrt(2000.0));
    }
    CHECK(fabs(sum / 20 - 5000) < 4 * sqrt(5000.0) / sqrt(20.0));
}

/* A Poisson schedule's count before the end is not computed up front (it
 * would draw every gap): the loop stops by time. A constant ramp's is. */
static void test_count_limit(void)
{
    pc_shape p = shape(0, PC_ARRIVAL_POISSON, 1), r = shape(0, PC_ARRIVAL_CONSTANT, 0);
    sched s;

    sched_init_run(&s, START, &p, 1000, 1, 0);
    CHECK_EQ_U64(sched_count_limit(&s, START + 4 * NS), UINT64_MAX);
    add(&r, 4, 1000, false);
    sched_init_run(&s, START, &r, 500, 1, 0);
    CHECK_EQ_U64(sched_count_limit(&s, START + 4 * NS), 2000);
    /* No shape: sched_init_run is sched_init. */
    r = shape(0, PC_ARRIVAL_CONSTANT, 0);
    sched_init_run(&s, START, &r, 1000, 1, 0);
    CHECK(!s.shaped);
    CHECK_EQ_U64(sched_time(&s, 1234), START + 1234 * 1000000ull);
}

/* The rate at an instant: a ramp's line, a step's new rate from its first
 * instant, the last rate after the end; constant -R throughout; and the
 * integral's slope agrees with it inside a stage. */
static void test_rate_at(void)
{
    pc_shape sh = shape(0, PC_ARRIVAL_CONSTANT, 0), none = shape(0, PC_ARRIVAL_CONSTANT, 0);
    sched s;

    add(&sh, 2, 1800, false); /* 0 -> 1800 over 2 s */
    add(&sh, 1, 1000, true);  /* then 1000 at once */
    add(&sh, 1, 2000, true);
    sched_init_run(&s, START, &sh, 1000, 1, 0);
    CHECK(fabs(sched_rate_at(&s, 0) - 0) < 1e-9);
    CHECK(fabs(sched_rate_at(&s, 1) - 900) < 1e-6);
    CHECK(fabs(sched_rate_at(&s, 1.5) - 1350) < 1e-6);
    CHECK(fabs(sched_rate_at(&s, 2) - 1000) < 1e-9);
    CHECK(fabs(sched_rate_at(&s, 2.999) - 1000) < 1e-9);
    CHECK(fabs(sched_rate_at(&s, 3) - 2000) < 1e-9);
    CHECK(fabs(sched_rate_at(&s, 9) - 2000) < 1e-9);
    CHECK(fabs(sched_rate_at(&s, -1) - 0) < 1e-9);
    for (double t = 0.05; t < 4; t += 0.1) {
        double slope = (sched_expected(&s, t + 1e-4) - sched_expected(&s, t - 1e-4)) / 2e-4;
        if (fabs(t - 2) > 0.01 && fabs(t - 3) > 0.01)
            CHECK(fabs(slope - sched_rate_at(&s, t)) < 0.01);
    }
    sched_init_run(&s, START, &none, 750, 4, 1);
    CHECK(fabs(sched_rate_at(&s, 0.5) - 750) < 1e-9);
    CHECK(fabs(sched_rate_at(&s, 100) - 750) < 1e-9);
}

int main(void)
{
    RUN(test_rate_at);
    RUN(test_ramp_0_1000_4s_is_2000);
    RUN(test_ramp_times_closed_form);
    RUN(test_steps);
    RUN(test_ramp_down_to_nothing);
    RUN(test_interleaving_equals_one_worker);
    RUN(test_count_before_brute_force);
    RUN(test_poisson_gaps_ks);
    RUN(test_poisson_seed_repeats);
    RUN(test_poisson_count);
    RUN(test_count_limit);
    return unit_done();
}

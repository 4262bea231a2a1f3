/*
 * test_sched.c - unit tests for src/engine/sched.h, the open-loop arrival
 * schedule.
 *
 * "Exact" below means integer arithmetic: the n-th request of the whole run
 * (all threads together) is intended at start + n/R s. In whole ns that is
 * floor(n * 1e9 / R) or ceil(n * 1e9 / R) (sched.h may truncate or round);
 * when n/R is a whole number of ns, both are the same and nothing else is
 * accepted. Computed without floating point for the rates used here.
 */
#include "engine/sched.h"
#include "unit.h"

#include <stdint.h>
#include <stdlib.h>

#define NS 1000000000ull
#define START 1234567890123ull /* a start that is not a round number */

/* floor(n * 1e9 * den / num) ns: the n-th arrival at rate num/den per second. */
static uint64_t exact_ns(uint64_t n, uint64_t num, uint64_t den)
{
    return (uint64_t)((unsigned __int128)n * NS * den / num);
}

/* ceil(n * 1e9 * den / num) ns. */
static uint64_t exact_ns_hi(uint64_t n, uint64_t num, uint64_t den)
{
    return (uint64_t)(((unsigned __int128)n * NS * den + num - 1) / num);
}

/* got is start + n/R s, to the ns (floor or ceil; exact when whole). */
#define CHECK_AT_N(got, n, num, den)                                           \
    do {                                                                       \
        unsigned long long g_ = (got), lo_ = START + exact_ns((n), (num), (den)), \
                           hi_ = START + exact_ns_hi((n), (num), (den));       \
        if (g_ < lo_ || g_ > hi_) {                                            \
            snprintf(unit_msg, sizeof unit_msg,                                \
                     "%s:%d: %s == start+%llu, want start+%llu%s (n=%llu)",     \
                     __FILE__, __LINE__, #got, g_ - START, lo_ - START,         \
                     lo_ == hi_ ? "" : " (or +1)", (unsigned long long)(n));   \
            unit_failed_now = 1;                                               \
            return;                                                            \
        }                                                                      \
    } while (0)


/* ---- sched_time -------------------------------------------------------- */

static void test_rate_1000_one_thread_exact_ms(void)
{
    sched s;

    sched_init(&s, START, 1000, 1, 0);
    for (uint64_t k = 0; k < 100000; k++)
        CHECK_EQ_U64(sched_time(&s, k), START + k * 1000000ull);
}

/* R = 3 over 2 threads: together the threads send at exactly start + n/3 s,
 * sorted, no duplicates, each n exactly once. */
static void test_rate_3_two_threads_union_exact(void)
{
    enum { N = 30000 };
    sched s0, s1;
    uint64_t k0 = 0, k1 = 0, prev = 0;

    sched_init(&s0, START, 3, 2, 0);
    sched_init(&s1, START, 3, 2, 1);
    for (uint64_t n = 0; n < N; n++) {
        uint64_t t0 = sched_time(&s0, k0), t1 = sched_time(&s1, k1), t;
        if (t0 <= t1) {
            t = t0;
            k0++;
        } else {
            t = t1;
            k1++;
        }
        if (n > 0)
            CHECK(t > prev);
        CHECK_AT_N(t, n, 3, 1);
        prev = t;
    }
    CHECK_EQ_U64(k0, N / 2);
    CHECK_EQ_U64(k1, N / 2);
}

/* The same per thread: thread i's k-th time is request n = 2k + i. */
static void test_rate_3_two_threads_each_exact(void)
{
    for (uint32_t i = 0; i < 2; i++) {
        sched s;
        sched_init(&s, START, 3, 2, i);
        for (uint64_t k = 0; k < 20000; k++)
            CHECK_AT_N(sched_time(&s, k), 2 * k + i, 3, 1);
    }
}

/* The union over T threads at rate R is exactly start + floor(n/R) for a
 * few (R, T) whose per-thread period is not a whole number of ns. */
static void test_union_exact_various(void)
{
    static const struct {
        uint64_t rate;
        uint32_t threads;
    } cases[] = {{3, 2}, {7, 3}, {1000, 3}, {30000, 4}, {999, 8}, {12345, 5}};

    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint32_t t = cases[c].threads;
        for (uint32_t i = 0; i < t; i++) {
            sched s;
            sched_init(&s, START, (double)cases[c].rate, t, i);
            for (uint64_t k = 0; k < 5000; k++) {
                uint64_t got = sched_time(&s, k), n = k * t + i;
                uint64_t lo = START + exact_ns(n, cases[c].rate, 1);
                uint64_t hi = START + exact_ns_hi(n, cases[c].rate, 1);
                if (got < lo || got > hi) {
                    snprintf(unit_msg, sizeof unit_msg,
                             "%s:%d: R=%llu T=%u thread %u k=%llu: start+%llu, want start+%llu",
                             __FILE__, __LINE__, (unsigned long long)cases[c].rate, t, i,
                             (unsigned long long)k, (unsigned long long)(got - START),
                             (unsigned long long)(lo - START));
                    unit_failed_now = 1;
                    return;
                }
            }
        }
    }
}

/* R = 1 over 4 threads (rate below thread count): thread i sends at
 * i s, i + 4 s, i + 8 s, ... */
static void test_rate_below_thread_count(void)
{
    for (uint32_t i = 0; i < 4; i++) {
        sched s;
        sched_init(&s, START, 1, 4, i);
        for (uint64_t k = 0; k < 1000; k++)
            CHECK_EQ_U64(sched_time(&s, k), START + i * NS + 4 * k * NS);
    }
}

/* R = 0.5: one request every 2 s; over 2 threads each sends every 4 s, the
 * second shifted by 2 s. */
static void test_fractional_rate(void)
{
    sched s, s0, s1;

    sched_init(&s, START, 0.5, 1, 0);
    for (uint64_t k = 0; k < 1000; k++)
        CHECK_EQ_U64(sched_time(&s, k), START + 2 * k * NS);
    CHECK_EQ_U64(sched_count_before(&s, START + 10 * NS), 5);
    CHECK_EQ_U64(sched_count_before(&s, START + 10 * NS + 1), 6);

    sched_init(&s0, START, 0.5, 2, 0);
    sched_init(&s1, START, 0.5, 2, 1);
    for (uint64_t k = 0; k < 1000; k++) {
        CHECK_EQ_U64(sched_time(&s0, k), START + 4 * k * NS);
        CHECK_EQ_U64(sched_time(&s1, k), START + 2 * NS + 4 * k * NS);
    }

    /* 2.5 requests/s: 400 ms apart. */
    sched_init(&s, START, 2.5, 1, 0);
    for (uint64_t k = 0; k < 1000; k++)
        CHECK_AT_N(sched_time(&s, k), k, 5, 2);
}

/* 10^9 requests at 10^6/s (1000 s): computed from k, so no drift. */
static void test_long_run_no_drift(void)
{
    sched s;

    sched_init(&s, START, 1e6, 1, 0);
    CHECK_EQ_U64(sched_time(&s, 1000000000ull), START + 1000ull * NS);
    CHECK_EQ_U64(sched_time(&s, 999999999ull), START + 1000ull * NS - 1000);
    for (uint64_t k = 1000000000ull - 1000; k <= 1000000000ull + 1000; k++)
        CHECK_EQ_U64(sched_time(&s, k), START + k * 1000);
    CHECK_EQ_U64(sched_count_before(&s, START + 1000ull * NS), 1000000000ull);
    CHECK_EQ_U64(sched_count_before(&s, START + 1000ull * NS + 1), 1000000001ull);

    /* Over 4 threads: thread i's k-th time is request 4k + i. */
    for (uint32_t i = 0; i < 4; i++) {
        sched_init(&s, START, 1e6, 4, i);
        uint64_t k = 250000000ull;
        CHECK_EQ_U64(sched_time(&s, k), START + (4 * k + i) * 1000);
    }
}

/* A period that is not a whole number of ns (R = 3e5, 3333.33 ns), over a
 * 1000 s run: within 1 ns of the exact time, never drifting further. */
static void test_long_run_fractional_period_within_1ns(void)
{
    for (uint32_t i = 0; i < 7; i++) {
        sched s;
        sched_init(&s, START, 3e5, 7, i);
        for (uint64_t k = 42857000ull - 2000; k < 42857000ull; k++) {
            uint64_t got = sched_time(&s, k), want = START + exact_ns(7 * k + i, 300000, 1);
            uint64_t d = got > want ? got - want : want - got;
            CHECK(d <= 1);
        }
    }
}

/* ---- sched_count_before ------------------------------------------------ */

static void test_count_before_3s_one_thread(void)
{
    sched s;

    sched_init(&s, START, 1000, 1, 0);
    CHECK_EQ_U64(sched_count_before(&s, START + 3 * NS), 3000);
    /* "before": the request at exactly t is not counted; one ns later it is. */
    CHECK_EQ_U64(sched_count_before(&s, START + 3 * NS + 1), 3001);
    CHECK_EQ_U64(sched_count_before(&s, START + 3 * NS - 1), 3000);
    CHECK_EQ_U64(sched_count_before(&s, START), 0);
    CHECK_EQ_U64(sched_count_before(&s, START + 1), 1);
    CHECK_EQ_U64(sched_count_before(&s, START - 1), 0);
    CHECK_EQ_U64(sched_count_before(&s, 0), 0);
}

static void test_count_before_phase(void)
{
    sched s;

    /* Thread 1 of 2 at 1000/s: first request at start + 1 ms. */
    sched_init(&s, START, 1000, 2, 1);
    CHECK_EQ_U64(sched_count_before(&s, START + 1), 0);
    CHECK_EQ_U64(sched_count_before(&s, START + 1000000), 0);
    CHECK_EQ_U64(sched_count_before(&s, START + 1000001), 1);
    CHECK_EQ_U64(sched_count_before(&s, START + 3000000), 1);
    CHECK_EQ_U64(sched_count_before(&s, START + 3000001), 2);
}

/* A 3 s window at R = 1000 over 2 threads: 3000 requests in total. */
static void test_count_3s_window_two_threads(void)
{
    uint64_t total = 0, window = 0;

    for (uint32_t i = 0; i < 2; i++) {
        sched s;
        sched_init(&s, START, 1000, 2, i);
        total += sched_count_before(&s, START + 3 * NS);
        window += sched_count_before(&s, START + 7 * NS + 123) -
                  sched_count_before(&s, START + 4 * NS + 123);
    }
    CHECK_EQ_U64(total, 3000);
    CHECK_EQ_U64(window, 3000);
}

/* Over all threads, the count before start + dt is how many n are intended
 * before it: the threads neither lose nor double any request. Half the
 * trials put dt on a whole second, where n/R is a whole number of ns. */
static void test_count_all_threads_matches_rate(void)
{
    static const struct {
        uint64_t rate;
        uint32_t threads;
    } cases[] = {{1000, 2}, {1000, 3}, {3, 2}, {3, 1}, {1, 4}, {7, 3}, {999, 8}, {12345, 6}};
    srand(12345);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int trial = 0; trial < 400; trial++) {
            uint64_t dt = trial % 2 ? (uint64_t)rand() % (60 * NS) : (uint64_t)(trial / 2) * NS;
            uint64_t total = 0, lo, hi, R = cases[c].rate;
            for (uint32_t i = 0; i < cases[c].threads; i++) {
                sched s;
                sched_init(&s, START, (double)R, cases[c].threads, i);
                total += sched_count_before(&s, START + dt);
            }
            /* Intended at floor(n/R): n counted iff n * 1e9 < dt * R.
             * Intended at ceil(n/R):  n counted iff n * 1e9 <= (dt - 1) * R. */
            hi = (uint64_t)(((unsigned __int128)dt * R + NS - 1) / NS);
            lo = dt == 0 ? 0 : (uint64_t)((unsigned __int128)(dt - 1) * R / NS) + 1;
            if (total < lo || total > hi) {
                snprintf(unit_msg, sizeof unit_msg,
                         "%s:%d: R=%llu T=%u dt=%llu: %llu before, want %llu", __FILE__, __LINE__,
                         (unsigned long long)R, cases[c].threads, (unsigned long long)dt,
                         (unsigned long long)total, (unsigned long long)hi);
                unit_failed_now = 1;
                return;
            }
        }
    }
}

/* sched_count_before(t) is the number of k with sched_time(k) < t, found by
 * brute force, for random t (fixed seed) and several schedules. */
static void test_count_before_brute_force(void)
{
    static const struct {
        double rate;
        uint32_t threads;
    } cases[] = {{1000, 1}, {1000, 2}, {3, 2}, {1, 4}, {0.5, 1}, {0.5, 3}, {7777.7, 5}, {1e6, 1}};
    srand(42);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (uint32_t i = 0; i < cases[c].threads; i++) {
            sched s;
            sched_init(&s, START, cases[c].rate, cases[c].threads, i);
            /* Times up to ~2000 periods after start, plus a little before. */
            double span = s.period_ns * 2000.0;
            for (int trial = 0; trial < 300; trial++) {
                double f = (double)rand() / RAND_MAX;
                uint64_t t = START - 1000 + (uint64_t)(f * span);
                uint64_t k = 0;
                while (sched_time(&s, k) < t)
                    k++;
                uint64_t got = sched_count_before(&s, t);
                if (got != k) {
                    snprintf(unit_msg, sizeof unit_msg,
                             "%s:%d: R=%g T=%u i=%u t=start+%lld: %llu, brute force %llu",
                             __FILE__, __LINE__, cases[c].rate, cases[c].threads, i,
                             (long long)(t - START), (unsigned long long)got,
                             (unsigned long long)k);
                    unit_failed_now = 1;
                    return;
                }
                /* Right at a scheduled time and one ns after it. */
                uint64_t at = sched_time(&s, k);
                CHECK_EQ_U64(sched_count_before(&s, at), k);
                CHECK_EQ_U64(sched_count_before(&s, at + 1), k + 1);
            }
        }
    }
}

int main(void)
{
    RUN(test_rate_1000_one_thread_exact_ms);
    RUN(test_rate_3_two_threads_union_exact);
    RUN(test_rate_3_two_threads_each_exact);
    RUN(test_union_exact_various);
    RUN(test_rate_below_thread_count);
    RUN(test_fractional_rate);
    RUN(test_long_run_no_drift);
    RUN(test_long_run_fractional_period_within_1ns);
    RUN(test_count_before_3s_one_thread);
    RUN(test_count_before_phase);
    RUN(test_count_3s_window_two_threads);
    RUN(test_count_all_threads_matches_rate);
    RUN(test_count_before_brute_force);
    return unit_done();
}

/*
 * unit.h - pacer's in-tree unit-test harness.
 *
 * A test file defines `static void test_xxx(void)` functions and a
 * `main` that calls RUN(test_xxx) for each, then `return unit_done();`.
 * Every RUN prints one line, "PASS name" or "FAIL name: file:line: what",
 * which tests/run.sh counts into the final "N passed, N failed, N skipped"
 * line. CHECK* macros record a failure and return from the test function.
 * SKIP_TEST(why) ends it as "SKIP name: why": only for what the platform
 * cannot provide (a missing package is a failure).
 */
#ifndef PACER_TESTS_UNIT_H
#define PACER_TESTS_UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int unit_failed_now, unit_skipped_now;
static int unit_passed_total, unit_failed_total;
static char unit_msg[512];

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            snprintf(unit_msg, sizeof unit_msg, "%s:%d: %s", __FILE__,         \
                     __LINE__, #cond);                                         \
            unit_failed_now = 1;                                               \
            return;                                                            \
        }                                                                      \
    } while (0)

#define CHECK_EQ_I64(a, b)                                                     \
    do {                                                                       \
        long long unit_a_ = (long long)(a), unit_b_ = (long long)(b);          \
        if (unit_a_ != unit_b_) {                                              \
            snprintf(unit_msg, sizeof unit_msg, "%s:%d: %s == %lld, want %lld", \
                     __FILE__, __LINE__, #a, unit_a_, unit_b_);                \
            unit_failed_now = 1;                                               \
            return;                                                            \
        }                                                                      \
    } while (0)

/* CHECK_EQ_I64 for values above INT64_MAX. */
#define CHECK_EQ_U64(a, b)                                                     \
    do {                                                                       \
        unsigned long long u_a_ = (a), u_b_ = (b);                             \
        if (u_a_ != u_b_) {                                                    \
            snprintf(unit_msg, sizeof unit_msg, "%s:%d: %s == %llu, want %llu", \
                     __FILE__, __LINE__, #a, u_a_, u_b_);                      \
            unit_failed_now = 1;                                               \
            return;                                                            \
        }                                                                      \
    } while (0)

#define CHECK_EQ_STR(a, b)                                                     \
    do {                                                                       \
        const char *unit_a_ = (a), *unit_b_ = (b);                             \
        if (strcmp(unit_a_, unit_b_) != 0) {                                   \
            snprintf(unit_msg, sizeof unit_msg, "%s:%d: %s == \"%.200s\", want \"%.200s\"", \
                     __FILE__, __LINE__, #a, unit_a_, unit_b_);                \
            unit_failed_now = 1;                                               \
            return;                                                            \
        }                                                                      \
    } while (0)

#define CHECK_NEAR(a, b, eps)                                                  \
    do {                                                                       \
        double unit_a_ = (double)(a), unit_b_ = (double)(b);                   \
        double unit_d_ = unit_a_ - unit_b_;                                    \
        if (unit_d_ < 0) unit_d_ = -unit_d_;                                   \
        if (unit_d_ > (eps)) {                                                 \
            snprintf(unit_msg, sizeof unit_msg, "%s:%d: %s == %.9g, want %.9g", \
                     __FILE__, __LINE__, #a, unit_a_, unit_b_);                \
            unit_failed_now = 1;                                               \
            return;                                                            \
        }                                                                      \
    } while (0)

#define SKIP_TEST(why)                                                         \
    do {                                                                       \
        snprintf(unit_msg, sizeof unit_msg, "%s", (why));                      \
        unit_skipped_now = 1;                                                  \
        return;                                                                \
    } while (0)

#define RUN(fn)                                                                \
    do {                                                                       \
        unit_failed_now = unit_skipped_now = 0;                                \
        fn();                                                                  \
        if (unit_failed_now) {                                                 \
            printf("FAIL %s: %s\n", #fn, unit_msg);                            \
            unit_failed_total++;                                               \
        } else if (unit_skipped_now) {                                         \
            printf("SKIP %s: %s\n", #fn, unit_msg);                            \
        } else {                                                               \
            printf("PASS %s\n", #fn);                                          \
            unit_passed_total++;                                               \
        }                                                                      \
        fflush(stdout);                                                        \
    } while (0)

static inline int unit_done(void)
{
    return unit_failed_total ? 1 : 0;
}

#endif

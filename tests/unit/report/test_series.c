/*
 * test_series.c - the per-interval time series (src/report/series.c):
 * never-sent requests, known when the run ends, are placed in the
 * intervals they were due in, and the points still add up.
 */
#include <stdint.h>
#include <string.h>

#include "report/series.h"
#include "stats/stats.h"
#include "unit.h"

/* n one-second points from t0, each with one error. */
static void build(pc_series *s, double t0, size_t n)
{
    pc_interval *iv = interval_new();

    CHECK(iv != NULL);
    for (size_t i = 0; iv && i < n; i++) {
        interval_reset(iv);
        iv->start_ns = (uint64_t)i * 1000000000ull;
        iv->end_ns = iv->start_ns + 1000000000ull;
        iv->errors = 1;
        CHECK(series_add_interval(s, iv, t0 + (double)i) == 0);
    }
    interval_free(iv);
}

static void test_never_sent_in_due_intervals(void)
{
    pc_series s = {.interval_s = 1};
    uint64_t due[3] = {5, 0, 7};
    pc_results res;

    memset(&res, 0, sizeof res);
    res.start_wall_ns = 1700000000ull * 1000000000ull;
    res.never_sent_due = due;
    res.never_sent_n = 3;
    res.st.never_sent = 12;
    build(&s, 1700000000.0, 4);
    series_place_never_sent(&s, &res);
    CHECK_EQ_U64(s.v[0].never_sent, 5);
    CHECK_EQ_U64(s.v[0].errors, 6);
    CHECK_EQ_U64(s.v[1].never_sent, 0);
    CHECK_EQ_U64(s.v[1].errors, 1);
    CHECK_EQ_U64(s.v[2].never_sent, 7);
    CHECK_EQ_U64(s.v[2].errors, 8);
    CHECK_EQ_U64(s.v[3].never_sent, 0);
    CHECK_EQ_U64(s.v[3].errors, 1);
    series_free(&s);
}

/* Those the run could not place (no room to count them by interval, an
 * index past the series) go to the last point: the points add up. */
static void test_unplaced_never_sent_go_last(void)
{
    pc_series s = {.interval_s = 1};
    uint64_t due[4] = {1, 0, 0, 4};
    pc_results res;

    memset(&res, 0, sizeof res);
    res.start_wall_ns = 1700000000ull * 1000000000ull;
    res.never_sent_due = due;
    res.never_sent_n = 4;
    res.st.never_sent = 10;
    build(&s, 1700000000.0, 2);
    series_place_never_sent(&s, &res);
    CHECK_EQ_U64(s.v[0].never_sent, 1);
    CHECK_EQ_U64(s.v[1].never_sent, 9);
    CHECK_EQ_U64(s.v[1].errors, 10);
    series_free(&s);
}

int main(void)
{
    RUN(test_never_sent_in_due_intervals);
    RUN(test_unplaced_never_sent_go_last);
    return unit_done();
}

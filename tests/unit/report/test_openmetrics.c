/*
 * test_openmetrics.c - the live metrics' histogram buckets
 * (src/report/openmetrics.c): each bucket counts the HdrHistogram's
 * samples at or below its boundary, cumulatively, against exact counts;
 * and an interval's send lag merges and resets as its latency does.
 */
#include <stdint.h>

#include "report/openmetrics.h"
#include "stats/interval.h"
#include "stats/stats.h"
#include "unit.h"

/* The boundaries ascend, 100 us to 10 s, a 1-2-5 series. */
static void test_boundaries(void)
{
    static const int m[3] = {1, 2, 5};

    CHECK_EQ_I64(om_bucket_le_ns[0], 100000);
    CHECK_EQ_I64(om_bucket_le_ns[OM_NBUCKETS - 1], 10000000000LL);
    for (int i = 0; i < OM_NBUCKETS; i++) {
        int64_t decade = 100000;

        for (int d = 0; d < i / 3; d++)
            decade *= 10;
        CHECK_EQ_I64(om_bucket_le_ns[i], m[i % 3] * decade);
    }
}

static void test_buckets_exact(void)
{
    hdr_hist h;
    uint64_t out[OM_NBUCKETS];
    /* value (ns), how many */
    static const int64_t rec[][2] = {
        {1, 3},             /* far below the first boundary */
        {100000, 2},        /* exactly on 100 us: counted in it */
        {100500, 1},        /* just above: not (its slot starts above 100 us) */
        {999000, 4},        /* below 1 ms */
        {1500000, 1},       /* 2 ms */
        {7000000000LL, 5},  /* 10 s */
        {20000000000LL, 6}, /* only +Inf */
    };
    /* The cumulative count at each boundary. */
    static const uint64_t want[OM_NBUCKETS] = {5, 6, 6, 10, 11, 11, 11, 11,
                                               11, 11, 11, 11, 11, 11, 11, 16};

    CHECK(hdr_init(&h, 1, STATS_LAT_HIGHEST, 3) == 0);
    for (size_t i = 0; i < sizeof rec / sizeof rec[0]; i++)
        CHECK(hdr_record_n(&h, rec[i][0], rec[i][1]));
    om_buckets(&h, om_bucket_le_ns, OM_NBUCKETS, out);
    for (int b = 0; b < OM_NBUCKETS; b++)
        CHECK_EQ_U64(out[b], want[b]);
    CHECK_EQ_I64(h.total_count, 22);
    hdr_free(&h);
}

static void test_buckets_empty(void)
{
    hdr_hist h;
    uint64_t out[OM_NBUCKETS];

    CHECK(hdr_init(&h, 1, STATS_LAT_HIGHEST, 2) == 0);
    for (int b = 0; b < OM_NBUCKETS; b++)
        out[b] = 99;
    om_buckets(&h, om_bucket_le_ns, OM_NBUCKETS, out);
    for (int b = 0; b < OM_NBUCKETS; b++)
        CHECK_EQ_U64(out[b], 0);
    hdr_free(&h);
}

static void test_interval_send_lag(void)
{
    pc_interval *a = interval_new(), *b = interval_new();

    CHECK(a && b);
    CHECK(hdr_record(&a->send_lag, 5000));
    CHECK(hdr_record_n(&b->send_lag, 70000, 3));
    interval_merge(a, b);
    CHECK_EQ_I64(a->send_lag.total_count, 4);
    interval_reset(a);
    CHECK_EQ_I64(a->send_lag.total_count, 0);
    CHECK(hdr_record(&a->send_lag, 1));
    CHECK_EQ_I64(a->send_lag.total_count, 1);
    interval_free(a);
    interval_free(b);
}

int main(void)
{
    RUN(test_boundaries);
    RUN(test_buckets_exact);
    RUN(test_buckets_empty);
    RUN(test_interval_send_lag);
    return unit_done();
}

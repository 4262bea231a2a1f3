/*
 * test_stats.c - pc_stats: reset (the end of --warmup) and merge.
 */
#include <stdio.h>
#include <stdlib.h>

#include "stats/stats.h"
#include "unit.h"

static void test_reset_empties_histograms(void)
{
    pc_stats s;
    char *buf = NULL;
    size_t len = 0;
    FILE *f;

    CHECK(stats_init(&s) == 0);
    for (int i = 1; i <= 1000; i++) {
        hdr_record(&s.latency, i * 1000);
        hdr_record(&s.rps, i);
    }
    s.completed = 1000;
    s.status[200] = 1000;
    stats_reset(&s);
    CHECK_EQ_I64(s.latency.total_count, 0);
    CHECK_EQ_I64(s.rps.total_count, 0);
    CHECK_EQ_I64(s.completed, 0);
    CHECK_EQ_I64(s.status[200], 0);
    CHECK_EQ_I64(hdr_max(&s.latency), 0);
    /* A stale total over zeroed counts made the percentile iterator spin. */
    f = open_memstream(&buf, &len);
    CHECK(hdr_percentiles_print(&s.latency, f, 5, 1e6, HDR_FMT_CLASSIC) == 0);
    fclose(f);
    free(buf);
    hdr_record(&s.latency, 5000);
    CHECK_EQ_I64(s.latency.total_count, 1);
    CHECK_EQ_I64(hdr_value_at_percentile(&s.latency, 50), hdr_highest_equivalent(&s.latency, 5000));
    stats_free(&s);
}

static void test_merge_adds(void)
{
    pc_stats a, b;

    CHECK(stats_init(&a) == 0);
    CHECK(stats_init(&b) == 0);
    hdr_record(&a.latency, 100);
    hdr_record(&b.latency, 200);
    hdr_record(&b.latency, 300);
    a.completed = 1;
    b.completed = 2;
    b.err[PC_ERR_TIMEOUT] = 4;
    b.scheduled = 6;
    a.scheduled = 1;
    stats_why(&b, PC_ERR_TIMEOUT, "slow");
    stats_merge(&a, &b);
    CHECK_EQ_I64(a.latency.total_count, 3);
    CHECK_EQ_I64(a.completed, 3);
    CHECK_EQ_I64(stats_outcomes(&a), 7);
    CHECK_EQ_I64(a.scheduled, 7);
    CHECK_EQ_STR(a.why[PC_ERR_TIMEOUT], "slow");
    stats_free(&a);
    stats_free(&b);
}

int main(void)
{
    RUN(test_reset_empties_histograms);
    RUN(test_merge_adds);
    return unit_done();
}

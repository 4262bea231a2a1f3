/*
 * test_hdr.c - unit tests for src/stats/hdr.c.
 *
 * Expected numbers marked V1..V7 come from
 * tests/data/hdrhistogram/vectors.txt (HdrHistogram_c, Java and Python
 * test suites, wrk2's README); the data those encoded vectors describe is
 * rebuilt here by recording values.
 */
#include "stats/hdr.h"
#include "unit.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

/* Prints h to a string; the caller frees it. NULL if printing failed. */
static char *print_to_string(const hdr_hist *h, int ticks, double scale, int fmt, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    *rc = hdr_percentiles_print(h, f, ticks, scale, fmt);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* ---- geometry ----------------------------------------------------------- */

static void test_geometry_v7a(void)
{
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 1, 3600000000LL, 3), 0);
    CHECK_EQ_I64(h.counts_len, 23552);
    CHECK_EQ_I64(h.bucket_count, 22);
    CHECK_EQ_I64(h.sub_bucket_count, 2048);
    CHECK_EQ_I64(h.sub_bucket_half_count, 1024);
    CHECK_EQ_I64(h.unit_magnitude, 0);
    CHECK_EQ_I64(h.sub_bucket_half_count_magnitude, 10);
    CHECK_EQ_I64(h.sub_bucket_mask, 2047);
    CHECK_EQ_I64(h.total_count, 0);
    CHECK_EQ_I64(h.min_value, INT64_MAX);
    CHECK_EQ_I64(h.max_value, 0);
    CHECK(h.counts != NULL);
    hdr_free(&h);
    CHECK(h.counts == NULL);
}

static void test_geometry_v7b_v3_v7c(void)
{
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 1, 86400000000LL, 3), 0); /* wrk2: 24 h in us */
    CHECK_EQ_I64(h.bucket_count, 27);
    CHECK_EQ_I64(h.sub_bucket_count, 2048);
    hdr_free(&h);
    CHECK_EQ_I64(hdr_init(&h, 1, 10000000, 3), 0);
    CHECK_EQ_I64(h.bucket_count, 14);
    hdr_free(&h);
    CHECK_EQ_I64(hdr_init(&h, 1, 3600000000000LL, 3), 0);
    CHECK_EQ_I64(h.bucket_count, 32);
    hdr_free(&h);
}

static void test_geometry_v4_line5(void)
{
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 20000, 3600000000000LL, 2), 0);
    CHECK_EQ_I64(h.unit_magnitude, 14);
    CHECK_EQ_I64(h.counts_len, 2816);
    CHECK_EQ_I64(h.sub_bucket_count, 256);
    CHECK_EQ_I64(h.sub_bucket_half_count_magnitude, 7);
    CHECK_EQ_I64(h.sub_bucket_mask, (int64_t)255 << 14);
    /* Values below lowest share the first 2^14-wide slot. */
    CHECK_EQ_I64(hdr_lowest_equivalent(&h, 20000), 16384);
    CHECK_EQ_I64(hdr_highest_equivalent(&h, 20000), 32767);
    CHECK_EQ_I64(hdr_highest_equivalent(&h, 0), 16383);
    /* V4 line 5 facts: max 2768895 is a highest-equivalent value. */
    CHECK_EQ_I64(hdr_highest_equivalent(&h, 2768895), 2768895);
    CHECK(hdr_record(&h, 2768895));
    CHECK_EQ_I64(hdr_max(&h), 2768895);
    hdr_free(&h);
}

static void test_geometry_pacer_ns(void)
{
    const int64_t day_ns = 86400000000000LL;
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 1, day_ns, 3), 0);
    CHECK_EQ_I64(h.sub_bucket_count, 2048);
    CHECK_EQ_I64(h.bucket_count, 37); /* 2^47 is the first power of two > 8.64e13 */
    CHECK_EQ_I64(h.counts_len, 38 * 1024);
    CHECK(hdr_record(&h, day_ns));
    CHECK(!hdr_record(&h, day_ns + 1));
    CHECK(hdr_record(&h, 1));
    CHECK(hdr_record(&h, 0));
    CHECK_EQ_I64(h.total_count, 3);
    CHECK_EQ_I64(hdr_max(&h), hdr_highest_equivalent(&h, day_ns));
    CHECK(hdr_max(&h) >= day_ns);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 100), hdr_max(&h));
    CHECK_EQ_I64(hdr_min(&h), 0);
    hdr_free(&h);
}

static void test_init_rejects_bad_geometry(void)
{
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 0, 1000, 3), -EINVAL);
    CHECK(h.counts == NULL && h.counts_len == 0);
    hdr_free(&h); /* harmless after a failed init */
    CHECK_EQ_I64(hdr_init(&h, -5, 1000, 3), -EINVAL);
    CHECK_EQ_I64(hdr_init(&h, 1, 1000, 0), -EINVAL);
    CHECK_EQ_I64(hdr_init(&h, 1, 1000, 6), -EINVAL);
    CHECK_EQ_I64(hdr_init(&h, 10, 19, 3), -EINVAL);
    CHECK_EQ_I64(hdr_init(&h, 1, 1, 3), -EINVAL);
    CHECK_EQ_I64(hdr_init(&h, 1, -1, 3), -EINVAL);
    CHECK_EQ_I64(hdr_init(&h, INT64_MAX, INT64_MAX, 3), -EINVAL);
    /* unit_magnitude + sub_bucket_half_count_magnitude > 61 */
    CHECK_EQ_I64(hdr_init(&h, INT64_C(1) << 52, INT64_MAX, 3), -EINVAL);
    CHECK_EQ_I64(hdr_init(&h, 10, 20, 3), 0);
    hdr_free(&h);
    CHECK_EQ_I64(hdr_init(&h, INT64_C(1) << 51, INT64_MAX, 3), 0);
    CHECK_EQ_I64(h.unit_magnitude, 51);
    hdr_free(&h);
    for (int s = 1; s <= 5; s++) {
        CHECK_EQ_I64(hdr_init(&h, 1, 3600000000000LL, s), 0);
        hdr_free(&h);
    }
    /* Reference sub-bucket counts per sigfigs: 2^ceil(log2(2*10^s)). */
    static const int32_t want_sbc[6] = {0, 32, 256, 2048, 32768, 262144};
    for (int s = 1; s <= 5; s++) {
        CHECK_EQ_I64(hdr_init(&h, 1, 1000000, s), 0);
        CHECK_EQ_I64(h.sub_bucket_count, want_sbc[s]);
        hdr_free(&h);
    }
}

static void test_huge_highest(void)
{
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 1, INT64_MAX / 2, 3), 0);
    CHECK_EQ_I64(h.bucket_count, 52);
    CHECK(hdr_record(&h, INT64_MAX / 2));
    CHECK(!hdr_record(&h, INT64_MAX / 2 + 1));
    CHECK(hdr_counts_index(&h, INT64_MAX / 2) < h.counts_len);
    CHECK_EQ_I64(hdr_max(&h), INT64_MAX / 2); /* top slot ends at 2^62 - 1 */
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 50), INT64_MAX / 2);
    CHECK_EQ_I64(hdr_value_at_index(&h, h.counts_len - 1), (INT64_C(2047) << 51));
    hdr_free(&h);

    CHECK_EQ_I64(hdr_init(&h, 1, INT64_MAX, 3), 0);
    CHECK_EQ_I64(h.bucket_count, 53);
    CHECK(hdr_record(&h, INT64_MAX));
    CHECK(hdr_record(&h, INT64_MAX - 1));
    CHECK_EQ_I64(hdr_max(&h), INT64_MAX);
    CHECK_EQ_I64(hdr_highest_equivalent(&h, INT64_MAX), INT64_MAX);
    CHECK_EQ_I64(hdr_lowest_equivalent(&h, INT64_MAX), INT64_C(2047) << 52);
    CHECK_EQ_I64(hdr_size_of_equivalent_range(&h, INT64_MAX), INT64_C(1) << 52);
    CHECK_EQ_I64(hdr_count_at_value(&h, INT64_MAX), 2);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 100), INT64_MAX);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 0), INT64_C(2047) << 52);
    CHECK(hdr_mean(&h) > 9.2e18);
    CHECK_EQ_I64(hdr_stddev(&h), 0);
    hdr_free(&h);
}

/* ---- slot arithmetic ---------------------------------------------------- */

static void test_index_value_round_trip(void)
{
    static const struct { int64_t lo, hi; int s; } geo[] = {
        {1, 3600000000LL, 3}, {20000, 3600000000000LL, 2}, {1, 86400000000000LL, 3},
        {1000, 1000000000LL, 1}, {1, 100000, 5}, {1, INT64_MAX, 3},
    };
    for (size_t g = 0; g < sizeof geo / sizeof geo[0]; g++) {
        hdr_hist h;
        CHECK_EQ_I64(hdr_init(&h, geo[g].lo, geo[g].hi, geo[g].s), 0);
        int64_t prev = -1;
        for (int32_t i = 0; i < h.counts_len; i++) {
            int64_t v = hdr_value_at_index(&h, i);
            if (v <= prev || hdr_counts_index(&h, v) != i || hdr_lowest_equivalent(&h, v) != v) {
                hdr_free(&h);
                CHECK_EQ_I64(i, -1);
            }
            /* Slots tile the value line without gaps. */
            if (prev >= 0 && hdr_highest_equivalent(&h, prev) + 1 != v) {
                hdr_free(&h);
                CHECK_EQ_I64(i, -2);
            }
            prev = v;
        }
        CHECK_EQ_I64(hdr_value_at_index(&h, -1), -1);
        CHECK_EQ_I64(hdr_value_at_index(&h, h.counts_len), -1);
        CHECK_EQ_I64(hdr_counts_index(&h, -1), -1);
        /* Every trackable value has a slot inside counts[]. */
        CHECK(hdr_counts_index(&h, h.highest) >= 0);
        CHECK(hdr_counts_index(&h, h.highest) < h.counts_len);
        hdr_free(&h);
    }
}

static void test_equivalent_ranges(void)
{
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 1, 3600000000LL, 3), 0);
    /* Bucket 0: unit resolution up to 2047. */
    CHECK_EQ_I64(hdr_size_of_equivalent_range(&h, 0), 1);
    CHECK_EQ_I64(hdr_size_of_equivalent_range(&h, 2047), 1);
    CHECK_EQ_I64(hdr_size_of_equivalent_range(&h, 2048), 2);
    CHECK_EQ_I64(hdr_lowest_equivalent(&h, 2049), 2048);
    CHECK_EQ_I64(hdr_highest_equivalent(&h, 2048), 2049);
    CHECK_EQ_I64(hdr_median_equivalent(&h, 2048), 2049);
    CHECK_EQ_I64(hdr_size_of_equivalent_range(&h, 4096), 4);
    CHECK_EQ_I64(hdr_median_equivalent(&h, 4097), 4098);
    CHECK_EQ_I64(hdr_counts_index(&h, 1000), 1000);
    /* V1: 100000000 sits at index 17909, slot 99942400..100007935. */
    CHECK_EQ_I64(hdr_counts_index(&h, 100000000), 17909);
    CHECK_EQ_I64(hdr_value_at_index(&h, 17909), 99942400);
    CHECK_EQ_I64(hdr_lowest_equivalent(&h, 100000000), 99942400);
    CHECK_EQ_I64(hdr_highest_equivalent(&h, 100000000), 100007935);
    CHECK_EQ_I64(hdr_size_of_equivalent_range(&h, 100000000), 65536);
    /* V6b: lowest-equivalent values of 2567 and 3335. */
    CHECK_EQ_I64(hdr_lowest_equivalent(&h, 2567), 2566);
    CHECK_EQ_I64(hdr_lowest_equivalent(&h, 3335), 3334);
    /* Negative inputs are treated as 0. */
    CHECK_EQ_I64(hdr_lowest_equivalent(&h, -7), 0);
    CHECK_EQ_I64(hdr_highest_equivalent(&h, -7), 0);
    hdr_free(&h);
}

/* ---- reference vectors -------------------------------------------------- */

static void test_v1_raw(void)
{
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 1, 3600000000LL, 3), 0);
    for (int i = 0; i < 10000; i++)
        CHECK(hdr_record(&h, 1000));
    CHECK(hdr_record(&h, 100000000));
    CHECK_EQ_I64(h.total_count, 10001);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 30.0), 1000);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 99.0), 1000);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 99.99), 1000);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 99.999), 100007935);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 100.0), 100007935);
    CHECK_EQ_I64(hdr_max(&h), 100007935);
    CHECK_EQ_I64(hdr_min(&h), 1000);
    CHECK_EQ_I64(h.counts[1000], 10000);
    CHECK_EQ_I64(h.counts[17909], 1);
    CHECK_EQ_I64(hdr_count_at_value(&h, 100000001), 1);

    /* The same data through hdr_record_n. */
    hdr_hist g;
    CHECK_EQ_I64(hdr_init(&g, 1, 3600000000LL, 3), 0);
    CHECK(hdr_record_n(&g, 1000, 10000));
    CHECK(hdr_record_n(&g, 100000000, 1));
    CHECK(hdr_equal(&h, &g));
    CHECK_EQ_I64(hdr_max(&g), 100007935);
    hdr_free(&g);
    hdr_free(&h);
}

static void test_v2_corrected(void)
{
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 1, 3600000000LL, 3), 0);
    for (int i = 0; i < 10000; i++)
        CHECK(hdr_record_corrected(&h, 1000, 10000));
    CHECK(hdr_record_corrected(&h, 100000000, 10000));
    CHECK_EQ_I64(h.total_count, 20000);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 30.0), 1000);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 50.0), 1000);
    CHECK_EQ_I64(hdr_highest_equivalent(&h, 1000), 1000);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 75.0), 50003967);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 90.0), 80019455);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 99.0), 98041855);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 99.999), 100007935);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 100.0), 100007935);
    /* The C suite's 0.1% tolerances around the round numbers. */
    CHECK_NEAR(hdr_value_at_percentile(&h, 75.0), 50000000, 50000);
    CHECK_NEAR(hdr_value_at_percentile(&h, 90.0), 80000000, 80000);
    CHECK_NEAR(hdr_value_at_percentile(&h, 99.0), 98000000, 98000);
    /* The synthetic samples run down to exactly one interval. */
    CHECK_EQ_I64(hdr_count_at_value(&h, 10000), 1);
    CHECK_EQ_I64(hdr_count_at_value(&h, 9999), 0);
    CHECK_EQ_I64(hdr_min(&h), 1000);
    hdr_free(&h);
}

static void test_v3_mean_stddev(void)
{
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 1, 10000000, 3), 0);
    CHECK(hdr_record(&h, 139520));
    CHECK(hdr_record(&h, 187008));
    CHECK(hdr_record(&h, 477440));
    CHECK_EQ_I64(hdr_highest_equivalent(&h, 139520), 139647);
    CHECK_EQ_I64(hdr_highest_equivalent(&h, 187008), 187135);
    CHECK_EQ_I64(hdr_highest_equivalent(&h, 477440), 477695);
    CHECK_EQ_I64(hdr_max(&h), 477695);

    char buf[64];
    snprintf(buf, sizeof buf, "%12.3f", hdr_mean(&h));
    CHECK_EQ_STR(buf, "  268074.667");
    snprintf(buf, sizeof buf, "%12.3f", hdr_stddev(&h));
    CHECK_EQ_STR(buf, "  149397.390");

    /* Each step of the iterator reports one of the three slots. */
    hdr_pct_iter it;
    hdr_pct_iter_init(&it, &h, 5);
    int64_t seen[3] = {0, 0, 0};
    while (hdr_pct_iter_next(&it)) {
        CHECK(it.count_to_here >= 1 && it.count_to_here <= 3);
        seen[it.count_to_here - 1] = it.value;
    }
    CHECK_EQ_I64(seen[0], 139647);
    CHECK_EQ_I64(seen[1], 187135);
    CHECK_EQ_I64(seen[2], 477695);

    int rc = -1;
    char *out = print_to_string(&h, 5, 1.0, HDR_FMT_CLASSIC, &rc);
    CHECK(out != NULL);
    CHECK_EQ_I64(rc, 0);
    int ok = strstr(out, "#[Mean    =   268074.667, StdDeviation   =   149397.390]\n"
                         "#[Max     =   477695.000, Total count    =            3]\n"
                         "#[Buckets =           14, SubBuckets     =         2048]\n") != NULL;
    free(out);
    CHECK(ok);
    hdr_free(&h);
}

static const char v7c_classic[] =
    "       Value   Percentile   TotalCount 1/(1-Percentile)\n"
    "\n"
    "     100.000     0.000000            1         1.00\n"
    "     100.000     0.100000            1         1.11\n"
    "     100.000     0.200000            1         1.25\n"
    "     200.000     0.300000            2         1.43\n"
    "     200.000     0.400000            2         1.67\n"
    "     200.000     0.500000            2         2.00\n"
    "     250.000     0.550000            3         2.22\n"
    "     250.000     0.600000            3         2.50\n"
    "     250.000     0.650000            3         2.86\n"
    "     250.000     0.700000            3         3.33\n"
    "     250.000     0.750000            3         4.00\n"
    "     600.000     0.775000            4         4.44\n"
    "     600.000     1.000000            4          inf\n"
    "#[Mean    =      287.500, StdDeviation   =      188.331]\n"
    "#[Max     =      600.000, Total count    =            4]\n"
    "#[Buckets =           32, SubBuckets     =         2048]\n";

static const char v7c_csv[] =
    "Value,Percentile,TotalCount,1/(1-Percentile)\n"
    "100.000,0.000000,1,1.00\n"
    "100.000,0.100000,1,1.11\n"
    "100.000,0.200000,1,1.25\n"
    "200.000,0.300000,2,1.43\n"
    "200.000,0.400000,2,1.67\n"
    "200.000,0.500000,2,2.00\n"
    "250.000,0.550000,3,2.22\n"
    "250.000,0.600000,3,2.50\n"
    "250.000,0.650000,3,2.86\n"
    "250.000,0.700000,3,3.33\n"
    "250.000,0.750000,3,4.00\n"
    "600.000,0.775000,4,4.44\n"
    "600.000,1.000000,4,inf\n";

static void test_v7c_print(void)
{
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 1, 3600000000000LL, 3), 0);
    CHECK(hdr_record(&h, 100));
    CHECK(hdr_record(&h, 200));
    CHECK(hdr_record(&h, 250));
    CHECK(hdr_record(&h, 600));

    int rc = -1;
    char *out = print_to_string(&h, 5, 1.0, HDR_FMT_CLASSIC, &rc);
    CHECK(out != NULL);
    int same = strcmp(out, v7c_classic) == 0;
    if (!same)
        fprintf(stderr, "got:\n%s", out);
    free(out);
    CHECK_EQ_I64(rc, 0);
    CHECK(same);

    out = print_to_string(&h, 5, 1.0, HDR_FMT_CSV, &rc);
    CHECK(out != NULL);
    same = strcmp(out, v7c_csv) == 0;
    if (!same)
        fprintf(stderr, "got:\n%s", out);
    free(out);
    CHECK_EQ_I64(rc, 0);
    CHECK(same);

    /* value_scale divides the value column and the footer's mean/stddev/max. */
    out = print_to_string(&h, 5, 1000.0, HDR_FMT_CLASSIC, &rc);
    CHECK(out != NULL);
    int ok = strstr(out, "       0.100     0.000000            1         1.00\n") &&
             strstr(out, "       0.600     1.000000            4          inf\n") &&
             strstr(out, "#[Mean    =        0.287, StdDeviation   =        0.188]\n"
                         "#[Max     =        0.600, Total count    =            4]\n");
    free(out);
    CHECK_EQ_I64(rc, 0);
    CHECK(ok);
    hdr_free(&h);
}

static void test_v7c_iteration(void)
{
    static const struct { int64_t v; double p; int64_t n; } want[] = {
        {100, 0.0, 1},  {100, 10.0, 1}, {100, 20.0, 1}, {200, 30.0, 2}, {200, 40.0, 2},
        {200, 50.0, 2}, {250, 55.0, 3}, {250, 60.0, 3}, {250, 65.0, 3}, {250, 70.0, 3},
        {250, 75.0, 3}, {600, 77.5, 4}, {600, 100.0, 4},
    };
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 1, 3600000000000LL, 3), 0);
    CHECK(hdr_record(&h, 100));
    CHECK(hdr_record(&h, 200));
    CHECK(hdr_record(&h, 250));
    CHECK(hdr_record(&h, 600));
    hdr_pct_iter it;
    hdr_pct_iter_init(&it, &h, 5);
    size_t n = 0;
    while (hdr_pct_iter_next(&it)) {
        CHECK(n < sizeof want / sizeof want[0]);
        CHECK_EQ_I64(it.value, want[n].v);
        CHECK_NEAR(it.percentile, want[n].p, 1e-9);
        CHECK_EQ_I64(it.count_to_here, want[n].n);
        CHECK_EQ_I64(it.is_last, n == sizeof want / sizeof want[0] - 1);
        n++;
    }
    CHECK_EQ_I64(n, sizeof want / sizeof want[0]);
    CHECK(!hdr_pct_iter_next(&it)); /* stays finished */
    hdr_free(&h);
}

/* ---- behaviour ---------------------------------------------------------- */

static void test_out_of_range_rejected(void)
{
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 1, 1000000, 3), 0);
    CHECK(!hdr_record(&h, -1));
    CHECK(!hdr_record(&h, INT64_MIN));
    CHECK(!hdr_record(&h, 1000001));
    CHECK(!hdr_record(&h, INT64_MAX));
    CHECK(!hdr_record_n(&h, -1, 5));
    CHECK(!hdr_record_n(&h, 1000001, 5));
    CHECK(!hdr_record_n(&h, 10, -1));
    CHECK(!hdr_record_corrected(&h, 2000000, 100));
    CHECK(!hdr_record_corrected(&h, -3, 100));
    CHECK_EQ_I64(h.total_count, 0);
    CHECK_EQ_I64(h.min_value, INT64_MAX);
    CHECK_EQ_I64(h.max_value, 0);
    for (int32_t i = 0; i < h.counts_len; i++)
        CHECK_EQ_I64(h.counts[i], 0);
    /* A zero count is accepted but records nothing. */
    CHECK(hdr_record_n(&h, 500, 0));
    CHECK_EQ_I64(h.total_count, 0);
    CHECK_EQ_I64(hdr_max(&h), 0);
    CHECK(hdr_record(&h, 1000000));
    CHECK(hdr_record(&h, 0));
    CHECK_EQ_I64(h.total_count, 2);
    /* Corrected recording: no correction for a non-positive interval or a
     * value within one interval. */
    CHECK(hdr_record_corrected(&h, 5000, 0));
    CHECK(hdr_record_corrected(&h, 5000, -10));
    CHECK(hdr_record_corrected(&h, 100, 100));
    CHECK_EQ_I64(h.total_count, 5);
    CHECK(hdr_record_corrected(&h, 350, 100)); /* 350, 250, 150 */
    CHECK_EQ_I64(h.total_count, 8);
    CHECK_EQ_I64(hdr_count_at_value(&h, 150), 1);
    CHECK_EQ_I64(hdr_count_at_value(&h, 50), 0);
    CHECK_EQ_I64(hdr_count_at_value(&h, -1), 0);
    CHECK_EQ_I64(hdr_count_at_value(&h, INT64_MAX), 0);
    hdr_free(&h);
}

static void test_reset(void)
{
    hdr_hist h, empty;
    CHECK_EQ_I64(hdr_init(&h, 1, 3600000000LL, 3), 0);
    CHECK_EQ_I64(hdr_init(&empty, 1, 3600000000LL, 3), 0);
    for (int64_t v = 1; v < 5000000; v = v * 3 + 1)
        CHECK(hdr_record(&h, v));
    CHECK(hdr_record(&h, 0));
    CHECK(h.total_count > 0);
    CHECK(!hdr_equal(&h, &empty));
    hdr_reset(&h);
    CHECK_EQ_I64(h.total_count, 0);
    CHECK_EQ_I64(h.min_value, INT64_MAX);
    CHECK_EQ_I64(h.max_value, 0);
    CHECK_EQ_I64(h.counts_len, 23552);
    for (int32_t i = 0; i < h.counts_len; i++)
        CHECK_EQ_I64(h.counts[i], 0);
    CHECK(hdr_equal(&h, &empty));
    CHECK_EQ_I64(hdr_max(&h), 0);
    CHECK_EQ_I64(hdr_min(&h), INT64_MAX);
    /* Usable again. */
    CHECK(hdr_record(&h, 42));
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 50), 42);
    CHECK_EQ_I64(hdr_min(&h), 42);
    hdr_free(&empty);
    hdr_free(&h);
}

static void test_empty(void)
{
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 1, 3600000000000LL, 3), 0);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 0), 0);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 50), 0);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 100), 0);
    CHECK_EQ_I64(hdr_max(&h), 0);
    CHECK_EQ_I64(hdr_min(&h), INT64_MAX); /* HdrHistogram_c's convention */
    CHECK(hdr_mean(&h) == 0.0);
    CHECK(hdr_stddev(&h) == 0.0);
    CHECK(hdr_fraction_within(&h, -1e18, 1e18) == 0.0);

    hdr_pct_iter it;
    hdr_pct_iter_init(&it, &h, 5);
    CHECK(hdr_pct_iter_next(&it));
    CHECK(it.is_last);
    CHECK_EQ_I64(it.value, 0);
    CHECK_EQ_I64(it.count_to_here, 0);
    CHECK(it.percentile == 100.0);
    CHECK(!hdr_pct_iter_next(&it));

    int rc = -1;
    char *out = print_to_string(&h, 5, 1000.0, HDR_FMT_CLASSIC, &rc);
    CHECK(out != NULL);
    int same = strcmp(out, "       Value   Percentile   TotalCount 1/(1-Percentile)\n\n"
                           "       0.000     1.000000            0          inf\n"
                           "#[Mean    =        0.000, StdDeviation   =        0.000]\n"
                           "#[Max     =        0.000, Total count    =            0]\n"
                           "#[Buckets =           32, SubBuckets     =         2048]\n") == 0;
    free(out);
    CHECK_EQ_I64(rc, 0);
    CHECK(same);

    /* An empty histogram adds nothing. */
    hdr_hist g;
    CHECK_EQ_I64(hdr_init(&g, 1, 1000, 2), 0);
    CHECK_EQ_I64(hdr_add(&g, &h), 0);
    CHECK_EQ_I64(g.total_count, 0);
    CHECK_EQ_I64(hdr_max(&g), 0);
    hdr_free(&g);
    hdr_free(&h);
}

static void test_percentile_extremes(void)
{
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 1, 3600000000LL, 3), 0);
    CHECK(hdr_record(&h, 5000));    /* slot 5000..5003 */
    CHECK(hdr_record(&h, 7001));    /* slot 7000..7003 */
    CHECK(hdr_record(&h, 1234567)); /* slot 1233920..1234943 */
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 0), 5000);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 1e-9), 5003);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 33.3), 5003);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 50), 7003);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 100), 1234943);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 150), 1234943);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, -5), 5000);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, NAN), 5000);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 100), hdr_max(&h));
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 0), hdr_min(&h));
    /* A recorded 0 makes the minimum 0 even though min_value skips zeros. */
    CHECK(hdr_record(&h, 0));
    CHECK_EQ_I64(hdr_min(&h), 0);
    CHECK_EQ_I64(h.min_value, 5000);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 0), 0);
    hdr_free(&h);

    /* Only zeros: max 0, percentiles 0. */
    CHECK_EQ_I64(hdr_init(&h, 1, 1000, 3), 0);
    CHECK(hdr_record_n(&h, 0, 3));
    CHECK_EQ_I64(hdr_max(&h), 0);
    CHECK_EQ_I64(hdr_min(&h), 0);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 100), 0);
    CHECK(hdr_mean(&h) == 0.0);
    hdr_free(&h);
}

static void test_single_value_iteration(void)
{
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 1, 86400000000000LL, 3), 0);
    CHECK(hdr_record(&h, 5000));
    hdr_pct_iter it;
    hdr_pct_iter_init(&it, &h, 5);
    CHECK(hdr_pct_iter_next(&it));
    CHECK(!it.is_last);
    CHECK_EQ_I64(it.value, 5003);
    CHECK(it.percentile == 0.0);
    CHECK_EQ_I64(it.count_to_here, 1);
    CHECK(hdr_pct_iter_next(&it));
    CHECK(it.is_last);
    CHECK_EQ_I64(it.value, 5003);
    CHECK(it.percentile == 100.0);
    CHECK_EQ_I64(it.count_to_here, 1);
    CHECK(!hdr_pct_iter_next(&it));

    /* Many counts in one slot: still one step per level, then the end. */
    CHECK(hdr_record_n(&h, 5001, 999));
    hdr_pct_iter_init(&it, &h, 1);
    int steps = 0;
    while (hdr_pct_iter_next(&it)) {
        CHECK_EQ_I64(it.value, 5003);
        CHECK_EQ_I64(it.count_to_here, 1000);
        steps++;
    }
    CHECK_EQ_I64(steps, 2);

    /* ticks < 1 behaves as 1 instead of never advancing. */
    hdr_pct_iter_init(&it, &h, 0);
    steps = 0;
    while (hdr_pct_iter_next(&it) && steps < 100)
        steps++;
    CHECK_EQ_I64(steps, 2);

    char *out;
    int rc = 0;
    out = print_to_string(&h, 0, 1.0, HDR_FMT_CLASSIC, &rc);
    free(out);
    CHECK_EQ_I64(rc, -EINVAL);
    out = print_to_string(&h, 5, 0.0, HDR_FMT_CLASSIC, &rc);
    free(out);
    CHECK_EQ_I64(rc, -EINVAL);
    out = print_to_string(&h, 5, NAN, HDR_FMT_CLASSIC, &rc);
    free(out);
    CHECK_EQ_I64(rc, -EINVAL);
    out = print_to_string(&h, 5, 1.0, 7, &rc);
    free(out);
    CHECK_EQ_I64(rc, -EINVAL);
    CHECK_EQ_I64(hdr_percentiles_print(&h, NULL, 5, 1.0, HDR_FMT_CLASSIC), -EINVAL);
    hdr_free(&h);
}

/* Every step's percentile is reached by its count, and the iterator visits
 * ever higher levels: a property check on a skewed distribution. */
static void test_iteration_properties(void)
{
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 1, 86400000000000LL, 3), 0);
    for (int64_t i = 1; i <= 100000; i++)
        CHECK(hdr_record(&h, i * i));
    hdr_pct_iter it;
    hdr_pct_iter_init(&it, &h, 5);
    double prev_p = -1;
    int64_t prev_v = -1, prev_n = 0;
    int steps = 0;
    while (hdr_pct_iter_next(&it)) {
        CHECK(it.percentile > prev_p);
        CHECK(it.value >= prev_v);
        CHECK(it.count_to_here >= prev_n);
        if (!it.is_last) {
            CHECK(100.0 * (double)it.count_to_here / (double)h.total_count >= it.percentile);
            /* The step value is what value_at_percentile reports for the
             * step's level (a cumulative level can only be lower). */
            CHECK(hdr_value_at_percentile(&h, it.percentile) <= it.value);
        }
        prev_p = it.percentile;
        prev_v = it.value;
        prev_n = it.count_to_here;
        steps++;
    }
    CHECK_EQ_I64(prev_n, 100000);
    CHECK_EQ_I64(prev_v, hdr_max(&h));
    CHECK(steps > 50);
    hdr_free(&h);
}

static void test_fraction_within(void)
{
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 1, 3600000000LL, 3), 0);
    /* Unit-resolution values: median equivalents are the values. */
    for (int64_t v = 1; v <= 10; v++)
        CHECK(hdr_record_n(&h, v * 100, v));
    CHECK_NEAR(hdr_fraction_within(&h, 0, 1e9), 100.0, 1e-12);
    CHECK_NEAR(hdr_fraction_within(&h, 100, 100), 100.0 * 1 / 55, 1e-9);
    CHECK_NEAR(hdr_fraction_within(&h, 150, 350), 100.0 * 5 / 55, 1e-9);
    CHECK_NEAR(hdr_fraction_within(&h, 1000, 1000), 100.0 * 10 / 55, 1e-9);
    CHECK_NEAR(hdr_fraction_within(&h, 1000.5, 2000), 0.0, 0);
    CHECK_NEAR(hdr_fraction_within(&h, 500, 100), 0.0, 0);

    double mean = hdr_mean(&h), sd = hdr_stddev(&h);
    CHECK_NEAR(mean, 700.0, 1e-9); /* sum v^2*100 / 55 = 38500 / 55 */
    CHECK_NEAR(sd, sqrt(60000.0), 1e-9); /* E[v^2] 550000 - 700^2 */
    /* Values 500..900 lie within 700 +/- 244.9. */
    CHECK_NEAR(hdr_fraction_within(&h, mean - sd, mean + sd), 100.0 * 35 / 55, 1e-9);
    hdr_free(&h);

    /* A single value in a coarse slot is 100% within mean +/- 0. */
    CHECK_EQ_I64(hdr_init(&h, 1, 10000000, 3), 0);
    CHECK(hdr_record(&h, 477440));
    mean = hdr_mean(&h);
    CHECK_NEAR(mean, 477568, 0);
    CHECK_NEAR(hdr_stddev(&h), 0, 0);
    CHECK_NEAR(hdr_fraction_within(&h, mean, mean), 100.0, 0);
    hdr_free(&h);
}

/* ---- merging ------------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    /* xorshift64*: deterministic and good enough for test data. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * UINT64_C(2685821657736338717);
}

/* Roughly log-uniform in [0, 2^max_bits): latency-like spread. */
static int64_t rng_value(int max_bits)
{
    int bits = (int)(rng_next() % (uint64_t)max_bits);
    return (int64_t)(rng_next() & ((UINT64_C(1) << bits) * 2 - 1));
}

static void test_add_same_geometry(void)
{
    hdr_hist a, b, all;
    CHECK_EQ_I64(hdr_init(&a, 1, 86400000000000LL, 3), 0);
    CHECK_EQ_I64(hdr_init(&b, 1, 86400000000000LL, 3), 0);
    CHECK_EQ_I64(hdr_init(&all, 1, 86400000000000LL, 3), 0);
    rng_state = 0x5eed1234u;
    for (int i = 0; i < 20000; i++) {
        int64_t v = rng_value(40);
        CHECK(hdr_record(i % 3 ? &a : &b, v));
        CHECK(hdr_record(&all, v));
    }
    CHECK(hdr_record(&b, 0));
    CHECK(hdr_record(&all, 0));
    CHECK_EQ_I64(hdr_add(&a, &b), 0);
    CHECK(hdr_equal(&a, &all));
    CHECK_EQ_I64(a.total_count, 20001);
    CHECK_EQ_I64(hdr_max(&a), hdr_max(&all));
    CHECK_EQ_I64(hdr_min(&a), hdr_min(&all));
    CHECK(hdr_mean(&a) == hdr_mean(&all));
    CHECK(hdr_stddev(&a) == hdr_stddev(&all));
    CHECK_EQ_I64(hdr_value_at_percentile(&a, 99.9), hdr_value_at_percentile(&all, 99.9));

    /* Self-add doubles every count. */
    int64_t b_total = b.total_count, b_zero = b.counts[0];
    CHECK_EQ_I64(hdr_add(&b, &b), 0);
    CHECK_EQ_I64(b.total_count, 2 * b_total);
    CHECK_EQ_I64(b.counts[0], 2 * b_zero);
    hdr_reset(&all);
    CHECK_EQ_I64(hdr_add(&all, &a), 0);
    CHECK_EQ_I64(hdr_add(&all, &a), 0);
    CHECK_EQ_I64(hdr_add(&a, &a), 0);
    CHECK(hdr_equal(&a, &all));
    hdr_free(&all);
    hdr_free(&b);
    hdr_free(&a);
}

static void test_add_different_geometry(void)
{
    /* dst covers more and is no finer than src: equal to direct recording. */
    hdr_hist small, wide, coarse, direct_wide, direct_coarse;
    CHECK_EQ_I64(hdr_init(&small, 1, 1000000, 3), 0);
    CHECK_EQ_I64(hdr_init(&wide, 1, 1000000000, 3), 0);
    CHECK_EQ_I64(hdr_init(&coarse, 1000, 3600000000LL, 2), 0);
    CHECK_EQ_I64(hdr_init(&direct_wide, 1, 1000000000, 3), 0);
    CHECK_EQ_I64(hdr_init(&direct_coarse, 1000, 3600000000LL, 2), 0);
    rng_state = 42;
    for (int i = 0; i < 5000; i++) {
        int64_t v = rng_value(20) % 1000001;
        CHECK(hdr_record(&small, v));
        CHECK(hdr_record(&direct_wide, v));
        CHECK(hdr_record(&direct_coarse, v));
    }
    CHECK(hdr_record(&wide, 123456789)); /* already there, beyond small's range */
    CHECK(hdr_record(&direct_wide, 123456789));
    CHECK_EQ_I64(hdr_add(&wide, &small), 0);
    CHECK(hdr_equal(&wide, &direct_wide));
    CHECK_EQ_I64(hdr_value_at_percentile(&wide, 90), hdr_value_at_percentile(&direct_wide, 90));
    CHECK_EQ_I64(hdr_add(&coarse, &small), 0);
    CHECK(hdr_equal(&coarse, &direct_coarse));
    CHECK_EQ_I64(hdr_max(&coarse), hdr_max(&direct_coarse));
    CHECK(!hdr_equal(&coarse, &small)); /* different slots, same total */
    CHECK_EQ_I64(coarse.total_count, small.total_count);

    /* dst covers less: the excess is dropped and counted. */
    hdr_hist narrow;
    CHECK_EQ_I64(hdr_init(&narrow, 1, 100000, 3), 0);
    int64_t over = 0;
    for (int32_t i = 0; i < wide.counts_len; i++)
        if (wide.counts[i] && hdr_value_at_index(&wide, i) > 100000)
            over += wide.counts[i];
    CHECK(over > 0);
    CHECK_EQ_I64(hdr_add(&narrow, &wide), over);
    CHECK_EQ_I64(narrow.total_count, wide.total_count - over);
    CHECK(hdr_max(&narrow) <= hdr_highest_equivalent(&narrow, 100000));

    hdr_free(&narrow);
    hdr_free(&direct_coarse);
    hdr_free(&direct_wide);
    hdr_free(&coarse);
    hdr_free(&wide);
    hdr_free(&small);
}

static void test_equal(void)
{
    hdr_hist a, b, c;
    CHECK_EQ_I64(hdr_init(&a, 1, 1000000, 3), 0);
    CHECK_EQ_I64(hdr_init(&b, 1, 1000000, 3), 0);
    CHECK_EQ_I64(hdr_init(&c, 1, 1000000000, 3), 0);
    CHECK(hdr_equal(&a, &b));
    CHECK(hdr_equal(&a, &c)); /* both empty */
    CHECK(hdr_record(&a, 5000));
    CHECK(!hdr_equal(&a, &b));
    CHECK(hdr_record(&b, 5001)); /* same slot 5000..5003 */
    CHECK(hdr_equal(&a, &b));
    CHECK(hdr_record(&c, 5002));
    CHECK(hdr_equal(&a, &c)); /* different highest, same slots */
    CHECK(hdr_record(&a, 7));
    CHECK(hdr_record(&b, 8));
    CHECK(!hdr_equal(&a, &b));
    CHECK(hdr_record(&c, 7));
    CHECK(hdr_record(&c, 7));
    CHECK(!hdr_equal(&a, &c)); /* totals differ */
    hdr_free(&c);
    hdr_free(&b);
    hdr_free(&a);
}

/* ---- randomized against an exact computation ---------------------------- */

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static void test_randomized_vs_sorted(void)
{
    enum { N = 100003 };
    static int64_t vals[N];
    static const double pcts[] = {0,    0.001, 1,     10,     25,   33.3333, 50,
                                  75,   90,    99,    99.9,   99.99, 99.999, 99.9999,
                                  100};
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 1, 86400000000000LL, 3), 0);
    rng_state = UINT64_C(0x9e3779b97f4a7c15);
    double exact_mean_of_medians = 0;
    for (int i = 0; i < N; i++) {
        vals[i] = rng_value(46);
        CHECK(hdr_record(&h, vals[i]));
    }
    qsort(vals, N, sizeof vals[0], cmp_i64);

    for (size_t k = 0; k < sizeof pcts / sizeof pcts[0]; k++) {
        double p = pcts[k];
        int64_t n = (int64_t)(p / 100 * N + 0.5);
        if (n < 1)
            n = 1;
        int64_t exact = vals[n - 1];
        int64_t got = hdr_value_at_percentile(&h, p);
        /* Same slot as the exact order statistic, reported at the slot's
         * upper end (lower end for p == 0). */
        CHECK_EQ_I64(hdr_lowest_equivalent(&h, got), hdr_lowest_equivalent(&h, exact));
        CHECK_EQ_I64(got, p == 0 ? hdr_lowest_equivalent(&h, exact)
                                 : hdr_highest_equivalent(&h, exact));
        /* Three significant figures. */
        CHECK(got - exact <= (exact > 2047 ? exact / 1000 : 0));
    }
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 0), hdr_min(&h));
    CHECK_EQ_I64(hdr_min(&h), hdr_lowest_equivalent(&h, vals[0] ? vals[0] : 0));
    CHECK_EQ_I64(hdr_max(&h), hdr_highest_equivalent(&h, vals[N - 1]));

    /* Mean: the reference's median-equivalent mean, and close to the true one. */
    double exact_mean = 0;
    for (int i = 0; i < N; i++) {
        exact_mean_of_medians += (double)hdr_median_equivalent(&h, vals[i]);
        exact_mean += (double)vals[i];
    }
    exact_mean_of_medians /= N;
    exact_mean /= N;
    CHECK_NEAR(hdr_mean(&h), exact_mean_of_medians, exact_mean_of_medians * 1e-9);
    CHECK_NEAR(hdr_mean(&h), exact_mean, exact_mean * 1e-3);
    double var = 0;
    for (int i = 0; i < N; i++) {
        double d = (double)vals[i] - exact_mean;
        var += d * d;
    }
    CHECK_NEAR(hdr_stddev(&h), sqrt(var / N), sqrt(var / N) * 2e-3);

    /* Every value lies within its own slot, and the slot is narrow. */
    for (int i = 0; i < N; i++) {
        int64_t v = vals[i];
        int64_t lo = hdr_lowest_equivalent(&h, v), hi = hdr_highest_equivalent(&h, v);
        if (lo > v || hi < v || hi - lo + 1 != hdr_size_of_equivalent_range(&h, v) ||
            (v >= 2048 && (hi - lo + 1) * 1000 > v)) {
            hdr_free(&h);
            CHECK_EQ_I64(v, -1);
        }
    }
    hdr_free(&h);
}

int main(void)
{
    RUN(test_geometry_v7a);
    RUN(test_geometry_v7b_v3_v7c);
    RUN(test_geometry_v4_line5);
    RUN(test_geometry_pacer_ns);
    RUN(test_init_rejects_bad_geometry);
    RUN(test_huge_highest);
    RUN(test_index_value_round_trip);
    RUN(test_equivalent_ranges);
    RUN(test_v1_raw);
    RUN(test_v2_corrected);
    RUN(test_v3_mean_stddev);
    RUN(test_v7c_print);
    RUN(test_v7c_iteration);
    RUN(test_out_of_range_rejected);
    RUN(test_reset);
    RUN(test_empty);
    RUN(test_percentile_extremes);
    RUN(test_single_value_iteration);
    RUN(test_iteration_properties);
    RUN(test_fraction_within);
    RUN(test_add_same_geometry);
    RUN(test_add_different_geometry);
    RUN(test_equal);
    RUN(test_randomized_vs_sorted);
    return unit_done();
}

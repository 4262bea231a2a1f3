/*
 * test_units.c - unit tests for src/util/units.c: the duration, count, rate
 * and size parsers, and the wrk-compatible printers.
 *
 * Expected printer outputs are wrk's (units.c: a value moves to the next
 * unit once it reaches 85% of the scale; time switches to the s/m/h table
 * at one second; two decimals).
 */
#include "util/units.h"
#include "unit.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NS_PER_S 1000000000ull


/* The parsers must not touch *out on failure; this sentinel shows it. */
#define SENTINEL 0x5a5a5a5a5a5a5a5aull

/* ---- durations --------------------------------------------------------- */

static void test_duration_suffixes(void)
{
    uint64_t ns = 0;

    CHECK_EQ_I64(units_parse_duration("10s", &ns), 0);
    CHECK_EQ_I64(ns, 10 * NS_PER_S);
    CHECK_EQ_I64(units_parse_duration("1.5s", &ns), 0);
    CHECK_EQ_I64(ns, 1500000000);
    CHECK_EQ_I64(units_parse_duration("500ms", &ns), 0);
    CHECK_EQ_I64(ns, 500000000);
    CHECK_EQ_I64(units_parse_duration("250us", &ns), 0);
    CHECK_EQ_I64(ns, 250000);
    CHECK_EQ_I64(units_parse_duration("100ns", &ns), 0);
    CHECK_EQ_I64(ns, 100);
    CHECK_EQ_I64(units_parse_duration("2m", &ns), 0);
    CHECK_EQ_I64(ns, 120 * NS_PER_S);
    CHECK_EQ_I64(units_parse_duration("1h", &ns), 0);
    CHECK_EQ_I64(ns, 3600 * NS_PER_S);
    CHECK_EQ_I64(units_parse_duration("3d", &ns), 0);
    CHECK_EQ_I64(ns, 3 * 86400 * NS_PER_S);
}

static void test_duration_bare_number_is_seconds(void)
{
    uint64_t ns = SENTINEL;

    CHECK_EQ_I64(units_parse_duration("10", &ns), 0);
    CHECK_EQ_I64(ns, 10 * NS_PER_S);
    CHECK_EQ_I64(units_parse_duration("0", &ns), 0);
    CHECK_EQ_I64(ns, 0);
    CHECK_EQ_I64(units_parse_duration("0.25", &ns), 0);
    CHECK_EQ_I64(ns, 250000000);
    CHECK_EQ_I64(units_parse_duration("0s", &ns), 0);
    CHECK_EQ_I64(ns, 0);
}

static void test_duration_decimals_are_exact(void)
{
    uint64_t ns = 0;

    /* 0.1 is not exact in binary; the result must still be a whole 100 ms. */
    CHECK_EQ_I64(units_parse_duration("0.1s", &ns), 0);
    CHECK_EQ_I64(ns, 100000000);
    CHECK_EQ_I64(units_parse_duration(".5s", &ns), 0);
    CHECK_EQ_I64(ns, 500000000);
    CHECK_EQ_I64(units_parse_duration("1.001ms", &ns), 0);
    CHECK_EQ_I64(ns, 1001000);
    CHECK_EQ_I64(units_parse_duration("2.5m", &ns), 0);
    CHECK_EQ_I64(ns, 150 * NS_PER_S);
    /* Every value 0.000ms .. 99.999ms in steps of 1us lands exactly. */
    for (int a = 0; a < 100000; a++) {
        char b[32];
        snprintf(b, sizeof b, "%d.%03dms", a / 1000, a % 1000);
        CHECK_EQ_I64(units_parse_duration(b, &ns), 0);
        CHECK_EQ_I64(ns, (uint64_t)a * 1000);
    }
}

static void test_duration_rejects(void)
{
    static const char *const bad[] = {
        "", "s", "ms", "-1s", "-1", "10x", "10 s", " 10s", "10s ", "1.5.5s",
        "10sec", "10S", "nan", "inf", "infs", "0x10", "0x10s", "1e3x", "+", ".s",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t ns = SENTINEL;
        int rc = units_parse_duration(bad[i], &ns);
        if (rc != -EINVAL) {
            snprintf(unit_msg, sizeof unit_msg, "%s:%d: duration \"%s\" returned %d, want -EINVAL",
                     __FILE__, __LINE__, bad[i], rc);
            unit_failed_now = 1;
            return;
        }
    }
}

static void test_duration_too_large(void)
{
    uint64_t ns = SENTINEL;

    CHECK_EQ_I64(units_parse_duration("1e400", &ns), -ERANGE);
    CHECK_EQ_I64(units_parse_duration("1e400s", &ns), -ERANGE);
    /* 1e10 days = 8.64e23 ns, far beyond uint64_t. */
    CHECK_EQ_I64(units_parse_duration("10000000000d", &ns), -ERANGE);
    CHECK_EQ_I64(units_parse_duration("20000000000s", &ns), -ERANGE);
}

/* 200000 days = 1.728e19 ns: fits in uint64_t (max 1.8446744e19) but not in
 * int64_t. It must come back either exactly or as -ERANGE, never as some
 * other number. */
static void test_duration_above_int64_max(void)
{
    uint64_t ns = 0;
    int rc = units_parse_duration("200000d", &ns);

    CHECK(rc == 0 || rc == -ERANGE);
    if (rc == 0)
        CHECK_EQ_U64(ns, 17280000000000000000ull);
}

/* ---- counts ------------------------------------------------------------ */

static void test_count_values(void)
{
    uint64_t n = SENTINEL;

    CHECK_EQ_I64(units_parse_count("100", &n), 0);
    CHECK_EQ_I64(n, 100);
    CHECK_EQ_I64(units_parse_count("0", &n), 0);
    CHECK_EQ_I64(n, 0);
    CHECK_EQ_I64(units_parse_count("1", &n), 0);
    CHECK_EQ_I64(n, 1);
    CHECK_EQ_I64(units_parse_count("10k", &n), 0);
    CHECK_EQ_I64(n, 10000);
    CHECK_EQ_I64(units_parse_count("10K", &n), 0);
    CHECK_EQ_I64(n, 10000);
    CHECK_EQ_I64(units_parse_count("2M", &n), 0);
    CHECK_EQ_I64(n, 2000000);
    CHECK_EQ_I64(units_parse_count("1G", &n), 0);
    CHECK_EQ_I64(n, 1000000000);
    CHECK_EQ_I64(units_parse_count("4294967296", &n), 0);
    CHECK_EQ_I64(n, 4294967296ll);
}

static void test_count_decimal_with_suffix(void)
{
    uint64_t n = SENTINEL;

    /* A decimal is fine when the suffix makes it whole. */
    CHECK_EQ_I64(units_parse_count("1.5k", &n), 0);
    CHECK_EQ_I64(n, 1500);
    CHECK_EQ_I64(units_parse_count("2.5M", &n), 0);
    CHECK_EQ_I64(n, 2500000);
    CHECK_EQ_I64(units_parse_count("0.001k", &n), 0);
    CHECK_EQ_I64(n, 1);
    /* 1.001k is exactly 1001; binary rounding must not make it "not whole". */
    CHECK_EQ_I64(units_parse_count("1.001k", &n), 0);
    CHECK_EQ_I64(n, 1001);
    /* ...and neither for any other 3-decimal k value. */
    for (int a = 0; a < 100000; a++) {
        char b[32];
        snprintf(b, sizeof b, "%d.%03dk", a / 1000, a % 1000);
        n = SENTINEL;
        int rc = units_parse_count(b, &n);
        if (rc != 0 || n != (uint64_t)a) {
            snprintf(unit_msg, sizeof unit_msg,
                     "%s:%d: count \"%s\" returned %d, %llu; want 0, %d", __FILE__, __LINE__,
                     b, rc, (unsigned long long)n, a);
            unit_failed_now = 1;
            return;
        }
    }
}

static void test_count_rejects(void)
{
    static const char *const einval[] = {
        "1.5", "-1", "", "k", "10x", "0x10", "nan", "inf", "-0x10", "1.5.5",
        " 10", "10 ", "10kk", "10m", "0.5k1", "NAN", "Infinity", "1,000",
    };
    for (size_t i = 0; i < sizeof einval / sizeof einval[0]; i++) {
        uint64_t n = SENTINEL;
        int rc = units_parse_count(einval[i], &n);
        if (rc != -EINVAL) {
            snprintf(unit_msg, sizeof unit_msg, "%s:%d: count \"%s\" returned %d, want -EINVAL",
                     __FILE__, __LINE__, einval[i], rc);
            unit_failed_now = 1;
            return;
        }
    }
    uint64_t n = SENTINEL;
    CHECK_EQ_I64(units_parse_count("1e400", &n), -ERANGE);
    CHECK_EQ_I64(units_parse_count("1e400k", &n), -ERANGE);
    CHECK_EQ_I64(units_parse_count("18446744073709551616", &n), -ERANGE);
    CHECK_EQ_I64(units_parse_count("100000000000G", &n), -ERANGE);
}

/* Counts that fit in uint64_t come back exactly, or -ERANGE; never a
 * different number. 1e19 is above INT64_MAX (llround's range). */
static void test_count_above_int64_max(void)
{
    uint64_t n = 0;
    int rc;

    rc = units_parse_count("10000000000000000000", &n);
    CHECK(rc == 0 || rc == -ERANGE);
    if (rc == 0)
        CHECK_EQ_U64(n, 10000000000000000000ull);

    rc = units_parse_count("10000000000G", &n);
    CHECK(rc == 0 || rc == -ERANGE);
    if (rc == 0)
        CHECK_EQ_U64(n, 10000000000000000000ull);
}

/* 2^53 + 1 has no exact double: it must not silently become 2^53. */
static void test_count_above_2p53_exact_or_erange(void)
{
    uint64_t n = 0;
    int rc = units_parse_count("9007199254740993", &n);

    CHECK(rc == 0 || rc == -ERANGE);
    if (rc == 0)
        CHECK_EQ_U64(n, 9007199254740993ull);
}

/* ---- rates ------------------------------------------------------------- */

static void test_rate_values(void)
{
    double r = -1;

    CHECK_EQ_I64(units_parse_rate("0.5", &r), 0);
    CHECK(r == 0.5);
    CHECK_EQ_I64(units_parse_rate("2.5k", &r), 0);
    CHECK(r == 2500.0);
    CHECK_EQ_I64(units_parse_rate("1M", &r), 0);
    CHECK(r == 1e6);
    CHECK_EQ_I64(units_parse_rate("1000", &r), 0);
    CHECK(r == 1000.0);
    CHECK_EQ_I64(units_parse_rate("3G", &r), 0);
    CHECK(r == 3e9);
    CHECK_EQ_I64(units_parse_rate("0.001", &r), 0);
    CHECK(r == 0.001);
    CHECK_EQ_I64(units_parse_rate("0", &r), 0); /* parses; the CLI refuses it */
    CHECK(r == 0.0);
}

static void test_rate_rejects(void)
{
    static const char *const einval[] = {
        "", "-5", "-0.5", "abc", "k", "2.5x", "nan", "inf", "0x10", "1.5 ", "5/s",
    };
    for (size_t i = 0; i < sizeof einval / sizeof einval[0]; i++) {
        double r = 42.0;
        int rc = units_parse_rate(einval[i], &r);
        if (rc != -EINVAL) {
            snprintf(unit_msg, sizeof unit_msg, "%s:%d: rate \"%s\" returned %d, want -EINVAL",
                     __FILE__, __LINE__, einval[i], rc);
            unit_failed_now = 1;
            return;
        }
    }
    double r = 42.0;
    CHECK_EQ_I64(units_parse_rate("1e400", &r), -ERANGE);
    CHECK_EQ_I64(units_parse_rate("1e13", &r), -ERANGE);
}

/* ---- sizes ------------------------------------------------------------- */

static void test_size_values(void)
{
    uint64_t b = SENTINEL;

    CHECK_EQ_I64(units_parse_size("512", &b), 0);
    CHECK_EQ_I64(b, 512);
    CHECK_EQ_I64(units_parse_size("0", &b), 0);
    CHECK_EQ_I64(b, 0);
    CHECK_EQ_I64(units_parse_size("4k", &b), 0);
    CHECK_EQ_I64(b, 4096);
    CHECK_EQ_I64(units_parse_size("4K", &b), 0);
    CHECK_EQ_I64(b, 4096);
    CHECK_EQ_I64(units_parse_size("4KiB", &b), 0);
    CHECK_EQ_I64(b, 4096);
    CHECK_EQ_I64(units_parse_size("1MiB", &b), 0);
    CHECK_EQ_I64(b, 1048576);
    CHECK_EQ_I64(units_parse_size("1M", &b), 0);
    CHECK_EQ_I64(b, 1048576);
    CHECK_EQ_I64(units_parse_size("1G", &b), 0);
    CHECK_EQ_I64(b, 1073741824);
    CHECK_EQ_I64(units_parse_size("1GiB", &b), 0);
    CHECK_EQ_I64(b, 1073741824);
    CHECK_EQ_I64(units_parse_size("1.5k", &b), 0);
    CHECK_EQ_I64(b, 1536);
    CHECK_EQ_I64(units_parse_size("10B", &b), 0);
    CHECK_EQ_I64(b, 10);
}

static void test_size_rejects(void)
{
    static const char *const einval[] = {
        "", "-1", "k", "4kk", "4KIB", "1.5", "0.1k", "nan", "inf", "0x10", "4 k", "4Ki",
    };
    for (size_t i = 0; i < sizeof einval / sizeof einval[0]; i++) {
        uint64_t b = SENTINEL;
        int rc = units_parse_size(einval[i], &b);
        if (rc != -EINVAL) {
            snprintf(unit_msg, sizeof unit_msg, "%s:%d: size \"%s\" returned %d, want -EINVAL",
                     __FILE__, __LINE__, einval[i], rc);
            unit_failed_now = 1;
            return;
        }
    }
    uint64_t b = SENTINEL;
    CHECK_EQ_I64(units_parse_size("1e400", &b), -ERANGE);
    CHECK_EQ_I64(units_parse_size("100000000000G", &b), -ERANGE);
}

/* ---- printers ---------------------------------------------------------- */

static void test_fmt_time_us_wrk(void)
{
    char buf[64];

    CHECK_EQ_STR(units_fmt_time_us(626.39, buf, sizeof buf), "626.39us");
    CHECK_EQ_STR(units_fmt_time_us(452.03, buf, sizeof buf), "452.03us");
    CHECK_EQ_STR(units_fmt_time_us(1640, buf, sizeof buf), "1.64ms");
    /* 870us is past 85% of 1000: wrk prints it in ms. */
    CHECK_EQ_STR(units_fmt_time_us(870, buf, sizeof buf), "0.87ms");
    CHECK_EQ_STR(units_fmt_time_us(849.99, buf, sizeof buf), "849.99us");
    CHECK_EQ_STR(units_fmt_time_us(850, buf, sizeof buf), "0.85ms");
    CHECK_EQ_STR(units_fmt_time_us(999999, buf, sizeof buf), "1000.00ms");
    CHECK_EQ_STR(units_fmt_time_us(2e6, buf, sizeof buf), "2.00s");
    CHECK_EQ_STR(units_fmt_time_us(1e6, buf, sizeof buf), "1.00s");
    CHECK_EQ_STR(units_fmt_time_us(50.9e6, buf, sizeof buf), "50.90s");
    CHECK_EQ_STR(units_fmt_time_us(51e6, buf, sizeof buf), "0.85m");
    CHECK_EQ_STR(units_fmt_time_us(90e6, buf, sizeof buf), "1.50m");
    /* As in wrk, "h" is never reached (the last unit is never stepped to). */
    CHECK_EQ_STR(units_fmt_time_us(7200e6, buf, sizeof buf), "120.00m");
    CHECK_EQ_STR(units_fmt_time_us(0, buf, sizeof buf), "0.00us");
}

static void test_fmt_metric_wrk(void)
{
    char buf[64];

    CHECK_EQ_STR(units_fmt_metric(16270, buf, sizeof buf), "16.27k");
    CHECK_EQ_STR(units_fmt_metric(105.10, buf, sizeof buf), "105.10");
    CHECK_EQ_STR(units_fmt_metric(1040, buf, sizeof buf), "1.04k");
    CHECK_EQ_STR(units_fmt_metric(0, buf, sizeof buf), "0.00");
    CHECK_EQ_STR(units_fmt_metric(849.99, buf, sizeof buf), "849.99");
    CHECK_EQ_STR(units_fmt_metric(850, buf, sizeof buf), "0.85k");
    CHECK_EQ_STR(units_fmt_metric(2.5e6, buf, sizeof buf), "2.50M");
    CHECK_EQ_STR(units_fmt_metric(3e9, buf, sizeof buf), "3.00G");
    CHECK_EQ_STR(units_fmt_metric(4e12, buf, sizeof buf), "4.00T");
    /* "P" is never stepped to, as in wrk. */
    CHECK_EQ_STR(units_fmt_metric(5e15, buf, sizeof buf), "5000.00T");
}

static void test_fmt_zero_never_nan(void)
{
    char buf[64];

    CHECK_EQ_STR(units_fmt_metric(0.0, buf, sizeof buf), "0.00");
    CHECK_EQ_STR(units_fmt_binary(0.0, buf, sizeof buf), "0.00");
    CHECK_EQ_STR(units_fmt_time_us(0.0, buf, sizeof buf), "0.00us");
    CHECK(strstr(units_fmt_metric(0.0, buf, sizeof buf), "nan") == NULL);
}

static void test_fmt_binary_wrk(void)
{
    char buf[64];

    /* 416,694,456 / 1024 = 406,928.18 K; / 1024 = 397.3908 M. */
    CHECK_EQ_STR(units_fmt_binary(416694456, buf, sizeof buf), "397.39M");
    /* 1,181,116,006 / 1024^3 = 1.0999999994 G. */
    CHECK_EQ_STR(units_fmt_binary(1181116006, buf, sizeof buf), "1.10G");
    CHECK_EQ_STR(units_fmt_binary(1024, buf, sizeof buf), "1.00K");
    CHECK_EQ_STR(units_fmt_binary(870.4, buf, sizeof buf), "0.85K"); /* 0.85 * 1024 */
    CHECK_EQ_STR(units_fmt_binary(870, buf, sizeof buf), "870.00");
    CHECK_EQ_STR(units_fmt_binary(1048576, buf, sizeof buf), "1.00M");
    CHECK_EQ_STR(units_fmt_binary(512, buf, sizeof buf), "512.00");
}

static void test_fmt_returns_buf_and_truncates(void)
{
    char buf[64];
    char small[5];

    CHECK(units_fmt_time_us(1, buf, sizeof buf) == buf);
    CHECK(units_fmt_metric(1, buf, sizeof buf) == buf);
    CHECK(units_fmt_binary(1, buf, sizeof buf) == buf);
    memset(small, 'X', sizeof small);
    CHECK(units_fmt_time_us(626.39, small, sizeof small) == small);
    CHECK_EQ_STR(small, "626.");
    memset(small, 'X', sizeof small);
    CHECK_EQ_STR(units_fmt_metric(16270, small, sizeof small), "16.2");
    memset(small, 'X', sizeof small);
    CHECK_EQ_STR(units_fmt_binary(416694456, small, sizeof small), "397.");
}

int main(void)
{
    RUN(test_duration_suffixes);
    RUN(test_duration_bare_number_is_seconds);
    RUN(test_duration_decimals_are_exact);
    RUN(test_duration_rejects);
    RUN(test_duration_too_large);
    RUN(test_duration_above_int64_max);
    RUN(test_count_values);
    RUN(test_count_decimal_with_suffix);
    RUN(test_count_rejects);
    RUN(test_count_above_int64_max);
    RUN(test_count_above_2p53_exact_or_erange);
    RUN(test_rate_values);
    RUN(test_rate_rejects);
    RUN(test_size_values);
    RUN(test_size_rejects);
    RUN(test_fmt_time_us_wrk);
    RUN(test_fmt_metric_wrk);
    RUN(test_fmt_zero_never_nan);
    RUN(test_fmt_binary_wrk);
    RUN(test_fmt_returns_buf_and_truncates);
    return unit_done();
}

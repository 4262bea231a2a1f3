/*
 * test_hlog.c - unit tests for src/stats/hlog.c.
 *
 * The jHiccup logs and the expectations marked V4/V5 come from
 * tests/data/hdrhistogram/ (vectors.txt; tests/data/README.md says where
 * each file came from). They are read from there relative to the working
 * directory, which tests/run.sh sets to the repository root; a missing file
 * is a FAIL.
 */
#include "stats/hlog.h"
#include "stats/hdr.h"
#include "stats/hdr_codec.h"
#include "unit.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

static const char V4_LINE5_HIST[] =
    "HISTFAAAAEV42pNpmSzMwMCgyAABTBDKT4GBgdnNYMcCBvsPEBEJISEuATEZMQ4uASkhIR4nrxg9v2lMaxhvMekILGZk"
    "KmcCAEf2CsI=";

/* ---- helpers ------------------------------------------------------------ */

static char ref_path_found[1024];

/* Opens a reference file of tests/data/hdrhistogram/ (its path then in
 * ref_path_found); NULL, with a note on stderr, when it is not there. */
static FILE *open_ref(const char *name)
{
    snprintf(ref_path_found, sizeof ref_path_found, "tests/data/hdrhistogram/%s", name);
    FILE *f = fopen(ref_path_found, "r");
    if (!f)
        fprintf(stderr, "reference file %s not found (run from the repository root)\n",
                ref_path_found);
    return f;
}

static FILE *mem_in(const char *s)
{
    if (!*s)
        return tmpfile(); /* fmemopen of 0 bytes is not portable */
    return fmemopen((void *)(uintptr_t)s, strlen(s), "r");
}

static int fmt3_equal(double a, double b)
{
    char x[64], y[64];
    snprintf(x, sizeof x, "%.3f", a);
    snprintf(y, sizeof y, "%.3f", b);
    return strcmp(x, y) == 0;
}

/* Reads a whole jHiccup log and checks V4's whole-file expectations. */
static void check_jhiccup(const char *name, const char *version, int want_tagged)
{
    FILE *f = open_ref(name);
    CHECK(f != NULL && "reference log missing from tests/data/hdrhistogram/");
    hlog_reader *r = NULL;
    CHECK_EQ_I64(hlog_reader_open(&r, f), 0);

    hdr_hist acc;
    CHECK_EQ_I64(hdr_init(&acc, 1, 3600000000000LL, 3), 0);
    int n = 0, tagged = 0, rc;
    hlog_entry e;
    double prev_start = 0;
    while ((rc = hlog_reader_next(r, &e)) == 1) {
        n++;
        if (n == 1) {
            /* Line 5 alone. */
            CHECK_EQ_I64(hlog_reader_line(r), 5);
            CHECK_EQ_STR(e.tag, "");
            CHECK_EQ_I64(e.h.lowest, 20000);
            CHECK_EQ_I64(e.h.highest, 3600000000000LL);
            CHECK_EQ_I64(e.h.sigfigs, 2);
            CHECK_EQ_I64(e.h.counts_len, 2816);
            CHECK_EQ_I64(e.h.total_count, 741);
            CHECK_EQ_I64(hdr_max(&e.h), 2768895);
            CHECK_EQ_I64(hdr_value_at_percentile(&e.h, 50), 344063);
            CHECK_EQ_I64(hdr_value_at_percentile(&e.h, 90), 376831);
            CHECK_EQ_I64(hdr_value_at_percentile(&e.h, 99), 409599);
            CHECK_EQ_I64(hdr_value_at_percentile(&e.h, 99.9), 1769471);
            CHECK_EQ_I64(hdr_value_at_percentile(&e.h, 100), 2768895);
            CHECK_NEAR(e.start_raw_s, 0.127, 1e-9);
            CHECK_NEAR(e.length_s, 1.007, 1e-9);
            CHECK_NEAR(e.max, 2.769, 1e-9);
            /* Relative timestamps: the base is the StartTime. */
            CHECK_NEAR(e.start_s, 1441812279.474 + 0.127, 1e-6);
            CHECK(!hlog_reader_has_base_time(r));
            CHECK_NEAR(hlog_reader_base_time(r), 1441812279.474, 1e-6);
        }
        if (e.tag[0]) {
            tagged++;
            /* The file's tags are "a<start>a". */
            char want[64];
            snprintf(want, sizeof want, "a%.3fa", e.start_raw_s);
            CHECK_EQ_STR(e.tag, want);
        }
        /* Interval_Max is hdr_max / 1e6 printed "%.3f", on every line. */
        CHECK(fmt3_equal(e.max, (double)hdr_max(&e.h) / 1e6));
        CHECK_NEAR(e.start_s - e.start_raw_s, 1441812279.474, 1e-6);
        CHECK(e.start_s > prev_start);
        prev_start = e.start_s;
        CHECK_EQ_I64(hdr_add(&acc, &e.h), 0);
        hdr_free(&e.h);
    }
    CHECK_EQ_I64(rc, 0);
    CHECK_EQ_I64(hlog_reader_next(r, &e), 0); /* stays at the end */
    CHECK_EQ_I64(hlog_reader_line(r), 66);
    CHECK_EQ_I64(n, 62);
    CHECK_EQ_I64(tagged, want_tagged);
    CHECK_EQ_I64(acc.total_count, 48761);
    CHECK_EQ_I64(hdr_value_at_percentile(&acc, 99.9), 1745879039);
    CHECK_EQ_I64(hdr_max(&acc), 1796210687);
    CHECK(hlog_reader_has_start_time(r));
    double st = hlog_reader_start_time(r);
    CHECK_EQ_I64((long long)st, 1441812279); /* tv_sec */
    CHECK_EQ_I64(llround((st - 1441812279.0) * 1e9 / 1e6) * 1000000, 474000000); /* tv_nsec */
    CHECK_EQ_STR(hlog_reader_version(r), version);
    hlog_reader_close(r);
    fclose(f);
    hdr_free(&acc);
}

/* ---- reference logs ----------------------------------------------------- */

static void test_jhiccup_v2_log(void)
{
    check_jhiccup("jHiccup-2.0.7S.logV2.hlog", "1.2", 0);
}

static void test_jhiccup_v3_tagged_log(void)
{
    check_jhiccup("jHiccup-2.0.7S.logV3.hlog", "1.3", 4);
}

static void test_open_path(void)
{
    FILE *f = open_ref("jHiccup-2.0.7S.logV3.hlog");
    CHECK(f != NULL && "reference log missing from tests/data/hdrhistogram/");
    fclose(f);
    hlog_reader *r = NULL;
    CHECK_EQ_I64(hlog_reader_open_path(&r, ref_path_found), 0);
    hlog_entry e;
    int n = 0;
    while (hlog_reader_next(r, &e) == 1) {
        if (n == 1)
            CHECK_EQ_STR(e.tag, "a1.134a");
        n++;
        hdr_free(&e.h);
    }
    CHECK_EQ_I64(n, 62);
    hlog_reader_close(r);

    r = (hlog_reader *)&n;
    CHECK_EQ_I64(hlog_reader_open_path(&r, "/nonexistent/dir/x.hlog"), -ENOENT);
    CHECK(r == NULL);
    CHECK_EQ_I64(hlog_reader_open(&r, NULL), -EINVAL);
    CHECK(r == NULL);
    hlog_reader_close(NULL);
}

/* ---- V5: invalid lines ---------------------------------------------------- */

static void test_v5_invalid_lines(void)
{
    static const char *bad[] = {
        /* test_tagged_invalid_histogram.txt (no trailing newline) */
        "Tag=a7.133a,7.133,0.999,0.459,HISTFAAAAEJ42pNpmSzMwMCgwAABT",
        /* test_tagged_invalid_tag_key.txt */
        "Ta=a7.133a,7.133,0.999,0.459,HISTFAAAAEJ42pNpmSzMwMCgwAABTBDKD8hndjPYsYDB/gNEhEtMQEBBTk5MQER"
        "CRkBEQEWlh9FJbg9jE+MS5ig1LhYmADkkCcE=\n",
        /* test_tagged_invalid_timestamp.txt */
        "Tag=a7.133a,7.1a33,0.999,0.459,HISTFAAAAEJ42pNpmSzMwMCgwAABTBDKD8hndjPYsYDB/gNEhEtMQEBBTk5MQ"
        "ERCRkBEQEWlh9FJbg9jE+MS5ig1LhYmADkkCcE=\n",
        /* test_tagged_missing_histogram.txt */
        "Tag=a7.133a,7.133,0.999,0.459\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = mem_in(bad[i]);
        CHECK(f != NULL);
        hlog_reader *r = NULL;
        CHECK_EQ_I64(hlog_reader_open(&r, f), 0);
        hlog_entry e;
        memset(&e, 0x5a, sizeof e);
        CHECK_EQ_I64(hlog_reader_next(r, &e), -EINVAL);
        CHECK_EQ_I64(hlog_reader_line(r), 1);
        CHECK(e.h.counts == NULL);
        CHECK_EQ_I64(hlog_reader_next(r, &e), 0);
        hlog_reader_close(r);
        fclose(f);
    }
    /* The same valid line parses (so the failures above are the defects). */
    FILE *f = mem_in("Tag=a7.133a,7.133,0.999,0.459,HISTFAAAAEJ42pNpmSzMwMCgwAABTBDKD8hndjPYsYDB/gNE"
                     "hEtMQEBBTk5MQERCRkBEQEWlh9FJbg9jE+MS5ig1LhYmADkkCcE=\n");
    CHECK(f != NULL);
    hlog_reader *r = NULL;
    CHECK_EQ_I64(hlog_reader_open(&r, f), 0);
    hlog_entry e;
    CHECK_EQ_I64(hlog_reader_next(r, &e), 1);
    CHECK_EQ_STR(e.tag, "a7.133a");
    CHECK(fmt3_equal(e.max, (double)hdr_max(&e.h) / 1e6));
    /* No StartTime: the timestamp is taken as written. */
    CHECK_NEAR(e.start_s, 7.133, 1e-9);
    CHECK_NEAR(hlog_reader_start_time(r), 7.133, 1e-9);
    CHECK(!hlog_reader_has_start_time(r));
    hdr_free(&e.h);
    hlog_reader_close(r);
    fclose(f);
}

/* More malformed lines, each between two good ones: the error names the
 * line, and reading goes on after it. */
static void test_malformed_lines(void)
{
    static const char *bad[] = {
        "0.127,1.007,2.769",                       /* three fields */
        "0.127,1.007,2.769,",                      /* empty histogram */
        "0.127,1.007,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk", /* 3 fields */
        "0.127,1.007,2.769,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk,1",
        "0.127,1.007,2.769,1,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk",
        "-0.127,1.007,2.769,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk",
        "+0.127,1.007,2.769,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk",
        " 0.127,1.007,2.769,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk",
        "inf,1.007,2.769,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk",
        "nan,1.007,2.769,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk",
        "1e999,1.007,2.769,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk",
        "0x10,1.007,2.769,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk",
        "1.2.3,1.007,2.769,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk",
        ".,1.007,2.769,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk",
        "1e,1.007,2.769,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk",
        ",1.007,2.769,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk",
        "0.127,1.007,2.769,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQS", /* cut */
        "0.127,1.007,2.769,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSkAAAA",
        "0.127,1.007,2.769, HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk",
        "0.127,1.007,2.769,not base64 at all",
        "Tag=0.127,1.007,2.769,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk",
        "Tag=x\x01y,0.127,1.007,2.769,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk",
        "Tag=0123456789012345678901234567890123456789012345678901234567890123,0.127,1.007,2.769,"
        "HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk", /* 64-byte tag */
        "Tag=x",
        "tag=x,0.127,1.007,2.769,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk",
        "#[StartTime: soon (seconds since epoch), whenever]",
        "#[StartTime: ]",
        "#[BaseTime: -1.000 (seconds since epoch)]",
        "garbage",
    };
    const char *good = "0.5,1.007,2.769,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk\n";
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text, "#[Histogram log format version 1.3]\n%s%s\n%s", good, bad[i],
                 good);
        FILE *f = mem_in(text);
        CHECK(f != NULL);
        hlog_reader *r = NULL;
        CHECK_EQ_I64(hlog_reader_open(&r, f), 0);
        hlog_entry e;
        CHECK_EQ_I64(hlog_reader_next(r, &e), 1);
        CHECK_EQ_I64(hlog_reader_line(r), 2);
        hdr_free(&e.h);
        int rc = hlog_reader_next(r, &e);
        if (rc != -EINVAL)
            fprintf(stderr, "accepted bad line %zu: %s\n", i, bad[i]);
        CHECK_EQ_I64(rc, -EINVAL);
        CHECK_EQ_I64(hlog_reader_line(r), 3);
        CHECK(e.h.counts == NULL);
        CHECK_EQ_I64(hlog_reader_next(r, &e), 1);
        CHECK_EQ_I64(hlog_reader_line(r), 4);
        CHECK_EQ_I64(e.h.total_count, 3);
        hdr_free(&e.h);
        CHECK_EQ_I64(hlog_reader_next(r, &e), 0);
        hlog_reader_close(r);
        fclose(f);
    }
}

/* Things the reader tolerates: CRLF, blank lines, unknown comments, a
 * missing final newline, trailing blanks after the histogram, numbers
 * without a fraction or with an exponent, an empty tag. */
static void test_tolerated(void)
{
    const char *text =
        "#[Logged with something]\r\n"
        "\r\n"
        "#[Histogram log format version 1.3]\r\n"
        "#[StartTime: 1441812279.474 (seconds since epoch), Wed Sep 09 08:24:39 PDT 2015]\r\n"
        "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\r\n"
        "#[some other comment\r\n"
        "1,1.5e0,2.,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk \t\r\n"
        "\n"
        "Tag=,.5,1,0.000,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk";
    FILE *f = mem_in(text);
    CHECK(f != NULL);
    hlog_reader *r = NULL;
    CHECK_EQ_I64(hlog_reader_open(&r, f), 0);
    hlog_entry e;
    CHECK_EQ_I64(hlog_reader_next(r, &e), 1);
    CHECK_EQ_I64(hlog_reader_line(r), 7);
    CHECK_EQ_STR(hlog_reader_version(r), "1.3");
    CHECK_NEAR(e.start_raw_s, 1, 0);
    CHECK_NEAR(e.length_s, 1.5, 0);
    CHECK_NEAR(e.max, 2, 0);
    CHECK_NEAR(e.start_s, 1441812280.474, 1e-6);
    CHECK_EQ_I64(e.h.total_count, 3);
    hdr_free(&e.h);
    CHECK_EQ_I64(hlog_reader_next(r, &e), 1);
    CHECK_EQ_I64(hlog_reader_line(r), 9);
    CHECK_EQ_STR(e.tag, "");
    CHECK_NEAR(e.start_raw_s, 0.5, 0);
    hdr_free(&e.h);
    CHECK_EQ_I64(hlog_reader_next(r, &e), 0);
    hlog_reader_close(r);
    fclose(f);

    /* Empty input and header-only input: no entries, no error. */
    const char *empties[] = {"", "\n\n", "#[Histogram log format version 1.3]\n", "\"StartTimestamp\""};
    for (size_t i = 0; i < sizeof empties / sizeof empties[0]; i++) {
        f = mem_in(empties[i]);
        CHECK(f != NULL);
        CHECK_EQ_I64(hlog_reader_open(&r, f), 0);
        CHECK_EQ_I64(hlog_reader_next(r, &e), 0);
        CHECK_EQ_I64(hlog_reader_start_time(r), 0);
        CHECK_EQ_I64(hlog_reader_base_time(r), 0);
        hlog_reader_close(r);
        fclose(f);
    }
}

/* Timestamp rules: explicit BaseTime, StartTime with relative or absolute
 * timestamps, neither. */
static void test_timestamp_rules(void)
{
    static const struct {
        const char *header;
        const char *ts;
        double want_start, want_base;
        bool has_base;
    } c[] = {
        /* Relative to StartTime (more than a year before it). */
        {"#[StartTime: 1000000000.000 (seconds since epoch), x]\n", "5.000", 1000000005.0,
         1000000000.0, false},
        /* Absolute (within a year of StartTime, or after it). */
        {"#[StartTime: 1000000000.000 (seconds since epoch), x]\n", "1000000005.000", 1000000005.0,
         0, false},
        {"#[StartTime: 1000000000.000 (seconds since epoch), x]\n", "990000000.000", 990000000.0,
         0, false},
        /* An explicit BaseTime wins, whatever the timestamps look like. */
        {"#[StartTime: 1000000000.000 (seconds since epoch), x]\n"
         "#[BaseTime: 1000000100.500 (seconds since epoch)]\n",
         "5.000", 1000000105.5, 1000000100.5, true},
        {"#[BaseTime: 0.000 (seconds since epoch)]\n", "5.000", 5.0, 0, true},
        /* Neither: as written. */
        {"", "5.000", 5.0, 0, false},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "%s%s,1.000,0.000,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk\n"
                 "%s,1.000,0.000,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk\n",
                 c[i].header, c[i].ts, c[i].ts);
        FILE *f = mem_in(text);
        CHECK(f != NULL);
        hlog_reader *r = NULL;
        CHECK_EQ_I64(hlog_reader_open(&r, f), 0);
        hlog_entry e;
        for (int k = 0; k < 2; k++) {
            CHECK_EQ_I64(hlog_reader_next(r, &e), 1);
            CHECK_NEAR(e.start_s, c[i].want_start, 1e-6);
            hdr_free(&e.h);
        }
        CHECK_NEAR(hlog_reader_base_time(r), c[i].want_base, 1e-6);
        CHECK(hlog_reader_has_base_time(r) == c[i].has_base);
        hlog_reader_close(r);
        fclose(f);
    }
    /* The decision is made once: a later absolute-looking timestamp in a
     * relative log stays relative. */
    const char *text = "#[StartTime: 1000000000.000 (seconds since epoch), x]\n"
                       "5.000,1.000,0.000,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk\n"
                       "999999999.000,1.000,0.000,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk\n";
    FILE *f = mem_in(text);
    CHECK(f != NULL);
    hlog_reader *r = NULL;
    CHECK_EQ_I64(hlog_reader_open(&r, f), 0);
    hlog_entry e;
    CHECK_EQ_I64(hlog_reader_next(r, &e), 1);
    hdr_free(&e.h);
    CHECK_EQ_I64(hlog_reader_next(r, &e), 1);
    CHECK_NEAR(e.start_s, 1999999999.0, 1e-6);
    hdr_free(&e.h);
    hlog_reader_close(r);
    fclose(f);
}

static void test_long_lines(void)
{
    /* A line over HLOG_LINE_MAX is an error, skipped whole; the next line
     * reads normally. */
    char *buf = NULL;
    size_t len = 0;
    FILE *w = open_memstream(&buf, &len);
    CHECK(w != NULL);
    fputs("0.127,1.007,2.769,", w);
    for (size_t i = 0; i < HLOG_LINE_MAX; i++)
        fputc('A', w);
    fputs("\n1.000,1.000,0.000,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk\n", w);
    /* A long line within the limit (a comment) is fine. */
    fputc('#', w);
    for (size_t i = 0; i < HLOG_LINE_MAX - 1; i++)
        fputc('x', w);
    fputs("\r\n2.000,1.000,0.000,HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk", w);
    CHECK_EQ_I64(fclose(w), 0);

    FILE *f = fmemopen(buf, len, "r");
    CHECK(f != NULL);
    hlog_reader *r = NULL;
    CHECK_EQ_I64(hlog_reader_open(&r, f), 0);
    hlog_entry e;
    CHECK_EQ_I64(hlog_reader_next(r, &e), -EINVAL);
    CHECK_EQ_I64(hlog_reader_line(r), 1);
    CHECK_EQ_I64(hlog_reader_next(r, &e), 1);
    CHECK_EQ_I64(hlog_reader_line(r), 2);
    CHECK_NEAR(e.start_raw_s, 1.0, 0);
    hdr_free(&e.h);
    CHECK_EQ_I64(hlog_reader_next(r, &e), 1);
    CHECK_EQ_I64(hlog_reader_line(r), 4);
    CHECK_NEAR(e.start_raw_s, 2.0, 0);
    hdr_free(&e.h);
    CHECK_EQ_I64(hlog_reader_next(r, &e), 0);
    hlog_reader_close(r);
    fclose(f);
    free(buf);
}

/* ---- writer ------------------------------------------------------------- */

static void test_write_header_exact(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *w = open_memstream(&buf, &len);
    CHECK(w != NULL);
    CHECK_EQ_I64(hlog_write_header(w, 1441812279.474, -1, "Logged with pacer"), 0);
    CHECK_EQ_I64(fclose(w), 0);
    CHECK_EQ_STR(buf,
                 "#[Logged with pacer]\n"
                 "#[Histogram log format version 1.3]\n"
                 "#[StartTime: 1441812279.474 (seconds since epoch), Wed Sep 09 15:24:39 UTC 2015]\n"
                 "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
                 "\"Interval_Compressed_Histogram\"\n");
    free(buf);

    w = open_memstream(&buf, &len);
    CHECK(w != NULL);
    CHECK_EQ_I64(hlog_write_header(w, 0, 12.5, NULL), 0);
    CHECK_EQ_I64(fclose(w), 0);
    CHECK_EQ_STR(buf,
                 "#[Histogram log format version 1.3]\n"
                 "#[StartTime: 0.000 (seconds since epoch), Thu Jan 01 00:00:00 UTC 1970]\n"
                 "#[BaseTime: 12.500 (seconds since epoch)]\n"
                 "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
                 "\"Interval_Compressed_Histogram\"\n");
    free(buf);

    w = open_memstream(&buf, &len);
    CHECK(w != NULL);
    CHECK_EQ_I64(hlog_write_header(w, NAN, -1, NULL), -EINVAL);
    CHECK_EQ_I64(hlog_write_header(w, -1, -1, NULL), -EINVAL);
    CHECK_EQ_I64(hlog_write_header(w, INFINITY, -1, NULL), -EINVAL);
    CHECK_EQ_I64(hlog_write_header(w, 1, INFINITY, NULL), -EINVAL);
    CHECK_EQ_I64(hlog_write_header(w, 1, -1, "two\nlines"), -EINVAL);
    CHECK_EQ_I64(hlog_write_header(NULL, 1, -1, NULL), -EINVAL);
    CHECK_EQ_I64(fclose(w), 0);
    CHECK_EQ_I64(len, 0);
    free(buf);
}

static void test_write_entry_exact(void)
{
    hdr_hist h;
    CHECK_EQ_I64(hdrc_decode_base64(V4_LINE5_HIST, strlen(V4_LINE5_HIST), &h), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *w = open_memstream(&buf, &len);
    CHECK(w != NULL);
    CHECK_EQ_I64(hlog_write_entry(w, NULL, 0.127, 1.007, &h, HLOG_DEFAULT_MAX_UNIT_RATIO), 0);
    CHECK_EQ_I64(hlog_write_entry(w, "", 0.127, 1.007, &h, 1e6), 0);
    CHECK_EQ_I64(hlog_write_entry(w, "corrected", 0.127, 1.007, &h, 1e6), 0);
    CHECK_EQ_I64(hlog_write_entry(w, "us", 0.127, 1.007, &h, 1e3), 0);
    CHECK_EQ_I64(fclose(w), 0);
    /* Interval_Max = hdr_max (2768895 ns) / ratio, "%.3f". */
    char *l1 = buf, *l2 = strchr(l1, '\n') + 1, *l3 = strchr(l2, '\n') + 1,
         *l4 = strchr(l3, '\n') + 1;
    CHECK(strncmp(l1, "0.127,1.007,2.769,HISTFAA", 25) == 0);
    CHECK(strncmp(l2, "0.127,1.007,2.769,HISTFAA", 25) == 0);
    CHECK(strncmp(l3, "Tag=corrected,0.127,1.007,2.769,HISTFAA", 39) == 0);
    CHECK(strncmp(l4, "Tag=us,0.127,1.007,2768.895,HISTFAA", 35) == 0);
    free(buf);

    /* Refused arguments write nothing. */
    w = open_memstream(&buf, &len);
    CHECK(w != NULL);
    const char *bad_tags[] = {"a,b", "a b", "tab\there", "nl\n", "\x7f",
                              "0123456789012345678901234567890123456789012345678901234567890123"};
    for (size_t i = 0; i < sizeof bad_tags / sizeof bad_tags[0]; i++)
        CHECK_EQ_I64(hlog_write_entry(w, bad_tags[i], 0, 1, &h, 1e6), -EINVAL);
    CHECK_EQ_I64(hlog_write_entry(w, "012345678901234567890123456789012345678901234567890123456789012",
                                  0, 1, &h, 1e6),
                 0); /* 63 bytes: the longest */
    CHECK_EQ_I64(hlog_write_entry(w, NULL, NAN, 1, &h, 1e6), -EINVAL);
    CHECK_EQ_I64(hlog_write_entry(w, NULL, -1, 1, &h, 1e6), -EINVAL);
    CHECK_EQ_I64(hlog_write_entry(w, NULL, 0, INFINITY, &h, 1e6), -EINVAL);
    CHECK_EQ_I64(hlog_write_entry(w, NULL, 0, 1, &h, 0), -EINVAL);
    CHECK_EQ_I64(hlog_write_entry(w, NULL, 0, 1, &h, -1e6), -EINVAL);
    CHECK_EQ_I64(hlog_write_entry(w, NULL, 0, 1, &h, NAN), -EINVAL);
    CHECK_EQ_I64(hlog_write_entry(w, NULL, 0, 1, NULL, 1e6), -EINVAL);
    CHECK_EQ_I64(hlog_write_entry(NULL, NULL, 0, 1, &h, 1e6), -EINVAL);
    CHECK_EQ_I64(fclose(w), 0);
    CHECK(strncmp(buf, "Tag=0123", 8) == 0);
    CHECK(strchr(buf, '\n') == buf + len - 1); /* only the one good line */
    free(buf);

    /* A stream that cannot be written: -EIO. */
    char ro[8] = "xxxxxxx";
    FILE *rf = fmemopen(ro, sizeof ro, "r");
    CHECK(rf != NULL);
    CHECK_EQ_I64(hlog_write_entry(rf, NULL, 0, 1, &h, 1e6), -EIO);
    CHECK_EQ_I64(hlog_write_header(rf, 0, -1, NULL), -EIO);
    fclose(rf);
    hdr_free(&h);
}

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

/* Writer -> reader: a multi-entry log, tagged and untagged, with and
 * without a BaseTime. */
static void test_write_read_round_trip(void)
{
    enum { N = 24 };
    static const char *tags[] = {NULL, "corrected", "uncorrected", "a1.134a"};
    for (int with_base = 0; with_base < 2; with_base++) {
        hdr_hist hs[N];
        memset(hs, 0, sizeof hs);
        char *buf = NULL;
        size_t len = 0;
        FILE *w = open_memstream(&buf, &len);
        CHECK(w != NULL);
        const double start = 1700000000.123, base = with_base ? start + 0.5 : -1;
        CHECK_EQ_I64(hlog_write_header(w, start, base, "Logged with pacer test"), 0);
        for (int i = 0; i < N; i++) {
            CHECK_EQ_I64(hdr_init(&hs[i], 1, 86400000000000LL, 3), 0);
            int nv = i == 0 ? 0 : (int)(rng() % 2000);
            for (int k = 0; k < nv; k++) {
                int bits = 1 + (int)(rng() % 46);
                CHECK(hdr_record(&hs[i], (int64_t)(rng() >> (64 - bits))));
            }
            CHECK_EQ_I64(hlog_write_entry(w, tags[i % 4], i * 1.0 + 0.25, 1.0, &hs[i],
                                          HLOG_DEFAULT_MAX_UNIT_RATIO),
                         0);
        }
        CHECK_EQ_I64(fclose(w), 0);

        FILE *f = fmemopen(buf, len, "r");
        CHECK(f != NULL);
        hlog_reader *r = NULL;
        CHECK_EQ_I64(hlog_reader_open(&r, f), 0);
        hlog_entry e;
        for (int i = 0; i < N; i++) {
            CHECK_EQ_I64(hlog_reader_next(r, &e), 1);
            CHECK_EQ_I64(hlog_reader_line(r), (with_base ? 5 : 4) + i + 1);
            CHECK_EQ_STR(e.tag, tags[i % 4] ? tags[i % 4] : "");
            CHECK_NEAR(e.start_raw_s, i + 0.25, 1e-9);
            CHECK_NEAR(e.start_s, (with_base ? base : start) + i + 0.25, 1e-6);
            CHECK_NEAR(e.length_s, 1.0, 0);
            CHECK(fmt3_equal(e.max, (double)hdr_max(&hs[i]) / 1e6));
            CHECK(hdr_equal(&e.h, &hs[i]));
            CHECK_EQ_I64(e.h.highest, 86400000000000LL);
            CHECK_EQ_I64(hdr_max(&e.h), hdr_max(&hs[i]));
            hdr_free(&e.h);
        }
        CHECK_EQ_I64(hlog_reader_next(r, &e), 0);
        CHECK_EQ_STR(hlog_reader_version(r), "1.3");
        CHECK(hlog_reader_has_start_time(r));
        CHECK_NEAR(hlog_reader_start_time(r), start, 1e-6);
        CHECK(hlog_reader_has_base_time(r) == (with_base != 0));
        CHECK_NEAR(hlog_reader_base_time(r), with_base ? base : start, 1e-6);
        hlog_reader_close(r);
        fclose(f);
        free(buf);
        for (int i = 0; i < N; i++)
            hdr_free(&hs[i]);
    }
}

int main(void)
{
    RUN(test_jhiccup_v2_log);
    RUN(test_jhiccup_v3_tagged_log);
    RUN(test_open_path);
    RUN(test_v5_invalid_lines);
    RUN(test_malformed_lines);
    RUN(test_tolerated);
    RUN(test_timestamp_rules);
    RUN(test_long_lines);
    RUN(test_write_header_exact);
    RUN(test_write_entry_exact);
    RUN(test_write_read_round_trip);
    return unit_done();
}

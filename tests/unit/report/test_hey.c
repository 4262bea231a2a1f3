/*
 * test_hey.c - hey's layout (src/report/hey.c): pacer's report, every
 * number replaced, is real hey output line for line
 * (tests/data/hey/, captured from hey 0.1.4); the histogram's buckets and
 * bars, the percentiles, Requests/sec and the Details lines from known
 * values; the lines for what pacer does not measure; the -o csv rows; the
 * redirect note.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "report/report.h"
#include "stats/hdr.h"
#include "stats/stats.h"
#include "unit.h"

#define MS 1000000LL

/* report_hey (or the csv rows) into a heap string. */
static char *render(const pc_rundesc *cfg, const pc_results *r, bool csv)
{
    char *buf = NULL, *nbuf = NULL;
    size_t len = 0, nlen = 0;
    FILE *f = open_memstream(&buf, &len), *note = open_memstream(&nbuf, &nlen);

    if (!f || !note)
        return NULL;
    if (csv)
        report_hey_csv(f, note, cfg, r);
    else
        report_hey(f, cfg, r);
    fclose(f);
    fclose(note);
    free(nbuf);
    return buf;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    int c;

    if (!f || !m)
        return NULL;
    while ((c = getc(f)) != EOF)
        putc(c, m);
    fclose(f);
    fclose(m);
    return buf;
}

/* The layout without its numbers: digit runs (and " NaN") become N, bars
 * and error messages go, the two Details lines pacer does not measure keep
 * their label only, pacer's own lines after the layout go. */
static char *skeleton(const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);

    while (*s) {
        const char *eol = strchr(s, '\n');
        size_t n = eol ? (size_t)(eol - s) : strlen(s);
        bool unmeasured = strncmp(s, "  DNS-lookup:", 13) == 0 || strncmp(s, "  req write:", 12) == 0;

        if (strncmp(s, "pacer:", 6) == 0) {
            s += n + (eol != NULL);
            continue;
        }
        for (size_t i = 0; i < n;) {
            if (unmeasured && s[i] == ':') {
                fputs(":", m);
                break;
            }
            if (s[i] == '|') { /* a bar: to the end of the line */
                fputc('|', m);
                break;
            }
            if (s[i] == ']' && i + 1 < n && s[i + 1] == '\t' && s[0] == ' ' && s[2] == '[' &&
                memmem(s, n, "responses", 9) == NULL) {
                fputs("]\tMSG", m); /* an Error distribution line */
                break;
            }
            if ((s[i] >= '0' && s[i] <= '9') || strncmp(s + i, " NaN", 4) == 0) {
                if (s[i] == ' ')
                    i += 4; /* hey's "%4.4f" of NaN, where nothing was measured */
                while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'))
                    i++;
                fputc('N', m);
                continue;
            }
            fputc(s[i++], m);
        }
        fputc('\n', m);
        s += n + (eol != NULL);
    }
    fclose(m);
    return buf;
}

/* 2000 responses of 1024 bytes in 2 s over 50 connections, latencies
 * spread over 0.1 .. 20 ms. */
static int make_ok(pc_results *r)
{
    memset(r, 0, sizeof *r);
    if (stats_init(&r->st) < 0)
        return -1;
    for (int64_t i = 0; i < 2000; i++) {
        int64_t v = 100000 + i * 10000;

        hdr_record(&r->st.latency, v);
        hdr_record(&r->st.latency_u, v);
        hdr_record(&r->st.conn_req, i < 50 ? 200000 : 0);
        hdr_record(&r->st.ttfb, v * 9 / 10);
        hdr_record(&r->st.processing, v / 10);
    }
    r->st.completed = r->st.scheduled = 2000;
    r->st.status[200] = 2000;
    r->st.body_bytes = 2048000;
    r->st.connects = 50;
    r->st.h1_conns = 50;
    r->duration_ns = 2000000000ull;
    return 0;
}

static void test_layout_is_heys(void)
{
    pc_rundesc cfg = {0};
    pc_results r;
    char *out, *want_raw, *got, *want;

    CHECK(make_ok(&r) == 0);
    out = render(&cfg, &r, false);
    want_raw = slurp("tests/data/hey/hey-0.1.4-n2000-c50-q20.txt");
    CHECK(out && want_raw);
    got = skeleton(out);
    want = skeleton(want_raw);
    CHECK_EQ_STR(got, want);
    /* The exact bytes where hey has no numbers. */
    CHECK(strncmp(out, "\nSummary:\n  Total:\t2.0000 secs\n", 31) == 0);
    CHECK(strstr(out, "\n  Requests/sec:\t1000.0000\n  \n  Total data:\t2048000 bytes\n"
                      "  Size/request:\t1024 bytes\n\nResponse time histogram:\n"));
    CHECK(strstr(out, "\nStatus code distribution:\n  [200]\t2000 responses\n\n\n\npacer: "));
    free(out), free(want_raw), free(got), free(want);
    results_free(&r);
}

static void test_numbers(void)
{
    pc_rundesc cfg = {0};
    pc_results r;
    char *out;

    CHECK(make_ok(&r) == 0);
    out = render(&cfg, &r, false);
    CHECK(out);
    /* 0.1 ms + i * 10 us: p10 is the 200th value, 2.09 ms. */
    CHECK(strstr(out, "\n  10% in 0.0021 secs\n  25% in 0.0051 secs\n  50% in 0.0101 secs\n"
                      "  75% in 0.0151 secs\n  90% in 0.0181 secs\n  95% in 0.0191 secs\n"
                      "  99% in 0.0199 secs\n"));
    CHECK(strstr(out, "  Slowest:\t0.0201 secs\n  Fastest:\t0.0001 secs\n  Average:\t0.0101 secs\n"));
    /* 50 of 2000 requests opened a connection (0.2 ms): average 5 us. */
    CHECK(strstr(out, "\n  DNS+dialup:\t0.0000 secs, 0.0000 secs, 0.0002 secs\n"));
    CHECK(strstr(out, "\n  DNS-lookup:\tnot measured (pacer resolves the name once, before the run)\n"
                      "  req write:\tnot measured (included in resp wait)\n"
                      "  resp wait:\t0.0091 secs, 0.0001 secs, 0.0181 secs\n"
                      "  resp read:\t0.0010 secs, 0.0000 secs, 0.0020 secs\n"));
    CHECK(strstr(out, "\npacer: outcomes: 2000 scheduled = 2000 completed + 0 timed out + 0 errors"
                      " + 0 never sent; 50 connections opened (http/1.1)\n"));
    free(out);
    results_free(&r);
}

/* hey's buckets: marks from fastest to slowest in ten steps, each counting
 * the values above the previous mark up to it; bars (n * 40 + max / 2) / max. */
static void test_histogram(void)
{
    pc_rundesc cfg = {0};
    pc_results r;
    char *out, bars[3][256] = {{0}};

    memset(&r, 0, sizeof r);
    CHECK(stats_init(&r.st) == 0);
    hdr_record(&r.st.latency, 1 * MS);
    hdr_record_n(&r.st.latency, 3 * MS / 2, 5);
    hdr_record_n(&r.st.latency, 9 * MS / 2, 3);
    hdr_record(&r.st.latency, 11 * MS);
    r.st.completed = 10;
    r.duration_ns = 1000000000ull;
    out = render(&cfg, &r, false);
    CHECK(out);
    for (int i = 0; i < 40; i++)
        strcat(bars[0], "\xe2\x96\xa0");
    for (int i = 0; i < 24; i++)
        strcat(bars[1], "\xe2\x96\xa0");
    for (int i = 0; i < 8; i++)
        strcat(bars[2], "\xe2\x96\xa0");
    {
        char want[2048];

        snprintf(want, sizeof want,
                 "Response time histogram:\n"
                 "  0.001 [1]\t|%s\n  0.002 [5]\t|%s\n  0.003 [0]\t|\n  0.004 [0]\t|\n"
                 "  0.005 [3]\t|%s\n  0.006 [0]\t|\n  0.007 [0]\t|\n  0.008 [0]\t|\n"
                 "  0.009 [0]\t|\n  0.010 [0]\t|\n  0.011 [1]\t|%s\n\n\nLatency distribution:",
                 bars[2], bars[0], bars[1], bars[2]);
        char got[2048];
        const char *h = strstr(out, "Response time histogram:");

        CHECK(h);
        snprintf(got, sizeof got, "%.*s", (int)strlen(want), h);
        CHECK_EQ_STR(got, want);
    }
    free(out);
    results_free(&r);
}

/* Every request failed: hey's "Error distribution", and NaN where nothing
 * was measured, never a 0 that looks measured. */
static void test_errors_layout(void)
{
    pc_rundesc cfg = {0};
    pc_results r;
    char *out, *want_raw, *got, *want;

    memset(&r, 0, sizeof r);
    CHECK(stats_init(&r.st) == 0);
    r.st.scheduled = 20;
    r.st.err[PC_ERR_READ] = 20;
    snprintf(r.st.why[PC_ERR_READ], STATS_WHY_LEN, "connection reset by peer");
    r.duration_ns = 1000000ull;
    out = render(&cfg, &r, false);
    want_raw = slurp("tests/data/hey/hey-0.1.4-refused.txt");
    CHECK(out && want_raw);
    got = skeleton(out);
    want = skeleton(want_raw);
    CHECK_EQ_STR(got, want);
    CHECK(strstr(out, "  Slowest:\t NaN secs\n  Fastest:\t NaN secs\n  Average:\t NaN secs\n"));
    CHECK(strstr(out, "  Requests/sec:\t20000.0000\n  \n\n"));
    CHECK(strstr(out, "  resp wait:\t NaN secs,  NaN secs,  NaN secs\n"));
    CHECK(strstr(out, "Error distribution:\n  [20]\tread: connection reset by peer\n\n"));
    free(out), free(want_raw), free(got), free(want);
    results_free(&r);
}

static void test_csv(void)
{
    pc_rundesc cfg = {0};
    pc_results r;
    pc_reqrec recs[2] = {
        /* finished second: starts at 1 ms, 0.5 ms connect, 3 ms from its write,
         * written in 0.2 ms */
        {.start = 10000000 + 1 * MS, .ctime = MS / 2, .dtime = 3 * MS, .wait = 2 * MS,
         .write = MS / 5, .status = 200},
        /* finished first: on a reused connection, its write not timed (h3) */
        {.start = 10000000 + 2 * MS, .ctime = 0, .dtime = 1 * MS, .wait = MS / 2,
         .write = UINT64_MAX, .status = 404},
    };
    char *out, *want_raw;

    memset(&r, 0, sizeof r);
    CHECK(stats_init(&r.st) == 0);
    r.start_mono_ns = 10000000;
    r.connect_mono_ns = 10000000 - MS; /* offsets count from here, the run's start */
    r.st.recs = malloc(sizeof recs);
    CHECK(r.st.recs);
    memcpy(r.st.recs, recs, sizeof recs);
    r.st.nrecs = r.st.caprecs = 2;
    out = render(&cfg, &r, true);
    want_raw = slurp("tests/data/hey/hey-0.1.4-o-csv.csv");
    CHECK(out && want_raw);
    /* hey's header line, then pacer's rows in the order they finished. */
    CHECK(strncmp(out, want_raw, (size_t)(strchr(want_raw, '\n') - want_raw) + 1) == 0);
    CHECK_EQ_STR(strchr(out, '\n') + 1, "0.0010,0.0000,0.0000,,0.0005,0.0005,404,0.0030\n"
                                        "0.0035,0.0005,0.0000,0.0002,0.0018,0.0010,200,0.0020\n");
    free(out), free(want_raw);
    results_free(&r);
}

/* hey follows redirects and pacer does not: a run that met 3xx says so,
 * unless -disable-redirects made it hey's test too. */
static void test_redirect_note(void)
{
    pc_rundesc cfg = {0};
    pc_results r;
    char *out;

    CHECK(make_ok(&r) == 0);
    r.st.status[200] = 1990;
    r.st.status[301] = 10;
    out = render(&cfg, &r, false);
    CHECK(out && !strstr(out, "redirects (3xx)"));
    free(out);
    cfg.peer_follows_redirects = true;
    out = render(&cfg, &r, false);
    CHECK(out && strstr(out, "\npacer: 10 responses were redirects (3xx): hey follows them, pacer "
                             "does not;"));
    CHECK(strstr(out, "\n  [301]\t10 responses"));
    free(out);
    results_free(&r);
}

int main(void)
{
    RUN(test_layout_is_heys);
    RUN(test_numbers);
    RUN(test_histogram);
    RUN(test_errors_layout);
    RUN(test_csv);
    RUN(test_redirect_note);
    return unit_done();
}

/*
 * test_html.c - the HTML page writer (src/report/html.c) and the run
 * report built with it (src/report/html_run.c): escaping in every place
 * text goes, the embedded chart data (valid JSON whatever the numbers,
 * unable to close its <script>), percentile spectra, sticky errors.
 * tests/integration/test_html.sh renders real pages in chromium.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/series.h"
#include "report/slo.h"
#include "stats/interval.h"
#include "stats/stats.h"
#include "unit.h"
#include "util/json.h"

#define NASTY "a<b>&\"c\"'</script><!--x"

/* The page as a string (heap), and html_doc_write's result in *rc. */
static char *page(const html_doc *d, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    if (!f)
        return NULL;
    *rc = html_doc_write(d, f);
    fclose(f);
    return buf;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;

    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* Parse the embedded chart data; NULL if absent, not JSON, or holding a
 * '<' (which could start "</script" or "<!--" in there). */
static json_val *data_of(const char *html)
{
    static const char open[] = "<script type=\"application/json\" id=\"pacer-data\">";
    const char *s = strstr(html, open), *e;
    json_val *v = NULL;

    if (!s)
        return NULL;
    s += strlen(open);
    e = strstr(s, "</script>");
    if (!e || memchr(s, '<', (size_t)(e - s)) || json_parse(s, (size_t)(e - s), &v, NULL, 0) < 0)
        return NULL;
    return v;
}

static void test_escapes_text_everywhere(void)
{
    const char *cells[] = {"Name", NASTY, "1", "2.50 ms"};
    html_doc *d = html_doc_new(NASTY);
    char *out;
    int rc = -1;

    CHECK(d != NULL);
    html_doc_heading(d, NASTY);
    html_doc_text(d, NASTY);
    html_doc_pre(d, NASTY);
    html_doc_table(d, NASTY, 2, 2, cells);
    html_doc_chart(d, NASTY, NASTY, HTML_LINEAR, NASTY, HTML_LOG);
    out = page(d, &rc);
    html_doc_free(d);
    CHECK(out != NULL);
    CHECK_EQ_I64(rc, 0);
#define ESC "a&lt;b&gt;&amp;&quot;c&quot;&#39;&lt;/script&gt;&lt;!--x"
    CHECK(strstr(out, "<title>" ESC "</title>") != NULL);
    CHECK(strstr(out, "<h1>" ESC "</h1>") != NULL);
    CHECK(strstr(out, "<h2>" ESC "</h2>") != NULL);
    CHECK(strstr(out, "<p>" ESC "</p>") != NULL);
    CHECK(strstr(out, "<pre>" ESC "</pre>") != NULL);
    CHECK(strstr(out, "<caption>" ESC "</caption>") != NULL);
    CHECK(strstr(out, "<th>Name</th><th>" ESC "</th>") != NULL);
    CHECK(strstr(out, "<td class=\"num\">1</td><td class=\"num\">2.50 ms</td>") != NULL);
    CHECK(strstr(out, "<figcaption>" ESC "</figcaption>") != NULL);
#undef ESC
    /* The raw text appears nowhere, and only pacer's own 3 scripts end. */
    CHECK(strstr(out, "a<b>") == NULL);
    CHECK(strstr(out, "<!--") == NULL);
    CHECK_EQ_I64(count(out, "</script"), 3);
    CHECK_EQ_I64(count(out, "<script"), 3);
    free(out);
}

static void test_page_is_self_contained(void)
{
    html_doc *d = html_doc_new("t");
    double x[] = {1, 2}, y[] = {3, 4};
    char *out;
    int rc = -1;

    html_chart_series(html_doc_chart(d, "one", "x", HTML_LINEAR, "y", HTML_LINEAR), "s", 2, x, y);
    html_doc_chart(d, "two", "x", HTML_PERCENTILE, "y", HTML_LOG);
    out = page(d, &rc);
    html_doc_free(d);
    CHECK(out != NULL);
    CHECK_EQ_I64(rc, 0);
    CHECK(strncmp(out, "<!DOCTYPE html>", 15) == 0);
    CHECK(strstr(out, "<meta charset=\"utf-8\">") != NULL);
    CHECK(strstr(out, "Content-Security-Policy\" content=\"default-src 'none';") != NULL);
    CHECK(strstr(out, " src=") == NULL);
    CHECK(strstr(out, " href=") == NULL);
    CHECK(strstr(out, "url(") == NULL);
    CHECK(strstr(out, "@import") == NULL);
    /* Placeholders in order, and what the renderer promises to tests. */
    CHECK(strstr(out, "id=\"pacer-chart-0\"") != NULL);
    CHECK(strstr(out, "id=\"pacer-chart-1\"") > strstr(out, "id=\"pacer-chart-0\""));
    CHECK(strstr(out, "'pacer-chart'") != NULL);
    CHECK(strstr(out, "'data-series'") != NULL);
    CHECK(strstr(out, "'data-title'") != NULL);
    CHECK(strstr(out, "document.body.dataset.rendered") != NULL);
    CHECK(strstr(out, "'unhandledrejection'") != NULL);
    free(out);
}

/* The whole of a file of the repository (run from its root, as tests/run.sh
 * does), NUL-terminated; NULL if it cannot be read or holds a NUL. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, n;
    char chunk[4096];

    if (!f)
        return NULL;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        char *p = realloc(buf, len + n + 1);

        if (!p) {
            free(buf);
            fclose(f);
            return NULL;
        }
        buf = p;
        memcpy(buf + len, chunk, n);
        len += n;
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    if (buf && strlen(buf) != len) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* The page holds the style and scripts of src/report/ as they are now, each
 * whole, once, in its own element: the build embedded them, and an edit to
 * one is in the binary (the Makefile rebuilt what holds it). */
static void test_page_embeds_the_files(void)
{
    static const struct {
        const char *path, *open, *close;
    } parts[] = {
        {"src/report/html_page.css", "</title>\n<style>\n", "</style>\n<script>\n"},
        {"src/report/html_head.js", "</style>\n<script>\n", "</script>\n</head>\n"},
        {"src/report/html_render.js", "</script>\n<script>\n", "</script>\n</body>\n</html>\n"},
    };
    html_doc *d = html_doc_new("t");
    char *out;
    int rc = -1;

    html_doc_chart(d, "one", "x", HTML_LINEAR, "y", HTML_LINEAR);
    out = page(d, &rc);
    html_doc_free(d);
    CHECK(out != NULL);
    CHECK_EQ_I64(rc, 0);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        char *text = slurp(parts[i].path), *want;
        size_t n;

        CHECK(text != NULL);
        CHECK(strlen(text) > 100);
        n = strlen(parts[i].open) + strlen(text) + strlen(parts[i].close) + 1;
        want = malloc(n);
        CHECK(want != NULL);
        snprintf(want, n, "%s%s%s", parts[i].open, text, parts[i].close);
        CHECK_EQ_I64(count(out, want), 1);
        CHECK_EQ_I64(count(out, text), 1);
        free(want);
        free(text);
    }
    free(out);
}

static void test_data_cannot_close_its_script(void)
{
    html_doc *d = html_doc_new("t");
    double x[] = {0}, y[] = {1};
    html_chart *c = html_doc_chart(d, NASTY, "x " NASTY, HTML_LINEAR, "y", HTML_LINEAR);
    json_val *v;
    char *out;
    int rc = -1;

    html_chart_series(c, NASTY, 1, x, y);
    out = page(d, &rc);
    html_doc_free(d);
    CHECK(out != NULL);
    CHECK_EQ_I64(rc, 0);
    CHECK_EQ_I64(count(out, "</script"), 3);
    CHECK(strstr(out, "<!--") == NULL);
    CHECK(strstr(out, "\\u003c/script\\u003e\\u003c!--x") != NULL);
    v = data_of(out);
    free(out);
    CHECK(v != NULL);
    /* The strings come back intact. */
    {
        const char *t = json_str(json_path(v, "charts.0.title"));
        const char *n = json_str(json_path(v, "charts.0.series.0.name"));
        const char *xl = json_str(json_path(v, "charts.0.xlabel"));
        int ok = t && n && xl && strcmp(t, NASTY) == 0 && strcmp(n, NASTY) == 0 &&
                 strcmp(xl, "x " NASTY) == 0;

        json_free(v);
        CHECK(ok);
    }
}

static void test_nonfinite_numbers_are_null(void)
{
    double x[] = {0, 1, 2, 3, 4, 5}, y[] = {NAN, INFINITY, -INFINITY, 1.5, 1e300, -0.25};
    html_doc *d = html_doc_new("t");
    json_val *v;
    char *out;
    int rc = -1;

    html_chart_series(html_doc_chart(d, "c", "x", HTML_LINEAR, "y", HTML_LINEAR), "s", 6, x, y);
    out = page(d, &rc);
    html_doc_free(d);
    CHECK(out != NULL);
    CHECK_EQ_I64(rc, 0);
    v = data_of(out);
    CHECK(strstr(out, "\"y\":[null,null,null,1.5,1e+300,-0.25]") != NULL ||
          strstr(out, "\"y\":[null,null,null,1.5,1e300,-0.25]") != NULL);
    free(out);
    CHECK(v != NULL); /* strict RFC 8259: NaN or Infinity would not parse */
    {
        const json_val *ys = json_path(v, "charts.0.series.0.y");
        int ok = json_len(ys) == 6 && json_type_of(json_at(ys, 0)) == JSON_NULL &&
                 json_type_of(json_at(ys, 1)) == JSON_NULL &&
                 json_type_of(json_at(ys, 2)) == JSON_NULL && json_num(json_at(ys, 3)) == 1.5 &&
                 json_num(json_at(ys, 4)) == 1e300 && json_num(json_at(ys, 5)) == -0.25 &&
                 json_num(json_path(v, "charts.0.series.0.x.5")) == 5;

        json_free(v);
        CHECK(ok);
    }
}

/* 1..100 ms, one each: the spectrum must follow hdr_pct_iter step for step
 * (without its closing 100% step), in ms. */
static void test_spectrum_of_known_histogram(void)
{
    hdr_hist h, empty;
    html_doc *d = html_doc_new("t");
    html_chart *c = html_doc_chart(d, "spectrum", "Percentile", HTML_PERCENTILE, "ms", HTML_LOG);
    hdr_pct_iter it;
    const json_val *xs, *ys;
    json_val *v;
    char *out;
    size_t steps = 0, i = 0;
    int rc = -1, ok = 1;

    CHECK(hdr_init(&h, 1, STATS_LAT_HIGHEST, 3) == 0);
    CHECK(hdr_init(&empty, 1, STATS_LAT_HIGHEST, 3) == 0);
    for (int k = 1; k <= 100; k++)
        hdr_record(&h, (int64_t)k * 1000000);
    html_chart_spectrum(c, "known", &h, 1e6);
    html_chart_spectrum(c, "empty", &empty, 1e6);
    out = page(d, &rc);
    html_doc_free(d);
    CHECK(out != NULL);
    CHECK_EQ_I64(rc, 0);
    v = data_of(out);
    free(out);
    CHECK(v != NULL);
    CHECK_EQ_I64(json_num(json_path(v, "charts.0.xscale")), HTML_PERCENTILE);
    CHECK_EQ_I64(json_num(json_path(v, "charts.0.yscale")), HTML_LOG);
    xs = json_path(v, "charts.0.series.0.x");
    ys = json_path(v, "charts.0.series.0.y");
    hdr_pct_iter_init(&it, &h, 5);
    while (hdr_pct_iter_next(&it)) {
        if (it.is_last)
            continue;
        steps++;
        if (i < json_len(xs) &&
            (json_num(json_at(xs, i)) != it.percentile ||
             fabs(json_num(json_at(ys, i)) - (double)it.value / 1e6) > 1e-12))
            ok = 0;
        i++;
    }
    CHECK(ok);
    CHECK(steps > 20);
    CHECK_EQ_I64(json_len(xs), steps);
    CHECK_EQ_I64(json_len(ys), steps);
    /* Known values: starts at 0% with 1 ms, ends below 100% at the max. */
    CHECK_NEAR(json_num(json_at(xs, 0)), 0, 0);
    CHECK_NEAR(json_num(json_at(ys, 0)), 1.0, 0.001);
    CHECK(json_num(json_at(xs, steps - 1)) < 100);
    CHECK_NEAR(json_num(json_at(ys, steps - 1)), (double)hdr_max(&h) / 1e6, 1e-9);
    CHECK_NEAR(json_num(json_at(ys, steps - 1)), 100.0, 0.1);
    for (i = 1; i < steps; i++) {
        if (json_num(json_at(xs, i)) <= json_num(json_at(xs, i - 1)) ||
            json_num(json_at(ys, i)) < json_num(json_at(ys, i - 1)))
            ok = 0;
        /* The first point at or past 50% is the median, 50 ms. */
        if (json_num(json_at(xs, i)) >= 50 && json_num(json_at(xs, i - 1)) < 50 &&
            fabs(json_num(json_at(ys, i)) - 50.0) > 0.05)
            ok = 0;
    }
    CHECK(ok);
    /* The empty histogram: a named series without points. */
    CHECK_EQ_STR(json_str(json_path(v, "charts.0.series.1.name")), "empty");
    CHECK_EQ_I64(json_len(json_path(v, "charts.0.series.1.x")), 0);
    CHECK_EQ_I64(json_len(json_path(v, "charts.0.series.1.y")), 0);
    json_free(v);
    hdr_free(&h);
    hdr_free(&empty);
}

static void test_errors_are_sticky(void)
{
    html_doc *d = html_doc_new("t");
    double x[] = {1}, y[] = {2};
    const char *cells[] = {"a"};
    html_chart *c;
    char *out;
    int rc = 0;

    CHECK(d != NULL);
    c = html_doc_chart(d, "c", "x", HTML_LINEAR, "y", HTML_LINEAR);
    CHECK(c != NULL);
    html_chart_series(c, "ok", 1, x, y);
    /* More than memory can hold: the series is dropped, the doc remembers. */
    html_chart_series(c, "huge", SIZE_MAX / 8, x, y);
    /* Later calls are harmless, and the error stays the first one. */
    html_doc_heading(d, "after");
    html_chart_series(c, "after", 1, x, y);
    html_doc_table(d, NULL, 1, 1, cells);
    out = page(d, &rc);
    CHECK_EQ_I64(rc, -ENOMEM);
    CHECK(out != NULL);
    CHECK_EQ_I64(strlen(out), 0); /* nothing half-written */
    free(out);
    out = page(d, &rc); /* and again */
    CHECK_EQ_I64(rc, -ENOMEM);
    free(out);
    html_doc_free(d);

    /* A table too large to count, likewise. */
    d = html_doc_new("t");
    html_doc_table(d, NULL, SIZE_MAX / 2, 3, cells);
    out = page(d, &rc);
    CHECK_EQ_I64(rc, -ENOMEM);
    free(out);
    html_doc_free(d);

    /* NULL docs and charts: every call is a no-op, writing says ENOMEM. */
    html_doc_heading(NULL, "x");
    html_doc_text(NULL, "x");
    html_doc_pre(NULL, "x");
    html_doc_table(NULL, "x", 1, 1, cells);
    CHECK(html_doc_chart(NULL, "x", "x", 0, "y", 0) == NULL);
    html_chart_series(NULL, "x", 1, x, y);
    html_chart_spectrum(NULL, "x", NULL, 1e6);
    html_doc_free(NULL);
    out = page(NULL, &rc);
    CHECK_EQ_I64(rc, -ENOMEM);
    free(out);
}

static void test_write_error_is_eio(void)
{
    html_doc *d = html_doc_new("t");
    FILE *f = fopen("/dev/full", "w");
    int rc;

    CHECK(d != NULL);
    if (!f) { /* no /dev/full here: nothing to test */
        html_doc_free(d);
        return;
    }
    html_doc_pre(d, "some text");
    rc = html_doc_write(d, f);
    fclose(f);
    html_doc_free(d);
    CHECK_EQ_I64(rc, -EIO);
}

/* The run report: its tables say what pc_results says, and it has the
 * charts and series the integration test expects. */
static void test_report_html(void)
{
    pc_rundesc cfg;
    pc_results res;
    pc_series s = {.interval_s = 1};
    pc_interval *iv = interval_new();
    json_val *v = NULL;
    char *out = NULL;
    size_t len = 0;
    FILE *f;
    int rc;

    CHECK(iv != NULL);
    memset(&cfg, 0, sizeof cfg);
    memset(&res, 0, sizeof res);
    cfg.url_text = "http://127.0.0.1:1/<x>";
    cfg.threads = 2;
    cfg.connections = 4;
    cfg.rate = 100;
    CHECK(stats_init(&res.st) == 0);
    res.duration_ns = 2000000000ull;
    res.start_wall_ns = 1700000000000000000ull;
    for (int k = 1; k <= 200; k++) {
        hdr_record(&res.st.latency, k * 10000);
        hdr_record(&res.st.latency_u, k * 5000);
        hdr_record(&res.st.ttfb, k * 4000);
    }
    for (int k = 1; k <= 4; k++)
        hdr_record(&res.st.connect, k * 100000);
    res.st.scheduled = 203;
    res.st.completed = 200;
    res.st.err[PC_ERR_TIMEOUT] = 3;
    res.st.status[200] = 200;
    res.st.bytes_read = 2 * 1048576;
    for (int i = 0; i < 2; i++) {
        interval_reset(iv);
        iv->start_ns = (uint64_t)i * 1000000000ull;
        iv->end_ns = iv->start_ns + 1000000000ull;
        for (int k = 1; k <= 100; k++)
            hdr_record(&iv->latency, k * 10000);
        iv->completed = 100;
        iv->errors = iv->timeouts = (uint64_t)i;
        CHECK(series_add_interval(&s, iv, 1700000000.0 + i) == 0);
    }
    f = open_memstream(&out, &len);
    CHECK(f != NULL);
    rc = report_html(f, &cfg, &res, &s);
    fclose(f);
    interval_free(iv);
    series_free(&s);
    stats_free(&res.st);
    CHECK_EQ_I64(rc, 0);
    CHECK(out != NULL);
    CHECK(strstr(out, "<title>pacer: http://127.0.0.1:1/&lt;x&gt;</title>") != NULL);
    CHECK(strstr(out, "2 threads, 4 connections, constant rate 100.00 requests/s, 2.00 s "
                      "measured, protocol http/1.1") != NULL);
    CHECK(strstr(out, "<td>Completed</td><td class=\"num\">200</td>") != NULL);
    CHECK(strstr(out, "<td>Timed out</td><td class=\"num\">3</td>") != NULL);
    CHECK(strstr(out, "<td>Rate achieved (requests/s)</td><td class=\"num\">100.00</td>") != NULL);
    CHECK(strstr(out, "<td>Throughput (MB/s)</td><td class=\"num\">1.00</td>") != NULL);
    /* p50 of 10 us .. 2 ms in 10 us steps: 1.00 ms. */
    CHECK(strstr(out, "<td class=\"num\">200</td><td class=\"num\">1.001</td>") != NULL ||
          strstr(out, "<td class=\"num\">200</td><td class=\"num\">1.000</td>") != NULL);
    CHECK(strstr(out, "<pre>Running ") != NULL);
    CHECK(strstr(out, "Requests/sec:") != NULL);
    v = data_of(out);
    free(out);
    CHECK(v != NULL);
    CHECK_EQ_I64(json_len(json_get(v, "charts")), 5);
    CHECK_EQ_STR(json_str(json_path(v, "charts.0.title")), "Latency by percentile");
    CHECK_EQ_I64(json_len(json_path(v, "charts.0.series")), 2);
    CHECK_EQ_I64(json_len(json_path(v, "charts.1.series")), 3);
    /* Throughput, and the requested rate as a reference line. */
    CHECK_EQ_I64(json_len(json_path(v, "charts.2.series")), 2);
    CHECK_EQ_STR(json_str(json_path(v, "charts.2.series.1.name")), "requested (-R)");
    CHECK(json_path(v, "charts.2.series.0.ref") == NULL);
    CHECK(json_bool(json_path(v, "charts.2.series.1.ref")));
    CHECK_NEAR(json_num(json_path(v, "charts.2.series.1.y.0")), 100.0, 1e-9);
    CHECK_NEAR(json_num(json_path(v, "charts.2.series.1.y.1")), 100.0, 1e-9);
    CHECK_EQ_I64(json_len(json_path(v, "charts.3.series")), 3);
    CHECK_EQ_I64(json_len(json_path(v, "charts.4.series")), 2); /* connect, first byte: no TLS */
    CHECK_EQ_STR(json_str(json_path(v, "charts.4.series.1.name")), "first byte");
    /* Over time: x from the first point, throughput per second. */
    CHECK_NEAR(json_num(json_path(v, "charts.2.series.0.x.1")), 1.0, 1e-9);
    CHECK_NEAR(json_num(json_path(v, "charts.2.series.0.y.1")), 100.0, 1e-9);
    CHECK_NEAR(json_num(json_path(v, "charts.3.series.1.y.1")), 1.0, 1e-9);
    CHECK_NEAR(json_num(json_path(v, "charts.1.series.2.y.0")), 1.0, 0.001); /* max 1 ms */
    json_free(v);
}

/* Points read back from JSON carry only histograms: the latency over time
 * comes from them; an interval without samples is a gap (null). */
static void test_report_html_from_histograms(void)
{
    pc_rundesc cfg;
    pc_results res;
    pc_series s = {.interval_s = 1}, back = {.interval_s = 1};
    pc_interval *iv = interval_new();
    json_val *v = NULL;
    char *out = NULL;
    size_t len = 0;
    FILE *f;
    int rc;

    CHECK(iv != NULL);
    memset(&cfg, 0, sizeof cfg);
    memset(&res, 0, sizeof res);
    cfg.url_text = "x";
    CHECK(stats_init(&res.st) == 0);
    for (int i = 0; i < 2; i++) {
        interval_reset(iv);
        iv->end_ns = 1000000000ull;
        if (i == 0)
            hdr_record(&iv->latency, 3000000);
        CHECK(series_add_interval(&s, iv, 10.0 + i) == 0);
    }
    for (size_t i = 0; i < s.n; i++) {
        pc_point p = {.start_s = s.v[i].start_s, .length_s = 1, .hist = s.v[i].hist};

        CHECK(series_add_point(&back, &p) == 0);
    }
    f = open_memstream(&out, &len);
    rc = report_html(f, &cfg, &res, &back);
    fclose(f);
    interval_free(iv);
    series_free(&s);
    series_free(&back);
    stats_free(&res.st);
    CHECK_EQ_I64(rc, 0);
    v = data_of(out);
    free(out);
    CHECK(v != NULL);
    CHECK_NEAR(json_num(json_path(v, "charts.1.series.0.y.0")), 3.0, 0.01);
    CHECK_NEAR(json_num(json_path(v, "charts.1.series.2.y.0")), 3.0, 0.01);
    CHECK_EQ_I64(json_type_of(json_path(v, "charts.1.series.0.y.1")), JSON_NULL);
    /* Nothing recorded at all: the spectrum series exist, without points;
     * the breakdown chart has none. */
    CHECK_EQ_I64(json_len(json_path(v, "charts.0.series")), 2);
    CHECK_EQ_I64(json_len(json_path(v, "charts.0.series.0.x")), 0);
    /* No errors chart (no interval had one), no -R line; the breakdown
     * has no series. */
    CHECK_EQ_I64(json_len(json_get(v, "charts")), 4);
    CHECK_EQ_I64(json_len(json_path(v, "charts.2.series")), 1);
    CHECK_EQ_STR(json_str(json_path(v, "charts.3.title")),
                 "Connect, TLS and first-byte percentiles");
    CHECK_EQ_I64(json_len(json_path(v, "charts.3.series")), 0);
    json_free(v);
}

static void test_report_html_without_series(void)
{
    pc_rundesc cfg;
    pc_results res;
    json_val *v = NULL;
    char *out = NULL;
    size_t len = 0;
    FILE *f;
    int rc;

    memset(&cfg, 0, sizeof cfg);
    memset(&res, 0, sizeof res);
    CHECK(stats_init(&res.st) == 0);
    f = open_memstream(&out, &len);
    rc = report_html(f, &cfg, &res, NULL);
    fclose(f);
    stats_free(&res.st);
    CHECK_EQ_I64(rc, 0);
    CHECK(strstr(out, "No time series") != NULL);
    v = data_of(out);
    free(out);
    CHECK(v != NULL);
    CHECK_EQ_I64(json_len(json_get(v, "charts")), 2); /* spectrum, breakdown */
    json_free(v);
}

/* Named x values and reference lines reach the embedded data; a verdict
 * is a marked paragraph, escaped like any text. */
static void test_categories_reference_verdict(void)
{
    const char *names[] = {"closed", NASTY};
    double x[2] = {0, 1}, y[2] = {5, 6};
    html_doc *d = html_doc_new("t");
    html_chart *c = html_doc_chart(d, "c", "Profile", HTML_LINEAR, "y", HTML_LINEAR);
    json_val *v;
    char *out;
    int rc = -1;

    html_chart_categories(c, 2, names);
    html_chart_series(c, "data", 2, x, y);
    html_chart_reference(c, "target", 2, x, y);
    html_doc_verdict(d, true, "all <good>");
    html_doc_verdict(d, false, "not good");
    out = page(d, &rc);
    html_doc_free(d);
    CHECK_EQ_I64(rc, 0);
    CHECK(out != NULL);
    CHECK(strstr(out, "<p class=\"pacer-verdict pass\">all &lt;good&gt;</p>") != NULL);
    CHECK(strstr(out, "<p class=\"pacer-verdict fail\">not good</p>") != NULL);
    v = data_of(out);
    free(out);
    CHECK(v != NULL);
    CHECK_EQ_I64(json_len(json_path(v, "charts.0.xcategories")), 2);
    CHECK_EQ_STR(json_str(json_path(v, "charts.0.xcategories.0")), "closed");
    CHECK_EQ_STR(json_str(json_path(v, "charts.0.xcategories.1")), NASTY);
    CHECK(!json_bool(json_path(v, "charts.0.series.0.ref")));
    CHECK(json_bool(json_path(v, "charts.0.series.1.ref")));
    json_free(v);
}

/* The run report as a string (heap); NULL if it could not be written. */
static char *report_of(const pc_rundesc *cfg, const pc_results *res, const pc_series *s)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);

    if (!f)
        return NULL;
    if (report_html(f, cfg, res, s) != 0) {
        fclose(f);
        free(out);
        return NULL;
    }
    fclose(f);
    return out;
}

/* Whether needle occurs in hay before end. */
static bool before(const char *hay, const char *needle, const char *end)
{
    const char *p = hay && end ? strstr(hay, needle) : NULL;

    return p && p < end;
}

/* The run report's top: the command line, or for `pacer report` the files
 * and the command lines found in them; the SLO verdict and each objective. */
static void test_report_html_top(void)
{
    char *files[] = {"a.json", "b.hlog"};
    char *cmds[] = {"pacer -R10 http://x/", "pacer -c2 'http://y/'"};
    pc_rundesc cfg;
    pc_results res;
    pc_slo slo;
    char err[128], *out, *h2;

    memset(&cfg, 0, sizeof cfg);
    memset(&res, 0, sizeof res);
    CHECK(stats_init(&res.st) == 0);
    for (int k = 1; k <= 100; k++)
        hdr_record(&res.st.latency, k * 1000000);
    res.st.scheduled = res.st.completed = 100;
    res.duration_ns = 1000000000ull;
    CHECK(slo_parse("p99<=50ms,errors<=0", &slo, err, sizeof err) == 0);
    cfg.threads = 1;
    cfg.cmdline = "pacer -c1 --slo 'p99<=50ms,errors<=0' http://x/<y>";
    cfg.slo = &slo;
    out = report_of(&cfg, &res, NULL);
    CHECK(out != NULL);
    h2 = out ? strstr(out, "<h2>") : NULL;
    CHECK(h2 != NULL);
    /* Before any section: the command line, then the verdict. */
    CHECK(before(out, "<pre>pacer -c1 --slo &#39;p99&lt;=50ms,errors&lt;=0&#39; http://x/&lt;y&gt;"
                      "</pre>", h2));
    CHECK(strstr(out, "<h2>Service-level objectives</h2>") == h2);
    CHECK(strstr(out, "<p class=\"pacer-verdict fail\">SLO FAILED: 1 of 2 objectives not "
                      "met</p>") != NULL);
    CHECK(strstr(out, "<tr><td>p99&lt;=50ms</td><td class=\"num\">99.") != NULL);
    CHECK(strstr(out, "ms</td><td>FAIL</td><td></td></tr>") != NULL);
    CHECK(strstr(out, "<tr><td>errors&lt;=0</td><td class=\"num\">0</td><td>PASS</td>"
                      "<td>none failed</td></tr>") != NULL);
    free(out);

    /* pacer report: no command line of its own, the files and theirs. */
    cfg.cmdline = NULL;
    cfg.slo = NULL;
    cfg.sources = (const char **)files;
    cfg.nsources = 2;
    cfg.source_cmdlines = cmds;
    cfg.nsource_cmdlines = 2;
    out = report_of(&cfg, &res, NULL);
    CHECK(out != NULL);
    h2 = out ? strstr(out, "<h2>") : NULL;
    CHECK(h2 != NULL);
    CHECK(before(out, "<tr><th>Files merged</th></tr>", h2));
    CHECK(before(out, "<tr><td>a.json</td></tr>", h2));
    CHECK(before(out, "<tr><td>b.hlog</td></tr>", h2));
    CHECK(before(out, "<pre>pacer -R10 http://x/\npacer -c2 &#39;http://y/&#39;</pre>", h2));
    CHECK(strstr(out, "class=\"pacer-verdict") == NULL); /* no --slo, no verdict */
    free(out);
    cfg.nsource_cmdlines = 0;
    out = report_of(&cfg, &res, NULL);
    CHECK(out != NULL && strstr(out, "<p>No command line is recorded in them.</p>") != NULL);
    free(out);
    stats_free(&res.st);
}

/* The run report of a series with no errors says so in one line; never-sent
 * requests placed in their intervals are drawn. */
static void test_report_html_errors_line(void)
{
    pc_rundesc cfg;
    pc_results res;
    pc_series s = {.interval_s = 1};
    pc_interval *iv = interval_new();
    uint64_t due[2] = {3, 1};
    json_val *v;
    char *out;

    CHECK(iv != NULL);
    memset(&cfg, 0, sizeof cfg);
    memset(&res, 0, sizeof res);
    cfg.threads = 1;
    CHECK(stats_init(&res.st) == 0);
    res.st.scheduled = res.st.completed = 20;
    for (int i = 0; i < 2; i++) {
        interval_reset(iv);
        iv->start_ns = (uint64_t)i * 1000000000ull;
        iv->end_ns = iv->start_ns + 1000000000ull;
        iv->completed = 10;
        CHECK(series_add_interval(&s, iv, 1700000000.0 + i) == 0);
    }
    out = report_of(&cfg, &res, &s);
    CHECK(out != NULL && strstr(out, "<p>No errors: 0 of 20 requests failed.</p>") != NULL);
    v = data_of(out);
    CHECK(v != NULL);
    for (size_t i = 0; i < json_len(json_get(v, "charts")); i++)
        CHECK(strcmp(json_str(json_path(json_at(json_get(v, "charts"), i), "title")),
                     "Errors over time") != 0);
    json_free(v);
    free(out);

    /* Failed requests outside every interval (interrupted): not "No errors". */
    res.st.interrupted = 2;
    res.st.scheduled = 22;
    out = report_of(&cfg, &res, &s);
    CHECK(out != NULL && strstr(out, "<p>No errors in any interval; 2 of 22 requests failed "
                                     "outside them (see Requests).</p>") != NULL);
    free(out);

    /* Never-sent requests placed in their intervals: the chart, with them. */
    res.st.interrupted = 0;
    res.st.never_sent = 4;
    res.st.scheduled = 24;
    res.start_wall_ns = 1700000000ull * 1000000000ull;
    res.never_sent_due = due;
    res.never_sent_n = 2;
    series_place_never_sent(&s, &res);
    out = report_of(&cfg, &res, &s);
    CHECK(out != NULL && strstr(out, "No errors") == NULL);
    v = data_of(out);
    free(out);
    CHECK_EQ_STR(json_str(json_path(v, "charts.3.title")), "Errors over time");
    CHECK_EQ_I64(json_len(json_path(v, "charts.3.series")), 4);
    CHECK_EQ_STR(json_str(json_path(v, "charts.3.series.3.name")),
                 "never sent (in the interval due)");
    CHECK_NEAR(json_num(json_path(v, "charts.3.series.3.y.0")), 3, 1e-9);
    CHECK_NEAR(json_num(json_path(v, "charts.3.series.3.y.1")), 1, 1e-9);
    CHECK_NEAR(json_num(json_path(v, "charts.3.series.0.y.0")), 3, 1e-9);
    json_free(v);
    interval_free(iv);
    series_free(&s);
    stats_free(&res.st);
}

/* The series named `name` of chart `title` in the page's data (NULL: none). */
static const json_val *series_of(const json_val *v, const char *title, const char *name)
{
    const json_val *charts = json_get(v, "charts");

    for (size_t i = 0; i < json_len(charts); i++) {
        const json_val *c = json_at(charts, i), *ss = json_get(c, "series");

        if (strcmp(json_str(json_get(c, "title")), title) != 0)
            continue;
        for (size_t j = 0; j < json_len(ss); j++)
            if (strcmp(json_str(json_get(json_at(ss, j), "name")), name) == 0)
                return json_at(ss, j);
    }
    return NULL;
}

/* Under step stages the requested rate is drawn as steps, from the shape,
 * and ends with the run; the throughput as steps across each interval; an
 * --slo latency limit is a limit line on both latency charts (a stage's
 * over that stage alone); never-sent requests are named in the errors
 * objective's row and the requests table. */
static void test_report_html_shape_slo(void)
{
    static const double want_x[] = {0, 1, 1, 2}, want_y[] = {1000, 1000, 1500, 1500};
    pc_rundesc cfg;
    pc_results res;
    pc_series s = {.interval_s = 1};
    pc_interval *iv = interval_new();
    pc_slo slo;
    const json_val *r;
    json_val *v;
    char err[128], *out;

    CHECK(iv != NULL);
    memset(&cfg, 0, sizeof cfg);
    memset(&res, 0, sizeof res);
    cfg.threads = 1;
    cfg.rate = 1250;
    cfg.shape.n = 2;
    cfg.shape.stages[0] = (pc_stage){.dur_ns = 1000000000ull, .rate = 1000, .step = true};
    cfg.shape.stages[1] = (pc_stage){.dur_ns = 1000000000ull, .rate = 1500, .step = true};
    CHECK(slo_parse("p99<=100ms,stage2:max<=1s,errors<=0.1%", &slo, err, sizeof err) == 0);
    cfg.slo = &slo;
    CHECK(stats_init(&res.st) == 0);
    CHECK(stats_init_stages(&res.st, 2, 0) == 0);
    for (int k = 1; k <= 100; k++)
        hdr_record(&res.st.latency, k * 1000000);
    res.st.completed = 2400;
    res.st.never_sent = 100;
    res.st.scheduled = 2500;
    res.duration_ns = 2000000000ull;
    for (int i = 0; i < 3; i++) { /* two seconds, and the tail after the schedule */
        interval_reset(iv);
        iv->start_ns = (uint64_t)i * 1000000000ull;
        iv->end_ns = iv->start_ns + (i < 2 ? 1000000000ull : 10000000ull);
        iv->completed = i == 0 ? 1000 : i == 1 ? 1390 : 10;
        CHECK(series_add_interval(&s, iv, 1700000000.0 + i) == 0);
    }
    out = report_of(&cfg, &res, &s);
    CHECK(out != NULL);
    CHECK(out && strstr(out, "<td>errors&lt;=0.1%</td><td>4% (100 of 2500)</td><td>FAIL</td>"
                             "<td>100 never sent (still queued when the run ended: never "
                             "written to the server)</td></tr>") != NULL);
    CHECK(out && strstr(out, "<tr><td>Failed (all kinds)</td><td class=\"num\">100</td>") != NULL);
    v = data_of(out);
    free(out);
    CHECK(v != NULL);
    r = series_of(v, "Throughput", "requested (--stages)");
    CHECK(r != NULL && json_bool(json_get(r, "ref")));
    CHECK_EQ_I64(json_len(json_get(r, "x")), 4);
    for (size_t i = 0; r && i < 4; i++) {
        CHECK_NEAR(json_num(json_at(json_get(r, "x"), i)), want_x[i], 1e-9);
        CHECK_NEAR(json_num(json_at(json_get(r, "y"), i)), want_y[i], 1e-9);
    }
    r = series_of(v, "Throughput", "completed/s");
    CHECK(r != NULL && json_bool(json_get(r, "steps")));
    CHECK_NEAR(json_num(json_get(r, "xend")), 2, 1e-9); /* not past the measured period */
    r = series_of(v, "Latency over time (corrected)", "SLO p99<=100ms");
    CHECK(r != NULL && json_bool(json_get(r, "limit")));
    CHECK_NEAR(json_num(json_path(r, "y.0")), 100, 1e-9);
    CHECK_NEAR(json_num(json_path(r, "x.0")), 0, 1e-9);
    CHECK_NEAR(json_num(json_path(r, "x.1")), 2, 1e-9);
    r = series_of(v, "Latency over time (corrected)", "SLO stage2:max<=1s");
    CHECK(r != NULL);
    CHECK_NEAR(json_num(json_path(r, "x.0")), 1, 1e-9);
    CHECK_NEAR(json_num(json_path(r, "x.1")), 2, 1e-9);
    CHECK_NEAR(json_num(json_path(r, "y.1")), 1000, 1e-9);
    r = series_of(v, "Latency by percentile", "SLO p99<=100ms");
    CHECK(r != NULL);
    CHECK_NEAR(json_num(json_path(r, "x.1")), 99, 1e-9);
    CHECK(series_of(v, "Latency by percentile", "SLO stage2:max<=1s") == NULL);
    json_free(v);
    interval_free(iv);
    series_free(&s);
    stats_free(&res.st);
}

/* A diagnosis box: its title, then one paragraph per line, escaped. */
static void test_diagnosis_box(void)
{
    html_doc *d = html_doc_new("t");
    char *out;
    int rc = -1;

    html_doc_diagnosis(d, "Who <limited>", "first & one\n\nsecond\n");
    out = page(d, &rc);
    html_doc_free(d);
    CHECK_EQ_I64(rc, 0);
    CHECK(out && strstr(out, "<div class=\"pacer-diagnosis\" id=\"pacer-diagnosis\"><p "
                             "class=\"pacer-diagnosis-title\">Who &lt;limited&gt;</p><p>first "
                             "&amp; one</p><p>second</p></div>") != NULL);
    free(out);
}

int main(void)
{
    RUN(test_report_html_shape_slo);
    RUN(test_diagnosis_box);
    RUN(test_escapes_text_everywhere);
    RUN(test_page_is_self_contained);
    RUN(test_page_embeds_the_files);
    RUN(test_data_cannot_close_its_script);
    RUN(test_nonfinite_numbers_are_null);
    RUN(test_spectrum_of_known_histogram);
    RUN(test_errors_are_sticky);
    RUN(test_write_error_is_eio);
    RUN(test_report_html);
    RUN(test_report_html_from_histograms);
    RUN(test_report_html_without_series);
    RUN(test_categories_reference_verdict);
    RUN(test_report_html_top);
    RUN(test_report_html_errors_line);
    return unit_done();
}

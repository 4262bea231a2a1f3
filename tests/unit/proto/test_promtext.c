/*
 * test_promtext.c - exporters' /metrics pages parsed (proto/promtext.c):
 * the format's edge cases one by one, malformed lines refused with their
 * line number, and two real pages (tests/data/prometheus/) summed.
 */
#include "proto/promtext.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

/* What the callback saw, flattened: "name{a=v,b=w} value [ts] type\n"
 * per sample. */
typedef struct {
    char text[4096];
    size_t len;
    unsigned n;
    unsigned stop_at; /* return 7 at this sample (1-based; 0: never) */
} seen;

static int collect(void *ctx, const pm_sample *s)
{
    seen *w = ctx;
    int k = snprintf(w->text + w->len, sizeof w->text - w->len, "%s{", s->name);

    w->len += (size_t)k;
    for (size_t i = 0; i < s->nlabels; i++) {
        k = snprintf(w->text + w->len, sizeof w->text - w->len, "%s%s=%s", i ? "," : "",
                     s->labels[i].name, s->labels[i].value);
        w->len += (size_t)k;
    }
    k = snprintf(w->text + w->len, sizeof w->text - w->len, "} %.17g", s->value);
    w->len += (size_t)k;
    if (s->has_ts) {
        k = snprintf(w->text + w->len, sizeof w->text - w->len, " @%lld", (long long)s->ts_ms);
        w->len += (size_t)k;
    }
    k = snprintf(w->text + w->len, sizeof w->text - w->len, " t%d\n", (int)s->type);
    w->len += (size_t)k;
    w->n++;
    return w->stop_at && w->n == w->stop_at ? 7 : 0;
}

static int parse(const char *t, bool om, seen *w, pm_error *e)
{
    memset(w, 0, sizeof *w);
    return pm_parse(t, strlen(t), om, collect, w, e);
}

static void test_plain_samples(void)
{
    seen w;
    pm_error e;

    CHECK_EQ_I64(parse("a 1\nb_total{x=\"y\"} 2.5\n\nc{} -3e2\n", false, &w, &e), 0);
    CHECK_EQ_STR(w.text, "a{} 1 t0\nb_total{x=y} 2.5 t0\nc{} -300 t0\n");
    CHECK_EQ_I64(e.line, 0);
}

static void test_no_final_newline_and_crlf(void)
{
    seen w;
    pm_error e;

    CHECK_EQ_I64(parse("a 1\r\nb 2", false, &w, &e), 0);
    CHECK_EQ_STR(w.text, "a{} 1 t0\nb{} 2 t0\n");
}

static void test_label_escapes(void)
{
    seen w;
    pm_error e;

    CHECK_EQ_I64(parse("m{path=\"C:\\\\dir\",q=\"say \\\"hi\\\"\",nl=\"a\\nb\",e=\"\"} 1\n", false, &w,
                       &e), 0);
    CHECK_EQ_STR(w.text, "m{path=C:\\dir,q=say \"hi\",nl=a\nb,e=} 1 t0\n");
}

static void test_label_spacing_and_trailing_comma(void)
{
    seen w;
    pm_error e;

    CHECK_EQ_I64(parse("m{ a = \"1\" , b=\"{},#\" , } 4\t\n", false, &w, &e), 0);
    CHECK_EQ_STR(w.text, "m{a=1,b={},#} 4 t0\n");
}

static void test_special_values(void)
{
    seen w;
    pm_error e;

    CHECK_EQ_I64(parse("a NaN\nb +Inf\nc -Inf\nd Inf\ne 0x1p4\nf 1.5E-3\n", false, &w, &e), 0);
    CHECK_EQ_STR(w.text, "a{} nan t0\nb{} inf t0\nc{} -inf t0\nd{} inf t0\ne{} 16 t0\n"
                         "f{} 0.0015 t0\n");
}

static void test_timestamps(void)
{
    seen w;
    pm_error e;

    CHECK_EQ_I64(parse("a 1 1700000000123\nb 2 -5\n", false, &w, &e), 0);
    CHECK_EQ_STR(w.text, "a{} 1 @1700000000123 t0\nb{} 2 @-5 t0\n");
    /* OpenMetrics: seconds, as a float. */
    CHECK_EQ_I64(parse("a 1 1700000000.123\n# EOF\n", true, &w, &e), 0);
    CHECK_EQ_STR(w.text, "a{} 1 @1700000000123 t0\n");
    /* The text format's are integers. */
    CHECK_EQ_I64(parse("a 1 17.5\n", false, &w, &e), -1);
    CHECK_EQ_I64(e.line, 1);
    CHECK(strstr(e.why, "bad timestamp") != NULL);
    CHECK_EQ_I64(parse("a 1 99999999999999999999\n", false, &w, &e), -1);
}

static void test_help_type_comments(void)
{
    seen w;
    pm_error e;
    const char *t = "# HELP c_total Requests \\\\ served,\\n by code.\n"
                    "# TYPE c_total counter\n"
                    "# a comment, with { and \" in it\n"
                    "#\n"
                    "c_total{code=\"200\"} 10\n"
                    "# TYPE h histogram\n"
                    "h_bucket{le=\"+Inf\"} 3\nh_sum 1.5\nh_count 3\nhx 1\n"
                    "# TYPE g gauge\ng 2\n";

    CHECK_EQ_I64(parse(t, false, &w, &e), 0);
    CHECK_EQ_STR(w.text, "c_total{code=200} 10 t1\nh_bucket{le=+Inf} 3 t3\nh_sum{} 1.5 t3\n"
                         "h_count{} 3 t3\nhx{} 1 t0\ng{} 2 t2\n");
}

static void test_type_words(void)
{
    seen w;
    pm_error e;

    CHECK_EQ_I64(parse("# TYPE a untyped\na 1\n", false, &w, &e), 0);
    CHECK_EQ_I64(parse("# TYPE a unknown\na 1\n", false, &w, &e), -1); /* OpenMetrics' word */
    CHECK(strstr(e.why, "unknown type") != NULL);
    CHECK_EQ_I64(parse("# TYPE a info\na_info 1\n# EOF\n", true, &w, &e), 0);
    CHECK_EQ_STR(w.text, "a_info{} 1 t5\n");
    CHECK_EQ_I64(parse("# TYPE a counter extra\n", false, &w, &e), -1);
    CHECK_EQ_I64(parse("# TYPE a\n", false, &w, &e), -1);
    CHECK_EQ_I64(parse("# HELP 9a text\n", false, &w, &e), -1);
    /* A HELP text escapes only \\ and \n (and \" in OpenMetrics). */
    CHECK_EQ_I64(parse("# HELP a bad \\t escape\n", false, &w, &e), -1);
    CHECK(strstr(e.why, "invalid escape") != NULL);
    CHECK_EQ_I64(parse("# HELP a \\\"q\\\"\n# EOF\n", true, &w, &e), 0);
}

static void test_openmetrics_eof(void)
{
    seen w;
    pm_error e;

    CHECK_EQ_I64(parse("a 1\n", true, &w, &e), -1);
    CHECK(strstr(e.why, "no # EOF") != NULL);
    CHECK_EQ_I64(e.line, 2);
    CHECK_EQ_I64(parse("a 1\n# EOF\nb 2\n", true, &w, &e), -1);
    CHECK_EQ_I64(e.line, 3);
    CHECK_EQ_I64(parse("a 1\n# EOF", true, &w, &e), 0);
    CHECK_EQ_U64(w.n, 1);
    /* In the text format "# EOF" is a comment. */
    CHECK_EQ_I64(parse("a 1\n# EOF\nb 2\n", false, &w, &e), 0);
    CHECK_EQ_U64(w.n, 2);
}

/* Each malformed line is refused with its number and a reason. */
static void test_malformed(void)
{
    static const struct {
        const char *text, *why;
    } bad[] = {
        {"ok 1\n9abc 1\n", "bad metric name"},
        {"ok 1\na-b 1\n", "no blank after the name"},
        {"ok 1\na\n", "no value"},
        {"ok 1\na one\n", "bad value"},
        {"ok 1\na 1 2x\n", "bad timestamp"},
        {"ok 1\na 1 2 x\n", "text after the sample"},
        {"ok 1\na{b=\"1\" 1\n", "expected ',' or '}'"},
        {"ok 1\na{b=\"1} 1\n", "unterminated label value"},
        {"ok 1\na{b=1} 1\n", "label value not quoted"},
        {"ok 1\na{b\"1\"} 1\n", "no '=' after label"},
        {"ok 1\na{9=\"1\"} 1\n", "bad label name"},
        {"ok 1\na{b:c=\"1\"} 1\n", "no '=' after label"},
        {"ok 1\na{b=\"x\\ty\"} 1\n", "invalid escape"},
        {"ok 1\na{b=\"1\",b=\"2\"} 1\n", "label twice"},
        {"ok 1\na nan(1)\n", "bad value"},
        {"ok 1\na{b=\"x\\", "a backslash at the end"},
    };

    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        seen w;
        pm_error e;

        CHECK_EQ_I64(parse(bad[i].text, false, &w, &e), -1);
        if (e.line != 2 || !strstr(e.why, bad[i].why)) {
            snprintf(unit_msg, sizeof unit_msg, "case %zu: line %u \"%s\", want line 2 \"%s\"", i,
                     e.line, e.why, bad[i].why);
            unit_failed_now = 1;
            return;
        }
        CHECK_EQ_U64(w.n, 1); /* the line before was handed out */
    }
}

static void test_too_many_labels(void)
{
    char t[2048];
    size_t n = 0;
    seen w;
    pm_error e;

    n += (size_t)snprintf(t + n, sizeof t - n, "a{");
    for (int i = 0; i < PM_MAX_LABELS; i++)
        n += (size_t)snprintf(t + n, sizeof t - n, "l%d=\"v\",", i);
    snprintf(t + n, sizeof t - n, "} 1\n");
    CHECK_EQ_I64(parse(t, false, &w, &e), 0);
    snprintf(t + n, sizeof t - n, "x=\"v\"} 1\n");
    CHECK_EQ_I64(parse(t, false, &w, &e), -1);
    CHECK(strstr(e.why, "too many labels") != NULL);
}

static void test_callback_stops(void)
{
    seen w;
    pm_error e;

    memset(&w, 0, sizeof w);
    w.stop_at = 2;
    CHECK_EQ_I64(pm_parse("a 1\nb 2\nc 3\n", 12, false, collect, &w, &e), 7);
    CHECK_EQ_U64(w.n, 2);
    CHECK_EQ_I64(e.line, 0); /* not the parser's error */
}

static void test_label_get_and_name(void)
{
    pm_label l[] = {{"mode", "user"}, {"cpu", "0"}};
    pm_sample s = {.name = "x", .labels = l, .nlabels = 2};

    CHECK_EQ_STR(pm_label_get(&s, "cpu"), "0");
    CHECK(pm_label_get(&s, "cp") == NULL);
    CHECK(pm_metric_name_ok("node_cpu:rate5m", 15));
    CHECK(!pm_metric_name_ok("5m", 2));
    CHECK(!pm_metric_name_ok("", 0));
    CHECK(!pm_metric_name_ok("a-b", 3));
}

/* The length bounds the page, not a NUL. */
static void test_length_not_nul(void)
{
    seen w;
    pm_error e;

    memset(&w, 0, sizeof w);
    CHECK_EQ_I64(pm_parse("a 1\nb 2\ngarbage", 8, false, collect, &w, &e), 0);
    CHECK_EQ_U64(w.n, 2);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *b = NULL;

    if (f && fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);

        if (n > 0 && (b = malloc((size_t)n)) && fseek(f, 0, SEEK_SET) == 0 &&
            fread(b, 1, (size_t)n, f) == (size_t)n)
            *len = (size_t)n;
        else
            free(b), b = NULL;
    }
    if (f)
        fclose(f);
    return b;
}

typedef struct {
    unsigned samples, counters;
    double cpu_by_mode[2]; /* idle, user over all CPUs */
    double group_cpu;      /* process-exporter's bash group, user + system */
    double group_rss;
    const char *uname_version;
    char version[64];
} sums;

static int sum(void *ctx, const pm_sample *s)
{
    sums *m = ctx;
    const char *mode = pm_label_get(s, "mode");

    m->samples++;
    m->counters += s->type == PM_COUNTER;
    if (strcmp(s->name, "node_cpu_seconds_total") == 0 && mode) {
        if (strcmp(mode, "idle") == 0)
            m->cpu_by_mode[0] += s->value;
        else if (strcmp(mode, "user") == 0)
            m->cpu_by_mode[1] += s->value;
    }
    if (strcmp(s->name, "node_uname_info") == 0 && pm_label_get(s, "version"))
        snprintf(m->version, sizeof m->version, "%s", pm_label_get(s, "version"));
    if (strcmp(s->name, "namedprocess_namegroup_cpu_seconds_total") == 0 &&
        strcmp(pm_label_get(s, "groupname"), "bash") == 0)
        m->group_cpu += s->value;
    if (strcmp(s->name, "namedprocess_namegroup_memory_bytes") == 0 &&
        strcmp(pm_label_get(s, "groupname"), "bash") == 0 &&
        strcmp(pm_label_get(s, "memtype"), "resident") == 0)
        m->group_rss = s->value;
    return 0;
}

/* Real pages, as node-exporter 1.5.0 and process-exporter 0.7.10 from
 * Debian 12 served them (tests/data/README.md); the expected sums were
 * read off the files with grep and awk. */
static void test_real_node_exporter(void)
{
    size_t len = 0;
    char *t = slurp("tests/data/prometheus/node-exporter-1.5.0.txt", &len);
    sums m = {0};
    pm_error e;

    CHECK(t != NULL);
    CHECK_EQ_I64(pm_parse(t, len, false, sum, &m, &e), 0);
    free(t);
    CHECK_EQ_U64(m.samples, 505);
    CHECK(m.counters > 50);
    CHECK_NEAR(m.cpu_by_mode[0], 201.67 + 162.08, 1e-6);
    CHECK_NEAR(m.cpu_by_mode[1], 1769.37, 1e-6);
    CHECK_EQ_STR(m.version, "#1 SMP PREEMPT_DYNAMIC @0");
}

static void test_real_process_exporter(void)
{
    size_t len = 0;
    char *t = slurp("tests/data/prometheus/process-exporter-0.7.10.txt", &len);
    sums m = {0};
    pm_error e;

    CHECK(t != NULL);
    CHECK_EQ_I64(pm_parse(t, len, false, sum, &m, &e), 0);
    free(t);
    CHECK_EQ_U64(m.samples, 110);
    CHECK_NEAR(m.group_cpu, 0.84, 1e-9);
    CHECK_NEAR(m.group_rss, 2.57724416e+08, 0.5);
}

int main(void)
{
    RUN(test_plain_samples);
    RUN(test_no_final_newline_and_crlf);
    RUN(test_label_escapes);
    RUN(test_label_spacing_and_trailing_comma);
    RUN(test_special_values);
    RUN(test_timestamps);
    RUN(test_help_type_comments);
    RUN(test_type_words);
    RUN(test_openmetrics_eof);
    RUN(test_malformed);
    RUN(test_too_many_labels);
    RUN(test_callback_stops);
    RUN(test_label_get_and_name);
    RUN(test_length_not_nul);
    RUN(test_real_node_exporter);
    RUN(test_real_process_exporter);
    return unit_done();
}

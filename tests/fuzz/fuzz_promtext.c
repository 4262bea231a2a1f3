/*
 * fuzz_promtext.c - libFuzzer harness for the /metrics page parser
 * (proto/promtext.c).
 *
 *   make -f tests/fuzz/fuzz.mk fuzz FUZZ_ONLY=promtext
 *   build-fuzz/fuzz_promtext -max_total_time=60 tests/fuzz/corpus/promtext
 *
 * The first input byte picks the format (bit 0: OpenMetrics); the rest is
 * the page. The harness aborts when:
 *   - a sample's metric name or a label name breaks the grammar, or a
 *     label name repeats, or there are more than PM_MAX_LABELS;
 *   - a refused page has no line number or no reason, or an accepted one has;
 *   - a page that was accepted, written out again in the text format
 *     (names, escaped label values, values, timestamps in ms), does not
 *     parse back to the same samples: same names, labels, values (NaN as
 *     NaN) and timestamps, in the same order.
 */
#include "proto/promtext.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
    char *buf;
    size_t len, cap;
    unsigned n;
} page;

static void put(page *p, const char *s, size_t n)
{
    if (p->len + n + 1 > p->cap) {
        size_t cap = (p->len + n + 1) * 2;
        char *b = realloc(p->buf, cap);

        if (!b)
            abort();
        p->buf = b;
        p->cap = cap;
    }
    memcpy(p->buf + p->len, s, n);
    p->len += n;
}

static void puts_(page *p, const char *s)
{
    put(p, s, strlen(s));
}

static bool label_name_ok(const char *s)
{
    /* A metric name without ':'. */
    return pm_metric_name_ok(s, strlen(s)) && !strchr(s, ':');
}

static void put_value(page *p, double v)
{
    char num[64];

    if (isnan(v))
        snprintf(num, sizeof num, "NaN");
    else if (isinf(v))
        snprintf(num, sizeof num, v > 0 ? "+Inf" : "-Inf");
    else
        snprintf(num, sizeof num, "%.17g", v);
    puts_(p, num);
}

/* The sample, checked, and written out again as one line of the text format. */
static int rewrite(void *ctx, const pm_sample *s)
{
    page *p = ctx;
    char ts[32];

    if (!pm_metric_name_ok(s->name, strlen(s->name)) || s->nlabels > PM_MAX_LABELS || s->line == 0)
        abort();
    puts_(p, s->name);
    puts_(p, "{");
    for (size_t i = 0; i < s->nlabels; i++) {
        if (!label_name_ok(s->labels[i].name))
            abort();
        for (size_t j = 0; j < i; j++)
            if (strcmp(s->labels[i].name, s->labels[j].name) == 0)
                abort();
        puts_(p, s->labels[i].name);
        puts_(p, "=\"");
        for (const char *c = s->labels[i].value; *c; c++) {
            if (*c == '\\' || *c == '"')
                put(p, "\\", 1);
            if (*c == '\n')
                puts_(p, "\\n");
            else
                put(p, c, 1);
        }
        puts_(p, "\",");
    }
    puts_(p, "} ");
    put_value(p, s->value);
    if (s->has_ts) {
        snprintf(ts, sizeof ts, " %lld", (long long)s->ts_ms);
        puts_(p, ts);
    }
    puts_(p, "\n");
    p->n++;
    return 0;
}

static int same(void *ctx, const pm_sample *s)
{
    page *p = ctx;

    puts_(p, s->name);
    for (size_t i = 0; i < s->nlabels; i++) {
        puts_(p, "\x01");
        puts_(p, s->labels[i].name);
        puts_(p, "\x02");
        puts_(p, s->labels[i].value);
    }
    puts_(p, "\x03");
    put_value(p, s->value);
    if (s->has_ts) {
        char ts[32];

        snprintf(ts, sizeof ts, "@%lld", (long long)s->ts_ms);
        puts_(p, ts);
    }
    puts_(p, "\n");
    p->n++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    page out = {0}, a = {0}, b = {0};
    pm_error e;
    bool om;
    int rc;

    if (size < 1)
        return 0;
    om = data[0] & 1;
    rc = pm_parse((const char *)data + 1, size - 1, om, rewrite, &out, &e);
    if (rc == -1 && (e.line == 0 || !e.why[0]))
        abort();
    if (rc == 0 && (e.line != 0 || e.why[0]))
        abort();
    if (rc != 0 && rc != -1)
        abort(); /* rewrite never stops it, and inputs are small */
    if (rc == 0) {
        if (pm_parse((const char *)data + 1, size - 1, om, same, &a, &e) != 0)
            abort();
        if (pm_parse(out.buf ? out.buf : "", out.len, false, same, &b, &e) != 0)
            abort();
        if (a.n != b.n || a.len != b.len || (a.len && memcmp(a.buf, b.buf, a.len) != 0))
            abort();
    }
    free(out.buf);
    free(a.buf);
    free(b.buf);
    return 0;
}

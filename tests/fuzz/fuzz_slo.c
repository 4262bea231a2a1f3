/*
 * fuzz_slo.c - libFuzzer harness for the --slo parser, evaluator and
 * printer (src/report/slo.c).
 *
 *   make -f tests/fuzz/fuzz.mk build-fuzz/fuzz_slo
 *   build-fuzz/fuzz_slo -max_total_time=60 tests/fuzz/corpus/slo
 *
 * The input, up to its first NUL and at most MAX_IN bytes, goes to
 * slo_parse. An accepted expression is evaluated against a small fixed
 * pc_results (built once), in closed loop and at a rate, and printed into
 * a memory stream. The harness aborts when:
 *   - slo_parse returns anything but 0 or -EINVAL;
 *   - on -EINVAL, err is empty or unterminated, or a short err buffer
 *     (heap memory of exactly that size) is overrun, left unterminated or
 *     given anything but a prefix of the full reason;
 *   - on 0, there are no objectives or more than SLO_MAX, the normalised
 *     text is unterminated or keeps a blank, an objective has an unknown
 *     metric or operator, a percentile outside (0, 100] (or one on a
 *     metric that is no percentile), a value that is negative (-0 too)
 *     or not finite, a percent value over 100% (or a percent on a
 *     latency), a text with a non-printing character or a hex number, the
 *     uncorrected flag on errors/rate, or a text that is not its segment
 *     of the normalised expression;
 *   - re-parsing the normalised text (out->text) fails or gives a
 *     different set of objectives or a different text;
 *   - slo_eval disagrees with its own verdicts or with itself without a
 *     verdict array, a verdict's shown text is empty or unterminated, or
 *     a measured value is not finite;
 *   - slo_print returns something else than slo_eval, or does not print
 *     the header, one PASS/FAIL line per objective with its text and
 *     shown value, and the matching PASSED/FAILED line.
 */
#include "report/slo.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/hdr.h"
#include "stats/stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_IN 2048  /* longer than any expression slo_parse accepts (511) */
#define ERRCAP 1024
#define FILL 0x5a

/* A small fixed run: 200 responses (5 non-2xx) over 2 s, 3 timeouts,
 * 1 read error, 1 never sent, 2 failed connection attempts; corrected
 * latencies 1 us .. 200 us and a 3 s outlier, uncorrected 1 us .. 100 us. */
static pc_results res;

static void build_results(void)
{
    static bool ready;

    if (ready)
        return;
    if (stats_init(&res.st) < 0)
        abort();
    for (int64_t i = 1; i <= 200; i++) {
        if (!hdr_record(&res.st.latency, i * 1000) ||
            !hdr_record(&res.st.latency_u, (i + 1) / 2 * 1000))
            abort();
    }
    if (!hdr_record(&res.st.latency, 3000000000LL))
        abort();
    res.st.completed = 200;
    res.st.non2xx = 5;
    res.st.status[200] = 195;
    res.st.status[503] = 5;
    res.st.err[PC_ERR_TIMEOUT] = 3;
    res.st.err[PC_ERR_READ] = 1;
    res.st.never_sent = 1;
    res.st.connect_errors = 2;
    res.st.scheduled = 205;
    res.duration_ns = 2000000000ull;
    ready = true;
}

static bool same_objective(const pc_objective *a, const pc_objective *b)
{
    /* Every field, compared bit for bit where it is a double (a parse of
     * the same text must give the same numbers, -0 and all). */
    return a->metric == b->metric && a->op == b->op && a->uncorrected == b->uncorrected &&
           memcmp(&a->pct, &b->pct, sizeof a->pct) == 0 &&
           memcmp(&a->value, &b->value, sizeof a->value) == 0 && a->percent == b->percent &&
           strcmp(a->text, b->text) == 0;
}

static void check_objective(const pc_objective *o)
{
    bool latency = o->metric == SLO_PCT || o->metric == SLO_MEAN || o->metric == SLO_MAX_LAT;

    if (!memchr(o->text, '\0', sizeof o->text) || !o->text[0])
        abort();
    /* Only printable characters: the text goes on a report line as is
     * (strtod would skip a leading \n, \r, \v or \f in a number). */
    for (const char *c = o->text; *c; c++)
        if (!isgraph((unsigned char)*c))
            abort();
    /* Numbers are plain decimals, as everywhere else in pacer (units.c
     * refuses hex; strtod would take "0x10" or "p0x1p6"): no x but the
     * one in "max". */
    {
        const char *x = strpbrk(o->text, "xX");

        if (x && (o->metric != SLO_MAX_LAT || strpbrk(x + 1, "xX")))
            abort();
    }
    if (o->metric != SLO_PCT && o->metric != SLO_MEAN && o->metric != SLO_MAX_LAT &&
        o->metric != SLO_ERRORS && o->metric != SLO_RATE)
        abort();
    if (o->op != SLO_LE && o->op != SLO_LT && o->op != SLO_GE && o->op != SLO_GT)
        abort();
    if (o->metric == SLO_PCT ? !(o->pct > 0 && o->pct <= 100) : o->pct != 0)
        abort();
    if (!isfinite(o->value) || !(o->value >= 0) || signbit(o->value))
        abort(); /* negative, -0 included */
    if (o->percent && (latency || o->value > 1.0))
        abort();
    if (o->uncorrected && !latency)
        abort();
    /* A latency limit is a whole number of nanoseconds. */
    if (latency && o->value != floor(o->value))
        abort();
}

/* Each objective's text is its comma-separated segment of the normalised
 * expression (cut to the size of the text field). */
static void check_segments(const pc_slo *s)
{
    const char *p = s->text;

    for (size_t i = 0; i < s->n; i++) {
        size_t len = strcspn(p, ",");
        size_t keep = len < sizeof s->v[i].text - 1 ? len : sizeof s->v[i].text - 1;

        if (len == 0 || strlen(s->v[i].text) != keep || memcmp(s->v[i].text, p, keep) != 0)
            abort();
        p += len;
        if (i + 1 < s->n) {
            if (*p != ',')
                abort();
            p++;
        }
    }
    if (*p)
        abort();
}

static void check_eval_print(const pc_slo *s, double rate, const char *who)
{
    pc_verdict v[SLO_MAX];
    bool all, want = true;
    size_t failed = 0;
    char *buf = NULL, *line, *p, head[64];
    size_t len = 0;
    FILE *f;

    memset(v, FILL, sizeof v);
    all = slo_eval(s, rate, &res, v);
    for (size_t i = 0; i < s->n; i++) {
        if (!memchr(v[i].shown, '\0', sizeof v[i].shown) || !v[i].shown[0])
            abort();
        if (!isfinite(v[i].measured))
            abort();
        want = want && v[i].pass;
        failed += !v[i].pass;
    }
    if (all != want || slo_eval(s, rate, &res, NULL) != all)
        abort();

    f = open_memstream(&buf, &len);
    if (!f)
        abort();
    if (slo_print(f, s, rate, &res, who) != all)
        abort();
    if (fclose(f) != 0 || !buf || strlen(buf) != len)
        abort();

    snprintf(head, sizeof head, "SLO%s%s:\n", who ? " for " : "", who ? who : "");
    if (strncmp(buf, head, strlen(head)) != 0)
        abort();
    p = buf + strlen(head);
    for (size_t i = 0; i < s->n; i++) {
        char *nl = strchr(p, '\n');

        if (!nl)
            abort();
        *nl = '\0';
        line = p;
        if (strncmp(line, v[i].pass ? "  PASS  " : "  FAIL  ", 8) != 0)
            abort();
        if (strncmp(line + 8, s->v[i].text, strlen(s->v[i].text)) != 0)
            abort();
        const char *m = strstr(line + 8 + strlen(s->v[i].text), "  measured ");
        /* The measured value as shown; an errors objective may go on to
         * say what it counted as failed (": N never sent ..."). */
        if (!m || strncmp(m + strlen("  measured "), v[i].shown, strlen(v[i].shown)) != 0)
            abort();
        m += strlen("  measured ") + strlen(v[i].shown);
        if (*m && (s->v[i].metric != SLO_ERRORS || strncmp(m, ": ", 2) != 0))
            abort();
        p = nl + 1;
    }
    char tail[96];
    if (all)
        snprintf(tail, sizeof tail, "SLO PASSED: all %zu objectives met\n", s->n);
    else
        snprintf(tail, sizeof tail, "SLO FAILED: %zu of %zu objectives not met\n", failed, s->n);
    if (strcmp(p, tail) != 0)
        abort();
    free(buf);

    /* The formatter alone, into a short heap buffer. */
    for (size_t i = 0; i < s->n; i++) {
        size_t cap = 1 + (i % 12);
        char *b = malloc(cap);

        if (!b)
            abort();
        slo_format_value(&s->v[i], v[i].measured, b, cap);
        if (!memchr(b, '\0', cap))
            abort();
        free(b);
    }
}

static void check_error(const char *s, const char *err, size_t small)
{
    /* err: non-empty, terminated in its buffer. */
    if (!memchr(err, '\0', ERRCAP) || !err[0])
        abort();
    /* The same failure into an exactly sized short buffer: a prefix. */
    char *e = malloc(small);
    pc_slo *tmp = malloc(sizeof *tmp);

    if (!e || !tmp)
        abort();
    memset(e, FILL, small);
    if (slo_parse(s, tmp, e, small) != -EINVAL)
        abort();
    if (!memchr(e, '\0', small))
        abort();
    size_t el = strlen(e);
    if (el != (strlen(err) < small - 1 ? strlen(err) : small - 1) || memcmp(e, err, el) != 0)
        abort();
    free(e);
    free(tmp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, '\0', size);
    size_t len = nul ? (size_t)(nul - data) : size;
    char *s, *err;
    pc_slo *out, *again;
    int rc;

    if (len > MAX_IN)
        len = MAX_IN;
    build_results();
    s = malloc(len + 1);
    err = malloc(ERRCAP);
    out = malloc(sizeof *out);
    again = malloc(sizeof *again);
    if (!s || !err || !out || !again)
        abort();
    memcpy(s, data, len);
    s[len] = '\0';
    memset(err, FILL, ERRCAP);
    memset(out, FILL, sizeof *out);

    rc = slo_parse(s, out, err, ERRCAP);
    if (rc != 0 && rc != -EINVAL)
        abort();
    if (rc == -EINVAL) {
        if (out->n > SLO_MAX)
            abort();
        check_error(s, err, 1 + size % 24);
        goto done;
    }

    if (out->n < 1 || out->n > SLO_MAX)
        abort();
    if (!memchr(out->text, '\0', sizeof out->text) || strpbrk(out->text, " \t"))
        abort();
    for (size_t i = 0; i < out->n; i++)
        check_objective(&out->v[i]);
    check_segments(out);

    /* The normalised text parses to the same objectives. */
    memset(again, FILL, sizeof *again);
    if (slo_parse(out->text, again, err, ERRCAP) != 0)
        abort();
    if (again->n != out->n || strcmp(again->text, out->text) != 0)
        abort();
    for (size_t i = 0; i < out->n; i++)
        if (!same_objective(&out->v[i], &again->v[i]))
            abort();

    check_eval_print(out, 0, NULL);
    check_eval_print(out, 250, "fuzz");
    check_eval_print(out, 80, "");

done:
    free(s);
    free(err);
    free(out);
    free(again);
    return 0;
}

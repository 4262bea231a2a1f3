/*
 * promtext.c - see promtext.h.
 *
 * One pass over the page, one line at a time. A line's strings are
 * unescaped into a scratch buffer as long as the line (unescaping never
 * lengthens), so a sample costs no allocation once the longest line has
 * been seen. Every step returns false with the reason in the parser's
 * error; the caller stops at the first.
 */
#include "proto/promtext.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *p, *end; /* the rest of the current line */
    char *out;           /* where the next unescaped string goes */
    bool om;
    pm_error *err;
} cursor;

typedef struct {
    char *scratch;
    size_t cap;
    char *family; /* the last TYPE line's name */
    size_t family_cap;
    pm_type type;
} parser;

static bool fail(cursor *c, const char *why, const char *arg)
{
    if (arg)
        snprintf(c->err->why, sizeof c->err->why, "%s %.40s", why, arg);
    else
        snprintf(c->err->why, sizeof c->err->why, "%s", why);
    return false;
}

static bool is_ws(char ch)
{
    return ch == ' ' || ch == '\t';
}

static size_t skip_ws(cursor *c)
{
    const char *s = c->p;

    while (c->p < c->end && is_ws(*c->p))
        c->p++;
    return (size_t)(c->p - s);
}

static bool name_start(char ch, bool colon)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || (colon && ch == ':');
}

static bool name_char(char ch, bool colon)
{
    return name_start(ch, colon) || (ch >= '0' && ch <= '9');
}

bool pm_metric_name_ok(const char *s, size_t n)
{
    if (n == 0 || !name_start(s[0], true))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!name_char(s[i], true))
            return false;
    return true;
}

/* A metric name (colon: ':' allowed) or a label name, copied out. */
static const char *take_name(cursor *c, bool colon)
{
    char *s = c->out;

    if (c->p >= c->end || !name_start(*c->p, colon))
        return NULL;
    while (c->p < c->end && name_char(*c->p, colon))
        *c->out++ = *c->p++;
    *c->out++ = '\0';
    return s;
}

/* Text up to `close` ('"' for a label value; 0: the end of the line, for
 * HELP), unescaped: \\ and \n always, \" where quote_ok. */
static const char *take_escaped(cursor *c, char close, bool quote_ok)
{
    char *s = c->out;

    for (;;) {
        char ch;

        if (c->p >= c->end) {
            if (close)
                return fail(c, "unterminated label value", NULL), NULL;
            break;
        }
        ch = *c->p++;
        if (close && ch == close)
            break;
        if (ch == '\\') {
            if (c->p >= c->end)
                return fail(c, "a backslash at the end of the line", NULL), NULL;
            ch = *c->p++;
            if (ch == 'n')
                ch = '\n';
            else if (ch != '\\' && !(ch == '"' && quote_ok))
                return fail(c, "invalid escape", (char[]){'\\', ch, 0}), NULL;
        }
        *c->out++ = ch;
    }
    *c->out++ = '\0';
    return s;
}

/* The next run of non-blank characters, as a NUL-terminated copy. */
static const char *take_token(cursor *c)
{
    char *s = c->out;

    while (c->p < c->end && !is_ws(*c->p))
        *c->out++ = *c->p++;
    *c->out++ = '\0';
    return s;
}

/* A float as Go's ParseFloat reads one: decimal or hex, "NaN", "Inf"
 * with a sign or without, in any case. */
static bool parse_value(const char *t, double *v)
{
    char *e;

    if (!*t || strchr(t, '(')) /* strtod's nan(chars) is C's, not Go's */
        return false;
    errno = 0;
    *v = strtod(t, &e);
    if (*e)
        return false;
    /* Out of range: Go says so too, but hands back ±Inf or 0 as strtod does. */
    return true;
}

static bool parse_ts(cursor *c, const char *t, int64_t *ms)
{
    char *e;

    if (c->om) {
        double s;

        if (!parse_value(t, &s) || !isfinite(s) || fabs(s) > 9.2e15)
            return fail(c, "bad timestamp", t);
        *ms = (int64_t)llround(s * 1000.0);
        return true;
    }
    if (!*t)
        return fail(c, "bad timestamp", t);
    errno = 0;
    long long v = strtoll(t, &e, 10);
    if (*e || errno == ERANGE)
        return fail(c, "bad timestamp", t);
    *ms = v;
    return true;
}

static pm_type family_type(const parser *ps, const char *name)
{
    static const char *const suffix[] = {"_total", "_sum", "_count", "_bucket", "_created",
                                         "_gsum", "_gcount", "_info"};
    size_t fl, nl = strlen(name);

    if (!ps->family)
        return PM_UNTYPED;
    fl = strlen(ps->family);
    if (nl < fl || memcmp(name, ps->family, fl) != 0)
        return PM_UNTYPED;
    if (nl == fl)
        return ps->type;
    for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++)
        if (strcmp(name + fl, suffix[i]) == 0)
            return ps->type;
    return PM_UNTYPED;
}

static bool parse_labels(cursor *c, pm_label *l, size_t *n)
{
    *n = 0;
    c->p++; /* '{' */
    for (;;) {
        const char *name, *value;

        skip_ws(c);
        if (c->p < c->end && *c->p == '}') {
            c->p++;
            return true;
        }
        if (!(name = take_name(c, false)))
            return fail(c, "bad label name", NULL);
        skip_ws(c);
        if (c->p >= c->end || *c->p != '=')
            return fail(c, "no '=' after label", name);
        c->p++;
        skip_ws(c);
        if (c->p >= c->end || *c->p != '"')
            return fail(c, "label value not quoted:", name);
        c->p++;
        if (!(value = take_escaped(c, '"', true)))
            return false;
        for (size_t i = 0; i < *n; i++)
            if (strcmp(l[i].name, name) == 0)
                return fail(c, "label twice:", name);
        if (*n == PM_MAX_LABELS)
            return fail(c, "too many labels", NULL);
        l[*n].name = name;
        l[(*n)++].value = value;
        skip_ws(c);
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            continue;
        }
        if (c->p < c->end && *c->p == '}') {
            c->p++;
            return true;
        }
        return fail(c, "expected ',' or '}' after label", name);
    }
}

static int sample_line(parser *ps, cursor *c, unsigned line, pm_sample_fn fn, void *ctx)
{
    pm_label labels[PM_MAX_LABELS];
    pm_sample s = {.labels = labels, .line = line};
    const char *t;

    if (!(s.name = take_name(c, true)))
        return fail(c, "bad metric name", NULL), -1;
    if (c->p < c->end && *c->p == '{') {
        if (!parse_labels(c, labels, &s.nlabels))
            return -1;
        skip_ws(c);
    } else if (c->p == c->end) {
        return fail(c, "no value after", s.name), -1;
    } else if (!skip_ws(c)) {
        return fail(c, "no blank after the name", s.name), -1;
    }
    t = take_token(c);
    if (!parse_value(t, &s.value))
        return fail(c, *t ? "bad value" : "no value", t), -1;
    if (skip_ws(c) && c->p < c->end) {
        if (!parse_ts(c, take_token(c), &s.ts_ms))
            return -1;
        s.has_ts = true;
        skip_ws(c);
    }
    if (c->p < c->end)
        return fail(c, "text after the sample", NULL), -1;
    s.type = family_type(ps, s.name);
    return fn(ctx, &s);
}

static const struct {
    const char *word;
    pm_type type;
    unsigned formats; /* 1: text 0.0.4, 2: OpenMetrics */
} types[] = {
    {"counter", PM_COUNTER, 3},   {"gauge", PM_GAUGE, 3},
    {"histogram", PM_HISTOGRAM, 3}, {"summary", PM_SUMMARY, 3},
    {"untyped", PM_UNTYPED, 1},   {"unknown", PM_UNTYPED, 2},
    {"info", PM_INFO, 2},         {"stateset", PM_STATESET, 2},
    {"gaugehistogram", PM_GAUGEHISTOGRAM, 2},
};

static int type_line(parser *ps, cursor *c, const char *name)
{
    const char *word;
    size_t n = strlen(name) + 1;

    if (!skip_ws(c))
        return fail(c, "no type after", name), -1;
    word = take_token(c);
    skip_ws(c);
    if (c->p < c->end)
        return fail(c, "text after the type", NULL), -1;
    for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
        if (strcmp(word, types[i].word) != 0 || !(types[i].formats & (c->om ? 2u : 1u)))
            continue;
        if (n > ps->family_cap) {
            char *f = realloc(ps->family, n);

            if (!f)
                return -ENOMEM;
            ps->family = f;
            ps->family_cap = n;
        }
        memcpy(ps->family, name, n);
        ps->type = types[i].type;
        return 0;
    }
    return fail(c, "unknown type", word), -1;
}

/* A '#' line: HELP, TYPE (and OpenMetrics' UNIT) are checked; EOF ends
 * an OpenMetrics page (1); other comments are passed over. */
static int comment_line(parser *ps, cursor *c)
{
    const char *kw, *name;

    c->p++; /* '#' */
    if (!skip_ws(c))
        return 0;
    kw = take_token(c);
    if (c->om && strcmp(kw, "EOF") == 0) {
        skip_ws(c);
        return c->p < c->end ? (fail(c, "text after # EOF", NULL), -1) : 1;
    }
    if (strcmp(kw, "HELP") != 0 && strcmp(kw, "TYPE") != 0 && !(c->om && strcmp(kw, "UNIT") == 0))
        return 0;
    if (!skip_ws(c) || !(name = take_name(c, true)))
        return fail(c, "bad metric name after", kw), -1;
    if (kw[0] == 'T')
        return type_line(ps, c, name);
    if (c->p < c->end && !skip_ws(c))
        return fail(c, "bad metric name after", kw), -1;
    if (kw[0] == 'H' && !take_escaped(c, 0, c->om))
        return -1;
    return 0;
}

int pm_parse(const char *text, size_t len, bool openmetrics, pm_sample_fn fn, void *ctx,
             pm_error *err)
{
    const char *p = text, *end = text + len;
    parser ps = {0};
    unsigned line = 0;
    bool eof = false;
    int rc = 0;

    err->line = 0;
    err->why[0] = '\0';
    while (p < end && rc == 0) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        cursor c = {.p = p, .end = le, .om = openmetrics, .err = err};
        size_t need = (size_t)(le - p) + 2;

        line++;
        if (eof) {
            rc = -1;
            fail(&c, "text after # EOF", NULL);
            break;
        }
        if (c.end > c.p && c.end[-1] == '\r') /* CRLF pages: the CR is the line's end */
            c.end--;
        if (need > ps.cap) {
            char *s = realloc(ps.scratch, need);

            if (!s) {
                rc = -ENOMEM;
                break;
            }
            ps.scratch = s;
            ps.cap = need;
        }
        c.out = ps.scratch;
        skip_ws(&c);
        if (c.p < c.end && *c.p == '#') {
            rc = comment_line(&ps, &c);
            if (rc == 1) {
                eof = true;
                rc = 0;
            }
        } else if (c.p < c.end) {
            rc = sample_line(&ps, &c, line, fn, ctx);
        }
        p = nl ? nl + 1 : end;
    }
    if (rc == 0 && openmetrics && !eof) {
        cursor c = {.err = err};

        line++;
        rc = -1;
        fail(&c, "no # EOF at the end", NULL);
    }
    if (err->why[0]) /* the parser's own error, not fn's value */
        err->line = line;
    free(ps.scratch);
    free(ps.family);
    return rc;
}

const char *pm_label_get(const pm_sample *s, const char *name)
{
    for (size_t i = 0; i < s->nlabels; i++)
        if (strcmp(s->labels[i].name, name) == 0)
            return s->labels[i].value;
    return NULL;
}

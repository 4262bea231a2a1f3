/*
 * html.c - see html.h.
 *
 * The page body is kept as escaped HTML text as blocks are added; charts
 * leave a placeholder <figure> there and keep their data apart, so series
 * can be added in any order. html_doc_write() wraps the body in the page,
 * embeds the chart data as JSON (written with util/json.c, so NaN and
 * infinities become null, and with every '<' escaped as \u003c so no
 * string can close the <script> element) and appends the renderer
 * (html_render.js, compiled in: see below).
 */
#include "report/html.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/json.h"

typedef struct hbuf {
    char *p;
    size_t len, cap;
} hbuf;

typedef struct html_series {
    char *name;
    size_t n;
    double *x, *y;
    bool ref;   /* a reference line: dashed, no markers */
    bool limit; /* a reference that is a limit (an objective) */
    bool steps; /* each value holds from its x to the next (the last: to xend) */
    double xend;
} html_series;

struct html_chart {
    html_doc *doc;
    char *title, *xlabel, *ylabel;
    int xscale, yscale;
    html_series *v;
    size_t n, cap;
    char **cats; /* x = i is labelled cats[i] (NULL: a numeric x axis) */
    size_t ncats;
};

struct html_doc {
    char *title;
    hbuf body;
    html_chart **charts;
    size_t ncharts, capcharts;
    int err; /* first error, sticky */
};

/* ---- the page's fixed parts ---------------------------------------------- */

/* The page's style sheet and scripts, each in its own file beside this one
 * (html_page.css; html_head.js, first thing in <head>, which notes every
 * script error; html_render.js, the chart renderer), compiled in by
 * scripts/embed.sh (see the Makefile's EMBED), which refuses any that
 * holds "</script", "</style" or "<!--". */
extern const char pc_html_page_css[], pc_html_head_js[], pc_html_render_js[];
extern const size_t pc_html_page_css_len, pc_html_head_js_len, pc_html_render_js_len;

/* ---- building ------------------------------------------------------------ */

static void put_n(html_doc *d, const char *s, size_t n)
{
    hbuf *b = &d->body;

    if (d->err || n == 0)
        return;
    if (n > SIZE_MAX - b->len || grow_array(&b->p, &b->cap, b->len + n, 4096, 1) < 0) {
        d->err = -ENOMEM;
        return;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void put(html_doc *d, const char *s)
{
    put_n(d, s, strlen(s));
}

/* The entity for c where text or an attribute value needs one, else NULL. */
static const char *entity(char c)
{
    switch (c) {
    case '&': return "&amp;";
    case '<': return "&lt;";
    case '>': return "&gt;";
    case '"': return "&quot;";
    case '\'': return "&#39;";
    default: return NULL;
    }
}

/* s as HTML text or attribute value: & < > " ' escaped. */
static void put_esc(html_doc *d, const char *s)
{
    const char *run = s;

    for (; s && *s; s++) {
        const char *e = entity(*s);

        if (!e)
            continue;
        put_n(d, run, (size_t)(s - run));
        put(d, e);
        run = s + 1;
    }
    if (s)
        put_n(d, run, (size_t)(s - run));
}

static void put_fmt(html_doc *d, const char *fmt, ...)
{
    char buf[128];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    assert(n >= 0 && (size_t)n < sizeof buf);
    put_n(d, buf, (size_t)n);
}

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

html_doc *html_doc_new(const char *title)
{
    html_doc *d = calloc(1, sizeof *d);

    if (!d)
        return NULL;
    d->title = dup_or_empty(title);
    if (!d->title) {
        free(d);
        return NULL;
    }
    return d;
}

static void chart_free(html_chart *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].name);
        free(c->v[i].x);
        free(c->v[i].y);
    }
    free(c->v);
    for (size_t i = 0; i < c->ncats; i++)
        free(c->cats[i]);
    free(c->cats);
    free(c->title);
    free(c->xlabel);
    free(c->ylabel);
    free(c);
}

void html_doc_free(html_doc *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->ncharts; i++)
        chart_free(d->charts[i]);
    free(d->charts);
    free(d->body.p);
    free(d->title);
    free(d);
}

static void block(html_doc *d, const char *open, const char *text, const char *close)
{
    if (!d)
        return;
    put(d, open);
    put_esc(d, text);
    put(d, close);
}

void html_doc_heading(html_doc *d, const char *text)
{
    block(d, "<h2>", text, "</h2>\n");
}

void html_doc_text(html_doc *d, const char *text)
{
    block(d, "<p>", text, "</p>\n");
}

void html_doc_pre(html_doc *d, const char *text)
{
    block(d, "<pre>", text, "</pre>\n");
}

void html_doc_verdict(html_doc *d, bool pass, const char *text)
{
    block(d, pass ? "<p class=\"pacer-verdict pass\">" : "<p class=\"pacer-verdict fail\">", text,
          "</p>\n");
}

void html_doc_diagnosis(html_doc *d, const char *title, const char *text)
{
    const char *line = text ? text : "";
    char *one;

    if (!d)
        return;
    put(d, "<div class=\"pacer-diagnosis\" id=\"pacer-diagnosis\">");
    block(d, "<p class=\"pacer-diagnosis-title\">", title, "</p>");
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);

        /* One paragraph a line (put_esc takes a string: through a copy). */
        if (len && (one = strndup(line, len)) != NULL) {
            block(d, "<p>", one, "</p>");
            free(one);
        }
        line += len + (end != NULL);
    }
    put(d, "</div>\n");
}

/* Whether a cell reads as a number (perhaps with a unit or %), to align it
 * right: "1234", "-0.5", "12.30 ms", "99.9%". */
static bool looks_numeric(const char *s)
{
    char *end;

    if (!s || !*s)
        return false;
    strtod(s, &end);
    if (end == s)
        return false;
    if (*end == ' ')
        end++;
    for (; *end; end++)
        if (!((*end >= 'a' && *end <= 'z') || (*end >= 'A' && *end <= 'Z') || *end == '%' ||
              *end == '/'))
            return false;
    return true;
}

void html_doc_table(html_doc *d, const char *caption, size_t ncols, size_t nrows,
                    const char *const *cells)
{
    if (!d || ncols == 0 || nrows == 0)
        return;
    if (nrows > SIZE_MAX / ncols || !cells) {
        d->err = d->err ? d->err : -ENOMEM;
        return;
    }
    put(d, "<table>\n");
    if (caption)
        block(d, "<caption>", caption, "</caption>\n");
    for (size_t r = 0; r < nrows; r++) {
        if (r == 0)
            put(d, "<thead>\n");
        else if (r == 1)
            put(d, "<tbody>\n");
        put(d, "<tr>");
        for (size_t c = 0; c < ncols; c++) {
            const char *s = cells[r * ncols + c];

            if (r == 0)
                block(d, "<th>", s, "</th>");
            else
                block(d, looks_numeric(s) ? "<td class=\"num\">" : "<td>", s, "</td>");
        }
        put(d, "</tr>\n");
        if (r == 0)
            put(d, "</thead>\n");
    }
    if (nrows > 1)
        put(d, "</tbody>\n");
    put(d, "</table>\n");
}

static int valid_scale(int s)
{
    return s == HTML_LOG || s == HTML_PERCENTILE ? s : HTML_LINEAR;
}

html_chart *html_doc_chart(html_doc *d, const char *title, const char *xlabel, int xscale,
                           const char *ylabel, int yscale)
{
    html_chart *c;

    if (!d)
        return NULL;
    if (grow_array(&d->charts, &d->capcharts, d->ncharts + 1, 8, sizeof *d->charts) < 0)
        goto oom;
    c = calloc(1, sizeof *c);
    if (!c)
        goto oom;
    c->doc = d;
    c->title = dup_or_empty(title);
    c->xlabel = dup_or_empty(xlabel);
    c->ylabel = dup_or_empty(ylabel);
    c->xscale = valid_scale(xscale);
    c->yscale = valid_scale(yscale);
    if (!c->title || !c->xlabel || !c->ylabel) {
        chart_free(c);
        goto oom;
    }
    put_fmt(d, "<figure class=\"pacer-figure\" id=\"pacer-chart-%zu\">", d->ncharts);
    block(d, "<figcaption>", title, "</figcaption>");
    put(d, "<p class=\"pacer-nojs\">(This chart is drawn by JavaScript.)</p></figure>\n");
    d->charts[d->ncharts++] = c;
    return c;
oom:
    d->err = d->err ? d->err : -ENOMEM;
    return NULL;
}

/* Append a series, taking ownership of x and y (n values each; NULL when
 * n is 0). On failure they are freed and the doc's error set. */
static void add_series(html_chart *c, const char *name, size_t n, double *x, double *y, bool ref)
{
    html_series *s;
    char *nm = dup_or_empty(name);

    if (!nm)
        goto oom;
    if (grow_array(&c->v, &c->cap, c->n + 1, 4, sizeof *c->v) < 0)
        goto oom;
    s = &c->v[c->n++];
    s->name = nm;
    s->n = n;
    s->x = x;
    s->y = y;
    s->ref = ref;
    s->limit = false;
    s->steps = false;
    s->xend = NAN;
    return;
oom:
    free(nm);
    free(x);
    free(y);
    c->doc->err = c->doc->err ? c->doc->err : -ENOMEM;
}

/* Room for two arrays of n doubles; false (doc error set) when it cannot
 * be had, including when n * sizeof(double) would overflow. */
static bool alloc_xy(html_chart *c, size_t n, double **x, double **y)
{
    *x = *y = NULL;
    if (n == 0)
        return true;
    if (n > SIZE_MAX / sizeof(double) / 2)
        goto oom;
    *x = malloc(n * sizeof(double));
    *y = malloc(n * sizeof(double));
    if (*x && *y)
        return true;
    free(*x);
    free(*y);
    *x = *y = NULL;
oom:
    c->doc->err = c->doc->err ? c->doc->err : -ENOMEM;
    return false;
}

static void copy_series(html_chart *c, const char *name, size_t n, const double *x,
                        const double *y, bool ref)
{
    double *cx, *cy;

    if (!c)
        return;
    assert(n == 0 || (x && y));
    if (!x || !y)
        n = 0;
    if (!alloc_xy(c, n, &cx, &cy))
        return;
    if (n) {
        memcpy(cx, x, n * sizeof *cx);
        memcpy(cy, y, n * sizeof *cy);
    }
    add_series(c, name, n, cx, cy, ref);
}

void html_chart_series(html_chart *c, const char *name, size_t n, const double *x,
                       const double *y)
{
    copy_series(c, name, n, x, y, false);
}

void html_chart_reference(html_chart *c, const char *name, size_t n, const double *x,
                          const double *y)
{
    copy_series(c, name, n, x, y, true);
}

void html_chart_steps(html_chart *c, const char *name, size_t n, const double *x,
                      const double *y, double xend)
{
    size_t had = c ? c->n : 0;

    copy_series(c, name, n, x, y, false);
    if (c && c->n > had) {
        c->v[c->n - 1].steps = true;
        c->v[c->n - 1].xend = xend;
    }
}

void html_chart_limit(html_chart *c, const char *name, size_t n, const double *x,
                      const double *y)
{
    size_t had = c ? c->n : 0;

    copy_series(c, name, n, x, y, true);
    if (c && c->n > had)
        c->v[c->n - 1].limit = true;
}

void html_chart_categories(html_chart *c, size_t n, const char *const *names)
{
    char **v;

    if (!c || n == 0)
        return;
    v = n <= SIZE_MAX / sizeof *v ? calloc(n, sizeof *v) : NULL;
    for (size_t i = 0; v && i < n; i++) {
        if (!(v[i] = dup_or_empty(names[i]))) {
            while (i--)
                free(v[i]);
            free(v);
            v = NULL;
        }
    }
    if (!v) {
        c->doc->err = c->doc->err ? c->doc->err : -ENOMEM;
        return;
    }
    for (size_t i = 0; i < c->ncats; i++)
        free(c->cats[i]);
    free(c->cats);
    c->cats = v;
    c->ncats = n;
}

void html_chart_spectrum(html_chart *c, const char *name, const hdr_hist *h, double scale)
{
    hdr_pct_iter it;
    double *x, *y;
    size_t n = 0, i = 0;

    if (!c)
        return;
    assert(h != NULL);
    if (!(scale > 0))
        scale = 1;
    hdr_pct_iter_init(&it, h, 5);
    while (hdr_pct_iter_next(&it))
        if (!it.is_last && it.percentile < 100)
            n++;
    if (!alloc_xy(c, n, &x, &y))
        return;
    hdr_pct_iter_init(&it, h, 5);
    while (i < n && hdr_pct_iter_next(&it)) {
        if (it.is_last || it.percentile >= 100)
            continue;
        x[i] = it.percentile;
        y[i] = (double)it.value / scale;
        i++;
    }
    add_series(c, name, n, x, y, false);
}

/* ---- writing ------------------------------------------------------------- */

static void w_chart(json_w *w, const html_chart *c)
{
    json_w_obj_begin(w);
    json_w_kstr(w, "title", c->title);
    json_w_kstr(w, "xlabel", c->xlabel);
    json_w_kstr(w, "ylabel", c->ylabel);
    json_w_kint(w, "xscale", c->xscale);
    json_w_kint(w, "yscale", c->yscale);
    if (c->cats) {
        json_w_key(w, "xcategories");
        json_w_arr_begin(w);
        for (size_t i = 0; i < c->ncats; i++)
            json_w_str(w, c->cats[i]);
        json_w_arr_end(w);
    }
    json_w_key(w, "series");
    json_w_arr_begin(w);
    for (size_t i = 0; i < c->n; i++) {
        const html_series *s = &c->v[i];

        json_w_obj_begin(w);
        json_w_kstr(w, "name", s->name);
        if (s->ref) {
            json_w_key(w, "ref");
            json_w_bool(w, true);
        }
        if (s->limit) {
            json_w_key(w, "limit");
            json_w_bool(w, true);
        }
        if (s->steps) {
            json_w_key(w, "steps");
            json_w_bool(w, true);
            json_w_key(w, "xend");
            json_w_double(w, s->xend);
        }
        json_w_key(w, "x");
        json_w_arr_begin(w);
        for (size_t j = 0; j < s->n; j++)
            json_w_double(w, s->x[j]);
        json_w_arr_end(w);
        json_w_key(w, "y");
        json_w_arr_begin(w);
        for (size_t j = 0; j < s->n; j++)
            json_w_double(w, s->y[j]);
        json_w_arr_end(w);
        json_w_obj_end(w);
    }
    json_w_arr_end(w);
    json_w_obj_end(w);
}

/* The chart data as JSON into f, safe inside <script>: '<' appears only
 * in strings there, and becomes \u003c (as do '>' and '&', for good
 * measure). 0, -ENOMEM or -EIO. */
static int write_data(const html_doc *d, FILE *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    json_w w;
    int rc;

    if (!m)
        return -ENOMEM;
    json_w_init(&w, m, 0);
    json_w_obj_begin(&w);
    json_w_key(&w, "charts");
    json_w_arr_begin(&w);
    for (size_t i = 0; i < d->ncharts; i++)
        w_chart(&w, d->charts[i]);
    json_w_arr_end(&w);
    json_w_obj_end(&w);
    rc = json_w_finish(&w);
    assert(rc != -EINVAL);
    /* A memory stream fails only for want of memory. */
    if (fclose(m) != 0 || rc < 0) {
        free(buf);
        return -ENOMEM;
    }
    for (size_t i = 0, run = 0; i <= len; i++) {
        const char *e = i == len        ? ""
                        : buf[i] == '<' ? "\\u003c"
                        : buf[i] == '>' ? "\\u003e"
                        : buf[i] == '&' ? "\\u0026"
                                        : NULL;

        if (e) {
            fwrite(buf + run, 1, i - run, f);
            fputs(e, f);
            run = i + 1;
        }
    }
    free(buf);
    return 0;
}

static void write_esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        const char *e = entity(*s);

        if (e)
            fputs(e, f);
        else
            fputc(*s, f);
    }
}

int html_doc_write(const html_doc *d, FILE *f)
{
    int rc;

    if (!d)
        return -ENOMEM;
    if (d->err)
        return d->err;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          /* Belt and braces: even a mistake in here cannot fetch anything. */
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"pacer " PACER_VERSION "\">\n<title>",
          f);
    write_esc(f, d->title);
    fputs("</title>\n<style>\n", f);
    fwrite(pc_html_page_css, 1, pc_html_page_css_len, f);
    fputs("</style>\n<script>\n", f);
    fwrite(pc_html_head_js, 1, pc_html_head_js_len, f);
    fputs("</script>\n</head>\n<body>\n<h1>", f);
    write_esc(f, d->title);
    fputs("</h1>\n", f);
    if (d->body.len)
        fwrite(d->body.p, 1, d->body.len, f);
    fputs("<footer>Written by pacer " PACER_VERSION ". This page is self-contained: it loads "
          "nothing, and its charts are drawn from the data embedded in it.</footer>\n"
          "<script type=\"application/json\" id=\"pacer-data\">",
          f);
    rc = write_data(d, f);
    if (rc < 0)
        return rc;
    fputs("</script>\n<script>\n", f);
    fwrite(pc_html_render_js, 1, pc_html_render_js_len, f);
    fputs("</script>\n</body>\n</html>\n", f);
    if (ferror(f) || fflush(f) != 0)
        return -EIO;
    return 0;
}

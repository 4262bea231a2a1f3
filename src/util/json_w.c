/*
 * json_w.c - the streaming JSON writer of util/json.h.
 *
 * pacer's own, not jansson's: jansson's encoder cannot write pacer's result
 * format (shortest round-trip doubles, integral doubles as plain digits,
 * exact integers up to UINT64_MAX, \u00XX in lower case, invalid UTF-8 as
 * U+FFFD), and it needs the whole document as a tree first, where this
 * writes straight to the FILE*; docs/benchmarks.md has the numbers.
 */
#include "util/json.h"
#include "util/json_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- UTF-8 ------------------------------------------------------------- */

/* Length (1..4) of the well-formed UTF-8 sequence at s[0..n), or 0 if it is
 * ill-formed, with *bad set to the length of its maximal ill-formed subpart
 * (Unicode 3.9, "U+FFFD substitution of maximal subparts"). */
static size_t utf8_seq(const unsigned char *s, size_t n, size_t *bad)
{
    unsigned c = s[0], lo = 0x80, hi = 0xBF;
    size_t need;

    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
    } else if (c == 0xE0) {
        need = 2, lo = 0xA0;
    } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
        need = 2;
    } else if (c == 0xED) {
        need = 2, hi = 0x9F; /* no surrogates */
    } else if (c == 0xF0) {
        need = 3, lo = 0x90;
    } else if (c >= 0xF1 && c <= 0xF3) {
        need = 3;
    } else if (c == 0xF4) {
        need = 3, hi = 0x8F; /* <= U+10FFFF */
    } else {
        *bad = 1;
        return 0;
    }
    for (size_t i = 1; i <= need; i++) {
        if (i >= n || s[i] < lo || s[i] > hi) {
            *bad = i;
            return 0;
        }
        lo = 0x80, hi = 0xBF;
    }
    return need + 1;
}

/* ---- Writer ------------------------------------------------------------ */

static void w_put(json_w *w, const char *s, size_t n)
{
    if (w->err || n == 0)
        return;
    if (fwrite(s, 1, n, w->f) != n)
        w->err = -EIO;
}

static void w_newline(json_w *w, int depth)
{
    static const char spaces[] = "                                ";
    size_t n = (size_t)depth * (size_t)w->indent;

    w_put(w, "\n", 1);
    while (n > 0) {
        size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        w_put(w, spaces, k);
        n -= k;
    }
}

static void w_fail(json_w *w)
{
    if (!w->err)
        w->err = -EINVAL;
}

/* Everything a value needs before its first byte: check that a value may
 * come here, write the comma and the line break. false: don't write it. */
static bool w_value_start(json_w *w)
{
    if (w->err)
        return false;
    if (w->depth == 0) {
        if (w->need_comma[0]) { /* a second top-level value */
            w_fail(w);
            return false;
        }
        w->need_comma[0] = true;
        return true;
    }
    if (w->is_obj[w->depth - 1]) {
        if (!w->after_key) {
            w_fail(w);
            return false;
        }
        w->after_key = false; /* key wrote the comma and ':' */
        return true;
    }
    if (w->need_comma[w->depth])
        w_put(w, ",", 1);
    w->need_comma[w->depth] = true;
    if (w->indent)
        w_newline(w, w->depth);
    return !w->err;
}

static void w_string(json_w *w, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, run = 0;

    w_put(w, "\"", 1);
    while (i < n && !w->err) {
        unsigned c = p[i];
        char esc[6];
        size_t elen = 2;

        if (c >= 0x20 && c != '"' && c != '\\') {
            if (c < 0x80) {
                i++;
                continue;
            }
            size_t bad, k = utf8_seq(p + i, n - i, &bad);
            if (k) {
                i += k;
                continue;
            }
            w_put(w, s + run, i - run);
            w_put(w, "\xEF\xBF\xBD", 3); /* U+FFFD */
            i += bad;
            run = i;
            continue;
        }
        esc[0] = '\\';
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default:
            memcpy(esc + 1, "u00", 3);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            elen = 6;
        }
        w_put(w, s + run, i - run);
        w_put(w, esc, elen);
        i++;
        run = i;
    }
    w_put(w, s + run, i - run);
    w_put(w, "\"", 1);
}

static void w_raw_value(json_w *w, const char *s)
{
    if (w_value_start(w))
        w_put(w, s, strlen(s));
}

void json_w_init(json_w *w, FILE *f, int indent)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->indent = indent < 0 ? 0 : indent > 16 ? 16 : indent;
}

static void w_begin(json_w *w, bool obj)
{
    if (w->err)
        return;
    if (w->depth >= JSON_MAX_DEPTH) {
        w_fail(w);
        return;
    }
    if (!w_value_start(w))
        return;
    w_put(w, obj ? "{" : "[", 1);
    w->is_obj[w->depth] = obj;
    w->depth++;
    w->need_comma[w->depth] = false;
}

static void w_end(json_w *w, bool obj)
{
    if (w->err)
        return;
    if (w->depth == 0 || w->is_obj[w->depth - 1] != obj || w->after_key) {
        w_fail(w);
        return;
    }
    bool nonempty = w->need_comma[w->depth];
    w->depth--;
    if (w->indent && nonempty)
        w_newline(w, w->depth);
    w_put(w, obj ? "}" : "]", 1);
}

void json_w_obj_begin(json_w *w) { w_begin(w, true); }
void json_w_obj_end(json_w *w) { w_end(w, true); }
void json_w_arr_begin(json_w *w) { w_begin(w, false); }
void json_w_arr_end(json_w *w) { w_end(w, false); }

void json_w_key(json_w *w, const char *k)
{
    if (w->err)
        return;
    if (!k || w->depth == 0 || !w->is_obj[w->depth - 1] || w->after_key) {
        w_fail(w);
        return;
    }
    if (w->need_comma[w->depth])
        w_put(w, ",", 1);
    w->need_comma[w->depth] = true;
    if (w->indent)
        w_newline(w, w->depth);
    w_string(w, k, strlen(k));
    w_put(w, w->indent ? ": " : ":", w->indent ? 2 : 1);
    w->after_key = true;
}

void json_w_strn(json_w *w, const char *s, size_t n)
{
    if (!s && n) {
        w_fail(w);
        return;
    }
    if (w_value_start(w))
        w_string(w, s ? s : "", n);
}

void json_w_str(json_w *w, const char *s)
{
    if (!s)
        json_w_null(w);
    else
        json_w_strn(w, s, strlen(s));
}

static void w_uint(json_w *w, bool neg, uint64_t mag)
{
    char buf[24];

    snprintf(buf, sizeof buf, "%s%" PRIu64, neg ? "-" : "", mag);
    w_raw_value(w, buf);
}

void json_w_int(json_w *w, int64_t v) { w_uint(w, v < 0, v < 0 ? 0 - (uint64_t)v : (uint64_t)v); }
void json_w_uint(json_w *w, uint64_t v) { w_uint(w, false, v); }

/* Shortest "%.*g" that reads back as v; integral values below 2^64 in
 * plain digits (exact, and read back as exact integers). The decimal point
 * is forced to '.' whatever LC_NUMERIC says. */
static void fmt_double(double v, char *buf, size_t cap)
{
    if (v == trunc(v) && fabs(v) < 18446744073709551616.0) {
        snprintf(buf, cap, "%.0f", v);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    for (char *p = buf; *p; p++)
        if (!((*p >= '0' && *p <= '9') || *p == '-' || *p == '+' || *p == 'e'))
            *p = '.';
}

void json_w_double(json_w *w, double v)
{
    char buf[40];

    if (isnan(v) || isinf(v)) {
        json_w_null(w);
        return;
    }
    fmt_double(v, buf, sizeof buf);
    w_raw_value(w, buf);
}

void json_w_bool(json_w *w, bool v) { w_raw_value(w, v ? "true" : "false"); }
void json_w_null(json_w *w) { w_raw_value(w, "null"); }

void json_w_kstr(json_w *w, const char *k, const char *v) { json_w_key(w, k); json_w_str(w, v); }
void json_w_kint(json_w *w, const char *k, int64_t v) { json_w_key(w, k); json_w_int(w, v); }
void json_w_kuint(json_w *w, const char *k, uint64_t v) { json_w_key(w, k); json_w_uint(w, v); }
void json_w_kdouble(json_w *w, const char *k, double v) { json_w_key(w, k); json_w_double(w, v); }
void json_w_kbool(json_w *w, const char *k, bool v) { json_w_key(w, k); json_w_bool(w, v); }

void json__w_raw(json_w *w, const char *text)
{
    w_raw_value(w, text);
}

int json_w_finish(json_w *w)
{
    if (!w->err && (w->depth != 0 || w->after_key || !w->need_comma[0]))
        w->err = -EINVAL;
    if (!w->err && w->indent)
        w_put(w, "\n", 1);
    if (fflush(w->f) != 0 || ferror(w->f)) {
        if (!w->err)
            w->err = -EIO;
    }
    return w->err;
}

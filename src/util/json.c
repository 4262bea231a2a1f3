/*
 * json.c - streaming JSON writer, strict iterative JSON parser.
 *
 * Parser design: one pass over the input with an explicit stack of open
 * containers (at most JSON_MAX_DEPTH) and a stack of finished values. A
 * value is pushed on the value stack when it is complete; when a container
 * closes, the values above its start are moved into one exactly-sized
 * array, which becomes the container's value. Every value is thus copied
 * once, allocation is amortized O(1) per value, and nothing recurses
 * except json_free / json_w_value, whose depth the parser bounds.
 */
#include "util/json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct json_val {
    uint8_t type;   /* json_type */
    bool b;         /* JSON_BOOL */
    bool is_int;    /* JSON_NUM: the literal is an exact integer, -mag or +mag */
    bool neg;       /* JSON_NUM with is_int: negative sign (also "-0") */
    char *key;      /* member key inside an object, else NULL */
    union {
        struct { double d; uint64_t mag; } num;
        struct { char *s; size_t len; } str;
        struct { json_val *items; size_t n; } con;  /* JSON_ARR, JSON_OBJ */
    } u;
};

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

void json_w_int(json_w *w, int64_t v)
{
    char buf[24];

    snprintf(buf, sizeof buf, "%" PRId64, v);
    w_raw_value(w, buf);
}

void json_w_uint(json_w *w, uint64_t v)
{
    char buf[24];

    snprintf(buf, sizeof buf, "%" PRIu64, v);
    w_raw_value(w, buf);
}

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

void json_w_kstr(json_w *w, const char *k, const char *v)
{
    json_w_key(w, k);
    json_w_str(w, v);
}

void json_w_kint(json_w *w, const char *k, int64_t v)
{
    json_w_key(w, k);
    json_w_int(w, v);
}

void json_w_kuint(json_w *w, const char *k, uint64_t v)
{
    json_w_key(w, k);
    json_w_uint(w, v);
}

void json_w_kdouble(json_w *w, const char *k, double v)
{
    json_w_key(w, k);
    json_w_double(w, v);
}

void json_w_kbool(json_w *w, const char *k, bool v)
{
    json_w_key(w, k);
    json_w_bool(w, v);
}

static void w_value(json_w *w, const json_val *v, int level)
{
    char buf[24];

    if (level > JSON_MAX_DEPTH) { /* cannot happen for parsed trees */
        w_fail(w);
        return;
    }
    switch (v ? v->type : JSON_NULL) {
    case JSON_NULL: json_w_null(w); break;
    case JSON_BOOL: json_w_bool(w, v->b); break;
    case JSON_STR: json_w_strn(w, v->u.str.s, v->u.str.len); break;
    case JSON_NUM:
        if (v->is_int) {
            snprintf(buf, sizeof buf, "%s%" PRIu64, v->neg ? "-" : "", v->u.num.mag);
            w_raw_value(w, buf);
        } else {
            json_w_double(w, v->u.num.d);
        }
        break;
    case JSON_ARR:
        json_w_arr_begin(w);
        for (size_t i = 0; i < v->u.con.n && !w->err; i++)
            w_value(w, &v->u.con.items[i], level + 1);
        json_w_arr_end(w);
        break;
    case JSON_OBJ:
        json_w_obj_begin(w);
        for (size_t i = 0; i < v->u.con.n && !w->err; i++) {
            json_w_key(w, v->u.con.items[i].key);
            w_value(w, &v->u.con.items[i], level + 1);
        }
        json_w_obj_end(w);
        break;
    default:
        w_fail(w);
    }
}

void json_w_value(json_w *w, const json_val *v)
{
    w_value(w, v, 0);
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

/* ---- Parser ------------------------------------------------------------ */

struct frame {
    size_t start; /* index in the value stack of the first element */
    char *key;    /* object: key of the member whose value is being parsed */
    bool obj;
};

typedef struct parser {
    const unsigned char *p;
    size_t n, i;
    json_val *vs; /* finished values not yet in a container */
    size_t vn, vcap;
    struct frame fr[JSON_MAX_DEPTH];
    int depth;
    char *err;
    size_t errlen;
} parser;

static int fail_at(parser *ps, size_t pos, int rc, const char *msg)
{
    if (ps->err && ps->errlen) {
        size_t line = 1, ls = 0;
        for (size_t k = 0; k < pos && k < ps->n; k++) {
            if (ps->p[k] == '\n') {
                line++;
                ls = k + 1;
            }
        }
        snprintf(ps->err, ps->errlen, "line %zu, column %zu: %s", line, pos - ls + 1, msg);
    }
    return rc;
}

static int fail(parser *ps, size_t pos, const char *msg)
{
    return fail_at(ps, pos, -EINVAL, msg);
}

static int oom(parser *ps)
{
    return fail_at(ps, ps->i, -ENOMEM, "out of memory");
}

static void skip_ws(parser *ps)
{
    while (ps->i < ps->n) {
        unsigned char c = ps->p[ps->i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        ps->i++;
    }
}

static int unexpected(parser *ps, const char *want)
{
    char msg[96];

    if (ps->i >= ps->n) {
        snprintf(msg, sizeof msg, "unexpected end of input, expected %s", want);
    } else {
        unsigned char c = ps->p[ps->i];
        if (c > 0x20 && c < 0x7f)
            snprintf(msg, sizeof msg, "unexpected '%c', expected %s", c, want);
        else
            snprintf(msg, sizeof msg, "unexpected byte 0x%02x, expected %s", c, want);
    }
    return fail(ps, ps->i, msg);
}

static void val_clear(json_val *v)
{
    free(v->key);
    if (v->type == JSON_STR) {
        free(v->u.str.s);
    } else if (v->type == JSON_ARR || v->type == JSON_OBJ) {
        for (size_t i = 0; i < v->u.con.n; i++)
            val_clear(&v->u.con.items[i]);
        free(v->u.con.items);
    }
}

/* Push a finished value; it becomes the pending member of the innermost
 * object, if that is what is open. On failure v's contents are freed. */
static int push_value(parser *ps, json_val *v)
{
    if (ps->vn == ps->vcap) {
        size_t cap = ps->vcap ? ps->vcap * 2 : 16;
        json_val *nv = NULL;
        if (cap <= SIZE_MAX / sizeof *nv)
            nv = realloc(ps->vs, cap * sizeof *nv);
        if (!nv) {
            val_clear(v);
            return oom(ps);
        }
        ps->vs = nv;
        ps->vcap = cap;
    }
    if (ps->depth > 0 && ps->fr[ps->depth - 1].obj) {
        v->key = ps->fr[ps->depth - 1].key;
        ps->fr[ps->depth - 1].key = NULL;
    }
    ps->vs[ps->vn++] = *v;
    return 0;
}

static int hex4(const unsigned char *s, unsigned *out)
{
    unsigned v = 0;

    for (int k = 0; k < 4; k++) {
        unsigned c = s[k], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return -1;
        v = v << 4 | d;
    }
    *out = v;
    return 0;
}

/* ps->i is at the opening quote. On success *out is a malloc'ed,
 * NUL-terminated copy and ps->i is past the closing quote. */
static int parse_string(parser *ps, char **out, size_t *outlen)
{
    const unsigned char *p = ps->p;
    size_t open = ps->i, start = open + 1, end = start, k, o = 0;
    char *buf;

    while (end < ps->n && p[end] != '"')
        end += p[end] == '\\' ? 2 : 1;
    if (end >= ps->n)
        return fail(ps, open, "unterminated string");
    /* Decoding never makes a string longer. */
    buf = malloc(end - start + 1);
    if (!buf)
        return oom(ps);
    for (k = start; k < end;) {
        unsigned c = p[k];
        if (c == '\\') {
            unsigned cp, lo;
            /* k + 1 < end: a backslash right before `end` would skip it. */
            switch (p[k + 1]) {
            case '"': buf[o++] = '"'; k += 2; continue;
            case '\\': buf[o++] = '\\'; k += 2; continue;
            case '/': buf[o++] = '/'; k += 2; continue;
            case 'b': buf[o++] = '\b'; k += 2; continue;
            case 'f': buf[o++] = '\f'; k += 2; continue;
            case 'n': buf[o++] = '\n'; k += 2; continue;
            case 'r': buf[o++] = '\r'; k += 2; continue;
            case 't': buf[o++] = '\t'; k += 2; continue;
            case 'u': break;
            default:
                free(buf);
                return fail(ps, k, "invalid escape in string");
            }
            if (end - k < 6 || hex4(p + k + 2, &cp) < 0) {
                free(buf);
                return fail(ps, k, "invalid \\u escape, expected 4 hex digits");
            }
            if (cp >= 0xDC00 && cp <= 0xDFFF) {
                free(buf);
                return fail(ps, k, "lone low surrogate in \\u escape");
            }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (end - k < 12 || p[k + 6] != '\\' || p[k + 7] != 'u' ||
                    hex4(p + k + 8, &lo) < 0 || lo < 0xDC00 || lo > 0xDFFF) {
                    free(buf);
                    return fail(ps, k, "high surrogate not followed by a \\u low surrogate");
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                k += 12;
            } else {
                k += 6;
            }
            if (cp == 0) {
                free(buf);
                return fail(ps, k - 6, "\\u0000 in string is not supported");
            }
            if (cp < 0x80) {
                buf[o++] = (char)cp;
            } else if (cp < 0x800) {
                buf[o++] = (char)(0xC0 | cp >> 6);
                buf[o++] = (char)(0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                buf[o++] = (char)(0xE0 | cp >> 12);
                buf[o++] = (char)(0x80 | (cp >> 6 & 0x3F));
                buf[o++] = (char)(0x80 | (cp & 0x3F));
            } else {
                buf[o++] = (char)(0xF0 | cp >> 18);
                buf[o++] = (char)(0x80 | (cp >> 12 & 0x3F));
                buf[o++] = (char)(0x80 | (cp >> 6 & 0x3F));
                buf[o++] = (char)(0x80 | (cp & 0x3F));
            }
        } else if (c < 0x20) {
            free(buf);
            return fail(ps, k, "control character in string (must be escaped)");
        } else if (c < 0x80) {
            buf[o++] = (char)c;
            k++;
        } else {
            size_t bad, len = utf8_seq(p + k, end - k, &bad);
            if (!len) {
                free(buf);
                return fail(ps, k, "invalid UTF-8 in string");
            }
            memcpy(buf + o, p + k, len);
            o += len;
            k += len;
        }
    }
    buf[o] = '\0';
    *out = buf;
    *outlen = o;
    ps->i = end + 1;
    return 0;
}

/* Significant digits handed to strtod: a correctly rounded double never
 * depends on more than 767 of them plus whether any nonzero digit follows,
 * so longer mantissas are cut and a sticky '1' appended. This keeps
 * strtod's work bounded whatever the length of the literal. */
#define NUM_MAX_DIGITS 800

static int parse_number(parser *ps, json_val *v)
{
    const unsigned char *p = ps->p;
    size_t n = ps->n, i = ps->i, start = ps->i;
    size_t istart, ilen, fstart = 0, flen = 0, total, first, last;
    bool neg = false;
    int64_t exp = 0, e10;
    char buf[NUM_MAX_DIGITS + 32];

    if (p[i] == '-') {
        neg = true;
        i++;
    }
    if (i >= n || p[i] < '0' || p[i] > '9')
        return fail(ps, i, "invalid number, expected a digit");
    istart = i;
    if (p[i] == '0') {
        i++;
        if (i < n && p[i] >= '0' && p[i] <= '9')
            return fail(ps, start, "invalid number, leading zero");
    } else {
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
    }
    ilen = i - istart;
    if (i < n && p[i] == '.') {
        i++;
        fstart = i;
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
        flen = i - fstart;
        if (flen == 0)
            return fail(ps, i, "invalid number, expected a digit after '.'");
    }
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        bool eneg = false;
        size_t es;
        i++;
        if (i < n && (p[i] == '+' || p[i] == '-'))
            eneg = p[i++] == '-';
        es = i;
        while (i < n && p[i] >= '0' && p[i] <= '9') {
            if (exp < 1000000000000000) /* saturate: past this it is 0 or inf anyway */
                exp = exp * 10 + (p[i] - '0');
            i++;
        }
        if (i == es)
            return fail(ps, i, "invalid number, expected a digit in the exponent");
        if (eneg)
            exp = -exp;
    }

    /* The digits of int and fraction part as one sequence d[0..total),
     * the value being d * 10^(exp - flen). */
#define DIGIT(k) ((k) < ilen ? p[istart + (k)] : p[fstart + (k) - ilen])
    total = ilen + flen;
    memset(v, 0, sizeof *v);
    v->type = JSON_NUM;
    for (first = 0; first < total && DIGIT(first) == '0'; first++)
        ;
    if (first == total) { /* zero */
        v->is_int = true;
        v->neg = neg;
        v->u.num.d = neg ? -0.0 : 0.0;
        ps->i = i;
        return 0;
    }
    for (last = total - 1; DIGIT(last) == '0'; last--)
        ;
    /* value = d[first..last] * 10^e10 */
    size_t sig = last - first + 1;
    e10 = exp - (int64_t)flen + (int64_t)(total - 1 - last);

    if (e10 >= 0 && (int64_t)sig + e10 <= 20) {
        uint64_t m = 0;
        bool ok = true;
        for (size_t k = first; k <= last && ok; k++) {
            unsigned d = DIGIT(k) - '0';
            if (m > (UINT64_MAX - d) / 10)
                ok = false;
            else
                m = m * 10 + d;
        }
        for (int64_t k = 0; k < e10 && ok; k++) {
            if (m > UINT64_MAX / 10)
                ok = false;
            else
                m *= 10;
        }
        if (ok) {
            v->is_int = true;
            v->neg = neg;
            v->u.num.mag = m;
        }
    }

    /* strtod input: [-]DIGITS e EXP, no decimal point (locale-proof). */
    size_t o = 0, take = sig < NUM_MAX_DIGITS ? sig : NUM_MAX_DIGITS;
    int64_t be = e10 + (int64_t)(sig - take);
    if (neg)
        buf[o++] = '-';
    for (size_t k = 0; k < take; k++)
        buf[o++] = (char)DIGIT(first + k);
    if (take < sig) { /* the dropped digits end with a nonzero one */
        buf[o++] = '1';
        be--;
    }
#undef DIGIT
    if (be > 100000)
        be = 100000;
    if (be < -100000)
        be = -100000;
    snprintf(buf + o, sizeof buf - o, "e%" PRId64, be);
    v->u.num.d = strtod(buf, NULL);
    if (isinf(v->u.num.d))
        return fail(ps, start, "number out of range");
    ps->i = i;
    return 0;
}

static int parse_literal(parser *ps, json_val *v)
{
    static const struct { const char *s; size_t len; uint8_t type; bool b; } lits[] = {
        { "true", 4, JSON_BOOL, true },
        { "false", 5, JSON_BOOL, false },
        { "null", 4, JSON_NULL, false },
    };

    for (size_t k = 0; k < sizeof lits / sizeof lits[0]; k++) {
        if (ps->p[ps->i] == (unsigned char)lits[k].s[0]) {
            if (ps->n - ps->i < lits[k].len || memcmp(ps->p + ps->i, lits[k].s, lits[k].len) != 0)
                return fail(ps, ps->i, "invalid literal (true, false or null?)");
            memset(v, 0, sizeof *v);
            v->type = lits[k].type;
            v->b = lits[k].b;
            ps->i += lits[k].len;
            return 0;
        }
    }
    return unexpected(ps, "a value");
}

/* At an object member: "key" ws ':'; leaves ps->i after the ':'. */
static int parse_member_key(parser *ps, const char *want)
{
    struct frame *f = &ps->fr[ps->depth - 1];
    size_t len;
    int rc;

    if (ps->i >= ps->n || ps->p[ps->i] != '"')
        return unexpected(ps, want);
    rc = parse_string(ps, &f->key, &len);
    if (rc < 0)
        return rc;
    skip_ws(ps);
    if (ps->i >= ps->n || ps->p[ps->i] != ':')
        return unexpected(ps, "':'");
    ps->i++;
    return 0;
}

static int close_container(parser *ps)
{
    struct frame *f = &ps->fr[--ps->depth];
    size_t n = ps->vn - f->start;
    json_val v;

    memset(&v, 0, sizeof v);
    v.type = f->obj ? JSON_OBJ : JSON_ARR;
    if (n) {
        v.u.con.items = malloc(n * sizeof *v.u.con.items);
        if (!v.u.con.items) {
            ps->depth++; /* leave the frame for cleanup */
            return oom(ps);
        }
        memcpy(v.u.con.items, ps->vs + f->start, n * sizeof *v.u.con.items);
    }
    v.u.con.n = n;
    ps->vn = f->start;
    return push_value(ps, &v);
}

/* Parse the start of a value at ps->i: a scalar (returns 1, pushed), an
 * empty container (1, pushed), or the opening of a non-empty container
 * (0: the next thing is its first value). */
static int start_value(parser *ps)
{
    json_val v;
    int rc;

    skip_ws(ps);
    if (ps->i >= ps->n)
        return unexpected(ps, "a value");
    switch (ps->p[ps->i]) {
    case '{':
    case '[': {
        bool obj = ps->p[ps->i] == '{';
        if (ps->depth >= JSON_MAX_DEPTH)
            return fail(ps, ps->i, "nesting deeper than 64 levels");
        ps->fr[ps->depth].start = ps->vn;
        ps->fr[ps->depth].key = NULL;
        ps->fr[ps->depth].obj = obj;
        ps->depth++;
        ps->i++;
        skip_ws(ps);
        if (ps->i < ps->n && ps->p[ps->i] == (obj ? '}' : ']')) {
            ps->i++;
            rc = close_container(ps);
            return rc < 0 ? rc : 1;
        }
        if (obj) {
            rc = parse_member_key(ps, "a string key or '}'");
            if (rc < 0)
                return rc;
        }
        return 0;
    }
    case '"':
        memset(&v, 0, sizeof v);
        v.type = JSON_STR;
        rc = parse_string(ps, &v.u.str.s, &v.u.str.len);
        break;
    case '-':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        rc = parse_number(ps, &v);
        break;
    default:
        rc = parse_literal(ps, &v);
    }
    if (rc < 0)
        return rc;
    rc = push_value(ps, &v);
    return rc < 0 ? rc : 1;
}

/* After a complete value: close containers as they end. Returns 1 when the
 * document is complete, 0 when another value is due. */
static int after_value(parser *ps)
{
    for (;;) {
        skip_ws(ps);
        if (ps->depth == 0)
            return ps->i < ps->n ? unexpected(ps, "end of input after the document") : 1;
        struct frame *f = &ps->fr[ps->depth - 1];
        if (ps->i < ps->n && ps->p[ps->i] == ',') {
            ps->i++;
            if (f->obj) {
                skip_ws(ps);
                int rc = parse_member_key(ps, "a string key");
                if (rc < 0)
                    return rc;
            }
            return 0;
        }
        if (ps->i < ps->n && ps->p[ps->i] == (f->obj ? '}' : ']')) {
            ps->i++;
            int rc = close_container(ps);
            if (rc < 0)
                return rc;
            continue;
        }
        return unexpected(ps, f->obj ? "',' or '}'" : "',' or ']'");
    }
}

int json_parse(const char *text, size_t len, json_val **out, char *err, size_t errlen)
{
    parser ps;
    int rc;

    if (err && errlen)
        err[0] = '\0';
    if (!out)
        return -EINVAL;
    *out = NULL;
    memset(&ps, 0, sizeof ps);
    ps.p = (const unsigned char *)(text ? text : "");
    ps.n = text ? len : 0;
    ps.err = err;
    ps.errlen = errlen;

    skip_ws(&ps);
    if (ps.i >= ps.n)
        return fail(&ps, ps.i, "empty document");
    for (;;) {
        rc = start_value(&ps);
        if (rc < 0)
            break;
        if (rc == 0)
            continue;
        rc = after_value(&ps);
        if (rc != 0)
            break;
    }
    if (rc == 1) {
        json_val *root = malloc(sizeof *root);
        if (root) {
            *root = ps.vs[0];
            free(ps.vs);
            *out = root;
            return 0;
        }
        rc = oom(&ps);
    }
    for (int d = 0; d < ps.depth; d++)
        free(ps.fr[d].key);
    for (size_t k = 0; k < ps.vn; k++)
        val_clear(&ps.vs[k]);
    free(ps.vs);
    return rc;
}

#define JSON_FILE_MAX ((size_t)1 << 30)

int json_parse_file(const char *path, json_val **out, char *err, size_t errlen)
{
    FILE *f;
    char *buf = NULL, msg[256];
    size_t len = 0, cap = 0;
    long hint;
    int rc = 0;

    if (!out)
        return -EINVAL;
    *out = NULL;
    f = fopen(path, "rb");
    if (!f) {
        rc = errno > 0 ? -errno : -EIO;
        if (err && errlen)
            snprintf(err, errlen, "%s: %s", path, strerror(-rc));
        return rc;
    }
    /* Size hint for regular files; pipes just grow the buffer. */
    if (fseek(f, 0, SEEK_END) == 0 && (hint = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        if ((unsigned long)hint > JSON_FILE_MAX) {
            rc = -EFBIG;
        } else {
            cap = (size_t)hint + 1; /* + 1: EOF is seen without growing */
            buf = malloc(cap);
            if (!buf)
                rc = -ENOMEM;
        }
    } else {
        clearerr(f);
    }
    while (rc == 0) {
        if (len == cap) {
            size_t ncap = cap < 65536 ? 65536 : cap * 2;
            if (cap > JSON_FILE_MAX) {
                rc = -EFBIG;
                break;
            }
            if (ncap > JSON_FILE_MAX + 1)
                ncap = JSON_FILE_MAX + 1;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                rc = -ENOMEM;
                break;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f))
                rc = -EIO;
            break;
        }
    }
    fclose(f);
    if (rc == 0 && len > JSON_FILE_MAX)
        rc = -EFBIG;
    if (rc < 0) {
        free(buf);
        if (err && errlen)
            snprintf(err, errlen, "%s: %s", path,
                     rc == -EFBIG ? "file larger than 1 GiB" : strerror(-rc));
        return rc;
    }
    rc = json_parse(buf, len, out, msg, sizeof msg);
    free(buf);
    if (rc < 0 && err && errlen)
        snprintf(err, errlen, "%s: %s", path, msg);
    return rc;
}

void json_free(json_val *v)
{
    if (v) {
        val_clear(v);
        free(v);
    }
}

/* ---- Accessors --------------------------------------------------------- */

json_type json_type_of(const json_val *v)
{
    return v ? (json_type)v->type : JSON_NULL;
}

const json_val *json_get(const json_val *obj, const char *key)
{
    if (!obj || obj->type != JSON_OBJ || !key)
        return NULL;
    for (size_t i = 0; i < obj->u.con.n; i++)
        if (strcmp(obj->u.con.items[i].key, key) == 0)
            return &obj->u.con.items[i];
    return NULL;
}

size_t json_len(const json_val *v)
{
    return v && (v->type == JSON_ARR || v->type == JSON_OBJ) ? v->u.con.n : 0;
}

const json_val *json_at(const json_val *v, size_t i)
{
    return i < json_len(v) ? &v->u.con.items[i] : NULL;
}

const char *json_key_at(const json_val *obj, size_t i)
{
    if (!obj || obj->type != JSON_OBJ || i >= obj->u.con.n)
        return NULL;
    return obj->u.con.items[i].key;
}

const char *json_str(const json_val *v)
{
    return v && v->type == JSON_STR ? v->u.str.s : NULL;
}

double json_num(const json_val *v)
{
    return v && v->type == JSON_NUM ? v->u.num.d : NAN;
}

bool json_int64(const json_val *v, int64_t *out)
{
    if (!v || v->type != JSON_NUM || !v->is_int)
        return false;
    if (v->neg) {
        if (v->u.num.mag > (uint64_t)INT64_MAX + 1)
            return false;
        *out = v->u.num.mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v->u.num.mag;
    } else {
        if (v->u.num.mag > (uint64_t)INT64_MAX)
            return false;
        *out = (int64_t)v->u.num.mag;
    }
    return true;
}

bool json_uint64(const json_val *v, uint64_t *out)
{
    if (!v || v->type != JSON_NUM || !v->is_int || (v->neg && v->u.num.mag != 0))
        return false;
    *out = v->u.num.mag;
    return true;
}

bool json_bool(const json_val *v)
{
    return v && v->type == JSON_BOOL && v->b;
}

const json_val *json_path(const json_val *root, const char *dotted)
{
    const json_val *cur = root;
    const char *s = dotted;

    if (!root || !dotted)
        return NULL;
    if (*s == '\0')
        return root;
    for (;;) {
        const char *e = strchr(s, '.');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        const json_val *next = NULL;

        if (len == 0)
            return NULL;
        if (cur->type == JSON_OBJ) {
            for (size_t i = 0; i < cur->u.con.n; i++) {
                const char *k = cur->u.con.items[i].key;
                if (strncmp(k, s, len) == 0 && k[len] == '\0') {
                    next = &cur->u.con.items[i];
                    break;
                }
            }
        } else if (cur->type == JSON_ARR) {
            size_t idx = 0, k;
            for (k = 0; k < len && s[k] >= '0' && s[k] <= '9'; k++) {
                if (idx > (SIZE_MAX - 9) / 10) {
                    idx = SIZE_MAX;
                } else {
                    idx = idx * 10 + (size_t)(s[k] - '0');
                }
            }
            if (k == len)
                next = json_at(cur, idx);
        }
        if (!next)
            return NULL;
        cur = next;
        if (!e)
            return cur;
        s = e + 1;
    }
}

/*
 * json.c - the JSON parser of util/json.h, over jansson, and json_w_value.
 *
 * The writer is pacer's own (json_w.c says why). The parser is jansson's
 * json_loadb, strict: one value of any type, no duplicate keys, no NUL in
 * strings, real overflow is an error. A json_val is a json_t. Two things
 * jansson does not do are added around it by one linear pre-scan of the
 * text (prescan): the JSON_MAX_DEPTH limit, checked before jansson
 * recurses, and integer literals jansson cannot hold (beyond int64, and
 * "-0"). Those are replaced in a copy of the text by "0" and spaces (the
 * same length, so error positions stay true), and after the parse the
 * matching number nodes, found by counting number nodes in document order,
 * become literal nodes: a jansson string whose first byte is NUL (which
 * parsed text never produces) followed by the literal.
 */

/* jansson.h and util/json.h both define json_type and JSON_NULL; this file
 * uses pacer's, and jansson's under the names below. */
#define json_type jansson_json_type
#define JSON_NULL JANSSON_NULL
#include <jansson.h>
#undef json_type
#undef JSON_NULL

#include "util/json.h"
#include "util/json_internal.h"
#include "util/grow.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A json_val is a jansson node. */
#define J(v) ((json_t *)(v))
#define V(j) ((json_val *)(j))

/* ---- Parser ------------------------------------------------------------ */

#define LOAD_FLAGS (JSON_DECODE_ANY | JSON_REJECT_DUPLICATES)

/* An integer literal jansson cannot hold: the num-th number token of the
 * document, at text[off..off + len). */
struct lit {
    size_t num, off, len;
};

struct scan {
    struct lit *lits;
    size_t n, cap;
    size_t deep_at; /* offset of the bracket past JSON_MAX_DEPTH, or SIZE_MAX */
    bool blank;     /* nothing but whitespace */
};

static int fail_at(const unsigned char *p, size_t n, size_t pos, int rc, const char *msg,
                   char *err, size_t errlen)
{
    if (err && errlen) {
        size_t line = 1, ls = 0;
        for (size_t k = 0; k < pos && k < n; k++) {
            if (p[k] == '\n') {
                line++;
                ls = k + 1;
            }
        }
        snprintf(err, errlen, "line %zu, column %zu: %s", line, pos - ls + 1, msg);
    }
    return rc;
}

/* Where jansson's error is, in bytes: jansson's position is just past the
 * token it names ("near 'tok'"), which it has already read; the error is
 * at the start of that token, except at the end of the input (where more
 * was due) and for a byte that cannot be in a string (past the token). */
static size_t error_pos(const json_error_t *e)
{
    size_t pos = e->position > 0 ? (size_t)e->position : 0;
    const char *near = strstr(e->text, " near '"), *end = strrchr(e->text, '\'');

    if (json_error_code(e) == json_error_premature_end_of_input ||
        json_error_code(e) == json_error_invalid_utf8 ||
        strncmp(e->text, "control character", 17) == 0 ||
        strncmp(e->text, "unexpected newline", 18) == 0)
        return pos;
    if (near && end > near + 7 && (size_t)(end - near - 7) <= pos)
        return pos - (size_t)(end - near - 7);
    return pos > 0 ? pos - 1 : 0;
}

/* jansson's error as pacer's one line, its text in printable ASCII. */
static int jansson_fail(const json_error_t *e, const unsigned char *p, size_t n, char *err,
                        size_t errlen)
{
    static const char nul_flag[] = " without JSON_ALLOW_NUL";
    size_t o = 0;
    char text[4 * JSON_ERROR_TEXT_LENGTH];

    if (json_error_code(e) == json_error_out_of_memory)
        return fail_at(p, n, 0, -ENOMEM, "out of memory", err, errlen);
    for (const char *s = e->text; *s && o + 5 < sizeof text; s++) {
        unsigned char c = (unsigned char)*s;
        if (strncmp(s, nul_flag, sizeof nul_flag - 1) == 0)
            s += sizeof nul_flag - 2;
        else if (c >= 0x20 && c < 0x7f)
            text[o++] = (char)c;
        else
            o += (size_t)snprintf(text + o, sizeof text - o, "\\x%02x", c);
    }
    text[o] = '\0';
    return fail_at(p, n, error_pos(e), -EINVAL, text, err, errlen);
}

static bool is_ws(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static bool is_num_char(unsigned char c) { return is_digit(c) || (c && strchr("-+.eE", c)); }

/* Is s[0..n) an integer literal, -?(0|[1-9][0-9]*), that a json_int_t
 * (long long) does not hold as written: "-0", or beyond its range? */
static bool needs_literal(const unsigned char *s, size_t n)
{
    size_t i = s[0] == '-', digits = n - i;

    if (digits == 0)
        return false;
    for (size_t k = i; k < n; k++)
        if (s[k] < '0' || s[k] > '9')
            return false;
    if (s[i] == '0')
        return digits == 1 && i == 1; /* "-0"; leading zeros are jansson's error */
    if (digits != 19)
        return digits > 19;
    return memcmp(s + i, i ? "9223372036854775808" : "9223372036854775807", 19) > 0;
}

/* Does the integer literal s[0..n) overflow a double? Then it stays in
 * the text, for jansson to refuse ("too big integer"). */
static bool overflows_double(const unsigned char *s, size_t n)
{
    char buf[400];

    if (n >= sizeof buf) /* 398 digits and more: far above DBL_MAX */
        return true;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return isinf(strtod(buf, NULL));
}

/* Index of the quote that closes the string whose text starts at i, or n. */
static size_t string_end(const unsigned char *p, size_t n, size_t i)
{
    for (;;) {
        const unsigned char *q = memchr(p + i, '"', n - i);
        if (!q)
            return n;
        size_t e = (size_t)(q - p), b = e;
        while (b > i && p[b - 1] == '\\')
            b--;
        if ((e - b) % 2 == 0)
            return e;
        i = e + 1;
    }
}

/* One pass over the text: whether it is blank, where it first nests past
 * JSON_MAX_DEPTH, and the integer literals jansson cannot hold. Exact for
 * valid JSON, which is all that its findings are used for (an invalid
 * document fails in jansson whatever they are; only which error is
 * reported can depend on them). */
static int prescan(const unsigned char *p, size_t n, struct scan *sc)
{
    size_t depth = 0, nums = 0;

    memset(sc, 0, sizeof *sc);
    sc->deep_at = SIZE_MAX;
    sc->blank = true;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (is_ws(c))
            continue;
        sc->blank = false;
        if (c == '"') {
            i = string_end(p, n, i + 1);
        } else if (c == '[' || c == '{') {
            if (++depth > JSON_MAX_DEPTH) {
                sc->deep_at = i;
                return 0;
            }
        } else if (c == ']' || c == '}') {
            if (depth > 0)
                depth--;
        } else if (c == '-' || is_digit(c)) {
            size_t s = i;
            while (i + 1 < n && is_num_char(p[i + 1]))
                i++;
            if (needs_literal(p + s, i + 1 - s) && !overflows_double(p + s, i + 1 - s)) {
                if (grow_array(&sc->lits, &sc->cap, sc->n + 1, 8, sizeof *sc->lits) < 0)
                    return -ENOMEM;
                sc->lits[sc->n++] = (struct lit){ nums, s, i + 1 - s };
            }
            nums++;
        }
    }
    return 0;
}

static bool is_literal(const json_t *j)
{
    return json_is_string(j) && json_string_length(j) > 0 && json_string_value(j)[0] == '\0';
}

struct patch {
    const struct scan *sc;
    const unsigned char *p;
    size_t next, num; /* next literal to place; number nodes seen */
};

/* Visit j in document order (objects keep their members in input order,
 * and hold no duplicates), counting number nodes; *repl is set to a
 * literal node when j is the next literal's number, else NULL. */
static int patch(json_t *j, struct patch *pt, json_t **repl)
{
    json_t *r;
    void *it;
    int rc = 0;

    *repl = NULL;
    if (pt->next >= pt->sc->n)
        return 0;
    switch (json_typeof(j)) {
    case JSON_INTEGER:
    case JSON_REAL:
        if (pt->num++ == pt->sc->lits[pt->next].num) {
            const struct lit *l = &pt->sc->lits[pt->next++];
            char *s = malloc(l->len + 1);
            if (!s)
                return -ENOMEM;
            s[0] = '\0';
            memcpy(s + 1, pt->p + l->off, l->len);
            *repl = json_stringn_nocheck(s, l->len + 1);
            free(s);
            return *repl ? 0 : -ENOMEM;
        }
        return 0;
    case JSON_ARRAY:
        for (size_t i = 0; i < json_array_size(j) && rc == 0; i++) {
            rc = patch(json_array_get(j, i), pt, &r);
            if (r && json_array_set_new(j, i, r) < 0)
                rc = -ENOMEM;
        }
        return rc;
    case JSON_OBJECT:
        for (it = json_object_iter(j); it && rc == 0; it = json_object_iter_next(j, it)) {
            rc = patch(json_object_iter_value(it), pt, &r);
            if (r && json_object_iter_set_new(j, it, r) < 0)
                rc = -ENOMEM;
        }
        return rc;
    default:
        return 0;
    }
}

int json_parse(const char *text, size_t len, json_val **out, char *err, size_t errlen)
{
    const unsigned char *p = (const unsigned char *)(text ? text : "");
    struct scan sc;
    json_error_t e;
    json_t *root = NULL, *r;
    char *copy = NULL;
    int rc;

    if (err && errlen)
        err[0] = '\0';
    if (!out)
        return -EINVAL;
    *out = NULL;
    if (!text)
        len = 0;
    rc = prescan(p, len, &sc);
    if (rc < 0) {
        rc = fail_at(p, len, 0, -ENOMEM, "out of memory", err, errlen);
    } else if (sc.blank) {
        rc = fail_at(p, len, len, -EINVAL, "empty document", err, errlen);
    } else if (sc.deep_at != SIZE_MAX) {
        /* An error before the deep bracket comes first; the prefix cannot
         * be a whole document, so jansson always fails on it. */
        root = json_loadb((const char *)p, sc.deep_at, LOAD_FLAGS, &e);
        if (!root && json_error_code(&e) != json_error_premature_end_of_input)
            rc = jansson_fail(&e, p, len, err, errlen);
        else
            rc = fail_at(p, len, sc.deep_at, -EINVAL, "nesting deeper than 64 levels", err, errlen);
        json_decref(root);
        root = NULL;
    } else {
        if (sc.n) {
            copy = malloc(len);
            if (!copy) {
                rc = fail_at(p, len, 0, -ENOMEM, "out of memory", err, errlen);
                goto out;
            }
            memcpy(copy, p, len);
            for (size_t k = 0; k < sc.n; k++) {
                copy[sc.lits[k].off] = '0';
                memset(copy + sc.lits[k].off + 1, ' ', sc.lits[k].len - 1);
            }
        }
        root = json_loadb(copy ? copy : (const char *)p, len, LOAD_FLAGS, &e);
        if (!root) {
            rc = jansson_fail(&e, p, len, err, errlen);
        } else if (sc.n) {
            struct patch pt = { &sc, p, 0, 0 };
            rc = patch(root, &pt, &r);
            if (r) {
                json_decref(root);
                root = r;
            }
            if (rc < 0) {
                json_decref(root);
                root = NULL;
                rc = fail_at(p, len, 0, -ENOMEM, "out of memory", err, errlen);
            }
        }
    }
out:
    free(copy);
    free(sc.lits);
    *out = V(root);
    return rc;
}

#define JSON_FILE_MAX ((size_t)1 << 30)

int json_parse_file(const char *path, json_val **out, char *err, size_t errlen)
{
    char *buf = NULL, msg[256];
    size_t len = 0, cap = 0, got;
    FILE *f;
    int rc = 0;

    if (!out)
        return -EINVAL;
    *out = NULL;
    f = fopen(path, "rb");
    if (!f)
        rc = errno > 0 ? -errno : -EIO;
    while (f && rc == 0) {
        if (len == cap) { /* grow to JSON_FILE_MAX + 1: EOF is seen without growing */
            size_t ncap = cap == 0 ? 65536 : cap * 2 > JSON_FILE_MAX ? JSON_FILE_MAX + 1 : cap * 2;
            char *nb = cap > JSON_FILE_MAX ? NULL : realloc(buf, ncap);
            if (!nb) {
                rc = cap > JSON_FILE_MAX ? -EFBIG : -ENOMEM;
                break;
            }
            buf = nb;
            cap = ncap;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0 && ferror(f))
            rc = -EIO;
        if (got == 0)
            break;
    }
    if (f)
        fclose(f);
    if (rc == 0) {
        rc = json_parse(buf, len, out, msg, sizeof msg);
        if (rc < 0 && err && errlen)
            snprintf(err, errlen, "%s: %s", path, msg);
    } else if (err && errlen) {
        snprintf(err, errlen, "%s: %s", path,
                 rc == -EFBIG ? "file larger than 1 GiB" : strerror(-rc));
    }
    free(buf);
    return rc;
}

void json_free(json_val *v) { json_decref(J(v)); }

/* ---- Accessors --------------------------------------------------------- */

json_type json_type_of(const json_val *v)
{
    switch (v ? json_typeof(J(v)) : JANSSON_NULL) {
    case JSON_OBJECT: return JSON_OBJ;
    case JSON_ARRAY: return JSON_ARR;
    case JSON_STRING: return is_literal(J(v)) ? JSON_NUM : JSON_STR;
    case JSON_INTEGER:
    case JSON_REAL: return JSON_NUM;
    case JSON_TRUE:
    case JSON_FALSE: return JSON_BOOL;
    default: return JSON_NULL;
    }
}

const json_val *json_get(const json_val *obj, const char *key)
{
    return key ? V(json_object_get(J(obj), key)) : NULL;
}

size_t json_len(const json_val *v)
{
    if (json_is_array(J(v)))
        return json_array_size(J(v));
    return json_is_object(J(v)) ? json_object_size(J(v)) : 0;
}

/* Member i of an object, in input order: linear in i. */
static void *member_at(const json_val *obj, size_t i)
{
    void *it = json_is_object(J(obj)) ? json_object_iter(J(obj)) : NULL;

    while (it && i-- > 0)
        it = json_object_iter_next(J(obj), it);
    return it;
}

const json_val *json_at(const json_val *v, size_t i)
{
    if (json_is_array(J(v)))
        return V(json_array_get(J(v), i));
    void *it = member_at(v, i);
    return it ? V(json_object_iter_value(it)) : NULL;
}

const char *json_key_at(const json_val *obj, size_t i)
{
    void *it = member_at(obj, i);

    return it ? json_object_iter_key(it) : NULL;
}

const char *json_str(const json_val *v)
{
    return json_is_string(J(v)) && !is_literal(J(v)) ? json_string_value(J(v)) : NULL;
}

double json_num(const json_val *v)
{
    if (is_literal(J(v)))
        return strtod(json_string_value(J(v)) + 1, NULL); /* digits only: locale-proof */
    return json_is_number(J(v)) ? json_number_value(J(v)) : NAN;
}

/* v as sign and magnitude, if it is an exact integer: an integer literal
 * up to UINT64_MAX, or a real whose double is integral and below 2^53 in
 * magnitude (so every integer that close to it is exact too). */
static bool int_parts(const json_val *v, bool *neg, uint64_t *mag)
{
    const json_t *j = J(v);

    if (json_is_integer(j)) {
        json_int_t i = json_integer_value(j);
        *neg = i < 0;
        *mag = i < 0 ? -(uint64_t)i : (uint64_t)i;
        return true;
    }
    if (json_is_real(j)) {
        double d = json_real_value(j);
        if (d != trunc(d) || fabs(d) >= 9007199254740992.0)
            return false;
        *neg = d < 0;
        *mag = (uint64_t)fabs(d);
        return true;
    }
    if (!is_literal(j))
        return false;
    const char *s = json_string_value(j) + 1;
    *neg = *s == '-';
    *mag = 0;
    for (s += *neg; *s; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (*mag > (UINT64_MAX - d) / 10)
            return false;
        *mag = *mag * 10 + d;
    }
    return true;
}

bool json_int64(const json_val *v, int64_t *out)
{
    bool neg;
    uint64_t mag;

    if (!int_parts(v, &neg, &mag) || mag > (uint64_t)INT64_MAX + neg)
        return false;
    *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    return true;
}

bool json_uint64(const json_val *v, uint64_t *out)
{
    bool neg;
    uint64_t mag;

    if (!int_parts(v, &neg, &mag) || (neg && mag != 0))
        return false;
    *out = mag;
    return true;
}

bool json_bool(const json_val *v) { return json_is_true(J(v)); }

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
        if (json_is_object(J(cur))) {
            next = V(json_object_getn(J(cur), s, len));
        } else if (json_is_array(J(cur))) {
            size_t idx = 0, k;
            for (k = 0; k < len && s[k] >= '0' && s[k] <= '9'; k++)
                idx = idx > (SIZE_MAX - 9) / 10 ? SIZE_MAX : idx * 10 + (size_t)(s[k] - '0');
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

/* ---- Writing a parsed value --------------------------------------------- */

/* Recursion is bounded: parsed trees are at most JSON_MAX_DEPTH deep. */
static void w_value(json_w *w, const json_t *j)
{
    const char *k;
    json_t *m;

    switch (j ? json_typeof(j) : JANSSON_NULL) {
    case JSON_TRUE: json_w_bool(w, true); break;
    case JSON_FALSE: json_w_bool(w, false); break;
    case JSON_INTEGER: json_w_int(w, json_integer_value(j)); break;
    case JSON_REAL: json_w_double(w, json_real_value(j)); break;
    case JSON_STRING:
        if (is_literal(j))
            json__w_raw(w, json_string_value(j) + 1);
        else
            json_w_strn(w, json_string_value(j), json_string_length(j));
        break;
    case JSON_ARRAY:
        json_w_arr_begin(w);
        for (size_t i = 0; i < json_array_size(j) && !w->err; i++)
            w_value(w, json_array_get(j, i));
        json_w_arr_end(w);
        break;
    case JSON_OBJECT:
        json_w_obj_begin(w);
        json_object_foreach(J(j), k, m) {
            if (w->err)
                break;
            json_w_key(w, k);
            w_value(w, m);
        }
        json_w_obj_end(w);
        break;
    default:
        json_w_null(w);
    }
}

void json_w_value(json_w *w, const json_val *v)
{
    w_value(w, J(v));
}

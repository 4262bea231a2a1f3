/*
 * test_json.c - the JSON writer and parser.
 *
 * Writer tests capture output with open_memstream and compare it byte for
 * byte. Parser tests cover every value type, exact integers, correctly
 * rounded doubles (including literals longer than the parser hands to
 * strtod), \u escapes, a table of malformed documents each with the exact
 * line and column the error must name, and writer -> parser round trips.
 */
#include "util/json.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

/* ---- helpers ----------------------------------------------------------- */

struct mem {
    char *buf;
    size_t len;
    FILE *f;
};

static void mem_open(struct mem *m)
{
    m->buf = NULL;
    m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
}

/* Finish the writer, close the stream; returns json_w_finish's result. */
static int mem_done(struct mem *m, json_w *w)
{
    int rc = json_w_finish(w);
    fclose(m->f);
    return rc;
}

/* Output of writing one string with json_w_strn (static buffer). */
static const char *w_strn(const char *s, size_t n)
{
    static char out[512];
    struct mem m;
    json_w w;

    mem_open(&m);
    json_w_init(&w, m.f, 0);
    json_w_strn(&w, s, n);
    if (mem_done(&m, &w) != 0)
        snprintf(out, sizeof out, "<error>");
    else
        snprintf(out, sizeof out, "%s", m.buf);
    free(m.buf);
    return out;
}

static const char *w_str(const char *s)
{
    return w_strn(s, strlen(s));
}

static const char *w_double(double v)
{
    static char out[64];
    struct mem m;
    json_w w;

    mem_open(&m);
    json_w_init(&w, m.f, 0);
    json_w_double(&w, v);
    if (mem_done(&m, &w) != 0)
        snprintf(out, sizeof out, "<error>");
    else
        snprintf(out, sizeof out, "%s", m.buf);
    free(m.buf);
    return out;
}

static int parse_s(const char *s, json_val **v)
{
    char err[256];
    return json_parse(s, strlen(s), v, err, sizeof err);
}

/* Parse a one-number document; returns NULL (and frees) on error. */
static json_val *num_doc(const char *s)
{
    json_val *v = NULL;
    if (parse_s(s, &v) != 0)
        return NULL;
    return v;
}

/* ---- writer ------------------------------------------------------------ */

static void write_small_doc(json_w *w)
{
    json_w_obj_begin(w);
    json_w_kstr(w, "name", "a\"b");
    json_w_kint(w, "n", -3);
    json_w_key(w, "list");
    json_w_arr_begin(w);
    json_w_int(w, 1);
    json_w_bool(w, true);
    json_w_null(w);
    json_w_obj_begin(w);
    json_w_obj_end(w);
    json_w_arr_begin(w);
    json_w_arr_end(w);
    json_w_arr_end(w);
    json_w_key(w, "o");
    json_w_obj_begin(w);
    json_w_kdouble(w, "x", 0.5);
    json_w_kuint(w, "u", UINT64_MAX);
    json_w_obj_end(w);
    json_w_kbool(w, "f", false);
    json_w_obj_end(w);
}

static void test_w_compact_exact(void)
{
    struct mem m;
    json_w w;

    mem_open(&m);
    json_w_init(&w, m.f, 0);
    write_small_doc(&w);
    CHECK_EQ_I64(mem_done(&m, &w), 0);
    CHECK_EQ_STR(m.buf, "{\"name\":\"a\\\"b\",\"n\":-3,\"list\":[1,true,null,{},[]],"
                        "\"o\":{\"x\":0.5,\"u\":18446744073709551615},\"f\":false}");
    free(m.buf);
}

static void test_w_pretty_exact(void)
{
    struct mem m;
    json_w w;

    mem_open(&m);
    json_w_init(&w, m.f, 2);
    write_small_doc(&w);
    CHECK_EQ_I64(mem_done(&m, &w), 0);
    CHECK_EQ_STR(m.buf, "{\n"
                        "  \"name\": \"a\\\"b\",\n"
                        "  \"n\": -3,\n"
                        "  \"list\": [\n"
                        "    1,\n"
                        "    true,\n"
                        "    null,\n"
                        "    {},\n"
                        "    []\n"
                        "  ],\n"
                        "  \"o\": {\n"
                        "    \"x\": 0.5,\n"
                        "    \"u\": 18446744073709551615\n"
                        "  },\n"
                        "  \"f\": false\n"
                        "}\n");
    free(m.buf);
}

static void test_w_nesting_commas(void)
{
    struct mem m;
    json_w w;

    mem_open(&m);
    json_w_init(&w, m.f, 0);
    json_w_arr_begin(&w);
    for (int i = 0; i < 3; i++) {
        json_w_arr_begin(&w);
        for (int j = 0; j < i; j++)
            json_w_int(&w, j);
        json_w_arr_end(&w);
        json_w_obj_begin(&w);
        for (int j = 0; j < i; j++) {
            char k[16];
            snprintf(k, sizeof k, "k%d", j);
            json_w_key(&w, k);
            json_w_arr_begin(&w);
            json_w_obj_begin(&w);
            json_w_obj_end(&w);
            json_w_arr_end(&w);
        }
        json_w_obj_end(&w);
    }
    json_w_str(&w, NULL); /* NULL string is null */
    json_w_arr_end(&w);
    CHECK_EQ_I64(mem_done(&m, &w), 0);
    CHECK_EQ_STR(m.buf, "[[],{},[0],{\"k0\":[{}]},[0,1],{\"k0\":[{}],\"k1\":[{}]},null]");
    free(m.buf);

    /* A scalar is a valid whole document, pretty ones end in '\n'. */
    mem_open(&m);
    json_w_init(&w, m.f, 4);
    json_w_int(&w, 7);
    CHECK_EQ_I64(mem_done(&m, &w), 0);
    CHECK_EQ_STR(m.buf, "7\n");
    free(m.buf);

    /* Indent 4, nested: exact layout. */
    mem_open(&m);
    json_w_init(&w, m.f, 4);
    json_w_arr_begin(&w);
    json_w_obj_begin(&w);
    json_w_kint(&w, "a", 1);
    json_w_obj_end(&w);
    json_w_arr_end(&w);
    CHECK_EQ_I64(mem_done(&m, &w), 0);
    CHECK_EQ_STR(m.buf, "[\n    {\n        \"a\": 1\n    }\n]\n");
    free(m.buf);
}

static void test_w_escape_controls(void)
{
    static const char hex[] = "0123456789abcdef";

    for (int c = 0; c < 0x20; c++) {
        char in[3] = { 'x', (char)c, 'y' }, want[16];
        const char *e;
        switch (c) {
        case '\b': e = "\\b"; break;
        case '\f': e = "\\f"; break;
        case '\n': e = "\\n"; break;
        case '\r': e = "\\r"; break;
        case '\t': e = "\\t"; break;
        default: e = NULL;
        }
        if (e)
            snprintf(want, sizeof want, "\"x%sy\"", e);
        else
            snprintf(want, sizeof want, "\"x\\u00%c%cy\"", hex[c >> 4], hex[c & 15]);
        CHECK_EQ_STR(w_strn(in, 3), want);
    }
    CHECK_EQ_STR(w_str("\"q\" \\b\\"), "\"\\\"q\\\" \\\\b\\\\\"");
    CHECK_EQ_STR(w_str("a/b\x7f"), "\"a/b\x7f\""); /* '/' and DEL need no escape */
    CHECK_EQ_STR(w_str(""), "\"\"");
    CHECK_EQ_STR(w_strn("a\0b", 3), "\"a\\u0000b\"");

    /* Keys are escaped the same way. */
    struct mem m;
    json_w w;
    mem_open(&m);
    json_w_init(&w, m.f, 0);
    json_w_obj_begin(&w);
    json_w_kstr(&w, "k\"\n\x01", "v");
    json_w_obj_end(&w);
    CHECK_EQ_I64(mem_done(&m, &w), 0);
    CHECK_EQ_STR(m.buf, "{\"k\\\"\\n\\u0001\":\"v\"}");
    free(m.buf);
}

static void test_w_utf8(void)
{
    /* Valid UTF-8, 1 to 4 bytes, including the range edges, passes through. */
    CHECK_EQ_STR(w_str("h\xC3\xA9llo \xE2\x82\xAC \xF0\x9D\x84\x9E"),
                 "\"h\xC3\xA9llo \xE2\x82\xAC \xF0\x9D\x84\x9E\"");
    CHECK_EQ_STR(w_str("\xC2\x80\xDF\xBF\xE0\xA0\x80\xED\x9F\xBF\xEE\x80\x80\xEF\xBF\xBF"
                       "\xF0\x90\x80\x80\xF4\x8F\xBF\xBF"),
                 "\"\xC2\x80\xDF\xBF\xE0\xA0\x80\xED\x9F\xBF\xEE\x80\x80\xEF\xBF\xBF"
                 "\xF0\x90\x80\x80\xF4\x8F\xBF\xBF\"");
}

#define FFFD "\xEF\xBF\xBD"

static void test_w_utf8_invalid(void)
{
    CHECK_EQ_STR(w_str("\x80"), "\"" FFFD "\"");                      /* stray continuation */
    CHECK_EQ_STR(w_str("a\xC3"), "\"a" FFFD "\"");                    /* truncated at end */
    CHECK_EQ_STR(w_str("\xE2\x82x"), "\"" FFFD "x\"");                /* truncated: one U+FFFD */
    CHECK_EQ_STR(w_str("\xC0\x80"), "\"" FFFD FFFD "\"");             /* overlong NUL */
    CHECK_EQ_STR(w_str("\xE0\x80\x80"), "\"" FFFD FFFD FFFD "\"");    /* overlong 3-byte */
    CHECK_EQ_STR(w_str("\xED\xA0\x80"), "\"" FFFD FFFD FFFD "\"");    /* surrogate D800 */
    CHECK_EQ_STR(w_str("\xF4\x90\x80\x80"), "\"" FFFD FFFD FFFD FFFD "\""); /* > U+10FFFF */
    CHECK_EQ_STR(w_str("\xF0\x9F\x98!"), "\"" FFFD "!\"");
    CHECK_EQ_STR(w_str("\xFF\xFE"), "\"" FFFD FFFD "\"");
    CHECK_EQ_STR(w_str("ok\xC3\xA9\xA9\""), "\"ok\xC3\xA9" FFFD "\\\"\"");
    /* The output always parses back. */
    json_val *v = NULL;
    const char *out = w_str("\xF5\x80 \xC3 \xE2\x82");
    CHECK_EQ_I64(parse_s(out, &v), 0);
    CHECK_EQ_STR(json_str(v), FFFD FFFD " " FFFD " " FFFD);
    json_free(v);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static void test_w_doubles(void)
{
    CHECK_EQ_STR(w_double(0.1), "0.1");
    CHECK_EQ_STR(w_double(1e300), "1e+300");
    CHECK_EQ_STR(w_double(-0.0), "-0");
    CHECK_EQ_STR(w_double(0.0), "0");
    CHECK_EQ_STR(w_double(123456789.123), "123456789.123");
    CHECK_EQ_STR(w_double(NAN), "null");
    CHECK_EQ_STR(w_double(INFINITY), "null");
    CHECK_EQ_STR(w_double(-INFINITY), "null");
    CHECK_EQ_STR(w_double(100.0), "100");
    CHECK_EQ_STR(w_double(-2.5), "-2.5");
    CHECK_EQ_STR(w_double(1.5e-7), "1.5e-07");
    CHECK_EQ_STR(w_double(5e-324), "5e-324");
    CHECK_EQ_STR(w_double(1.7976931348623157e308), "1.7976931348623157e+308");
    CHECK_EQ_STR(w_double(0.30000000000000004), "0.30000000000000004");
    CHECK_EQ_STR(w_double(9007199254740992.0), "9007199254740992");
    CHECK_EQ_STR(w_double(18446744073709549568.0), "18446744073709549568");
    CHECK_EQ_STR(w_double(18446744073709551616.0), "1.8446744073709552e+19");

    /* Random bit patterns: written form parses back to the same bits. */
    for (int i = 0; i < 20000; i++) {
        uint64_t bits = rng();
        double d, back;
        memcpy(&d, &bits, sizeof d);
        if (isnan(d) || isinf(d))
            continue;
        const char *s = w_double(d);
        json_val *v = NULL;
        CHECK_EQ_I64(parse_s(s, &v), 0);
        back = json_num(v);
        json_free(v);
        CHECK(memcmp(&back, &d, sizeof d) == 0);
        CHECK(strlen(s) <= 24);
    }
}

static void test_w_ints(void)
{
    struct mem m;
    json_w w;

    mem_open(&m);
    json_w_init(&w, m.f, 0);
    json_w_arr_begin(&w);
    json_w_int(&w, INT64_MIN);
    json_w_int(&w, INT64_MAX);
    json_w_uint(&w, UINT64_MAX);
    json_w_int(&w, 0);
    json_w_int(&w, -1);
    json_w_uint(&w, 0);
    json_w_arr_end(&w);
    CHECK_EQ_I64(mem_done(&m, &w), 0);
    CHECK_EQ_STR(m.buf, "[-9223372036854775808,9223372036854775807,18446744073709551615,0,-1,0]");
    free(m.buf);
}

/* Run a writer sequence, return json_w_finish's result and the output. */
typedef void (*wseq)(json_w *w);

static int run_seq(wseq fn, char *out, size_t cap)
{
    struct mem m;
    json_w w;
    int rc;

    mem_open(&m);
    json_w_init(&w, m.f, 0);
    fn(&w);
    rc = mem_done(&m, &w);
    snprintf(out, cap, "%s", m.buf ? m.buf : "");
    free(m.buf);
    return rc;
}

static void seq_nothing(json_w *w) { (void)w; }
static void seq_unclosed(json_w *w) { json_w_obj_begin(w); }
static void seq_extra_close(json_w *w) { json_w_arr_begin(w); json_w_arr_end(w); json_w_arr_end(w); }
static void seq_value_no_key(json_w *w) { json_w_obj_begin(w); json_w_int(w, 1); json_w_obj_end(w); }
static void seq_key_in_array(json_w *w) { json_w_arr_begin(w); json_w_key(w, "a"); json_w_int(w, 1); json_w_arr_end(w); }
static void seq_key_top(json_w *w) { json_w_key(w, "a"); }
static void seq_two_top(json_w *w) { json_w_int(w, 1); json_w_int(w, 2); }
static void seq_close_after_key(json_w *w) { json_w_obj_begin(w); json_w_key(w, "a"); json_w_obj_end(w); }
static void seq_two_keys(json_w *w) { json_w_obj_begin(w); json_w_key(w, "a"); json_w_key(w, "b"); json_w_int(w, 1); json_w_obj_end(w); }
static void seq_mismatch(json_w *w) { json_w_obj_begin(w); json_w_arr_end(w); }
static void seq_null_key(json_w *w) { json_w_obj_begin(w); json_w_key(w, NULL); json_w_int(w, 1); json_w_obj_end(w); }
static void seq_key_pending(json_w *w) { json_w_obj_begin(w); json_w_obj_end(w); json_w_key(w, "x"); }
static void seq_depth(json_w *w, int n)
{
    for (int i = 0; i < n; i++)
        json_w_arr_begin(w);
    for (int i = 0; i < n; i++)
        json_w_arr_end(w);
}
static void seq_depth64(json_w *w) { seq_depth(w, 64); }
static void seq_depth65(json_w *w) { seq_depth(w, 65); }
static void seq_ok(json_w *w) { json_w_obj_begin(w); json_w_kint(w, "a", 1); json_w_obj_end(w); }

static void test_w_misuse(void)
{
    static const struct { wseq fn; const char *name; } bad[] = {
        { seq_nothing, "nothing" },           { seq_unclosed, "unclosed" },
        { seq_extra_close, "extra close" },   { seq_value_no_key, "value without key" },
        { seq_key_in_array, "key in array" }, { seq_key_top, "key at top" },
        { seq_two_top, "two top values" },    { seq_close_after_key, "close after key" },
        { seq_two_keys, "two keys" },         { seq_mismatch, "mismatched close" },
        { seq_null_key, "NULL key" },         { seq_key_pending, "key after document" },
        { seq_depth65, "depth 65" },
    };
    char out[4096];

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = run_seq(bad[i].fn, out, sizeof out);
        if (rc != -EINVAL) {
            snprintf(unit_msg, sizeof unit_msg, "%s:%d: %s: rc %d, want -EINVAL", __FILE__,
                     __LINE__, bad[i].name, rc);
            unit_failed_now = 1;
            return;
        }
    }
    /* Nothing is written after the error: the output stops where it was. */
    CHECK_EQ_I64(run_seq(seq_value_no_key, out, sizeof out), -EINVAL);
    CHECK_EQ_STR(out, "{");
    CHECK_EQ_I64(run_seq(seq_two_top, out, sizeof out), -EINVAL);
    CHECK_EQ_STR(out, "1");
    CHECK_EQ_I64(run_seq(seq_ok, out, sizeof out), 0);
    CHECK_EQ_STR(out, "{\"a\":1}");
    CHECK_EQ_I64(run_seq(seq_depth64, out, sizeof out), 0);
    CHECK_EQ_I64(strlen(out), 128);
}

static void test_w_eio(void)
{
    FILE *f = fopen("/dev/full", "w");
    json_w w;

    if (!f)
        SKIP_TEST("this system has no /dev/full");
    setvbuf(f, NULL, _IONBF, 0);
    json_w_init(&w, f, 2);
    json_w_obj_begin(&w);
    json_w_kstr(&w, "a", "b");
    json_w_obj_end(&w);
    CHECK_EQ_I64(json_w_finish(&w), -EIO);
    fclose(f);

    /* Buffered: the error only shows at the flush in finish. */
    f = fopen("/dev/full", "w");
    CHECK(f != NULL);
    json_w_init(&w, f, 0);
    json_w_int(&w, 1);
    CHECK_EQ_I64(json_w_finish(&w), -EIO);
    fclose(f);
}

/* ---- parser ------------------------------------------------------------ */

static void test_p_types(void)
{
    json_val *v = NULL;
    int64_t i;
    uint64_t u;

    CHECK_EQ_I64(parse_s(" {\"n\":null,\"t\":true,\"f\":false,\"i\":-42,\"d\":2.5,"
                         "\"s\":\"x y\",\"a\":[],\"o\":{}} \r\n\t", &v), 0);
    CHECK_EQ_I64(json_type_of(v), JSON_OBJ);
    CHECK_EQ_I64(json_len(v), 8);
    CHECK_EQ_I64(json_type_of(json_get(v, "n")), JSON_NULL);
    CHECK(json_get(v, "n") != NULL);
    CHECK_EQ_I64(json_type_of(json_get(v, "t")), JSON_BOOL);
    CHECK(json_bool(json_get(v, "t")));
    CHECK_EQ_I64(json_type_of(json_get(v, "f")), JSON_BOOL);
    CHECK(!json_bool(json_get(v, "f")));
    CHECK_EQ_I64(json_type_of(json_get(v, "i")), JSON_NUM);
    CHECK(json_int64(json_get(v, "i"), &i));
    CHECK_EQ_I64(i, -42);
    CHECK(!json_uint64(json_get(v, "i"), &u));
    CHECK_NEAR(json_num(json_get(v, "i")), -42.0, 0);
    CHECK_NEAR(json_num(json_get(v, "d")), 2.5, 0);
    CHECK(!json_int64(json_get(v, "d"), &i));
    CHECK_EQ_I64(json_type_of(json_get(v, "s")), JSON_STR);
    CHECK_EQ_STR(json_str(json_get(v, "s")), "x y");
    CHECK_EQ_I64(json_type_of(json_get(v, "a")), JSON_ARR);
    CHECK_EQ_I64(json_len(json_get(v, "a")), 0);
    CHECK_EQ_I64(json_type_of(json_get(v, "o")), JSON_OBJ);
    CHECK_EQ_I64(json_len(json_get(v, "o")), 0);
    CHECK_EQ_STR(json_key_at(v, 0), "n");
    CHECK_EQ_STR(json_key_at(v, 7), "o");
    CHECK(json_key_at(v, 8) == NULL);
    CHECK(json_at(v, 4) == json_get(v, "d"));

    /* Wrong-type and NULL answers. */
    CHECK(json_get(v, "missing") == NULL);
    CHECK(json_str(json_get(v, "i")) == NULL);
    CHECK(isnan(json_num(json_get(v, "s"))));
    CHECK(json_get(json_get(v, "a"), "x") == NULL);
    CHECK(json_at(json_get(v, "a"), 0) == NULL);
    CHECK(json_key_at(json_get(v, "a"), 0) == NULL);
    CHECK(!json_bool(json_get(v, "n")));
    CHECK(!json_bool(json_get(v, "i")));
    CHECK_EQ_I64(json_len(json_get(v, "s")), 0);
    CHECK_EQ_I64(json_type_of(NULL), JSON_NULL);
    CHECK(json_get(NULL, "a") == NULL);
    CHECK(json_str(NULL) == NULL);
    CHECK(isnan(json_num(NULL)));
    CHECK(!json_int64(NULL, &i));
    CHECK(!json_uint64(json_get(v, "s"), &u));
    json_free(v);
    json_free(NULL);

    /* Scalars as whole documents. */
    const char *docs[] = { "null", "true", "false", "0", "\"\"", "[]", "{}", " 1 " };
    const json_type types[] = { JSON_NULL, JSON_BOOL, JSON_BOOL, JSON_NUM, JSON_STR,
                                JSON_ARR, JSON_OBJ, JSON_NUM };
    for (size_t k = 0; k < sizeof docs / sizeof docs[0]; k++) {
        CHECK_EQ_I64(parse_s(docs[k], &v), 0);
        CHECK_EQ_I64(json_type_of(v), types[k]);
        json_free(v);
    }
}

static void test_p_nested(void)
{
    json_val *v = NULL;
    int64_t i;

    CHECK_EQ_I64(parse_s("{\"latency\":{\"corrected\":{\"p99\":12.5,\"p50\":3},"
                         "\"raw\":{\"p99\":[1,2,{\"x\":[[],[7]]}]}},"
                         "\"runs\":[{\"rps\":100},{\"rps\":200}],"
                         "\"a.b\":1,\"\":{\"\":5}}", &v), 0);
    CHECK_NEAR(json_num(json_path(v, "latency.corrected.p99")), 12.5, 0);
    CHECK(json_int64(json_path(v, "latency.corrected.p50"), &i));
    CHECK_EQ_I64(i, 3);
    CHECK(json_int64(json_path(v, "runs.1.rps"), &i));
    CHECK_EQ_I64(i, 200);
    CHECK(json_int64(json_path(v, "latency.raw.p99.2.x.1.0"), &i));
    CHECK_EQ_I64(i, 7);
    CHECK(json_path(v, "runs.2.rps") == NULL);
    CHECK(json_path(v, "runs.x") == NULL);
    CHECK(json_path(v, "runs.12345678901234567890999") == NULL);
    CHECK(json_path(v, "latency.corrected.p999") == NULL);
    CHECK(json_path(v, "latency..p99") == NULL);
    CHECK(json_path(v, "latency.") == NULL);
    CHECK(json_path(v, ".latency") == NULL);
    CHECK(json_path(v, "latency.corrected.p99.x") == NULL);
    CHECK(json_path(v, "a.b") == NULL); /* dotted keys need json_get */
    CHECK(json_get(v, "a.b") != NULL);
    CHECK(json_path(v, "") == v);
    CHECK(json_path(v, "lat") == NULL); /* prefix of a key is not the key */
    CHECK(json_path(NULL, "a") == NULL);
    CHECK(json_get(json_get(v, ""), "") != NULL);
    CHECK_EQ_I64(json_len(json_path(v, "latency.raw.p99")), 3);
    CHECK_EQ_I64(json_type_of(json_path(v, "latency.raw.p99.2.x.0")), JSON_ARR);
    json_free(v);

    /* Duplicate keys are an error (jansson keeps one value per key), named
     * at the second occurrence; the same key in different objects is fine. */
    char err[128];
    const char *dup = "{\"a\":1,\"b\":0,\"a\":2}";
    v = (json_val *)err;
    CHECK_EQ_I64(json_parse(dup, strlen(dup), &v, err, sizeof err), -EINVAL);
    CHECK(v == NULL);
    CHECK_EQ_STR(err, "line 1, column 14: duplicate object key near '\"a\"'");
    CHECK_EQ_I64(parse_s("{\"a\":{\"a\":1},\"b\":[{\"a\":2},{\"a\":3}]}", &v), 0);
    CHECK(json_int64(json_path(v, "b.1.a"), &i));
    CHECK_EQ_I64(i, 3);
    json_free(v);

    /* Members keep the input order (jansson's objects are hash tables). */
    CHECK_EQ_I64(parse_s("{\"z\":0,\"m\":1,\"a\":2,\"q\":3}", &v), 0);
    CHECK_EQ_STR(json_key_at(v, 0), "z");
    CHECK_EQ_STR(json_key_at(v, 2), "a");
    CHECK(json_int64(json_at(v, 3), &i));
    CHECK_EQ_I64(i, 3);
    json_free(v);
}

static void test_p_depth(void)
{
    char buf[1024];
    json_val *v = NULL;
    char err[128];
    size_t n = 0;

    /* 64 nested arrays: fine. */
    for (int k = 0; k < 64; k++)
        buf[n++] = '[';
    for (int k = 0; k < 64; k++)
        buf[n++] = ']';
    CHECK_EQ_I64(json_parse(buf, n, &v, err, sizeof err), 0);
    const json_val *c = v;
    for (int k = 0; k < 63; k++)
        c = json_at(c, 0);
    CHECK_EQ_I64(json_type_of(c), JSON_ARR);
    CHECK_EQ_I64(json_len(c), 0);
    json_free(v);

    /* 64 nested objects: fine; 65: error at the 65th '{'. */
    n = 0;
    for (int k = 0; k < 64; k++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "{\"a\":");
    n += (size_t)snprintf(buf + n, sizeof buf - n, "1");
    for (int k = 0; k < 64; k++)
        buf[n++] = '}';
    CHECK_EQ_I64(json_parse(buf, n, &v, err, sizeof err), 0);
    json_free(v);
    n = 0;
    for (int k = 0; k < 65; k++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "{\"a\":");
    n += (size_t)snprintf(buf + n, sizeof buf - n, "1");
    for (int k = 0; k < 65; k++)
        buf[n++] = '}';
    CHECK_EQ_I64(json_parse(buf, n, &v, err, sizeof err), -EINVAL);
    CHECK(v == NULL);
    CHECK(strstr(err, "line 1, column 321: nesting") == err);

    /* Very deep input fails fast, without recursion. */
    size_t big = 10u << 20;
    char *deep = malloc(big);
    CHECK(deep != NULL);
    memset(deep, '[', big);
    CHECK_EQ_I64(json_parse(deep, big, &v, err, sizeof err), -EINVAL);
    free(deep);
    CHECK(strstr(err, "line 1, column 65: ") == err);
}

static void test_p_big_array(void)
{
    const size_t count = 200000;
    size_t cap = count * 24 + 16, n = 0;
    char *buf = malloc(cap);
    json_val *v = NULL;
    char err[128];
    int64_t i;

    CHECK(buf != NULL);
    buf[n++] = '[';
    for (size_t k = 0; k < count; k++)
        n += (size_t)snprintf(buf + n, cap - n, k % 3 == 2 ? "%zu.5," : "%zu,", k);
    buf[n - 1] = ']';
    CHECK_EQ_I64(json_parse(buf, n, &v, err, sizeof err), 0);
    free(buf);
    CHECK_EQ_I64(json_len(v), count);
    for (size_t k = 0; k < count; k++) {
        const json_val *e = json_at(v, k);
        if (k % 3 == 2) {
            CHECK(!json_int64(e, &i));
            CHECK_NEAR(json_num(e), (double)k + 0.5, 0);
        } else {
            CHECK(json_int64(e, &i));
            CHECK_EQ_I64(i, (int64_t)k);
        }
    }
    json_free(v);

    /* 100k objects inside an array, each with a nested array. */
    cap = 100000 * 40 + 16;
    buf = malloc(cap);
    CHECK(buf != NULL);
    n = 0;
    buf[n++] = '[';
    for (size_t k = 0; k < 100000; k++)
        n += (size_t)snprintf(buf + n, cap - n, "{\"k\":%zu,\"a\":[%zu]},", k, k * 2);
    buf[n - 1] = ']';
    CHECK_EQ_I64(json_parse(buf, n, &v, err, sizeof err), 0);
    free(buf);
    CHECK_EQ_I64(json_len(v), 100000);
    CHECK(json_int64(json_path(v, "99999.a.0"), &i));
    CHECK_EQ_I64(i, 199998);
    json_free(v);
}

static void test_p_int_exact(void)
{
    static const struct {
        const char *s;
        bool i_ok;
        int64_t i;
        bool u_ok;
        uint64_t u;
    } cases[] = {
        { "9223372036854775807", true, INT64_MAX, true, 9223372036854775807u },
        { "-9223372036854775808", true, INT64_MIN, false, 0 },
        { "18446744073709551615", false, 0, true, UINT64_MAX },
        { "9007199254740993", true, 9007199254740993, true, 9007199254740993u },
        { "18446744073709551616", false, 0, false, 0 },
        { "-9223372036854775809", false, 0, false, 0 },
        { "1e3", true, 1000, true, 1000 },
        { "2.0", true, 2, true, 2 },
        { "-7.000e0", true, -7, false, 0 },
        { "123.4560e3", true, 123456, true, 123456 },
        /* A literal with '.' or an exponent is a double: exact when that is
         * integral and below 2^53, which this one (2^64 after rounding) is not. */
        { "1.8446744073709551615e19", false, 0, false, 0 },
        { "9007199254740991.0", true, 9007199254740991, true, 9007199254740991u },
        { "9007199254740992.0", false, 0, false, 0 },
        { "1E2", true, 100, true, 100 },
        { "5e-0", true, 5, true, 5 },
        { "1500e-2", true, 15, true, 15 },
        { "1.5", false, 0, false, 0 },
        { "1e20", false, 0, false, 0 },
        { "1e-5", false, 0, false, 0 },
        { "1e12345678901234567890999", false, 0, false, 0 },
        { "0", true, 0, true, 0 },
        { "-0", true, 0, true, 0 },
        { "0.000e-99999999999999", true, 0, true, 0 },
        { "00000", false, 0, false, 0 }, /* not even valid */
    };

    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        json_val *v = NULL;
        int64_t i = 12345;
        uint64_t u = 12345;
        int rc = parse_s(cases[k].s, &v);
        if (strcmp(cases[k].s, "00000") == 0) {
            CHECK_EQ_I64(rc, -EINVAL);
            continue;
        }
        if (strcmp(cases[k].s, "1e12345678901234567890999") == 0) {
            CHECK_EQ_I64(rc, -EINVAL); /* out of range for a double */
            continue;
        }
        if (rc != 0 || json_int64(v, &i) != cases[k].i_ok || json_uint64(v, &u) != cases[k].u_ok ||
            (cases[k].i_ok && i != cases[k].i) || (cases[k].u_ok && u != cases[k].u)) {
            snprintf(unit_msg, sizeof unit_msg, "%s:%d: %s: rc %d i %lld u %llu", __FILE__,
                     __LINE__, cases[k].s, rc, (long long)i, (unsigned long long)u);
            unit_failed_now = 1;
            json_free(v);
            return;
        }
        json_free(v);
    }

    /* The double is still correctly rounded. */
    json_val *v = num_doc("9007199254740993");
    CHECK(v != NULL);
    CHECK(json_num(v) == 9007199254740992.0);
    json_free(v);
    v = num_doc("-0");
    CHECK(v != NULL);
    CHECK(json_num(v) == 0 && signbit(json_num(v)));
    json_free(v);
}

static char *repeat_doc(const char *pre, char ch, size_t count, const char *post);

/* Integer literals a long long cannot hold ("-0", beyond int64) are kept
 * exactly, wherever they sit: the numbers around them must still be the
 * right ones, and error positions after them must not move. */
static void test_p_big_literals(void)
{
    static const char doc[] =
        "{\"a\":[1,18446744073709551615,2.5,-9223372036854775809,{\"b\":9223372036854775808}],"
        "\"s\":[\"18446744073709551615\",\"q\\\"\",\"\\\\\",12345678901234567890],"
        "\"c\":-0,\"d\":3,\"e\":18446744073709551616}";
    json_val *v = NULL;
    int64_t i;
    uint64_t u;
    char err[128];

    CHECK_EQ_I64(parse_s(doc, &v), 0);
    CHECK(json_int64(json_path(v, "a.0"), &i) && i == 1);
    CHECK_EQ_I64(json_type_of(json_path(v, "a.1")), JSON_NUM);
    CHECK(json_str(json_path(v, "a.1")) == NULL);
    CHECK(json_uint64(json_path(v, "a.1"), &u) && u == UINT64_MAX);
    CHECK(!json_int64(json_path(v, "a.1"), &i));
    CHECK(json_num(json_path(v, "a.1")) == 18446744073709551615.0);
    CHECK(json_num(json_path(v, "a.2")) == 2.5);
    CHECK(!json_int64(json_path(v, "a.3"), &i) && !json_uint64(json_path(v, "a.3"), &u));
    CHECK(json_num(json_path(v, "a.3")) == -9223372036854775809.0);
    CHECK(json_uint64(json_path(v, "a.4.b"), &u) && u == 9223372036854775808u);
    CHECK(!json_int64(json_path(v, "a.4.b"), &i));
    /* A string of digits stays a string; escaped quotes and backslashes
     * do not hide the number after them. */
    CHECK_EQ_STR(json_str(json_path(v, "s.0")), "18446744073709551615");
    CHECK_EQ_STR(json_str(json_path(v, "s.1")), "q\"");
    CHECK(json_uint64(json_path(v, "s.3"), &u) && u == 12345678901234567890u);
    CHECK(json_int64(json_get(v, "c"), &i) && i == 0);
    CHECK(json_uint64(json_get(v, "c"), &u) && u == 0);
    CHECK(signbit(json_num(json_get(v, "c"))));
    CHECK(json_int64(json_get(v, "d"), &i) && i == 3);
    CHECK(!json_uint64(json_get(v, "e"), &u)); /* above UINT64_MAX: a double */
    CHECK(json_num(json_get(v, "e")) == 18446744073709551616.0);

    /* Written back exactly, even the one no C integer type holds. */
    struct mem m;
    json_w w;
    mem_open(&m);
    json_w_init(&w, m.f, 0);
    json_w_value(&w, v);
    CHECK_EQ_I64(mem_done(&m, &w), 0);
    CHECK_EQ_STR(m.buf,
        "{\"a\":[1,18446744073709551615,2.5,-9223372036854775809,{\"b\":9223372036854775808}],"
        "\"s\":[\"18446744073709551615\",\"q\\\"\",\"\\\\\",12345678901234567890],"
        "\"c\":-0,\"d\":3,\"e\":18446744073709551616}");
    free(m.buf);
    json_free(v);

    /* A whole document that is one. */
    CHECK_EQ_I64(parse_s(" 18446744073709551614 ", &v), 0);
    CHECK(json_uint64(v, &u) && u == UINT64_MAX - 1);
    json_free(v);

    /* Errors after one keep their columns; a malformed one still fails. */
    CHECK_EQ_I64(json_parse("[18446744073709551615, x]", 25, &v, err, sizeof err), -EINVAL);
    CHECK(strstr(err, "line 1, column 24: invalid token") == err);
    CHECK_EQ_I64(json_parse("[018446744073709551615]", 23, &v, err, sizeof err), -EINVAL);
    CHECK_EQ_I64(json_parse("[18446744073709551615,]", 23, &v, err, sizeof err), -EINVAL);
    CHECK(strstr(err, "line 1, column 23: ") == err);
    CHECK_EQ_I64(json_parse("[1844674407370955161500e]", 25, &v, err, sizeof err), -EINVAL);
    CHECK(v == NULL);

    /* As for any number, a double must hold it: 1e308 is fine, 1e309 not. */
    char *big = repeat_doc("[-1", '0', 308, "]");
    CHECK(big != NULL);
    CHECK_EQ_I64(parse_s(big, &v), 0);
    CHECK(json_num(json_at(v, 0)) == -1e308);
    json_free(v);
    free(big);
    big = repeat_doc("[-1", '0', 309, "]");
    CHECK(big != NULL);
    CHECK_EQ_I64(json_parse(big, strlen(big), &v, err, sizeof err), -EINVAL);
    CHECK(strstr(err, "line 1, column ") == err && strstr(err, ": too big negative integer"));
    free(big);
}

/* Messages stay one printable line; a nesting error is not reported when
 * an earlier error comes first. */
static void test_p_error_lines(void)
{
    static const char *const docs[] = {
        "[\"a\", nul\x7f]", "\xF0\x9F\x98\x80", "{\"\xC3\xA9\": tr\x01ue}", "[\"\xC3\x28\"]",
    };
    char err[256], deep[200];
    json_val *v = NULL;

    for (size_t k = 0; k < sizeof docs / sizeof docs[0]; k++) {
        CHECK_EQ_I64(json_parse(docs[k], strlen(docs[k]), &v, err, sizeof err), -EINVAL);
        CHECK(strncmp(err, "line 1, column ", 15) == 0);
        for (const char *c = err; *c; c++)
            CHECK(*c >= 0x20 && *c < 0x7f);
    }
    CHECK_EQ_I64(json_parse(docs[1], strlen(docs[1]), &v, err, sizeof err), -EINVAL);
    CHECK_EQ_STR(err, "line 1, column 1: invalid token near '\\xf0\\x9f\\x98\\x80'");

    size_t n = (size_t)snprintf(deep, sizeof deep, "[1 2");
    memset(deep + n, '[', 100);
    n += 100;
    CHECK_EQ_I64(json_parse(deep, n, &v, err, sizeof err), -EINVAL);
    CHECK_EQ_STR(err, "line 1, column 4: ']' expected near '2'");
    memcpy(deep, "[1, ", 4);
    CHECK_EQ_I64(json_parse(deep, n, &v, err, sizeof err), -EINVAL);
    CHECK_EQ_STR(err, "line 1, column 68: nesting deeper than 64 levels");
}

static char *repeat_doc(const char *pre, char ch, size_t count, const char *post)
{
    size_t a = strlen(pre), b = strlen(post);
    char *s = malloc(a + count + b + 1);
    if (!s)
        return NULL;
    memcpy(s, pre, a);
    memset(s + a, ch, count);
    memcpy(s + a + count, post, b + 1);
    return s;
}

static void test_p_doubles(void)
{
    static const struct { const char *s; double d; } cases[] = {
        { "0.1", 0.1 },
        { "1e300", 1e300 },
        { "-1.5e-7", -1.5e-7 },
        { "5e-324", 5e-324 },
        { "2.2250738585072011e-308", 2.2250738585072011e-308 },
        { "1.7976931348623157e308", 1.7976931348623157e308 },
        { "123456789.123", 123456789.123 },
        { "1E+2", 100.0 },
        { "0.5e1", 5.0 },
        { "1e-400", 0.0 },
        { "-0.0", -0.0 },
        { "3.141592653589793238462643383279", 3.141592653589793 },
    };
    json_val *v;

    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        v = num_doc(cases[k].s);
        CHECK(v != NULL);
        double d = json_num(v);
        json_free(v);
        CHECK(memcmp(&d, &cases[k].d, sizeof d) == 0);
    }

    /* Out of double range: rejected. */
    CHECK_EQ_I64(parse_s("1e400", &v), -EINVAL);
    CHECK_EQ_I64(parse_s("-1.8e308", &v), -EINVAL);
    CHECK_EQ_I64(parse_s("[1e309]", &v), -EINVAL);

    /* Literals longer than the digits handed to strtod still round right:
     * 2^53 + 1 is halfway between two doubles and rounds to even (down),
     * but anything above it, however far out, rounds up. */
    char *s = repeat_doc("9007199254740993.", '0', 2000, "");
    CHECK(s != NULL);
    v = num_doc(s);
    free(s);
    CHECK(v != NULL);
    CHECK(json_num(v) == 9007199254740992.0);
    json_free(v);
    s = repeat_doc("9007199254740993.", '0', 2000, "1");
    CHECK(s != NULL);
    v = num_doc(s);
    free(s);
    CHECK(v != NULL);
    CHECK(json_num(v) == 9007199254740994.0);
    json_free(v);
    s = repeat_doc("0.", '0', 5000, "1e5010"); /* 1e-5001 * 1e5010 = 1e9 */
    CHECK(s != NULL);
    v = num_doc(s);
    free(s);
    CHECK(v != NULL);
    CHECK(json_num(v) == 1e9);
    int64_t i;
    CHECK(json_int64(v, &i));
    CHECK_EQ_I64(i, 1000000000);
    json_free(v);
    s = repeat_doc("1", '1', 100000, "e-100001"); /* 0.111... */
    CHECK(s != NULL);
    v = num_doc(s);
    free(s);
    CHECK(v != NULL);
    CHECK(json_num(v) == 1.0 / 9.0);
    json_free(v);
}

static void test_p_strings(void)
{
    static const struct { const char *in, *out; } cases[] = {
        { "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\b\f\n\r\t" },
        { "\"\\u0041\\u00e9\\u00E9\"", "A\xC3\xA9\xC3\xA9" },
        { "\"\\u20AC\\u20ac\"", "\xE2\x82\xAC\xE2\x82\xAC" },
        { "\"\\u07ff\\u0800\\uffff\"", "\xDF\xBF\xE0\xA0\x80\xEF\xBF\xBF" },
        { "\"\\uD834\\uDD1E\"", "\xF0\x9D\x84\x9E" },
        { "\"\\ud83d\\ude00!\"", "\xF0\x9F\x98\x80!" },
        { "\"\\uDBFF\\uDFFF\"", "\xF4\x8F\xBF\xBF" },
        { "\"\\uD800\\uDC00\"", "\xF0\x90\x80\x80" },
        { "\"\\u0001\\u001f\"", "\x01\x1f" },
        { "\"h\xC3\xA9llo \xF0\x9D\x84\x9E\x7f\"", "h\xC3\xA9llo \xF0\x9D\x84\x9E\x7f" },
        { "\"\"", "" },
    };

    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        json_val *v = NULL;
        CHECK_EQ_I64(parse_s(cases[k].in, &v), 0);
        CHECK_EQ_STR(json_str(v), cases[k].out);
        json_free(v);
    }

    /* Keys are decoded the same way. */
    json_val *v = NULL;
    CHECK_EQ_I64(parse_s("{\"a\\nb\\u00e9\":1}", &v), 0);
    CHECK_EQ_STR(json_key_at(v, 0), "a\nb\xC3\xA9");
    CHECK(json_get(v, "a\nb\xC3\xA9") != NULL);
    json_free(v);

    /* A 1 MiB string full of escapes. */
    size_t n = 1 << 20;
    char *s = malloc(n * 2 + 3);
    CHECK(s != NULL);
    s[0] = '"';
    for (size_t k = 0; k < n; k++)
        memcpy(s + 1 + 2 * k, "\\n", 2);
    s[2 * n + 1] = '"';
    CHECK_EQ_I64(json_parse(s, 2 * n + 2, &v, NULL, 0), 0);
    free(s);
    CHECK_EQ_I64(strlen(json_str(v)), n);
    json_free(v);
}

struct bad_case {
    const char *in;
    size_t len;     /* 0: strlen(in) */
    const char *at; /* expected message prefix "line L, column C" */
    const char *msg; /* substring the message must contain, or NULL */
};

static void test_p_malformed(void)
{
    static const struct bad_case cases[] = {
        { "", 0, "line 1, column 1", "empty" },
        { " \n  ", 0, "line 2, column 3", "empty" },
        { "\"abc", 0, "line 1, column 5", "premature end of input" },
        { "\"\\", 0, "line 1, column 1", "invalid escape" },
        { "[\"a", 0, "line 1, column 4", "premature end of input" },
        { "\"a\\x\"", 0, "line 1, column 1", "invalid escape" },
        { "\"a\\'\"", 0, "line 1, column 1", "invalid escape" },
        { "[1,2,]", 0, "line 1, column 6", "unexpected token" },
        { "{\"a\":1,}", 0, "line 1, column 8", "string or '}' expected" },
        { "[,]", 0, "line 1, column 2", NULL },
        { "{,}", 0, "line 1, column 2", NULL },
        { "01", 0, "line 1, column 1", "invalid token" },
        { "-01", 0, "line 1, column 1", "invalid token" },
        { "[00]", 0, "line 1, column 2", "invalid token" },
        { "\"\\uD800\"", 0, "line 1, column 1", "invalid Unicode '\\uD800'" },
        { "\"\\uDC00\"", 0, "line 1, column 1", "invalid Unicode '\\uDC00'" },
        { "\"\\uD800\\u0041\"", 0, "line 1, column 1", "invalid Unicode '\\uD800\\u0041'" },
        { "\"\\uD800\\uD800\"", 0, "line 1, column 1", "invalid Unicode '\\uD800\\uD800'" },
        { "\"\\uD800x\"", 0, "line 1, column 1", "invalid Unicode '\\uD800'" },
        { "\"ab\\uDFFF\"", 0, "line 1, column 1", "invalid Unicode '\\uDFFF'" },
        { "\"\\u12\"", 0, "line 1, column 1", "invalid escape" },
        { "\"\\u12G4\"", 0, "line 1, column 1", "invalid escape" },
        { "\"\\u\"", 0, "line 1, column 1", "invalid escape" },
        { "\"\\u0000\"", 0, "line 1, column 1", "\\u0000 is not allowed" },
        { "\"a\x01" "b\"", 0, "line 1, column 3", "control character" },
        { "\"a\nb\"", 0, "line 1, column 3", "unexpected newline" },
        { "\"a\tb\"", 0, "line 1, column 3", "control character" },
        { "\"a\0b\"", 5, "line 1, column 3", "control character" },
        { "\"\xC3\"", 0, "line 1, column 2", "unable to decode byte 0xc3" },
        { "\"\xFF\"", 0, "line 1, column 2", "unable to decode byte 0xff" },
        { "\"\xC0\x80\"", 0, "line 1, column 2", "unable to decode byte 0xc0" },
        { "\"\xED\xA0\x80\"", 0, "line 1, column 2", "unable to decode byte 0xed" },
        { "\"\xF4\x90\x80\x80\"", 0, "line 1, column 2", "unable to decode byte 0xf4" },
        { "\"ok\xE2\x82\"", 0, "line 1, column 4", "unable to decode byte 0xe2" },
        { "\xC3\xA9", 0, "line 1, column 1", "invalid token" },
        { "\xEF\xBB\xBF{}", 0, "line 1, column 1", NULL },
        { "\xC2\xA0" "1", 0, "line 1, column 1", NULL },
        { "1 2", 0, "line 1, column 3", "end of file expected" },
        { "{} x", 0, "line 1, column 4", "end of file expected" },
        { "[]]", 0, "line 1, column 3", NULL },
        { "{\"a\":1}}", 0, "line 1, column 8", NULL },
        { "[1]\0", 4, "line 1, column 4", "end of file expected" },
        { "\0", 1, "line 1, column 2", "invalid token" },
        { "nullx", 0, "line 1, column 1", "invalid token" },
        { "tru", 0, "line 1, column 1", "invalid token" },
        { "nul", 0, "line 1, column 1", "invalid token" },
        { "fals", 0, "line 1, column 1", "invalid token" },
        { "True", 0, "line 1, column 1", "invalid token" },
        { "NaN", 0, "line 1, column 1", NULL },
        { "Infinity", 0, "line 1, column 1", NULL },
        { "-Infinity", 0, "line 1, column 1", "invalid token" },
        { "+1", 0, "line 1, column 1", NULL },
        { ".5", 0, "line 1, column 1", NULL },
        { "1.", 0, "line 1, column 1", "invalid token" },
        { "-0.e1", 0, "line 1, column 1", "invalid token" },
        { "1e", 0, "line 1, column 1", "invalid token" },
        { "1e+", 0, "line 1, column 1", "invalid token" },
        { "1.5e", 0, "line 1, column 1", "invalid token" },
        { "-", 0, "line 1, column 1", "invalid token" },
        { "0x10", 0, "line 1, column 2", NULL },
        { "1e400", 0, "line 1, column 1", "real number overflow" },
        { "[1 2]", 0, "line 1, column 4", "']' expected" },
        { "[1}", 0, "line 1, column 3", "']' expected" },
        { "{\"a\":1]", 0, "line 1, column 7", "'}' expected" },
        { "{\"a\" 1}", 0, "line 1, column 6", "':' expected" },
        { "{\"a\":}", 0, "line 1, column 6", "unexpected token" },
        { "{a:1}", 0, "line 1, column 2", "string or '}' expected" },
        { "{1:1}", 0, "line 1, column 2", "string or '}' expected" },
        { "{\"a\":1 \"b\":2}", 0, "line 1, column 8", NULL },
        { "[\"a\":1]", 0, "line 1, column 5", NULL },
        { "[", 0, "line 1, column 2", "']' expected near end of file" },
        { "{", 0, "line 1, column 2", "string or '}' expected near end of file" },
        { "{\"a\"", 0, "line 1, column 5", "':' expected near end of file" },
        { "{\"a\":", 0, "line 1, column 6", "unexpected token near end of file" },
        { "[1", 0, "line 1, column 3", "']' expected near end of file" },
        { "[1,", 0, "line 1, column 4", "']' expected near end of file" },
        { "// c\n1", 0, "line 1, column 1", NULL },
        { "/* */1", 0, "line 1, column 1", NULL },
        { "1 // c", 0, "line 1, column 3", NULL },
        { "'a'", 0, "line 1, column 1", NULL },
        { "[1,\n 2,\n x]", 0, "line 3, column 2", NULL },
        { "{\n  \"a\": 1,\n  \"b\" 2\n}", 0, "line 3, column 7", "':' expected" },
        { "\t\r\n 1 \f", 0, "line 2, column 4", NULL },
        { "\n\n\"abc\ndef\"", 0, "line 3, column 5", "unexpected newline" },
    };
    char err[160];

    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct bad_case *c = &cases[k];
        json_val *v = (json_val *)&err; /* must be reset to NULL */
        size_t len = c->len ? c->len : strlen(c->in);
        int rc = json_parse(c->in, len, &v, err, sizeof err);
        bool ok = rc == -EINVAL && v == NULL && strncmp(err, c->at, strlen(c->at)) == 0 &&
                  err[strlen(c->at)] == ':' && (!c->msg || strstr(err, c->msg));
        if (!ok) {
            snprintf(unit_msg, sizeof unit_msg, "%s:%d: case %zu: rc %d, err \"%s\", want \"%s: ...%s\"",
                     __FILE__, __LINE__, k, rc, err, c->at, c->msg ? c->msg : "");
            unit_failed_now = 1;
            return;
        }
        /* No err buffer, and a tiny one: same result, no overflow. */
        CHECK_EQ_I64(json_parse(c->in, len, &v, NULL, 0), -EINVAL);
        char tiny[5] = "XXXX";
        CHECK_EQ_I64(json_parse(c->in, len, &v, tiny, 3), -EINVAL);
        CHECK_EQ_STR(tiny, "li");
    }
    /* Degenerate arguments. */
    json_val *v;
    CHECK_EQ_I64(json_parse(NULL, 0, &v, err, sizeof err), -EINVAL);
    CHECK(strstr(err, "empty") != NULL);
    CHECK_EQ_I64(json_parse("1", 1, NULL, err, sizeof err), -EINVAL);
    /* The length bounds the input: nothing past it is read. */
    CHECK_EQ_I64(json_parse("[1]junk", 3, &v, err, sizeof err), 0);
    json_free(v);
    CHECK_EQ_I64(json_parse("123", 2, &v, err, sizeof err), 0);
    int64_t i;
    CHECK(json_int64(v, &i));
    CHECK_EQ_I64(i, 12);
    json_free(v);
}

static void test_parse_file(void)
{
    const char *tmp = getenv("TMPDIR");
    char path[512], err[512];
    json_val *v = NULL;
    int fd;
    FILE *f;

    snprintf(path, sizeof path, "%s/pacer-json-test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    fd = mkstemp(path);
    CHECK(fd >= 0);
    f = fdopen(fd, "w");
    CHECK(f != NULL);
    fputs("{\"a\": [1, 2, {\"b\": 18446744073709551615}]}\n", f);
    fclose(f);
    CHECK_EQ_I64(json_parse_file(path, &v, err, sizeof err), 0);
    uint64_t u;
    CHECK(json_uint64(json_path(v, "a.2.b"), &u));
    CHECK(u == UINT64_MAX);
    json_free(v);

    f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("{\n\"a\": [1, 2,]}\n", f);
    fclose(f);
    CHECK_EQ_I64(json_parse_file(path, &v, err, sizeof err), -EINVAL);
    CHECK(v == NULL);
    CHECK(strncmp(err, path, strlen(path)) == 0);
    CHECK(strstr(err, ": line 2, column 12: ") != NULL);

    f = fopen(path, "w");
    CHECK(f != NULL);
    fclose(f);
    CHECK_EQ_I64(json_parse_file(path, &v, err, sizeof err), -EINVAL);
    CHECK(strstr(err, "empty") != NULL);
    unlink(path);

    CHECK_EQ_I64(json_parse_file(path, &v, err, sizeof err), -ENOENT);
    CHECK(v == NULL);
    CHECK(strncmp(err, path, strlen(path)) == 0);
    CHECK(json_parse_file("/", &v, err, sizeof err) < 0); /* a directory */
    CHECK(v == NULL);

    /* A non-seekable file (pipe-like) is read too. */
    if (access("/proc/self/status", R_OK) == 0) {
        CHECK_EQ_I64(json_parse_file("/proc/self/status", &v, err, sizeof err), -EINVAL);
        CHECK(strstr(err, "line 1, column 1: ") != NULL);
    }
}

/* ---- round trips ------------------------------------------------------- */

static void b64(const unsigned char *in, size_t n, char *out)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t k = 0; k < n; k += 3) {
        uint32_t x = (uint32_t)in[k] << 16 | (k + 1 < n ? (uint32_t)in[k + 1] << 8 : 0) |
                     (k + 2 < n ? in[k + 2] : 0);
        out[o++] = tab[x >> 18 & 63];
        out[o++] = tab[x >> 12 & 63];
        out[o++] = k + 1 < n ? tab[x >> 6 & 63] : '=';
        out[o++] = k + 2 < n ? tab[x & 63] : '=';
    }
    out[o] = '\0';
}

static void write_result(json_w *w, const char *body64)
{
    static const double pct[] = { 50, 90, 99, 99.9, 99.99, 100 };
    json_w_obj_begin(w);
    json_w_kstr(w, "pacer_version", "0.1.0");
    json_w_kstr(w, "url", "https://example.com/api?q=\"x\"&y=\\z");
    json_w_key(w, "config");
    json_w_obj_begin(w);
    json_w_kdouble(w, "rate", 1000);
    json_w_kdouble(w, "duration_s", 30.5);
    json_w_kint(w, "connections", 64);
    json_w_kbool(w, "keepalive", true);
    json_w_key(w, "headers");
    json_w_arr_begin(w);
    json_w_str(w, "Accept: */*");
    json_w_str(w, "X-Token: t\xC3\xB6ken\ttab");
    json_w_arr_end(w);
    json_w_obj_end(w);
    json_w_key(w, "totals");
    json_w_obj_begin(w);
    json_w_kuint(w, "requests", 30000);
    json_w_kuint(w, "bytes_in", UINT64_MAX - 1);
    json_w_kint(w, "bytes_out", INT64_MAX);
    json_w_kint(w, "skew_ns", INT64_MIN);
    json_w_kdouble(w, "rps", 999.9666666666667);
    json_w_kdouble(w, "nan_field", NAN);
    json_w_obj_end(w);
    json_w_key(w, "latency");
    json_w_obj_begin(w);
    for (int which = 0; which < 2; which++) {
        json_w_key(w, which ? "uncorrected" : "corrected");
        json_w_obj_begin(w);
        json_w_kdouble(w, "mean_ms", 1.2345678901234567 + which);
        json_w_key(w, "percentiles");
        json_w_arr_begin(w);
        for (size_t k = 0; k < sizeof pct / sizeof pct[0]; k++) {
            json_w_obj_begin(w);
            json_w_kdouble(w, "p", pct[k]);
            json_w_kdouble(w, "ms", 0.1 * (double)(k + 1) + which);
            json_w_obj_end(w);
        }
        json_w_arr_end(w);
        json_w_kdouble(w, "p99", 2.5 + which);
        json_w_obj_end(w);
    }
    json_w_obj_end(w);
    json_w_key(w, "status");
    json_w_obj_begin(w);
    json_w_kuint(w, "200", 29990);
    json_w_kuint(w, "503", 10);
    json_w_obj_end(w);
    json_w_key(w, "errors");
    json_w_arr_begin(w);
    json_w_arr_end(w);
    json_w_key(w, "samples");
    json_w_arr_begin(w);
    json_w_obj_begin(w);
    json_w_kstr(w, "body_b64", body64);
    json_w_kstr(w, "note", "line1\nline2\x01");
    json_w_obj_end(w);
    json_w_arr_end(w);
    json_w_obj_end(w);
}

static void test_roundtrip_result(void)
{
    unsigned char raw[300];
    char body64[512], err[256];

    for (size_t k = 0; k < sizeof raw; k++)
        raw[k] = (unsigned char)(k * 37 + 11);
    b64(raw, sizeof raw, body64);

    for (int indent = 0; indent <= 2; indent += 2) {
        struct mem m;
        json_w w;
        json_val *v = NULL;
        int64_t i;
        uint64_t u;

        mem_open(&m);
        json_w_init(&w, m.f, indent);
        write_result(&w, body64);
        CHECK_EQ_I64(mem_done(&m, &w), 0);
        CHECK_EQ_I64(json_parse(m.buf, m.len, &v, err, sizeof err), 0);

        CHECK_EQ_STR(json_str(json_get(v, "url")), "https://example.com/api?q=\"x\"&y=\\z");
        CHECK_NEAR(json_num(json_path(v, "config.rate")), 1000, 0);
        CHECK(json_int64(json_path(v, "config.rate"), &i));
        CHECK_EQ_I64(i, 1000);
        CHECK_NEAR(json_num(json_path(v, "config.duration_s")), 30.5, 0);
        CHECK(json_bool(json_path(v, "config.keepalive")));
        CHECK_EQ_STR(json_str(json_path(v, "config.headers.1")), "X-Token: t\xC3\xB6ken\ttab");
        CHECK(json_uint64(json_path(v, "totals.bytes_in"), &u));
        CHECK(u == UINT64_MAX - 1);
        CHECK(json_int64(json_path(v, "totals.bytes_out"), &i));
        CHECK(i == INT64_MAX);
        CHECK(json_int64(json_path(v, "totals.skew_ns"), &i));
        CHECK(i == INT64_MIN);
        CHECK(json_num(json_path(v, "totals.rps")) == 999.9666666666667);
        CHECK_EQ_I64(json_type_of(json_path(v, "totals.nan_field")), JSON_NULL);
        CHECK(json_num(json_path(v, "latency.corrected.mean_ms")) == 1.2345678901234567);
        CHECK(json_num(json_path(v, "latency.corrected.p99")) == 2.5);
        CHECK(json_num(json_path(v, "latency.uncorrected.p99")) == 3.5);
        CHECK_EQ_I64(json_len(json_path(v, "latency.uncorrected.percentiles")), 6);
        CHECK(json_num(json_path(v, "latency.corrected.percentiles.3.p")) == 99.9);
        CHECK(json_num(json_path(v, "latency.corrected.percentiles.5.ms")) == 0.1 * 6);
        CHECK(json_uint64(json_path(v, "status.503"), &u));
        CHECK(u == 10);
        CHECK_EQ_I64(json_len(json_get(v, "errors")), 0);
        CHECK_EQ_STR(json_str(json_path(v, "samples.0.body_b64")), body64);
        CHECK_EQ_STR(json_str(json_path(v, "samples.0.note")), "line1\nline2\x01");

        /* Writing the DOM back gives the same bytes. */
        struct mem m2;
        mem_open(&m2);
        json_w_init(&w, m2.f, indent);
        json_w_value(&w, v);
        CHECK_EQ_I64(mem_done(&m2, &w), 0);
        CHECK_EQ_STR(m2.buf, m.buf);
        free(m2.buf);
        free(m.buf);
        json_free(v);
    }
}

static void test_w_value_copy(void)
{
    static const struct { const char *in, *out; } cases[] = {
        { " [ 1 , -0 , 1.50 , 1e3 , -1e-400, 18446744073709551615, -18446744073709551615 ] ",
          "[1,-0,1.5,1000,-0,18446744073709551615,-18446744073709551615]" },
        { "{\"a\" : {\"b\":[true,false,null,\"\\u00e9\\n\"]}, \"\":{}}",
          "{\"a\":{\"b\":[true,false,null,\"\xC3\xA9\\n\"]},\"\":{}}" },
        { "1.00000000000000000001", "1" },
        { "\"\\uD83D\\uDE00\\/\"", "\"\xF0\x9F\x98\x80/\"" },
        { "1e20", "1e+20" }, /* above UINT64_MAX: a double, written as one */
    };

    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        json_val *v = NULL;
        struct mem m;
        json_w w;
        CHECK_EQ_I64(parse_s(cases[k].in, &v), 0);
        mem_open(&m);
        json_w_init(&w, m.f, 0);
        json_w_value(&w, v);
        CHECK_EQ_I64(mem_done(&m, &w), 0);
        json_free(v);
        CHECK_EQ_STR(m.buf, cases[k].out);
        free(m.buf);
    }

    /* Copying a subtree into a new document under a key. */
    json_val *v = NULL;
    struct mem m;
    json_w w;
    CHECK_EQ_I64(parse_s("{\"x\":{\"p99\":[1,2]},\"y\":3}", &v), 0);
    mem_open(&m);
    json_w_init(&w, m.f, 0);
    json_w_obj_begin(&w);
    json_w_key(&w, "copied");
    json_w_value(&w, json_get(v, "x"));
    json_w_key(&w, "missing");
    json_w_value(&w, json_get(v, "nope"));
    json_w_obj_end(&w);
    CHECK_EQ_I64(mem_done(&m, &w), 0);
    CHECK_EQ_STR(m.buf, "{\"copied\":{\"p99\":[1,2]},\"missing\":null}");
    free(m.buf);
    json_free(v);
}

int main(void)
{
    RUN(test_w_compact_exact);
    RUN(test_w_pretty_exact);
    RUN(test_w_nesting_commas);
    RUN(test_w_escape_controls);
    RUN(test_w_utf8);
    RUN(test_w_utf8_invalid);
    RUN(test_w_doubles);
    RUN(test_w_ints);
    RUN(test_w_misuse);
    RUN(test_w_eio);
    RUN(test_p_types);
    RUN(test_p_nested);
    RUN(test_p_depth);
    RUN(test_p_big_array);
    RUN(test_p_int_exact);
    RUN(test_p_big_literals);
    RUN(test_p_error_lines);
    RUN(test_p_doubles);
    RUN(test_p_strings);
    RUN(test_p_malformed);
    RUN(test_parse_file);
    RUN(test_roundtrip_result);
    RUN(test_w_value_copy);
    return unit_done();
}

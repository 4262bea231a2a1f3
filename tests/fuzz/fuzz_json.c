/*
 * fuzz_json.c - libFuzzer harness for the JSON parser and writer.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *         tests/fuzz/fuzz_json.c src/util/json*.c -ljansson -lm -o fuzz_json
 *   ./fuzz_json -max_total_time=60 tests/fuzz/corpus/json
 *
 * The input is parsed as a document. The harness aborts when:
 *   - json_parse fails with anything but -EINVAL, leaves *out set, or gives
 *     a message not starting "line N, column M: " inside the input;
 *   - a parsed tree, written back with json_w_value (compact and pretty),
 *     makes json_w_finish fail, does not parse, or parses to a different
 *     tree (same types, strings, keys and order, bit-identical doubles,
 *     and every exact integer still the same exact integer);
 *   - writing the reparsed tree does not give the same bytes again;
 *   - json_get(obj, json_key_at(obj, i)) is not the first member with
 *     that key.
 * Independently, the raw input is written as one string with json_w_strn:
 * unless it contains a NUL (which the parser rejects as \u0000), the output
 * must parse, be valid UTF-8, and equal the input when that was valid UTF-8.
 * Finally json_path is called with a path taken from the input.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "util/json.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Independent UTF-8 check: decode code points, reject overlong forms,
 * surrogates and values above U+10FFFF. */
static bool valid_utf8(const unsigned char *s, size_t n)
{
    size_t i = 0;

    while (i < n) {
        unsigned c = s[i], len;
        uint32_t cp, min;
        if (c < 0x80) {
            i++;
            continue;
        }
        if ((c & 0xE0) == 0xC0)
            len = 2, cp = c & 0x1F, min = 0x80;
        else if ((c & 0xF0) == 0xE0)
            len = 3, cp = c & 0x0F, min = 0x800;
        else if ((c & 0xF8) == 0xF0)
            len = 4, cp = c & 0x07, min = 0x10000;
        else
            return false;
        if (n - i < len)
            return false;
        for (unsigned k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return false;
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += len;
    }
    return true;
}

static bool same(const json_val *a, const json_val *b, int level)
{
    if (level > JSON_MAX_DEPTH + 1)
        abort(); /* the parser let something too deep through */
    if (json_type_of(a) != json_type_of(b))
        return false;
    switch (json_type_of(a)) {
    case JSON_NULL:
        return true;
    case JSON_BOOL:
        return json_bool(a) == json_bool(b);
    case JSON_NUM: {
        double x = json_num(a), y = json_num(b);
        int64_t i, j;
        uint64_t u, v;
        if (memcmp(&x, &y, sizeof x) != 0 || isnan(x) || isinf(x))
            return false;
        if (json_int64(a, &i) && (!json_int64(b, &j) || i != j))
            return false;
        if (json_uint64(a, &u) && (!json_uint64(b, &v) || u != v))
            return false;
        return true;
    }
    case JSON_STR:
        return json_str(a) && json_str(b) && strcmp(json_str(a), json_str(b)) == 0 &&
               valid_utf8((const unsigned char *)json_str(a), strlen(json_str(a)));
    case JSON_ARR:
    case JSON_OBJ:
        if (json_len(a) != json_len(b))
            return false;
        for (size_t i = 0; i < json_len(a); i++) {
            if (json_type_of(a) == JSON_OBJ) {
                const char *ka = json_key_at(a, i), *kb = json_key_at(b, i);
                if (!ka || !kb || strcmp(ka, kb) != 0)
                    return false;
                if (i < 16) { /* json_get finds the first member with the key */
                    const json_val *g = json_get(a, ka);
                    size_t j = 0;
                    while (j <= i && json_at(a, j) != g)
                        j++;
                    if (j > i || strcmp(json_key_at(a, j), ka) != 0)
                        abort();
                    for (size_t m = 0; m < j; m++)
                        if (strcmp(json_key_at(a, m), ka) == 0)
                            abort();
                }
            }
            if (!same(json_at(a, i), json_at(b, i), level + 1))
                return false;
        }
        return true;
    }
    abort();
}

/* Write v into a malloc'ed buffer; aborts if the writer reports an error. */
static char *dump(const json_val *v, int indent, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    json_w w;

    if (!f)
        abort();
    json_w_init(&w, f, indent);
    json_w_value(&w, v);
    if (json_w_finish(&w) != 0)
        abort();
    fclose(f);
    return buf;
}

static void check_err(const char *err, size_t len)
{
    unsigned long line, col;
    int used = 0;

    if (sscanf(err, "line %lu, column %lu: %n", &line, &col, &used) != 2 || used == 0 ||
        line < 1 || col < 1 || line > len + 1 || col > len + 1 || err[used] == '\0')
        abort();
}

static void roundtrip(const json_val *v, int indent)
{
    char err[256];
    size_t len1, len2;
    char *out1 = dump(v, indent, &len1), *out2;
    json_val *v2 = NULL;

    if (json_parse(out1, len1, &v2, err, sizeof err) != 0)
        abort();
    if (!same(v, v2, 0))
        abort();
    out2 = dump(v2, indent, &len2);
    if (len1 != len2 || memcmp(out1, out2, len1) != 0)
        abort();
    free(out1);
    free(out2);
    json_free(v2);
}

static void string_roundtrip(const uint8_t *data, size_t size)
{
    char *buf = NULL, err[256];
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    json_w w;
    json_val *v = NULL;

    if (!f)
        abort();
    json_w_init(&w, f, 0);
    json_w_strn(&w, (const char *)data, size);
    if (json_w_finish(&w) != 0)
        abort();
    fclose(f);
    if (memchr(data, 0, size)) {
        if (json_parse(buf, len, &v, err, sizeof err) != -EINVAL)
            abort();
    } else {
        if (json_parse(buf, len, &v, err, sizeof err) != 0 || json_type_of(v) != JSON_STR)
            abort();
        const char *s = json_str(v);
        if (!valid_utf8((const unsigned char *)s, strlen(s)))
            abort();
        if (valid_utf8(data, size) && (strlen(s) != size || memcmp(s, data, size) != 0))
            abort();
        json_free(v);
    }
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    json_val *v = (json_val *)err;
    int rc;

    /* A copy of exactly size bytes, so ASan catches any read past the end. */
    char *text = malloc(size ? size : 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    rc = json_parse(text, size, &v, err, sizeof err);
    if (rc == 0) {
        if (!v)
            abort();
        roundtrip(v, 0);
        roundtrip(v, 2);

        char path[33];
        size_t n = size < 32 ? size : 32;
        memcpy(path, data, n);
        path[n] = '\0';
        (void)json_path(v, path);
        json_free(v);
    } else {
        if (rc != -EINVAL || v != NULL)
            abort();
        check_err(err, size);
    }
    free(text);
    string_roundtrip(data, size);
    return 0;
}

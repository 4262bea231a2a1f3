/*
 * json.h - a streaming JSON writer and a strict JSON parser (RFC 8259).
 *
 * The writer (json_w.c) produces pacer's result files (--json): it writes
 * straight to a FILE*, tracks commas and nesting itself, and refuses (sticky
 * error, nothing more written) any call sequence that would produce invalid
 * JSON, so json_w_finish() is the one place a caller needs to check.
 *
 * The parser (json.c) reads result files back for `pacer report`; it is
 * jansson's (Debian libjansson-dev), with the limits below around it. Its
 * input is hostile: nesting is bounded by JSON_MAX_DEPTH (checked before
 * jansson recurses), work is linear in the input, and any byte sequence
 * either parses or fails with -EINVAL and a one-line message naming the
 * line and column. It accepts exactly RFC 8259 JSON: UTF-8 only, no
 * comments, no trailing commas, no leading zeros, no NaN/Infinity, one value
 * per document (surrounding whitespace allowed). Limits beyond the RFC:
 * strings may not contain U+0000 (they are handed out NUL-terminated),
 * numbers whose magnitude overflows a double (e.g. 1e400) are rejected, and
 * so are duplicate keys in one object.
 *
 * Numbers keep both a double and, when the literal is an integer ("123",
 * "-7") in [INT64_MIN, UINT64_MAX], that integer exactly, so byte counts
 * survive a write/parse round trip. A literal with a fraction or an
 * exponent ("2.0", "1e3") is read as a double, and counts as an integer
 * when that double is integral and below 2^53 in magnitude.
 */
#ifndef PACER_UTIL_JSON_H
#define PACER_UTIL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Deepest nesting of arrays/objects the writer produces and the parser
 * accepts: 64 nested containers are fine, a 65th is an error. */
#define JSON_MAX_DEPTH 64

/* ---- Writer ------------------------------------------------------------ */

typedef struct json_w {
    FILE *f;
    int depth;                             /* open containers */
    int indent;                            /* 0 = compact, n = pretty, n spaces per level */
    int err;                               /* first error (sticky), 0 if none */
    bool after_key;                        /* a key was written, its value is due */
    bool is_obj[JSON_MAX_DEPTH];           /* kind of each open container */
    bool need_comma[JSON_MAX_DEPTH + 1];   /* [d]: level d already holds a value
                                            * ([0]: the top-level value was written) */
} json_w;

/* Start writing one JSON document to f (not owned, not closed). indent 0
 * writes compact JSON; indent > 0 (capped at 16) writes one member per
 * line, indented by that many spaces per level, with ": " after keys. */
void json_w_init(json_w *w, FILE *f, int indent);

/* Open / close an object or array. Opening is a value: it needs a key
 * first inside an object. Opening past JSON_MAX_DEPTH, closing the wrong
 * kind, or closing an object right after a key sets err = -EINVAL. Empty
 * containers are written as {} and [] in both modes. */
void json_w_obj_begin(json_w *w);
void json_w_obj_end(json_w *w);
void json_w_arr_begin(json_w *w);
void json_w_arr_end(json_w *w);

/* Write an object key (escaped as json_w_str). Only valid directly inside
 * an object and not right after another key; k == NULL is an error too. */
void json_w_key(json_w *w, const char *k);

/* Write a string value. Escapes '"' and '\\' and every control character
 * U+0000..U+001F (\b \f \n \r \t, the others as \u00XX); valid UTF-8 is
 * passed through unchanged; each maximal invalid UTF-8 subpart (stray
 * continuation byte, overlong form, surrogate, truncated sequence, > U+10FFFF)
 * becomes U+FFFD, so the output is always valid UTF-8. json_w_str(w, NULL)
 * writes null. json_w_strn writes exactly n bytes of s (NULs become \u0000,
 * which json_parse rejects); s may be NULL only when n is 0. */
void json_w_str(json_w *w, const char *s);
void json_w_strn(json_w *w, const char *s, size_t n);

/* Write an exact integer. */
void json_w_int(json_w *w, int64_t v);
void json_w_uint(json_w *w, uint64_t v);

/* Write a double in the shortest form that parses back to the same double
 * ("%.17g" trimmed to the fewest digits that round-trip); integral values
 * of magnitude below 2^64 as plain digits ("100", not "1e+02"), so they
 * read back as exact integers; -0.0 as "-0"; NaN and +-Inf as null.
 * Independent of the C locale's decimal point. */
void json_w_double(json_w *w, double v);

void json_w_bool(json_w *w, bool v);
void json_w_null(json_w *w);

/* Convenience: json_w_key(w, k) followed by the value. */
void json_w_kstr(json_w *w, const char *k, const char *v);
void json_w_kint(json_w *w, const char *k, int64_t v);
void json_w_kuint(json_w *w, const char *k, uint64_t v);
void json_w_kdouble(json_w *w, const char *k, double v);
void json_w_kbool(json_w *w, const char *k, bool v);

struct json_val;

/* Write a parsed value (and everything under it) as a value, e.g. to copy
 * parts of one result file into another. Integer literals are written as
 * they were read (-0 stays "-0", 2^64 stays 18446744073709551616), other
 * numbers as json_w_double. v == NULL writes null. */
void json_w_value(json_w *w, const struct json_val *v);

/* End the document: checks that exactly one top-level value was written
 * and every container closed, writes a final '\n' in pretty mode, and
 * flushes f. Returns 0, -EINVAL (misuse at any point, or unbalanced), or
 * -EIO (a write or the flush failed). Call once, at the end. */
int json_w_finish(json_w *w);

/* ---- Parser / DOM ------------------------------------------------------ */

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ } json_type;

/* A parsed value. Opaque; a tree is owned by its root (json_free(root)),
 * and every pointer handed out by the accessors below is valid until then. */
typedef struct json_val json_val;

/* Parse text[0..len) (need not be NUL-terminated) as one JSON document.
 * Returns 0 and sets *out to the root; or -EINVAL (malformed input, or a
 * limit above exceeded) or -ENOMEM, with *out = NULL and, if err != NULL
 * and errlen > 0, a NUL-terminated one-line message in err such as
 * "line 3, column 14: ':' expected near '2'" (jansson's words, bytes outside
 * printable ASCII as \xNN; line and column are 1-based, the column counts
 * bytes and names the start of the offending token). */
int json_parse(const char *text, size_t len, json_val **out, char *err, size_t errlen);

/* Read the file at path (at most 1 GiB, else -EFBIG) and json_parse it.
 * Open errors return -errno, read errors -EIO; messages name the path. */
int json_parse_file(const char *path, json_val **out, char *err, size_t errlen);

/* Free a tree returned by json_parse (only a root; NULL is fine). */
void json_free(json_val *v);

/* The accessors below all accept NULL (e.g. a missing key) and then return
 * the "wrong type" answer, so lookups can be chained. */

/* Type of v; JSON_NULL also for v == NULL. */
json_type json_type_of(const json_val *v);

/* Member of object obj named key, or NULL if absent or obj is not an
 * object (or key is NULL). A hash lookup. */
const json_val *json_get(const json_val *obj, const char *key);

/* Number of elements of an array or members of an object; 0 otherwise. */
size_t json_len(const json_val *arr_or_obj);

/* Element i of an array, or value of member i of an object (in document
 * order; linear in i for an object); NULL if out of range or not a
 * container. */
const json_val *json_at(const json_val *arr, size_t i);

/* Key of member i of an object (linear in i); NULL if out of range or not
 * an object. */
const char *json_key_at(const json_val *obj, size_t i);

/* A string's value, NUL-terminated UTF-8; NULL if v is not a string. */
const char *json_str(const json_val *v);

/* A number's value, correctly rounded; NaN if v is not a number. */
double json_num(const json_val *v);

/* If v is a number whose exact value is an integer that fits, store it in
 * *out and return true; otherwise return false and leave *out alone.
 * Integer literals are exact whatever their size: 9007199254740993 and
 * 18446744073709551615 are; "1e3" and "2.0" are 1000 and 2; 1.5, 1e20 and
 * "9007199254740993.0" (above 2^53 as a double) are not. */
bool json_int64(const json_val *v, int64_t *out);
bool json_uint64(const json_val *v, uint64_t *out);

/* true if v is the literal true; false for anything else. */
bool json_bool(const json_val *v);

/* Follow a dotted path of object keys from root, e.g.
 * json_path(root, "latency.corrected.p99"); a segment of decimal digits
 * applied to an array indexes it ("runs.0.rps"). "" returns root. NULL if
 * any step is missing or an empty segment occurs ("a..b"). Keys that
 * contain '.' cannot be reached this way; use json_get. */
const json_val *json_path(const json_val *root, const char *dotted);

#endif

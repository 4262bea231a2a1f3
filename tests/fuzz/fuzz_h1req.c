/*
 * fuzz_h1req.c - libFuzzer harness for a script's request text taken
 * apart (h1req_parse) and turned into HTTP/2 and HTTP/3 header fields
 * (h1req_fields): the text pacer itself parses on the way to nghttp2 and
 * nghttp3.
 *
 *   make -f tests/fuzz/fuzz.mk build-fuzz/fuzz_h1req
 *   build-fuzz/fuzz_h1req -max_total_time=60 tests/fuzz/corpus/h1req
 *
 * The input is copied into a heap buffer of exactly its size (ASan sees any
 * read past it). The harness aborts when:
 *   - h1req_parse returns anything but -EINVAL or a length in 1..size;
 *   - a parsed request's method, target, header names and values or body
 *     lie outside the input, or a count is over its bound;
 *   - h1req_fields gives fewer than the 4 pseudo-headers, more than
 *     H1REQ_MAX_FIELDS, a name outside the input and the names buffer, an
 *     upper-case or empty regular name, a connection-specific header, or a
 *     name that overflows the (small, heap) names buffer;
 *   - h1req_check (the check every protocol's script text passes first)
 *     returns other than 0 or -EINVAL, leaves its reason unterminated or
 *     empty, or accepts text h1req_parse refuses.
 */
#include "proto/h1req.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int inside(const char *p, size_t n, const char *b, size_t bn)
{
    return n == 0 || (p >= b && p + n <= b + bn);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = malloc(size ? size : 1);
    h1req_parsed r;
    h1req_field f[H1REQ_MAX_FIELDS];
    size_t cap = 64, n;
    char *names = malloc(cap);
    long got;

    if (!in || !names)
        abort();
    memcpy(in, data, size);
    {
        char why[48];
        int rc;

        memset(why, 'x', sizeof why);
        rc = h1req_check(in, size, why, sizeof why);
        if (rc != 0 && (rc != -EINVAL || !memchr(why, 0, sizeof why) || !why[0]))
            abort();
        if (rc == 0 && h1req_parse(in, size, &r) <= 0)
            abort();
    }
    got = h1req_parse(in, size, &r);
    if (got == -EINVAL)
        goto out;
    if (got <= 0 || (size_t)got > size || r.nh > H1REQ_MAX_HEADERS)
        abort();
    if (!inside(r.method, r.method_len, in, size) || !inside(r.target, r.target_len, in, size) ||
        !inside(r.body, r.body_len, in, size))
        abort();
    for (size_t i = 0; i < r.nh; i++)
        if (!inside(r.h[i].name, r.h[i].nlen, in, size) ||
            !inside(r.h[i].value, r.h[i].vlen, in, size))
            abort();
    n = h1req_fields(&r, "https", "127.0.0.1:443", f, names, cap);
    if (n < 4 || n > H1REQ_MAX_FIELDS)
        abort();
    for (size_t i = 4; i < n; i++) {
        if (!f[i].nlen || !inside(f[i].name, f[i].nlen, names, cap) ||
            !inside(f[i].value, f[i].vlen, in, size))
            abort();
        for (size_t k = 0; k < f[i].nlen; k++)
            if (f[i].name[k] >= 'A' && f[i].name[k] <= 'Z')
                abort();
        if ((f[i].nlen == 4 && memcmp(f[i].name, "host", 4) == 0) ||
            (f[i].nlen == 10 && memcmp(f[i].name, "connection", 10) == 0) ||
            (f[i].nlen == 17 && memcmp(f[i].name, "transfer-encoding", 17) == 0))
            abort();
    }
out:
    free(names);
    free(in);
    return 0;
}

/*
 * fuzz_h1parse.c - libFuzzer harness for the HTTP/1.1 response parser.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *         tests/fuzz/fuzz_h1parse.c src/proto/h1parse.c -o fuzz_h1parse
 *   ./fuzz_h1parse -max_total_time=60 tests/fuzz/corpus/h1parse
 *
 * The first input byte picks the read size (bits 0-4: 1..32 bytes), a HEAD
 * request (bit 5) and max_header_bytes (bits 6-7); the rest is what the
 * server sent. The harness plays the engine with a read buffer of exactly
 * max_header_bytes, re-presenting unconsumed bytes, and aborts when:
 *   - a callback gets a pointer outside the bytes handed to h1_feed, an
 *     empty or non-token name, or an untrimmed value;
 *   - *consumed exceeds the bytes given, or a NEED_MORE leaves the buffer
 *     full (the engine could never read again);
 *   - body bytes disagree with body_bytes, Content-Length or wire_bytes;
 *   - the outcome differs from reading the same bytes in the largest
 *     pieces the buffer allows (the result must not depend on the reads);
 *   - the framing (responses, status, lengths, errors) differs when the
 *     body bytes the parser allows are passed over unseen (h1_skip, as
 *     the engine drops a body nobody reads).
 */
#include "proto/h1parse.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct trace {
    uint64_t responses; /* H1_DONE count */
    uint64_t hash;      /* of every outcome, header and body byte */
    uint64_t frame;     /* of every outcome alone */
    int final_rc;
};

struct ctx {
    const char *lo, *hi; /* the bytes the current h1_feed call was given */
    uint64_t body_seen;  /* on_body bytes of the current response */
    uint64_t hash, frame;
    bool skipping;       /* no on_body: body bytes are skipped or only counted */
};

static char fbuf[65536];

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static uint64_t mix_bytes(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = mix(h, (unsigned char)s[i]);
    return mix(h, n);
}

static void in_range(const struct ctx *c, const char *s, size_t n)
{
    if (s < c->lo || s > c->hi || n > (size_t)(c->hi - s))
        abort();
}

static int is_tchar(unsigned char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

static int on_header(void *ud, const char *name, size_t nlen, const char *value, size_t vlen)
{
    struct ctx *c = ud;

    in_range(c, name, nlen);
    in_range(c, value, vlen);
    if (nlen == 0)
        abort();
    for (size_t i = 0; i < nlen; i++)
        if (!is_tchar((unsigned char)name[i]))
            abort();
    for (size_t i = 0; i < vlen; i++)
        if (((unsigned char)value[i] < 0x20 && value[i] != '\t') || value[i] == 0x7f)
            abort();
    if (vlen && (value[0] == ' ' || value[0] == '\t' ||
                 value[vlen - 1] == ' ' || value[vlen - 1] == '\t'))
        abort();
    c->hash = mix_bytes(mix_bytes(c->hash, name, nlen), value, vlen);
    return 0;
}

static int on_headers_done(void *ud)
{
    struct ctx *c = ud;

    c->hash = mix(c->hash, 0x4844);
    return 0;
}

static int on_body(void *ud, const char *s, size_t n)
{
    struct ctx *c = ud;

    in_range(c, s, n);
    if (n == 0)
        abort(); /* pointless calls would only cost the engine time */
    c->body_seen += n;
    /* Byte by byte, with no length: how the body was cut must not show. */
    for (size_t i = 0; i < n; i++)
        c->hash = mix(c->hash, (unsigned char)s[i]);
    return 0;
}

static void outcome(struct ctx *c, const h1_parser *p, int rc, bool head, uint64_t wire)
{
    if ((!c->skipping && p->body_bytes != c->body_seen) || p->wire_bytes != wire)
        abort();
    if (rc == H1_DONE) {
        if (!p->headers_done)
            abort();
        if (p->content_length >= 0 && !head && p->status != 204 && p->status != 304 &&
            p->body_bytes != (uint64_t)p->content_length)
            abort();
        if (p->header_bytes + p->body_bytes > p->wire_bytes)
            abort();
    }
    for (int k = 0; k < 2; k++) {
        uint64_t *h = k ? &c->frame : &c->hash;

        *h = mix(*h, (uint64_t)(int64_t)rc);
        *h = mix(*h, (uint64_t)p->status);
        *h = mix(*h, (uint64_t)p->version_minor);
        *h = mix(*h, (uint64_t)p->content_length);
        *h = mix(*h, (uint64_t)p->chunked << 2 | (uint64_t)p->keep_alive << 1 | p->headers_done);
        *h = mix(*h, p->header_bytes);
        *h = mix(*h, p->body_bytes);
        *h = mix(*h, p->wire_bytes);
    }
    c->body_seen = 0;
}

static void run(const char *in, size_t n, size_t piece, bool head, uint32_t cap, bool skip,
                struct trace *t)
{
    struct ctx c = {0};
    h1_parser p;
    size_t off = 0, blen = 0;
    uint64_t wire = 0;
    int rc;

    memset(t, 0, sizeof *t);
    h1_init(&p);
    p.max_header_bytes = cap;
    p.ud = &c;
    p.on_header = on_header;
    p.on_headers_done = on_headers_done;
    p.on_body = skip ? NULL : on_body;
    c.skipping = skip;
    h1_begin(&p, head);

    for (;;) {
        size_t k = n - off, used = (size_t)-1;
        uint64_t s = skip && blen == 0 && off < n ? h1_skippable(&p) : 0;

        if (k > piece)
            k = piece;
        if (s) {
            /* The next piece of the body goes by unseen. */
            if (k > s)
                k = (size_t)s;
            rc = h1_skip(&p, k);
            off += k;
            used = k;
        } else {
            if (k > cap - blen)
                k = cap - blen;
            memcpy(fbuf + blen, in + off, k);
            blen += k;
            off += k;
            c.lo = fbuf;
            c.hi = fbuf + blen;
            rc = h1_feed(&p, fbuf, blen, &used);
            if (used > blen)
                abort();
            memmove(fbuf, fbuf + used, blen - used);
            blen -= used;
        }
        wire += used;
        if (rc == H1_DONE) {
            outcome(&c, &p, rc, head, wire);
            t->responses++;
            wire = 0;
            h1_begin(&p, head);
            continue;
        }
        if (rc != H1_NEED_MORE) {
            outcome(&c, &p, rc, head, wire);
            t->final_rc = rc;
            t->hash = c.hash;
            t->frame = c.frame;
            return;
        }
        if (blen >= cap)
            abort();
        if (off == n)
            break;
    }
    rc = h1_eof(&p);
    if (rc == H1_DONE && h1_started(&p) == false)
        abort();
    outcome(&c, &p, rc, head, wire);
    t->final_rc = rc;
    t->hash = c.hash;
    t->frame = c.frame;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint32_t caps[4] = {65536, 1024, 128, 40};
    struct trace a, b, z;
    size_t piece;
    bool head;
    uint32_t cap;

    if (size < 1)
        return 0;
    piece = (size_t)(data[0] & 31) + 1;
    head = data[0] & 32;
    cap = caps[data[0] >> 6];
    run((const char *)data + 1, size - 1, piece, head, cap, false, &a);
    run((const char *)data + 1, size - 1, cap, head, cap, false, &b);
    if (a.responses != b.responses || a.hash != b.hash || a.final_rc != b.final_rc)
        abort();
    run((const char *)data + 1, size - 1, piece, head, cap, true, &z);
    if (a.responses != z.responses || a.frame != z.frame || a.final_rc != z.final_rc)
        abort();
    return 0;
}

/*
 * common.c - what HTTP/2 and HTTP/3 (and, for response headers, HTTP/1.1)
 * do alike: a request's header fields and body, a response's body and
 * headers kept for a script, the per-slot script buffers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "http/http.h"

/* Keep the request body until it is sent: a template's stays where it is;
 * a request()'s (q->transient) is copied into b. false: out of memory
 * (s failed). */
static bool keep_body(http_conn *c, slot *s, http_stream *hs, const pc_request *q,
                      const char *body, size_t len, sbuf *b)
{
    hs->req_body = body;
    hs->req_body_len = len;
    if (!len || !q->transient)
        return true;
    if (b)
        b->len = 0;
    if (!b || sbuf_add(b, body, len, SBUF_REQUEST_MAX) < 0) {
        eng_failed(c, s, PC_ERR_WRITE, "out of memory", 0);
        return false;
    }
    hs->req_body = b->p;
    return true;
}

const pc_field *http_request_fields(http_conn *c, slot *s, http_stream *hs, sbuf *body_buf,
                                    const pc_request *q, size_t *n, bool *copy)
{
    static __thread pc_field f[H1REQ_MAX_FIELDS];
    static __thread char names[8192]; /* the header names, lower-cased */
    h1req_parsed r;

    if (q->fields) {
        /* A template: its header list was built once. */
        hs->req_body = q->body;
        hs->req_body_len = q->body_len;
        *n = q->nfields;
        *copy = false;
        return q->fields;
    }
    if (h1req_parse(q->h1, q->h1_len, &r) < 0) {
        eng_failed(c, s, PC_ERR_WRITE, "script request is not valid HTTP/1.1 text", 0);
        return NULL;
    }
    *n = h1req_fields(&r, c->tls ? "https" : "http", c->env->set->authority, f, names,
                      sizeof names);
    *copy = true;
    if (!keep_body(c, s, hs, q, r.body, r.body_len, r.body_len && q->transient ? body_buf : NULL))
        return NULL;
    return f;
}

int http_body_data(http_conn *c, slot *s, http_stream *hs, sbuf *b, const char *p, size_t n,
                   uint64_t now)
{
    c->env->st->body_bytes += n;
    if (!s)
        return 0;
    hs->body += n;
    eng_first_byte(c, s, now);
    return b ? sbuf_add(b, p, n, c->env->set->resp_cap) : 0;
}

int http_header_pair(http_conn *c, sbuf *b, const char *n, size_t nl, const char *v, size_t vl)
{
    static const char nul = '\0';
    size_t max = c->env->set->resp_cap;

    if (!b || memchr(n, 0, nl) || memchr(v, 0, vl)) /* a NUL would split the pair */
        return 0;
    if (sbuf_add(b, n, nl, max) < 0 || sbuf_add(b, &nul, 1, max) < 0 ||
        sbuf_add(b, v, vl, max) < 0 || sbuf_add(b, &nul, 1, max) < 0)
        return -ENOMEM;
    return 0;
}

bool http_scratch(void **p, size_t *cap, size_t n, size_t size)
{
    void *q;

    if (n <= *cap)
        return true;
    if (!(q = realloc(*p, n * size)))
        return false;
    *p = q;
    *cap = n;
    return true;
}

sbuf *http_slot_bufs_new(const http_conn *c, bool *ok)
{
    sbuf *sb = NULL;

    *ok = true;
    if (c->env->want_response || c->env->requests_change) {
        sb = calloc((size_t)c->depth * SB_PER_SLOT, sizeof *sb);
        *ok = sb != NULL;
    }
    return sb;
}

void http_slot_bufs_free(sbuf *sb, uint32_t depth)
{
    for (size_t i = 0; sb && i < (size_t)depth * SB_PER_SLOT; i++)
        free(sb[i].p);
    free(sb);
}

/*
 * h1.c - HTTP/1.1 over a connection: each request's bytes (built
 * once per distinct request) are copied into the connection's output
 * buffer, so any number of pipelined requests goes out in one write;
 * responses are parsed by h1parse in the order the requests were sent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http/http.h"
#include "proto/h1parse.h"
#include "util/grow.h"

#define OBUF_FIRST 64 /* the output buffer's first size; doubled as needed */

/* What HTTP/1.1 keeps per request, by slot index. */
typedef struct h1slot {
    uint64_t obeg; /* offset of its first byte in the connection's output */
    uint32_t olen; /* its bytes (0: sent as part of another's batch) */
    bool head;     /* HEAD: no body in the response */
} h1slot;

/* What HTTP/1.1 keeps per connection (http_conn.ps): the parser, the order
 * the requests went out in, and the output buffer. */
typedef struct h1state {
    h1_parser p;
    uint32_t *fifo;     /* slot indexes in request order (c->depth entries) */
    uint32_t fifo_head;
    uint32_t unsent;    /* trailing fifo entries whose first byte is not out yet */
    uint32_t unwritten; /* trailing fifo entries whose last byte is not out yet */
    bool need_begin;    /* the parser must be started for the next response */
    uint64_t served;    /* responses completed on this connection */
    char *obuf;         /* requests not yet written (templates copied in) */
    size_t olen, ooff, ocap;
    uint64_t otot, owr; /* bytes ever appended / written on this connection */
    sbuf rh, rb;        /* response(): headers ("name\0value\0") and body so far */
    h1slot *ss;         /* per slot (c->depth) */
} h1state;

static h1slot *h1s(const h1state *h, const http_conn *c, const slot *s)
{
    return &h->ss[http_slot_index(c, s)];
}

/* Headers: the Server header until one is known (ab reports it), and all
 * of them when the script has response(). */
static int on_header(void *ud, const char *name, size_t nlen, const char *value, size_t vlen)
{
    http_conn *c = ud;
    h1state *h = c->ps;
    bool want_server = http_want_server(c);

    if (want_server && nlen == 6 && strncasecmp(name, "server", 6) == 0)
        eng_server(c, value, vlen);
    if (c->env->want_response) {
        if (http_header_pair(c, &h->rh, name, nlen, value, vlen) < 0)
            return -100;
    } else if (!want_server) {
        h->p.on_header = NULL;
    }
    return 0;
}

static int on_body(void *ud, const char *p, size_t len)
{
    http_conn *c = ud;
    h1state *h = c->ps;

    return sbuf_add(&h->rb, p, len, c->env->set->resp_cap);
}

static slot *head_slot(http_conn *c, const h1state *h)
{
    return &c->slots[h->fifo[h->fifo_head]];
}

/* The oldest request is answered: take it off the line. */
static slot *pop_head(http_conn *c, h1state *h)
{
    slot *s = head_slot(c, h);

    h->fifo_head = (h->fifo_head + 1) % c->depth;
    return s;
}

/* One allocation: the state, then its per-slot arrays (ss, then fifo,
 * which needs the lesser alignment). Each connection has one, so at
 * 18,000 connections two more mallocs a connection were half a MiB. */
static void *h1_state_new(const http_conn *c)
{
    h1state *h = calloc(1, sizeof *h + (size_t)c->depth * (sizeof *h->ss + sizeof *h->fifo));

    if (!h)
        return NULL;
    h->ss = (h1slot *)(h + 1);
    h->fifo = (uint32_t *)(h->ss + c->depth);
    h1_init(&h->p);
    return h;
}

static void h1_state_free(void *st)
{
    h1state *h = st;

    if (!h)
        return;
    free(h->obuf);
    free(h->rh.p);
    free(h->rb.p);
    free(h);
}

static int h1_start(http_conn *c, uint64_t now)
{
    h1state *h = c->ps;

    (void)now;
    h->need_begin = true;
    h->fifo_head = 0;
    h->unsent = h->unwritten = 0;
    h->olen = h->ooff = 0;
    h->otot = h->owr = 0;
    h->rh.len = h->rb.len = 0, h->rh.cut = h->rb.cut = false;
    h->p.ud = c;
    h->p.on_header = http_want_server(c) || c->env->want_response ? on_header : NULL;
    h->p.on_body = c->env->want_response ? on_body : NULL;
    eng_speaks(c, &c->env->st->h1_conns);
    return 0;
}

static uint32_t h1_capacity(const http_conn *c)
{
    return c->env->set->h1_depth;
}

/* Queue the request's bytes: a copy of its template into the connection's
 * output buffer (allocated at the first request, grown to the largest
 * pipelined batch). It starts at OBUF_FIRST, about one small GET: an idle
 * connection's cost is what -c multiplies (bench/conns.sh). */
static void h1_submit(http_conn *c, slot *s)
{
    h1state *h = c->ps;
    h1slot *hs = h1s(h, c, s);
    const pc_request *r;
    size_t len;

    /* In line behind the requests in flight (s is counted already). */
    h->fifo[(h->fifo_head + c->count - 1) % c->depth] = http_slot_index(c, s);
    r = eng_request(c, s);
    if (!r)
        return; /* failed, recorded by eng_request */
    len = r->h1_len;
    hs->head = r->head;
    hs->olen = (uint32_t)len;
    if (!r->h1) {
        /* Part of the batch the first request's bytes carry. */
        hs->obeg = h->otot ? h->otot - 1 : 0;
        hs->olen = 1; /* written with the batch's last byte */
        h->unsent++;
        h->unwritten++;
        return;
    }
    if (grow_array(&h->obuf, &h->ocap, h->olen + len, OBUF_FIRST, 1) < 0) {
        eng_failed(c, s, PC_ERR_WRITE, "out of memory", 0);
        return;
    }
    memcpy(h->obuf + h->olen, r->h1, len);
    h->olen += len;
    hs->obeg = h->otot;
    h->otot += len;
    h->unsent++;
    h->unwritten++;
}

static void h1_flush(http_conn *c, uint64_t now)
{
    h1state *h = c->ps;

    while (h->ooff < h->olen) {
        uint64_t at = c->nc.tx_bytes;
        ssize_t n = c->net->write(&c->nc, h->obuf + h->ooff, h->olen - h->ooff);

        if (n > 0) {
            h->ooff += (size_t)n;
            h->owr += (uint64_t)n;
            /* A request is sent when its first byte is. */
            while (h->unsent) {
                slot *s = &c->slots[h->fifo[(h->fifo_head + c->count - h->unsent) % c->depth]];

                if (h1s(h, c, s)->obeg >= h->owr)
                    break;
                http_mark_sent(c, s, now, at);
                h->unsent--;
            }
            /* ...and written when its last byte is (hey's Request-write). */
            while (h->unwritten) {
                slot *s = &c->slots[h->fifo[(h->fifo_head + c->count - h->unwritten) % c->depth]];

                if (h1s(h, c, s)->obeg + h1s(h, c, s)->olen > h->owr)
                    break;
                s->written = now;
                h->unwritten--;
            }
            c->env->st->bytes_written += (uint64_t)n;
            eng_wrote(c);
        } else if (n == -EAGAIN) {
            eng_want_write(c, c->nc.want != NET_WANT_READ);
            return;
        } else {
            eng_conn_fail(c, PC_ERR_WRITE, strerror(n == 0 ? EPIPE : (int)-n), now);
            return;
        }
    }
    h->olen = h->ooff = 0;
    eng_want_write(c, false);
}

/* The server ends the connection after this response: the requests behind
 * it were never processed and go back to the backlog. */
static const char server_closed[] = "server closed the connection with requests unanswered";

static void refuse_rest(http_conn *c, h1state *h, const char *why, uint64_t now)
{
    while (c->count)
        eng_refused(c, pop_head(c, h), why, now);
    h->unsent = h->unwritten = 0;
    h->olen = h->ooff = 0;
}

/* The oldest request's response has ended: count it, hand it to the
 * script's response(), record it. !keep: the server closes after it
 * (why: ENG_CLOSE_*). */
static void complete(http_conn *c, h1state *h, bool keep, int why, uint64_t now)
{
    slot *s = head_slot(c, h);

    h->served++;
    if (!keep)
        eng_close_after(c, s, h->served, why);
    c->env->st->header_wire += h->p.header_bytes;
    c->env->st->header_decoded += h->p.header_bytes;
    c->env->st->body_bytes += h->p.body_bytes;
    if (c->env->want_response)
        eng_script_response(c, h->p.status, &h->rh, &h->rb);
    eng_done(c, pop_head(c, h), h->p.status, h->p.body_bytes, now);
}

/* The response to s has ended (H1_DONE): complete it; false when the
 * connection cannot carry more (the others in flight are refused). */
static bool answered(http_conn *c, h1state *h, const slot *s, uint64_t now)
{
    bool keep = h->p.keep_alive;
    int why = h->p.chunked_with_length ? ENG_CLOSE_TE_CL
              : h->p.version_minor == 0  ? ENG_CLOSE_HTTP10
                                         : ENG_CLOSE_HEADER;

    if (keep && h->ooff < h->olen && h->owr < h1s(h, c, s)->obeg + h1s(h, c, s)->olen) {
        /* Answered before it was fully written (an early error response):
         * the connection cannot carry more. */
        keep = false;
        why = ENG_CLOSE_OTHER;
    }
    complete(c, h, keep, why, now);
    if (!keep) {
        refuse_rest(c, h,
                    why == ENG_CLOSE_TE_CL
                        ? "pacer closed the connection after a response chunked with a "
                          "Content-Length, with requests unanswered"
                        : server_closed,
                    now);
        return false;
    }
    h->need_begin = true;
    return true;
}

static size_t h1_input(http_conn *c, const char *buf, size_t len, uint64_t now)
{
    h1state *h = c->ps;
    size_t off = 0, used;

    while (off < len) {
        slot *s;
        int rc;

        if (c->count == 0) {
            eng_conn_fail(c, PC_ERR_PROTOCOL, "server sent data with no request outstanding", now);
            return len;
        }
        s = head_slot(c, h);
        if (h->need_begin) {
            h1_begin(&h->p, h1s(h, c, s)->head);
            h->need_begin = false;
        }
        eng_first_byte(c, s, now);
        rc = h1_feed(&h->p, buf + off, len - off, &used);
        off += used;
        if (rc == H1_DONE) {
            if (!answered(c, h, s, now))
                return len; /* whatever else came is past the close */
            continue;
        }
        if (rc != H1_NEED_MORE) {
            eng_conn_fail(c, PC_ERR_PROTOCOL, h1_strerror(rc), now);
            return len;
        }
        break;
    }
    /* An unfinished line (bounded by the parser's header limit) is left
     * for the worker to hand back in front of the next read. */
    return off;
}

/* The rest of a body nobody reads (no script response()) may be dropped
 * by the transport unread: h1_skippable says how much. */
static uint64_t h1_skippable_cb(const http_conn *c)
{
    const h1state *h = c->ps;

    return c->count && !h->need_begin ? h1_skippable(&h->p) : 0;
}

static void h1_skip_cb(http_conn *c, size_t n, uint64_t now)
{
    h1state *h = c->ps;

    if (h1_skip(&h->p, n) == H1_DONE)
        answered(c, h, head_slot(c, h), now);
}

static void h1_eof_cb(http_conn *c, uint64_t now)
{
    h1state *h = c->ps;
    int rc;

    if (c->count == 0) {
        eng_idle_closed(c);
        return;
    }
    /* need_begin: not one byte of the oldest request's response has come
     * (the parser still holds the previous, already counted response). */
    rc = h->need_begin ? H1_NEED_MORE : h1_eof(&h->p);
    if (rc == H1_DONE) {
        /* A body ended by the close: of an HTTP/1.0 response, its way. */
        complete(c, h, false, h->p.version_minor == 0 ? ENG_CLOSE_HTTP10 : ENG_CLOSE_OTHER, now);
        refuse_rest(c, h, server_closed, now);
        return;
    }
    if (rc == H1_NEED_MORE)
        eng_conn_fail(c, PC_ERR_READ, "connection closed by the server before the response", now);
    else
        eng_conn_fail(c, PC_ERR_READ,
                      "connection closed by the server in the middle of a response", now);
}

/* HTTP/1.1 cannot abandon one request and keep the connection: the
 * response would still come. Everything in flight ends as a timeout. */
static void h1_timeout(http_conn *c, slot *s, uint64_t now)
{
    const h1state *h = c->ps;
    /* A request whose bytes are not all out: the server stopped reading. */
    const h1slot *hs = h1s(h, c, s);
    bool unwritten = h->owr < hs->obeg + hs->olen;

    eng_conn_fail(c, PC_ERR_TIMEOUT,
                  unwritten ? "request not fully written within --timeout (the server stopped "
                              "reading)"
                            : "no response within --timeout",
                  now);
}

static void h1_reset(http_conn *c)
{
    h1state *h = c->ps;

    h->unsent = h->unwritten = 0;
    h->served = 0;
    h->olen = h->ooff = 0;
    h->p.on_header = NULL;
    h->p.on_body = NULL;
    h->rh.len = h->rb.len = 0, h->rh.cut = h->rb.cut = false;
}

const proto_ops proto_h1 = {
    .name = "http/1.1",
    .transport = HTTP_OVER_TCP,
    .prior_knowledge = true,
    .multiplexed = false,
    .state_new = h1_state_new,
    .state_free = h1_state_free,
    .start = h1_start,
    .capacity = h1_capacity,
    .submit = h1_submit,
    .flush = h1_flush,
    .input = h1_input,
    .eof = h1_eof_cb,
    .timeout = h1_timeout,
    .reset = h1_reset,
    .skippable = h1_skippable_cb,
    .skip = h1_skip_cb,
};

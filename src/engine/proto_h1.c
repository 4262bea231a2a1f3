/*
 * proto_h1.c - HTTP/1.1 over a connection: each request's bytes (built
 * once per distinct request) are copied into the connection's output
 * buffer, so any number of pipelined requests goes out in one write;
 * responses are parsed by h1parse in the order the requests were sent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/conn.h"

/* Headers: the Server header until one is known (ab reports it), and all
 * of them when the script has response(). */
static int on_header(void *ud, const char *name, size_t nlen, const char *value, size_t vlen)
{
    conn *c = ud;
    bool want_server = eng_want_server(c);

    if (want_server && nlen == 6 && strncasecmp(name, "server", 6) == 0)
        eng_server(c, value, vlen);
    if (eng_wants_response(c)) {
        static const char nul = '\0';

        if (memchr(name, 0, nlen) || memchr(value, 0, vlen))
            return 0;
        size_t max = conn_run(c)->resp_cap;

        if (sbuf_add(&c->rh, name, nlen, max) < 0 || sbuf_add(&c->rh, &nul, 1, max) < 0 ||
            sbuf_add(&c->rh, value, vlen, max) < 0 || sbuf_add(&c->rh, &nul, 1, max) < 0)
            return -100;
    } else if (!want_server) {
        c->p.on_header = NULL;
    }
    return 0;
}

static int on_body(void *ud, const char *p, size_t len)
{
    conn *c = ud;

    return sbuf_add(&c->rb, p, len, conn_run(c)->resp_cap);
}

static slot *head_slot(conn *c)
{
    return &c->slots[c->fifo[c->fifo_head]];
}

/* The oldest request is answered: take it off the line. */
static slot *pop_head(conn *c)
{
    slot *s = head_slot(c);

    c->fifo_head = (c->fifo_head + 1) % c->depth;
    return s;
}

static int h1_start(conn *c, uint64_t now)
{
    (void)now;
    c->need_begin = true;
    c->unsent = 0;
    c->olen = c->ooff = 0;
    c->otot = c->owr = 0;
    c->carry_len = 0;
    c->rh.len = c->rb.len = 0;
    c->p.ud = c;
    c->p.on_header = eng_want_server(c) || eng_wants_response(c) ? on_header : NULL;
    c->p.on_body = eng_wants_response(c) ? on_body : NULL;
    return 0;
}

static uint32_t h1_capacity(const conn *c)
{
    return conn_run(c)->h1_depth;
}

/* Queue the request's bytes: a copy of its template into the connection's
 * output buffer (allocated once, grown to the largest pipelined batch). */
static void h1_submit(conn *c, slot *s)
{
    size_t len;
    bool head;
    const char *bytes = eng_h1_bytes(c, s, &len, &head);

    s->head = head;
    s->olen = (uint32_t)len;
    if (!bytes && len == 0 && c->count > 1) {
        /* Part of the batch the first request's bytes carry. */
        s->obeg = c->otot ? c->otot - 1 : 0;
        c->unsent++;
        return;
    }
    if (!bytes) {
        eng_failed(c, s, PC_ERR_WRITE, "script error in request()", 0);
        return;
    }
    if (c->olen + len > c->ocap) {
        size_t cap = c->ocap ? c->ocap : 256;
        char *b;

        while (cap < c->olen + len)
            cap *= 2;
        b = realloc(c->obuf, cap);
        if (!b) {
            eng_failed(c, s, PC_ERR_WRITE, "out of memory", 0);
            return;
        }
        c->obuf = b;
        c->ocap = cap;
    }
    memcpy(c->obuf + c->olen, bytes, len);
    c->olen += len;
    s->obeg = c->otot;
    c->otot += len;
    c->unsent++;
}

static void h1_flush(conn *c, uint64_t now)
{
    while (c->ooff < c->olen) {
        ssize_t n = c->net->write(&c->nc, c->obuf + c->ooff, c->olen - c->ooff);

        if (n > 0) {
            c->ooff += (size_t)n;
            c->owr += (uint64_t)n;
            /* A request is sent when its first byte is. */
            while (c->unsent) {
                slot *s = &c->slots[c->fifo[(c->fifo_head + c->count - c->unsent) % c->depth]];

                if (s->obeg >= c->owr)
                    break;
                s->sent = now;
                if (!c->batch_sent)
                    c->batch_sent = now;
                c->unsent--;
            }
            eng_written(c, (size_t)n);
        } else if (n == -EAGAIN) {
            eng_want_write(c, c->nc.want != NET_WANT_READ);
            return;
        } else {
            eng_conn_fail(c, PC_ERR_WRITE, strerror(n == 0 ? EPIPE : (int)-n), now);
            return;
        }
    }
    c->olen = c->ooff = 0;
    eng_want_write(c, false);
}

/* The server ends the connection after this response: the requests behind
 * it were never processed and go back to the backlog. */
static void refuse_rest(conn *c, uint64_t now)
{
    while (c->count)
        eng_refused(c, pop_head(c), "server closed the connection with requests unanswered",
                    now);
    c->unsent = 0;
    c->olen = c->ooff = 0;
}

/* The oldest request's response has ended: count it, hand it to the
 * script's response(), record it. !keep: the server closes after it. */
static void complete(conn *c, bool keep, uint64_t now)
{
    slot *s = head_slot(c);

    if (!keep)
        eng_close_after(c, s);
    eng_headers(c, c->p.header_bytes, c->p.header_bytes);
    eng_body(c, c->p.body_bytes);
    if (eng_wants_response(c))
        eng_script_response(c, c->p.status);
    eng_done(c, pop_head(c), c->p.status, c->p.body_bytes, now);
}

static void h1_input(conn *c, const char *buf, size_t len, uint64_t now)
{
    size_t off = 0, used;

    while (off < len) {
        slot *s;
        int rc;

        if (c->count == 0) {
            eng_conn_fail(c, PC_ERR_PROTOCOL, "server sent data with no request outstanding", now);
            return;
        }
        s = head_slot(c);
        if (c->need_begin) {
            h1_begin(&c->p, s->head);
            c->need_begin = false;
        }
        eng_first_byte(c, s, now);
        rc = h1_feed(&c->p, buf + off, len - off, &used);
        off += used;
        if (rc == H1_DONE) {
            bool keep = c->p.keep_alive;

            if (c->ooff < c->olen && c->owr < s->obeg + s->olen) {
                /* Answered before it was fully written (an early error
                 * response): the connection cannot carry more. */
                keep = false;
            }
            complete(c, keep, now);
            if (!keep) {
                refuse_rest(c, now);
                return; /* whatever else came is past the close */
            }
            c->need_begin = true;
            continue;
        }
        if (rc != H1_NEED_MORE) {
            eng_conn_fail(c, PC_ERR_PROTOCOL, h1_strerror(rc), now);
            return;
        }
        break;
    }
    if (off < len) {
        /* An unfinished line (bounded by the parser's header limit) waits
         * for the rest in a per-connection carry buffer, grown on demand. */
        size_t rest = len - off;

        if (rest > c->carry_cap) {
            char *p = realloc(c->carry, rest);

            if (!p) {
                eng_conn_fail(c, PC_ERR_READ, "out of memory", now);
                return;
            }
            c->carry = p;
            c->carry_cap = (uint32_t)rest;
        }
        memcpy(c->carry, buf + off, rest);
        c->carry_len = (uint32_t)rest;
    }
}

static void h1_eof_cb(conn *c, uint64_t now)
{
    int rc;

    if (c->count == 0) {
        eng_idle_closed(c);
        return;
    }
    /* need_begin: not one byte of the oldest request's response has come
     * (the parser still holds the previous, already counted response). */
    rc = c->need_begin ? H1_NEED_MORE : h1_eof(&c->p);
    if (rc == H1_DONE) {
        complete(c, false, now);
        refuse_rest(c, now);
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
static void h1_timeout(conn *c, slot *s, uint64_t now)
{
    /* A request whose bytes are not all out: the server stopped reading. */
    bool unwritten = c->owr < s->obeg + s->olen;

    eng_conn_fail(c, PC_ERR_TIMEOUT,
                  unwritten ? "request not fully written within --timeout (the server stopped "
                              "reading)"
                            : "no response within --timeout",
                  now);
}

static void h1_reset(conn *c)
{
    c->carry_len = 0;
    c->unsent = 0;
    c->olen = c->ooff = 0;
    c->p.on_header = NULL;
    c->p.on_body = NULL;
    c->rh.len = c->rb.len = 0;
}

const proto_ops proto_h1 = {
    .name = "http/1.1",
    .multiplexed = false,
    .start = h1_start,
    .capacity = h1_capacity,
    .submit = h1_submit,
    .flush = h1_flush,
    .input = h1_input,
    .eof = h1_eof_cb,
    .timeout = h1_timeout,
    .reset = h1_reset,
};

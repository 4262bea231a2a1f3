/*
 * proto_h1.c - HTTP/1.1 over a connection: requests written straight from
 * the run's request buffer (which holds --pipeline copies, so any number
 * of pending requests goes out in one write, nothing copied), responses
 * parsed by h1parse in the order the requests were sent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/conn.h"

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
    h1_begin(&c->p, conn_run(c)->head);
    c->unwritten = 0;
    c->woff = 0;
    c->carry_len = 0;
    return 0;
}

static uint32_t h1_capacity(const conn *c)
{
    return conn_run(c)->cfg->pipeline;
}

static void h1_submit(conn *c, slot *s)
{
    (void)s;
    c->unwritten++;
}

static void h1_flush(conn *c, uint64_t now)
{
    const pc_run *run = conn_run(c);
    size_t rl = run->request_len;

    while (c->unwritten) {
        size_t len = (size_t)c->unwritten * rl - c->woff;
        ssize_t n = c->net->write(&c->nc, run->request + c->woff, len);

        if (n > 0) {
            size_t total = c->woff + (size_t)n;
            uint32_t first = c->count - c->unwritten;
            uint32_t touched = (uint32_t)((total + rl - 1) / rl);

            for (uint32_t i = 0; i < touched; i++) {
                slot *s = &c->slots[c->fifo[(c->fifo_head + first + i) % c->depth]];

                if (!s->sent)
                    s->sent = now;
                if (!c->batch_sent)
                    c->batch_sent = now;
            }
            c->unwritten -= (uint32_t)(total / rl);
            c->woff = total % rl;
            eng_written(c, (size_t)n);
        } else if (n == -EAGAIN) {
            eng_want_write(c, c->nc.want != NET_WANT_READ);
            return;
        } else {
            eng_conn_fail(c, PC_ERR_WRITE, strerror(n == 0 ? EPIPE : (int)-n), now);
            return;
        }
    }
    eng_want_write(c, false);
}

/* The server ends the connection after this response: the requests behind
 * it were never processed and go back to the backlog. */
static void refuse_rest(conn *c, uint64_t now)
{
    while (c->count)
        eng_refused(c, pop_head(c), "server closed the connection with requests unanswered",
                    now);
    c->unwritten = 0;
    c->woff = 0;
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
        eng_first_byte(c, s, now);
        rc = h1_feed(&c->p, buf + off, len - off, &used);
        off += used;
        if (rc == H1_DONE) {
            bool keep = c->p.keep_alive;

            if (c->unwritten >= c->count) {
                /* Answered before it was fully written (an early error
                 * response): stop writing it, and close after. */
                c->unwritten = c->count - 1;
                c->woff = 0;
                keep = false;
            }
            if (!keep)
                eng_close_after(c, s);
            eng_headers(c, c->p.header_bytes, c->p.header_bytes);
            eng_body(c, c->p.body_bytes);
            eng_done(c, pop_head(c), c->p.status, now);
            if (!keep) {
                refuse_rest(c, now);
                return; /* whatever else came is past the close */
            }
            h1_begin(&c->p, conn_run(c)->head);
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
    rc = h1_eof(&c->p);
    if (rc == H1_DONE) {
        slot *s = pop_head(c);

        eng_close_after(c, s);
        eng_headers(c, c->p.header_bytes, c->p.header_bytes);
        eng_body(c, c->p.body_bytes);
        eng_done(c, s, c->p.status, now);
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
    (void)s;
    eng_conn_fail(c, PC_ERR_TIMEOUT, "no response within --timeout", now);
}

static void h1_reset(conn *c)
{
    c->carry_len = 0;
    c->unwritten = 0;
    c->woff = 0;
}

const proto_ops proto_h1 = {
    .name = "http/1.1",
    .start = h1_start,
    .capacity = h1_capacity,
    .submit = h1_submit,
    .flush = h1_flush,
    .input = h1_input,
    .eof = h1_eof_cb,
    .timeout = h1_timeout,
    .reset = h1_reset,
};

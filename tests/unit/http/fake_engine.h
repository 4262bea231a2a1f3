/*
 * fake_engine.h - drive one protocol alone: the eng_* calls a protocol makes
 * (http/http.h) as a fake engine that logs each one as a line ("done 0 200
 * 5", "conn_fail protocol: why"), and a fake transport that keeps what the
 * protocol writes (bytes out). A test includes the protocol's .c file
 * itself (as h2o's unit tests do) and this, and links nothing of the engine
 * or the other protocols (the Makefile's rule for tests/unit/http/).
 *
 * Slots are handed out and released as the engine would (fe_submit); a
 * response the protocol reports ends the slot here too.
 */
#ifndef PACER_TESTS_FAKE_ENGINE_H
#define PACER_TESTS_FAKE_ENGINE_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/http.h"
#include "stats/stats.h"

#define FE_DEPTH 8

typedef struct fake_engine {
    http_conn c;
    slot slots[FE_DEPTH];
    http_settings set;
    http_env env;
    pc_stats st;
    pc_request req[FE_DEPTH]; /* what eng_request hands out, by slot */
    char log[16384];          /* one line per eng_* call */
    size_t log_len;
    unsigned char out[65536]; /* bytes the protocol wrote */
    size_t out_len;
    size_t writes;            /* write calls (datagrams over QUIC) */
    int write_rc;             /* 0: take everything; else what write returns (-EAGAIN, -EPIPE) */
    bool want_write;
    uint64_t timer;           /* eng_timer's last */
    bool drained, goaway, closed_idle, recycled;
    uint64_t *spoke;          /* eng_speaks' counter */
    int conn_fails;
} fake_engine;

static fake_engine *fe_now; /* the one the eng_* calls log into */

static inline void fe_log(const char *fmt, ...)
{
    va_list ap;
    fake_engine *e = fe_now;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(e->log + e->log_len, sizeof e->log - e->log_len, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n < sizeof e->log - e->log_len - 1) {
        e->log_len += (size_t)n;
        e->log[e->log_len++] = '\n';
        e->log[e->log_len] = '\0';
    }
}

static inline uint32_t fe_idx(const slot *s)
{
    return (uint32_t)(s - fe_now->slots);
}

static inline void fe_release(slot *s)
{
    s->used = false;
    fe_now->c.count--;
}

/* ---- the transport ----------------------------------------------------- */

static inline ssize_t fe_write(net_conn *nc, const void *buf, size_t len)
{
    fake_engine *e = fe_now;

    if (e->write_rc) {
        if (e->write_rc == -EAGAIN)
            nc->want = NET_WANT_WRITE;
        return e->write_rc;
    }
    if (len > sizeof e->out - e->out_len)
        len = sizeof e->out - e->out_len;
    memcpy(e->out + e->out_len, buf, len);
    e->out_len += len;
    e->writes++;
    nc->tx_bytes += len; /* as the real transports count (net_tx_times) */
    return (ssize_t)len;
}

static const net_ops fe_net = {.write = fe_write};

/* ---- the engine ---------------------------------------------------------- */

void eng_done(http_conn *c, slot *s, int status, uint64_t body_len, uint64_t now)
{
    (void)c;
    (void)now;
    fe_log("done %u %d %llu", fe_idx(s), status, (unsigned long long)body_len);
    fe_release(s);
}

void eng_failed(http_conn *c, slot *s, enum pc_err_kind kind, const char *why, uint64_t now)
{
    (void)c;
    (void)now;
    fe_log("failed %u %s: %s", fe_idx(s), pc_err_name(kind), why);
    fe_release(s);
}

void eng_refused(http_conn *c, slot *s, const char *why, uint64_t now)
{
    (void)c;
    (void)now;
    fe_log("refused %u: %s", fe_idx(s), why);
    fe_release(s);
}

void eng_first_byte(http_conn *c, slot *s, uint64_t now)
{
    (void)c;
    if (!s->first_byte)
        s->first_byte = now;
}

const pc_request *eng_request(http_conn *c, slot *s)
{
    (void)c;
    return &fe_now->req[fe_idx(s)];
}

void eng_script_response(http_conn *c, int status, sbuf *hdrs, sbuf *body)
{
    (void)c;
    fe_log("response %d %zu %zu", status, hdrs->len, body->len);
    sbuf_clear(hdrs);
    sbuf_clear(body);
}

void eng_server(http_conn *c, const char *v, size_t n)
{
    (void)c;
    if (n >= sizeof fe_now->st.server)
        n = sizeof fe_now->st.server - 1;
    memcpy(fe_now->st.server, v, n);
    fe_now->st.server[n] = '\0';
}

void eng_conn_fail(http_conn *c, enum pc_err_kind kind, const char *why, uint64_t now)
{
    (void)now;
    fe_log("conn_fail %s: %s", pc_err_name(kind), why);
    fe_now->conn_fails++;
    for (uint32_t i = 0; i < FE_DEPTH; i++)
        if (fe_now->slots[i].used)
            fe_release(&fe_now->slots[i]);
    c->gen++;
}

void eng_conn_recycle(http_conn *c, uint64_t now)
{
    (void)now;
    fe_log("recycle");
    fe_now->recycled = true;
    c->gen++;
}

void eng_drain(http_conn *c)
{
    (void)c;
    fe_now->drained = true;
}

void eng_goaway(http_conn *c)
{
    (void)c;
    fe_log("goaway");
    fe_now->goaway = true;
}

void eng_close_after(http_conn *c, const slot *s, uint64_t n, int why)
{
    (void)c;
    fe_log("close_after %u %llu %d", fe_idx(s), (unsigned long long)n, why);
    fe_now->drained = true;
}

void eng_idle_closed(http_conn *c)
{
    (void)c;
    fe_log("idle_closed");
    fe_now->closed_idle = true;
}

void eng_speaks(http_conn *c, uint64_t *counter)
{
    (void)c;
    (*(fe_now->spoke = counter))++;
}

/* Logged only where the transport stamps sends (as the engine acts only
 * then), so that other tests' logs stay the outcomes alone. */
void eng_wrote(http_conn *c)
{
    if (c->nc.tx_ts)
        fe_log("wrote %llu", (unsigned long long)c->nc.tx_bytes);
}

void eng_want_write(http_conn *c, bool on)
{
    (void)c;
    fe_now->want_write = on;
}

void eng_timer(http_conn *c, uint64_t when)
{
    (void)c;
    fe_now->timer = when;
}

void eng_tls_done(http_conn *c, uint64_t now, bool resumed, const char *version,
                  const char *cipher)
{
    (void)c;
    (void)now;
    fe_log("tls_done %d %s %s", resumed, version, cipher);
}

void eng_connect_timeout(http_conn *c, const char *why, uint64_t now)
{
    (void)c;
    (void)now;
    fe_log("connect_timeout: %s", why ? why : "connect timed out (QUIC handshake)");
}

/* ---- driving ------------------------------------------------------------- */

/* A fresh engine with one connection of FE_DEPTH slots, speaking p (its
 * state made, not started). */
static inline void fe_init(fake_engine *e, const proto_ops *p)
{
    memset(e, 0, sizeof *e);
    fe_now = e;
    stats_init(&e->st);
    e->set = (http_settings){.resp_cap = 1u << 20, .h1_depth = FE_DEPTH, .streams = FE_DEPTH,
                             .window_bits = 24, .conn_window_bits = 24, .h3_window = 1u << 18,
                             .h3_conn_window = 1u << 20, .connect_timeout_ns = 2000000000ull,
                             .tls_resume = true, .authority = "example.test"};
    e->env = (http_env){.set = &e->set, .st = &e->st};
    e->c.env = &e->env;
    e->c.net = &fe_net;
    e->c.nc.fd = -1;
    e->c.slots = e->slots;
    e->c.depth = FE_DEPTH;
    e->c.peer = "example.test";
    e->c.ps = p->state_new(&e->c);
}

static inline void fe_free(fake_engine *e, const proto_ops *p)
{
    p->state_free(e->c.ps);
    stats_free(&e->st);
}

/* Hand the protocol a request (the HTTP/1.1 text h1, and for HTTP/2 and
 * HTTP/3 the same as fields made from it) in the next free slot. */
static inline slot *fe_submit(fake_engine *e, const proto_ops *p, const char *h1, bool head)
{
    for (uint32_t i = 0; i < FE_DEPTH; i++) {
        slot *s = &e->slots[i];

        if (s->used)
            continue;
        memset(s, 0, sizeof *s);
        s->used = true;
        e->c.count++;
        e->req[i] = (pc_request){.h1 = h1, .h1_len = strlen(h1), .head = head, .built = true};
        p->submit(&e->c, s);
        return s;
    }
    return NULL;
}

/* Whether line (a whole line) is in the log. */
static inline bool fe_logged(const fake_engine *e, const char *line)
{
    size_t n = strlen(line);

    for (const char *p = e->log; (p = strstr(p, line)); p++)
        if ((p == e->log || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
            return true;
    return false;
}

#endif

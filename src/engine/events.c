/*
 * events.c - what the protocols report (http/http.h's eng_*): record and
 * release only; the worker decides what happens next.
 */
#include "engine/worker_int.h"

/* ---- what the protocols report ----------------------------------------- */

void eng_first_byte(http_conn *hc, slot *s, uint64_t now)
{
    (void)hc;
    if (!s->first_byte)
        s->first_byte = now;
}

/* ---- the kernel's send stamps (net_tx_times) ----------------------------- */

#define TX_STAMPS 32

int conn_tx_collect(conn *c)
{
    net_tx_stamp st[TX_STAMPS];
    int n = net_tx_stamps(&c->h.nc, st, TX_STAMPS);
    uint64_t mono, real;

    if (n <= 0 || !c->h.count || !(real = pc_real_ns()))
        return n;
    mono = pc_now_ns();
    /* In the order the kernel sent them: a request's stamp is the first
     * whose send ends at or past the byte its write began with. */
    for (int i = 0; i < n; i++) {
        uint64_t t = pc_mono_of_real(st[i].real, mono, real);

        for (uint32_t j = 0; j < c->h.depth; j++) {
            slot *s = &c->h.slots[j];

            if (s->used && s->tx_wait && (int32_t)(st[i].key - s->tx_key) >= 0) {
                s->wire = t > s->sent ? t : s->sent; /* never before pacer wrote it */
                s->tx_wait = false;
            }
        }
    }
    return n;
}

void eng_wrote(http_conn *hc)
{
    if (hc->nc.tx_ts)
        conn_tx_collect(conn_of(hc));
}

void eng_done(http_conn *hc, slot *s, int status, uint64_t body_len, uint64_t now)
{
    conn *c = conn_of(hc);
    pc_worker *w = c->w;

    if (s->tx_wait) /* its stamp came after the last write's look (a device's late stamp) */
        conn_tx_collect(c);
    c->reused = true;
    c->fails = 0;
    if (!warm(w, s->intended)) {
        c->done_total++;
        if (!c->draining)
            w->st.keepalive_responses++;
    }
    rec_done(w, s, now, status, body_len);
    queue_slot_release(c, s);
    if (c->h.count == 0 && w->cfg->batch_latency && w->depth > 1 && !warm(w, c->batch_intended)) {
        rec_latency(w, (int64_t)(now - c->batch_intended),
                    (int64_t)(now - (c->h.batch_sent ? c->h.batch_sent : now)));
        hdr_record(&w->st.batch, (int64_t)(now - c->batch_intended));
    }
}

void eng_failed(http_conn *hc, slot *s, enum pc_err_kind kind, const char *why, uint64_t now)
{
    conn *c = conn_of(hc);

    stats_why(&c->w->st, kind, why);
    rec_failed(c->w, s, kind, now);
    queue_slot_release(c, s);
}

void eng_refused(http_conn *hc, slot *s, const char *why, uint64_t now)
{
    conn *c = conn_of(hc);
    pc_worker *w = c->w;

    /* A connection that answered nothing, nor said it took anything on (a
     * GOAWAY sent before the responses it covers): a server making no progress. */
    uint8_t idle = (uint8_t)(s->idle_refusals + !(c->reused || c->h.served));

    if (idle > MAX_RETRIES || s->retries >= MAX_RETRIES_ALL) {
        char buf[STATS_WHY_LEN];

        snprintf(buf, sizeof buf, "%s, %d times", why, s->retries + 1);
        eng_failed(&c->h, s, PC_ERR_PROTOCOL, buf, now);
        return;
    }
    /* Back to the front of its origin's line: it was due before anything
     * queued. */
    if (queue_push(w, (resend){.intended = s->intended, .retries = (uint8_t)(s->retries + 1),
                               .idle_refusals = idle, .tmpl = s->tmpl},
                true) < 0) {
        eng_failed(&c->h, s, PC_ERR_PROTOCOL, "out of memory to re-send it", now);
        return;
    }
    if (!warm(w, s->intended))
        w->st.resent++;
    queue_slot_release(c, s);
}

void eng_drain(http_conn *hc)
{
    conn_of(hc)->draining = true;
}

const pc_request *eng_request(http_conn *hc, slot *s)
{
    conn *c = conn_of(hc);
    static const pc_request in_batch; /* no bytes of its own */
    pc_worker *w = c->w;

    /* request() returns a whole pipelined batch: the batch's first request
     * carries the bytes, the others none. */
    const pc_request *q;
    char why[STATS_WHY_LEN], fault[112];

    if (w->src.per_call && c->h.count > 1 && !c->proto->multiplexed && !w->open_loop)
        return &in_batch;
    q = w->src.ops->next(w->src.self, s->tmpl);
    if (!q) {
        eng_failed(&c->h, s, PC_ERR_WRITE, "script error in request()", 0);
        return NULL;
    }
    /* Text a source made (a script's; a template is built from checked
     * options, req.built) is checked here, once for
     * every protocol, before any of them sends a byte of it: HTTP/1.1
     * would put it on the wire as it is, HTTP/2 and HTTP/3 would turn its
     * faults into header fields. The same text again (wrk.format()'s,
     * built once) is not checked again. */
    if (!q->built && !q->fields && q->h1 && (q->transient || q->h1 != w->text_ok)) {
        if (h1req_check(q->h1, q->h1_len, fault, sizeof fault) < 0) {
            snprintf(why, sizeof why, "script request is not valid HTTP/1.1 text: %s", fault);
            eng_failed(&c->h, s, PC_ERR_WRITE, why, 0);
            return NULL;
        }
        if (!q->transient)
            w->text_ok = q->h1;
    }
    return q;
}

void eng_script_response(http_conn *hc, int status, sbuf *hdrs, sbuf *body)
{
    conn *c = conn_of(hc);

    if (hdrs->cut || body->cut)
        c->w->st.script_cut++;
    c->w->src.ops->response(c->w->src.self, status, hdrs->p, hdrs->len, body->p, body->len);
    hdrs->len = body->len = 0;
    hdrs->cut = body->cut = false;
}

void eng_server(http_conn *hc, const char *v, size_t n)
{
    conn *c = conn_of(hc);
    pc_stats *st = &c->w->st;

    if (!st->server[0]) {
        if (n >= sizeof st->server)
            n = sizeof st->server - 1;
        memcpy(st->server, v, n);
        st->server[n] = '\0';
        for (char *p = st->server; *p; p++)
            if ((unsigned char)*p < ' ')
                *p = '?';
    }
}

void eng_close_after(http_conn *hc, const slot *s, uint64_t n, int why)
{
    conn *c = conn_of(hc);
    pc_stats *st = &c->w->st;

    if (why == ENG_CLOSE_TE_CL) {
        if (!warm(c->w, s->intended))
            st->chunked_with_length++; /* pacer closes it, not the server */
    } else if (!warm(c->w, s->intended)) {
        st->server_closes++;
        hdr_record(&st->close_after, (int64_t)(n ? n : 1));
        if (why == ENG_CLOSE_HTTP10)
            st->close_http10++;
        else if (why == ENG_CLOSE_OTHER)
            st->close_other++;
    }
    conn_ended(c, CONN_END_SERVER);
    c->draining = true;
}

/* The EOF (or TLS close_notify) that follows a Connection: close or a
 * GOAWAY is the close that was announced, already counted there. */
void eng_idle_closed(http_conn *hc)
{
    conn *c = conn_of(hc);

    if (c->reused && !c->draining)
        c->w->st.idle_closes++;
    conn_ended(c, CONN_END_SERVER);
}

void eng_goaway(http_conn *hc)
{
    conn_of(hc)->goaway = true;
}

/* The counter (pc_stats h1_conns, h2_conns) is kept too: rec_warmup_end counts
 * the connections still open in it again. */
void eng_speaks(http_conn *hc, uint64_t *counter)
{
    conn *c = conn_of(hc);

    (*(c->spoke = counter))++;
}

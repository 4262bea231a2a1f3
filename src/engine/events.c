/*
 * events.c - what the protocols report (conn.h's eng_*): record and
 * release only; the worker decides what happens next.
 */
#include "engine/worker_int.h"

/* ---- what the protocols report ----------------------------------------- */

void eng_first_byte(conn *c, slot *s, uint64_t now)
{
    (void)c;
    if (!s->first_byte)
        s->first_byte = now;
}

void eng_done(conn *c, slot *s, int status, uint64_t body_len, uint64_t now)
{
    pc_worker *w = c->w;

    c->reused = true;
    c->fails = 0;
    if (!warm(w, s->intended)) {
        c->done_total++;
        if (!c->draining)
            w->st.keepalive_responses++;
    }
    record_done(w, s, now, status, body_len);
    slot_release(c, s);
    if (c->count == 0 && w->cfg->batch_latency && w->depth > 1 && !warm(w, c->batch_intended)) {
        rec_latency(w, (int64_t)(now - c->batch_intended),
                    (int64_t)(now - (c->batch_sent ? c->batch_sent : now)));
        hdr_record(&w->st.batch, (int64_t)(now - c->batch_intended));
    }
}

void eng_failed(conn *c, slot *s, enum pc_err_kind kind, const char *why, uint64_t now)
{
    stats_why(&c->w->st, kind, why);
    record_failed(c->w, s, kind, now);
    slot_release(c, s);
}

void eng_refused(conn *c, slot *s, const char *why, uint64_t now)
{
    pc_worker *w = c->w;

    if (s->retries >= MAX_RETRIES) {
        char buf[STATS_WHY_LEN];

        snprintf(buf, sizeof buf, "%s, %d times", why, MAX_RETRIES + 1);
        eng_failed(c, s, PC_ERR_PROTOCOL, buf, now);
        return;
    }
    /* Back to the front of its origin's line: it was due before anything
     * queued. */
    if (oq_push(w, (resend){.intended = s->intended, .retries = (uint8_t)(s->retries + 1),
                            .tmpl = s->tmpl},
                true) < 0) {
        eng_failed(c, s, PC_ERR_PROTOCOL, "out of memory to re-send it", now);
        return;
    }
    if (!warm(w, s->intended))
        w->st.resent++;
    slot_release(c, s);
}

void eng_drain(conn *c)
{
    c->draining = true;
}

const pc_request *eng_request(conn *c, slot *s)
{
    static const pc_request in_batch; /* no bytes of its own */
    pc_worker *w = c->w;

    /* request() returns a whole pipelined batch: the batch's first request
     * carries the bytes, the others none. */
    const pc_request *q;
    char why[STATS_WHY_LEN], fault[112];

    if (w->src.per_call && c->count > 1 && !c->proto->multiplexed && !w->open_loop)
        return &in_batch;
    q = w->src.ops->next(w->src.self, s->tmpl);
    if (!q) {
        eng_failed(c, s, PC_ERR_WRITE, "script error in request()", 0);
        return NULL;
    }
    /* Text a source made (a script's; a template is built from checked
     * options, req.built) is checked here, once for
     * every protocol, before any of them sends a byte of it: HTTP/1.1
     * would put it on the wire as it is, HTTP/2 and HTTP/3 would turn its
     * faults into header fields. The same text again (wrk.format()'s,
     * built once) is not checked again. */
    if (!q->built && !q->nva && q->h1 && (q->transient || q->h1 != w->text_ok)) {
        if (h1req_check(q->h1, q->h1_len, fault, sizeof fault) < 0) {
            snprintf(why, sizeof why, "script request is not valid HTTP/1.1 text: %s", fault);
            eng_failed(c, s, PC_ERR_WRITE, why, 0);
            return NULL;
        }
        if (!q->transient)
            w->text_ok = q->h1;
    }
    return q;
}

int sbuf_add(sbuf *b, const char *p, size_t n, size_t max)
{
    if (b->len + n > max) {
        b->cut = true; /* counted where the script is handed it */
        return 0;
    }
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        char *q;

        while (cap < b->len + n)
            cap *= 2;
        q = realloc(b->p, cap);
        if (!q)
            return -ENOMEM;
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}

bool eng_keep_body(conn *c, slot *s, const pc_request *q, const char *body, size_t len, sbuf *b)
{
    s->req_body = body;
    s->req_body_len = len;
    if (!len || !q->transient)
        return true;
    if (b)
        b->len = 0;
    if (!b || sbuf_add(b, body, len, SBUF_REQUEST_MAX) < 0) {
        eng_failed(c, s, PC_ERR_WRITE, "out of memory", 0);
        return false;
    }
    s->req_body = b->p;
    return true;
}

bool eng_wants_response(const conn *c)
{
    return c->w->src.wants_response;
}

bool eng_requests_change(const conn *c)
{
    return c->w->src.per_call;
}

void eng_script_response(conn *c, int status, sbuf *hdrs, sbuf *body)
{
    if (hdrs->cut || body->cut)
        c->w->st.script_cut++;
    c->w->src.ops->response(c->w->src.self, status, hdrs->p, hdrs->len, body->p, body->len);
    hdrs->len = body->len = 0;
    hdrs->cut = body->cut = false;
}

bool eng_want_server(const conn *c)
{
    return !c->w->st.server[0];
}

void eng_server(conn *c, const char *v, size_t n)
{
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

void eng_written(conn *c, size_t n)
{
    c->w->st.bytes_written += n;
}

void eng_close_after(conn *c, const slot *s, uint64_t n, int why)
{
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
void eng_idle_closed(conn *c)
{
    if (c->reused && !c->draining)
        c->w->st.idle_closes++;
    conn_ended(c, CONN_END_SERVER);
}

void eng_headers(conn *c, uint64_t wire, uint64_t decoded)
{
    c->w->st.header_wire += wire;
    c->w->st.header_decoded += decoded;
}

void eng_body(conn *c, uint64_t n)
{
    c->w->st.body_bytes += n;
}

long eng_script_fields(conn *c, slot *s, const pc_request *q, const char *scheme, h1req_field *f,
                       char *names, size_t cap, h1req_parsed *r)
{
    if (h1req_parse(q->h1, q->h1_len, r) < 0) {
        eng_failed(c, s, PC_ERR_WRITE, "script request is not valid HTTP/1.1 text", 0);
        return -1;
    }
    return (long)h1req_fields(r, scheme, conn_run(c)->cfg->url.hostport, f, names, cap);
}

int eng_body_data(conn *c, slot *s, sbuf *b, const char *p, size_t n, uint64_t now)
{
    eng_body(c, n);
    if (!s)
        return 0;
    s->body += n;
    eng_first_byte(c, s, now);
    return b ? sbuf_add(b, p, n, conn_run(c)->resp_cap) : 0;
}

int eng_header_pair(conn *c, sbuf *b, const char *n, size_t nl, const char *v, size_t vl)
{
    static const char nul = '\0';
    size_t max = conn_run(c)->resp_cap;

    if (!b || memchr(n, 0, nl) || memchr(v, 0, vl)) /* a NUL would split the pair */
        return 0;
    if (sbuf_add(b, n, nl, max) < 0 || sbuf_add(b, &nul, 1, max) < 0 ||
        sbuf_add(b, v, vl, max) < 0 || sbuf_add(b, &nul, 1, max) < 0)
        return -ENOMEM;
    return 0;
}

void eng_h2_event(conn *c, int ev)
{
    if (ev == H2EV_RST)
        c->w->st.h2_rst++;
    else if (ev == H2EV_REFUSED)
        c->w->st.h2_refused++;
    else if (ev == H2EV_GOAWAY)
        c->w->st.h2_goaway++, c->goaway = true;
    else
        (*(c->spoke = &c->w->st.h2_conns))++;
}

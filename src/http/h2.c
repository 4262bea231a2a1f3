/*
 * h2.c - HTTP/2 over a connection, with nghttp2 doing the framing,
 * HPACK and flow control: one nghttp2 session per connection, bytes moved
 * with mem_recv / mem_send so the engine keeps control of the socket.
 *
 * Requests are HEADERS-only streams built from the run's header list. A
 * stream's slot is its nghttp2 stream user data. The callbacks only record
 * (eng_done, eng_failed, eng_refused); the engine decides what comes next
 * once nghttp2 has returned.
 */
#include <errno.h>
#include <inttypes.h>
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http/http.h"
#include "proto/h1req.h"
#include "util/grow.h"

/* What pacer's side saw of one stream's response, to name what nghttp2
 * decided when it resets the stream itself (RFC 9113 8.1.1: a malformed
 * response is a stream error of type PROTOCOL_ERROR). */
typedef struct h2stream {
    http_stream hs;   /* what HTTP/2 and HTTP/3 keep of every request */
    int64_t clen;     /* its content-length, -1 if none */
    int lib_err;      /* nghttp2's error for it (on_invalid_frame_recv), 0 if none */
    bool any_status;  /* a :status came (an interim 1xx counts) */
    bool final_done;  /* the final response's header block has ended */
    bool reset_here;  /* nghttp2 sent RST_STREAM for it, not pacer's timeout */
    uint32_t rst_code; /* that RST_STREAM's code */
    bool padded;      /* a DATA frame was padded: data counts the padding too */
    uint64_t data;    /* DATA payload bytes, from the frame headers */
    char bad_name[24]; /* the invalid header field's name, when nghttp2 said it */
} h2stream;

/* What HTTP/2 keeps per connection (http_conn.ps). */
typedef struct h2state {
    nghttp2_session *s;
    http_conn *c;
    uint64_t now;        /* time of the bytes being processed */
    uint8_t *out;        /* bytes nghttp2 produced that the socket did not take yet */
    size_t out_len, out_off, out_cap;
    int32_t goaway_last; /* last stream id of a GOAWAY, -1 if none */
    uint32_t goaway_code; /* its error code */
    bool answered;       /* a stream on this connection ended with a response */
    uint32_t remote_max; /* the server's SETTINGS_MAX_CONCURRENT_STREAMS */
    bool got_bytes;      /* the server has sent something on this connection */
    char lib_why[96];    /* nghttp2's account of the last error it detected */
    char bad_name[24];   /* the name in nghttp2's last "invalid header field" */
    char term_why[STATS_WHY_LEN]; /* set when pacer's side ended the session on an error */
    sbuf *sb; /* with a script: per slot, SB_PER_SLOT buffers; NULL without one */
    h2stream *ss; /* per slot */
    nghttp2_nv *nv; /* a request's header list, for submit (nghttp2 copies the list) */
    size_t nv_cap;
} h2state;

/* One of the slot's script buffers, or NULL without a script. */
static sbuf *slot_buf(const h2state *h, const slot *s, int which)
{
    return http_slot_buf(h->sb, h->c, s, which);
}

static slot *stream_slot(nghttp2_session *s, int32_t id)
{
    return nghttp2_session_get_stream_user_data(s, id);
}

static h2stream *slot_stream(const h2state *h, const slot *s)
{
    return &h->ss[http_slot_index(h->c, s)];
}

static http_stream *hstream(const h2state *h, const slot *s)
{
    return &slot_stream(h, s)->hs;
}

static int on_begin_headers(nghttp2_session *s, const nghttp2_frame *f, void *ud)
{
    h2state *h = ud;
    slot *sl = stream_slot(s, f->hd.stream_id);

    if (sl)
        eng_first_byte(h->c, sl, h->now);
    return 0;
}

static int on_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name,
                     size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
                     void *ud)
{
    h2state *h = ud;
    slot *sl;

    (void)flags;
    if (f->hd.type != NGHTTP2_HEADERS)
        return 0;
    h->c->env->st->header_decoded += namelen + valuelen;
    sl = stream_slot(s, f->hd.stream_id);
    if (namelen == 6 && memcmp(name, "server", 6) == 0 && http_want_server(h->c))
        eng_server(h->c, (const char *)value, valuelen);
    if (sl && name[0] != ':' && h->c->env->want_response &&
        http_header_pair(h->c, slot_buf(h, sl, SB_HEADERS), (const char *)name, namelen,
                        (const char *)value, valuelen) < 0)
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    if (sl && !slot_stream(h, sl)->final_done && namelen == 14 &&
        memcmp(name, "content-length", 14) == 0) {
        int64_t v = 0; /* nghttp2 let it through: digits only */

        for (size_t i = 0; i < valuelen && v < INT64_MAX / 10 - 9; i++)
            v = v * 10 + (value[i] - '0');
        slot_stream(h, sl)->clen = v;
    }
    if (sl && namelen == 7 && memcmp(name, ":status", 7) == 0) {
        slot_stream(h, sl)->any_status = true;
        slot_stream(h, sl)->clen = -1; /* each (interim or final) response has its own */
    }
    if (sl && namelen == 7 && memcmp(name, ":status", 7) == 0 && valuelen == 3 &&
        value[0] >= '0' && value[0] <= '9' && value[1] >= '0' && value[1] <= '9' &&
        value[2] >= '0' && value[2] <= '9') {
        int status = (value[0] - '0') * 100 + (value[1] - '0') * 10 + (value[2] - '0');

        /* 1xx responses are interim: the final one follows. A code outside
         * 100..599 is final and not 2xx (RFC 9110 15), kept as it came. */
        if (status >= 200 || (status < 100 && status > 0))
            hstream(h, sl)->status = status;
    }
    return 0;
}

/* Frames as they begin, before nghttp2 checks them: header bytes as they
 * came (a header block nghttp2 rejects too), DATA before it is checked
 * against the length. */
static int on_begin_frame(nghttp2_session *s, const nghttp2_frame_hd *hd, void *ud)
{
    h2state *h = ud;
    slot *sl;

    if (hd->type == NGHTTP2_HEADERS || hd->type == NGHTTP2_CONTINUATION)
        h->c->env->st->header_wire += hd->length;
    if (hd->type == NGHTTP2_DATA && (sl = stream_slot(s, hd->stream_id))) {
        slot_stream(h, sl)->data += hd->length;
        if (hd->flags & NGHTTP2_FLAG_PADDED)
            slot_stream(h, sl)->padded = true;
    }
    return 0;
}

static int on_data_chunk(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *data,
                         size_t len, void *ud)
{
    h2state *h = ud;
    slot *sl = stream_slot(s, id);

    (void)flags;
    if (http_body_data(h->c, sl, sl ? hstream(h, sl) : NULL,
                       sl && h->c->env->want_response ? slot_buf(h, sl, SB_BODY) : NULL,
                       (const char *)data, len, h->now) < 0)
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    return 0;
}

static int on_frame_recv(nghttp2_session *s, const nghttp2_frame *f, void *ud)
{
    h2state *h = ud;
    slot *sl;

    switch (f->hd.type) {
    case NGHTTP2_HEADERS:
        if ((sl = stream_slot(s, f->hd.stream_id)) && hstream(h, sl)->status)
            slot_stream(h, sl)->final_done = true;
        break;
    case NGHTTP2_SETTINGS:
        if (!(f->hd.flags & NGHTTP2_FLAG_ACK))
            h->remote_max =
                nghttp2_session_get_remote_settings(s, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
        break;
    case NGHTTP2_GOAWAY:
        h->c->env->st->h2_goaway++;
        eng_goaway(h->c);
        h->goaway_last = f->goaway.last_stream_id;
        if (f->goaway.last_stream_id > 0) /* it processes, or will, streams up to there */
            h->c->served = true;
        h->goaway_code = f->goaway.error_code;
        eng_drain(h->c);
        break;
    default:
        break;
    }
    return 0;
}

static int on_frame_send(nghttp2_session *s, const nghttp2_frame *f, void *ud)
{
    h2state *h = ud;
    slot *sl;

    /* Framed into an output buffer that was empty (h2_flush): its write
     * begins at the transport's count now. */
    if (f->hd.type == NGHTTP2_HEADERS && (sl = stream_slot(s, f->hd.stream_id)) && !sl->sent)
        http_mark_sent(h->c, sl, h->now, h->c->nc.tx_bytes);
    /* The request's last frame (hey's Request-write ends here). */
    if ((f->hd.type == NGHTTP2_HEADERS || f->hd.type == NGHTTP2_DATA) &&
        (f->hd.flags & NGHTTP2_FLAG_END_STREAM) && (sl = stream_slot(s, f->hd.stream_id)))
        sl->written = h->now;
    /* A reset pacer's timeout sends has no slot any more: one with a slot
     * is nghttp2's, for what it found wrong in the response. */
    if (f->hd.type == NGHTTP2_RST_STREAM && (sl = stream_slot(s, f->hd.stream_id))) {
        slot_stream(h, sl)->reset_here = true;
        slot_stream(h, sl)->rst_code = f->rst_stream.error_code;
    }
    if (f->hd.type == NGHTTP2_GOAWAY && f->goaway.error_code != NGHTTP2_NO_ERROR) {
        /* nghttp2 puts its reason, when it has one, in the GOAWAY's debug data. */
        const char *why = h->lib_why;
        int n = (int)strlen(why);

        if (!n && f->goaway.opaque_data_len) {
            why = (const char *)f->goaway.opaque_data;
            n = (int)(f->goaway.opaque_data_len < 96 ? f->goaway.opaque_data_len : 96);
        }
        snprintf(h->term_why, sizeof h->term_why, "HTTP/2 connection error by the server: %.*s (%s)",
                 n ? n : 13, n ? why : "invalid frame", nghttp2_http2_strerror(f->goaway.error_code));
    }
    return 0;
}

/* nghttp2 found the server at fault (a connection error it ends with its
 * own GOAWAY): keep its words for the report. */
static int on_error(nghttp2_session *s, int code, const char *msg, size_t len, void *ud)
{
    h2state *h = ud;

    (void)s;
    if (code == NGHTTP2_ERR_HTTP_HEADER) {
        /* A stream's, not the connection's: "... name: [NAME], value: ..." */
        const char *p = memmem(msg, len, "name: [", 7), *e;

        h->bad_name[0] = '\0';
        if (p && (e = memchr(p + 7, ']', len - (size_t)(p + 7 - msg))))
            snprintf(h->bad_name, sizeof h->bad_name, "%.*s", (int)(e - p - 7), p + 7);
        for (char *q = h->bad_name; *q; q++) /* the server's bytes: no control byte */
            if ((unsigned char)*q < ' ' || *q == 0x7f)
                *q = '?';
        return 0;
    }
    snprintf(h->lib_why, sizeof h->lib_why, "%.*s", (int)len, msg);
    return 0;
}

static const char *frame_name(uint8_t type)
{
    static const char *const names[] = {"DATA",         "HEADERS", "PRIORITY", "RST_STREAM",
                                        "SETTINGS",     "PUSH_PROMISE", "PING", "GOAWAY",
                                        "WINDOW_UPDATE", "CONTINUATION"};

    return type < sizeof names / sizeof names[0] ? names[type] : "unknown";
}

/* nghttp2 found a frame invalid. A stream's HTTP error (HTTP_HEADER,
 * HTTP_MESSAGING) resets that stream only: kept with the stream. Anything
 * else ends the connection: kept for its GOAWAY. */
static int on_invalid_frame(nghttp2_session *s, const nghttp2_frame *f, int code, void *ud)
{
    h2state *h = ud;
    slot *sl = stream_slot(s, f->hd.stream_id);

    if (sl && (code == NGHTTP2_ERR_HTTP_HEADER || code == NGHTTP2_ERR_HTTP_MESSAGING)) {
        h2stream *st = slot_stream(h, sl);

        st->lib_err = code;
        if (code == NGHTTP2_ERR_HTTP_HEADER)
            memcpy(st->bad_name, h->bad_name, sizeof st->bad_name);
        return 0;
    }
    snprintf(h->lib_why, sizeof h->lib_why, "invalid %s frame: %s", frame_name(f->hd.type),
             nghttp2_strerror(code));
    return 0;
}

/* Why nghttp2 reset a stream itself: what pacer saw of the response, by
 * nghttp2's rules (lib/nghttp2_http.c): an invalid field, no :status, only
 * interim ones, DATA beyond or short of what content-length (or HEAD, 204,
 * 304) said. The DATA counted is the frames' payload as they began, so a
 * frame nghttp2 dropped for going past the length is in it. */
static void reset_why(const h2state *h, const slot *sl, char *why, size_t n)
{
    static const char who[] = " (protocol error, stream reset by pacer's HTTP/2 stack)";
    const h2stream *st = slot_stream(h, sl);
    bool nobody = hstream(h, sl)->head || hstream(h, sl)->status == 204 || hstream(h, sl)->status == 304;
    int64_t want = nobody ? 0 : st->clen;

    if (st->rst_code != NGHTTP2_PROTOCOL_ERROR) /* e.g. the server overran the stream's window */
        snprintf(why, n, "stream reset by pacer's HTTP/2 stack (RST_STREAM %s)",
                 nghttp2_http2_strerror(st->rst_code));
    else if (st->lib_err == NGHTTP2_ERR_HTTP_HEADER)
        snprintf(why, n, "invalid header field in the response%s%s%s", st->bad_name[0] ? ": " : "",
                 st->bad_name, who);
    else if (!st->any_status)
        snprintf(why, n, "response without :status%s", who);
    else if (!hstream(h, sl)->status)
        snprintf(why, n, "the stream went on after an interim (1xx) response with no final one%s",
                 who);
    else if (want >= 0 && !st->padded && st->data != (uint64_t)want)
        snprintf(why, n, "%s%" PRId64 " but %s%" PRIu64 " bytes of DATA%s",
                 nobody ? "a response without a body (HEAD, 204, 304): length " : "content-length ",
                 want, st->data > (uint64_t)want ? "at least " : "", st->data, who);
    else if (want >= 0 && st->padded && !st->lib_err) /* only DATA resets without a word */
        snprintf(why, n, "content-length %" PRId64 " but DATA of another length%s", want, who);
    else
        snprintf(why, n, "invalid response (%s)%s",
                 nghttp2_strerror(st->lib_err ? st->lib_err : NGHTTP2_ERR_HTTP_MESSAGING), who);
}

/* Why a stream above a GOAWAY's last-stream-id was not processed. */
static void goaway_why(const h2state *h, char *why, size_t n)
{
    const char *code = nghttp2_http2_strerror(h->goaway_code);

    if (h->goaway_last == 0 && !h->answered)
        snprintf(why, n, "GOAWAY last-stream-id 0 before any response: the server refused every "
                         "stream (error %s)", code);
    else
        snprintf(why, n, "stream not processed before the server's GOAWAY (last-stream-id %d, "
                         "error %s)", (int)h->goaway_last, code);
}

static int on_stream_close(nghttp2_session *s, int32_t id, uint32_t code, void *ud)
{
    h2state *h = ud;
    slot *sl = stream_slot(s, id);
    char why[STATS_WHY_LEN];

    if (!sl)
        return 0; /* we gave up on it (timeout) */
    nghttp2_session_set_stream_user_data(s, id, NULL);
    if (code == NGHTTP2_NO_ERROR && hstream(h, sl)->status) {
        h->answered = true;
        if (h->c->env->want_response && h->sb)
            eng_script_response(h->c, hstream(h, sl)->status, slot_buf(h, sl, SB_HEADERS),
                                slot_buf(h, sl, SB_BODY));
        eng_done(h->c, sl, hstream(h, sl)->status, hstream(h, sl)->body, h->now);
    } else if (slot_stream(h, sl)->reset_here) {
        reset_why(h, sl, why, sizeof why);
        eng_failed(h->c, sl, PC_ERR_PROTOCOL, why, h->now);
    } else if (h->goaway_last >= 0 && id > h->goaway_last) {
        /* nghttp2 closes these with REFUSED_STREAM; it was the GOAWAY. */
        goaway_why(h, why, sizeof why);
        eng_refused(h->c, sl, why, h->now);
    } else if (code == NGHTTP2_REFUSED_STREAM) {
        h->c->env->st->h2_refused++;
        eng_refused(h->c, sl, "stream refused by the server (REFUSED_STREAM)", h->now);
    } else {
        if (code != NGHTTP2_NO_ERROR)
            h->c->env->st->h2_rst++;
        if (code > NGHTTP2_HTTP_1_1_REQUIRED) /* not a code RFC 9113 defines: as it came */
            snprintf(why, sizeof why, "stream reset by the server (RST_STREAM 0x%x, an unknown code)",
                     code);
        else
            snprintf(why, sizeof why, code ? "stream reset by the server (RST_STREAM %s)"
                                           : "stream closed without a response%s",
                     code ? nghttp2_http2_strerror(code) : "");
        eng_failed(h->c, sl, PC_ERR_READ, why, h->now);
    }
    return 0;
}

static int on_frame_not_send(nghttp2_session *s, const nghttp2_frame *f, int err, void *ud)
{
    h2state *h = ud;
    slot *sl;

    if (f->hd.type != NGHTTP2_HEADERS || !(sl = stream_slot(s, f->hd.stream_id)))
        return 0;
    nghttp2_session_set_stream_user_data(s, f->hd.stream_id, NULL);
    if (err == NGHTTP2_ERR_START_STREAM_NOT_ALLOWED || err == NGHTTP2_ERR_STREAM_CLOSING)
        eng_refused(h->c, sl, "stream not started: the server sent GOAWAY", h->now);
    else
        eng_failed(h->c, sl, PC_ERR_WRITE, nghttp2_strerror(err), h->now);
    return 0;
}

static void *h2_state_new(const http_conn *c)
{
    h2state *h = calloc(1, sizeof *h);
    bool ok;

    if (!h)
        return NULL;
    h->c = (http_conn *)c;
    h->ss = calloc(c->depth, sizeof *h->ss);
    if (!h->ss) {
        free(h);
        return NULL;
    }
    h->sb = http_slot_bufs_new(c, &ok);
    if (!ok) {
        free(h->ss);
        free(h);
        return NULL;
    }
    return h;
}

static void h2_state_free(void *st)
{
    h2state *h = st;

    if (!h)
        return;
    if (h->s)
        nghttp2_session_del(h->s);
    free(h->out);
    http_slot_bufs_free(h->sb, h->c->depth);
    free(h->nv);
    free(h->ss);
    free(h);
}

static int h2_start(http_conn *c, uint64_t now)
{
    const http_settings *cfg = c->env->set;
    nghttp2_session_callbacks *cb;
    nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, (1u << cfg->window_bits) - 1},
    };
    h2state *h = c->ps;
    int rc;

    h->c = c;
    h->now = now;
    h->out_len = h->out_off = 0;
    h->goaway_last = -1;
    h->goaway_code = NGHTTP2_NO_ERROR;
    h->answered = false;
    h->got_bytes = false;
    h->lib_why[0] = h->term_why[0] = '\0';
    /* Until the server's SETTINGS say otherwise, -m is the limit. */
    h->remote_max = UINT32_MAX;
    if (nghttp2_session_callbacks_new(&cb) != 0)
        return -ENOMEM;
    nghttp2_session_callbacks_set_on_begin_headers_callback(cb, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_begin_frame_callback(cb, on_begin_frame);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
    nghttp2_session_callbacks_set_on_frame_send_callback(cb, on_frame_send);
    nghttp2_session_callbacks_set_on_frame_not_send_callback(cb, on_frame_not_send);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
    nghttp2_session_callbacks_set_error_callback2(cb, on_error);
    nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(cb, on_invalid_frame);
    rc = nghttp2_session_client_new(&h->s, cb, h);
    nghttp2_session_callbacks_del(cb);
    if (rc != 0)
        return -ENOMEM;
    /* Large windows by default (as h2load): flow control should not be
     * what limits a load test unless asked to. */
    if (nghttp2_submit_settings(h->s, NGHTTP2_FLAG_NONE, iv, sizeof iv / sizeof iv[0]) != 0 ||
        nghttp2_session_set_local_window_size(h->s, NGHTTP2_FLAG_NONE, 0,
                                              (int32_t)((1u << cfg->conn_window_bits) - 1)) != 0)
        return -EPROTO;
    eng_speaks(c, &c->env->st->h2_conns);
    return 0;
}

static uint32_t h2_capacity(const http_conn *c)
{
    const h2state *h = c->ps;
    uint32_t m = c->env->set->streams;

    if (!h || !h->s || h->goaway_last >= 0)
        return 0;
    if (nghttp2_session_get_next_stream_id(h->s) > (1u << 31) - 2)
        return 0;
    return h->remote_max < m ? h->remote_max : m;
}

/* A request body goes out as DATA from its template, no copy kept. */
static ssize_t read_body(nghttp2_session *session, int32_t id, uint8_t *buf, size_t length,
                         uint32_t *flags, nghttp2_data_source *source, void *ud)
{
    http_stream *s = source->ptr;
    size_t n = s->req_body_len - s->body_off;

    (void)session;
    (void)id;
    (void)ud;
    if (n > length)
        n = length;
    memcpy(buf, s->req_body + s->body_off, n);
    s->body_off += n;
    if (s->body_off == s->req_body_len)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

static void nv_set(nghttp2_nv *v, const char *n, size_t nl, const char *val, size_t vl,
                   uint8_t flags)
{
    v->name = (uint8_t *)n;
    v->namelen = nl;
    v->value = (uint8_t *)val;
    v->valuelen = vl;
    v->flags = flags;
}

static void h2_submit(http_conn *c, slot *s)
{
    h2state *h = c->ps;
    http_stream *hs = hstream(h, s);
    nghttp2_data_provider body = {.source.ptr = hs, .read_callback = read_body};
    const pc_request *q = eng_request(c, s);
    const pc_field *f;
    size_t n;
    bool copy;
    int32_t id;

    if (h->sb) {
        sbuf_clear(slot_buf(h, s, SB_HEADERS));
        sbuf_clear(slot_buf(h, s, SB_BODY));
    }
    *slot_stream(h, s) = (h2stream){.clen = -1};
    if (!q)
        return; /* failed, recorded by eng_request */
    hs->head = q->head;
    if (!(f = http_request_fields(c, s, hs, slot_buf(h, s, SB_REQ_BODY), q, &n, &copy)))
        return;
    if (!http_scratch((void **)&h->nv, &h->nv_cap, n, sizeof *h->nv)) {
        eng_failed(c, s, PC_ERR_WRITE, "out of memory", h->now);
        return;
    }
    /* A template's fields last the run: nghttp2 keeps pointers to them. */
    for (size_t i = 0; i < n; i++)
        nv_set(&h->nv[i], f[i].name, f[i].nlen, f[i].value, f[i].vlen,
               copy ? NGHTTP2_NV_FLAG_NONE
                    : NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE);
    id = nghttp2_submit_request(h->s, NULL, h->nv, n, hs->req_body_len ? &body : NULL, s);
    if (id < 0) {
        eng_failed(c, s, PC_ERR_WRITE, nghttp2_strerror(id), h->now);
        return;
    }
    hs->id = id;
}

/* Append to the output buffer. */
static int out_append(h2state *h, const uint8_t *p, size_t n)
{
    if (grow_array(&h->out, &h->out_cap, h->out_len + n, 16384, 1) < 0)
        return -ENOMEM;
    memcpy(h->out + h->out_len, p, n);
    h->out_len += n;
    return 0;
}

/* Gather what nghttp2 has to send (up to 64 KiB) and write it in one go:
 * one write, and over TLS one record, instead of one per frame. */
static void h2_flush(http_conn *c, uint64_t now)
{
    h2state *h = c->ps;
    uint32_t gen = c->gen;

    h->now = now;
    for (;;) {
        ssize_t w;

        if (h->out_off == h->out_len) {
            h->out_off = h->out_len = 0;
            while (h->out_len < 65536) {
                const uint8_t *data;
                ssize_t n = nghttp2_session_mem_send(h->s, &data);

                if (n < 0) {
                    eng_conn_fail(c, PC_ERR_PROTOCOL, nghttp2_strerror((int)n), now);
                    return;
                }
                if (c->gen != gen)
                    return;
                if (n == 0)
                    break;
                if (out_append(h, data, (size_t)n) < 0) {
                    eng_conn_fail(c, PC_ERR_WRITE, "out of memory", now);
                    return;
                }
            }
            if (h->out_len == 0)
                break;
        }
        w = c->net->write(&c->nc, h->out + h->out_off, h->out_len - h->out_off);
        if (w > 0) {
            h->out_off += (size_t)w;
            c->env->st->bytes_written += (uint64_t)w;
            eng_wrote(c);
            continue;
        }
        if (w == -EAGAIN) {
            eng_want_write(c, c->nc.want != NET_WANT_READ);
            return;
        }
        eng_conn_fail(c, PC_ERR_WRITE, strerror(w == 0 ? EPIPE : (int)-w), now);
        return;
    }
    eng_want_write(c, false);
    if (!nghttp2_session_want_read(h->s) && !nghttp2_session_want_write(h->s)) {
        /* The session is over. pacer's own GOAWAY for the server's error:
         * nothing more will come, so the streams fail now, with the
         * reason, instead of waiting out --timeout. */
        if (h->term_why[0])
            eng_conn_fail(c, PC_ERR_PROTOCOL, h->term_why, now);
        else
            eng_drain(c); /* GOAWAY received, nothing left in flight */
    }
}

static size_t h2_input(http_conn *c, const char *buf, size_t len, uint64_t now)
{
    h2state *h = c->ps;
    ssize_t rc;

    h->now = now;
    if (!h->got_bytes && len >= 7 && memcmp(buf, "HTTP/1.", 7) == 0) {
        eng_conn_fail(c, PC_ERR_PROTOCOL,
                      c->tls ? "the server answered in HTTP/1.1 after choosing h2 (ALPN)"
                          : "the server answered in HTTP/1.1: it does not speak h2c (HTTP/2 "
                            "with prior knowledge); drop --h2 / -m",
                      now);
        return len;
    }
    h->got_bytes = true;
    rc = nghttp2_session_mem_recv(h->s, (const uint8_t *)buf, len);
    if (rc < 0) {
        char why[STATS_WHY_LEN];

        snprintf(why, sizeof why, "HTTP/2: %s", nghttp2_strerror((int)rc));
        eng_conn_fail(c, PC_ERR_PROTOCOL, why, now);
    }
    return len; /* nghttp2 keeps what it has not framed yet */
}

static void h2_eof(http_conn *c, uint64_t now)
{
    h2state *h = c->ps;

    if (c->count == 0) {
        eng_idle_closed(c);
        return;
    }
    for (uint32_t i = 0; i < c->depth && c->count; i++) {
        slot *s = &c->slots[i];

        if (!s->used)
            continue;
        if (h->goaway_last >= 0 && hstream(h, s)->id > h->goaway_last) {
            char why[STATS_WHY_LEN];

            goaway_why(h, why, sizeof why);
            eng_refused(c, s, why, now);
        } else
            eng_failed(c, s, PC_ERR_READ, "connection closed by the server with streams open",
                       now);
    }
}

/* One stream out of time: reset it, keep the connection. */
static void h2_timeout(http_conn *c, slot *s, uint64_t now)
{
    h2state *h = c->ps;
    int32_t id = (int32_t)hstream(h, s)->id;

    if (id > 0) {
        nghttp2_session_set_stream_user_data(h->s, id, NULL);
        nghttp2_submit_rst_stream(h->s, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
    }
    eng_failed(c, s, PC_ERR_TIMEOUT, "no response within --timeout (stream reset)", now);
}

static void h2_reset(http_conn *c)
{
    h2state *h = c->ps;

    if (h->s) {
        nghttp2_session_del(h->s);
        h->s = NULL;
    }
    free(h->out);
    h->out = NULL;
    h->out_cap = h->out_len = h->out_off = 0;
}

const proto_ops proto_h2 = {
    .name = "h2",
    .transport = HTTP_OVER_TCP,
    .prior_knowledge = true, /* h2c with --h2: no ALPN in clear */
    .multiplexed = true,
    .state_new = h2_state_new,
    .state_free = h2_state_free,
    .start = h2_start,
    .capacity = h2_capacity,
    .submit = h2_submit,
    .flush = h2_flush,
    .input = h2_input,
    .eof = h2_eof,
    .timeout = h2_timeout,
    .reset = h2_reset,
};

/*
 * h3.c - HTTP/3 over QUIC: ngtcp2 runs QUIC (loss recovery, streams,
 * TLS 1.3 through GnuTLS) over the connection's UDP socket (net_udp_ops),
 * nghttp3 the HTTP/3 framing and QPACK on its streams. Every ngtcp2 0.12
 * and nghttp3 0.8 call of the engine is in this file and h3_cb.c (their
 * callbacks), so a later API is a contained change.
 *
 * input is one datagram; flush writes what both libraries have to send,
 * a datagram per write; QUIC's timers (loss detection, ACK delay, idle)
 * are reported with eng_timer and handled in expire. capacity is 0 until
 * the handshake is done, then the streams the peer allows (MAX_STREAMS),
 * at most -m. A request's slot is its stream's user data in both
 * libraries; the callbacks only record (eng_done, eng_failed, eng_refused).
 */
#include "http/h3.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "net/net.h"

void h3_random(uint8_t *p, size_t n)
{
    while (n) {
        ssize_t r = getrandom(p, n, 0);

        if (r <= 0) { /* never on Linux >= 3.17 for small sizes; still, fill */
            for (size_t i = 0; i < n; i++)
                p[i] = (uint8_t)rand();
            return;
        }
        p += r;
        n -= (size_t)r;
    }
}

static void *h3_state_new(const http_conn *c)
{
    h3state *h = calloc(1, sizeof *h);
    bool ok;

    if (!h)
        return NULL;
    h->c = (http_conn *)c;
    h->pkt_cap = 1500;
    h->pkt = malloc(h->pkt_cap);
    h->ss = calloc(c->depth, sizeof *h->ss);
    h->sb = http_slot_bufs_new(c, &ok);
    if (!h->pkt || !h->ss || !ok) {
        free(h->pkt);
        free(h->ss);
        free(h);
        return NULL;
    }
    return h;
}

static void h3_drop(h3state *h)
{
    if (h->h3) {
        nghttp3_conn_del(h->h3);
        h->h3 = NULL;
    }
    if (h->q) {
        ngtcp2_conn_del(h->q);
        h->q = NULL;
    }
    if (h->tls) {
        net_quic_session_free(h->tls);
        h->tls = NULL;
    }
}

static void h3_state_free(void *st)
{
    h3state *h = st;

    if (!h)
        return;
    h3_drop(h);
    free(h->resume);
    http_slot_bufs_free(h->sb, h->c->depth);
    free(h->nv);
    free(h->ss);
    free(h->pkt);
    free(h);
}

static int h3_new(h3state *h);

static ngtcp2_conn *get_conn(ngtcp2_crypto_conn_ref *ref)
{
    return ((h3state *)ref->user_data)->q;
}

/* The QUIC client connection over c's connected socket: its settings
 * (the handshake bounded by --connect-timeout) and the transport
 * parameters pacer offers (--h3-window, --h3-conn-window). 0 or -errno. */
static int quic_new(http_conn *c, h3state *h, uint64_t now)
{
    const http_settings *cfg = c->env->set;
    ngtcp2_cid dcid = {.datalen = 18}, scid = {.datalen = 16};
    ngtcp2_settings settings;
    ngtcp2_transport_params params;
    ngtcp2_path path = {.local = {(ngtcp2_sockaddr *)&h->local, h->llen},
                        .remote = {(ngtcp2_sockaddr *)&h->remote, h->rlen}};

    h3_random(dcid.data, dcid.datalen);
    h3_random(scid.data, scid.datalen);
    ngtcp2_settings_default(&settings);
    /* Time into ngtcp2 (docs/architecture.md): a new connection's
     * timestamps start here, at conn_start's pc_now_ns(); h3_ts's floor
     * restarts with it. */
    h->q_ts = 0;
    settings.initial_ts = h3_ts(h, now, false);
    /* A handshake that stalls is a connect timeout, as over TCP. */
    settings.handshake_timeout = cfg->connect_timeout_ns;
    settings.max_tx_udp_payload_size = h->pkt_cap - 48;
    settings.log_printf = h3_on_log; /* the packets declared lost (h3_cb.c) */
    ngtcp2_transport_params_default(&params);
    params.initial_max_stream_data_bidi_local = cfg->h3_window;
    params.initial_max_stream_data_uni = cfg->h3_window;
    params.initial_max_data = cfg->h3_conn_window;
    params.initial_max_streams_bidi = 0;
    params.initial_max_streams_uni = 3;
    params.max_idle_timeout = H3_IDLE_NS;
    params.max_ack_delay = H3_MAX_ACK_DELAY_NS;
    params.max_udp_payload_size = NET_UDP_MAX; /* what the UDP transport reads whole */
    h->ref.get_conn = get_conn;
    h->ref.user_data = h;
    if (ngtcp2_conn_client_new(&h->q, &dcid, &scid, &path, NGTCP2_PROTO_VER_V1,
                               &h3_quic_callbacks, &settings, &params, NULL, h) != 0) {
        h->q = NULL;
        return -ENOMEM;
    }
    return 0;
}

/* Nothing is owed any more (ack_wait_until): a packet went out, or the
 * connection begins. */
static void ack_paid(h3state *h)
{
    h->ack_owed = 0;
    h->ack_owed_n = 0;
    h->ack_data = false;
}

static int h3_start(http_conn *c, uint64_t now)
{
    const http_settings *set = c->env->set;
    h3state *h = c->ps;
    char err[STATS_WHY_LEN];
    int rc;

    h->c = c;
    h->now = now;
    h->hs_flag = h->hs_done = h->closed = false;
    h->held_len = 0;
    ack_paid(h);
    h->unsent = 0;
    h->goaway_id = -1;
    h->n_sent = h->n_recv = h->n_lost = h->n_pto = 0;
    h->pto_seen = 0;
    h->why[0] = '\0';
    h->llen = sizeof h->local;
    h->rlen = sizeof h->remote;
    if (getsockname(c->nc.fd, (struct sockaddr *)&h->local, &h->llen) < 0 ||
        getpeername(c->nc.fd, (struct sockaddr *)&h->remote, &h->rlen) < 0)
        return -errno;
    if ((rc = quic_new(c, h, now)) < 0)
        return rc;
    h->tls = net_quic_session_new(set->quic_ctx, c->peer, &h->ref,
                                  set->tls_resume ? h->resume : NULL, h->resume_len, err,
                                  sizeof err);
    if (!h->tls) {
        h->closed = true;
        eng_conn_fail(c, PC_ERR_CONNECT, err, now); /* a failed connect, with GnuTLS's reason */
        return 0;
    }
    ngtcp2_conn_set_tls_native_handle(h->q, h->tls);
    if (h3_new(h) != 0) {
        h3_drop(h);
        return -ENOMEM;
    }
    h3_flush(c, now);
    return 0;
}

/* The HTTP/3 connection, from the start: the server's control and QPACK
 * streams may arrive in the packets that finish the handshake. 0 or an
 * nghttp3 error. */
static int h3_new(h3state *h)
{
    nghttp3_settings s;
    int rc;

    nghttp3_settings_default(&s);
    s.qpack_max_dtable_capacity = 4096;
    s.qpack_blocked_streams = 100;
    rc = nghttp3_conn_client_new(&h->h3, &h3_http_callbacks, &s, NULL, h);
    if (rc != 0)
        h->h3 = NULL;
    return rc;
}

/* Once the handshake is done (the server's stream limits are known): our
 * control and QPACK streams. 0 or an nghttp3/ngtcp2 error. */
static int h3_bind(h3state *h)
{
    int64_t ctrl, enc, dec;
    int rc;

    if ((rc = ngtcp2_conn_open_uni_stream(h->q, &ctrl, NULL)) != 0 ||
        (rc = nghttp3_conn_bind_control_stream(h->h3, ctrl)) != 0 ||
        (rc = ngtcp2_conn_open_uni_stream(h->q, &enc, NULL)) != 0 ||
        (rc = ngtcp2_conn_open_uni_stream(h->q, &dec, NULL)) != 0 ||
        (rc = nghttp3_conn_bind_qpack_streams(h->h3, enc, dec)) != 0)
        return rc;
    return 0;
}

/* The handshake finished in the packet just read: report it, open HTTP/3. */
static void handshake_done(http_conn *c, h3state *h, uint64_t now)
{
    const char *version, *cipher;
    int rc;

    h->hs_done = true;
    if (!net_quic_alpn_h3(h->tls)) {
        eng_conn_fail(c, PC_ERR_CONNECT, "server did not choose h3 (ALPN)", now);
        return;
    }
    net_quic_describe(h->tls, &version, &cipher);
    eng_tls_done(c, now, net_quic_resumed(h->tls), version, cipher);
    if ((rc = h3_bind(h)) != 0) {
        char why[STATS_WHY_LEN];

        snprintf(why, sizeof why, "HTTP/3 setup: %s",
                 rc < -200 ? ngtcp2_strerror(rc) : nghttp3_strerror(rc));
        eng_conn_fail(c, PC_ERR_PROTOCOL, why, now);
    }
}

static uint32_t h3_capacity(const http_conn *c)
{
    const h3state *h = c->ps;
    uint32_t m = c->env->set->streams;
    uint64_t room;

    if (!h || !h->q || !h->hs_done || h->closed || h->goaway_id >= 0)
        return 0;
    /* What is in flight, and the streams the peer still allows us to open. */
    room = c->count + ngtcp2_conn_get_streams_bidi_left(h->q);
    return room < m ? (uint32_t)room : m;
}

static nghttp3_ssize read_body(nghttp3_conn *hc, int64_t id, nghttp3_vec *vec, size_t veccnt,
                               uint32_t *pflags, void *ud, void *sud)
{
    h3state *h = ud;
    http_stream *s = sud ? h3_stream(h, sud) : NULL;

    (void)hc;
    (void)id;
    if (!s || veccnt == 0) {
        *pflags |= NGHTTP3_DATA_FLAG_EOF;
        return 0;
    }
    /* The whole body at once: it stays where it is until acknowledged. */
    vec[0].base = (uint8_t *)s->req_body + s->body_off;
    vec[0].len = s->req_body_len - s->body_off;
    s->body_off = s->req_body_len;
    *pflags |= NGHTTP3_DATA_FLAG_EOF;
    return vec[0].len ? 1 : 0;
}

static void h3_submit(http_conn *c, slot *s)
{
    h3state *h = c->ps;
    http_stream *hs = h3_stream(h, s);
    nghttp3_data_reader dr = {.read_data = read_body};
    const pc_request *q = eng_request(c, s);
    const pc_field *f;
    size_t n;
    bool copy;
    int64_t id;
    int rc;

    if (h->sb) {
        sbuf_clear(h3_slot_buf(h, s, SB_HEADERS));
        sbuf_clear(h3_slot_buf(h, s, SB_BODY));
    }
    *hs = (http_stream){0};
    if (!q)
        return; /* failed, recorded by eng_request */
    hs->head = q->head;
    if (!(f = http_request_fields(c, s, hs, h3_slot_buf(h, s, SB_REQ_BODY), q, &n, &copy)))
        return;
    if (!http_scratch((void **)&h->nv, &h->nv_cap, n, sizeof *h->nv)) {
        eng_failed(c, s, PC_ERR_WRITE, "out of memory", h->now);
        return;
    }
    /* A template's fields last the run: nghttp3 keeps pointers to them. */
    for (size_t i = 0; i < n; i++)
        h->nv[i] = (nghttp3_nv){.name = (uint8_t *)f[i].name,
                             .value = (uint8_t *)f[i].value,
                             .namelen = f[i].nlen,
                             .valuelen = f[i].vlen,
                             .flags = copy ? NGHTTP3_NV_FLAG_NONE
                                           : NGHTTP3_NV_FLAG_NO_COPY_NAME |
                                                 NGHTTP3_NV_FLAG_NO_COPY_VALUE};
    rc = ngtcp2_conn_open_bidi_stream(h->q, &id, s);
    if (rc != 0) {
        eng_failed(c, s, PC_ERR_WRITE, ngtcp2_strerror(rc), h->now);
        return;
    }
    rc = nghttp3_conn_submit_request(h->h3, id, h->nv, n, hs->req_body_len ? &dr : NULL, s);
    if (rc != 0) {
        ngtcp2_conn_shutdown_stream(h->q, id, NGHTTP3_H3_INTERNAL_ERROR);
        ngtcp2_conn_set_stream_user_data(h->q, id, NULL);
        eng_failed(c, s, PC_ERR_WRITE, nghttp3_strerror(rc), h->now);
        return;
    }
    hs->id = id;
    h->unsent++;
}

/* Stream data of id went out: stamp its request's first byte. */
static void stamp_sent(http_conn *c, h3state *h, int64_t id, uint64_t now)
{
    for (uint32_t i = 0; i < c->depth && h->unsent; i++) {
        slot *s = &c->slots[i];

        if (s->used && !s->sent && h3_stream(h, s)->id == id) {
            /* In the packet being built: the datagram sent next (nothing is
             * held while one is built), numbered tx_bytes. */
            http_mark_sent(c, s, now, c->nc.tx_bytes);
            h->unsent--;
            return;
        }
    }
}

/* One datagram out. 1 sent, 0 held for EPOLLOUT, -1 the connection failed. */
static int send_pkt(http_conn *c, h3state *h, const uint8_t *p, size_t n, uint64_t now)
{
    ssize_t w = c->net->write(&c->nc, p, n);

    if (w >= 0) {
        h->n_sent++;
        ack_paid(h); /* every packet ngtcp2 writes carries the ACK owed */
        c->env->st->bytes_written += n;
        eng_wrote(c);
        return 1;
    }
    if (w == -EAGAIN) {
        if (p != h->held)
            memcpy(h->held, p, n);
        h->held_len = n;
        eng_want_write(c, true);
        return 0;
    }
    {
        char why[STATS_WHY_LEN];

        eng_conn_fail(c, PC_ERR_WRITE, h3_socket_error(h, (int)-w, why, sizeof why), now);
    }
    return -1;
}

/* ngtcp2 took ndata bytes of stream sid into the packet (ndata < 0 or
 * sid < 0: none): tell nghttp3, stamp a request whose first bytes they
 * are. false: the connection failed. */
static bool took(http_conn *c, h3state *h, int64_t sid, ngtcp2_ssize ndata, uint64_t now)
{
    if (ndata < 0 || sid < 0)
        return true;
    if (nghttp3_conn_add_write_offset(h->h3, sid, (size_t)ndata) != 0) {
        h3_fail(c, h, PC_ERR_PROTOCOL, "HTTP/3: write offset", now);
        return false;
    }
    if (ndata > 0)
        stamp_sent(c, h, sid, now);
    return true;
}

/* ngtcp2_conn_writev_stream said n < 0 for stream sid: true when writing
 * goes on (the stream is blocked or shut; the packet has room for more),
 * false when the connection failed. */
static bool write_on(http_conn *c, h3state *h, ngtcp2_ssize n, int64_t sid, ngtcp2_ssize ndata,
                     uint64_t now)
{
    switch (n) {
    case NGTCP2_ERR_STREAM_DATA_BLOCKED:
        nghttp3_conn_block_stream(h->h3, sid);
        return true;
    case NGTCP2_ERR_STREAM_SHUT_WR:
        nghttp3_conn_shutdown_stream_write(h->h3, sid);
        return true;
    case NGTCP2_ERR_WRITE_MORE:
        return took(c, h, sid, ndata, now);
    default:
        h3_fail(c, h, PC_ERR_WRITE, ngtcp2_strerror((int)n), now);
        return false;
    }
}

/* Until when the acknowledgement owed may wait for the next request, whose
 * packet carries it (0: it may not wait). ngtcp2 acknowledges after a
 * smoothed RTT / 8, microseconds on a LAN, so under -R every response and
 * the MAX_STREAMS around it were acknowledged each in a datagram of its
 * own: two sends and two wake-ups a request more than over TCP, whose
 * kernel delays its ACKs. What the connection has to send now waits, up to
 * H3_ACK_HOLD_NS from the first datagram it answers (inside the
 * max_ack_delay pacer offers, which the server's probe timeout allows for),
 * while no request is in flight; while one is, only for a single datagram
 * owed that carried no stream data (the server's ACK or MAX_STREAMS before
 * the response: RFC 9000 13.2.2 acknowledges at once from the second, a
 * sender's window is at least two datagrams, and the flow-control credit
 * that stream data earns goes out at once). Never past ngtcp2's loss-detection timer (a probe or a
 * retransmission is never late), nor during the handshake. Nothing pacer
 * measures moves: a response is timed when it arrives, and the ACK's delay
 * field tells the server how long it waited. */
static uint64_t ack_wait_until(const http_conn *c, const h3state *h)
{
    ngtcp2_conn_stat cs;
    uint64_t until;

    if (!h->hs_done || !h->ack_owed || h->held_len ||
        (c->count && (h->ack_owed_n > 1 || h->ack_data)))
        return 0;
    until = h->ack_owed + H3_ACK_HOLD_NS;
    ngtcp2_conn_get_conn_stat(h->q, &cs);
    return cs.loss_detection_timer < until ? 0 : until;
}

/* Write what nghttp3 and ngtcp2 have, a packet a datagram, until ngtcp2
 * has nothing more (or the socket is full: the datagram is held for
 * EPOLLOUT). No ngtcp2_conn_update_pkt_tx_time: that is what turns
 * ngtcp2's pacing on, and its rate comes from an RTT whose first sample
 * is the handshake's (the server's signature included): the first
 * requests of a connection waited up to that RTT in pacer, a send lag of
 * milliseconds on loopback. The congestion window still bounds what is in
 * flight; a load generator sends when the schedule says. */
void h3_flush(http_conn *c, uint64_t now)
{
    h3state *h = c->ps;
    uint32_t gen = c->gen;

    if (!h->q || h->closed)
        return;
    h->now = now;
    if (h->held_len) {
        if (send_pkt(c, h, h->held, h->held_len, now) <= 0)
            return;
        h->held_len = 0;
    }
    for (int round = 0; round < 4096; round++) {
        int64_t sid = -1;
        int fin = 0, r;
        nghttp3_vec vec[16];
        nghttp3_ssize cnt = 0;
        ngtcp2_ssize ndata = -1, n;
        ngtcp2_pkt_info pi;

        if (h->hs_done && h->h3 && ngtcp2_conn_get_max_data_left(h->q)) {
            cnt = nghttp3_conn_writev_stream(h->h3, &sid, &fin, vec, 16);
            if (cnt < 0) {
                h3_fail(c, h, PC_ERR_PROTOCOL, nghttp3_strerror((int)cnt), now);
                return;
            }
        }
        if (round == 0 && sid < 0 && now < ack_wait_until(c, h))
            break; /* only ngtcp2's own frames: the next request carries them */
        /* Time into ngtcp2: the caller's pc_now_ns() reading (a pass's,
         * or fresh per send), through h3_ts: never a request's intended
         * or ready time, so a packet's sent time only grows. */
        n = ngtcp2_conn_writev_stream(
            h->q, NULL, &pi, h->pkt, h->pkt_cap, &ndata,
            NGTCP2_WRITE_STREAM_FLAG_MORE | (fin ? NGTCP2_WRITE_STREAM_FLAG_FIN : 0), sid,
            (const ngtcp2_vec *)vec, (size_t)cnt, h3_ts(h, now, false));
        if (n < 0) {
            if (!write_on(c, h, n, sid, ndata, now))
                return;
            continue;
        }
        if (!took(c, h, sid, ndata, now))
            return;
        if (n == 0)
            break;
        r = send_pkt(c, h, h->pkt, (size_t)n, now);
        if (r < 0 || c->gen != gen)
            return;
        if (r == 0) {
            h3_arm(c, h);
            return;
        }
    }
    eng_want_write(c, false);
    h3_arm(c, h);
}

void h3_arm(http_conn *c, h3state *h)
{
    /* Time out of ngtcp2: on the clock h3_ts fed it (pc_now_ns, at most
     * a few ns ahead of it), so the worker compares it with pc_now_ns()
     * as it is. */
    uint64_t t = ngtcp2_conn_get_expiry(h->q), until = ack_wait_until(c, h);

    if (until && t < until)
        t = until; /* an ACK waiting for the next request (ack_wait_until) */
    eng_timer(c, t == UINT64_MAX ? 0 : t);
}

static size_t h3_input(http_conn *c, const char *buf, size_t len, uint64_t now)
{
    h3state *h = c->ps;
    ngtcp2_path path;
    ngtcp2_pkt_info pi = {0};
    int rc;

    if (!h->q || h->closed)
        return len;
    h->now = now;
    h->n_recv++;
    if (!h->ack_owed)
        h->ack_owed = now ? now : 1;
    h->ack_owed_n++;
    path.local.addr = (ngtcp2_sockaddr *)&h->local;
    path.local.addrlen = h->llen;
    path.remote.addr = (ngtcp2_sockaddr *)&h->remote;
    path.remote.addrlen = h->rlen;
    path.user_data = NULL;
    /* Time into ngtcp2: conn_readable's pace_came_at() (the datagram's
     * kernel receive time: UDP has rx_times), no earlier than the last ts
     * given (h3_ts recv): the ACKs in it acknowledge packets sent before
     * it. The path and pkt_info carry no time. */
    rc = ngtcp2_conn_read_pkt(h->q, &path, &pi, (const uint8_t *)buf, len, h3_ts(h, now, true));
    if (rc != 0) {
        h3_read_error(c, h, rc, now);
        return len;
    }
    if (h->hs_flag && !h->hs_done)
        handshake_done(c, h, now);
    return len;
}

static void h3_expire(http_conn *c, uint64_t now)
{
    h3state *h = c->ps;
    int rc;

    if (!h->q || h->closed)
        return;
    h->now = now;
    /* Time into ngtcp2: wake()'s pc_now_ns(), through h3_ts. */
    rc = ngtcp2_conn_handle_expiry(h->q, h3_ts(h, now, false));
    if (rc == NGTCP2_ERR_HANDSHAKE_TIMEOUT) {
        char why[STATS_WHY_LEN];

        /* Not one datagram back: nothing answers QUIC on that port. */
        snprintf(why, sizeof why,
                 "connect timed out (QUIC handshake): no answer on UDP port %u (is an HTTP/3 "
                 "server listening there?)",
                 h3_port(h));
        eng_connect_timeout(c, h->n_recv ? NULL : why, now);
        return;
    }
    if (rc == NGTCP2_ERR_IDLE_CLOSE) {
        h->closed = true;
        if (c->count == 0 && h->hs_done) {
            /* Nothing asked, nothing heard: an idle connection, reopened. */
            eng_idle_closed(c);
            eng_conn_recycle(c, now);
            return;
        }
        eng_conn_fail(c, PC_ERR_TIMEOUT, "QUIC idle timeout: the server went silent", now);
        return;
    }
    if (rc != 0) {
        h3_fail(c, h, PC_ERR_PROTOCOL, ngtcp2_strerror(rc), now);
        return;
    }
    h3_report(c, h, false);
    h3_flush(c, now);
}

static void h3_read_failed(http_conn *c, int err, uint64_t now)
{
    char why[STATS_WHY_LEN];

    eng_conn_fail(c, PC_ERR_READ, h3_socket_error(c->ps, err, why, sizeof why), now);
}

static void h3_eof(http_conn *c, uint64_t now)
{
    /* UDP has no end of stream; the transport never reports one. */
    eng_conn_fail(c, PC_ERR_READ, "QUIC: the socket closed", now);
}

/* One stream out of time: cancel it both ways, keep the connection. */
static void h3_timeout(http_conn *c, slot *s, uint64_t now)
{
    h3state *h = c->ps;

    if (h->q && h3_stream(h, s)->id >= 0 && (s->sent || h3_stream(h, s)->id > 0 || h->h3)) {
        int64_t id = h3_stream(h, s)->id;

        if (h->h3) {
            nghttp3_conn_set_stream_user_data(h->h3, id, NULL);
            nghttp3_conn_shutdown_stream_read(h->h3, id);
        }
        ngtcp2_conn_set_stream_user_data(h->q, id, NULL);
        ngtcp2_conn_shutdown_stream(h->q, id, NGHTTP3_H3_REQUEST_CANCELLED);
        if (!s->sent && h->unsent)
            h->unsent--;
    }
    eng_failed(c, s, PC_ERR_TIMEOUT, "no response within --timeout (stream reset)", now);
}

static bool h3_connecting(const http_conn *c)
{
    const h3state *h = c->ps;

    return h && h->q && !h->hs_done;
}

static void h3_reset(http_conn *c)
{
    h3state *h = c->ps;

    if (!h->q)
        return;
    h3_report(c, h, true);
    h3_keep_session(h);
    if (!h->closed && h->hs_done && !ngtcp2_conn_is_in_closing_period(h->q) &&
        !ngtcp2_conn_is_in_draining_period(h->q) && c->nc.fd >= 0) {
        /* Say goodbye, so the server frees the connection now. */
        ngtcp2_connection_close_error ce;
        ngtcp2_pkt_info pi;
        ngtcp2_ssize n;

        ngtcp2_connection_close_error_set_application_error(&ce, NGHTTP3_H3_NO_ERROR, NULL, 0);
        /* Time into ngtcp2: a fresh pc_now_ns() (reset has no now), h3_ts. */
        n = ngtcp2_conn_write_connection_close(h->q, NULL, &pi, h->pkt, h->pkt_cap, &ce,
                                               h3_ts(h, pc_now_ns(), false));
        if (n > 0 && c->net->write(&c->nc, h->pkt, (size_t)n) > 0)
            h->n_sent++;
    }
    h3_drop(h);
    h->closed = true;
    h->held_len = 0;
}

const proto_ops proto_h3 = {
    .name = "h3",
    .transport = HTTP_OVER_QUIC,
    .prior_knowledge = false, /* QUIC's TLS always runs ALPN */
    .multiplexed = true,
    .state_new = h3_state_new,
    .state_free = h3_state_free,
    .start = h3_start,
    .capacity = h3_capacity,
    .submit = h3_submit,
    .flush = h3_flush,
    .input = h3_input,
    .eof = h3_eof,
    .timeout = h3_timeout,
    .reset = h3_reset,
    .expire = h3_expire,
    .connecting = h3_connecting,
    .read_error = h3_read_failed,
};

/*
 * h3_cb.c - HTTP/3's second half: the ngtcp2 callbacks (QUIC stream data
 * into nghttp3, flow control, stream ends), the nghttp3 callbacks (the
 * response: headers, body, its end), how a connection ends on an error,
 * and the QUIC figures it leaves in the statistics.
 */
#include "http/h3.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "net/net.h"

/* ---- ngtcp2 ----------------------------------------------------------- */

static int on_handshake_completed(ngtcp2_conn *q, void *ud)
{
    (void)q;
    ((h3state *)ud)->hs_flag = true;
    return 0;
}

static int on_recv_stream_data(ngtcp2_conn *q, uint32_t flags, int64_t id, uint64_t offset,
                               const uint8_t *data, size_t len, void *ud, void *sud)
{
    h3state *h = ud;
    nghttp3_ssize n;

    (void)offset;
    (void)sud;
    h->ack_data = true; /* its credit may be what the server waits for (ack_wait_until) */
    if (!h->h3)
        return 0;
    n = nghttp3_conn_read_stream(h->h3, id, data, len, flags & NGTCP2_STREAM_DATA_FLAG_FIN);
    if (n < 0) {
        snprintf(h->why, sizeof h->why, "HTTP/3: %s", nghttp3_strerror((int)n));
        return NGTCP2_ERR_CALLBACK_FAILURE;
    }
    /* What nghttp3 consumed (framing) is credit for the server at once;
     * the body is credited as it is handed on (recv_data). */
    ngtcp2_conn_extend_max_stream_offset(q, id, (uint64_t)n);
    ngtcp2_conn_extend_max_offset(q, (uint64_t)n);
    return 0;
}

static int on_acked(ngtcp2_conn *q, int64_t id, uint64_t offset, uint64_t len, void *ud,
                    void *sud)
{
    h3state *h = ud;

    (void)q;
    (void)offset;
    (void)sud;
    if (h->h3 && nghttp3_conn_add_ack_offset(h->h3, id, len) != 0)
        return NGTCP2_ERR_CALLBACK_FAILURE;
    return 0;
}

static int on_stream_close(ngtcp2_conn *q, uint32_t flags, int64_t id, uint64_t code, void *ud,
                           void *sud)
{
    h3state *h = ud;
    int rc;

    (void)sud;
    (void)q;
    if (!(flags & NGTCP2_STREAM_CLOSE_FLAG_APP_ERROR_CODE_SET))
        code = NGHTTP3_H3_NO_ERROR;
    if (!h->h3)
        return 0;
    rc = nghttp3_conn_close_stream(h->h3, id, code);
    if (rc != 0 && rc != NGHTTP3_ERR_STREAM_NOT_FOUND)
        return NGTCP2_ERR_CALLBACK_FAILURE;
    return 0;
}

static int on_stream_reset(ngtcp2_conn *q, int64_t id, uint64_t final_size, uint64_t code,
                           void *ud, void *sud)
{
    h3state *h = ud;

    (void)q;
    (void)final_size;
    (void)code;
    if (sud)
        h->c->env->st->quic_resets++;
    if (h->h3 && nghttp3_conn_shutdown_stream_read(h->h3, id) != 0)
        return NGTCP2_ERR_CALLBACK_FAILURE;
    return 0;
}

static int on_stop_sending(ngtcp2_conn *q, int64_t id, uint64_t code, void *ud, void *sud)
{
    h3state *h = ud;

    (void)q;
    (void)code;
    (void)sud;
    if (h->h3 && nghttp3_conn_shutdown_stream_read(h->h3, id) != 0)
        return NGTCP2_ERR_CALLBACK_FAILURE;
    return 0;
}

static int on_extend_max_stream_data(ngtcp2_conn *q, int64_t id, uint64_t max, void *ud,
                                     void *sud)
{
    h3state *h = ud;

    (void)q;
    (void)max;
    (void)sud;
    if (h->h3 && nghttp3_conn_unblock_stream(h->h3, id) != 0)
        return NGTCP2_ERR_CALLBACK_FAILURE;
    return 0;
}

static void on_rand(uint8_t *dest, size_t len, const ngtcp2_rand_ctx *ctx)
{
    (void)ctx;
    h3_random(dest, len);
}

static int on_new_cid(ngtcp2_conn *q, ngtcp2_cid *cid, uint8_t *token, size_t cidlen, void *ud)
{
    (void)q;
    (void)ud;
    cid->datalen = cidlen;
    h3_random(cid->data, cidlen);
    h3_random(token, NGTCP2_STATELESS_RESET_TOKENLEN);
    return 0;
}

const ngtcp2_callbacks h3_quic_callbacks = {
    .client_initial = ngtcp2_crypto_client_initial_cb,
    .recv_crypto_data = ngtcp2_crypto_recv_crypto_data_cb,
    .handshake_completed = on_handshake_completed,
    .encrypt = ngtcp2_crypto_encrypt_cb,
    .decrypt = ngtcp2_crypto_decrypt_cb,
    .hp_mask = ngtcp2_crypto_hp_mask_cb,
    .recv_stream_data = on_recv_stream_data,
    .acked_stream_data_offset = on_acked,
    .stream_close = on_stream_close,
    .recv_retry = ngtcp2_crypto_recv_retry_cb,
    .rand = on_rand,
    .get_new_connection_id = on_new_cid,
    .update_key = ngtcp2_crypto_update_key_cb,
    .stream_reset = on_stream_reset,
    .extend_max_stream_data = on_extend_max_stream_data,
    .delete_crypto_aead_ctx = ngtcp2_crypto_delete_crypto_aead_ctx_cb,
    .delete_crypto_cipher_ctx = ngtcp2_crypto_delete_crypto_cipher_ctx_cb,
    .get_path_challenge_data = ngtcp2_crypto_get_path_challenge_data_cb,
    .stream_stop_sending = on_stop_sending,
    .version_negotiation = ngtcp2_crypto_version_negotiation_cb,
};

/* ngtcp2 0.12 keeps no count of a connection's lost packets
 * (ngtcp2_conn_stat has none, ngtcp2_conn_get_stream_loss_count only
 * stream data, per stream, and only while the stream lives), but its log
 * names each packet its loss detection declares lost, of every kind
 * (Initial, Handshake, 1-RTT; stream data, ACK-eliciting control frames,
 * probes): ngtcp2_log_pkt_lost's "pkn=N lost type=T sent_ts=S", written
 * through ngtcp2_log_info as the line "I%08" PRIu64 " 0x%s %s %s" (time,
 * source CID, event "rcv", the text). That line is counted; every other
 * log call (frames, packets: formats pacer does not read) returns at the
 * first comparison, unformatted. The count is the sender's own view: a
 * datagram of ACKs alone is never declared lost (no ACK is expected for
 * it), nor is a server's packet that never came. */
void h3_on_log(void *ud, const char *fmt, ...)
{
    static const char line[] = "I%08" PRIu64 " 0x%s %s %s";
    h3state *h = ud;
    const char *ev, *text;
    va_list ap;

    if (strcmp(fmt, line) != 0)
        return;
    va_start(ap, fmt);
    (void)va_arg(ap, uint64_t);
    (void)va_arg(ap, const char *);
    ev = va_arg(ap, const char *);
    text = va_arg(ap, const char *);
    va_end(ap);
    if (ev && text && strcmp(ev, "rcv") == 0 && strstr(text, " lost type="))
        h->n_lost++;
}

/* ---- nghttp3 ---------------------------------------------------------- */

static void forget(h3state *h, int64_t id)
{
    nghttp3_conn_set_stream_user_data(h->h3, id, NULL);
    ngtcp2_conn_set_stream_user_data(h->q, id, NULL);
}

static int on_begin_headers(nghttp3_conn *hc, int64_t id, void *ud, void *sud)
{
    h3state *h = ud;

    /* Called once the HEADERS frame's header is read, before its payload:
     * what is left of it is the whole field section as sent (QPACK). */
    h->c->env->st->header_wire += (uint64_t)nghttp3_conn_get_frame_payload_left(hc, id);
    if (sud)
        eng_first_byte(h->c, sud, h->now);
    return 0;
}

static int on_recv_header(nghttp3_conn *hc, int64_t id, int32_t token, nghttp3_rcbuf *rname,
                          nghttp3_rcbuf *rvalue, uint8_t flags, void *ud, void *sud)
{
    h3state *h = ud;
    slot *sl = sud;
    nghttp3_vec n = nghttp3_rcbuf_get_buf(rname), v = nghttp3_rcbuf_get_buf(rvalue);

    (void)hc;
    (void)id;
    (void)flags;
    h->c->env->st->header_decoded += n.len + v.len;
    if (token == NGHTTP3_QPACK_TOKEN_SERVER && http_want_server(h->c))
        eng_server(h->c, (const char *)v.base, v.len);
    if (!sl)
        return 0;
    if (token == NGHTTP3_QPACK_TOKEN__STATUS && v.len == 3 && isdigit(v.base[0]) &&
        isdigit(v.base[1]) && isdigit(v.base[2])) {
        int status = (v.base[0] - '0') * 100 + (v.base[1] - '0') * 10 + (v.base[2] - '0');

        if (status >= 200 || (status < 100 && status > 0)) /* 1xx: interim */
            h3_stream(h, sl)->status = status;
    } else if (n.len && n.base[0] != ':' && h->c->env->want_response &&
               http_header_pair(h->c, h3_slot_buf(h, sl, SB_HEADERS), (const char *)n.base, n.len,
                               (const char *)v.base, v.len) < 0) {
        return NGHTTP3_ERR_CALLBACK_FAILURE;
    }
    return 0;
}

static int on_recv_data(nghttp3_conn *hc, int64_t id, const uint8_t *data, size_t len, void *ud,
                        void *sud)
{
    h3state *h = ud;
    slot *sl = sud;

    (void)hc;
    ngtcp2_conn_extend_max_stream_offset(h->q, id, len);
    ngtcp2_conn_extend_max_offset(h->q, len);
    if (http_body_data(h->c, sl, sl ? h3_stream(h, sl) : NULL,
                       sl && h->c->env->want_response ? h3_slot_buf(h, sl, SB_BODY) : NULL,
                       (const char *)data, len, h->now) < 0)
        return NGHTTP3_ERR_CALLBACK_FAILURE;
    return 0;
}

static int on_deferred_consume(nghttp3_conn *hc, int64_t id, size_t n, void *ud, void *sud)
{
    h3state *h = ud;

    (void)hc;
    (void)sud;
    ngtcp2_conn_extend_max_stream_offset(h->q, id, n);
    ngtcp2_conn_extend_max_offset(h->q, n);
    return 0;
}

/* The response is complete: done now, not once the stream closes (that
 * waits for the server's ACK of our request too). */
static int on_end_stream(nghttp3_conn *hc, int64_t id, void *ud, void *sud)
{
    h3state *h = ud;
    slot *sl = sud;

    (void)hc;
    if (!sl || !h3_stream(h, sl)->status)
        return 0;
    forget(h, id);
    if (h->c->env->want_response && h->sb)
        eng_script_response(h->c, h3_stream(h, sl)->status, h3_slot_buf(h, sl, SB_HEADERS),
                            h3_slot_buf(h, sl, SB_BODY));
    eng_done(h->c, sl, h3_stream(h, sl)->status, h3_stream(h, sl)->body, h->now);
    return 0;
}

static int on_http_stream_close(nghttp3_conn *hc, int64_t id, uint64_t code, void *ud,
                                void *sud)
{
    h3state *h = ud;
    slot *sl = sud;
    char why[STATS_WHY_LEN];

    (void)hc;
    if (!sl)
        return 0;
    forget(h, id);
    if (h->goaway_id >= 0 && id >= h->goaway_id) {
        eng_refused(h->c, sl, "stream not processed before the server's GOAWAY", h->now);
    } else if (code == NGHTTP3_H3_REQUEST_REJECTED) {
        eng_refused(h->c, sl, "stream refused by the server (H3_REQUEST_REJECTED)", h->now);
    } else {
        if (code == NGHTTP3_H3_NO_ERROR)
            snprintf(why, sizeof why, "stream closed without a response");
        else
            snprintf(why, sizeof why, "stream reset by the server (HTTP/3 error 0x%llx)",
                     (unsigned long long)code);
        eng_failed(h->c, sl, PC_ERR_READ, why, h->now);
    }
    return 0;
}

static int on_http_stop_sending(nghttp3_conn *hc, int64_t id, uint64_t code, void *ud, void *sud)
{
    h3state *h = ud;

    (void)hc;
    (void)sud;
    ngtcp2_conn_shutdown_stream_read(h->q, id, code);
    return 0;
}

static int on_http_reset_stream(nghttp3_conn *hc, int64_t id, uint64_t code, void *ud, void *sud)
{
    h3state *h = ud;

    (void)hc;
    (void)sud;
    ngtcp2_conn_shutdown_stream_write(h->q, id, code);
    return 0;
}

/* GOAWAY: no new stream; those at or above id were not processed. */
static int on_shutdown(nghttp3_conn *hc, int64_t id, void *ud)
{
    h3state *h = ud;

    (void)hc;
    h->c->env->st->quic_goaway++;
    eng_goaway(h->c);
    h->goaway_id = id;
    eng_drain(h->c);
    return 0;
}

const nghttp3_callbacks h3_http_callbacks = {
    .stream_close = on_http_stream_close,
    .recv_data = on_recv_data,
    .deferred_consume = on_deferred_consume,
    .begin_headers = on_begin_headers,
    .recv_header = on_recv_header,
    .stop_sending = on_http_stop_sending,
    .end_stream = on_end_stream,
    .reset_stream = on_http_reset_stream,
    .shutdown = on_shutdown,
};

/* ---- ends ------------------------------------------------------------- */

/* The requests in flight were not answered on a connection that is gone:
 * sent again on a new one, keeping their intended time. */
static void resend_all(http_conn *c, const char *why, uint64_t now)
{
    for (uint32_t i = 0; i < c->depth && c->count; i++)
        if (c->slots[i].used)
            eng_refused(c, &c->slots[i], why, now);
}

/* The one door for time into ngtcp2 (proto_h3.h). now is a pc_now_ns()
 * reading; q_ts the last value handed out, 0 for a new connection. */
uint64_t h3_ts(h3state *h, uint64_t now, bool recv)
{
    uint64_t min = h->q_ts + (recv && h->q_ts ? 1 : 0);

    h->q_ts = now > min ? now : min;
    return h->q_ts;
}

unsigned h3_port(const h3state *h)
{
    const struct sockaddr *sa = (const struct sockaddr *)&h->remote;

    if (sa->sa_family == AF_INET)
        return ntohs(((const struct sockaddr_in *)sa)->sin_port);
    if (sa->sa_family == AF_INET6)
        return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
    return 0;
}

const char *h3_socket_error(const h3state *h, int err, char *buf, size_t cap)
{
    if (err == ECONNREFUSED)
        snprintf(buf, cap, "nothing listens on UDP port %u (ICMP port unreachable: is an HTTP/3 "
                           "server there?)",
                 h3_port(h));
    else
        snprintf(buf, cap, "%s", strerror(err));
    return buf;
}

/* A CONNECTION_CLOSE's transport error code in words: QUIC's CRYPTO_ERROR
 * range (0x100 + a TLS alert, RFC 9001 4.8) by the alert's name, and what
 * the alert means when the handshake had not finished. */
static void close_code_text(const h3state *h, uint64_t code, char *buf, size_t cap)
{
    unsigned a = (unsigned)(code - 0x100);

    if (code < 0x100 || code > 0x1ff) {
        snprintf(buf, cap, "transport error 0x%llx", (unsigned long long)code);
        return;
    }
    snprintf(buf, cap, "TLS alert %u %s, 0x%llx%s", a, net_tls_alert_name(a),
             (unsigned long long)code, h->hs_done ? "" : net_tls_alert_advice(a));
}

void h3_read_error(http_conn *c, h3state *h, int rc, uint64_t now)
{
    char why[STATS_WHY_LEN];

    if (rc == NGTCP2_ERR_DRAINING || rc == NGTCP2_ERR_CLOSING) {
        ngtcp2_connection_close_error ce;
        bool app;

        ngtcp2_conn_get_connection_close_error(h->q, &ce);
        app = ce.type == NGTCP2_CONNECTION_CLOSE_ERROR_CODE_TYPE_APPLICATION;
        c->env->st->quic_close[stats_quic_close_idx(app, ce.error_code)]++;
        {
            char code[112];

            if (app)
                snprintf(code, sizeof code, "application error 0x%llx",
                         (unsigned long long)ce.error_code);
            else
                close_code_text(h, ce.error_code, code, sizeof code);
            snprintf(why, sizeof why, "the server closed the QUIC connection (%s%s%.*s)", code,
                     ce.reasonlen ? ": " : "", (int)(ce.reasonlen < 80 ? ce.reasonlen : 80),
                     ce.reason ? (const char *)ce.reason : "");
        }
        h->closed = true;
        if (!h->hs_done) {
            eng_conn_fail(c, PC_ERR_CONNECT, why, now);
            return;
        }
        resend_all(c, why, now);
        eng_conn_fail(c, PC_ERR_READ, why, now); /* nothing left in flight: a drop, reopened */
        return;
    }
    if (rc == NGTCP2_ERR_RECV_VERSION_NEGOTIATION) {
        h->closed = true;
        eng_conn_fail(c, PC_ERR_CONNECT, "the server does not speak QUIC version 1 "
                                         "(Version Negotiation)", now);
        return;
    }
    if (rc == NGTCP2_ERR_DROP_CONN) {
        h->closed = true;
        eng_conn_fail(c, PC_ERR_READ, "QUIC: the connection was dropped", now);
        return;
    }
    if (rc == NGTCP2_ERR_CRYPTO) {
        uint8_t a = ngtcp2_conn_get_tls_alert(h->q);
        char verify[96];

        /* The alert pacer's side sent: a certificate that did not verify
         * says why, with what to do. */
        if (net_quic_verify_error(h->tls, verify, sizeof verify))
            snprintf(why, sizeof why, "QUIC TLS handshake failed: %s (TLS alert %u %s)", verify, a,
                     net_tls_alert_name(a));
        else
            snprintf(why, sizeof why, "QUIC TLS handshake failed (TLS alert %u %s%s)", a,
                     net_tls_alert_name(a),
                     a == 120 ? ": the server refused h3"
                     : a == 40 ? ": no TLS parameters in common"
                               : "");
    }
    else if (rc == NGTCP2_ERR_CALLBACK_FAILURE && h->why[0])
        snprintf(why, sizeof why, "%s", h->why);
    else
        snprintf(why, sizeof why, "QUIC: %s", ngtcp2_strerror(rc));
    h3_fail(c, h, rc == NGTCP2_ERR_CRYPTO ? PC_ERR_CONNECT : PC_ERR_PROTOCOL, why, now);
}

void h3_fail(http_conn *c, h3state *h, enum pc_err_kind kind, const char *why, uint64_t now)
{
    if (h->q && !h->closed && c->nc.fd >= 0) {
        ngtcp2_connection_close_error ce;
        ngtcp2_pkt_info pi;
        ngtcp2_ssize n;

        ngtcp2_connection_close_error_set_application_error(&ce, NGHTTP3_H3_INTERNAL_ERROR, NULL,
                                                            0);
        /* Time into ngtcp2: the caller's event time (a pc_now_ns()
         * reading), through h3_ts. */
        n = ngtcp2_conn_write_connection_close(h->q, NULL, &pi, h->pkt, h->pkt_cap, &ce,
                                               h3_ts(h, now, false));
        if (n > 0 && c->net->write(&c->nc, h->pkt, (size_t)n) > 0)
            h->n_sent++;
    }
    h->closed = true;
    eng_conn_fail(c, kind, why, now);
}

void h3_report(http_conn *c, h3state *h, bool end)
{
    pc_stats *st = c->env->st;
    ngtcp2_conn_stat cs;

    ngtcp2_conn_get_conn_stat(h->q, &cs);
    if (cs.pto_count > h->pto_seen)
        h->n_pto += cs.pto_count - h->pto_seen;
    h->pto_seen = cs.pto_count;
    if (end)
        st->quic_conns++;
    st->quic_sent += h->n_sent;
    st->quic_recv += h->n_recv;
    st->quic_lost += h->n_lost;
    st->quic_pto += h->n_pto;
    if (end && cs.first_rtt_sample_ts != UINT64_MAX) {
        hdr_record(&st->quic_srtt, (int64_t)cs.smoothed_rtt);
        hdr_record(&st->quic_min_rtt, (int64_t)cs.min_rtt);
    }
    h->n_sent = h->n_recv = h->n_lost = h->n_pto = 0;
}

void h3_keep_session(h3state *h)
{
    void *d;
    size_t len;

    if (h->tls && h->hs_done && net_quic_session_data(h->tls, &d, &len) == 0) {
        free(h->resume);
        h->resume = d;
        h->resume_len = len;
    }
}

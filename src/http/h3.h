/*
 * h3.h - what the two halves of the HTTP/3 protocol share: h3.c (the
 * proto_ops) and h3_cb.c (the ngtcp2 and nghttp3 callbacks, errors,
 * statistics). Internal to src/http/.
 */
#ifndef PACER_HTTP_H3_H
#define PACER_HTTP_H3_H

#include <errno.h>
#include <nghttp3/nghttp3.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <sys/socket.h>

#include "http/http.h"
#include "proto/h1req.h"
#include "util/clock.h"

#define H3_IDLE_NS (30ull * 1000000000ull) /* QUIC max_idle_timeout we offer */
#define H3_PKT_MAX 1500
/* The max_ack_delay pacer offers (the peer's probe timeout allows for it),
 * and how long an ACK may wait for the next request to carry it: less, so
 * a timer a little late still keeps the promise (h3_arm). */
#define H3_MAX_ACK_DELAY_NS (25ull * 1000000ull)
#define H3_ACK_HOLD_NS (20ull * 1000000ull)

/* What HTTP/3 keeps per connection (http_conn.ps). */
typedef struct h3state {
    http_conn *c;
    ngtcp2_conn *q;      /* QUIC */
    nghttp3_conn *h3;    /* HTTP/3, once the handshake is done */
    void *tls;           /* the GnuTLS session (net/quic_tls.c) */
    ngtcp2_crypto_conn_ref ref;
    struct sockaddr_storage local, remote;
    socklen_t llen, rlen;
    uint64_t now;        /* time of the datagram or timer being handled */
    uint64_t q_ts;       /* the last timestamp handed to ngtcp2 (h3_ts) */
    uint64_t ack_owed;   /* the first datagram read since a packet went out (0: none) */
    uint32_t ack_owed_n; /* and how many */
    bool ack_data;       /* and stream data came in them */
    bool hs_flag;        /* ngtcp2 said the handshake completed */
    bool hs_done;        /* and it has been reported */
    bool closed;         /* ngtcp2 is done with the connection: nothing more to send */
    int64_t goaway_id;   /* the server's GOAWAY: streams from here were not processed; -1 */
    uint32_t unsent;     /* streams submitted whose first byte is not out yet */
    uint64_t n_sent, n_recv, n_lost; /* datagrams sent, received; packets declared lost */
    uint64_t n_pto;      /* probe timeouts: ngtcp2's pto_count restarts at every ACK, */
    size_t pto_seen;     /* so its rises are added up at each report */
    uint8_t *pkt;
    size_t pkt_cap;
    uint8_t held[H3_PKT_MAX]; /* a datagram the socket refused (EAGAIN) */
    size_t held_len;
    void *resume;        /* TLS session data for the next connection */
    size_t resume_len;
    char why[STATS_WHY_LEN];
    sbuf *sb; /* with a script: per slot, SB_PER_SLOT buffers; NULL without one */
    http_stream *ss; /* per slot */
    nghttp3_nv *nv;  /* a request's header list, for submit (nghttp3 copies the list) */
    size_t nv_cap;
} h3state;

static inline sbuf *h3_slot_buf(const h3state *h, const slot *s, int which)
{
    return http_slot_buf(h->sb, h->c, s, which);
}

static inline http_stream *h3_stream(const h3state *h, const slot *s)
{
    return &h->ss[http_slot_index(h->c, s)];
}

extern const ngtcp2_callbacks h3_quic_callbacks;
extern const nghttp3_callbacks h3_http_callbacks;

void h3_random(uint8_t *p, size_t n);
/* ngtcp2's log_printf: counts the packets it declares lost (n_lost). */
void h3_on_log(void *ud, const char *fmt, ...);
void h3_flush(http_conn *c, uint64_t now);
void h3_arm(http_conn *c, h3state *h); /* report ngtcp2's next expiry */
/* The words for a socket error err on h's UDP socket: ECONNREFUSED (an
 * ICMP port unreachable) names the port nothing listens on; others are
 * strerror's. Into buf, which is returned. */
const char *h3_socket_error(const h3state *h, int err, char *buf, size_t cap);
/* The timestamp to hand ngtcp2 for an event at now, a pc_now_ns()
 * (CLOCK_MONOTONIC) reading taken for that event: never an intended or
 * ready time, a --start-at or mpirun start, a wall-clock or kernel time.
 * Every ts given to a connection's ngtcp2 calls comes from here (the
 * crossings are listed in docs/architecture.md), so it never runs backwards
 * against one already given (ngtcp2 asserts that an ACK is received after
 * the packets it acknowledges were sent: a pass's write at a fresh clock
 * then a read at the pass's earlier one aborted pacer in ngtcp2_rtb.c),
 * and a received packet's is after the last (recv). Latency is recorded
 * at the event's own now, not at this. */
uint64_t h3_ts(h3state *h, uint64_t now, bool recv);
/* The server's UDP port (0: not an IP address). */
unsigned h3_port(const h3state *h);
/* ngtcp2_conn_read_pkt failed with rc: end the connection as it says. */
void h3_read_error(http_conn *c, h3state *h, int rc, uint64_t now);
/* pacer ends the connection on an error: CONNECTION_CLOSE, then fail it. */
void h3_fail(http_conn *c, h3state *h, enum pc_err_kind kind, const char *why, uint64_t now);
/* The connection's QUIC figures since the last report into the
 * statistics: at each expiry (so what the warm-up sent is reset with it)
 * and at its end (then with its RTTs). */
void h3_report(http_conn *c, h3state *h, bool end);
/* Keep the TLS session data for resuming the next connection. */
void h3_keep_session(h3state *h);

#endif

/*
 * test_h3.c - HTTP/3 driven alone (http/h3.c and h3_cb.c with a fake
 * engine): the QUIC client's first flight as bytes out, its timers, and
 * the outcomes when no server ever answers (the handshake's connect
 * timeout, an ICMP port unreachable). A whole exchange needs a QUIC
 * server: tests/integration/test_h3.sh runs one against Caddy.
 *
 * The UDP socket is a real one on loopback (HTTP/3 asks the kernel for
 * its addresses), connected to a second one that never answers; what the
 * protocol writes goes to the fake transport, never on the wire.
 */
#include "http/h3.c"
#include "http/h3_cb.c"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <unistd.h>

#include "fake_engine.h"
#include "unit.h"
#include "util/clock.h"

static fake_engine E;
static int fds[2] = {-1, -1};

/* Two UDP sockets on 127.0.0.1 connected to each other; fds[0] is the client's. */
static bool udp_pair(void)
{
    struct sockaddr_in a[2];
    socklen_t len = sizeof a[0];

    for (int i = 0; i < 2; i++) {
        fds[i] = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
        memset(&a[i], 0, sizeof a[i]);
        a[i].sin_family = AF_INET;
        a[i].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fds[i] < 0 || bind(fds[i], (struct sockaddr *)&a[i], sizeof a[i]) < 0 ||
            getsockname(fds[i], (struct sockaddr *)&a[i], &len) < 0)
            return false;
    }
    return connect(fds[0], (struct sockaddr *)&a[1], sizeof a[1]) == 0 &&
           connect(fds[1], (struct sockaddr *)&a[0], sizeof a[0]) == 0;
}

static void close_pair(void)
{
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
            close(fds[i]), fds[i] = -1;
}

static net_quic_ctx *qctx;

static bool start(uint64_t now)
{
    char err[256];

    if (!qctx && !(qctx = net_quic_ctx_new(false, NULL, err, sizeof err)))
        return false;
    if (!udp_pair())
        return false;
    fe_init(&E, &proto_h3);
    E.set.quic_ctx = qctx;
    E.c.tls = true;
    E.c.nc.fd = fds[0];
    return proto_h3.start(&E.c, now) == 0;
}

static void stop(void)
{
    proto_h3.reset(&E.c);
    fe_free(&E, &proto_h3);
    close_pair();
}

/* The first flight: a padded Initial (RFC 9000 14.1: at least 1200 bytes),
 * QUIC version 1, a timer armed, no stream until the handshake is done. */
static void test_first_flight(void)
{
    uint64_t now = pc_now_ns();

    CHECK(start(now));
    CHECK(E.writes >= 1);
    CHECK(E.out_len >= 1200);
    CHECK((E.out[0] & 0xc0) == 0xc0); /* long header */
    CHECK(E.out[1] == 0 && E.out[2] == 0 && E.out[3] == 0 && E.out[4] == 1);
    CHECK(E.timer > now);
    CHECK(proto_h3.connecting(&E.c));
    CHECK_EQ_U64(proto_h3.capacity(&E.c), 0);
    CHECK_EQ_I64(E.conn_fails, 0);
    stop();
}

/* Nothing ever answers: the timers retransmit, then the handshake runs
 * past --connect-timeout and says which port was silent. */
static void test_silent_server_times_out(void)
{
    uint64_t now = pc_now_ns();
    int i;

    CHECK(start(now));
    for (i = 0; i < 64 && !strstr(E.log, "connect_timeout"); i++) {
        uint64_t t = E.timer;

        CHECK(t != 0);
        proto_h3.expire(&E.c, t > now ? t : now + 1);
        now = t > now ? t : now + 1;
    }
    CHECK(strstr(E.log, "connect_timeout: connect timed out (QUIC handshake): no answer on UDP "
                        "port ") != NULL);
    CHECK(E.writes >= 2); /* a probe went out before the end */
    CHECK(now - E.timer < 10ull * 1000000000ull);
    stop();
}

/* An ICMP port unreachable (ECONNREFUSED on the socket) in the protocol's words. */
static void test_port_unreachable(void)
{
    CHECK(start(pc_now_ns()));
    proto_h3.read_error(&E.c, ECONNREFUSED, pc_now_ns());
    CHECK(strstr(E.log, "conn_fail read: nothing listens on UDP port ") != NULL);
    stop();
}

/* A datagram that is not QUIC for this connection changes nothing. */
static void test_stray_datagram(void)
{
    static const char junk[] = "\x40garbage that is no QUIC packet of ours";

    CHECK(start(pc_now_ns()));
    proto_h3.input(&E.c, junk, sizeof junk - 1, pc_now_ns());
    CHECK_EQ_I64(E.conn_fails, 0);
    CHECK(proto_h3.connecting(&E.c));
    stop();
}

/* When an ACK may wait for the next request (ack_wait_until): only once
 * the handshake is done, while no request is in flight or one datagram
 * without stream data alone is owed, H3_ACK_HOLD_NS from the first owed
 * datagram, never past ngtcp2's loss-detection timer; h3_arm's timer
 * waits with it. The
 * client here is mid-handshake, so the loss timer is its Initial's probe
 * (about a second away: the initial RTT). */
static void test_ack_waits_for_the_next_request(void)
{
    uint64_t now = pc_now_ns();
    h3state *h;
    ngtcp2_conn_stat cs;

    CHECK(start(now));
    h = E.c.ps;
    ngtcp2_conn_get_conn_stat(h->q, &cs);
    CHECK(cs.loss_detection_timer > now + 2 * H3_ACK_HOLD_NS);
    h->ack_owed = now;
    h->ack_owed_n = 1;
    CHECK_EQ_U64(ack_wait_until(&E.c, h), 0); /* the handshake: never */
    h->hs_done = true;
    E.c.count = 0;
    CHECK_EQ_U64(ack_wait_until(&E.c, h), now + H3_ACK_HOLD_NS);
    h->ack_owed_n = 5; /* no request in flight: any number waits */
    CHECK_EQ_U64(ack_wait_until(&E.c, h), now + H3_ACK_HOLD_NS);
    E.c.count = 1; /* a response in flight: the second datagram is answered at once */
    CHECK_EQ_U64(ack_wait_until(&E.c, h), 0);
    h->ack_owed_n = 1;
    CHECK_EQ_U64(ack_wait_until(&E.c, h), now + H3_ACK_HOLD_NS);
    h->ack_data = true; /* stream data in it: its credit goes at once */
    CHECK_EQ_U64(ack_wait_until(&E.c, h), 0);
    E.c.count = 0; /* unless nothing is in flight */
    CHECK_EQ_U64(ack_wait_until(&E.c, h), now + H3_ACK_HOLD_NS);
    E.c.count = 1;
    h->ack_data = false;
    h->ack_owed = 0; /* nothing owed */
    CHECK_EQ_U64(ack_wait_until(&E.c, h), 0);
    h->ack_owed = cs.loss_detection_timer; /* the probe comes first */
    CHECK_EQ_U64(ack_wait_until(&E.c, h), 0);
    h->ack_owed = now;
    h->held_len = 1; /* a datagram the socket refused goes first */
    CHECK_EQ_U64(ack_wait_until(&E.c, h), 0);
    h->held_len = 0;
    h3_arm(&E.c, h); /* a later expiry (the probe) is not brought forward */
    CHECK_EQ_U64(E.timer, ngtcp2_conn_get_expiry(h->q));
    /* A packet sent carries what was owed. */
    CHECK(send_pkt(&E.c, h, (const uint8_t *)"x", 1, now) == 1);
    CHECK_EQ_U64(h->ack_owed, 0);
    CHECK(h->ack_owed_n == 0 && !h->ack_data);
    CHECK_EQ_U64(ack_wait_until(&E.c, h), 0);
    h->hs_done = false;
    E.c.count = 0;
    stop();
}

int main(void)
{
    RUN(test_first_flight);
    RUN(test_silent_server_times_out);
    RUN(test_port_unreachable);
    RUN(test_stray_datagram);
    RUN(test_ack_waits_for_the_next_request);
    net_quic_ctx_free(qctx);
    return unit_done();
}

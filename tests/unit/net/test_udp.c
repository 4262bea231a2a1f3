/*
 * test_udp.c - the UDP transport (net/udp.c) on real loopback sockets: its
 * batched reads hand out every datagram once, in order, whole, each with
 * its own kernel receive time; "read again" ends when a short batch is
 * handed out; what a batch holds is reported (the read loop takes it
 * before it stops); two connections' batches never mix; closing drops
 * what was held.
 */
#include "net/net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"

static int peer = -1;
/* The connections under test, kept here so a test that failed half-way is
 * closed by the next one (tidy): its batch must not reach the next test. */
static net_conn A = {.fd = -1}, B = {.fd = -1};

/* A connected transport socket c and a plain peer socket it talks to. */
static bool open_pair(net_conn *c)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;

    memset(c, 0, sizeof *c);
    c->fd = -1;
    peer = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    if (peer < 0 || bind(peer, (struct sockaddr *)&a, sizeof a) < 0 ||
        getsockname(peer, (struct sockaddr *)&a, &len) < 0)
        return false;
    if (net_udp_ops.connect(c, (struct sockaddr *)&a, sizeof a) != 0)
        return false;
    len = sizeof a;
    return getsockname(c->fd, (struct sockaddr *)&a, &len) == 0 &&
           connect(peer, (struct sockaddr *)&a, sizeof a) == 0;
}

static void close_pair(net_conn *c)
{
    net_udp_ops.close(c);
    if (peer >= 0)
        close(peer), peer = -1;
}

static void tidy(void)
{
    if (A.fd >= 0)
        net_udp_ops.close(&A);
    if (B.fd >= 0)
        net_udp_ops.close(&B);
    if (peer >= 0)
        close(peer), peer = -1;
}

static uint64_t real_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Datagram i: its number, then i bytes of its own letter (so sizes differ). */
static size_t datagram(int i, char *buf)
{
    size_t n = (size_t)snprintf(buf, 64, "%03d", i);

    memset(buf + n, 'a' + i % 26, (size_t)i);
    return n + (size_t)i;
}

static void send_n(int from, int count)
{
    char buf[256];

    for (int i = from; i < from + count; i++)
        CHECK(send(peer, buf, datagram(i, buf), 0) > 0);
    usleep(20000); /* on loopback they are queued at once; this only leaves room */
}

/* Read one datagram and check it is number i, whole. */
static void expect(net_conn *c, int i)
{
    char want[256], got[2048];
    size_t n = datagram(i, want);
    ssize_t r = net_udp_ops.read(c, got, sizeof got);

    CHECK_EQ_I64(r, (int64_t)n);
    CHECK(r > 0 && memcmp(got, want, n) == 0);
}

/* Twenty datagrams: three batches (8, 8, 4), every one once and in order;
 * "read again" until the short batch is handed out; held counts down. */
static void test_batches_in_order(void)
{
    net_conn *c = &A;
    char buf[64];

    tidy();
    CHECK(open_pair(c));
    send_n(0, 20);
    for (int i = 0; i < 20; i++) {
        expect(c, i);
        CHECK(net_udp_ops.pending(c) != 0 || i == 19);
        if (i == 0)
            CHECK_EQ_U64(net_udp_ops.held(c), 7);
    }
    CHECK_EQ_U64(net_udp_ops.held(c), 0);
    CHECK_EQ_U64(net_udp_ops.pending(c), 0); /* the last batch was short: the socket was empty */
    CHECK_EQ_I64(net_udp_ops.read(c, buf, sizeof buf), -EAGAIN);
    CHECK(c->want == NET_WANT_READ);
    send_n(20, 1); /* a datagram since: read again finds it */
    expect(c, 20);
    close_pair(c);
}

/* With receive times on, each datagram has its own, sent 20 ms apart and
 * read in one batch: each after the test began and before it was read, and
 * each later than the one before (one batch's time would be one time). A
 * loaded kernel may queue a loopback datagram late (its softirq), so no
 * gap between them is asked for. */
static void test_each_its_own_time(void)
{
    net_conn *c = &A;
    uint64_t began, last = 0;

    tidy();
    CHECK(open_pair(c));
    net_rx_times(c);
    CHECK(c->rx_ts);
    /* The kernel turns receive timestamps on for the host a moment after
     * the first socket asks (a deferred static key): until then datagrams
     * come without one (rx_real 0). Wait until one has it. */
    for (int i = 0; i < 100; i++) {
        char buf[64];

        CHECK(send(peer, "probe", 5, 0) == 5);
        usleep(10000);
        CHECK_EQ_I64(net_udp_ops.read(c, buf, sizeof buf), 5);
        if (c->rx_real)
            break;
    }
    CHECK(c->rx_real != 0);
    began = real_ns();
    for (int i = 0; i < 3; i++)
        send_n(i, 1); /* 20 ms apart */
    for (int i = 0; i < 3; i++) {
        expect(c, i);
        CHECK(c->rx_real > last && c->rx_real >= began);
        CHECK(c->rx_real <= real_ns());
        last = c->rx_real;
    }
    CHECK_EQ_U64(net_udp_ops.held(c), 0);
    close_pair(c);
}

/* A second connection reading while the first's batch is not handed out
 * reads its own datagrams, and the first's are still there, in order. */
static void test_two_connections_never_mix(void)
{
    int pa, pb;

    tidy();
    CHECK(open_pair(&A));
    pa = peer;
    CHECK(open_pair(&B));
    pb = peer;
    peer = pa;
    send_n(0, 5);
    peer = pb;
    send_n(100, 3);
    expect(&A, 0); /* A's batch: 5, 4 left */
    CHECK_EQ_U64(net_udp_ops.held(&A), 4);
    expect(&B, 100);
    expect(&B, 101);
    expect(&B, 102);
    CHECK_EQ_U64(net_udp_ops.held(&B), 0);
    for (int i = 1; i < 5; i++)
        expect(&A, i);
    close_pair(&B);
    peer = pa;
    close_pair(&A);
}

/* Closing a connection drops its batch: a new socket (possibly at the same
 * address in memory) starts with nothing held. */
static void test_close_drops_the_batch(void)
{
    net_conn *c = &A;
    char buf[64];

    tidy();
    CHECK(open_pair(c));
    send_n(0, 4);
    expect(c, 0);
    CHECK_EQ_U64(net_udp_ops.held(c), 3);
    close_pair(c);
    CHECK(open_pair(c));
    CHECK_EQ_U64(net_udp_ops.held(c), 0);
    CHECK_EQ_I64(net_udp_ops.read(c, buf, sizeof buf), -EAGAIN);
    close_pair(c);
}

/* An ICMP port unreachable still reads as -ECONNREFUSED. */
static void test_refused(void)
{
    net_conn *c = &A;
    char buf[64];
    ssize_t r = -EAGAIN;

    tidy();
    CHECK(open_pair(c));
    close(peer), peer = -1; /* nothing listens there any more */
    CHECK(net_udp_ops.write(c, "x", 1) == 1);
    for (int i = 0; i < 1000 && r == -EAGAIN; i++) {
        usleep(1000);
        r = net_udp_ops.read(c, buf, sizeof buf);
    }
    CHECK_EQ_I64(r, -ECONNREFUSED);
    close_pair(c);
}

int main(void)
{
    RUN(test_batches_in_order);
    RUN(test_each_its_own_time);
    RUN(test_two_connections_never_mix);
    RUN(test_close_drops_the_batch);
    RUN(test_refused);
    tidy();
    return unit_done();
}

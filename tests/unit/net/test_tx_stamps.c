/*
 * test_tx_stamps.c - the kernel's send stamps (net_tx_times,
 * net_tx_stamps) on real loopback TCP and UDP sockets: each send is
 * stamped once, keyed by the offset of its last byte counted from the
 * first byte sent (UDP: by the datagram's number),
 * at a time between the clock before the send and after the stamp was
 * taken; taking them empties the error queue (the socket is no longer
 * EPOLLERR); the transport's byte count is the key's; and only a
 * connected TCP socket whose reads are timed is stamped.
 */
#include "net/net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"

static int lsn = -1, peer = -1;
static net_conn C = {.fd = -1};

static uint64_t real_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void tidy(void)
{
    if (C.fd >= 0)
        net_plain_ops.close(&C);
    if (peer >= 0)
        close(peer), peer = -1;
    if (lsn >= 0)
        close(lsn), lsn = -1;
}

/* C connected over loopback TCP to peer (accepted), its reads timed. */
static bool open_tcp(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    struct pollfd p;
    int rc;

    tidy();
    memset(&C, 0, sizeof C);
    C.fd = -1;
    lsn = socket(AF_INET, SOCK_STREAM, 0);
    if (lsn < 0 || bind(lsn, (struct sockaddr *)&a, sizeof a) < 0 || listen(lsn, 4) < 0 ||
        getsockname(lsn, (struct sockaddr *)&a, &len) < 0)
        return false;
    rc = net_plain_ops.connect(&C, (struct sockaddr *)&a, sizeof a);
    if (rc != 0 && rc != -EINPROGRESS)
        return false;
    net_rx_times(&C);
    p = (struct pollfd){.fd = C.fd, .events = POLLOUT};
    if (poll(&p, 1, 5000) != 1 || net_connect_result(&C) != 0)
        return false;
    peer = accept(lsn, NULL, NULL);
    return peer >= 0;
}

static bool error_queue_empty(void)
{
    struct pollfd p = {.fd = C.fd, .events = 0};

    return poll(&p, 1, 0) == 0 || !(p.revents & POLLERR);
}

static void test_each_send_stamped_once(void)
{
    static char buf[5000];
    const size_t sizes[] = {100, 50, 3000, 1, 1200};
    uint64_t total = 0;

    CHECK(open_tcp());
    CHECK(C.rx_ts);
    net_tx_times(&C);
    CHECK(C.tx_ts);
    CHECK_EQ_U64(C.tx_bytes, 0);
    memset(buf, 'x', sizeof buf);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        net_tx_stamp st[4];
        uint64_t t0 = real_ns(), t1;
        ssize_t n = net_plain_ops.write(&C, buf, sizes[i]);
        int k;

        CHECK_EQ_I64(n, (int64_t)sizes[i]);
        total += (uint64_t)n;
        CHECK_EQ_U64(C.tx_bytes, total);
        /* Loopback stamps within the send; a loaded kernel may be a moment late. */
        for (int tries = 0; (k = net_tx_stamps(&C, st, 4)) == 0 && tries < 500; tries++)
            usleep(1000);
        t1 = real_ns();
        CHECK_EQ_I64(k, 1);
        CHECK_EQ_U64(st[0].key, total - 1);
        CHECK(st[0].real >= t0 && st[0].real <= t1);
        CHECK(error_queue_empty());
        CHECK_EQ_I64(net_tx_stamps(&C, st, 4), 0);
        {
            char r[8192];

            CHECK(read(peer, r, sizeof r) > 0);
        }
    }
    tidy();
}

/* Several sends' stamps wait: taken together, in order, at most cap at a
 * time, the rest on the next call. */
static void test_stamps_in_order(void)
{
    net_tx_stamp st[32];
    uint64_t total = 0;
    int k = 0;

    CHECK(open_tcp());
    net_tx_times(&C);
    for (int i = 0; i < 20; i++)
        CHECK_EQ_I64(net_plain_ops.write(&C, "abcdefgh", (size_t)(1 + i % 8)), 1 + i % 8);
    for (int tries = 0; k < 20 && tries < 500; tries++) {
        int n = net_tx_stamps(&C, st + k, k < 12 ? 12 - k : 20 - k);

        CHECK(n >= 0);
        k += n > 0 ? n : 0;
        if (n == 0)
            usleep(1000);
    }
    CHECK_EQ_I64(k, 20);
    for (int i = 0; i < 20; i++) {
        total += (uint64_t)(1 + i % 8);
        CHECK_EQ_U64(st[i].key, total - 1);
        if (i)
            CHECK(st[i].real >= st[i - 1].real);
    }
    CHECK(error_queue_empty());
    tidy();
}

/* UDP: each datagram its stamp, numbered from 0, as the transport counts. */
static void test_udp_datagrams_numbered(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    net_tx_stamp st[8];
    int k = 0;

    tidy();
    memset(&C, 0, sizeof C);
    C.fd = -1;
    peer = socket(AF_INET, SOCK_DGRAM, 0);
    CHECK(peer >= 0 && bind(peer, (struct sockaddr *)&a, sizeof a) == 0 &&
          getsockname(peer, (struct sockaddr *)&a, &len) == 0);
    CHECK_EQ_I64(net_udp_ops.connect(&C, (struct sockaddr *)&a, sizeof a), 0);
    net_rx_times(&C);
    net_tx_times(&C);
    CHECK(C.tx_ts);
    for (int i = 0; i < 5; i++)
        CHECK_EQ_I64(net_udp_ops.write(&C, "datagram", 3 + (size_t)i), 3 + i);
    CHECK_EQ_U64(C.tx_bytes, 5);
    for (int tries = 0; k < 5 && tries < 500; tries++) {
        int n = net_tx_stamps(&C, st + k, 8 - k);

        CHECK(n >= 0);
        k += n > 0 ? n : 0;
        if (n == 0)
            usleep(1000);
    }
    CHECK_EQ_I64(k, 5);
    for (int i = 0; i < k; i++)
        CHECK_EQ_U64(st[i].key, (uint64_t)i);
    CHECK(error_queue_empty());
    net_udp_ops.close(&C);
    tidy();
}

/* Only where reads are timed, and only TCP or UDP. */
static void test_only_timed_tcp(void)
{
    int sv[2];

    CHECK(open_tcp());
    C.rx_ts = false;
    net_tx_times(&C);
    CHECK(!C.tx_ts);
    tidy();
    /* A Unix-domain stream has no send stamps. */
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    memset(&C, 0, sizeof C);
    C.fd = sv[0];
    C.rx_ts = true;
    C.tcp = false;
    net_tx_times(&C);
    CHECK(!C.tx_ts);
    close(sv[0]);
    close(sv[1]);
    C.fd = -1;
}

int main(void)
{
    RUN(test_each_send_stamped_once);
    RUN(test_stamps_in_order);
    RUN(test_udp_datagrams_numbered);
    RUN(test_only_timed_tcp);
    tidy();
    return unit_done();
}

/*
 * plain.c - the transport for TCP and Unix-domain sockets, and the
 * non-blocking connect both TCP and TLS start with.
 */
#include "net/net.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Bind fd to the IPv4 source src (network order) without a port:
 * IP_BIND_ADDRESS_NO_PORT leaves the port to connect, which may then reuse
 * one that another destination holds; a bind with port 0 would take a
 * port of its own for good and run out at ~28k per source address. */
static int bind_source(int fd, const struct sockaddr *addr, uint32_t src)
{
    int one = 1;
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = src};

    if (addr->sa_family != AF_INET)
        return -EAFNOSUPPORT;
    if (setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one) < 0 ||
        bind(fd, (const struct sockaddr *)&sin, sizeof sin) < 0)
        return -errno;
    return 0;
}

int net_connect(net_conn *c, const struct sockaddr *addr, socklen_t alen)
{
    int one = 1, rc;
    int fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    c->ssl = NULL;
    c->want = 0;
    c->rx_ts = false;
    c->rx_real = 0;
    c->tx_ts = false;
    c->tx_bytes = 0;
    c->dgram = false;
    c->tcp = addr->sa_family != AF_UNIX;
    c->fd = fd;
    if (fd < 0)
        return -errno;
    if (addr->sa_family != AF_UNIX)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (c->src4 && (rc = bind_source(fd, addr, c->src4)) < 0) {
        close(fd);
        c->fd = -1;
        return rc;
    }
    if (connect(fd, addr, alen) == 0)
        return 0;
    if (errno == EINPROGRESS || errno == EAGAIN) /* AF_UNIX says EAGAIN */
        return -EINPROGRESS;
    return -errno;
}

int net_connect_result(net_conn *c)
{
    int soerr = 0;
    socklen_t len = sizeof soerr;

    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
        return -errno;
    return -soerr;
}

static int plain_handshake(net_conn *c, char *err, size_t errlen)
{
    (void)c;
    (void)err;
    (void)errlen;
    return 0;
}

void net_rx_times(net_conn *c)
{
    int one = 1;

    c->rx_ts = c->fd >= 0 && !c->ssl &&
               setsockopt(c->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) == 0;
}

/* A read that also takes the receive time of the last byte read (TCP: of
 * the last segment it reached into); flags MSG_TRUNC: dropped, not copied. */
ssize_t net_read_timed(net_conn *c, void *buf, size_t len, int flags)
{
    net_ts_cmsg cb;
    struct iovec io = {.iov_base = buf, .iov_len = len};
    struct msghdr m = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = cb.b,
                       .msg_controllen = sizeof cb.b};
    ssize_t n = recvmsg(c->fd, &m, flags);

    c->rx_real = n > 0 ? net_msg_rx_real(&m) : 0;
    return n;
}

static uint64_t ts_ns(const struct timespec *ts)
{
    return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

/* SO_TIMESTAMPNS's time, or SO_TIMESTAMPING's software one (the same
 * clock reading: a socket with both options gets both messages). */
uint64_t net_msg_rx_real(struct msghdr *m)
{
    uint64_t t = 0;

    for (struct cmsghdr *h = CMSG_FIRSTHDR(m); h; h = CMSG_NXTHDR(m, h)) {
        struct timespec ts[3];

        if (h->cmsg_level != SOL_SOCKET)
            continue;
        if (h->cmsg_type == SCM_TIMESTAMPNS) {
            memcpy(ts, CMSG_DATA(h), sizeof ts[0]);
            t = ts_ns(&ts[0]);
        } else if (h->cmsg_type == SCM_TIMESTAMPING && !t) {
            memcpy(ts, CMSG_DATA(h), sizeof ts);
            t = ts_ns(&ts[0]);
        }
    }
    return t;
}

void net_tx_times(net_conn *c)
{
    /* SND only: SCHED (the packet entered the device's queue) would be a
     * second message, one more to read, per send; on loopback's noqueue
     * device the two are the same time. */
    int f = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_OPT_ID |
            SOF_TIMESTAMPING_OPT_TSONLY;

    /* OPT_ID counts TCP's bytes from the first unacknowledged one (connected,
     * nothing sent yet: the first pacer sends), UDP's datagrams from 0. */
    c->tx_ts = c->fd >= 0 && (c->tcp || c->dgram) && c->rx_ts && !c->ssl &&
               setsockopt(c->fd, SOL_SOCKET, SO_TIMESTAMPING, &f, sizeof f) == 0;
    c->tx_bytes = 0;
}

/* The stamp one error-queue message carries, or false for any other
 * (an ICMP error, a truncated one). */
static bool tx_stamp_of(struct msghdr *m, net_tx_stamp *st)
{
    bool have_ts = false, have_id = false;

    for (struct cmsghdr *h = CMSG_FIRSTHDR(m); h; h = CMSG_NXTHDR(m, h)) {
        if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_TIMESTAMPING) {
            struct timespec ts[3];

            memcpy(ts, CMSG_DATA(h), sizeof ts);
            st->real = ts_ns(&ts[0]);
            have_ts = st->real != 0;
        } else if ((h->cmsg_level == SOL_IP && h->cmsg_type == IP_RECVERR) ||
                   (h->cmsg_level == SOL_IPV6 && h->cmsg_type == IPV6_RECVERR)) {
            struct sock_extended_err e;

            memcpy(&e, CMSG_DATA(h), sizeof e);
            if (e.ee_errno == ENOMSG && e.ee_origin == SO_EE_ORIGIN_TIMESTAMPING &&
                e.ee_info == SCM_TSTAMP_SND) {
                st->key = e.ee_data;
                have_id = true;
            }
        }
    }
    return have_ts && have_id;
}

#define TX_BATCH 8

int net_tx_stamps(net_conn *c, net_tx_stamp *out, int cap)
{
    union {
        /* SO_TIMESTAMPNS's (the socket asks for receive times too), the stamp, its id */
        char b[CMSG_SPACE(sizeof(struct timespec)) + CMSG_SPACE(3 * sizeof(struct timespec)) +
               CMSG_SPACE(sizeof(struct sock_extended_err) + sizeof(struct sockaddr_in6))];
        struct cmsghdr align;
    } cb[TX_BATCH];
    struct mmsghdr mm[TX_BATCH];
    int k = 0;

    /* A batch at a time, until one comes back short (the queue is empty:
     * no read that only finds EAGAIN) or out is full. */
    while (k < cap) {
        int want = cap - k < TX_BATCH ? cap - k : TX_BATCH, n;

        for (int i = 0; i < want; i++)
            mm[i] = (struct mmsghdr){
                .msg_hdr = {.msg_control = cb[i].b, .msg_controllen = sizeof cb[i].b}};
        n = recvmmsg(c->fd, mm, (unsigned)want, MSG_ERRQUEUE | MSG_DONTWAIT, NULL);
        if (n < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || k ? k : -errno;
        for (int i = 0; i < n; i++)
            if (!(mm[i].msg_hdr.msg_flags & MSG_CTRUNC) && tx_stamp_of(&mm[i].msg_hdr, &out[k]))
                k++;
        if (n < want)
            break;
    }
    return k;
}

/* A read's result: bytes, 0 at EOF, -EAGAIN (want set), or -errno. */
static ssize_t read_result(net_conn *c, ssize_t n)
{
    if (n >= 0)
        return n;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
        c->want = NET_WANT_READ;
        return -EAGAIN;
    }
    return errno == EINTR ? -EAGAIN : -errno;
}

static ssize_t plain_read(net_conn *c, void *buf, size_t len)
{
    return read_result(c, c->rx_ts ? net_read_timed(c, buf, len, 0) : read(c->fd, buf, len));
}

/* TCP's MSG_TRUNC: the kernel drops up to len bytes without copying them
 * (Linux; a Unix-domain socket would try to copy into NULL). */
static ssize_t plain_discard(net_conn *c, size_t len)
{
    if (!c->tcp)
        return -EOPNOTSUPP;
    return read_result(c, c->rx_ts ? net_read_timed(c, NULL, len, MSG_TRUNC)
                                   : recv(c->fd, NULL, len, MSG_TRUNC));
}

static ssize_t plain_write(net_conn *c, const void *buf, size_t len)
{
    ssize_t n = send(c->fd, buf, len, MSG_NOSIGNAL);

    if (n >= 0) {
        c->tx_bytes += (uint64_t)n;
        return n;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
        c->want = NET_WANT_WRITE;
        return -EAGAIN;
    }
    return errno == EINTR ? -EAGAIN : -errno;
}

static size_t plain_pending(net_conn *c)
{
    (void)c;
    return 0;
}

static void plain_close(net_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

const net_ops net_plain_ops = {
    .connect = net_connect,
    .rx_times = net_rx_times,
    .tx_times = net_tx_times,
    .handshake = plain_handshake,
    .read = plain_read,
    .discard = plain_discard,
    .write = plain_write,
    .pending = plain_pending,
    .close = plain_close,
};

/*
 * plain.c - the transport for TCP and Unix-domain sockets, and the
 * non-blocking connect both TCP and TLS start with.
 */
#include "net/net.h"

#include <errno.h>
#include <fcntl.h>
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

uint64_t net_msg_rx_real(struct msghdr *m)
{
    uint64_t t = 0;

    for (struct cmsghdr *h = CMSG_FIRSTHDR(m); h; h = CMSG_NXTHDR(m, h))
        if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec ts;

            memcpy(&ts, CMSG_DATA(h), sizeof ts);
            t = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        }
    return t;
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

    if (n >= 0)
        return n;
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
    .handshake = plain_handshake,
    .read = plain_read,
    .discard = plain_discard,
    .write = plain_write,
    .pending = plain_pending,
    .close = plain_close,
};

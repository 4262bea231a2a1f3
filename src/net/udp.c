/*
 * udp.c - the transport QUIC runs on: one connected UDP socket per
 * connection. Nothing here knows QUIC; the protocol (proto_h3.c) hands it
 * whole datagrams and is handed whole datagrams.
 */
#include "net/net.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

static int udp_connect(net_conn *c, const struct sockaddr *addr, socklen_t alen)
{
    int fd = socket(addr->sa_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int buf = 4 << 20;

    c->ssl = NULL;
    c->want = 0;
    c->rx_ts = false;
    c->rx_real = 0;
    c->fd = fd;
    if (fd < 0)
        return -errno;
    /* Room for a burst of datagrams (the kernel caps it at rmem_max). */
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
    /* A connected UDP socket: only the server's datagrams arrive, and an
     * ICMP port unreachable becomes ECONNREFUSED on the next call. */
    if (connect(fd, addr, alen) < 0)
        return -errno;
    return 0;
}

static int udp_handshake(net_conn *c, char *err, size_t errlen)
{
    (void)c;
    (void)err;
    (void)errlen;
    return 0; /* QUIC's handshake is the protocol's */
}

static ssize_t udp_read(net_conn *c, void *buf, size_t len)
{
    for (;;) {
        /* With net_rx_times, the datagram's own arrival time comes along. */
        ssize_t n = c->rx_ts ? net_read_timed(c, buf, len, 0) : recv(c->fd, buf, len, 0);

        if (n > 0)
            return n;
        if (n == 0)
            continue; /* an empty datagram: 0 would read as end of stream */
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            c->want = NET_WANT_READ;
            return -EAGAIN;
        }
        return -errno;
    }
}

static ssize_t udp_write(net_conn *c, const void *buf, size_t len)
{
    for (;;) {
        ssize_t n = send(c->fd, buf, len, 0);

        if (n >= 0)
            return n;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) {
            c->want = NET_WANT_WRITE;
            return -EAGAIN;
        }
        return -errno;
    }
}

/* A datagram read never fills the buffer, so "the read was short" says
 * nothing: more may wait. Read until -EAGAIN. */
static size_t udp_pending(net_conn *c)
{
    (void)c;
    return 1;
}

static void udp_close(net_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->want = 0;
}

const net_ops net_udp_ops = {
    .connect = udp_connect,
    .rx_times = net_rx_times,
    .handshake = udp_handshake,
    .read = udp_read,
    .write = udp_write,
    .pending = udp_pending,
    .close = udp_close,
};

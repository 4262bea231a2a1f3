/*
 * udp.c - the transport QUIC runs on: one connected UDP socket per
 * connection. Nothing here knows QUIC; the protocol (http/h3.c) hands it
 * whole datagrams and is handed whole datagrams.
 */
#include "net/net.h"

#include <errno.h>
#include <string.h>
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
    c->tx_ts = false;
    c->tx_bytes = 0;
    c->dgram = true;
    c->tcp = false;
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

/* Datagrams are read a batch at a time (recvmmsg), into one batch per
 * thread: a datagram a system call cost a read per datagram and one more
 * per wake-up to find the socket empty. A batch that came back short says
 * the socket was empty, so the read loop stops without that last call
 * (udp_pending), and what a batch holds the loop always takes before it
 * stops (udp_held), so no other connection's read can find it there
 * (and then it reads one datagram without a batch, as a safeguard). */
#define UDP_BATCH 8

typedef struct udp_batch {
    const net_conn *owner; /* whose datagrams these are (NULL: none) */
    unsigned n, next;      /* read, and handed out */
    bool drained;          /* fewer than UDP_BATCH came: the socket was empty */
    struct mmsghdr m[UDP_BATCH];
    struct iovec io[UDP_BATCH];
    uint64_t rx_real[UDP_BATCH];
    net_ts_cmsg cm[UDP_BATCH];
    unsigned char d[UDP_BATCH][NET_UDP_MAX];
} udp_batch;

static __thread udp_batch batch; /* 12 KiB a thread, in its static TLS */

/* Fill the batch from c's socket: datagrams read (> 0), or -1 with errno. */
static int batch_fill(udp_batch *b, net_conn *c)
{
    int n;

    for (unsigned i = 0; i < UDP_BATCH; i++) {
        b->io[i] = (struct iovec){.iov_base = b->d[i], .iov_len = sizeof b->d[i]};
        b->m[i].msg_hdr = (struct msghdr){.msg_iov = &b->io[i], .msg_iovlen = 1};
        if (c->rx_ts) {
            b->m[i].msg_hdr.msg_control = b->cm[i].b;
            b->m[i].msg_hdr.msg_controllen = sizeof b->cm[i].b;
        }
    }
    n = recvmmsg(c->fd, b->m, UDP_BATCH, 0, NULL);
    if (n <= 0)
        return n < 0 ? -1 : (errno = EAGAIN, -1);
    for (int i = 0; i < n; i++)
        b->rx_real[i] = c->rx_ts ? net_msg_rx_real(&b->m[i].msg_hdr) : 0;
    b->owner = c;
    b->n = (unsigned)n;
    b->next = 0;
    b->drained = n < UDP_BATCH;
    return n;
}

/* The next datagram of c's batch into buf (a longer one is cut at len,
 * as recv would), 0 when an empty one (skipped by the caller). */
static ssize_t batch_take(udp_batch *b, net_conn *c, void *buf, size_t len)
{
    unsigned i = b->next++;
    size_t n = b->m[i].msg_len;

    if (n > len)
        n = len;
    memcpy(buf, b->d[i], n);
    c->rx_real = b->rx_real[i];
    return (ssize_t)n;
}

static ssize_t udp_read(net_conn *c, void *buf, size_t len)
{
    udp_batch *b = &batch;

    for (;;) {
        ssize_t n;

        if (b->owner == c && b->next < b->n)
            n = batch_take(b, c, buf, len);
        else if (b->owner && b->owner != c && b->next < b->n)
            /* Another connection's datagrams still wait (never, with the
             * read loop as it is): one datagram, as before batches. */
            n = c->rx_ts ? net_read_timed(c, buf, len, 0) : recv(c->fd, buf, len, 0);
        else if (batch_fill(b, c) > 0)
            n = batch_take(b, c, buf, len);
        else
            n = -1;
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

        if (n >= 0) {
            c->tx_bytes++; /* a datagram: what UDP's send stamps count (net_tx_times) */
            return n;
        }
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
 * nothing: read again, unless the last batch came back short and has been
 * handed out (the socket was empty then; a datagram since makes it
 * readable again). */
static size_t udp_pending(net_conn *c)
{
    const udp_batch *b = &batch;

    return b->owner != c || b->next < b->n || !b->drained;
}

/* Datagrams of c's batch not yet handed out. */
static size_t udp_held(net_conn *c)
{
    const udp_batch *b = &batch;

    return b->owner == c ? b->n - b->next : 0;
}

static void udp_close(net_conn *c)
{
    if (batch.owner == c)
        batch.owner = NULL; /* what it held dies with the socket */
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->want = 0;
}

const net_ops net_udp_ops = {
    .connect = udp_connect,
    .rx_times = net_rx_times,
    .tx_times = net_tx_times,
    .handshake = udp_handshake,
    .read = udp_read,
    .write = udp_write,
    .pending = udp_pending,
    .held = udp_held,
    .close = udp_close,
};

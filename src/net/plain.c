/*
 * plain.c - the transport for TCP and Unix-domain sockets, and the
 * non-blocking connect both TCP and TLS start with.
 */
#include "net/net.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/ioctl.h>
#include <unistd.h>

int net_connect(net_conn *c, const struct sockaddr *addr, socklen_t alen)
{
    int one = 1;
    int fd = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    c->ssl = NULL;
    c->want = 0;
    c->fd = fd;
    if (fd < 0)
        return -errno;
    if (addr->sa_family != AF_UNIX)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
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

static ssize_t plain_read(net_conn *c, void *buf, size_t len)
{
    ssize_t n = read(c->fd, buf, len);

    if (n >= 0)
        return n;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
        c->want = NET_WANT_READ;
        return -EAGAIN;
    }
    return errno == EINTR ? -EAGAIN : -errno;
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
    .handshake = plain_handshake,
    .read = plain_read,
    .write = plain_write,
    .pending = plain_pending,
    .close = plain_close,
};

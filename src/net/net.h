/*
 * net.h - byte transports behind one narrow table: plain sockets (TCP or
 * Unix-domain) and TLS (OpenSSL). The engine never calls read(2) or
 * SSL_read directly, so a protocol never knows which one it runs over.
 *
 * Conventions: operations return >= 0 on progress, -EAGAIN when the socket
 * must become readable/writable first (c->want says which), and another
 * negative errno on failure, with a human reason in the caller's buffer
 * where one is asked for.
 */
#ifndef PACER_NET_NET_H
#define PACER_NET_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_session_st SSL_SESSION;

enum { NET_WANT_READ = 1, NET_WANT_WRITE = 2 };

typedef struct net_conn {
    int fd;
    SSL *ssl;
    int want;  /* NET_WANT_* after -EAGAIN */
    bool rx_ts;        /* plain reads ask the kernel when the bytes came (net_rx_times) */
    uint64_t rx_real;  /* after a read: CLOCK_REALTIME ns its last byte came, 0 = unknown */
} net_conn;

typedef struct net_ops {
    /* Finish what follows the TCP connect (the TLS handshake). 0 when done,
     * -EAGAIN to wait for want, -ENOPROTOOPT when the server refused every
     * protocol offered (ALPN), another negative errno on failure. */
    int (*handshake)(net_conn *c, char *err, size_t errlen);
    /* > 0 bytes read, 0 orderly EOF, -EAGAIN, or -errno. */
    ssize_t (*read)(net_conn *c, void *buf, size_t len);
    /* > 0 bytes written, -EAGAIN, or -errno (-EPIPE for a reset peer). */
    ssize_t (*write)(net_conn *c, const void *buf, size_t len);
    /* Non-zero when bytes wait inside the transport (TLS buffers) that the
     * socket will not report as readable again. */
    size_t (*pending)(net_conn *c);
    /* Release everything; c->fd becomes -1. */
    void (*close)(net_conn *c);
} net_ops;

extern const net_ops net_plain_ops;
extern const net_ops net_tls_ops;

/* Start a non-blocking connect of a new socket to addr. Returns 0 when
 * connected at once, -EINPROGRESS when EPOLLOUT will say, or -errno. */
int net_connect(net_conn *c, const struct sockaddr *addr, socklen_t alen);

/* Plain TCP: from now on each read also says when its last byte came
 * (rx_real, the kernel's receive time, SO_TIMESTAMPNS), however long it
 * waited in the socket. No effect over TLS (rx_real stays 0). */
void net_rx_times(net_conn *c);

/* After EPOLLOUT on a connecting socket: 0, or the connect's -errno. */
int net_connect_result(net_conn *c);

/* TLS context for a client: ALPN offering `alpn` (wire format: length-
 * prefixed names, alpn_len bytes), no verification unless verify (then the
 * system store, or cacert when given). NULL with a reason in err. */
SSL_CTX *net_tls_ctx_new(bool verify, const char *cacert, const unsigned char *alpn,
                         size_t alpn_len, char *err, size_t errlen);
void net_tls_ctx_free(SSL_CTX *ctx);

/* Attach a client TLS session to a connected socket. peer is the name or
 * IP literal the server's certificate must be for (checked when the
 * context verifies: a name against its DNS SANs, an address against its IP
 * SANs, as curl does); names are also sent as SNI, addresses are not (RFC
 * 6066). resume, when non-NULL, is offered for resumption;
 * *store receives each new session ticket (the caller owns the reference
 * it replaces). Returns 0 or -ENOMEM. */
int net_tls_attach(net_conn *c, SSL_CTX *ctx, const char *peer, SSL_SESSION *resume,
                   SSL_SESSION **store);

/* After the handshake: the protocol the server chose with ALPN (*len
 * bytes, not NUL-terminated; NULL with *len 0 when it chose none), and the
 * TLS version and cipher names (static strings). So the engine needs no
 * OpenSSL header. */
const unsigned char *net_tls_alpn(const net_conn *c, unsigned int *len);
void net_tls_describe(const net_conn *c, const char **version, const char **cipher);

/* Whether the last handshake resumed a session. */
bool net_tls_resumed(net_conn *c);

/* Release a stored session reference (NULL is fine). */
void net_tls_session_free(SSL_SESSION *s);

#endif

/*
 * net.h - transports behind one narrow table: plain sockets (TCP or
 * Unix-domain), TLS (OpenSSL), and connected UDP sockets (QUIC's datagrams;
 * the QUIC TLS session, GnuTLS, is made here too). The engine never calls read(2) or
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
#include <time.h>

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_session_st SSL_SESSION;

enum { NET_WANT_READ = 1, NET_WANT_WRITE = 2 };

/* What a TLS handshake settled (net_ops.tls_info). */
typedef struct net_tls_info {
    const char *version, *cipher; /* static names */
    bool resumed;                 /* a session was resumed */
    const unsigned char *alpn;    /* the protocol the server chose (alpn_len bytes, not
                                   * NUL-terminated; NULL with 0: none) */
    unsigned int alpn_len;
} net_tls_info;

typedef struct net_conn {
    int fd;
    SSL *ssl;
    int want;  /* NET_WANT_* after -EAGAIN */
    bool rx_ts;        /* plain reads ask the kernel when the bytes came (net_rx_times) */
    uint64_t rx_real;  /* after a read: CLOCK_REALTIME ns its last byte came, 0 = unknown */
    bool tcp;          /* a TCP socket (plain discard works there only) */
    bool dgram;        /* a UDP socket (net_udp_ops) */
    bool tx_ts;        /* the kernel stamps each send's way out (net_tx_times) */
    uint64_t tx_bytes; /* with tx_ts: what was handed to the socket since net_tx_times, in
                        * the unit a stamp's key counts: bytes on TCP (TLS records
                        * included), datagrams on UDP */
    uint32_t src4;     /* set by the caller before connect: the IPv4 source address
                        * to bind to (network order), 0 for the kernel's choice */
} net_conn;

typedef struct net_ops {
    /* Make a new non-blocking socket for c and start connecting it to addr:
     * 0 when connected at once, -EINPROGRESS when EPOLLOUT will say, or
     * -errno. */
    int (*connect)(net_conn *c, const struct sockaddr *addr, socklen_t alen);
    /* Optional (NULL: the transport cannot): have each read report when
     * its bytes came (net_conn.rx_ts, rx_real), however long they waited
     * in the socket. */
    void (*rx_times)(net_conn *c);
    /* Optional (NULL: the transport cannot): once connected, have the
     * kernel stamp when each send left (net_tx_times, net_tx_stamps). */
    void (*tx_times)(net_conn *c);
    /* Finish what follows the TCP connect (the TLS handshake). 0 when done,
     * -EAGAIN to wait for want, -ENOPROTOOPT when the server refused every
     * protocol offered (ALPN), another negative errno on failure. */
    int (*handshake)(net_conn *c, char *err, size_t errlen);
    /* > 0 bytes read, 0 orderly EOF, -EAGAIN, or -errno. */
    ssize_t (*read)(net_conn *c, void *buf, size_t len);
    /* Optional (NULL: the transport cannot): as read, but the bytes (at
     * most len) are dropped in the kernel, never copied out; for a body
     * nobody reads. -EOPNOTSUPP where this connection cannot. */
    ssize_t (*discard)(net_conn *c, size_t len);
    /* > 0 bytes written, -EAGAIN, or -errno (-EPIPE for a reset peer). */
    ssize_t (*write)(net_conn *c, const void *buf, size_t len);
    /* Non-zero when bytes wait inside the transport (TLS buffers) that the
     * socket will not report as readable again. */
    size_t (*pending)(net_conn *c);
    /* Optional (NULL: nothing is read ahead). What the transport has
     * already taken from the socket and holds for the next reads (UDP's
     * batch of datagrams): the read loop takes it all before it stops,
     * whatever its round limit, since the socket will not say it is there. */
    size_t (*held)(net_conn *c);
    /* Release everything; c->fd becomes -1. */
    void (*close)(net_conn *c);
    /* Optional (NULL: the transport is not TLS). Once connected: attach a
     * client TLS session to the socket, as net_tls_attach. */
    int (*tls_attach)(net_conn *c, SSL_CTX *ctx, const char *peer, SSL_SESSION *resume,
                      SSL_SESSION **store);
    /* Optional (NULL: not TLS). After the handshake: what it settled. So
     * the engine asks the transport what it is instead of comparing it. */
    void (*tls_info)(const net_conn *c, net_tls_info *out);
} net_ops;

extern const net_ops net_plain_ops;
extern const net_ops net_tls_ops;
/* A connected UDP socket: read is one datagram (empty ones skipped; the
 * socket is read a batch at a time, recvmmsg, and a datagram longer than
 * NET_UDP_MAX is cut), write one datagram, handshake nothing; pending says
 * "read again" until a batch came back short and is handed out. ICMP port
 * unreachable reads as -ECONNREFUSED. */
#define NET_UDP_MAX 1500
extern const net_ops net_udp_ops;

/* Start a non-blocking connect of a new socket to addr, from c->src4 when
 * that is set (the port still the kernel's choice, at connect). Returns 0
 * when connected at once, -EINPROGRESS when EPOLLOUT will say, or -errno
 * (-EAFNOSUPPORT: a source address for an address that is not IPv4). */
int net_connect(net_conn *c, const struct sockaddr *addr, socklen_t alen);

/* From now on each read also says when its last byte came (rx_real, the
 * kernel's receive time, SO_TIMESTAMPNS), however long it waited in the
 * socket: plain TCP and UDP, and TLS when called before tls_attach (whose
 * SSL then reads through a recvmsg BIO; after it, no effect). */
void net_rx_times(net_conn *c);
/* recvmsg(2) of up to len bytes (flags: MSG_TRUNC drops them) that also
 * sets c->rx_real to when the kernel received them (net_rx_times); the
 * system call's own result (-1 with errno). The transports' own. */
ssize_t net_read_timed(net_conn *c, void *buf, size_t len, int flags);
/* Room for the control messages a timed read brings: SO_TIMESTAMPNS's, and
 * SO_TIMESTAMPING's three times once net_tx_times has set that option. */
typedef union net_ts_cmsg {
    char b[CMSG_SPACE(sizeof(struct timespec)) + CMSG_SPACE(3 * sizeof(struct timespec))];
    struct cmsghdr align;
} net_ts_cmsg;
/* The kernel's receive time a recvmsg(2) or recvmmsg(2) brought in m's
 * control messages: CLOCK_REALTIME ns, 0 when none came. */
uint64_t net_msg_rx_real(struct msghdr *m);

/* Once a TCP or UDP socket is connected, and only where its reads are
 * timed (rx_ts; TLS: before tls_attach, so that its records go through the
 * timed BIO, which counts them): the kernel stamps when each send was
 * handed to the device (SO_TIMESTAMPING, software TX, OPT_ID with
 * OPT_TSONLY), and tx_bytes counts from here. tx_ts says whether it took. */
void net_tx_times(net_conn *c);
/* One stamp from the kernel's send path: key, the send's last unit (TCP:
 * the offset of its last byte; UDP: the datagram's number, from 0), i.e.
 * tx_bytes - 1 after that send, modulo 2^32; real, CLOCK_REALTIME ns. */
typedef struct net_tx_stamp {
    uint32_t key;
    uint64_t real;
} net_tx_stamp;
/* Take the stamps that wait in c's error queue (they make it EPOLLERR),
 * up to cap into out: how many (0: none), or -errno. */
int net_tx_stamps(net_conn *c, net_tx_stamp *out, int cap);

/* After EPOLLOUT on a connecting socket: 0, or the connect's -errno. */
int net_connect_result(net_conn *c);

/* TLS context for a client: ALPN offering `alpn` (wire format: length-
 * prefixed names, alpn_len bytes), no verification unless verify (then the
 * system store, or cacert when given), sessions kept for resumption only
 * when resume. NULL with a reason in err. */
SSL_CTX *net_tls_ctx_new(bool verify, const char *cacert, const unsigned char *alpn,
                         size_t alpn_len, bool resume, char *err, size_t errlen);
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

/* Release a stored session reference (NULL is fine). */
void net_tls_session_free(SSL_SESSION *s);

/* ---- QUIC's TLS (GnuTLS, through ngtcp2's crypto helper): quic_tls.c ---- */

typedef struct net_quic_ctx net_quic_ctx;

/* Credentials for QUIC clients: no verification unless verify (then the
 * system store, or cacert when given). NULL with a reason in err. */
net_quic_ctx *net_quic_ctx_new(bool verify, const char *cacert, char *err, size_t errlen);
void net_quic_ctx_free(net_quic_ctx *ctx);

/* A client TLS session for one QUIC connection (a gnutls_session_t, opaque
 * here), offering ALPN h3; peer as for net_tls_attach. conn_ref is the
 * ngtcp2_crypto_conn_ref the crypto helper finds the connection by.
 * resume/resume_len: session data of an earlier connection to offer (none:
 * NULL). NULL with a reason in err. */
void *net_quic_session_new(net_quic_ctx *ctx, const char *peer, void *conn_ref,
                           const void *resume, size_t resume_len, char *err, size_t errlen);
void net_quic_session_free(void *session);
/* After the handshake: resumed?, the TLS version and cipher names, and
 * the session data to resume with later (malloc'd into *data; 0, or -1
 * when there is none yet). */
bool net_quic_resumed(void *session);
void net_quic_describe(void *session, const char **version, const char **cipher);
int net_quic_session_data(void *session, void **data, size_t *len);
/* Whether the server chose h3 with ALPN. */
bool net_quic_alpn_h3(void *session);
/* Why the server's certificate did not verify, in words with what to do
 * ("not signed by a CA pacer trusts: give its CA with --cacert FILE, or
 * drop --verify"), into buf; false when it did verify (or was not
 * checked). */
bool net_quic_verify_error(void *session, char *buf, size_t cap);

/* TLS alert number a's name, as RFC 8446 6 spells it ("bad_certificate");
 * "unknown" for a number it does not define. */
const char *net_tls_alert_name(unsigned a);
/* What a server's alert a during the handshake usually means, as ": ..."
 * to follow its name ("" when nothing more is known). */
const char *net_tls_alert_advice(unsigned a);

#endif

/*
 * tls.c - the OpenSSL transport. One SSL_CTX for the run (shared by the
 * workers, which OpenSSL 3 allows), one SSL per connection, and, unless
 * --tls-resume off, the newest session ticket kept per connection so that
 * it resumes when it reconnects instead of paying a full handshake again
 * (as wrk's and h2load's connections do; ab and hey never resume).
 */
#include "net/net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <openssl/bio.h>
#include <openssl/x509v3.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int new_session_cb(SSL *ssl, SSL_SESSION *sess)
{
    SSL_SESSION **store = SSL_get_app_data(ssl);

    if (!store)
        return 0;
    if (*store)
        SSL_SESSION_free(*store);
    *store = sess;
    return 1; /* we keep the reference */
}

SSL_CTX *net_tls_ctx_new(bool verify, const char *cacert, const unsigned char *alpn,
                         size_t alpn_len, bool resume, char *err, size_t errlen)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());

    if (!ctx) {
        snprintf(err, errlen, "TLS: cannot create context");
        return NULL;
    }
    /* Not SSL_MODE_RELEASE_BUFFERS: freeing and reallocating the record
     * buffers on every read costs more CPU than the memory it saves. */
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* Read whole socket buffers, not a 5-byte record header and then the
     * record: half the read(2) calls. */
    SSL_CTX_set_read_ahead(ctx, 1);
    if (resume) {
        SSL_CTX_set_session_cache_mode(ctx,
                                       SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
        SSL_CTX_sess_set_new_cb(ctx, new_session_cb);
    } else {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF); /* no session is kept */
    }
    if (SSL_CTX_set_alpn_protos(ctx, alpn, (unsigned)alpn_len) != 0) {
        snprintf(err, errlen, "TLS: cannot set ALPN");
        SSL_CTX_free(ctx);
        return NULL;
    }
    if (verify) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
        if (cacert ? SSL_CTX_load_verify_locations(ctx, cacert, NULL) != 1
                   : SSL_CTX_set_default_verify_paths(ctx) != 1) {
            snprintf(err, errlen, "TLS: cannot load CA certificates%s%s", cacert ? " from " : "",
                     cacert ? cacert : "");
            SSL_CTX_free(ctx);
            return NULL;
        }
    } else {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    }
    return ctx;
}

void net_tls_ctx_free(SSL_CTX *ctx)
{
    SSL_CTX_free(ctx);
}

void net_tls_session_free(SSL_SESSION *s)
{
    if (s)
        SSL_SESSION_free(s);
}

/* ---- a socket BIO whose reads carry the kernel's receive time ----------
 *
 * Under a rate, a response's latency ends when its bytes came, which the
 * kernel says (SO_TIMESTAMPNS, net_rx_times), not when pacer read them: a
 * thread may then sleep to its next send and read what came meanwhile,
 * one wake-up a request (pace.c, defer_reads). OpenSSL's own socket BIO
 * calls read(2), which drops that time; this one reads with recvmsg(2)
 * (net_read_timed) into the connection's rx_real. Its data is the
 * net_conn; the fd stays the connection's (never closed here). */
static BIO_METHOD *timed_method;
static pthread_once_t timed_once = PTHREAD_ONCE_INIT;

static int timed_read(BIO *b, char *buf, int len)
{
    net_conn *c = BIO_get_data(b);
    uint64_t keep = c->rx_real;
    ssize_t n;

    BIO_clear_retry_flags(b);
    n = net_read_timed(c, buf, (size_t)len, 0);
    if (n > 0)
        return (int)n;
    /* Bytes OpenSSL still holds from an earlier read came when it did. */
    c->rx_real = keep;
    if (n == 0)
        BIO_set_flags(b, BIO_FLAGS_IN_EOF);
    else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        BIO_set_retry_read(b);
    return (int)n;
}

static int timed_write(BIO *b, const char *buf, int len)
{
    net_conn *c = BIO_get_data(b);
    ssize_t n;

    BIO_clear_retry_flags(b);
    n = send(c->fd, buf, (size_t)len, MSG_NOSIGNAL);
    if (n > 0)
        c->tx_bytes += (uint64_t)n; /* what the kernel's send stamps count (net_tx_times) */
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        BIO_set_retry_write(b);
    return (int)n;
}

static long timed_ctrl(BIO *b, int cmd, long num, void *ptr)
{
    net_conn *c = BIO_get_data(b);

    (void)num;
    switch (cmd) {
    case BIO_CTRL_FLUSH:
    case BIO_CTRL_DUP:
        return 1;
    case BIO_CTRL_EOF:
        return BIO_test_flags(b, BIO_FLAGS_IN_EOF) != 0;
    case BIO_C_GET_FD:
        if (ptr)
            *(int *)ptr = c->fd;
        return c->fd;
    default:
        return 0;
    }
}

static int timed_create(BIO *b)
{
    BIO_set_init(b, 1);
    return 1;
}

static void timed_method_new(void)
{
    BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "pacer timed socket");

    if (m && (BIO_meth_set_read(m, timed_read) != 1 || BIO_meth_set_write(m, timed_write) != 1 ||
              BIO_meth_set_ctrl(m, timed_ctrl) != 1 || BIO_meth_set_create(m, timed_create) != 1)) {
        BIO_meth_free(m);
        m = NULL;
    }
    timed_method = m;
}

/* A timed BIO over c's socket, or NULL (out of memory: then the plain
 * socket BIO, and reads are timed when read). */
static BIO *timed_bio(net_conn *c)
{
    BIO *b;

    pthread_once(&timed_once, timed_method_new);
    if (!timed_method || !(b = BIO_new(timed_method)))
        return NULL;
    BIO_set_data(b, c);
    return b;
}

static bool is_ip_literal(const char *host)
{
    unsigned char buf[sizeof(struct in6_addr)];

    return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

int net_tls_attach(net_conn *c, SSL_CTX *ctx, const char *peer, SSL_SESSION *resume,
                   SSL_SESSION **store)
{
    SSL *ssl = SSL_new(ctx);
    BIO *tb = c->rx_ts ? timed_bio(c) : NULL;

    if (!ssl)
        return -ENOMEM;
    if (tb) {
        SSL_set_bio(ssl, tb, tb); /* one BIO both ways: one reference, taken */
    } else {
        c->rx_ts = false; /* no timed reads: what is read is timed when read */
        SSL_set_fd(ssl, c->fd);
    }
    SSL_set_connect_state(ssl);
    SSL_set_app_data(ssl, store);
    /* With --verify the name or address must match too, not just the
     * chain: an address against the certificate's IP SANs. */
    if (peer && is_ip_literal(peer)) {
        if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), peer) != 1) {
            SSL_free(ssl);
            return -ENOMEM;
        }
    } else if (peer) {
        SSL_set_tlsext_host_name(ssl, peer);
        SSL_set1_host(ssl, peer);
    }
    if (resume)
        SSL_set_session(ssl, resume);
    c->ssl = ssl;
    return 0;
}

/* What the handshake settled: the ALPN choice, version, cipher, resumption. */
static void tls_info(const net_conn *c, net_tls_info *out)
{
    const unsigned char *sel = NULL;
    unsigned int len = 0;

    SSL_get0_alpn_selected(c->ssl, &sel, &len);
    out->alpn = len ? sel : NULL;
    out->alpn_len = len;
    out->version = SSL_get_version(c->ssl);
    out->cipher = SSL_get_cipher_name(c->ssl);
    out->resumed = SSL_session_reused(c->ssl);
}

const char *net_tls_alert_name(unsigned a)
{
    static const struct {
        unsigned char n;
        const char *name;
    } alerts[] = {
        {0, "close_notify"},          {10, "unexpected_message"},
        {20, "bad_record_mac"},       {22, "record_overflow"},
        {40, "handshake_failure"},    {42, "bad_certificate"},
        {43, "unsupported_certificate"}, {44, "certificate_revoked"},
        {45, "certificate_expired"},  {46, "certificate_unknown"},
        {47, "illegal_parameter"},    {48, "unknown_ca"},
        {49, "access_denied"},        {50, "decode_error"},
        {51, "decrypt_error"},        {70, "protocol_version"},
        {71, "insufficient_security"}, {80, "internal_error"},
        {86, "inappropriate_fallback"}, {90, "user_canceled"},
        {109, "missing_extension"},   {110, "unsupported_extension"},
        {112, "unrecognized_name"},   {113, "bad_certificate_status_response"},
        {115, "unknown_psk_identity"}, {116, "certificate_required"},
        {120, "no_application_protocol"},
    };

    for (size_t i = 0; i < sizeof alerts / sizeof alerts[0]; i++)
        if (alerts[i].n == a)
            return alerts[i].name;
    return "unknown";
}

const char *net_tls_alert_advice(unsigned a)
{
    switch (a) {
    case 112: /* unrecognized_name */
    case 80:  /* internal_error: Go servers (Caddy) send it for a name they have no certificate for */
        return ": no certificate for this name? (--host NAME)";
    case 120:
        return ": the server refused the protocols offered";
    case 40:
        return ": no TLS parameters in common";
    case 116:
        return ": the server wants a client certificate";
    default:
        return "";
    }
}

/* What to do about certificate check v's failure, after its name. */
static const char *verify_advice(long v)
{
    switch (v) {
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
        return " (no trusted CA signed it: --cacert FILE, or drop --verify)";
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
        return " (not for this name: URL host, --host NAME)";
    default:
        return "";
    }
}

/* Map an OpenSSL result to the transport convention. */
static ssize_t map_err(net_conn *c, int r, char *err, size_t errlen)
{
    int e = SSL_get_error(c->ssl, r);
    unsigned long code;

    switch (e) {
    case SSL_ERROR_WANT_READ:
        c->want = NET_WANT_READ;
        return -EAGAIN;
    case SSL_ERROR_WANT_WRITE:
        c->want = NET_WANT_WRITE;
        return -EAGAIN;
    case SSL_ERROR_ZERO_RETURN:
        return 0;
    case SSL_ERROR_SYSCALL:
        ERR_clear_error();
        if (errno == 0 || errno == EAGAIN) {
            if (err)
                snprintf(err, errlen, "TLS: connection closed by the server");
            return 0; /* EOF without close_notify: many servers do that */
        }
        if (err)
            snprintf(err, errlen, "TLS: %s", strerror(errno));
        return -errno;
    default:
        code = ERR_get_error();
        if (err) {
            char buf[256];
            long v = SSL_get_verify_result(c->ssl);

            ERR_error_string_n(code, buf, sizeof buf);
            if (ERR_GET_REASON(code) == SSL_R_CERTIFICATE_VERIFY_FAILED && v != X509_V_OK)
                /* Which check failed: expired, self-signed, wrong name... */
                snprintf(err, errlen, "TLS: certificate verify failed: %s%s",
                         X509_verify_cert_error_string(v), verify_advice(v));
            else if (ERR_GET_REASON(code) >= SSL_AD_REASON_OFFSET &&
                     ERR_GET_REASON(code) < SSL_AD_REASON_OFFSET + 256) {
                unsigned a = (unsigned)(ERR_GET_REASON(code) - SSL_AD_REASON_OFFSET);

                /* The server's alert, by its name and what it usually means. */
                snprintf(err, errlen, "TLS: the server sent TLS alert %u %s%s", a,
                         net_tls_alert_name(a), net_tls_alert_advice(a));
            } else if (ERR_GET_REASON(code) == SSL_R_WRONG_VERSION_NUMBER)
                snprintf(err, errlen, "TLS: the server did not answer in TLS (%s)", buf);
            else
                snprintf(err, errlen, "TLS: %s", buf);
        }
        ERR_clear_error();
        /* The server's alert that it speaks none of the protocols offered
         * (ALPN): the engine may say which it asked for. */
        return ERR_GET_REASON(code) == SSL_R_TLSV1_ALERT_NO_APPLICATION_PROTOCOL ? -ENOPROTOOPT
                                                                                : -EPROTO;
    }
}

static int tls_handshake(net_conn *c, char *err, size_t errlen)
{
    int r;

    errno = 0;
    r = SSL_do_handshake(c->ssl);
    if (r == 1)
        return 0;
    r = (int)map_err(c, r, err, errlen);
    if (r == 0) {
        /* EOF in the middle of a handshake is a failure, not an end. */
        snprintf(err, errlen, "TLS: handshake failed: connection closed by the server");
        return -ECONNRESET;
    }
    return r;
}

static ssize_t tls_read(net_conn *c, void *buf, size_t len)
{
    int n;

    errno = 0;
    n = SSL_read(c->ssl, buf, len > 0x7fffffff ? 0x7fffffff : (int)len);
    return n > 0 ? n : map_err(c, n, NULL, 0);
}

static ssize_t tls_write(net_conn *c, const void *buf, size_t len)
{
    int n;

    errno = 0;
    n = SSL_write(c->ssl, buf, len > 0x7fffffff ? 0x7fffffff : (int)len);
    if (n > 0)
        return n;
    n = (int)map_err(c, n, NULL, 0);
    return n == 0 ? -EPIPE : n;
}

/* With read-ahead, bytes can wait inside OpenSSL that epoll will never
 * report again: SSL_has_pending sees them, SSL_pending only decrypted ones. */
static size_t tls_pending(net_conn *c)
{
    int n = SSL_pending(c->ssl);

    return n > 0 ? (size_t)n : SSL_has_pending(c->ssl) ? 1 : 0;
}

static void tls_close(net_conn *c)
{
    if (c->ssl) {
        /* A close_notify, as a polite client sends (one write, never
         * waited on): OpenSSL forgets the session of a connection freed
         * without one, so the next connect could not resume it. */
        if (SSL_is_init_finished(c->ssl))
            SSL_shutdown(c->ssl);
        ERR_clear_error();
        SSL_free(c->ssl);
        c->ssl = NULL;
    }
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

const net_ops net_tls_ops = {
    .connect = net_connect,
    .rx_times = net_rx_times, /* before tls_attach, which then reads through timed_bio */
    .tx_times = net_tx_times, /* the same: timed_bio counts what it sends */
    .handshake = tls_handshake,
    .read = tls_read,
    .write = tls_write,
    .pending = tls_pending,
    .close = tls_close,
    .tls_attach = net_tls_attach,
    .tls_info = tls_info,
};

/*
 * quic_tls.c - the TLS 1.3 session inside a QUIC connection: GnuTLS
 * (Debian 12's OpenSSL 3.0 has no QUIC API), wired to ngtcp2 by its
 * crypto helper (libngtcp2_crypto_gnutls). The protocol (proto_h3.c) sees
 * an opaque session; the engine sees neither library.
 */
#include "net/net.h"

#include <gnutls/gnutls.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

struct net_quic_ctx {
    gnutls_certificate_credentials_t cred;
    bool verify;
};

/* QUIC is TLS 1.3 only, without the middlebox compatibility mode (RFC 9001 8.4). */
#define QUIC_PRIORITY "NORMAL:-VERS-ALL:+VERS-TLS1.3:%DISABLE_TLS13_COMPAT_MODE"

net_quic_ctx *net_quic_ctx_new(bool verify, const char *cacert, char *err, size_t errlen)
{
    net_quic_ctx *q = calloc(1, sizeof *q);
    int rc;

    if (!q) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    q->verify = verify;
    if (gnutls_certificate_allocate_credentials(&q->cred) != GNUTLS_E_SUCCESS) {
        snprintf(err, errlen, "QUIC TLS: cannot allocate credentials");
        free(q);
        return NULL;
    }
    if (verify) {
        rc = cacert ? gnutls_certificate_set_x509_trust_file(q->cred, cacert, GNUTLS_X509_FMT_PEM)
                    : gnutls_certificate_set_x509_system_trust(q->cred);
        if (rc <= 0) {
            snprintf(err, errlen, "QUIC TLS: no CA certificates loaded from %s%s%s",
                     cacert ? cacert : "the system store", rc < 0 ? ": " : "",
                     rc < 0 ? gnutls_strerror(rc) : "");
            net_quic_ctx_free(q);
            return NULL;
        }
    }
    return q;
}

void net_quic_ctx_free(net_quic_ctx *q)
{
    if (!q)
        return;
    gnutls_certificate_free_credentials(q->cred);
    free(q);
}

static bool is_ip_literal(const char *s)
{
    unsigned char b[16];

    return inet_pton(AF_INET, s, b) == 1 || inet_pton(AF_INET6, s, b) == 1;
}

void *net_quic_session_new(net_quic_ctx *q, const char *peer, void *conn_ref, const void *resume,
                           size_t resume_len, char *err, size_t errlen)
{
    gnutls_session_t s;
    gnutls_datum_t alpn = {.data = (unsigned char *)"h3", .size = 2};
    int rc;

    if ((rc = gnutls_init(&s, GNUTLS_CLIENT | GNUTLS_NO_END_OF_EARLY_DATA)) != 0) {
        snprintf(err, errlen, "QUIC TLS: %s", gnutls_strerror(rc));
        return NULL;
    }
    if (ngtcp2_crypto_gnutls_configure_client_session(s) != 0 ||
        (rc = gnutls_priority_set_direct(s, QUIC_PRIORITY, NULL)) != 0 ||
        (rc = gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, q->cred)) != 0 ||
        (rc = gnutls_alpn_set_protocols(s, &alpn, 1, GNUTLS_ALPN_MANDATORY)) != 0) {
        snprintf(err, errlen, "QUIC TLS: %s", rc ? gnutls_strerror(rc) : "cannot set up the session");
        gnutls_deinit(s);
        return NULL;
    }
    gnutls_session_set_ptr(s, conn_ref);
    /* Names go out as SNI, addresses do not (RFC 6066). */
    if (peer && !is_ip_literal(peer))
        gnutls_server_name_set(s, GNUTLS_NAME_DNS, peer, strlen(peer));
    if (q->verify)
        gnutls_session_set_verify_cert(s, peer, 0);
    if (resume && resume_len) {
        gnutls_datum_t d = {.data = (unsigned char *)resume, .size = (unsigned int)resume_len};

        gnutls_session_set_data(s, d.data, d.size); /* stale data is only not resumed */
    }
    return s;
}

void net_quic_session_free(void *session)
{
    if (session)
        gnutls_deinit(session);
}

bool net_quic_resumed(void *session)
{
    return session && gnutls_session_is_resumed(session);
}

void net_quic_describe(void *session, const char **version, const char **cipher)
{
    const char *v = gnutls_protocol_get_name(gnutls_protocol_get_version(session));
    const char *c = gnutls_cipher_get_name(gnutls_cipher_get(session));

    *version = v ? v : "";
    *cipher = c ? c : "";
}

int net_quic_session_data(void *session, void **data, size_t *len)
{
    gnutls_datum_t d;

    /* TLS 1.3: resumable only once the server sent a ticket. */
    if (!session || !(gnutls_session_get_flags(session) & GNUTLS_SFLAGS_SESSION_TICKET) ||
        gnutls_session_get_data2(session, &d) != 0)
        return -1;
    *data = malloc(d.size);
    if (*data)
        memcpy(*data, d.data, d.size);
    *len = d.size;
    gnutls_free(d.data);
    return *data ? 0 : -1;
}

bool net_quic_alpn_h3(void *session)
{
    gnutls_datum_t p;

    return gnutls_alpn_get_selected_protocol(session, &p) == 0 && p.size == 2 &&
           memcmp(p.data, "h3", 2) == 0;
}

bool net_quic_verify_error(void *session, char *buf, size_t cap)
{
    unsigned st = gnutls_session_get_verify_cert_status(session);

    if (!st)
        return false;
    if (st & GNUTLS_CERT_UNEXPECTED_OWNER)
        snprintf(buf, cap, "certificate verify failed: not for this name (URL host, --host NAME)");
    else if (st & (GNUTLS_CERT_SIGNER_NOT_FOUND | GNUTLS_CERT_SIGNER_NOT_CA))
        snprintf(buf, cap, "certificate verify failed: no trusted CA signed it (--cacert FILE, or "
                           "drop --verify)");
    else if (st & GNUTLS_CERT_EXPIRED)
        snprintf(buf, cap, "certificate verify failed: it has expired");
    else if (st & GNUTLS_CERT_NOT_ACTIVATED)
        snprintf(buf, cap, "certificate verify failed: it is not valid yet");
    else {
        gnutls_datum_t d = {NULL, 0};

        if (gnutls_certificate_verification_status_print(st, GNUTLS_CRT_X509, &d, 0) == 0 &&
            d.data)
            snprintf(buf, cap, "certificate verify failed: %s", (const char *)d.data);
        else
            snprintf(buf, cap, "certificate verify failed (status 0x%x)", st);
        gnutls_free(d.data);
    }
    return true;
}

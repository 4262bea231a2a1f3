/*
 * table.c - the protocol table: every protocol pacer speaks, one row each
 * (its proto_ops: name, transport, prior knowledge, multiplexing), and the
 * choices made from it (which protocol a run asks for, which transport a
 * connection takes, which protocol a connection speaks once it is up), so
 * that nothing outside this file branches on a protocol's identity.
 */
#include <stdio.h>
#include <string.h>

#include "http/http.h"

extern const proto_ops proto_h1, proto_h2, proto_h3;

const proto_ops *const http_protocols[] = {&proto_h1, &proto_h2, &proto_h3};
const size_t http_nprotocols = sizeof http_protocols / sizeof http_protocols[0];

const proto_ops *http_find(const char *name, size_t len)
{
    for (size_t i = 0; i < http_nprotocols; i++)
        if (strlen(http_protocols[i]->name) == len && memcmp(http_protocols[i]->name, name, len) == 0)
            return http_protocols[i];
    return NULL;
}

const proto_ops *http_wanted(bool h2, bool h3)
{
    const char *name = h3 ? "h3" : h2 ? "h2" : "http/1.1";

    return http_find(name, strlen(name));
}

const net_ops *http_transport(const proto_ops *p, bool tls)
{
    if (p->transport == HTTP_OVER_QUIC)
        return &net_udp_ops;
    return tls ? &net_tls_ops : &net_plain_ops;
}

const proto_ops *http_choose(const proto_ops *want, bool tls, const unsigned char *alpn,
                             size_t len, bool fallback, char *why, size_t whylen)
{
    static const char h1[] = "http/1.1";
    const proto_ops *p;
    bool none = len == 0;

    if (want->transport == HTTP_OVER_QUIC)
        return want; /* its ALPN is checked inside the protocol */
    if (!tls)
        return want->prior_knowledge ? want : http_find(h1, sizeof h1 - 1);
    if (none) {
        alpn = (const unsigned char *)h1;
        len = sizeof h1 - 1;
    }
    p = http_find((const char *)alpn, len);
    if (!p || p->transport != want->transport) {
        snprintf(why, whylen, "server chose an unsupported protocol with ALPN: %.*s", (int)len,
                 (const char *)alpn);
        return NULL;
    }
    if (p != want && !fallback) {
        snprintf(why, whylen, "server refused %s (ALPN: %s)", want->name,
                 none ? "it chose no protocol" : p->name);
        return NULL;
    }
    return p;
}

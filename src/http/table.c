/*
 * table.c - the protocol table: every protocol pacer speaks, one row each
 * (its proto_ops: name, transport, prior knowledge, multiplexing), and the
 * choices made from it (which protocol a run asks for, which transport a
 * connection takes, which protocol a connection speaks once it is up), so
 * that nothing outside this file branches on a protocol's identity.
 */
#include <errno.h>
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

int http_alpn_wire(const char *list, unsigned char *out, size_t cap, const proto_ops **want,
                   bool *fallback)
{
    static const char h1[] = "http/1.1";
    size_t n = 0;
    const char *p = list;

    *want = http_find(h1, sizeof h1 - 1);
    *fallback = false;
    while (*p) {
        size_t len = strcspn(p, ",");
        const proto_ops *r;

        if (len == 0 || len > 255 || n + 1 + len > cap)
            return -EINVAL;
        out[n++] = (unsigned char)len;
        memcpy(out + n, p, len);
        n += len;
        if ((r = http_find(p, len)) && r->transport == HTTP_OVER_TCP) {
            if (r->multiplexed)
                *want = r;
            else
                *fallback = true;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return n ? (int)n : -EINVAL;
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

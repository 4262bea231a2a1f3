/*
 * url.c - see url.h. Deliberately strict about the authority (a typo in a
 * host or port should stop the run, not send load somewhere unexpected)
 * and deliberately verbatim about the path (the user's bytes are sent).
 */
#include "cli/url.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    /* The URL is echoed back: keep the message on one line. */
    for (char *p = err; *p; p++)
        if ((unsigned char)*p < ' ' || *p == 0x7f)
            *p = '?';
    return -EINVAL;
}

static int host_char_ok(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_';
}

int url_parse(const char *s, pc_url *u, char *err, size_t errlen)
{
    const char *p, *auth_end, *host, *host_end, *port = NULL, *port_end = NULL;
    size_t hlen, plen;

    memset(u, 0, sizeof *u);
    if (strncasecmp(s, "http://", 7) == 0) {
        p = s + 7;
    } else if (strncasecmp(s, "https://", 8) == 0) {
        u->tls = true;
        p = s + 8;
    } else {
        return fail(err, errlen, "invalid URL '%s': must start with http:// or https://", s);
    }
    auth_end = p + strcspn(p, "/?#");
    for (const char *q = p; q < auth_end; q++)
        if (*q == '@')
            return fail(err, errlen, "invalid URL '%s': credentials in the URL are not supported", s);
    if (*p == '[') {
        host = p + 1;
        host_end = memchr(host, ']', (size_t)(auth_end - host));
        if (!host_end || host_end == host)
            return fail(err, errlen, "invalid URL '%s': unterminated IPv6 literal", s);
        for (const char *q = host; q < host_end; q++)
            if (!(host_char_ok((unsigned char)*q) || *q == ':' || *q == '%'))
                return fail(err, errlen, "invalid URL '%s': bad IPv6 literal", s);
        u->ipv6_literal = true;
        if (host_end + 1 < auth_end) {
            if (host_end[1] != ':')
                return fail(err, errlen, "invalid URL '%s': junk after IPv6 literal", s);
            port = host_end + 2;
            port_end = auth_end;
        }
    } else {
        host = p;
        host_end = memchr(p, ':', (size_t)(auth_end - p));
        if (host_end) {
            port = host_end + 1;
            port_end = auth_end;
        } else {
            host_end = auth_end;
        }
        for (const char *q = host; q < host_end; q++)
            if (!host_char_ok((unsigned char)*q))
                return fail(err, errlen, "invalid URL '%s': bad character in host name", s);
    }
    hlen = (size_t)(host_end - host);
    if (hlen == 0)
        return fail(err, errlen, "invalid URL '%s': no host", s);
    if (hlen >= sizeof u->host)
        return fail(err, errlen, "invalid URL '%s': host name too long", s);
    memcpy(u->host, host, hlen);
    u->host[hlen] = '\0';

    if (port) {
        unsigned long v = 0;
        size_t n = (size_t)(port_end - port);

        if (n == 0 || n > 5)
            return fail(err, errlen, "invalid URL '%s': bad port", s);
        for (const char *q = port; q < port_end; q++) {
            if (*q < '0' || *q > '9')
                return fail(err, errlen, "invalid URL '%s': bad port", s);
            v = v * 10 + (unsigned long)(*q - '0');
        }
        if (v == 0 || v > 65535)
            return fail(err, errlen, "invalid URL '%s': port must be 1-65535", s);
        snprintf(u->port, sizeof u->port, "%lu", v);
    } else {
        strcpy(u->port, u->tls ? "443" : "80");
    }

    {
        bool dflt = strcmp(u->port, u->tls ? "443" : "80") == 0;
        snprintf(u->hostport, sizeof u->hostport, "%s%s%s%s%s", u->ipv6_literal ? "[" : "",
                 u->host, u->ipv6_literal ? "]" : "", dflt ? "" : ":", dflt ? "" : u->port);
    }

    /* Path and query verbatim, fragment dropped; control bytes and spaces
     * would break the request line, so they are refused. */
    p = auth_end;
    plen = strcspn(p, "#");
    for (size_t i = 0; i < plen; i++)
        if ((unsigned char)p[i] <= ' ' || p[i] == 0x7f)
            return fail(err, errlen, "invalid URL '%s': space or control character in path", s);
    u->path = malloc(plen + 2);
    if (!u->path)
        return fail(err, errlen, "out of memory");
    if (plen == 0 || p[0] == '?') {
        u->path[0] = '/';
        memcpy(u->path + 1, p, plen);
        u->path[plen + 1] = '\0';
    } else {
        memcpy(u->path, p, plen);
        u->path[plen] = '\0';
    }
    return 0;
}

void url_free(pc_url *u)
{
    free(u->path);
    u->path = NULL;
}

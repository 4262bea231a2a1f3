/*
 * fuzz_url.c - libFuzzer harness for the target-URL parser.
 *
 *   make -f tests/fuzz/fuzz.mk build-fuzz/fuzz_url
 *   build-fuzz/fuzz_url -max_total_time=60 tests/fuzz/corpus/url
 *
 * The input, up to its first NUL, is the URL (copied into a heap buffer of
 * exactly that many bytes plus the NUL, so ASan sees any read past it).
 * The harness aborts when:
 *   - url_parse returns anything but 0 or -EINVAL;
 *   - a failure leaves u->path allocated, or an error message that is
 *     empty, unterminated, or not one line (control bytes would let a URL
 *     forge terminal output);
 *   - the same call with a small error buffer (exactly errlen bytes on the
 *     heap) writes past it, returns differently, or does not give a prefix
 *     of the full message;
 *   - a success breaks the documented result: tls iff "https://", a
 *     non-empty host of host characters (plus ':' and '%' for a bracketed
 *     IPv6 literal), a port of 1-5 digits without leading zero in 1-65535
 *     (80/443 when absent), hostport = host with brackets and non-default
 *     port, a path starting with '/' and free of spaces, control bytes and
 *     '#', equal to the input's path and query ('/' added when absent);
 *   - "http[s]://" + hostport + path does not parse back to the same URL.
 */
#include "cli/url.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int host_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_';
}

static void check_message(const char *err, size_t cap)
{
    const char *nul = memchr(err, '\0', cap);

    if (!nul || nul == err)
        abort();
    for (const char *p = err; p < nul; p++)
        if ((unsigned char)*p < ' ' || *p == 0x7f)
            abort();
}

static void check_port(const pc_url *u)
{
    size_t n = strnlen(u->port, sizeof u->port);
    unsigned long v = 0;

    if (n == 0 || n > 5 || u->port[0] == '0')
        abort();
    for (size_t i = 0; i < n; i++) {
        if (u->port[i] < '0' || u->port[i] > '9')
            abort();
        v = v * 10 + (unsigned long)(u->port[i] - '0');
    }
    if (v < 1 || v > 65535)
        abort();
}

/* What the path must be: the input after the authority, up to '#'. */
static void check_path(const char *s, const pc_url *u)
{
    const char *p = strstr(s, "://"), *auth_end;
    size_t plen;

    if (!p)
        abort();
    p += 3;
    auth_end = p + strcspn(p, "/?#");
    plen = strcspn(auth_end, "#");
    if (!u->path || u->path[0] != '/')
        abort();
    for (const char *q = u->path; *q; q++)
        if ((unsigned char)*q <= ' ' || *q == 0x7f || *q == '#')
            abort();
    if (plen == 0) {
        if (strcmp(u->path, "/") != 0)
            abort();
    } else if (auth_end[0] == '?') {
        if (strlen(u->path) != plen + 1 || memcmp(u->path + 1, auth_end, plen) != 0)
            abort();
    } else {
        if (strlen(u->path) != plen || memcmp(u->path, auth_end, plen) != 0)
            abort();
    }
}

static void check_success(const char *s, const pc_url *u)
{
    char want[sizeof u->hostport];
    const char *dflt;
    size_t hlen = strnlen(u->host, sizeof u->host);

    if (u->tls != (strncasecmp(s, "https://", 8) == 0))
        abort();
    if (!u->tls && strncasecmp(s, "http://", 7) != 0)
        abort();
    if (hlen == 0 || hlen == sizeof u->host)
        abort();
    for (size_t i = 0; i < hlen; i++) {
        unsigned char c = (unsigned char)u->host[i];
        if (!host_char(c) && !(u->ipv6_literal && (c == ':' || c == '%')))
            abort();
    }
    check_port(u);
    dflt = u->tls ? "443" : "80";
    if (strnlen(u->hostport, sizeof u->hostport) == sizeof u->hostport)
        abort();
    snprintf(want, sizeof want, "%s%s%s%s%s", u->ipv6_literal ? "[" : "", u->host,
             u->ipv6_literal ? "]" : "", strcmp(u->port, dflt) ? ":" : "",
             strcmp(u->port, dflt) ? u->port : "");
    if (strcmp(want, u->hostport) != 0)
        abort();
    check_path(s, u);
}

/* The parts, put back together, must be the same URL. */
static void check_roundtrip(const pc_url *u)
{
    size_t n = 8 + strlen(u->hostport) + strlen(u->path) + 1;
    char *s = malloc(n), err[512];
    pc_url v;

    if (!s)
        return;
    snprintf(s, n, "%s%s%s", u->tls ? "https://" : "http://", u->hostport, u->path);
    if (url_parse(s, &v, err, sizeof err) != 0)
        abort();
    if (v.tls != u->tls || v.ipv6_literal != u->ipv6_literal || strcmp(v.host, u->host) != 0 ||
        strcmp(v.port, u->port) != 0 || strcmp(v.hostport, u->hostport) != 0 ||
        strcmp(v.path, u->path) != 0)
        abort();
    url_free(&v);
    free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, '\0', size);
    size_t len = nul ? (size_t)(nul - data) : size;
    char *s = malloc(len + 1), err[512];
    pc_url u;
    int rc;

    if (!s)
        return 0;
    memcpy(s, data, len);
    s[len] = '\0';

    memset(&u, 0x5a, sizeof u);
    memset(err, 0x5a, sizeof err);
    rc = url_parse(s, &u, err, sizeof err);
    if (rc == 0) {
        check_success(s, &u);
        check_roundtrip(&u);
        url_free(&u);
        if (u.path != NULL)
            abort();
    } else {
        if (rc != -EINVAL || u.path != NULL)
            abort();
        check_message(err, sizeof err);

        /* A small buffer: truncated, terminated, never overrun. */
        size_t cap = 1 + len % 48;
        char *small = malloc(cap);
        pc_url w;
        if (small) {
            memset(small, 0x5a, cap);
            if (url_parse(s, &w, small, cap) != rc || w.path != NULL)
                abort();
            if (!memchr(small, '\0', cap) || strncmp(small, err, strlen(small)) != 0)
                abort();
            if (strlen(small) != (strlen(err) < cap - 1 ? strlen(err) : cap - 1))
                abort();
            free(small);
        }
    }
    free(s);
    return 0;
}

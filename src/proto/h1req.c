/*
 * h1req.c - see h1req.h.
 */
#include "proto/h1req.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int h1req_build(const char *method, const pc_url *url, const pc_header *hdrs, size_t nhdrs,
                const char *body, size_t body_len, char **out, size_t *out_len)
{
    bool has_host = false, has_cl = false;
    size_t cap = strlen(method) + strlen(url->path) + strlen(url->hostport) + 64 + body_len;
    char *buf, *p;

    for (size_t i = 0; i < nhdrs; i++) {
        cap += strlen(hdrs[i].name) + strlen(hdrs[i].value) + 4;
        if (strcasecmp(hdrs[i].name, "Host") == 0)
            has_host = true;
        if (strcasecmp(hdrs[i].name, "Content-Length") == 0)
            has_cl = true;
    }
    buf = malloc(cap);
    if (!buf)
        return -ENOMEM;
    p = buf;
    p += sprintf(p, "%s %s HTTP/1.1\r\n", method, url->path);
    if (!has_host)
        p += sprintf(p, "Host: %s\r\n", url->hostport);
    for (size_t i = 0; i < nhdrs; i++)
        p += sprintf(p, "%s: %s\r\n", hdrs[i].name, hdrs[i].value);
    if (body_len > 0 && !has_cl)
        p += sprintf(p, "Content-Length: %zu\r\n", body_len);
    p += sprintf(p, "\r\n");
    if (body_len)
        memcpy(p, body, body_len);
    p += body_len;
    *out = buf;
    *out_len = (size_t)(p - buf);
    return 0;
}

long h1req_parse(const char *p, size_t n, h1req_parsed *out)
{
    const char *end = memmem(p, n, "\r\n\r\n", 4);
    const char *line, *eol, *sp;
    size_t clen = 0, head;

    memset(out, 0, sizeof *out);
    if (!end)
        return -EINVAL;
    head = (size_t)(end - p) + 4;
    eol = memmem(p, head, "\r\n", 2);
    sp = memchr(p, ' ', (size_t)(eol - p));
    if (!sp || sp == p)
        return -EINVAL;
    out->method = p;
    out->method_len = (size_t)(sp - p);
    out->target = sp + 1;
    sp = memchr(out->target, ' ', (size_t)(eol - out->target));
    if (!sp || sp == out->target)
        return -EINVAL;
    out->target_len = (size_t)(sp - out->target);
    for (line = eol + 2; line < end; line = eol + 2) {
        const char *colon, *v;

        eol = memmem(line, (size_t)(end + 2 - line), "\r\n", 2);
        colon = memchr(line, ':', (size_t)(eol - line));
        if (!colon || colon == line || out->nh == H1REQ_MAX_HEADERS)
            return -EINVAL;
        v = colon + 1;
        while (v < eol && (*v == ' ' || *v == '\t'))
            v++;
        out->h[out->nh].name = line;
        out->h[out->nh].nlen = (size_t)(colon - line);
        out->h[out->nh].value = v;
        out->h[out->nh].vlen = (size_t)(eol - v);
        if (out->h[out->nh].nlen == 14 && strncasecmp(line, "content-length", 14) == 0)
            clen = strtoul(v, NULL, 10);
        out->nh++;
    }
    if (clen > n - head)
        return -EINVAL;
    out->body = clen ? p + head : NULL;
    out->body_len = clen;
    return (long)(head + clen);
}

static void field(h1req_field *f, const char *n, size_t nl, const char *v, size_t vl)
{
    *f = (h1req_field){.name = n, .value = v, .nlen = nl, .vlen = vl};
}

size_t h1req_fields(const h1req_parsed *r, const char *scheme, const char *authority,
                    h1req_field *out, char *names, size_t cap)
{
    static const char *const banned[] = {"host", "connection", "keep-alive",
                                         "proxy-connection", "transfer-encoding", "upgrade"};
    size_t n = 0, used = 0, alen = strlen(authority);

    for (size_t i = 0; i < r->nh; i++)
        if (r->h[i].nlen == 4 && strncasecmp(r->h[i].name, "host", 4) == 0) {
            authority = r->h[i].value;
            alen = r->h[i].vlen;
        }
    field(&out[n++], ":method", 7, r->method, r->method_len);
    field(&out[n++], ":scheme", 7, scheme, strlen(scheme));
    field(&out[n++], ":authority", 10, authority, alen);
    field(&out[n++], ":path", 5, r->target, r->target_len);
    for (size_t i = 0; i < r->nh && n < H1REQ_MAX_FIELDS; i++) {
        char *low = names + used;
        bool skip = false;

        if (used + r->h[i].nlen > cap)
            break;
        for (size_t k = 0; k < r->h[i].nlen; k++)
            low[k] = (char)tolower((unsigned char)r->h[i].name[k]);
        for (size_t b = 0; b < sizeof banned / sizeof banned[0]; b++)
            skip = skip || (strlen(banned[b]) == r->h[i].nlen && memcmp(low, banned[b], r->h[i].nlen) == 0);
        if (skip)
            continue;
        used += r->h[i].nlen;
        field(&out[n++], low, r->h[i].nlen, r->h[i].value, r->h[i].vlen);
    }
    return n;
}

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

int h1req_build(const char *method, const char *path, const char *hostport, const pc_header *hdrs,
                size_t nhdrs, const char *body, size_t body_len, char **out, size_t *out_len)
{
    bool has_host = false, has_cl = false;
    size_t cap = strlen(method) + strlen(path) + strlen(hostport) + 64 + body_len;
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
    p += sprintf(p, "%s %s HTTP/1.1\r\n", method, path);
    if (!has_host)
        p += sprintf(p, "Host: %s\r\n", hostport);
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

/* ---- checking a script's text ------------------------------------------ */

/* RFC 9110 5.6.2 tchar. */
static bool is_tchar(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

static const char no_end[] = "no blank line ends the head";

/* The end of the line at p (before end): the first CR or LF. NULL when it
 * is a CRLF (*eol at the CR), else what it is instead (no_end: none). */
static const char *line_end(const char *p, const char *end, const char **eol)
{
    while (p < end && *p != '\r' && *p != '\n')
        p++;
    *eol = p;
    if (p == end)
        return no_end;
    if (*p == '\n')
        return "a bare LF";
    if (p + 1 == end || p[1] != '\n')
        return "a bare CR";
    return NULL;
}

/* A header name for a message: up to 40 bytes, other than printable as '?'. */
static const char *shown(char *out, size_t cap, const char *p, size_t n)
{
    size_t k = 0;

    for (; k < n && k < 40 && k + 1 < cap; k++)
        out[k] = p[k] >= ' ' && p[k] < 0x7f ? p[k] : '?';
    out[k] = '\0';
    return out;
}

/* One request at p[0..n): 0 and *used, or -EINVAL with why. */
static int check_one(const char *p, size_t n, size_t *used, char *why, size_t cap)
{
    const char *start = p, *end = p + n, *eol, *q, *bad;
    unsigned long long clen = 0;
    bool has_cl = false, has_te = false;
    size_t nh = 0;
    char name[48];

    if ((bad = line_end(p, end, &eol))) {
        snprintf(why, cap, "%s%s", bad, bad == no_end ? "" : " in the request line");
        return -EINVAL;
    }
    for (q = p; q < eol && is_tchar((unsigned char)*q); q++)
        ;
    if (q == p || q == eol || *q != ' ') {
        snprintf(why, cap, "the method is not a token followed by one blank");
        return -EINVAL;
    }
    p = ++q;
    while (q < eol && *q > ' ' && *q < 0x7f)
        q++;
    if (q == p || q == eol || *q != ' ') {
        snprintf(why, cap, "the request target is empty or has a blank or control byte in it");
        return -EINVAL;
    }
    q++;
    if (eol - q != 8 || memcmp(q, "HTTP/", 5) != 0 || !isdigit((unsigned char)q[5]) ||
        q[6] != '.' || !isdigit((unsigned char)q[7])) {
        snprintf(why, cap, "the request line does not end in one blank and HTTP/1.1");
        return -EINVAL;
    }
    for (p = eol + 2;; p = eol + 2) {
        const char *v;
        size_t nl;

        if ((bad = line_end(p, end, &eol))) {
            for (q = p; q < eol && *q != ':'; q++)
                ;
            if (bad == no_end)
                snprintf(why, cap, "%s", bad);
            else if (q < eol)
                snprintf(why, cap, "%s in header %s's value", bad, shown(name, sizeof name, p, (size_t)(q - p)));
            else
                snprintf(why, cap, "%s in the head", bad);
            return -EINVAL;
        }
        if (eol == p)
            break; /* the blank line */
        if (*p == ' ' || *p == '\t') {
            snprintf(why, cap, "a header line that starts with a blank (obs-fold)");
            return -EINVAL;
        }
        if (++nh > H1REQ_MAX_HEADERS) {
            snprintf(why, cap, "more than %d header lines", H1REQ_MAX_HEADERS);
            return -EINVAL;
        }
        for (q = p; q < eol && is_tchar((unsigned char)*q); q++)
            ;
        nl = (size_t)(q - p);
        if (q == eol || *q != ':') {
            const char *colon = memchr(q, ':', (size_t)(eol - q));

            if (!colon)
                snprintf(why, cap, "a header line without a colon");
            else if (nl == 0 && colon == q)
                snprintf(why, cap, "a header line without a name");
            else
                snprintf(why, cap, "header name \"%s\" has a %s", shown(name, sizeof name, p, (size_t)(colon - p)),
                         *q == ' ' || *q == '\t' ? "blank in it" : "byte not allowed in a name");
            return -EINVAL;
        }
        if (nl == 0) {
            snprintf(why, cap, "a header line without a name");
            return -EINVAL;
        }
        for (v = q + 1; v < eol; v++)
            if ((unsigned char)*v < ' ' ? *v != '\t' : *v == 0x7f) {
                snprintf(why, cap, "a %s in header %s's value", *v ? "control byte" : "NUL",
                         shown(name, sizeof name, p, nl));
                return -EINVAL;
            }
        if (nl == 17 && strncasecmp(p, "transfer-encoding", 17) == 0)
            has_te = true;
        if (nl == 14 && strncasecmp(p, "content-length", 14) == 0) {
            unsigned long long x = 0;
            const char *d = q + 1, *e = eol;

            while (d < e && (*d == ' ' || *d == '\t'))
                d++;
            while (e > d && (e[-1] == ' ' || e[-1] == '\t'))
                e--;
            for (q = d; q < e && isdigit((unsigned char)*q) && x <= n; q++)
                x = x * 10 + (unsigned)(*q - '0');
            if (d == e || q != e || (has_cl && x != clen)) {
                snprintf(why, cap, "a Content-Length that is not one number of digits");
                return -EINVAL;
            }
            has_cl = true;
            clen = x;
        }
    }
    p = eol + 2;
    if (has_cl && has_te) {
        snprintf(why, cap, "both Content-Length and Transfer-Encoding (RFC 9112 6.1)");
        return -EINVAL;
    }
    if (has_te) {
        *used = n; /* a chunked body: the rest of the text is taken as it */
        return 0;
    }
    if (clen > (unsigned long long)(end - p)) {
        snprintf(why, cap, "Content-Length %llu is more than the %zu bytes after the head", clen,
                 (size_t)(end - p));
        return -EINVAL;
    }
    *used = (size_t)(p - start) + (size_t)clen;
    return 0;
}

int h1req_check(const char *p, size_t n, char *why, size_t cap)
{
    size_t off = 0, used;
    char one[112];

    for (unsigned k = 1; off < n || k == 1; k++) {
        if (check_one(p + off, n - off, &used, one, sizeof one) < 0) {
            if (k == 1)
                snprintf(why, cap, "%s", one);
            else
                snprintf(why, cap, "request %u of the text: %s", k, one);
            return -EINVAL;
        }
        off += used;
    }
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
        /* HTTP/1.1's trailing OWS is no part of the value (HTTP/2 and 3
         * refuse a value that ends in a blank). */
        while (out->h[out->nh].vlen &&
               (v[out->h[out->nh].vlen - 1] == ' ' || v[out->h[out->nh].vlen - 1] == '\t'))
            out->h[out->nh].vlen--;
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

bool h1req_field_dropped(const char *low, size_t nlen, const char *value, size_t vlen)
{
    static const char *const banned[] = {"host", "connection", "keep-alive",
                                         "proxy-connection", "transfer-encoding", "upgrade"};

    for (size_t b = 0; b < sizeof banned / sizeof banned[0]; b++)
        if (strlen(banned[b]) == nlen && memcmp(low, banned[b], nlen) == 0)
            return true;
    return nlen == 2 && memcmp(low, "te", 2) == 0 &&
           !(vlen == 8 && strncasecmp(value, "trailers", 8) == 0);
}

size_t h1req_fields(const h1req_parsed *r, const char *scheme, const char *authority,
                    h1req_field *out, char *names, size_t cap)
{
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

        if (used + r->h[i].nlen > cap)
            break;
        for (size_t k = 0; k < r->h[i].nlen; k++)
            low[k] = (char)tolower((unsigned char)r->h[i].name[k]);
        if (h1req_field_dropped(low, r->h[i].nlen, r->h[i].value, r->h[i].vlen))
            continue;
        used += r->h[i].nlen;
        field(&out[n++], low, r->h[i].nlen, r->h[i].value, r->h[i].vlen);
    }
    return n;
}

/*
 * h1req.c - see h1req.h.
 */
#include "proto/h1req.h"

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

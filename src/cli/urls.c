/*
 * urls.c - see urls.h.
 */
#include "cli/urls.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/url.h"
#include "util/file.h"

#define BODY_MAX (64u << 20) /* a request body larger than 64 MiB is a mistake */

int urls_read_file(const char *path, char **out, size_t *len)
{
    FILE *f = pc_fopen_read(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    int rc = 0;

    *out = NULL;
    *len = 0;
    if (!f)
        return -errno;
    for (;;) {
        size_t got;

        if (n == cap) {
            char *b;

            cap = cap ? cap * 2 : 4096;
            if (cap > BODY_MAX + 1) {
                rc = -EFBIG;
                break;
            }
            b = realloc(buf, cap);
            if (!b) {
                rc = -ENOMEM;
                break;
            }
            buf = b;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                rc = errno ? -errno : -EIO;
            break;
        }
    }
    fclose(f);
    if (rc == 0) {
        /* A terminating NUL after the data, for callers that parse text. */
        char *b = realloc(buf, n + 1);

        if (!b)
            rc = -ENOMEM;
        else
            buf = b;
    }
    if (rc < 0) {
        free(buf);
        return rc;
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return 0;
}

int urls_add(pc_config *cfg, const char *method, const char *url_text, const char *body,
             size_t body_len, double weight, char *err, size_t errlen)
{
    pc_reqspec *r = cfg->reqs, *s;

    /* Room grows by doubling (what the block holds is its room, so a list
     * another module made is grown the same way): a million lines are a
     * few dozen reallocations, not a million. */
    if (!r || (cfg->nreqs + 1) * sizeof *r > malloc_usable_size(r)) {
        size_t n = cfg->nreqs < 8 ? 16 : 2 * cfg->nreqs;

        if (!(r = realloc(cfg->reqs, n * sizeof *r)))
            return -ENOMEM;
        cfg->reqs = r;
    }
    s = &r[cfg->nreqs];
    memset(s, 0, sizeof *s);
    if (url_parse(url_text, &s->url, err, errlen) < 0)
        return -EINVAL;
    s->method = strdup(method);
    s->url_text = strdup(url_text);
    if (body_len) {
        s->body = malloc(body_len);
        if (s->body)
            memcpy(s->body, body, body_len);
    }
    s->body_len = body_len;
    s->weight = weight;
    cfg->nreqs++;
    if (!s->method || !s->url_text || (body_len && !s->body))
        return -ENOMEM;
    return 0;
}

static bool is_method(const char *t)
{
    if (!*t)
        return false;
    for (const char *p = t; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || *p == '-' || *p == '_'))
            return false;
    return true;
}

int urls_load(pc_config *cfg, const char *path, const char *dflt_method, char *err,
              size_t errlen)
{
    FILE *f = pc_fopen_read(path, "r");
    char line[8192], uerr[400];
    unsigned lineno = 0;
    int rc = 0;

    if (!f) {
        snprintf(err, errlen, "cannot read --urls file '%s': %s", path, strerror(errno));
        return -errno;
    }
    while (rc == 0 && fgets(line, sizeof line, f)) {
        char *tok[4], *save = NULL, *t, *body = NULL;
        const char *method = dflt_method, *url, *bodyfile = NULL;
        size_t ntok = 0, body_len = 0;
        double weight = 1;

        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            snprintf(err, errlen, "%s:%u: line too long", path, lineno);
            rc = -EINVAL;
            break;
        }
        for (t = strtok_r(line, " \t\r\n", &save); t && ntok < 4; t = strtok_r(NULL, " \t\r\n", &save))
            tok[ntok++] = t;
        if (ntok == 0 || tok[0][0] == '#')
            continue;
        if (t) {
            snprintf(err, errlen, "%s:%u: too many fields (want [METHOD] URL [@BODYFILE] [WEIGHT])",
                     path, lineno);
            rc = -EINVAL;
            break;
        }
        size_t i = 0;
        if (is_method(tok[0]) && ntok > 1)
            method = tok[i++];
        url = tok[i++];
        if (i < ntok && tok[i][0] == '@')
            bodyfile = tok[i++] + 1;
        if (i < ntok) {
            char *end;

            weight = strtod(tok[i], &end);
            if (*end || !(weight > 0) || weight > 1e9) {
                snprintf(err, errlen, "%s:%u: invalid weight '%s'", path, lineno, tok[i]);
                rc = -EINVAL;
                break;
            }
            i++;
        }
        if (i != ntok) {
            snprintf(err, errlen, "%s:%u: unexpected '%s'", path, lineno, tok[i]);
            rc = -EINVAL;
            break;
        }
        if (bodyfile) {
            int r = urls_read_file(bodyfile, &body, &body_len);

            if (r < 0) {
                snprintf(err, errlen, "%s:%u: cannot read body file '%s': %s", path, lineno,
                         bodyfile, strerror(-r));
                rc = r;
                break;
            }
        }
        rc = urls_add(cfg, method, url, body, body_len, weight, uerr, sizeof uerr);
        free(body);
        if (rc < 0)
            snprintf(err, errlen, "%s:%u: %s", path, lineno, rc == -ENOMEM ? "out of memory" : uerr);
    }
    fclose(f);
    if (rc == 0 && cfg->nreqs == 0) {
        snprintf(err, errlen, "%s: no request in the file", path);
        rc = -EINVAL;
    }
    return rc;
}

void urls_free(pc_config *cfg)
{
    for (size_t i = 0; i < cfg->nreqs; i++) {
        free(cfg->reqs[i].method);
        free(cfg->reqs[i].url_text);
        free(cfg->reqs[i].body);
        url_free(&cfg->reqs[i].url);
    }
    free(cfg->reqs);
    cfg->reqs = NULL;
    cfg->nreqs = 0;
}

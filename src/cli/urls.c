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
#include "util/arena.h"
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

/* What the requests of a config share: each distinct origin once (its
 * fixed-size host fields are most of a pc_url), and the texts (URL as
 * written, path when it is not a suffix of it, method) in blocks of an
 * arena that never move, so a million lines are a few dozen allocations. */
struct pc_reqstore {
    pc_arena texts;
    pc_url **origins;
    size_t norigins, last;
    const char *method; /* the last method stored */
};

static bool same_origin(const pc_url *a, const pc_url *b)
{
    return a->tls == b->tls && a->ipv6_literal == b->ipv6_literal && !strcmp(a->host, b->host) &&
           !strcmp(a->port, b->port) && !strcmp(a->hostport, b->hostport);
}

/* The stored origin equal to u (path aside), added when new. */
static const pc_url *intern_origin(struct pc_reqstore *st, const pc_url *u)
{
    pc_url **o, *n;

    if (st->norigins && same_origin(st->origins[st->last], u))
        return st->origins[st->last];
    for (size_t i = 0; i < st->norigins; i++)
        if (same_origin(st->origins[i], u))
            return st->origins[st->last = i];
    if (!(o = realloc(st->origins, (st->norigins + 1) * sizeof *o)) || !(n = malloc(sizeof *n))) {
        if (o)
            st->origins = o;
        return NULL;
    }
    st->origins = o;
    *n = *u;
    n->path = NULL;
    o[st->last = st->norigins++] = n;
    return n;
}

int urls_add(pc_config *cfg, const char *method, const char *url_text, const char *body,
             size_t body_len, double weight, char *err, size_t errlen)
{
    pc_reqspec *r = cfg->reqs, *s;
    struct pc_reqstore *st = cfg->reqstore;
    size_t tlen = strlen(url_text), plen;
    pc_url u;

    if (!st && !(st = cfg->reqstore = calloc(1, sizeof *st)))
        return -ENOMEM;
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
    if (url_parse(url_text, &u, err, errlen) < 0)
        return -EINVAL;
    s->origin = intern_origin(st, &u);
    s->url_text = arena_dup(&st->texts, url_text, tlen);
    plen = strlen(u.path);
    if (s->url_text && plen <= tlen && !strcmp(s->url_text + tlen - plen, u.path))
        s->path = s->url_text + tlen - plen;
    else
        s->path = arena_dup(&st->texts, u.path, plen);
    url_free(&u);
    if (!st->method || strcmp(st->method, method))
        st->method = arena_dup(&st->texts, method, strlen(method));
    s->method = (char *)st->method;
    if (body_len) {
        s->body = malloc(body_len);
        if (s->body)
            memcpy(s->body, body, body_len);
    }
    s->body_len = body_len;
    s->weight = weight;
    cfg->nreqs++;
    if (!s->origin || !s->method || !s->url_text || !s->path || (body_len && !s->body))
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
    struct pc_reqstore *st = cfg->reqstore;

    for (size_t i = 0; i < cfg->nreqs; i++)
        free(cfg->reqs[i].body);
    free(cfg->reqs);
    cfg->reqs = NULL;
    cfg->nreqs = 0;
    if (st) {
        arena_free(&st->texts);
        for (size_t i = 0; i < st->norigins; i++)
            free(st->origins[i]);
        free(st->origins);
        free(st);
        cfg->reqstore = NULL;
    }
}

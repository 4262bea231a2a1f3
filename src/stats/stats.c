/*
 * stats.c - see stats.h.
 */
#include "stats/stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FOR_EACH_HIST(s, X)                                                                  \
    X(&(s)->latency) X(&(s)->latency_u) X(&(s)->connect) X(&(s)->tls) X(&(s)->ttfb)          \
        X(&(s)->rps) X(&(s)->batch) X(&(s)->conn_rps) X(&(s)->conn_req) X(&(s)->processing)         \
        X(&(s)->total_req)

int stats_init(pc_stats *s)
{
    hdr_hist *lat[] = {&s->latency, &s->latency_u, &s->connect, &s->tls,       &s->ttfb,
                       &s->batch,   &s->conn_req,  &s->processing, &s->total_req};
    hdr_hist *rates[] = {&s->rps, &s->conn_rps};

    memset(s, 0, sizeof *s);
    s->doc_len = -1;
    for (size_t i = 0; i < sizeof lat / sizeof lat[0]; i++)
        if (hdr_init(lat[i], 1, STATS_LAT_HIGHEST, 3) < 0)
            goto fail;
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++)
        if (hdr_init(rates[i], 1, 10000000000LL, 3) < 0)
            goto fail;
    return 0;
fail:
    stats_free(s);
    return -ENOMEM;
}

int stats_init_recs(pc_stats *s, size_t n)
{
    s->recs = calloc(n ? n : 1, sizeof *s->recs);
    if (!s->recs)
        return -ENOMEM;
    s->caprecs = n;
    return 0;
}

int stats_init_urls(pc_stats *s, uint32_t n)
{
    s->urls = calloc(n, sizeof *s->urls);
    if (!s->urls)
        return -ENOMEM;
    s->nurls = n;
    s->url_latency = n <= STATS_URL_LATENCY_MAX;
    for (uint32_t i = 0; s->url_latency && i < n; i++)
        if (hdr_init(&s->urls[i].latency, 1000, STATS_LAT_HIGHEST, 2) < 0)
            return -ENOMEM;
    return 0;
}

void stats_free(pc_stats *s)
{
#define FREE_ONE(h) hdr_free(h);
    FOR_EACH_HIST(s, FREE_ONE)
#undef FREE_ONE
    for (uint32_t i = 0; s->urls && i < s->nurls; i++)
        hdr_free(&s->urls[i].latency);
    free(s->urls);
    s->urls = NULL;
    s->nurls = 0;
    free(s->recs);
    s->recs = NULL;
    s->nrecs = s->caprecs = 0;
}

void stats_reset(pc_stats *s)
{
    /* Keep the histogram allocations, zero everything else. */
    pc_stats keep = *s;

#define RESET_ONE(h) hdr_reset(h);
    FOR_EACH_HIST(&keep, RESET_ONE)
#undef RESET_ONE
    for (uint32_t i = 0; keep.urls && i < keep.nurls; i++) {
        if (keep.url_latency)
            hdr_reset(&keep.urls[i].latency);
        keep.urls[i].completed = keep.urls[i].errors = 0;
    }
    memset(s, 0, sizeof *s);
    s->doc_len = -1;
    s->urls = keep.urls;
    s->nurls = keep.nurls;
    s->url_latency = keep.url_latency;
    s->recs = keep.recs;
    s->caprecs = keep.caprecs;
    s->conn_req = keep.conn_req;
    s->processing = keep.processing;
    s->total_req = keep.total_req;
    s->latency = keep.latency;
    s->latency_u = keep.latency_u;
    s->connect = keep.connect;
    s->tls = keep.tls;
    s->ttfb = keep.ttfb;
    s->rps = keep.rps;
    s->batch = keep.batch;
    s->conn_rps = keep.conn_rps;
}

void stats_merge(pc_stats *dst, const pc_stats *src)
{
    hdr_add(&dst->latency, &src->latency);
    hdr_add(&dst->latency_u, &src->latency_u);
    hdr_add(&dst->connect, &src->connect);
    hdr_add(&dst->tls, &src->tls);
    hdr_add(&dst->ttfb, &src->ttfb);
    hdr_add(&dst->rps, &src->rps);
    hdr_add(&dst->batch, &src->batch);
    hdr_add(&dst->conn_rps, &src->conn_rps);
    hdr_add(&dst->conn_req, &src->conn_req);
    hdr_add(&dst->processing, &src->processing);
    hdr_add(&dst->total_req, &src->total_req);
    if (src->nurls && !dst->urls)
        stats_init_urls(dst, src->nurls);
    for (uint32_t i = 0; dst->urls && i < src->nurls && i < dst->nurls; i++) {
        dst->urls[i].completed += src->urls[i].completed;
        dst->urls[i].errors += src->urls[i].errors;
        if (dst->url_latency && src->url_latency)
            hdr_add(&dst->urls[i].latency, &src->urls[i].latency);
    }
    if (src->nrecs) {
        pc_reqrec *r = realloc(dst->recs, (dst->nrecs + src->nrecs) * sizeof *r);

        if (r) {
            memcpy(r + dst->nrecs, src->recs, src->nrecs * sizeof *r);
            dst->recs = r;
            dst->nrecs += src->nrecs;
            dst->caprecs = dst->nrecs;
        }
    }
    if (dst->doc_len < 0)
        dst->doc_len = src->doc_len;
    dst->length_differs += src->length_differs;
    dst->keepalive_responses += src->keepalive_responses;
    if (!dst->server[0])
        memcpy(dst->server, src->server, sizeof dst->server);
    dst->scheduled += src->scheduled;
    dst->completed += src->completed;
    dst->never_sent += src->never_sent;
    dst->interrupted += src->interrupted;
    for (int k = 0; k < PC_ERR_KINDS; k++) {
        dst->err[k] += src->err[k];
        if (!dst->why[k][0])
            memcpy(dst->why[k], src->why[k], STATS_WHY_LEN);
    }
    dst->connect_errors += src->connect_errors;
    dst->connect_retrans += src->connect_retrans;
    dst->connect_timeouts += src->connect_timeouts;
    dst->reconnect_backoffs += src->reconnect_backoffs;
    for (int i = 0; i < STATS_MAX_STATUS; i++)
        dst->status[i] += src->status[i];
    dst->status_other += src->status_other;
    dst->non2xx += src->non2xx;
    dst->lower_bound += src->lower_bound;
    dst->bytes_read += src->bytes_read;
    dst->bytes_written += src->bytes_written;
    dst->connects += src->connects;
    dst->tls_resumed += src->tls_resumed;
    dst->server_closes += src->server_closes;
    dst->idle_closes += src->idle_closes;
    dst->conn_drops += src->conn_drops;
    if (!dst->drop_why[0])
        memcpy(dst->drop_why, src->drop_why, sizeof dst->drop_why);
    dst->addr_fallbacks += src->addr_fallbacks;
    if (!dst->fallback_why[0])
        memcpy(dst->fallback_why, src->fallback_why, sizeof dst->fallback_why);
    dst->resent += src->resent;
    dst->header_wire += src->header_wire;
    dst->header_decoded += src->header_decoded;
    dst->body_bytes += src->body_bytes;
    dst->h1_conns += src->h1_conns;
    if (!dst->tls_version[0]) {
        memcpy(dst->tls_version, src->tls_version, sizeof dst->tls_version);
        memcpy(dst->tls_cipher, src->tls_cipher, sizeof dst->tls_cipher);
    }
    dst->h2_rst += src->h2_rst;
    dst->h2_refused += src->h2_refused;
    dst->h2_goaway += src->h2_goaway;
    dst->h2_conns += src->h2_conns;
}

void stats_why(pc_stats *s, enum pc_err_kind k, const char *why)
{
    if (!s->why[k][0] && why) {
        strncpy(s->why[k], why, STATS_WHY_LEN - 1);
        s->why[k][STATS_WHY_LEN - 1] = '\0';
    }
}

uint64_t stats_failed(const pc_stats *s)
{
    return stats_outcomes(s) - (s->completed - s->non2xx);
}

uint64_t stats_outcomes(const pc_stats *s)
{
    uint64_t n = s->completed + s->never_sent + s->interrupted;

    for (int k = 0; k < PC_ERR_KINDS; k++)
        n += s->err[k];
    return n;
}

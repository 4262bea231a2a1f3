/*
 * stats.c - see stats.h.
 */
#include "stats/stats.h"

#include "stats/results.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Each kind's element size, and the member types it accepts (checked at
 * compile time below: a field listed with the wrong kind does not build). */
#define S_(f) (((pc_stats *)0)->f)
#define ELEM_HIST_NS(f) sizeof(hdr_hist)
#define ELEM_HIST_RATE(f) sizeof(hdr_hist)
#define ELEM_SUM(f) sizeof(uint64_t)
#define ELEM_FIRST(f) sizeof(S_(f))
#define ELEM_FIRST_EACH(f) sizeof(S_(f)[0])
#define ELEM_FIRST_LEN(f) sizeof(int64_t)
#define ELEM_KEEP(f) sizeof(S_(f))
#define ELEM_MAX(f) sizeof(uint64_t)
#define ELEM_HAND(f) sizeof(S_(f))
#define TYPE_HIST_NS(f) _Generic(&S_(f), hdr_hist *: 1, default: 0)
#define TYPE_HIST_RATE(f) TYPE_HIST_NS(f)
#define TYPE_SUM(f) _Generic(S_(f) + 0, uint64_t: 1, uint64_t *: 1, default: 0)
#define TYPE_FIRST(f) _Generic(S_(f) + 0, char *: 1, default: 0)
#define TYPE_FIRST_EACH(f) _Generic(S_(f)[0] + 0, char *: 1, default: 0)
#define TYPE_FIRST_LEN(f) _Generic(S_(f), int64_t: 1, default: 0)
#define TYPE_KEEP(f) 1
#define TYPE_MAX(f) _Generic(S_(f), uint64_t: 1, default: 0)
#define TYPE_HAND(f) 1

#define CHECK_ROW(kind, f, json, path)                                                       \
    _Static_assert(TYPE_##kind(f), "pc_stats." #f " does not have the type of a " #kind);   \
    _Static_assert(PC_SJ_##json != PC_SJ_TABLE || PC_SK_##kind != PC_SK_SUM ||               \
                       sizeof(S_(f)) == sizeof(uint64_t),                                    \
                   "pc_stats." #f ": a TABLE counter is one uint64_t");                 \
    _Static_assert(PC_SJ_##json != PC_SJ_TABLE || PC_SK_##kind == PC_SK_SUM ||               \
                       PC_SK_##kind == PC_SK_MAX ||                                          \
                       PC_SK_##kind == PC_SK_HIST_NS || PC_SK_##kind == PC_SK_HIST_RATE,     \
                   "pc_stats." #f ": only counters and histograms are TABLE in the JSON");
PC_STATS_FIELDS(CHECK_ROW)

#define ROW(kind, f, json, path)                                                             \
    {#f, path, offsetof(pc_stats, f), sizeof(S_(f)), ELEM_##kind(f), PC_SK_##kind, PC_SJ_##json},
const pc_stats_field pc_stats_fields[] = {PC_STATS_FIELDS(ROW)};
const size_t pc_stats_nfields = sizeof pc_stats_fields / sizeof pc_stats_fields[0];
#undef ROW
#undef CHECK_ROW

#define ERR_NAME(kind, name, label) [PC_ERR_##kind] = name,
#define ERR_LABEL(kind, name, label) [PC_ERR_##kind] = label,
static const char *const err_names[PC_ERR_KINDS] = {PC_ERR_KIND_LIST(ERR_NAME)};
static const char *const err_labels[PC_ERR_KINDS] = {PC_ERR_KIND_LIST(ERR_LABEL)};
#undef ERR_NAME
#undef ERR_LABEL

int stats_quic_close_idx(bool app, uint64_t code)
{
    if (app)
        return code >= 0x100 && code <= 0x110 ? 18 + (int)(code - 0x100) : 36;
    if (code <= 0x10)
        return (int)code;
    return code >= 0x100 && code <= 0x1ff ? 17 : 35;
}

const char *stats_quic_close_key(int idx, char *buf, size_t len)
{
    if (idx <= 16)
        snprintf(buf, len, "0x%x", idx);
    else if (idx == 17)
        snprintf(buf, len, "0x1xx");
    else if (idx <= 34)
        snprintf(buf, len, "app:0x%x", 0x100 + idx - 18);
    else
        snprintf(buf, len, idx == 35 ? "other" : "app:other");
    return buf;
}

const char *pc_err_name(enum pc_err_kind k)
{
    return (unsigned)k < PC_ERR_KINDS ? err_names[k] : "?";
}

const char *pc_err_label(enum pc_err_kind k)
{
    return (unsigned)k < PC_ERR_KINDS ? err_labels[k] : "?";
}

#define FOR_EACH_FIELD(f)                                                                    \
    for (const pc_stats_field *f = pc_stats_fields; f < pc_stats_fields + pc_stats_nfields; f++)

int stats_init(pc_stats *s)
{
    memset(s, 0, sizeof *s);
    FOR_EACH_FIELD(f) {
        if (f->kind == PC_SK_FIRST_LEN)
            *(int64_t *)stats_field(s, f) = -1;
        else if (f->kind == PC_SK_HIST_NS || f->kind == PC_SK_HIST_RATE) {
            int64_t highest = f->kind == PC_SK_HIST_NS ? STATS_LAT_HIGHEST : 10000000000LL;

            if (hdr_init(stats_field(s, f), 1, highest, 3) < 0)
                goto fail;
        }
    }
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
    if (s->url_latency && !(s->url_lat = calloc(n, sizeof *s->url_lat)))
        return -ENOMEM;
    for (uint32_t i = 0; s->url_latency && i < n; i++)
        if (hdr_init(&s->url_lat[i], 1000, STATS_LAT_HIGHEST, 2) < 0)
            return -ENOMEM;
    return 0;
}

static int rows_init(pc_stage_stats **rows, uint32_t *nrows, uint32_t n)
{
    *rows = n ? calloc(n, sizeof **rows) : NULL;
    if (n && !*rows)
        return -ENOMEM;
    *nrows = n;
    for (uint32_t i = 0; i < n; i++)
        if (hdr_init(&(*rows)[i].latency, 1000, STATS_LAT_HIGHEST, 2) < 0 ||
            hdr_init(&(*rows)[i].latency_u, 1000, STATS_LAT_HIGHEST, 2) < 0 ||
            hdr_init(&(*rows)[i].send_lag, 1, STATS_LAT_HIGHEST, 2) < 0)
            return -ENOMEM;
    return 0;
}

int stats_init_stages(pc_stats *s, uint32_t n, uint32_t nsteps)
{
    if (rows_init(&s->stages, &s->nstages, n) < 0)
        return -ENOMEM;
    return rows_init(&s->steps, &s->nsteps, nsteps);
}

static void rows_free(pc_stage_stats **rows, uint32_t *nrows)
{
    for (uint32_t i = 0; *rows && i < *nrows; i++) {
        hdr_free(&(*rows)[i].latency);
        hdr_free(&(*rows)[i].latency_u);
        hdr_free(&(*rows)[i].send_lag);
    }
    free(*rows);
    *rows = NULL;
    *nrows = 0;
}

static void stages_free(pc_stats *s)
{
    rows_free(&s->stages, &s->nstages);
    rows_free(&s->steps, &s->nsteps);
}

static void rows_merge(pc_stage_stats *dst, uint32_t nd, const pc_stage_stats *src, uint32_t ns)
{
    for (uint32_t i = 0; dst && i < ns && i < nd; i++) {
        pc_stage_stats *d = &dst[i];
        const pc_stage_stats *v = &src[i];

        d->completed += v->completed;
        d->non2xx += v->non2xx;
        d->errors += v->errors;
        d->never_sent += v->never_sent;
        d->interrupted += v->interrupted;
        hdr_add(&d->latency, &v->latency);
        hdr_add(&d->latency_u, &v->latency_u);
        hdr_add(&d->send_lag, &v->send_lag);
    }
}

static void stages_merge(pc_stats *dst, const pc_stats *src)
{
    if (src->nstages && !dst->stages && stats_init_stages(dst, src->nstages, src->nsteps) < 0)
        stages_free(dst);
    /* Ramp rows only where every part has them (an older result file has
     * none): rows that lacked a part's requests would not add up. */
    if (src->nstages && dst->nsteps != src->nsteps)
        rows_free(&dst->steps, &dst->nsteps);
    rows_merge(dst->stages, dst->nstages, src->stages, src->nstages);
    rows_merge(dst->steps, dst->nsteps, src->steps, src->nsteps);
}

static void rows_reset(pc_stage_stats *rows, uint32_t n)
{
    for (uint32_t i = 0; rows && i < n; i++) {
        pc_stage_stats *g = &rows[i];

        hdr_reset(&g->latency);
        hdr_reset(&g->latency_u);
        hdr_reset(&g->send_lag);
        g->completed = g->non2xx = g->errors = g->never_sent = g->interrupted = 0;
    }
}

void stats_free(pc_stats *s)
{
    stages_free(s);
    FOR_EACH_FIELD(f)
        if (f->kind == PC_SK_HIST_NS || f->kind == PC_SK_HIST_RATE)
            hdr_free(stats_field(s, f));
    for (uint32_t i = 0; s->url_lat && i < s->nurls; i++)
        hdr_free(&s->url_lat[i]);
    free(s->url_lat);
    s->url_lat = NULL;
    free(s->urls);
    s->urls = NULL;
    s->nurls = 0;
    free(s->recs);
    s->recs = NULL;
    s->nrecs = s->caprecs = 0;
}

void stats_reset(pc_stats *s)
{
    /* Keep the allocations, forget what was measured. */
    FOR_EACH_FIELD(f) {
        switch (f->kind) {
        case PC_SK_HIST_NS:
        case PC_SK_HIST_RATE:
            hdr_reset(stats_field(s, f));
            break;
        case PC_SK_FIRST_LEN:
            *(int64_t *)stats_field(s, f) = -1;
            break;
        case PC_SK_KEEP:
            break;
        case PC_SK_SUM:
        case PC_SK_MAX:
        case PC_SK_FIRST:
        case PC_SK_FIRST_EACH:
        case PC_SK_HAND:
            memset(stats_field(s, f), 0, f->size);
            break;
        }
    }
    for (uint32_t i = 0; s->urls && i < s->nurls; i++) {
        if (s->url_lat)
            hdr_reset(&s->url_lat[i]);
        s->urls[i].completed = s->urls[i].errors = 0;
    }
    rows_reset(s->stages, s->nstages);
    rows_reset(s->steps, s->nsteps);
}

void stats_merge(pc_stats *dst, const pc_stats *src)
{
    FOR_EACH_FIELD(f) {
        char *d = stats_field(dst, f);
        const char *v = stats_cfield(src, f);

        switch (f->kind) {
        case PC_SK_HIST_NS:
        case PC_SK_HIST_RATE:
            hdr_add((hdr_hist *)d, (const hdr_hist *)v);
            break;
        case PC_SK_SUM:
            for (size_t i = 0; i < f->size / sizeof(uint64_t); i++)
                ((uint64_t *)d)[i] += ((const uint64_t *)v)[i];
            break;
        case PC_SK_FIRST:
        case PC_SK_FIRST_EACH:
            for (size_t i = 0; i < f->size; i += f->elem)
                if (!d[i])
                    memcpy(d + i, v + i, f->elem);
            break;
        case PC_SK_FIRST_LEN:
            if (*(int64_t *)d < 0)
                *(int64_t *)d = *(const int64_t *)v;
            break;
        case PC_SK_MAX:
            if (*(const uint64_t *)v > *(uint64_t *)d)
                *(uint64_t *)d = *(const uint64_t *)v;
            break;
        case PC_SK_KEEP:
        case PC_SK_HAND:
            break; /* below */
        }
    }
    if (src->nurls && !dst->urls)
        stats_init_urls(dst, src->nurls);
    for (uint32_t i = 0; dst->urls && i < src->nurls && i < dst->nurls; i++) {
        dst->urls[i].completed += src->urls[i].completed;
        dst->urls[i].errors += src->urls[i].errors;
        if (dst->url_lat && src->url_lat)
            hdr_add(&dst->url_lat[i], &src->url_lat[i]);
    }
    stages_merge(dst, src);
    if (src->nrecs) {
        pc_reqrec *r = realloc(dst->recs, (dst->nrecs + src->nrecs) * sizeof *r);

        if (r) {
            memcpy(r + dst->nrecs, src->recs, src->nrecs * sizeof *r);
            dst->recs = r;
            dst->nrecs += src->nrecs;
            dst->caprecs = dst->nrecs;
        }
    }
}

void stats_why(pc_stats *s, enum pc_err_kind k, const char *why)
{
    if (!s->why[k][0] && why) {
        strncpy(s->why[k], why, STATS_WHY_LEN - 1);
        s->why[k][STATS_WHY_LEN - 1] = '\0';
        /* A cause may quote the peer (a header name, a reason phrase): no
         * control byte of its reaches a terminal, an ESC least of all. */
        for (char *p = s->why[k]; *p; p++)
            if ((unsigned char)*p < ' ' || *p == 0x7f)
                *p = '?';
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

void results_free(pc_results *res)
{
    stats_free(&res->st);
    free(res->never_sent_due);
    res->never_sent_due = NULL;
    res->never_sent_n = 0;
    server_free(res->server);
    res->server = NULL;
}

pc_server *server_new(void)
{
    pc_server *s = calloc(1, sizeof *s);

    if (!s)
        return NULL;
#define NAN_FIELD(f, obj, key, how) s->f = NAN;
    PC_SERVER_FIELDS(NAN_FIELD)
#undef NAN_FIELD
    return s;
}

void server_free(pc_server *s)
{
    if (s)
        free(s->iv);
    free(s);
}

/*
 * interval.c - see interval.h.
 */
#include "stats/interval.h"

#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

/* A counter the run's totals have too has the same type there. */
#define SAME_AS_STATS(f)                                                                     \
    _Static_assert(sizeof(((pc_stats *)0)->f) == sizeof(((pc_interval *)0)->f),              \
                   "pc_interval." #f " is not as pc_stats." #f);
SAME_AS_STATS(completed)
SAME_AS_STATS(non2xx)
SAME_AS_STATS(bytes_read)
SAME_AS_STATS(err)
SAME_AS_STATS(connect_errors)
SAME_AS_STATS(status)
SAME_AS_STATS(status_other)
#undef SAME_AS_STATS

pc_interval *interval_new(void)
{
    pc_interval *iv = calloc(1, sizeof *iv);

    if (!iv)
        return NULL;
    if (hdr_init(&iv->latency, 1, STATS_LAT_HIGHEST, 3) < 0 ||
        hdr_init(&iv->latency_u, 1, STATS_LAT_HIGHEST, 3) < 0 ||
        hdr_init(&iv->send_lag, 1, STATS_LAT_HIGHEST, 2) < 0) {
        interval_free(iv);
        return NULL;
    }
    return iv;
}

void interval_free(pc_interval *iv)
{
    if (!iv)
        return;
    hdr_free(&iv->latency);
    hdr_free(&iv->latency_u);
    hdr_free(&iv->send_lag);
    free(iv);
}

void interval_reset(pc_interval *iv)
{
    hdr_hist a = iv->latency, b = iv->latency_u, c = iv->send_lag;

    hdr_reset(&a);
    hdr_reset(&b);
    hdr_reset(&c);
    memset(iv, 0, sizeof *iv);
    iv->latency = a;
    iv->latency_u = b;
    iv->send_lag = c;
}

void interval_merge(pc_interval *dst, const pc_interval *src)
{
    if (dst->parts == 0 || src->start_ns < dst->start_ns)
        dst->start_ns = src->start_ns;
    if (src->end_ns > dst->end_ns)
        dst->end_ns = src->end_ns;
    dst->index = src->index;
    dst->parts += src->parts ? src->parts : 1;
    hdr_add(&dst->latency, &src->latency);
    hdr_add(&dst->latency_u, &src->latency_u);
    hdr_add(&dst->send_lag, &src->send_lag);
    /* Each counter as an array of uint64_t (one, for a scalar). */
#define ADD(kind, f, dim)                                                                    \
    for (size_t i = 0; i < sizeof dst->f / sizeof(uint64_t); i++)                           \
        ((uint64_t *)&dst->f)[i] += ((const uint64_t *)&src->f)[i];
    PC_INTERVAL_COUNTERS(ADD)
#undef ADD
}

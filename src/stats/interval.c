/*
 * interval.c - see interval.h.
 */
#include "stats/interval.h"

#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

pc_interval *interval_new(void)
{
    pc_interval *iv = calloc(1, sizeof *iv);

    if (!iv)
        return NULL;
    if (hdr_init(&iv->latency, 1, STATS_LAT_HIGHEST, 3) < 0 ||
        hdr_init(&iv->latency_u, 1, STATS_LAT_HIGHEST, 3) < 0) {
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
    free(iv);
}

void interval_reset(pc_interval *iv)
{
    hdr_hist a = iv->latency, b = iv->latency_u;

    hdr_reset(&a);
    hdr_reset(&b);
    memset(iv, 0, sizeof *iv);
    iv->latency = a;
    iv->latency_u = b;
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
    dst->completed += src->completed;
    dst->errors += src->errors;
    dst->timeouts += src->timeouts;
    dst->non2xx += src->non2xx;
    dst->bytes_read += src->bytes_read;
    for (int k = 0; k < PC_ERR_KINDS; k++)
        dst->err[k] += src->err[k];
    dst->connect_errors += src->connect_errors;
    for (int c = 0; c < STATS_MAX_STATUS; c++)
        dst->status[c] += src->status[c];
    dst->status_other += src->status_other;
}

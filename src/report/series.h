/*
 * series.h - a run's per-interval time series, as kept for JSON output and
 * read back by `pacer report`. Each point carries its interval histograms
 * (V2 base64), so series from several runs merge without loss.
 */
#ifndef PACER_REPORT_SERIES_H
#define PACER_REPORT_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "stats/results.h"
#include "stats/interval.h"

typedef struct pc_point {
    double start_s;   /* wall clock, seconds since the epoch */
    double length_s;
    uint64_t completed, errors, timeouts, non2xx, bytes;
    uint64_t never_sent; /* of the errors, requests due in the interval and never sent */
    /* corrected latency percentiles (ns; 0 when no samples) */
    int64_t p50, p90, p99, p999, max;
    int64_t u_p50, u_p99; /* uncorrected */
    char *hist;       /* corrected interval histogram, V2 base64 (heap) */
    char *hist_u;     /* uncorrected */
} pc_point;

typedef struct pc_series {
    pc_point *v;
    size_t n, cap;
    double interval_s;
} pc_series;

/* Append a point made from a merged interval; wall = wall-clock seconds of
 * the interval's start. 0 or -ENOMEM. */
int series_add_interval(pc_series *s, const pc_interval *iv, double wall_start_s);
/* Count the run's never-sent requests (errors and never_sent) in the
 * points of the intervals they were due in (res->never_sent_due; a point
 * is matched by its start, res->start_wall_ns + index * interval_s), and
 * any that cannot be placed so in the last point: the points add up to
 * res->st.never_sent. For a series built from a run's intervals, once,
 * when the run is over. */
void series_place_never_sent(pc_series *s, const pc_results *res);
/* Append a copy of p (strings are duplicated). 0 or -ENOMEM. */
int series_add_point(pc_series *s, const pc_point *p);
void series_free(pc_series *s);

#endif

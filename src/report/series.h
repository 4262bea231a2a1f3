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

/* How a field of a point is in the JSON result's intervals.series[]. */
enum pc_point_kind {
    PC_PF_SECS,  /* a double, as it is */
    PC_PF_COUNT, /* a uint64_t */
    PC_PF_RATE,  /* the uint64_t per length_s: written, not read back */
    PC_PF_US,    /* an int64_t of ns, in us (read back also from the key
                  * less "_us", as files have it from before the keys named
                  * their unit, as the --csv columns do) */
    PC_PF_B64    /* a histogram (char *, V2 base64; NULL: null) */
};
typedef struct pc_point_field {
    const char *key;
    size_t off; /* in pc_point */
    enum pc_point_kind kind;
} pc_point_field;
/* The fields of a point in the JSON result, in the document's order:
 * json_out.c writes and merge.c (`pacer report`) reads back each from
 * here. */
extern const pc_point_field pc_point_fields[];
extern const size_t pc_point_nfields;

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

/*
 * promtext.h - the text an exporter serves on /metrics, parsed: the
 * Prometheus text exposition format 0.0.4, and OpenMetrics 1.0's text form.
 *
 * A page is lines. "# HELP name text" and "# TYPE name type" describe a
 * metric family; other "#" lines are comments; blank lines are nothing.
 * Every other line is one sample:
 *
 *     name{label="value",...} value [timestamp]
 *
 * Label values escape \\, \" and \n; HELP texts \\ and \n. A value is a
 * float as Go's strconv.ParseFloat reads it, NaN and +Inf / -Inf included.
 * The timestamp is integer milliseconds (0.0.4) or float seconds
 * (OpenMetrics, whose page ends with "# EOF").
 *
 * The parser takes the page whole and hands each sample to a callback, its
 * strings unescaped and NUL-terminated (valid during the call only). A page
 * with any malformed line is refused whole, as Prometheus refuses a scrape:
 * half a page would make sums over it wrong without saying so.
 */
#ifndef PACER_PROTO_PROMTEXT_H
#define PACER_PROTO_PROMTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* At most this many labels on one sample (node-exporter's widest has 7). */
#define PM_MAX_LABELS 32

typedef enum {
    PM_UNTYPED, /* no TYPE line for it ("untyped" or OpenMetrics "unknown") */
    PM_COUNTER,
    PM_GAUGE,
    PM_HISTOGRAM,
    PM_SUMMARY,
    PM_INFO,     /* OpenMetrics */
    PM_STATESET, /* OpenMetrics */
    PM_GAUGEHISTOGRAM,
} pm_type;

typedef struct {
    const char *name;
    const char *value;
} pm_label;

typedef struct {
    const char *name;
    const pm_label *labels;
    size_t nlabels;
    double value;
    bool has_ts;
    int64_t ts_ms;
    /* The TYPE of its family: the last TYPE line whose name is the
     * sample's, or the sample's less _total, _sum, _count, _bucket,
     * _created, _gsum, _gcount or _info; PM_UNTYPED without one. */
    pm_type type;
    unsigned line; /* 1-based */
} pm_sample;

/* Called for each sample in order: 0 goes on; a positive value stops the
 * parse, which then returns it. */
typedef int (*pm_sample_fn)(void *ctx, const pm_sample *s);

typedef struct {
    unsigned line;  /* where the first problem is (1-based; 0: none) */
    char why[96];   /* what it is */
} pm_error;

/* Parse text[0..len): 0 when every line is well formed (each sample went
 * to fn), -1 when one is not (err says which line and why; samples before
 * it were already handed out, so a caller that must not see half a page
 * collects and commits only on 0), -ENOMEM, or fn's positive value.
 * openmetrics: timestamps are seconds, "# EOF" ends the page (and must). */
int pm_parse(const char *text, size_t len, bool openmetrics, pm_sample_fn fn, void *ctx,
             pm_error *err);

/* The value of label `name` on s, or NULL. */
const char *pm_label_get(const pm_sample *s, const char *name);

/* A name as both formats allow a metric's: [a-zA-Z_:][a-zA-Z0-9_:]*. */
bool pm_metric_name_ok(const char *s, size_t n);

#endif

/*
 * slo.h - service-level objectives (--slo EXPR): parse, evaluate, print.
 *
 * EXPR is a comma-separated list of objectives METRIC OP VALUE:
 *   p50, p99, p99.9, ... (any percentile), mean, max   corrected latency,
 *   up99, umax, ...                                    uncorrected latency,
 *   lag_p99, lag_max, lag_mean, ...                    pacer's own send lag,
 *       VALUE with a time unit: 250us, 100ms, 1.5s;
 *   errors   requests that did not end in a 2xx/3xx response (errors,
 *            timeouts, never sent, other statuses): a count, or with % a
 *            share of all requests (in closed loop, failed connection
 *            attempts count as failed requests);
 *   rate     achieved requests/s, or with % the share of -R achieved;
 * OP is one of <=, <, >=, >. Example: p99<=100ms,p99.9<=250ms,errors<=0.1%,rate>=99%
 * An objective prefixed stageN: (stage2:p99<=100ms) is judged on stage N of
 * --stages alone (corrected latency and errors only).
 */
#ifndef PACER_REPORT_SLO_H
#define PACER_REPORT_SLO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config.h"
#include "stats/results.h"

#define SLO_MAX 32

enum slo_metric { SLO_PCT, SLO_MEAN, SLO_MAX_LAT, SLO_ERRORS, SLO_RATE };
enum slo_op { SLO_LE, SLO_LT, SLO_GE, SLO_GT };

typedef struct pc_objective {
    enum slo_metric metric;
    enum slo_op op;
    bool uncorrected; /* latency: the uncorrected histogram */
    bool lag;         /* latency: the send lag histogram (lag_p99) */
    double pct;       /* SLO_PCT: the percentile, 0 < pct <= 100 */
    double value;     /* latency in ns; errors/rate: a count or req/s, or a fraction if percent */
    bool percent;
    uint32_t stage;   /* stageN: judged on stage N (from 1) alone; 0: the whole run */
    char text[72];    /* as written, blanks removed */
} pc_objective;

typedef struct pc_slo {
    pc_objective v[SLO_MAX];
    size_t n;
    char text[512];   /* the whole expression, normalised */
} pc_slo;

/* One objective's verdict. */
typedef struct pc_verdict {
    bool pass;
    bool none;        /* nothing to measure (no responses; a share of -R without -R) */
    double measured;  /* in the objective's unit (ns, count, req/s, or fraction) */
    char shown[96];   /* the measured value as printed, e.g. "12.34ms", "0.52% (52 of 10000)" */
} pc_verdict;

/* Parse EXPR. 0, or -EINVAL with a one-line reason in err. */
int slo_parse(const char *expr, pc_slo *out, char *err, size_t errlen);

/* Whether every objective holds for this run; v (may be NULL) receives one
 * verdict per objective. rate is what was requested (0: closed loop). */
bool slo_eval(const pc_slo *s, double rate, const pc_results *res, pc_verdict *v);

/* Print "SLO:" ("SLO for WHO:" when who is not NULL) and one PASS/FAIL
 * line per objective, then the verdict line. Returns whether all passed. */
bool slo_print(FILE *f, const pc_slo *s, double rate, const pc_results *res, const char *who);

/* What an errors objective o counted as failed, by kind, the non-zero
 * kinds only ("N never sent (...); N timed out"), or "none failed". */
void slo_failed_parts(char *buf, size_t cap, const pc_objective *o, double rate,
                      const pc_stats *st);

/* The measured value of one objective, formatted; for tables. */
void slo_format_value(const pc_objective *o, double v, char *buf, size_t cap);

#endif

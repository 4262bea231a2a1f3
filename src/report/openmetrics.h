/*
 * openmetrics.h - pacer's own figures, live: --metrics-listen ADDR:PORT
 * serves them as OpenMetrics 1.0 text on GET /metrics (om_listen.h is the
 * listener) from before the load starts until the report is printed.
 *
 * An interval sink (om_on_interval, on the main thread) adds each merged
 * interval to running totals and, under a mutex, copies them into a
 * snapshot; the listener thread copies the snapshot under the same mutex
 * and writes the page outside it. When the run has ended, om_final puts
 * the run's own totals (what the report prints, never-sent and interrupted
 * requests included, known only then) in their place and pacer_running
 * drops to 0.
 *
 * Every sample has the label run_id, a random id the JSON result carries
 * too ("run_id"). The names, types and bucket boundaries are listed in
 * docs/output.md ("Live metrics"); contrib/grafana/pacer-dashboard.json uses
 * them.
 */
#ifndef PACER_REPORT_OPENMETRICS_H
#define PACER_REPORT_OPENMETRICS_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "stats/hdr.h"
#include "stats/interval.h"
#include "stats/results.h"

typedef struct om_metrics om_metrics;

/* The histograms' bucket boundaries, in ns: a 1-2-5 series from 100 us to
 * 10 s (then +Inf). */
#define OM_NBUCKETS 16
extern const int64_t om_bucket_le_ns[OM_NBUCKETS];

/* out[i] = how many of h's samples lie at or below le[i] (le ascending),
 * by HdrHistogram slot: a slot counts when its lowest equivalent value is
 * <= le[i], so a sample of exactly le[i] always counts and one counted may
 * lie above it by less than its slot's width (under 0.1% with 3
 * significant digits, 1% with 2). Cumulative, as OpenMetrics buckets. */
void om_buckets(const hdr_hist *h, const int64_t *le, size_t n, uint64_t *out);

/* Start serving cfg->metrics.listen for the run whose results res will
 * hold (read by the sink: its start time). 0, or a negative errno with one
 * line in err (-EINVAL: a malformed address; others: it cannot be bound);
 * *out is NULL then. */
int om_start(om_metrics **out, const pc_config *cfg, const pc_results *res, char *err,
             size_t errlen);

/* The run id (32 hex digits) every sample is labelled with. */
const char *om_run_id(const om_metrics *m);

/* The engine's interval sink (ud = the om_metrics), at cfg->interval_ns. */
void om_on_interval(void *ud, const pc_interval *iv);

/* The run has ended: serve its own totals from now on. */
void om_final(om_metrics *m, const pc_results *res);

/* The report is out: after om_final, keep serving until one page with the
 * final totals was served or --metrics-linger has passed; then close and
 * free. NULL is fine. */
void om_stop(om_metrics *m);

/* The page as it is now (what GET /metrics serves): 0 with *body malloc'd
 * (*len bytes), or -ENOMEM. Any thread. */
int om_page(om_metrics *m, char **body, size_t *len);

#endif

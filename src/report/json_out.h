/*
 * json_out.h - the JSON result document (docs/output.md,
 * docs/pacer-result.schema.json), and the parts of it that other documents
 * (compare, capacity, suite) embed.
 */
#ifndef PACER_REPORT_JSON_OUT_H
#define PACER_REPORT_JSON_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "report/rundesc.h"
#include "report/series.h"
#include "stats/results.h"

/* The JSON result document. series may be NULL. Returns 0, or
 * -EIO/-ENOMEM. */
int report_json(FILE *f, const pc_rundesc *run, const pc_results *res, const pc_series *series);

/* --urls in a result file: config.requests lists the first REPORT_JSON_URLS
 * requests, urls[] the REPORT_JSON_URLS busiest (most completed, ties in
 * the file's order) and urls_other sums the rest, so a million URLs make
 * a file of the same size as a hundred. */
#define REPORT_JSON_URLS 100

/* The indexes of the (at most max) busiest URLs of st, busiest first
 * (the JSON's urls[], and wrk's layout). Returns how many. */
uint32_t report_top_urls(const pc_stats *st, uint32_t *top, uint32_t max);

/* The same document as one value inside a larger one (compare, capacity,
 * suite). */
struct json_w;
void report_json_obj(struct json_w *w, const pc_rundesc *run, const pc_results *res,
                     const pc_series *series);

/* A histogram as the JSON result has one (count, min, mean, stdev, max in
 * us, the percentiles, the encoded "histogram"), under key. */
struct hdr_hist;
void report_json_hist(struct json_w *w, const char *key, const struct hdr_hist *h);

/* The --slo objectives and their verdicts as a JSON array (one object per
 * objective: as written, metric, operator, limit and measured value in the
 * objective's unit, the value as printed, PASS/FAIL). v: slo_eval's. */
struct pc_slo;
struct pc_verdict;
void report_json_objectives(struct json_w *w, const struct pc_slo *s, const struct pc_verdict *v);

#endif

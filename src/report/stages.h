/*
 * stages.h - a load shape (--stages, -R A..B, --arrival poisson) in the
 * reports: the text rows, the JSON, and reading the JSON back.
 */
#ifndef PACER_REPORT_STAGES_H
#define PACER_REPORT_STAGES_H

#include <stdbool.h>
#include <stdio.h>

#include "report/rundesc.h"
#include "stats/results.h"
#include "util/json.h"

/* Where stage i's rate starts (the previous target, --start-rate, or its
 * own for a step) and when it starts (s after the schedule's start). */
double stage_from_rate(const pc_shape *sh, uint32_t i);
double stage_start_s(const pc_shape *sh, uint32_t i);

/* The wrk layout's lines for a shaped run (after the whole-run figures):
 * the Poisson seed, then one row per stage (target and achieved rate,
 * p50/p90/p99/p99.9/max corrected, requests that failed). Nothing for a
 * run without a shape. */
void report_stages(FILE *f, const pc_rundesc *run, const pc_results *res);

/* The JSON result's config.arrival, config.seed, config.stages. */
void report_json_shape(json_w *w, const pc_rundesc *run);

/* The JSON result's "stages": each stage's figures and its own encoded
 * histogram (nothing without stages). */
void report_json_stages(json_w *w, const pc_rundesc *run, const pc_results *res);

/* Read a result's shape (config) and stages (into st, stats_init_stages'd
 * here) back. 0, or a negative errno with a reason in err. */
int report_stages_load(const json_val *root, pc_shape *sh, pc_stats *st, char *err,
                       size_t errlen);

/* The same stages (durations, rates, steps): their figures can be added. */
bool report_stages_same(const pc_shape *a, const pc_shape *b);

/* The HTML page (html_run.c): the mean rate the shape asked for over
 * [from_s, to_s) s (the -R line follows it; without stages, run->rate),
 * a dashed line at each stage's start from lo to hi on chart c, and a
 * table of the stage rows. */
struct html_doc;
struct html_chart;
double report_shape_rate(const pc_rundesc *run, double from_s, double to_s);
void report_html_stage_marks(struct html_chart *c, const pc_rundesc *run, double lo, double hi);
void report_html_stages(struct html_doc *d, const pc_rundesc *run, const pc_results *res);

#endif

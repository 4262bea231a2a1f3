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

/* One row of the stage table: a stage (step 0), or one of a ramp stage's
 * PC_RAMP_STEPS rows of equal time (step 1..PC_RAMP_STEPS), with the
 * requests whose intended send time falls in it. Every request is in
 * exactly one stage row and, in a ramp, exactly one of its step rows. */
typedef struct report_stage_row {
    uint32_t stage;          /* 1-based */
    uint32_t step;           /* 0: the stage itself; else 1..PC_RAMP_STEPS */
    double start_s, dur_s;   /* its planned time, s after the schedule's start */
    double ran_s;            /* how long of it ran (cut by the run's end) */
    double from_rate, rate;  /* the shape's rate at its start and end */
    double target;           /* the mean rate it asked for over ran_s (merged runs: summed) */
    double achieved;         /* its completed requests / ran_s */
    const pc_stage_stats *g; /* its figures */
} report_stage_row;

/* The rows of a shaped run's stage table, in order: each stage, then its
 * ramp rows when it ramps and res has them. Returns how many (at most
 * cap are written; 0 without stages). A result without ramp rows (an
 * older file) has the stage rows alone. */
size_t report_stage_rows(const pc_rundesc *run, const pc_results *res, report_stage_row *rows,
                         size_t cap);
#define REPORT_STAGE_ROWS_MAX (PC_MAX_STAGES * (PC_RAMP_STEPS + 1))

/* The wrk layout's lines for a shaped run (after the whole-run figures):
 * the Poisson seed, then one row per stage (target and achieved rate,
 * p50/p90/p99/p99.9/max corrected, requests that failed), a ramp's rows
 * under it ("1.1" .. "1.10"). Nothing for a run without a shape. */
void report_stages(FILE *f, const pc_rundesc *run, const pc_results *res, const char *indent);

/* The JSON result's config.arrival, config.seed, config.stages. */
void report_json_shape(json_w *w, const pc_rundesc *run);

/* The JSON result's "stages": each stage's figures and its own encoded
 * histograms, a ramp's rows in its "steps" (nothing without stages). */
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

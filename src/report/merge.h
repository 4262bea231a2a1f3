/*
 * merge.h - read result files (.json written by --json, HdrHistogram
 * interval logs written by --hlog or by other tools), merge them without
 * loss and cut a time window: what `pacer report` (workflow/report_cmd.c)
 * prints and writes.
 */
#ifndef PACER_REPORT_MERGE_H
#define PACER_REPORT_MERGE_H

#include "report/rundesc.h"
#include "stats/results.h"
#include "report/series.h"

/* One file, or the merge of several. */
typedef struct pc_loaded {
    pc_rundesc cfg;    /* what is known of the run(s), as the reports read it; its
                          strings and arrays are heap, released by merge_free */
    pc_results res;    /* totals (stats_init'ed) */
    pc_series series;  /* per-interval points, wall-clock ordered */
    bool have_config;  /* came from JSON (threads, connections... known) */
    bool have_outcomes;/* counters beyond histogram counts are known */
    const char *test_file; /* the file whose test (requests, protocol) this is;
                              NULL: unknown (interval logs) */
    char protocol[96];     /* asked for: config.protocol, and config.alpn if given */
    char **targets;        /* every distinct request with its protocol, as the
                              report header lists them (heap) */
    size_t ntargets;
} pc_loaded;

/* Read one file (JSON result or interval log, told apart by content).
 * 0, or a negative errno with a one-line reason in err. */
int merge_load(const char *path, pc_loaded *out, char *err, size_t errlen);

/* The same for a JSON result held in memory (an MPI rank's, sent to rank
 * 0); name (which must outlive *out) stands for the file in messages. */
int merge_load_text(const char *name, const char *text, size_t len, pc_loaded *out, char *err,
                    size_t errlen);

/* Whether a and b ran the same test: the same requests (URLs, methods,
 * bodies) over the same protocol (files that do not say are not compared).
 * 0, or -EINVAL with one line naming both files and what differs. */
int merge_same_test(const pc_loaded *a, const pc_loaded *b, char *err, size_t errlen);

/* dst += src. Intervals align on the wall clock (to the nearest interval). */
int merge_add(pc_loaded *dst, const pc_loaded *src, char *err, size_t errlen);

/* Keep only intervals starting in [from_s, to_s) seconds after the earliest
 * start, and recompute the totals from them. */
int merge_window(pc_loaded *l, double from_s, double to_s, char *err, size_t errlen);

void merge_free(pc_loaded *l);

#endif

/*
 * server_cost.h - the server's cost (res->server, src/srvm/) in the
 * reports: the wrk report's Server: block, the JSON's "server" object and
 * reading it back (pacer report, compare, the mpirun merge), and the
 * figures compare and suite put in their tables.
 */
#ifndef PACER_REPORT_SERVER_COST_H
#define PACER_REPORT_SERVER_COST_H

#include <stdio.h>

#include "stats/results.h"

struct json_w;
struct json_val;

/* The Server: block (nothing when res->server is NULL). */
void report_server(FILE *f, const pc_results *res, const char *indent);

/* The JSON's "server" key and object (nothing when res->server is NULL). */
void report_server_json(struct json_w *w, const pc_results *res);

/* Read a result document's "server" object into res->server (left NULL
 * when the document has none): 0, or -ENOMEM. */
int report_server_load(const struct json_val *root, pc_results *res);

/* A copy of s (heap; NULL: s is NULL or out of memory). */
pc_server *report_server_dup(const pc_server *s);

/* Add src's figures to *dst (several runs of one workflow target: compare's
 * rounds, a suite's repeats): the CPU seconds and windows add, the peaks
 * are the larger, the intervals follow one another; a figure missing from
 * either is missing from the sum, with the first reason. *dst NULL: a
 * copy. 0, or -ENOMEM. */
int report_server_add(pc_server **dst, const pc_server *src);

/* Keep intervals [first, first + n) of s (pacer report --from/--to): the
 * window's figures are their sums and peaks, missing (with the reason)
 * when one of them is; what only the whole run has (VmHWM, threads, fds,
 * context switches) goes. */
void report_server_window(pc_server *s, size_t first, size_t n, double window_s);

/* What the run's requests cost the server: responses per server
 * CPU-second, and CPU seconds per 1,000 responses. NAN when not measured
 * (or no response). */
double report_server_rps_per_cpu(const pc_results *res);
double report_server_cpu_per_1k(const pc_results *res);

/* A table's cells for a workflow (compare, suite): the server's requests
 * per CPU-second and its peak RSS in MB ("-" when not measured), and the
 * note under the table that says why one is missing ("" when none is;
 * label names the target). */
void report_server_cells(const pc_results *res, char *rpc, char *rss, size_t cap);
void report_server_note(FILE *f, const pc_results *res, const char *label);

#endif

/*
 * workflow.h - the subcommands above single runs. The seeds' workflows are
 * built from repeated in-process runs of the engine:
 *
 *   pacer compare URL_A URL_B ...   the same load, interleaved A B A B
 *   pacer capacity URL --slo EXPR   the highest rate at which the SLO holds
 *   pacer suite FILE                targets x profiles, one table
 *
 * and `pacer report FILE...` reports on saved results (report/merge.h).
 *
 * Each run is a full engine_prepare/engine_run with its own connections;
 * SIGINT/SIGTERM are held pending between runs and end the workflow after
 * the run in progress (its partial result is shown).
 */
#ifndef PACER_WORKFLOW_WORKFLOW_H
#define PACER_WORKFLOW_WORKFLOW_H

#include <stdbool.h>
#include <stdio.h>

#include "config.h"
#include "engine/engine.h"

/* Subcommands; argv[0] is the subcommand's name. Return the exit code. */
int compare_main(int argc, char **argv);
int capacity_main(int argc, char **argv);
int suite_main(int argc, char **argv);
int report_main(int argc, char **argv); /* `pacer report FILE...` (report_cmd.c) */

/* Parse a compare or capacity command line (PC_MODE_*) and refuse the
 * per-run files. Returns -1 when cfg is ready to use, or else the exit
 * code (help printed: 0, bad input: 2; cfg is then already freed). */
int wf_parse(int mode, int argc, char **argv, pc_config *cfg);

/* Hold SIGINT/SIGTERM pending from now on (engine_run takes them). */
void wf_hold_signals(void);
/* Sleep ns unless SIGINT/SIGTERM arrives; returns the signal or 0. */
int wf_pause(uint64_t ns);

/* What a caller adds to the one run sequence (wf_run_seq); each hook may
 * be NULL, ud is passed to each. */
typedef struct wf_steps {
    const char *label; /* the progress line's label, e.g. "round 2/3 B" (NULL: none) */
    void *ud;
    /* After engine_prepare, before the script loads: open the result files,
     * add interval sinks (they come before the progress line's). 0, or -1
     * with the reason in err (a runtime error). */
    int (*prepared)(void *ud, pc_engine *eng, pc_results *res, char *err, size_t errlen);
    /* Just before the load starts: the report's header. */
    void (*starting)(void *ud);
    /* After a run that finished, before the script's done(): the report
     * and the result files. Returns the exit code so far (PC_EXIT_OK, or
     * the error met). */
    int (*finished)(void *ud, const pc_results *res);
} wf_steps;

/* Every run of wf_run_seq made one share of a run spread over processes
 * (src/mpi/ sets it for pacer compare and suite under mpirun); each hook
 * gets ud. NULL: runs are this process's alone. */
typedef struct wf_dist {
    void *ud;
    /* Make cfg (a copy of the run's) this process's share. 0, or -1 with
     * the reason in err. */
    int (*shard)(void *ud, pc_config *cfg, char *err, size_t errlen);
    /* After engine_prepare: e.g. the engine's start hook. */
    void (*prepared)(void *ud, pc_engine *eng);
    /* The run finished: replace *res with every process's results merged
     * (the same on every process). 0, or -1 with the reason in err. */
    int (*merge)(void *ud, const pc_config *cfg, pc_results *res, char *err, size_t errlen);
    /* After every run, whatever happened to it. */
    void (*ended)(void *ud);
    /* rank 0's len bytes at buf on every process; the others wait for them
     * up to wait_ns (plus a margin for rank 0's own work). 0, or -1 when
     * the processes cannot exchange them (the reason printed). */
    int (*agree)(void *ud, void *buf, size_t len, uint64_t wait_ns);
    /* Non-NULL: no run at all, wf_run_seq gives the results this returns
     * (this process's own share of the run in that place, recorded), so
     * that the workflow writes its files again from them. 0, or -1 with
     * the reason in err. */
    int (*replay)(void *ud, pc_results *res, char *err, size_t errlen);
    int rank;  /* this process's: 0 decides and writes the files */
    int size;  /* how many processes share each run */
    int files; /* the workflow's own --json/--html: WF_FILES_* */
} wf_dist;
enum { WF_FILES_NAMED, WF_FILES_NONE, WF_FILES_RANK };
void wf_set_dist(const wf_dist *d);

/* Whether this process takes the workflow's decisions and writes its
 * report: alone, or rank 0 under mpirun. */
bool wf_leader(void);
/* How many processes share each run (1 alone): the threads a description
 * gives are each process's -t times this. */
unsigned wf_processes(void);

/* Rank 0's len bytes at buf on every process, the others waiting up to
 * wait_ns for them (see wf_dist.agree); alone, buf is left as it is.
 * 0 or -1 (the reason printed). */
int wf_agree(void *buf, size_t len, uint64_t wait_ns);

/* One run of cfg, the sequence `pacer URL` and every workflow run share:
 * engine_prepare, st->prepared, the script (-s), the progress line,
 * st->starting, engine_run, st->finished, the script's done(). Returns
 * st->finished's code (PC_EXIT_OK without it), the exit code of the step
 * that failed (the reason printed on stderr), or PC_EXIT_SCRIPT when the
 * script failed during or after the run. *res holds the results when the
 * run finished (and nothing to free otherwise): results_free it in either
 * case. The caller adds the signal, no-response and --slo parts
 * (pc_exit_code). */
int wf_run_seq(const pc_config *cfg, const wf_steps *st, pc_results *res);

/* Run cfg once (wf_run_seq without hooks), with a progress line labelled
 * label. Returns PC_EXIT_OK with *res filled (results_free it), or an
 * exit code with the reason printed on stderr (*res then holds nothing). */
int wf_run_once(const pc_config *cfg, const char *label, pc_results *res);

/* *dst += *src (dst zeroed and stats_init'ed first by the caller, or
 * from an earlier wf_results_add): histograms and counters add, durations
 * add. 0 or -ENOMEM. */
int wf_results_add(pc_results *dst, const pc_results *src);

/* A copy of base aimed at one URL: the copy shares base's strings and owns
 * only its parsed URL and request list (release with wf_target_free).
 * 0, or -EINVAL with the reason in err. */
int wf_target_config(const pc_config *base, const char *url, pc_config *out, char *err,
                     size_t errlen);
void wf_target_free(pc_config *c);

/* rundesc_of for a workflow's run: under mpirun the threads of every
 * process (wf_processes), as one machine's run would say; in a rank's own
 * files (WF_FILES_RANK) that rank's share, as its own run said it. */
struct pc_rundesc;
void wf_rundesc(struct pc_rundesc *d, const pc_config *cfg);

/* "10.00s closed loop, 2 threads, 10 connections" / "1.00s at 500.00 req/s, ..." */
void wf_describe(const pc_config *cfg, char *buf, size_t cap);

/* Print a table: cells holds nrows*ncols heap strings (row 0: the header;
 * NULL prints as "?"), freed here with the array. The first nleft columns
 * are left-aligned, the others right-aligned; two spaces apart. */
void wf_table(FILE *f, size_t ncols, size_t nleft, size_t nrows, char **cells);

/* A workflow's JSON document, written to a temporary file and renamed
 * into place when complete ("-": stdout). wf_json_begin opens it and
 * writes {"schema": SCHEMA; the caller adds members through o->w;
 * wf_json_end closes the object and commits. Both return 0, or -1 with the
 * reason printed on stderr. */
#include "util/json.h"
typedef struct wf_json {
    const char *path; /* NULL: not this process's to write (a rank but 0) */
    char own[4096];
    char *tmp;
    FILE *f;
    json_w w;
} wf_json;
int wf_json_begin(wf_json *o, const char *path, const char *schema);
int wf_json_end(wf_json *o);

/* Write an HTML document (report/html.h) to path atomically and free it.
 * 0, or -1 with the reason printed. */
struct html_doc;
int wf_html_write(const char *path, struct html_doc *d);

/* Flags that name per-run files, which a workflow does not write (it has
 * its own --json/--html): a one-line error naming the flag, or NULL. */
const char *wf_no_run_files(const pc_config *cfg);

#endif

/*
 * outputs.h - the files a run writes (--hlog, --hgrm, --json, --csv, --html).
 *
 * Every file is written unnamed in its directory (util/file.h's
 * pc_tmp_create: O_TMPFILE) and named only when it is complete (through
 * "<path>.tmp-<pid>", renamed at once), so a file is either whole or
 * absent, also after SIGINT, and no ending, not even SIGKILL, leaves a
 * temporary behind. Where the file system has no O_TMPFILE the named
 * temporary is used from the start, tracked so that an ending that does
 * not come back here (a fatal signal, the script guard's exit, MPI_Abort)
 * removes it too. The paths are opened before the run: a typo fails at
 * once.
 */
#ifndef PACER_REPORT_OUTPUTS_H
#define PACER_REPORT_OUTPUTS_H

#include <stdio.h>

#include "config.h"
#include "report/rundesc.h"
#include "stats/interval.h"
#include "stats/results.h"

typedef struct pc_outputs pc_outputs;

/* Open the requested files (the time series in intervals of interval_ns).
 * Returns 0 (also when none was requested), or a negative errno with a
 * one-line reason in err. */
int outputs_open(pc_outputs **out, const pc_output_opts *paths, uint64_t interval_ns, char *err,
                 size_t errlen);

/* The engine's interval sink (ud = the pc_outputs). Before the run, point
 * the outputs at the results struct the engine will fill, so intervals can
 * be placed on the wall clock. */
void outputs_bind(pc_outputs *o, const pc_results *res);
void outputs_on_interval(void *ud, const pc_interval *iv);

/* Whether any output needs intervals. */
bool outputs_want_intervals(const pc_outputs *o);

/* Keep the time series without a file that needs it, for
 * outputs_json_text (before the run). */
void outputs_keep_series(pc_outputs *o);
/* The --json document of the run into memory (*text, *len bytes, malloc'ed;
 * after outputs_finish, which places the never-sent requests in the
 * series): 0 or -ENOMEM. No file is involved, so nothing is left behind
 * however the process ends. */
int outputs_json_text(pc_outputs *o, const pc_rundesc *run, const pc_results *res, char **text,
                      size_t *len);

/* Write the end-of-run files and move every file into place. 0 or a
 * negative errno with a reason in err. */
int outputs_finish(pc_outputs *o, const pc_rundesc *run, const pc_results *res, char *err,
                   size_t errlen);

/* The --csv document from a time series (one row an interval) and the
 * results it belongs to (its start), e.g. a merged one. */
struct pc_series;
void outputs_write_csv(FILE *f, const struct pc_series *s, const pc_results *res);

/* Remove unfinished files and free (NULL is fine). */
void outputs_free(pc_outputs *o);

/* Open path's file for writing, not visible until outputs_tmp_commit
 * (path "-" gives stdout); *tmp_path is its temporary name. */
FILE *outputs_tmp_open(const char *path, char **tmp_path, char *err, size_t errlen);
/* Close and rename into place; 0 or -errno with a reason. */
int outputs_tmp_commit(FILE *f, const char *path, char *tmp_path, char *err, size_t errlen);
/* Give up on it: close, remove the temporary file, free tmp_path. */
void outputs_tmp_abort(FILE *f, char *tmp_path);

#endif

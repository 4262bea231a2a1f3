/*
 * outputs.c - see outputs.h.
 */
#include "report/outputs.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/html.h"
#include "report/json_out.h"
#include "report/report.h"
#include "report/series.h"
#include "stats/hlog.h"
#include "util/file.h"

typedef struct out_file {
    const char *path; /* as given */
    char *tmp;        /* NULL for stdout */
    FILE *f;
} out_file;

struct pc_outputs {
    out_file hlog, hgrm, json, csv, gnuplot, pct, html;
    const pc_results *res;
    pc_series series;
    bool hlog_header_done;
    bool keep_series; /* outputs_json_text wants it without a file */
    int write_err;
};

FILE *outputs_tmp_open(const char *path, char **tmp_path, char *err, size_t errlen)
{
    size_t n = strlen(path) + 32;
    FILE *f;

    *tmp_path = NULL;
    if (strcmp(path, "-") == 0)
        return stdout;
    *tmp_path = malloc(n);
    if (!*tmp_path) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(*tmp_path, n, "%s.tmp-%ld", path, (long)getpid());
    f = pc_tmp_create(path, *tmp_path);
    if (!f) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
        free(*tmp_path);
        *tmp_path = NULL;
    }
    return f;
}

int outputs_tmp_commit(FILE *f, const char *path, char *tmp_path, char *err, size_t errlen)
{
    int rc = 0;

    if (f == stdout) {
        if (fflush(f) != 0) {
            snprintf(err, errlen, "cannot write to stdout: %s", strerror(errno));
            return -EIO;
        }
        return 0;
    }
    if ((rc = pc_tmp_place(f, tmp_path, path)) < 0)
        snprintf(err, errlen, "cannot %s '%s': %s", rc == -EISDIR ? "create" : "write", path,
                 strerror(-rc));
    free(tmp_path);
    return rc;
}

/* Every file, for what is done to all alike (commit, discard). */
static const size_t file_off[] = {
    offsetof(pc_outputs, hlog),    offsetof(pc_outputs, hgrm), offsetof(pc_outputs, json),
    offsetof(pc_outputs, csv),     offsetof(pc_outputs, gnuplot), offsetof(pc_outputs, pct),
    offsetof(pc_outputs, html),
};
#define OUT_FILES (sizeof file_off / sizeof *file_off)

static out_file *file_at(pc_outputs *o, size_t i)
{
    return (out_file *)((char *)o + file_off[i]);
}

static int open_one(out_file *o, const char *path, char *err, size_t errlen)
{
    o->path = path;
    if (!path)
        return 0;
    o->f = outputs_tmp_open(path, &o->tmp, err, errlen);
    return o->f ? 0 : -EIO;
}

int outputs_open(pc_outputs **out, const pc_output_opts *paths, uint64_t interval_ns, char *err,
                 size_t errlen)
{
    pc_outputs *o = calloc(1, sizeof *o);
    int rc;

    *out = o;
    if (!o)
        return -ENOMEM;
    o->series.interval_s = (double)interval_ns / 1e9;
    if ((rc = open_one(&o->hlog, paths->hlog_path, err, errlen)) < 0 ||
        (rc = open_one(&o->hgrm, paths->hgrm_path, err, errlen)) < 0 ||
        (rc = open_one(&o->json, paths->json_path, err, errlen)) < 0 ||
        (rc = open_one(&o->csv, paths->csv_path, err, errlen)) < 0 ||
        (rc = open_one(&o->gnuplot, paths->gnuplot_path, err, errlen)) < 0 ||
        (rc = open_one(&o->pct, paths->csv_pct_path, err, errlen)) < 0 ||
        (rc = open_one(&o->html, paths->html_path, err, errlen)) < 0)
        return rc;
    return 0;
}

void outputs_bind(pc_outputs *o, const pc_results *res)
{
    o->res = res;
}

bool outputs_want_intervals(const pc_outputs *o)
{
    return o->hlog.f || o->json.f || o->csv.f || o->html.f || o->keep_series;
}

void outputs_keep_series(pc_outputs *o)
{
    o->keep_series = true;
}

int outputs_json_text(pc_outputs *o, const pc_rundesc *run, const pc_results *res, char **text,
                      size_t *len)
{
    FILE *f = open_memstream(text, len);
    int rc;

    if (!f) {
        *text = NULL;
        *len = 0;
        return -ENOMEM;
    }
    rc = report_json(f, run, res, &o->series);
    if (fclose(f) != 0 || rc < 0) {
        free(*text);
        *text = NULL;
        *len = 0;
        return -ENOMEM;
    }
    return 0;
}

/* The --csv file, from the series: written when the run is over, as the
 * never-sent requests are placed in their intervals only then. */
void outputs_write_csv(FILE *f, const pc_series *s, const pc_results *res)
{
    double t0 = (double)res->start_wall_ns / 1e9;

    fputs("start_epoch_s,start_s,length_s,requests,rate,errors,timeouts,non2xx,bytes,"
          "p50_us,p90_us,p99_us,p99.9_us,max_us,uncorrected_p50_us,uncorrected_p99_us,"
          "never_sent\n",
          f);
    for (size_t i = 0; i < s->n; i++) {
        const pc_point *p = &s->v[i];

        fprintf(f, "%.3f,%.3f,%.3f,%llu,%.2f,%llu,%llu,%llu,%llu,%.1f,%.1f,%.1f,%.1f,%.1f,"
                   "%.1f,%.1f,%llu\n",
                p->start_s, p->start_s - t0, p->length_s, (unsigned long long)p->completed,
                p->length_s > 0 ? (double)p->completed / p->length_s : 0,
                (unsigned long long)p->errors, (unsigned long long)p->timeouts,
                (unsigned long long)p->non2xx, (unsigned long long)p->bytes,
                (double)p->p50 / 1e3, (double)p->p90 / 1e3, (double)p->p99 / 1e3,
                (double)p->p999 / 1e3, (double)p->max / 1e3, (double)p->u_p50 / 1e3,
                (double)p->u_p99 / 1e3, (unsigned long long)p->never_sent);
    }
}

void outputs_on_interval(void *ud, const pc_interval *iv)
{
    pc_outputs *o = ud;
    const pc_results *res = o->res;
    double rel = (double)(iv->start_ns - res->start_mono_ns) / 1e9;
    double len = (double)(iv->end_ns - iv->start_ns) / 1e9;
    double wall = (double)res->start_wall_ns / 1e9 + rel;

    if ((o->json.f || o->html.f || o->csv.f || o->keep_series) && series_add_interval(&o->series, iv, wall) < 0)
        o->write_err = -ENOMEM;
    if (o->hlog.f) {
        if (!o->hlog_header_done) {
            double t0 = (double)res->start_wall_ns / 1e9;

            hlog_write_header(o->hlog.f, t0, t0, "Logged with pacer " PACER_VERSION);
            o->hlog_header_done = true;
        }
        if (hlog_write_entry(o->hlog.f, "corrected", rel, len, &iv->latency,
                             HLOG_DEFAULT_MAX_UNIT_RATIO) < 0 ||
            hlog_write_entry(o->hlog.f, "uncorrected", rel, len, &iv->latency_u,
                             HLOG_DEFAULT_MAX_UNIT_RATIO) < 0)
            o->write_err = -EIO;
        fflush(o->hlog.f);
    }
}

static int commit(out_file *of, char *err, size_t errlen)
{
    int rc;

    if (!of->f)
        return 0;
    rc = outputs_tmp_commit(of->f, of->path, of->tmp, err, errlen);
    of->f = NULL;
    of->tmp = NULL;
    return rc;
}

int outputs_finish(pc_outputs *o, const pc_rundesc *run, const pc_results *res, char *err,
                   size_t errlen)
{
    int rc = 0, r;

    if (!o)
        return 0;
    if (o->write_err < 0) {
        snprintf(err, errlen, "writing the interval outputs failed: %s", strerror(-o->write_err));
        return o->write_err;
    }
    if (o->hlog.f && !o->hlog_header_done) {
        double t0 = (double)res->start_wall_ns / 1e9;

        hlog_write_header(o->hlog.f, t0, t0, "Logged with pacer " PACER_VERSION);
    }
    series_place_never_sent(&o->series, res);
    if (o->csv.f)
        outputs_write_csv(o->csv.f, &o->series, res);
    if (o->hgrm.f && report_hgrm(o->hgrm.f, res) < 0)
        o->write_err = -EIO;
    if (o->json.f && report_json(o->json.f, run, res, &o->series) < 0)
        o->write_err = -EIO;
    if (o->gnuplot.f && report_ab_gnuplot(o->gnuplot.f, res) < 0)
        o->write_err = -EIO;
    if (o->pct.f && report_ab_csv(o->pct.f, res) < 0)
        o->write_err = -EIO;
    if (o->html.f && (r = report_html(o->html.f, run, res, &o->series)) < 0)
        o->write_err = r;
    if (o->write_err < 0) {
        snprintf(err, errlen, "writing the result files failed");
        return o->write_err;
    }
    for (size_t i = 0; i < OUT_FILES; i++)
        if ((r = commit(file_at(o, i), err, errlen)) < 0)
            rc = r;
    return rc;
}

void outputs_tmp_abort(FILE *f, char *tmp_path)
{
    if (f && f != stdout)
        pc_tmp_drop(f, tmp_path);
    free(tmp_path);
}

static void discard(out_file *of)
{
    outputs_tmp_abort(of->f, of->tmp);
    of->f = NULL;
    of->tmp = NULL;
}

void outputs_free(pc_outputs *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < OUT_FILES; i++)
        discard(file_at(o, i));
    series_free(&o->series);
    free(o);
}

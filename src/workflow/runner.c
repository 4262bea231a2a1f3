/*
 * runner.c - what compare, capacity and suite share: one run, result
 * sums, per-target configs, tables. See workflow.h.
 */
#include "workflow/workflow.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "dist/shard.h"
#include "util/units.h"
#include "cli/url.h"
#include "cli/urls.h"
#include "report/html.h"
#include "report/outputs.h"
#include "report/rundesc.h"
#include "report/server_cost.h"
#include "report/progress.h"
#include "script/script.h"
#include "srvm/srvm.h"

static const wf_dist *dist; /* wf_set_dist */

int wf_parse(int mode, int argc, char **argv, pc_config *cfg)
{
    int rc = cli_parse_mode(mode, argc, argv, cfg, stdout, stderr);
    const char *bad;

    if (rc != CLI_RUN) {
        cli_free(cfg);
        return rc == CLI_EXIT ? PC_EXIT_OK : PC_EXIT_USAGE;
    }
    if (cfg->shard.per_rank) {
        /* Under mpirun, src/mpi/ takes it out of compare's command line. */
        fprintf(stderr, "pacer: --per-rank is for a run, pacer compare or pacer suite started by "
                        "mpirun (man pacer)\n");
        cli_free(cfg);
        return PC_EXIT_USAGE;
    }
    if ((bad = wf_no_run_files(cfg))) {
        fprintf(stderr, "pacer: %s cannot be used with pacer %s (it writes --json/--html)\n", bad,
                mode == PC_MODE_COMPARE ? "compare" : "capacity");
        cli_free(cfg);
        return PC_EXIT_USAGE;
    }
    return -1;
}

void wf_hold_signals(void)
{
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int wf_pause(uint64_t ns)
{
    sigset_t set;
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000ull), .tv_nsec = (long)(ns % 1000000000ull)};
    int sig;

    if (dist && dist->replay)
        return 0;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sig = sigtimedwait(&set, NULL, &ts);
    return sig == SIGINT || sig == SIGTERM ? sig : 0;
}

void wf_set_dist(const wf_dist *d)
{
    dist = d;
}

bool wf_leader(void)
{
    return !dist || dist->rank == 0;
}

unsigned wf_processes(void)
{
    /* A rank's own files (the replay) describe its share alone. */
    if (!dist || dist->files == WF_FILES_RANK || dist->size < 1)
        return 1;
    return (unsigned)dist->size;
}

int wf_agree(void *buf, size_t len, uint64_t wait_ns)
{
    return dist && dist->agree ? dist->agree(dist->ud, buf, len, wait_ns) : 0;
}

/* A workflow's file as this process writes it (see wf_dist.files): path,
 * NULL for none, or the rank's name for it in buf. */
static const char *own_path(const char *path, char *buf, size_t cap)
{
    if (!dist || dist->files == WF_FILES_NAMED)
        return path;
    if (dist->files == WF_FILES_NONE || strcmp(path, "-") == 0)
        return NULL;
    shard_rank_path(buf, cap, path, dist->rank);
    return buf;
}

/* The results a replay gives instead of a run (see wf_dist.replay). */
static int replay_seq(const wf_steps *st, pc_results *res)
{
    char err[512] = "";

    if (dist->replay(dist->ud, res, err, sizeof err) < 0) {
        fprintf(stderr, "pacer: %s\n", err);
        return PC_EXIT_RUNTIME;
    }
    return st->finished ? st->finished(st->ud, res) : PC_EXIT_OK;
}

/* The sampler's interval sink: it only signals the sampler's thread. */
static void srvm_sink(void *ud, const pc_interval *iv)
{
    (void)iv;
    srvm_tick(ud);
}

int wf_run_seq(const pc_config *cfg, const wf_steps *st, pc_results *res)
{
    pc_engine *eng = NULL;
    srvm *sampler = NULL;
    pc_script *script = NULL;
    pc_progress *prog = NULL;
    pc_config share;
    char err[512] = "";
    int code = PC_EXIT_OK;

    memset(res, 0, sizeof *res);
    if (dist && dist->replay)
        return replay_seq(st, res);
    if (dist) {
        share = *cfg;
        cfg = &share;
        if (dist->shard(dist->ud, &share, err, sizeof err) < 0) {
            fprintf(stderr, "pacer: %s\n", err);
            code = PC_EXIT_USAGE;
            goto out;
        }
    }
    if (engine_prepare(cfg, &eng, err, sizeof err) < 0 ||
        (st->prepared && st->prepared(st->ud, eng, res, err, sizeof err) < 0)) {
        fprintf(stderr, "pacer: %s\n", err[0] ? err : "out of memory");
        code = PC_EXIT_RUNTIME;
        goto out;
    }
    if (cfg->script_path) {
        if (script_load(&script, cfg, err, sizeof err) < 0) {
            fprintf(stderr, "pacer: %s\n", err[0] ? err : "out of memory");
            code = PC_EXIT_SCRIPT;
            goto out;
        }
        engine_set_source(eng, script_source(script));
    }
    if (dist)
        dist->prepared(dist->ud, eng);
    /* The header (starting) is out before the live view is drawn below it. */
    if (st->starting)
        st->starting(st->ud);
    if ((prog = progress_new(cfg, res, st->label, stderr))) {
        engine_add_interval_sink(eng, progress_period_ns(prog), progress_on_interval, prog);
        engine_set_connect_hook(eng, progress_on_connect, prog);
    }
    /* The server's cost: read once (rank 0 under mpirun), from just before
     * the connections open to just after the run ends. */
    if ((cfg->srv.pid || cfg->srv.nurls) && wf_leader()) {
        if (srvm_start(&sampler, &cfg->srv, cfg->interval_ns) < 0) {
            fprintf(stderr, "pacer: out of memory\n");
            code = PC_EXIT_RUNTIME;
            goto out;
        }
        engine_add_interval_sink(eng, cfg->interval_ns, srvm_sink, sampler);
    }
    if (engine_run(eng, res, err, sizeof err) < 0) {
        server_free(srvm_finish(sampler, 0));
        sampler = NULL;
        progress_end(prog);
        fprintf(stderr, "pacer: %s\n", err[0] ? err : "run failed");
        code = pc_exit_failed(res->signal, script != NULL);
        goto out;
    }
    if (sampler) {
        res->server = srvm_finish(sampler, res->intervals);
        sampler = NULL;
    }
    progress_end(prog);
    if (err[0])
        fprintf(stderr, "pacer: warning: %s\n", err);
    if (dist && dist->merge(dist->ud, cfg, res, err, sizeof err) < 0) {
        fprintf(stderr, "pacer: %s\n", err);
        code = PC_EXIT_RUNTIME;
        goto out;
    }
    if (st->finished)
        code = st->finished(st->ud, res);
    if (script && script_done(script, res, err, sizeof err) < 0) {
        fprintf(stderr, "pacer: %s\n", err);
        code = PC_EXIT_SCRIPT;
    } else if (script && script_run_error(script)) {
        fprintf(stderr, "pacer: %s (the run stopped there)\n", script_run_error(script));
        code = PC_EXIT_SCRIPT;
    }
out:
    if (dist)
        dist->ended(dist->ud);
    server_free(srvm_finish(sampler, 0));
    engine_free(eng);
    script_free(script);
    return code;
}

int wf_run_once(const pc_config *cfg, const char *label, pc_results *res)
{
    wf_steps st = {.label = label};
    int code = wf_run_seq(cfg, &st, res);

    if (code != PC_EXIT_OK)
        results_free(res);
    return code;
}

int wf_results_add(pc_results *dst, const pc_results *src)
{
    if (!dst->st.latency.counts && stats_init(&dst->st) < 0)
        return -ENOMEM;
    if (!dst->start_wall_ns) {
        dst->start_wall_ns = src->start_wall_ns;
        dst->start_mono_ns = src->start_mono_ns;
    }
    stats_merge(&dst->st, &src->st);
    dst->duration_ns += src->duration_ns;
    dst->warmup_ns += src->warmup_ns;
    dst->warmup_outcomes += src->warmup_outcomes;
    if (report_server_add(&dst->server, src->server) < 0)
        return -ENOMEM;
    if (src->signal)
        dst->signal = src->signal;
    return 0;
}

int wf_target_config(const pc_config *base, const char *url, pc_config *out, char *err,
                     size_t errlen)
{
    *out = *base;
    out->reqs = NULL;
    out->nreqs = 0;
    out->reqstore = NULL;
    out->url_text = url;
    memset(&out->url, 0, sizeof out->url);
    if (url_parse(url, &out->url, err, errlen) < 0)
        return -EINVAL;
    if (urls_add(out, base->method, url, base->body, base->body_len, 1, err, errlen) < 0) {
        wf_target_free(out);
        return -EINVAL;
    }
    return 0;
}

void wf_target_free(pc_config *c)
{
    urls_free(c);
    url_free(&c->url);
}

void wf_rundesc(pc_rundesc *d, const pc_config *cfg)
{
    pc_config share;
    char err[256];

    if (dist && dist->files == WF_FILES_RANK && dist->size > 1) {
        /* As the rank's own run said it (its -c, -n, -R share). */
        share = *cfg;
        if (shard_apply(&share, (uint32_t)dist->rank, (uint32_t)dist->size, err, sizeof err) == 0)
            cfg = &share;
    }
    rundesc_of(d, cfg);
    d->threads *= wf_processes();
}

void wf_describe(const pc_config *cfg, char *buf, size_t cap)
{
    char d[32], r[48];
    unsigned threads = cfg->threads * wf_processes();

    if (cfg->requests)
        snprintf(d, sizeof d, "%" PRIu64 " requests", cfg->requests);
    else
        units_fmt_time_us((double)cfg->duration_ns / 1e3, d, sizeof d);
    if (cfg->rate > 0)
        snprintf(r, sizeof r, "at %.2f req/s", cfg->rate);
    else
        snprintf(r, sizeof r, "closed loop");
    snprintf(buf, cap, "%s %s, %u thread%s, %u connection%s%s", d, r, threads,
             threads == 1 ? "" : "s", cfg->connections, cfg->connections == 1 ? "" : "s",
             cfg->h2 ? " (HTTP/2)" : "");
}

void wf_table(FILE *f, size_t ncols, size_t nleft, size_t nrows, char **cells)
{
    size_t w[32] = {0};

    if (!cells)
        return;
    for (size_t r = 0; r < nrows; r++)
        for (size_t c = 0; c < ncols && c < 32; c++) {
            size_t n = cells[r * ncols + c] ? strlen(cells[r * ncols + c]) : 1;

            if (n > w[c])
                w[c] = n;
        }
    for (size_t r = 0; r < nrows; r++) {
        for (size_t c = 0; c < ncols && c < 32; c++) {
            const char *s = cells[r * ncols + c] ? cells[r * ncols + c] : "?";
            const char *sep = c ? "  " : "";

            if (c < nleft && c + 1 < ncols)
                fprintf(f, "%s%-*s", sep, (int)w[c], s);
            else
                fprintf(f, "%s%*s", sep, (int)w[c], s);
        }
        fputc('\n', f);
    }
    for (size_t k = 0; k < nrows * ncols; k++)
        free(cells[k]);
    free(cells);
}

int wf_json_begin(wf_json *o, const char *path, const char *schema)
{
    char err[256];

    o->path = own_path(path, o->own, sizeof o->own);
    if (!o->path) {
        /* Not this process's to write: the members go nowhere. */
        o->tmp = NULL;
        o->f = fopen("/dev/null", "w");
        if (!o->f) {
            fprintf(stderr, "pacer: /dev/null: %s\n", strerror(errno));
            return -1;
        }
        json_w_init(&o->w, o->f, 2);
        json_w_obj_begin(&o->w);
        return 0;
    }
    path = o->path;
    o->f = outputs_tmp_open(path, &o->tmp, err, sizeof err);
    if (!o->f) {
        fprintf(stderr, "pacer: %s\n", err);
        return -1;
    }
    json_w_init(&o->w, o->f, 2);
    json_w_obj_begin(&o->w);
    json_w_kstr(&o->w, "schema", schema);
    return 0;
}

int wf_json_end(wf_json *o)
{
    char err[256] = "";

    json_w_obj_end(&o->w);
    if (!o->path) {
        json_w_finish(&o->w);
        fclose(o->f);
        return 0;
    }
    if (json_w_finish(&o->w) < 0) {
        snprintf(err, sizeof err, "cannot write '%s'", o->path);
        outputs_tmp_abort(o->f, o->tmp);
    } else if (outputs_tmp_commit(o->f, o->path, o->tmp, err, sizeof err) == 0) {
        return 0;
    }
    fprintf(stderr, "pacer: %s\n", err);
    return -1;
}

int wf_html_write(const char *path, html_doc *d)
{
    char *tmp, err[256], own[4096];
    FILE *f;
    int rc;

    if (!d) {
        fprintf(stderr, "pacer: out of memory\n");
        return -1;
    }
    if (!(path = own_path(path, own, sizeof own))) {
        html_doc_free(d);
        return 0;
    }
    f = outputs_tmp_open(path, &tmp, err, sizeof err);
    if (!f) {
        fprintf(stderr, "pacer: %s\n", err);
        html_doc_free(d);
        return -1;
    }
    rc = html_doc_write(d, f);
    html_doc_free(d);
    if (rc < 0) {
        fprintf(stderr, "pacer: cannot write '%s': %s\n", path, strerror(-rc));
        outputs_tmp_abort(f, tmp);
        return -1;
    }
    if (outputs_tmp_commit(f, path, tmp, err, sizeof err) < 0) {
        fprintf(stderr, "pacer: %s\n", err);
        return -1;
    }
    return 0;
}

const char *wf_no_run_files(const pc_config *cfg)
{
    if (cfg->out.hlog_path)
        return "--hlog";
    if (cfg->out.hgrm_path)
        return "--hgrm";
    if (cfg->out.csv_path)
        return "--csv";
    if (cfg->out.gnuplot_path)
        return "-g/--gnuplot";
    if (cfg->out.csv_pct_path)
        return "-e/--percentiles-csv";
    if (cfg->urls_path)
        return "--urls";
    return NULL;
}

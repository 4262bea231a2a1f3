/*
 * run.c - see run.h.
 *
 * Every rank makes the same collectives in the same order, whatever
 * happens to it, so that none waits for a call another will never make:
 *
 *   START  (once this rank's connections are open, or it failed before)
 *          allgather of each rank's status; if one is not ready, every
 *          rank abandons the run before sending anything, and rank 0
 *          names it. Else a few barrier + gather rounds estimate each
 *          rank's clock against rank 0's, and rank 0 broadcasts the start
 *          instant (wall clock), which each rank's engine waits for.
 *   END    (after the run) gather of each rank's exit code and JSON
 *          length, then of the JSON documents (the --json writer's, which
 *          merge.c reads back without loss); rank 0 merges them.
 *
 * The waits are bounded by the run itself: a rank reaches START within
 * --connect-timeout, and END within -d + --timeout. A rank that dies
 * (killed, crashed) is seen by mpirun, which ends the job and names it.
 */
#include "mpi/run.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "dist/shard.h"
#include "engine/engine.h"
#include "mpi/glue.h"
#include "mpi/mrun.h"
#include "report/html.h"
#include "report/merge.h"
#include "report/openmetrics.h"
#include "report/outputs.h"
#include "report/json_out.h"
#include "report/report.h"
#include "report/slo.h"
#include "stats/hdr_codec.h"
#include "stats/hlog.h"
#include "util/clock.h"
#include "workflow/workflow.h"

#define CLOCK_ROUNDS 8
#define CLOCK_TAG 23 /* live.c has 17 */
#define RECS_BASE_NS (1ull << 62) /* merge_recs: far from 0 both ways */
#define START_MARGIN_NS 100000000ull /* from rank 0's decision to the start */

typedef struct rank_status {
    int32_t ready;
    int32_t live; /* rank 0 shows the live progress: the others send it theirs */
    uint32_t opened, total;
    char host[64];
    char why[192];
} rank_status;

typedef struct rank_end {
    int32_t code, signal;
    uint64_t len; /* its JSON document's length */
    uint64_t nrecs; /* its per-request records (-g, hey's CSV) */
    uint64_t start_wall_ns, start_mono_ns; /* their time base */
    uint64_t live_sent; /* intervals sent for the live progress (live.h) */
    char stopped_by[16];
} rank_end;


static uint64_t wall_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_REALTIME, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* The files this rank writes itself: none, or with --per-rank each file
 * asked for under its rank's name (paths kept in pool). Its JSON document,
 * which END sends to rank 0, is made in memory (outputs_json_text): no
 * scratch file that an abrupt ending could leave behind. -g keeps its
 * path here without --per-rank too (the engine keeps the per-request
 * records for it, which END sends), but m_prepared opens it only as a
 * rank's own file. */
static void own_outputs(mrun *r, char pool[OWN_FILES][4096])
{
    pc_output_opts *o = &r->cfg->out;
    const char **mine[OWN_FILES] = {&o->hlog_path, &o->hgrm_path,    &o->json_path,
                                    &o->csv_path,  &o->html_path,    &o->gnuplot_path,
                                    &o->csv_pct_path};
    const pc_output_opts *u = &r->user;
    const char *asked[OWN_FILES];

    r->user = *o;
    memset(o, 0, sizeof *o);
    asked[0] = u->hlog_path;
    asked[1] = u->hgrm_path;
    asked[2] = u->json_path;
    asked[3] = u->csv_path;
    asked[4] = u->html_path;
    asked[5] = u->gnuplot_path;
    asked[6] = u->csv_pct_path;
    if (r->cfg->shard.per_rank)
        for (int i = 0; i < OWN_FILES; i++)
            if (asked[i] && strcmp(asked[i], "-") != 0) {
                shard_rank_path(pool[i], sizeof pool[i], asked[i], r->rank);
                *mine[i] = pool[i];
            }
    if (r->user.gnuplot_path && !o->gnuplot_path) {
        o->gnuplot_path = r->user.gnuplot_path;
        r->recs_only = true;
    }
}

/* Rank 0's merged files, in report_merged's order (W_*). */
enum { W_JSON, W_HGRM, W_HTML, W_HLOG, W_CSV, W_GNUPLOT, W_PCT };

static const char *merged_path(const pc_output_opts *u, int kind)
{
    const char *p[MERGED_FILES] = {u->json_path, u->hgrm_path,    u->html_path,   u->hlog_path,
                                   u->csv_path,  u->gnuplot_path, u->csv_pct_path};

    return p[kind];
}

/* Before anything else, as a single process opens its files before the
 * run (outputs_open): rank 0, which writes the merged files, opens each
 * now (outputs_tmp_open: not visible until written), and every rank
 * learns whether it could. One it cannot write ends the run on every rank
 * before a connection is opened, with the single process's one line (on
 * rank 0) and its exit status; the other ranks add nothing. The first
 * collective of the run, so that it comes before any rank can fail on its
 * own. 0 or -1. */
static int open_merged(mrun *r, const pc_output_opts *u)
{
    char err[512] = "";
    int32_t ok = 1;

    for (int k = 0; r->rank == 0 && ok && k < MERGED_FILES; k++) {
        const char *path = merged_path(u, k);

        if (path && !(r->mf[k] = outputs_tmp_open(path, &r->mtmp[k], err, sizeof err)))
            ok = 0;
    }
    mpi_set_deadline(r->m, pc_now_ns() + r->cfg->connect_timeout_ns + SLACK_NS);
    if (mpi_bcast(r->m, &ok, sizeof ok, 0) < 0) {
        fprintf(stderr, "pacer: rank %d: MPI_Bcast failed\n", r->rank);
        return -1;
    }
    if (!ok && r->rank == 0)
        fprintf(stderr, "pacer: %s\n", err);
    return ok ? 0 : -1;
}

static void close_merged(mrun *r)
{
    for (int k = 0; k < MERGED_FILES; k++) {
        if (r->mf[k])
            outputs_tmp_abort(r->mf[k], r->mtmp[k]);
        r->mf[k] = NULL;
        r->mtmp[k] = NULL;
    }
}

/* Each rank's wall clock against rank 0's, NTP's way: rank 0 reads its
 * clock (t0), pings rank k, which reads its own (tk) and answers; rank 0
 * reads its clock again (t1). The offset is tk - (t0 + t1) / 2, wrong by at
 * most half the round trip whichever way the two legs differ; of
 * CLOCK_ROUNDS rounds the one with the shortest round trip is kept, so a
 * rank that lost its CPU in a round (a busy machine) costs that round only.
 * (A barrier's exit spread has no such bound: on a loaded 2-core machine it
 * put a rank 4 ms off its own host's clock.) */
static int measure_clocks(mrun *r)
{
    int rc = 0;

    if (r->rank != 0) {
        for (int i = 0; i < CLOCK_ROUNDS && rc == 0; i++) {
            uint64_t t;
            void *req;

            if ((rc = mpi_recv(r->m, &t, sizeof t, 0, CLOCK_TAG)) < 0)
                break;
            t = wall_ns();
            if ((rc = mpi_send_start(r->m, &t, sizeof t, 0, CLOCK_TAG, &req)) == 0)
                rc = mpi_send_done(r->m, &req, true) < 0 ? -EPROTO : 0;
        }
        return rc;
    }
    r->clock_us[0] = r->clock_err_us[0] = 0;
    for (int k = 1; k < r->size && rc == 0; k++) {
        double best = -1;

        for (int i = 0; i < CLOCK_ROUNDS && rc == 0; i++) {
            uint64_t t0 = wall_ns(), tk, t1;
            void *req;

            if ((rc = mpi_send_start(r->m, &t0, sizeof t0, k, CLOCK_TAG, &req)) < 0 ||
                (rc = mpi_send_done(r->m, &req, true) < 0 ? -EPROTO : 0) < 0 ||
                (rc = mpi_recv(r->m, &tk, sizeof tk, k, CLOCK_TAG)) < 0)
                break;
            t1 = wall_ns();
            if (best < 0 || (double)(t1 - t0) < best) {
                best = (double)(t1 - t0);
                r->clock_us[k] = ((double)tk - ((double)t0 + (double)t1) / 2) / 1e3;
                r->clock_err_us[k] = best / 2e3;
            }
        }
    }
    return rc;
}

/* START (see the top of the file). ready: this rank can start; why: what
 * stopped it otherwise. *at: the start instant everyone agreed on. */
static int start_exchange(mrun *r, bool ready, uint32_t opened, uint32_t total, const char *why,
                          uint64_t *at, char *err, size_t errlen)
{
    rank_status me = {.ready = ready, .opened = opened, .total = total}, *all;
    int rc;

    r->started = true;
    /* Every rank comes within its --connect-timeout (the others' too). */
    mpi_set_deadline(r->m, pc_now_ns() + r->cfg->connect_timeout_ns + SLACK_NS);
    all = calloc((size_t)r->size, sizeof *all);
    if (!all) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    me.live = r->live && mlive_wanted(r->live);
    snprintf(me.host, sizeof me.host, "%s", mpi_host(r->m));
    snprintf(me.why, sizeof me.why, "%s", why ? why : "");
    if ((rc = mpi_allgather(r->m, &me, sizeof me, all)) < 0) {
        snprintf(err, errlen, "MPI_Allgather failed");
        goto out;
    }
    for (int k = 0; k < r->size; k++)
        snprintf(r->hosts[k], sizeof r->hosts[k], "%s", all[k].host);
    if (r->live)
        mlive_set_on(r->live, all[0].live);
    for (int k = 0; k < r->size; k++)
        if (!all[k].ready) {
            /* Rank 0 says why; the others only that they stopped. */
            if (r->rank == 0)
                snprintf(err, errlen, "rank %d of %d (%s) %s: the run is abandoned on every rank",
                         k, r->size, all[k].host, all[k].why);
            else
                snprintf(err, errlen, "rank %d: stopped before the start (rank %d could not "
                                      "start; rank 0 says why)",
                         r->rank, k);
            rc = -ECONNREFUSED;
            goto out;
        }
    if ((rc = measure_clocks(r)) < 0) {
        snprintf(err, errlen, "MPI: cannot compare the ranks' clocks");
        goto out;
    }
    if (r->rank == 0) {
        uint64_t soon = wall_ns() + START_MARGIN_NS;

        *at = r->cfg->shard.start_at_ns > soon ? r->cfg->shard.start_at_ns : soon;
    }
    if ((rc = mpi_bcast(r->m, at, sizeof *at, 0)) < 0) {
        snprintf(err, errlen, "MPI_Bcast failed");
    } else {
        uint64_t w = wall_ns(), now = pc_now_ns();

        r->start_mono = *at >= w ? now + (*at - w) : now - (w - *at);
    }
out:
    free(all);
    return rc;
}

/* The engine's start hook: every connection opened or given up on. */
int mrun_on_connected(void *ud, uint32_t opened, uint32_t total, const char *why,
                      uint64_t *at, char *err, size_t errlen)
{
    mrun *r = ud;
    char buf[192];

    snprintf(buf, sizeof buf, "opened none of its %u connections (%s)", total,
             why ? why : "connect timeout");
    return start_exchange(r, opened > 0, opened, total, opened ? NULL : buf, at, err, errlen);
}

static int m_prepared(void *ud, pc_engine *eng, pc_results *res, char *err, size_t errlen)
{
    mrun *r = ud;

    pc_output_opts own = r->cfg->out;

    if (r->recs_only)
        own.gnuplot_path = NULL;
    if (outputs_open(&r->outs, &own, r->cfg->interval_ns, err, errlen) < 0)
        return -1;
    outputs_bind(r->outs, res);
    outputs_keep_series(r->outs); /* END's document has the series */
    engine_add_interval_sink(eng, r->cfg->interval_ns, outputs_on_interval, r->outs);
    if (r->live)
        engine_add_interval_sink(eng, r->cfg->interval_ns, mlive_on_interval, r->live);
    engine_set_start_hook(eng, mrun_on_connected, r);
    return 0;
}

static void m_starting(void *ud)
{
    mrun *r = ud;

    if (r->rank != 0)
        return;
    if (r->whole.format == PC_FORMAT_H2LOAD)
        report_h2load_header(r->text, &r->whole);
    else if (r->whole.format == PC_FORMAT_AB)
        report_ab_header(r->text, &r->whole);
    else if (r->whole.format != PC_FORMAT_HEY && r->whole.format != PC_FORMAT_HEY_CSV)
        report_wrk_header(r->text, &r->whole);
    fflush(r->text);
}

/* The merged interval log: the series' interval histograms, as --hlog
 * writes them during a single run. */
static int report_hlog(FILE *f, const pc_loaded *m)
{
    double t0 = (double)m->res.start_wall_ns / 1e9;
    int rc = hlog_write_header(f, t0, t0, "Logged with pacer " PACER_VERSION ", merged over MPI ranks");

    for (size_t i = 0; rc == 0 && i < m->series.n; i++) {
        const pc_point *p = &m->series.v[i];
        const char *b64[2] = {p->hist, p->hist_u}, *tag[2] = {"corrected", "uncorrected"};

        for (int k = 0; k < 2 && rc == 0; k++) {
            hdr_hist h;

            if (!b64[k])
                continue;
            if (hdrc_decode_base64(b64[k], strlen(b64[k]), &h) < 0)
                return -EINVAL;
            rc = hlog_write_entry(f, tag[k], p->start_s - t0 > 0 ? p->start_s - t0 : 0,
                                  p->length_s, &h, HLOG_DEFAULT_MAX_UNIT_RATIO);
            hdr_free(&h);
        }
    }
    return rc;
}

/* One merged file into the temporary open_merged opened, then into place. */
static int write_merged(mrun *r, int kind, const pc_rundesc *d, const pc_loaded *m)
{
    const char *path = merged_path(&r->user, kind);
    char *tmp = r->mtmp[kind], err[512];
    FILE *f = r->mf[kind];
    int rc;

    r->mf[kind] = NULL;
    r->mtmp[kind] = NULL;
    if (!f)
        return 0; /* not asked for */
    switch (kind) {
    case W_JSON: rc = report_json(f, d, &m->res, &m->series); break;
    case W_HGRM: rc = report_hgrm(f, &m->res); break;
    case W_HTML: rc = report_html(f, d, &m->res, &m->series); break;
    case W_HLOG: rc = report_hlog(f, m); break;
    case W_GNUPLOT: rc = report_ab_gnuplot(f, &m->res); break;
    case W_PCT: rc = report_ab_csv(f, &m->res); break;
    default:
        outputs_write_csv(f, &m->series, &m->res);
        rc = ferror(f) ? -EIO : 0;
    }
    if (rc < 0) {
        outputs_tmp_abort(f, tmp);
        fprintf(stderr, "pacer: cannot write '%s'\n", path);
        return -1;
    }
    if (outputs_tmp_commit(f, path, tmp, err, sizeof err) < 0) {
        fprintf(stderr, "pacer: %s\n", err);
        return -1;
    }
    return 0;
}

/* --per-rank: one line per rank after the report. */
static void per_rank_lines(mrun *r, FILE *f, const pc_loaded *ls)
{
    fprintf(f, "Per rank:\n");
    for (int k = 0; k < r->size; k++) {
        const pc_results *x = &ls[k].res;
        double secs = (double)x->duration_ns / 1e9;

        fprintf(f,
                "  rank %d %-20s %10llu requests %10.2f req/s  p99 %9.3fms  send lag p99 "
                "%9.3fms  started %+.0fus\n",
                k, r->hosts[k], (unsigned long long)x->st.completed,
                secs > 0 ? (double)x->st.completed / secs : 0,
                (double)hdr_value_at_percentile(&x->st.latency, 99) / 1e6,
                (double)hdr_value_at_percentile(&x->st.send_lag, 99) / 1e6,
                (double)x->start_late_ns / 1e3 + r->clock_us[k]);
    }
}

/* Every rank's per-request records to rank 0 (*all, malloc'ed there),
 * each on one time base: rank 0's start instant on the wall clock, read
 * as RECS_BASE_NS on a monotonic clock (merge_recs). 0 or -1. */
static int gather_recs(mrun *r, const pc_results *res, const rank_end *ends, pc_reqrec **all)
{
    size_t *lens = NULL, total = 0;
    int rc;

    *all = NULL;
    if (r->rank == 0) {
        if (!(lens = calloc((size_t)r->size, sizeof *lens)))
            return -1;
        for (int k = 0; k < r->size; k++)
            total += (lens[k] = (size_t)ends[k].nrecs * sizeof **all);
        if (!(*all = malloc(total ? total : 1))) {
            free(lens);
            return -1;
        }
    }
    rc = mpi_gatherv(r->m, res && res->st.recs ? (const void *)res->st.recs : "",
                     res ? res->st.nrecs * sizeof **all : 0, *all, lens);
    free(lens);
    return rc;
}

/* The gathered records (rank k's ends[k].nrecs after rank k-1's) moved
 * onto one time base: start_wall_ns on the wall clock is RECS_BASE_NS on
 * the merged results' monotonic clock. */
static void merge_recs(mrun *r, const rank_end *ends, pc_reqrec *recs, pc_results *m)
{
    size_t at = 0;

    for (int k = 0; k < r->size; k++)
        for (uint64_t i = 0; i < ends[k].nrecs; i++, at++) {
            /* The rank's monotonic instant on the wall clock, less the start. */
            int64_t off = (int64_t)(recs[at].start - ends[k].start_mono_ns) +
                          (int64_t)(ends[k].start_wall_ns - m->start_wall_ns);

            recs[at].start = (uint64_t)((int64_t)RECS_BASE_NS + off);
        }
    m->start_mono_ns = RECS_BASE_NS;
    m->st.recs = recs;
    m->st.nrecs = m->st.caprecs = at;
}

/* Rank 0: the ranks' documents merged into one report and its files. */
static int report_merged(mrun *r, const rank_end *ends, const char *texts, pc_reqrec **recs)
{
    pc_loaded *ls = calloc((size_t)r->size, sizeof *ls), m;
    char (*names)[32] = calloc((size_t)r->size, sizeof *names), err[512];
    double *late = calloc((size_t)r->size, sizeof *late);
    const char **hosts = calloc((size_t)r->size, sizeof *hosts);
    pc_dist_desc dd = {.ranks = (uint32_t)r->size};
    pc_rundesc d = r->whole;
    size_t at = 0;
    int code = PC_EXIT_OK, sig = 0;
    double lo = 0, hi = 0;
    bool slo_ok = true, loaded = false;
    FILE *note;

    memset(&m, 0, sizeof m);
    if (!ls || !names || !late || !hosts) {
        fprintf(stderr, "pacer: out of memory\n");
        code = PC_EXIT_RUNTIME;
        goto out;
    }
    for (int k = 0; k < r->size; k++) {
        snprintf(names[k], sizeof names[k], "rank %d", k);
        if (merge_load_text(names[k], texts + at, ends[k].len, &ls[k], err, sizeof err) < 0 ||
            (k == 0 ? merge_load_text(names[k], texts + at, ends[k].len, &m, err, sizeof err)
                    : merge_add(&m, &ls[k], err, sizeof err)) < 0) {
            fprintf(stderr, "pacer: cannot merge the result of rank %d: %s\n", k, err);
            code = PC_EXIT_RUNTIME;
            goto out;
        }
        loaded = true;
        at += ends[k].len;
        if (ends[k].signal)
            sig = ends[k].signal;
        if (ends[k].code != PC_EXIT_OK && code == PC_EXIT_OK)
            code = ends[k].code;
    }
    for (int k = 0; k < r->size; k++) {
        hosts[k] = r->hosts[k];
        late[k] = (double)ls[k].res.start_late_ns / 1e3;
        if (k == 0 || late[k] + r->clock_us[k] < lo)
            lo = late[k] + r->clock_us[k];
        if (k == 0 || late[k] + r->clock_us[k] > hi)
            hi = late[k] + r->clock_us[k];
    }
    dd.hosts = hosts;
    dd.late_us = late;
    dd.clock_us = r->clock_us;
    dd.clock_err_us = r->clock_err_us;
    dd.start_skew_us = hi - lo;
    d.dist = &dd;
    m.res.stopped_by = sig ? pc_signal_name(sig) : ends[0].stopped_by;
    m.res.signal = sig;
    m.res.start_late_ns = (uint64_t)(hi > 0 ? hi * 1e3 : 0);
    merge_recs(r, ends, *recs, &m.res);
    *recs = NULL; /* m's now */
    om_final(r->om, &m.res); /* --metrics-listen serves the merged totals from now on */

    if (d.format == PC_FORMAT_H2LOAD)
        report_h2load(r->text, &d, &m.res);
    else if (d.format == PC_FORMAT_AB)
        report_ab(r->text, &d, &m.res);
    else if (d.format == PC_FORMAT_HEY)
        report_hey(r->text, &d, &m.res);
    else if (d.format == PC_FORMAT_HEY_CSV)
        report_hey_csv(r->text, stderr, &d, &m.res);
    else
        report_wrk(r->text, &d, &m.res);
    /* hey's CSV is the whole of stdout: what pacer adds goes to stderr. */
    note = d.format == PC_FORMAT_HEY_CSV ? stderr : r->text;
    fprintf(note, "  %d MPI ranks on %s%s; start skew %.0fus (docs/distributed.md)\n", r->size,
            r->hosts[0], r->size > 1 ? " ..." : "", dd.start_skew_us);
    slo_ok = !r->cfg->slo || slo_print(r->text, r->cfg->slo, d.rate, &m.res, NULL);
    if (r->cfg->shard.per_rank)
        per_rank_lines(r, note, ls);
    fflush(r->text);
    for (int k = 0; k < MERGED_FILES; k++)
        if (write_merged(r, k, &d, &m) < 0) {
            code = code == PC_EXIT_OK ? PC_EXIT_RUNTIME : code;
            break; /* the rest are removed (close_merged) */
        }
    code = pc_exit_code(code, sig, m.res.st.completed == 0, !slo_ok);
out:
    for (int k = 0; ls && k < r->size; k++)
        merge_free(&ls[k]);
    if (loaded)
        merge_free(&m);
    free(ls);
    free(names);
    free(late);
    free(hosts);
    return code;
}

/* The live progress's last messages, before the report (see live.h). */
static int finish_live(mrun *r, const rank_end *ends)
{
    uint64_t *sent = NULL;
    int rc;

    if (!r->live)
        return 0;
    if (r->rank == 0) {
        if (!(sent = calloc((size_t)r->size, sizeof *sent)))
            return -ENOMEM;
        for (int k = 0; k < r->size; k++)
            sent[k] = ends[k].live_sent;
    }
    rc = mlive_finish(r->live, sent);
    free(sent);
    return rc;
}

/* END (see the top of the file). */
static int end_exchange(mrun *r, int code, const pc_results *res)
{
    rank_end me = {.code = code, .signal = res ? res->signal : 0}, *ends = NULL;
    char *text = NULL, *all = NULL;
    size_t len = 0, *lens = NULL, total = 0;
    pc_reqrec *recs = NULL;
    int rc;

    if (res) {
        if (outputs_json_text(r->outs, &r->local, res, &text, &len) < 0 && me.code == PC_EXIT_OK)
            me.code = PC_EXIT_RUNTIME;
        snprintf(me.stopped_by, sizeof me.stopped_by, "%s", res->stopped_by ? res->stopped_by : "");
    }
    me.len = len;
    me.live_sent = mlive_sent(r->live);
    if (res) {
        me.nrecs = res->st.nrecs;
        me.start_wall_ns = res->start_wall_ns;
        me.start_mono_ns = res->start_mono_ns;
    }
    {
        /* The others come when their run ends: the schedule's end, then
         * --timeout for what is in flight. */
        const pc_config *c = r->cfg;
        uint64_t now = pc_now_ns(), end = r->start_mono + c->warmup_ns + c->duration_ns;

        mpi_set_deadline(r->m, (end > now ? end : now) + c->timeout_ns + SLACK_NS);
    }
    if (r->rank == 0 && !(ends = calloc((size_t)r->size, sizeof *ends))) {
        rc = PC_EXIT_RUNTIME;
        goto out;
    }
    if (mpi_gather(r->m, &me, sizeof me, ends) < 0) {
        fprintf(stderr, "pacer: MPI_Gather failed\n");
        rc = PC_EXIT_RUNTIME;
        goto out;
    }
    if (finish_live(r, ends) < 0) {
        fprintf(stderr, "pacer: rank %d: MPI: the live progress's messages did not come\n", r->rank);
        rc = PC_EXIT_RUNTIME;
        goto out;
    }
    if (r->rank == 0) {
        lens = calloc((size_t)r->size, sizeof *lens);
        for (int k = 0; lens && k < r->size; k++)
            total += (lens[k] = ends[k].len);
        all = lens ? malloc(total + 1) : NULL;
    }
    if (mpi_gatherv(r->m, text ? text : "", len, all, lens) < 0 ||
        gather_recs(r, res, ends, &recs) < 0) {
        fprintf(stderr, "pacer: MPI_Gatherv failed\n");
        rc = PC_EXIT_RUNTIME;
        goto out;
    }
    rc = me.code;
    if (r->rank == 0) {
        all[total] = '\0';
        for (int k = 0; k < r->size; k++)
            if (!ends[k].len) {
                fprintf(stderr, "pacer: rank %d (%s) sent no result\n", k, r->hosts[k]);
                rc = PC_EXIT_RUNTIME;
            }
        if (rc == PC_EXIT_OK || total)
            rc = total && rc == PC_EXIT_OK ? report_merged(r, ends, all, &recs) : rc;
    }
out:
    free(recs);
    free(text);
    free(all);
    free(lens);
    free(ends);
    return rc;
}

static int m_finished(void *ud, const pc_results *res)
{
    mrun *r = ud;
    char err[512] = "";
    int code = PC_EXIT_OK;

    if (!r->started) {
        /* A signal while it connected ended the run before START: the
         * others hear it there (as for any rank that cannot start), not at
         * END, which they will never come to. Nothing was sent. */
        mrun_fail_before_start(r, "was stopped by a signal while connecting");
        return r->code = pc_exit_failed(res->signal, false);
    }
    if (outputs_finish(r->outs, &r->local, res, err, sizeof err) < 0) {
        fprintf(stderr, "pacer: rank %d: %s\n", r->rank, err);
        code = PC_EXIT_RUNTIME;
    }
    r->code = end_exchange(r, code, res);
    return r->code;
}

/* The whole run as rank 0 reports it: the shares added back. */
static void whole_desc(mrun *r)
{
    const pc_config *cfg = r->cfg;

    rundesc_of(&r->local, cfg);
    r->whole = r->local;
    r->whole.threads = shard_workers(cfg);
    r->whole.connections = cfg->shard.total_connections;
    r->whole.requests = cfg->shard.total_requests;
    r->whole.rate = cfg->shard.total_rate;
    r->whole.shard_count = 0;
    r->whole.shard_index = 0;
    r->whole_cfg = *cfg;
    r->whole_cfg.threads = shard_workers(cfg);
    r->whole_cfg.connections = cfg->shard.total_connections;
    r->whole_cfg.requests = cfg->shard.total_requests;
    r->whole_cfg.rate = cfg->shard.total_rate;
    if (r->rank != 0)
        r->whole_cfg.progress = PC_PROGRESS_OFF;
}

/* A failure on this rank before the run: said on its stderr, and passed
 * to the others through START so that none waits for it. */
int mrun_fail_before_start(mrun *r, const char *why)
{
    char err[512];
    uint64_t at = 0;

    /* Rank 0 names the failed rank (itself included) once START is done. */
    if (why[0] != '(' && r->rank != 0)
        fprintf(stderr, "pacer: rank %d: %s\n", r->rank, why);
    if (!r->started && start_exchange(r, false, 0, 0, why, &at, err, sizeof err) < 0 &&
        r->rank == 0 && !strstr(err, "MPI"))
        fprintf(stderr, "pacer: %s\n", err);
    return PC_EXIT_RUNTIME;
}

/* Join the MPI job: this rank, the job's size, room for each rank's host
 * and clock (NULL when out of memory: the caller says so). -1 with err set
 * when MPI cannot start. */
int mrun_open(mrun *r, char *err, size_t errlen)
{
    if (mpi_start(&r->m, err, errlen) < 0)
        return -1;
    r->rank = mpi_rank(r->m);
    r->size = mpi_size(r->m);
    r->hosts = calloc((size_t)r->size, sizeof *r->hosts);
    r->clock_us = calloc((size_t)r->size, sizeof *r->clock_us);
    r->clock_err_us = calloc((size_t)r->size, sizeof *r->clock_err_us);
    return 0;
}

int mpi_run_main(pc_config *cfg)
{
    mrun r = {.cfg = cfg};
    char err[512], pool[OWN_FILES][4096];
    wf_steps st = {.ud = &r, .prepared = m_prepared, .starting = m_starting,
                   .finished = m_finished};
    pc_results res;
    int code;

    if (mrun_open(&r, err, sizeof err) < 0) {
        fprintf(stderr, "pacer: %s\n", err);
        return PC_EXIT_USAGE;
    }
    r.text = cli_text_stream(cfg);
    if (open_merged(&r, &cfg->out) < 0) {
        code = PC_EXIT_RUNTIME;
        goto out;
    }
    if (!r.hosts || !r.clock_us) {
        code = mrun_fail_before_start(&r, "out of memory");
        goto out;
    }
    if (cfg->shard.count) {
        code = mrun_fail_before_start(&r, "--shard is mpirun's to give (rank/size): drop it");
        goto out;
    }
    if (shard_apply(cfg, (uint32_t)r.rank, (uint32_t)r.size, err, sizeof err) < 0) {
        code = mrun_fail_before_start(&r, err);
        goto out;
    }
    own_outputs(&r, pool);
    whole_desc(&r);
    /* The live progress is rank 0's merged one (live.h), not the engine's. */
    r.live = mlive_new(r.m, r.rank, r.size, &r.whole_cfg, &res);
    cfg->progress = PC_PROGRESS_OFF;
    if (r.rank == 0 && cfg->metrics.listen) {
        /* Rank 0 serves the whole run's figures: the live merge's, then the
         * merged report's (docs/output.md, Live metrics). */
        if (!r.live) {
            code = mrun_fail_before_start(&r, "out of memory");
            goto out;
        }
        if (om_start(&r.om, &r.whole_cfg, &res, err, sizeof err) < 0) {
            fprintf(stderr, "pacer: %s\n", err);
            code = mrun_fail_before_start(&r, "(could not serve --metrics-listen: see above)");
            goto out;
        }
        mlive_set_metrics(r.live, r.om);
        r.whole.run_id = om_run_id(r.om);
    }
    /* The server's cost is read once, by rank 0; the merge keeps its. */
    if (r.rank != 0)
        memset(&cfg->srv, 0, sizeof cfg->srv);
    code = wf_run_seq(cfg, &st, &res);
    om_stop(r.om); /* the report is out */
    r.om = NULL;
    results_free(&res);
    if (!r.started) {
        /* It failed before its connections opened (its stderr says why). */
        code = mrun_fail_before_start(&r, "(failed before the start: see its error above)");
        goto out;
    }
out:
    om_stop(r.om);
    close_merged(&r);
    outputs_free(r.outs);
    mlive_free(r.live);
    free(r.hosts);
    free(r.clock_us);
    mpi_end(r.m);
    return code;
}

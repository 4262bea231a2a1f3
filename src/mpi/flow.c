/*
 * flow.c - pacer compare, capacity and suite under mpirun (see run.h):
 * every run of the workflow is one distributed run (wf_dist's hooks),
 * whose merged results every rank gets, so that every rank takes the
 * same next step; rank 0 writes the workflow's files, and with
 * --per-rank every rank then replays the workflow from its own results
 * to write its own files beside them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dist/shard.h"
#include "engine/engine.h"
#include "mpi/glue.h"
#include "mpi/mrun.h"
#include "mpi/run.h"
#include "report/merge.h"
#include "report/json_out.h"
#include "report/rundesc.h"
#include "util/clock.h"
#include "workflow/workflow.h"

static int wf_shard(void *ud, pc_config *cfg, char *err, size_t errlen)
{
    mrun *r = ud;

    r->cfg = cfg;
    r->started = false;
    r->recorded = false;
    if (r->rank != 0)
        cfg->progress = PC_PROGRESS_OFF;
    return shard_apply(cfg, (uint32_t)r->rank, (uint32_t)r->size, err, errlen) < 0 ? -1 : 0;
}

static void wf_prepared(void *ud, pc_engine *eng)
{
    engine_set_start_hook(eng, mrun_on_connected, ud);
}

/* --per-rank: doc (len bytes, NULL: the run failed) is this rank's own
 * result of the run in progress; the record takes it. -ENOMEM. */
static int record_doc(mrun *r, char *doc, size_t len)
{
    if (r->ndocs == r->capdocs) {
        size_t cap = r->capdocs ? 2 * r->capdocs : 8;
        char **d = realloc(r->docs, cap * sizeof *d);
        size_t *l = d ? realloc(r->doc_lens, cap * sizeof *l) : NULL;

        if (d)
            r->docs = d;
        if (!l)
            return -ENOMEM;
        r->doc_lens = l;
        r->capdocs = cap;
    }
    r->docs[r->ndocs] = doc;
    r->doc_lens[r->ndocs++] = len;
    r->recorded = true;
    return 0;
}

/* Every rank's results (as JSON, the lossless writer) to every rank, merged
 * there: each rank then takes the same next step. */
static int wf_merge(void *ud, const pc_config *cfg, pc_results *res, char *err, size_t errlen)
{
    mrun *r = ud;
    pc_rundesc d;
    pc_loaded m;
    char *text = NULL, *all = NULL, name[32];
    size_t len = 0, total = 0, at = 0, *lens = calloc((size_t)r->size, sizeof *lens);
    uint64_t mine, *lens64 = calloc((size_t)r->size, sizeof *lens64);
    FILE *f = open_memstream(&text, &len);
    const char *stopped_by = res->stopped_by;
    int sig = res->signal, rc = -1;

    memset(&m, 0, sizeof m);
    if (!r->started) {
        /* Stopped by a signal while connecting: START tells the others
         * (they wait there, not here). */
        mrun_fail_before_start(r, "was stopped by a signal while connecting");
        snprintf(err, errlen, "stopped before the start");
        goto out;
    }
    rundesc_of(&d, cfg);
    if (!lens || !lens64 || !f || report_json(f, &d, res, NULL) < 0 || fclose(f) != 0) {
        f = NULL;
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    f = NULL;
    mine = len;
    mpi_set_deadline(r->m, pc_now_ns() + cfg->timeout_ns + SLACK_NS);
    if (mpi_allgather(r->m, &mine, sizeof mine, lens64) < 0)
        goto mpi_failed;
    for (int k = 0; k < r->size; k++)
        total += (lens[k] = (size_t)lens64[k]);
    if (!(all = malloc(total + 1)) || mpi_allgatherv(r->m, text, len, all, lens) < 0)
        goto mpi_failed;
    for (int k = 0; k < r->size; k++) {
        pc_loaded one;

        snprintf(name, sizeof name, "rank %d", k);
        if (k == 0 ? merge_load_text(name, all, lens[0], &m, err, errlen) < 0
                   : merge_load_text(name, all + at, lens[k], &one, err, errlen) < 0 ||
                         merge_add(&m, &one, err, errlen) < 0) {
            if (k)
                merge_free(&one);
            goto out;
        }
        if (k)
            merge_free(&one);
        at += lens[k];
    }
    if (r->per_rank) {
        if (record_doc(r, text, mine) < 0) {
            snprintf(err, errlen, "out of memory");
            goto out;
        }
        text = NULL;
    }
    results_free(res);
    *res = m.res;
    memset(&m.res, 0, sizeof m.res);
    res->stopped_by = stopped_by;
    res->signal = sig;
    rc = 0;
    goto out;
mpi_failed:
    snprintf(err, errlen, "MPI: cannot exchange the ranks' results");
out:
    if (f)
        fclose(f);
    merge_free(&m);
    free(text);
    free(all);
    free(lens);
    free(lens64);
    return rc;
}

static void wf_ended(void *ud)
{
    mrun *r = ud;

    if (!r->started)
        mrun_fail_before_start(r, "(failed before the start: see its error above)");
    r->started = false;
    if (r->per_rank && !r->recorded)
        record_doc(r, NULL, 0); /* out of memory: the replay says it ran out */
}

/* The workflow's rank 0 decisions (pacer capacity's steps) to every rank. */
static int wf_agree_hook(void *ud, void *buf, size_t len, uint64_t wait_ns)
{
    mrun *r = ud;

    mpi_set_deadline(r->m, pc_now_ns() + wait_ns + SLACK_NS);
    if (mpi_bcast(r->m, buf, len, 0) < 0) {
        fprintf(stderr, "pacer: rank %d: MPI_Bcast failed\n", r->rank);
        return -1;
    }
    return 0;
}

/* The replay (--per-rank): this rank's own result of the next run. */
static int wf_replay(void *ud, pc_results *res, char *err, size_t errlen)
{
    mrun *r = ud;
    pc_loaded l;
    size_t i = r->replayed++;

    if (i >= r->ndocs || !r->docs[i]) {
        snprintf(err, errlen, "rank %d: no result of its own for run %zu", r->rank, i + 1);
        return -1;
    }
    if (merge_load_text("this rank", r->docs[i], r->doc_lens[i], &l, err, errlen) < 0)
        return -1;
    *res = l.res;
    memset(&l.res, 0, sizeof l.res);
    merge_free(&l);
    return 0;
}

/* --per-rank: the workflow again, from this rank's own results, writing
 * its files under the rank's name (all.json -> all.rank-1.json); its text
 * goes nowhere. */
static int replay_own(mrun *r, int (*fn)(int argc, char **argv), int argc, char **argv)
{
    /* WF_FILES_RANK: each file describes this rank's share alone. */
    wf_dist d = {.ud = r, .replay = wf_replay, .rank = r->rank, .size = r->size,
                 .files = WF_FILES_RANK};
    int out = dup(STDOUT_FILENO), errfd = dup(STDERR_FILENO);
    int null = open("/dev/null", O_WRONLY), code;

    fflush(stdout);
    fflush(stderr);
    if (out < 0 || errfd < 0 || null < 0 || dup2(null, STDOUT_FILENO) < 0 ||
        dup2(null, STDERR_FILENO) < 0) {
        code = PC_EXIT_RUNTIME;
    } else {
        wf_set_dist(&d);
        code = fn(argc, argv);
        wf_set_dist(NULL);
    }
    fflush(stdout);
    fflush(stderr);
    if (out >= 0)
        dup2(out, STDOUT_FILENO);
    if (errfd >= 0)
        dup2(errfd, STDERR_FILENO);
    if (code == PC_EXIT_RUNTIME || code == PC_EXIT_USAGE)
        fprintf(stderr, "pacer: rank %d: its own files (--per-rank) could not be written\n",
                r->rank);
    if (out >= 0)
        close(out);
    if (errfd >= 0)
        close(errfd);
    if (null >= 0)
        close(null);
    return code;
}

int mpi_workflow_main(int (*fn)(int argc, char **argv), int argc, char **argv)
{
    mrun r = {.rank = 0};
    wf_dist d = {.ud = &r, .shard = wf_shard, .prepared = wf_prepared, .merge = wf_merge,
                 .ended = wf_ended, .agree = wf_agree_hook};
    char err[512], **args = calloc((size_t)argc + 1, sizeof *args);
    int code, n = 0;

    if (mrun_open(&r, err, sizeof err) < 0) {
        fprintf(stderr, "pacer: %s\n", err);
        free(args);
        return PC_EXIT_USAGE;
    }
    /* --per-rank is this layer's, not the workflow's. */
    for (int i = 0; args && i < argc; i++) {
        if (i > 0 && strcmp(argv[i], "--per-rank") == 0 && strcmp(argv[0], "capacity") != 0)
            r.per_rank = true;
        else
            args[n++] = argv[i];
    }
    d.rank = r.rank;
    d.size = r.size;
    d.files = r.rank == 0 ? WF_FILES_NAMED : WF_FILES_NONE;
    if (!args || !r.hosts || !r.clock_us || !r.clock_err_us ||
        (r.rank != 0 && !freopen("/dev/null", "w", stdout))) {
        fprintf(stderr, "pacer: rank %d: out of memory\n", r.rank);
        code = PC_EXIT_RUNTIME;
    } else {
        wf_set_dist(&d);
        code = fn(n, args);
        wf_set_dist(NULL);
        if (r.per_rank && r.ndocs) {
            int own = replay_own(&r, fn, n, args);

            if (code == PC_EXIT_OK && (own == PC_EXIT_RUNTIME || own == PC_EXIT_USAGE))
                code = PC_EXIT_RUNTIME;
        }
    }
    for (size_t i = 0; i < r.ndocs; i++)
        free(r.docs[i]);
    free(r.docs);
    free(r.doc_lens);
    free(args);
    free(r.hosts);
    free(r.clock_us);
    free(r.clock_err_us);
    mpi_end(r.m);
    /* Rank 0 decides the verdict; the others report only their own failures. */
    if (r.rank != 0 && (code == PC_EXIT_SLO || code == PC_EXIT_NO_RESPONSE))
        code = PC_EXIT_OK;
    return code;
}

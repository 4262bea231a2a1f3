/*
 * mrun.h - one rank's state in a distributed run, shared by run.c (a
 * single run: `pacer URL`) and flow.c (the workflows). Not an API.
 */
#ifndef PACER_MPI_MRUN_H
#define PACER_MPI_MRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "mpi/glue.h"
#include "mpi/live.h"
#include "report/outputs.h"
#include "report/rundesc.h"

/* What a rank may be late to an exchange, beyond the run's own bounds,
 * before the job is aborted. */
#define SLACK_NS 10000000000ull
/* The files a run writes: --json --hgrm --html --hlog --csv -g -e */
#define MERGED_FILES 7
#define OWN_FILES MERGED_FILES

typedef struct mrun {
    pc_mpi *m;
    pc_config *cfg;
    int rank, size;
    bool started;          /* START done (whatever it said) */
    pc_output_opts user;   /* the files asked for: rank 0 writes them merged */
    FILE *mf[MERGED_FILES]; /* rank 0: the merged files, open before the start ... */
    char *mtmp[MERGED_FILES]; /* ... as these temporaries (run.c's open_merged) */
    bool recs_only;        /* -g named for the engine's records, not opened here */
    pc_outputs *outs;
    pc_rundesc local;      /* this rank's share, as its own files say */
    pc_rundesc whole;      /* the whole run, as rank 0 reports it */
    pc_config whole_cfg;   /* ... and as the live progress shows it (rank 0) */
    mlive *live;           /* the live progress (live.h), or NULL */
    struct om_metrics *om; /* rank 0: --metrics-listen, fed the merged intervals (live.h) */
    FILE *text;
    char (*hosts)[64];
    double *clock_us;      /* rank 0: each rank's clock minus rank 0's */
    double *clock_err_us;  /* rank 0: ... within this much (half the best round trip) */
    int code;              /* rank 0: the merged run's exit code */
    uint64_t start_mono;   /* the agreed start on this host's monotonic clock */
    /* Workflows with --per-rank: this rank's own result of each run (its
     * JSON; NULL for a run that failed), replayed at the end. */
    bool per_rank;
    char **docs;
    size_t *doc_lens, ndocs, capdocs, replayed;
    bool recorded;         /* the run in progress has its entry */
} mrun;

/* Join the MPI job: this rank, the job's size, room for each rank's host
 * and clock (NULL when out of memory: the caller says so). -1 with err set
 * when MPI cannot start. */
int mrun_open(mrun *r, char *err, size_t errlen);

/* The engine's start hook (engine_set_start_hook, ud = the mrun): every
 * connection opened or given up on; START with the other ranks. */
int mrun_on_connected(void *ud, uint32_t opened, uint32_t total, const char *why, uint64_t *at,
                      char *err, size_t errlen);

/* A failure on this rank before the run: said on its stderr (unless why
 * starts with '('), and passed to the others through START so that none
 * waits for it. Returns PC_EXIT_RUNTIME. */
int mrun_fail_before_start(mrun *r, const char *why);

#endif

/*
 * live.h - the live progress of a run under mpirun, merged on rank 0.
 *
 * Each rank's engine hands its intervals (--interval) to mlive_on_interval
 * on its main thread, which is MPI's thread (MPI_THREAD_FUNNELED): the
 * load threads never wait for MPI. The other ranks send each interval to
 * rank 0 (a small message, non-blocking); rank 0, at each of its own
 * intervals, takes what has come, waits at most LIVE_WAIT (100 ms, or a
 * tenth of the interval) for the ranks whose same interval has not, and
 * shows the sum as one progress line, labelled with how many ranks it
 * holds ("3/3 ranks"; a rank later than that is left out of that line,
 * which says so, and never of the report; so are --metrics-listen's live
 * totals, until the run's merged ones replace them). At the end every message sent
 * is received (mlive_finish), so none is left in flight.
 */
#ifndef PACER_MPI_LIVE_H
#define PACER_MPI_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "mpi/glue.h"
#include "stats/interval.h"
#include "stats/results.h"

typedef struct mlive mlive;

/* For this rank of size. On rank 0, whole is the whole run's config (its
 * rate, requests, connections: the progress line's targets) and res the
 * results the engine fills; the line is shown when progress_wanted(whole).
 * NULL when out of memory. */
mlive *mlive_new(pc_mpi *m, int rank, int size, const pc_config *whole, const pc_results *res);

/* Whether rank 0 shows the line (rank 0 only: the others learn it at the
 * start through mlive_set_on). */
bool mlive_wanted(const mlive *l);
void mlive_set_on(mlive *l, bool on);

/* Rank 0: also hand each merged interval to om (--metrics-listen,
 * report/openmetrics.h), which turns the merge on even without the line. */
struct om_metrics;
void mlive_set_metrics(mlive *l, struct om_metrics *om);

/* The engine's interval sink (ud = the mlive), at cfg->interval_ns. */
void mlive_on_interval(void *ud, const pc_interval *iv);

/* The intervals this rank has sent to rank 0. */
uint64_t mlive_sent(const mlive *l);

/* After the run: rank 0 receives what every rank k sent (sent[k], from
 * mlive_sent on that rank) and erases the line; the other ranks wait for
 * their sends to complete (sent unused). 0 or a negative errno (MPI
 * failed; the job is aborted past the deadline). */
int mlive_finish(mlive *l, const uint64_t *sent);

/* Free (NULL is fine). */
void mlive_free(mlive *l);

#endif

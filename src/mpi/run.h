/*
 * run.h - `pacer [options] URL` started by mpirun: every rank runs its
 * share of one run (rank/size as --shard), they start together, and rank 0
 * merges what all of them measured into one report (docs/distributed.md).
 */
#ifndef PACER_MPI_RUN_H
#define PACER_MPI_RUN_H

#include "config.h"

/* Run cfg (parsed, not yet sharded) as this rank's share. Rank 0 prints
 * the merged report, writes the files and returns the run's exit code;
 * the other ranks print nothing (--per-rank: their own files) and return
 * 0 unless they failed themselves. A rank that cannot start (no
 * connection, a setup error) stops every rank before load is sent, and
 * rank 0 names it. Returns 2 when MPI cannot be used (built without it). */
int mpi_run_main(pc_config *cfg);

/* A workflow (compare_main, capacity_main, suite_main) under mpirun
 * (flow.c): each of its runs is one distributed run (every rank its share,
 * started together), and every rank gets the merged results, so that every
 * rank takes the same next step (capacity: rank 0 decides each step and
 * the others run what it orders); only rank 0's standard output is kept
 * and only rank 0 writes the workflow's files. "--per-rank" in argv
 * (compare, suite) is taken out here: each rank then also writes its own
 * files from its own results beside them (all.json -> all.rank-1.json).
 * Returns fn's exit code (rank 0: the workflow's). */
int mpi_workflow_main(int (*fn)(int argc, char **argv), int argc, char **argv);

#endif

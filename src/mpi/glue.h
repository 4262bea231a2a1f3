/*
 * glue.h - the few MPI calls a distributed run needs, from Open MPI's
 * libmpi loaded at run time (dlopen) and only when mpirun started pacer:
 * a plain run never loads or initialises MPI. Every call is on the main
 * thread (MPI_THREAD_FUNNELED). All data travels as bytes (MPI_BYTE).
 *
 * Built without MPI (make MPI=0, or no Open MPI headers at build time),
 * mpi_start fails with -ENOTSUP and says so.
 */
#ifndef PACER_MPI_GLUE_H
#define PACER_MPI_GLUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pc_mpi pc_mpi;

/* Whether an MPI launcher started this process (Open MPI's mpirun sets
 * OMPI_COMM_WORLD_SIZE; PMIx launchers such as srun set PMIX_RANK). Only
 * reads the environment. */
bool mpi_launched(void);

/* Load libmpi, MPI_Init_thread, learn rank and size. 0, or a negative
 * errno with one line in err: -ENOTSUP built without MPI, -ENOENT libmpi
 * cannot be loaded (PACER_LIBMPI names another file), -EPROTO MPI failed.
 * *out is NULL on failure. */
int mpi_start(pc_mpi **out, char *err, size_t errlen);

int mpi_rank(const pc_mpi *m);
int mpi_size(const pc_mpi *m);
/* This host's name as MPI knows it. */
const char *mpi_host(const pc_mpi *m);

/* Collectives over every rank (each must call them in the same order).
 * Return 0 or -EPROTO. Each waits at most until the deadline (see
 * mpi_set_deadline): past it, a rank has not come (stuck, or gone without
 * mpirun noticing), and this rank says so in one line and aborts the whole
 * job (MPI_Abort: mpirun ends every rank, exit status 1). */
/* The deadline of the collectives from now on: monotonic ns (util/clock.h),
 * 0 for none. */
void mpi_set_deadline(pc_mpi *m, uint64_t mono_ns);
int mpi_barrier(pc_mpi *m);
/* every rank's len bytes, in rank order, into all (size * len bytes) on every rank */
int mpi_allgather(pc_mpi *m, const void *mine, size_t len, void *all);
/* root's len bytes into buf on every rank */
int mpi_bcast(pc_mpi *m, void *buf, size_t len, int root);
/* every rank's len bytes into all (size * len) on rank 0 (all unused elsewhere) */
int mpi_gather(pc_mpi *m, const void *mine, size_t len, void *all);
/* every rank's len bytes, lens[i] each (known on rank 0), one after the
 * other into all on rank 0 */
int mpi_gatherv(pc_mpi *m, const void *mine, size_t len, void *all, const size_t *lens);

/* every rank's len bytes, lens[i] each (known on every rank), one after
 * the other into all on every rank */
int mpi_allgatherv(pc_mpi *m, const void *mine, size_t len, void *all, const size_t *lens);

/* Point to point, for the live progress (messages in order per sender
 * and tag). mpi_send_start: a copy of nothing: buf must stay until the
 * send is done; *req is this send's handle. mpi_send_done: 1 when the send
 * is complete (*req freed and NULL), 0 while it is not; with wait, waits
 * for it until the deadline (see mpi_set_deadline). mpi_probe: 1 with the
 * sender and length of a message with tag that has come, 0 when none has.
 * mpi_recv: that message into buf (len bytes), waited for until the
 * deadline. Each returns a negative errno on failure. */
int mpi_send_start(pc_mpi *m, const void *buf, size_t len, int dest, int tag, void **req);
int mpi_send_done(pc_mpi *m, void **req, bool wait);
int mpi_probe(pc_mpi *m, int tag, int *source, size_t *len);
int mpi_recv(pc_mpi *m, void *buf, size_t len, int source, int tag);

/* MPI_Finalize and unload; m is freed. */
void mpi_end(pc_mpi *m);

#endif

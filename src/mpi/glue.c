/*
 * glue.c - see glue.h.
 *
 * Why dlopen and not a link to libmpi: libmpi pulls in Open MPI's runtime
 * (PMIx, hwloc, libevent, ...) at every start of the process, and a plain
 * `pacer URL` must pay nothing for a feature it does not use. The handles
 * MPI_COMM_WORLD and MPI_BYTE are, in Open MPI, the addresses of the
 * objects ompi_mpi_comm_world and ompi_mpi_byte, which dlsym gives.
 * libmpi is opened RTLD_GLOBAL: its own plugins resolve symbols in it.
 */
#include "mpi/glue.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool mpi_launched(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK");
}

#ifndef PACER_MPI

int mpi_start(pc_mpi **out, char *err, size_t errlen)
{
    *out = NULL;
    snprintf(err, errlen, "started by an MPI launcher, but this pacer was built without MPI "
                          "(install libopenmpi-dev and rebuild: scripts/deps.sh build)");
    return -ENOTSUP;
}
int mpi_rank(const pc_mpi *m) { (void)m; return 0; }
int mpi_size(const pc_mpi *m) { (void)m; return 1; }
const char *mpi_host(const pc_mpi *m) { (void)m; return ""; }
void mpi_set_deadline(pc_mpi *m, uint64_t t) { (void)m; (void)t; }
int mpi_barrier(pc_mpi *m) { (void)m; return -EPROTO; }
int mpi_allgather(pc_mpi *m, const void *a, size_t n, void *b) { (void)m; (void)a; (void)n; (void)b; return -EPROTO; }
int mpi_bcast(pc_mpi *m, void *b, size_t n, int r) { (void)m; (void)b; (void)n; (void)r; return -EPROTO; }
int mpi_gather(pc_mpi *m, const void *a, size_t n, void *b) { (void)m; (void)a; (void)n; (void)b; return -EPROTO; }
int mpi_gatherv(pc_mpi *m, const void *a, size_t n, void *b, const size_t *l) { (void)m; (void)a; (void)n; (void)b; (void)l; return -EPROTO; }
int mpi_allgatherv(pc_mpi *m, const void *a, size_t n, void *b, const size_t *l) { (void)m; (void)a; (void)n; (void)b; (void)l; return -EPROTO; }
int mpi_send_start(pc_mpi *m, const void *b, size_t n, int d, int t, void **r) { (void)m; (void)b; (void)n; (void)d; (void)t; *r = NULL; return -EPROTO; }
int mpi_send_done(pc_mpi *m, void **r, bool w) { (void)m; (void)r; (void)w; return -EPROTO; }
int mpi_probe(pc_mpi *m, int t, int *s, size_t *n) { (void)m; (void)t; *s = 0; *n = 0; return -EPROTO; }
int mpi_recv(pc_mpi *m, void *b, size_t n, int s, int t) { (void)m; (void)b; (void)n; (void)s; (void)t; return -EPROTO; }
void mpi_end(pc_mpi *m) { (void)m; }

#else

#include <dlfcn.h>
#include <mpi.h>
#include <time.h>

#include "util/clock.h"
#include "util/file.h"

/* The handles are pointers in Open MPI's ABI, which this file relies on. */
_Static_assert(sizeof(MPI_Comm) == sizeof(void *), "Open MPI's MPI_Comm is a pointer");
_Static_assert(sizeof(MPI_Datatype) == sizeof(void *), "Open MPI's MPI_Datatype is a pointer");
_Static_assert(sizeof(MPI_Request) == sizeof(void *), "Open MPI's MPI_Request is a pointer");

#ifndef PACER_LIBMPI
#define PACER_LIBMPI "libmpi.so.40"
#endif

struct pc_mpi {
    void *lib;
    MPI_Comm world;
    MPI_Datatype byte;
    int rank, size;
    char host[MPI_MAX_PROCESSOR_NAME + 1];
    int (*init_thread)(int *, char ***, int, int *);
    int (*comm_rank)(MPI_Comm, int *);
    int (*comm_size)(MPI_Comm, int *);
    int (*processor_name)(char *, int *);
    /* The non-blocking collectives, waited for with a deadline. */
    int (*barrier)(MPI_Comm, MPI_Request *);
    int (*allgather)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm,
                     MPI_Request *);
    int (*bcast)(void *, int, MPI_Datatype, int, MPI_Comm, MPI_Request *);
    int (*gather)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm,
                  MPI_Request *);
    int (*gatherv)(const void *, int, MPI_Datatype, void *, const int *, const int *, MPI_Datatype,
                   int, MPI_Comm, MPI_Request *);
    int (*allgatherv)(const void *, int, MPI_Datatype, void *, const int *, const int *,
                      MPI_Datatype, MPI_Comm, MPI_Request *);
    int (*test)(MPI_Request *, int *, MPI_Status *);
    int (*isend)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    int (*irecv)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
    int (*iprobe)(int, int, MPI_Comm, int *, MPI_Status *);
    int (*get_count)(const MPI_Status *, MPI_Datatype, int *);
    int (*abort_job)(MPI_Comm, int);
    int (*finalize)(void);
    uint64_t deadline; /* monotonic ns; 0: none */
};

/* dlsym into *slot (a function or an object's address); false when missing. */
static bool sym(pc_mpi *m, const char *name, void *slot)
{
    void *p = dlsym(m->lib, name);

    memcpy(slot, &p, sizeof p);
    return p != NULL;
}

int mpi_start(pc_mpi **out, char *err, size_t errlen)
{
    const char *path = getenv("PACER_LIBMPI") ? getenv("PACER_LIBMPI") : PACER_LIBMPI;
    pc_mpi *m = calloc(1, sizeof *m);
    void *world = NULL, *byte = NULL;
    int provided = 0, len = 0, argc = 0;
    char **argv = NULL;

    *out = NULL;
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    m->lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!m->lib) {
        snprintf(err, errlen, "started by an MPI launcher, but Open MPI cannot be loaded: %s "
                              "(install openmpi-bin, or run without mpirun)",
                 dlerror());
        free(m);
        return -ENOENT;
    }
    if (!sym(m, "MPI_Init_thread", &m->init_thread) || !sym(m, "MPI_Comm_rank", &m->comm_rank) ||
        !sym(m, "MPI_Comm_size", &m->comm_size) ||
        !sym(m, "MPI_Get_processor_name", &m->processor_name) ||
        !sym(m, "MPI_Ibarrier", &m->barrier) || !sym(m, "MPI_Iallgather", &m->allgather) ||
        !sym(m, "MPI_Ibcast", &m->bcast) || !sym(m, "MPI_Igather", &m->gather) ||
        !sym(m, "MPI_Igatherv", &m->gatherv) || !sym(m, "MPI_Iallgatherv", &m->allgatherv) ||
        !sym(m, "MPI_Test", &m->test) || !sym(m, "MPI_Isend", &m->isend) ||
        !sym(m, "MPI_Irecv", &m->irecv) || !sym(m, "MPI_Iprobe", &m->iprobe) ||
        !sym(m, "MPI_Get_count", &m->get_count) ||
        !sym(m, "MPI_Abort", &m->abort_job) || !sym(m, "MPI_Finalize", &m->finalize) ||
        !sym(m, "ompi_mpi_comm_world", &world) || !sym(m, "ompi_mpi_byte", &byte)) {
        snprintf(err, errlen, "%s is not the Open MPI pacer was built for (a symbol is missing)",
                 path);
        dlclose(m->lib);
        free(m);
        return -ENOENT;
    }
    m->world = (MPI_Comm)world;
    m->byte = (MPI_Datatype)byte;
    if (m->init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS ||
        m->comm_rank(m->world, &m->rank) != MPI_SUCCESS ||
        m->comm_size(m->world, &m->size) != MPI_SUCCESS) {
        snprintf(err, errlen, "MPI_Init_thread failed");
        free(m);
        return -EPROTO;
    }
    if (m->processor_name(m->host, &len) != MPI_SUCCESS)
        snprintf(m->host, sizeof m->host, "?");
    *out = m;
    return 0;
}

int mpi_rank(const pc_mpi *m)
{
    return m->rank;
}

int mpi_size(const pc_mpi *m)
{
    return m->size;
}

const char *mpi_host(const pc_mpi *m)
{
    return m->host;
}

void mpi_set_deadline(pc_mpi *m, uint64_t mono_ns)
{
    m->deadline = mono_ns;
}

/* Wait for a started collective, polling until the deadline: every 100 us
 * for the first 10 ms, then every millisecond (a rank that is done early
 * must not take CPU from ranks on its host that still run); past the
 * deadline, abort the job (MPI has no collective with a timeout of its
 * own). */
static int wait_for(pc_mpi *m, int rc, MPI_Request *req)
{
    struct timespec nap = {0, 100000};
    int done = 0, polls = 0;

    if (rc != MPI_SUCCESS)
        return -EPROTO;
    for (;;) {
        if (m->test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -EPROTO;
        if (done)
            return 0;
        if (m->deadline && pc_now_ns() > m->deadline) {
            fprintf(stderr, "pacer: rank %d: not every rank came to the exchange in time (one "
                            "is stuck or gone): aborting the job\n",
                    m->rank);
            pc_tmp_remove_all(); /* MPI_Abort does not return: nothing else removes them */
            m->abort_job(m->world, 1);
            return -ETIMEDOUT;
        }
        if (++polls == 100)
            nap.tv_nsec = 1000000;
        nanosleep(&nap, NULL);
    }
}

int mpi_barrier(pc_mpi *m)
{
    MPI_Request r;

    return wait_for(m, m->barrier(m->world, &r), &r);
}

int mpi_allgather(pc_mpi *m, const void *mine, size_t len, void *all)
{
    MPI_Request r;

    if (len > INT_MAX / (size_t)m->size)
        return -E2BIG; /* small messages only: MPI counts are int */

    return wait_for(m, m->allgather(mine, (int)len, m->byte, all, (int)len, m->byte, m->world, &r),
                    &r);
}

int mpi_bcast(pc_mpi *m, void *buf, size_t len, int root)
{
    MPI_Request r;

    if (len > INT_MAX / (size_t)m->size)
        return -E2BIG; /* small messages only: MPI counts are int */

    return wait_for(m, m->bcast(buf, (int)len, m->byte, root, m->world, &r), &r);
}

int mpi_gather(pc_mpi *m, const void *mine, size_t len, void *all)
{
    MPI_Request r;

    if (len > INT_MAX / (size_t)m->size)
        return -E2BIG; /* small messages only: MPI counts are int */

    return wait_for(m, m->gather(mine, (int)len, m->byte, all, (int)len, m->byte, 0, m->world, &r),
                    &r);
}

/* One MPI_Gatherv (counts and displacements are int: the caller keeps
 * every one under INT_MAX). */
static int gatherv_once(pc_mpi *m, const void *mine, int len, void *all, const int *counts,
                        const int *displs)
{
    MPI_Request r;

    return wait_for(m, m->gatherv(mine, len, m->byte, all, counts, displs, m->byte, 0, m->world, &r),
                    &r);
}

/* Of a rank's len bytes, how many round j (of cap bytes a rank) moves. */
static size_t piece(size_t len, uint64_t j, size_t cap)
{
    size_t at = (size_t)j * cap;

    return len > at ? (len - at < cap ? len - at : cap) : 0;
}

/* A gather bigger than MPI's int counts and displacements allow (over
 * 2 GiB in all: an hour of per-request records from a few ranks) goes in
 * rounds of at most GATHER_ROUND bytes, every rank's next piece at a time,
 * through a buffer on rank 0; PACER_MPI_ROUND=N (for tests) forces rounds
 * of N bytes. Rank 0 says how many rounds, and how big a rank's piece. */
#define GATHER_ROUND (256u << 20)

int mpi_gatherv(pc_mpi *m, const void *mine, size_t len, void *all, const size_t *lens)
{
    const char *knob = getenv("PACER_MPI_ROUND");
    uint64_t plan[2] = {1, 0}; /* rounds; bytes a rank a round (0: all in one call) */
    int *counts = NULL, *displs = NULL, rc;
    size_t *off = NULL, round = knob ? strtoull(knob, NULL, 10) : 0;
    char *buf = all;

    if (m->rank == 0) {
        size_t total = 0, most = 0;

        for (int i = 0; i < m->size; i++) {
            total += lens[i];
            most = lens[i] > most ? lens[i] : most;
        }
        if (!round && total > INT_MAX)
            round = GATHER_ROUND;
        if (round) {
            plan[1] = round / (size_t)m->size ? round / (size_t)m->size : 1;
            plan[0] = most ? (most + plan[1] - 1) / plan[1] : 1;
        }
    }
    if ((rc = mpi_bcast(m, plan, sizeof plan, 0)) < 0)
        return rc;
    if (m->rank == 0) {
        rc = -ENOMEM;
        counts = calloc((size_t)m->size, sizeof *counts);
        displs = calloc((size_t)m->size, sizeof *displs);
        off = calloc((size_t)m->size, sizeof *off);
        if (plan[1] && !(buf = malloc((size_t)plan[1] * (size_t)m->size)))
            goto out;
        if (!counts || !displs || !off)
            goto out;
        for (int i = 1; i < m->size; i++)
            off[i] = off[i - 1] + lens[i - 1];
        rc = 0;
    }
    for (uint64_t j = 0; j < plan[0] && rc == 0; j++) {
        size_t mine_j = plan[1] ? piece(len, j, plan[1]) : len;
        int at = 0;

        for (int i = 0; m->rank == 0 && i < m->size; i++) {
            counts[i] = (int)(plan[1] ? piece(lens[i], j, plan[1]) : lens[i]);
            displs[i] = at;
            at += counts[i];
        }
        rc = gatherv_once(m, (const char *)mine + (mine_j ? (size_t)j * plan[1] : 0), (int)mine_j,
                          buf, counts, displs);
        for (int i = 0; rc == 0 && plan[1] && m->rank == 0 && i < m->size; i++)
            memcpy((char *)all + off[i] + (size_t)j * plan[1], buf + displs[i], (size_t)counts[i]);
    }
out:
    if (buf != all)
        free(buf);
    free(counts);
    free(displs);
    free(off);
    return rc;
}

int mpi_allgatherv(pc_mpi *m, const void *mine, size_t len, void *all, const size_t *lens)
{
    int *counts = calloc((size_t)m->size, sizeof *counts);
    int *displs = calloc((size_t)m->size, sizeof *displs);
    size_t at = 0;
    MPI_Request r;
    int rc = -ENOMEM;

    if (counts && displs) {
        for (int i = 0; i < m->size; i++) {
            counts[i] = (int)lens[i];
            displs[i] = (int)at;
            at += lens[i];
        }
        rc = wait_for(m, m->allgatherv(mine, (int)len, m->byte, all, counts, displs, m->byte,
                                       m->world, &r),
                      &r);
    }
    free(counts);
    free(displs);
    return rc;
}

int mpi_send_start(pc_mpi *m, const void *buf, size_t len, int dest, int tag, void **req)
{
    MPI_Request *r = malloc(sizeof *r);

    *req = NULL;
    if (!r)
        return -ENOMEM;
    if (m->isend(buf, (int)len, m->byte, dest, tag, m->world, r) != MPI_SUCCESS) {
        free(r);
        return -EPROTO;
    }
    *req = r;
    return 0;
}

int mpi_send_done(pc_mpi *m, void **req, bool wait)
{
    MPI_Request *r = *req;
    int done = 0, rc = 0;

    if (!r)
        return 1;
    if (wait)
        rc = wait_for(m, MPI_SUCCESS, r);
    else if (m->test(r, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        rc = -EPROTO;
    if (rc < 0)
        return rc;
    if (!wait && !done)
        return 0;
    free(r);
    *req = NULL;
    return 1;
}

int mpi_probe(pc_mpi *m, int tag, int *source, size_t *len)
{
    MPI_Status st;
    int flag = 0, n = 0;

    if (m->iprobe(MPI_ANY_SOURCE, tag, m->world, &flag, &st) != MPI_SUCCESS)
        return -EPROTO;
    if (!flag)
        return 0;
    if (m->get_count(&st, m->byte, &n) != MPI_SUCCESS || n < 0)
        return -EPROTO;
    *source = st.MPI_SOURCE;
    *len = (size_t)n;
    return 1;
}

int mpi_recv(pc_mpi *m, void *buf, size_t len, int source, int tag)
{
    MPI_Request r;

    return wait_for(m, m->irecv(buf, (int)len, m->byte, source, tag, m->world, &r), &r);
}

void mpi_end(pc_mpi *m)
{
    if (!m)
        return;
    m->finalize();
    /* libmpi stays loaded: its threads and atexit handlers may still run. */
    free(m);
}

#endif

/*
 * srvm.h - the server's cost, sampled beside a run: the server's own
 * processes through /proc (--server-pid) and the server host's Prometheus
 * exporters over HTTP (--server-metrics: prometheus-node-exporter,
 * prometheus-process-exporter).
 *
 * One thread of its own, never a load thread, takes a reading of every
 * source at the start (srvm_start, before any load is sent), one each
 * time srvm_tick is called (an interval ended; the call only signals) and
 * one at the end (srvm_finish). A source that is down, slow or serves
 * garbage costs at most its timeout, well under the interval, and leaves
 * its figures missing with the reason; the run goes on.
 */
#ifndef PACER_SRVM_SRVM_H
#define PACER_SRVM_SRVM_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "stats/server.h"

typedef struct srvm srvm;

/* Check a --server-pid or --server-metrics argument as the command line
 * takes it (a PID, a process name; an http://HOST[:PORT][/PATH] URL):
 * 0, or -EINVAL with one line in err. */
int srvm_check_pid(const char *arg, char *err, size_t errlen);
int srvm_check_url(const char *arg, char *err, size_t errlen);

/* Take the first reading of every source in o and start the sampler:
 * 0 with *out set, or -ENOMEM (*out NULL). interval_ns sets the timeout of
 * one reading (a third of it, at most 2 s). */
int srvm_start(srvm **out, const pc_server_opts *o, uint64_t interval_ns);

/* An interval ended: take a reading now. Only signals the sampler (a
 * mutex held for a few instructions); safe from the main thread's sinks. */
void srvm_tick(srvm *s);

/* Take the last reading, stop the thread and return the figures of the
 * whole window and of the first niv intervals (heap, server_free; NULL:
 * out of memory). s is freed. */
pc_server *srvm_finish(srvm *s, uint32_t niv);

#endif

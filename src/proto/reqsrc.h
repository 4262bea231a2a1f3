/*
 * reqsrc.h - where the next request comes from: one interface for the
 * run's templates (each distinct request built once, before the run) and
 * for a Lua script (wrk's request(), or the request wrk.format() gives
 * after init()).
 *
 * The engine asks a thread's source for each request and knows nothing of
 * what is behind it; the script module implements it without knowing the
 * engine. The two meet where a run is prepared (main.c, workflow/runner.c
 * hand engine_set_source what script_source gives).
 *
 * Only plain types: this header includes nothing of pacer's.
 */
#ifndef PACER_PROTO_REQSRC_H
#define PACER_PROTO_REQSRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A header field of an HTTP/2 or HTTP/3 request (spans, not copies). */
typedef struct pc_field {
    const char *name, *value;
    size_t nlen, vlen;
} pc_field;

/* One request as a source hands it over. */
typedef struct pc_request {
    const char *h1;    /* HTTP/1.1 bytes: one request or, from request(), a pipelined batch */
    size_t h1_len;
    /* A prebuilt HTTP/2 and HTTP/3 header list (pseudo-headers first, names
     * lower-case); NULL: made from h1 when needed. */
    const pc_field *fields;
    size_t nfields;
    const char *body;  /* with fields: the request body */
    size_t body_len;
    bool head;         /* HEAD: the response has no body */
    bool transient;    /* valid only until the next call: copy what must outlive it */
    bool built;        /* a template, built from checked options: its text is not checked again */
} pc_request;

/* What a thread's source does. self is pc_reqsrc.self. Operations that a
 * source does not have are NULL (the template source has only next). */
typedef struct pc_reqsrc_ops {
    /* The next request; t is which of the run's distinct requests the
     * schedule picked (a script's request() decides for itself). NULL: the
     * source failed (a script error, recorded by the source; stopped()
     * then says so). Called once per request: keep it cheap. */
    const pc_request *(*next)(void *self, uint32_t t);
    /* A response, for a source that wants them (pc_reqsrc.wants_response):
     * hdrs is "name\0value\0" pairs. 0, or -EINVAL on a script error. */
    int (*response)(void *self, int status, const char *hdrs, size_t hlen, const char *body,
                    size_t blen);
    /* Milliseconds a connection waits before its next request (>= 0; -1 on
     * a script error), for a source with wants_delay. */
    double (*delay)(void *self);
    /* The source has nothing more for this thread (thread:stop(), an error). */
    bool (*stopped)(const void *self);
    /* In the worker thread, before its first call. */
    void (*bind)(void *self);
    /* From the main thread: make a call in progress return (a signal). */
    void (*interrupt)(void *self);
    /* From the main thread: if the thread has been inside one call since
     * before stuck_since, take it over (true): the thread never touches
     * its data again. */
    bool (*seize)(void *self, uint64_t stuck_since);
} pc_reqsrc_ops;

/* One thread's source. */
typedef struct pc_reqsrc {
    const pc_reqsrc_ops *ops;
    void *self;
    /* Each next() builds new text (request()), which may hold a pipelined
     * batch: its requests go out as one, behind the batch's first slot. */
    bool per_call;
    bool wants_response, wants_delay;
    /* Requests one next() returns (1 unless request() returns a batch),
     * learned while the source was prepared: the pipeline depth it needs. */
    uint32_t batch;
    /* Where this thread connects instead of the run's address ("ip:port",
     * a script's thread.addr), or NULL. */
    const char *addr;
} pc_reqsrc;

/* A run's source: makes each thread's. */
typedef struct pc_reqsource {
    void *self;
    /* Thread i's source, made in the main thread before the run (a script:
     * its state loaded again, init() run, request() primed on thread 0 to
     * learn its batch). 0, or a negative errno with a reason in err. */
    int (*thread)(void *self, uint32_t i, pc_reqsrc *out, char *err, size_t errlen);
    /* Bracket the calls to thread() while the caller holds SIGINT and
     * SIGTERM blocked, so a source that never returns can still be stopped;
     * end returns the signal that came (0: none). NULL: not needed. */
    int (*guard_begin)(void);
    int (*guard_end)(void);
} pc_reqsource;

#endif

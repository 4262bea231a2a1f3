/*
 * script_int.h - what the two halves of the script module share (not for
 * use outside src/script/): script.c (the wrk table, the main state,
 * setup() and done()) and script_thread.c (a worker's state, its calls per
 * request, the signal guard, and the request source the engine sees).
 */
#ifndef PACER_SCRIPT_SCRIPT_INT_H
#define PACER_SCRIPT_SCRIPT_INT_H

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <pthread.h>
#include <stdatomic.h>

#include "proto/reqsrc.h"
#include "script/script.h"

#define THREAD_MT "pacer.thread"
#define STATS_MT "pacer.stats"

/* What setup() and the worker share about one thread. */
typedef struct tobj {
    char addr[96];     /* thread.addr, "" if not set */
    int values;        /* registry ref (main state) of thread:set values */
    pc_tscript *ts;    /* the worker's state once it exists */
    bool stop;         /* thread:stop() */
} tobj;

struct pc_script {
    lua_State *L;
    const pc_config *cfg;
    tobj *threads;
    uint32_t nthreads;
    pc_reqsource src;  /* what script_source hands the engine */
    char path[256];
};

struct pc_tscript {
    lua_State *L;
    pc_script *main;
    tobj *t;
    bool has_request, has_response, has_delay;
    char *req;         /* the static request, then request()'s last result */
    size_t req_len, req_cap;
    char *static_req;
    size_t static_len;
    bool primed;       /* req holds a request() result not yet sent */
    pc_request rq;     /* what the request source hands out (next()) */
    char err[256];
    pthread_t tid;     /* the thread that runs this state's calls */
    bool have_tid;
    /* When the current call into Lua began (0: not in Lua; IN_LUA_SEIZED:
     * the main thread took the worker over while it was stuck in Lua). */
    _Atomic uint64_t in_lua;
};

#define IN_LUA_SEIZED UINT64_MAX

/* lua_pcall, with the thread's state known to the interrupt handler and,
 * for a worker's state (t non-NULL), the time it went in published for
 * the watchdog. */
int scr_call(pc_tscript *t, lua_State *L, int nargs, int nres);
/* A state with the wrk table and the script loaded (its top level run). */
lua_State *scr_new_state(const pc_config *cfg, const char *path, char *err, size_t errlen);
bool scr_is_function(lua_State *L, const char *name);
/* err = "what: " and the error message on top of L's stack (popped). */
void scr_set_err(char *err, size_t errlen, lua_State *L, const char *what);
/* The value at index i of `from` onto the top of `to` (thread:get/set). */
void scr_copy_value(lua_State *from, int i, lua_State *to, int depth);
/* Push thread t's object (wrk.thread, setup()'s argument). */
void scr_push_thread(lua_State *L, pc_script *s, tobj *t);
/* Install the handler of SCRIPT_SIG (a worker is asked to stop its call). */
void scr_install_sig(void);
/* The run's request source: a worker state per thread (script_thread.c). */
void scr_source_init(pc_script *s);

/* ---- a worker's state (script_thread.c) ----------------------------------
 *
 * The state: the script loaded again, the values setup() set on thread i
 * copied in, init(args) run. On error: -EINVAL, message in err. */
int script_thread_new(pc_tscript **out, pc_script *s, uint32_t i, char *err, size_t errlen);
void script_thread_free(pc_tscript *t);
/* The address setup() gave thread i through thread.addr, or NULL. */
const char *script_thread_addr(const pc_script *s, uint32_t i);
/* What the script defines (decides what the engine must do per request). */
bool script_has_request(const pc_tscript *t);
bool script_has_response(const pc_tscript *t);
bool script_has_delay(const pc_tscript *t);
/* The request wrk.request() gives after init() (the script's own wrk.method,
 * path, headers and body applied), used when there is no request(). The
 * pointer stays valid until script_thread_free. */
const char *script_static_request(pc_tscript *t, size_t *len);
/* Call request(): the bytes of one or more requests (pipelined). NULL on a
 * script error (script_error says what). Valid until the next call. */
const char *script_request(pc_tscript *t, size_t *len);
/* Call request() once ahead (to count the requests it returns); the next
 * script_request returns that result instead of calling again. */
const char *script_prime(pc_tscript *t, size_t *len);
/* Call response(status, headers, body). hdrs is "name\0value\0" pairs.
 * 0 or -EINVAL on a script error. */
int script_response(pc_tscript *t, int status, const char *hdrs, size_t hlen, const char *body,
                    size_t blen);
/* Call delay(): milliseconds to wait before the next request (>= 0), or
 * -1 on a script error. */
double script_delay(pc_tscript *t);
/* thread:stop() was called in this worker's state, or a script error. */
bool script_stopped(const pc_tscript *t);
/* The first script error, "file:line: message", or NULL. */
const char *script_error(const pc_tscript *t);
/* The signal guard, and a worker's interruption (script.h tells the story). */
int script_guard_begin(void);
int script_guard_end(void);
void script_thread_bind(pc_tscript *t);
void script_thread_interrupt(pc_tscript *t);
bool script_thread_seize(pc_tscript *t, uint64_t stuck_since);
/* How many requests a request string holds (HTTP/1.1 framing). */
uint32_t script_count_requests(const char *p, size_t n);

#endif

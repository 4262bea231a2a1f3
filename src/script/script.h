/*
 * script.h - wrk-compatible Lua scripting on LuaJIT.
 *
 * One Lua state in the main thread (the script's top level, setup() for
 * each thread, done() at the end) and one per worker thread (init(), and
 * per request request(), response(), delay()). The API is wrk's: the
 * global `wrk` table (scheme host port method path headers body thread,
 * format, lookup, connect, time_us), thread objects (addr, get, set,
 * stop), and the summary / latency / requests objects given to done().
 * docs/scripting.md has the details.
 */
#ifndef PACER_SCRIPT_SCRIPT_H
#define PACER_SCRIPT_SCRIPT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

typedef struct pc_results pc_results;
typedef struct pc_script pc_script;   /* the main state */
typedef struct pc_tscript pc_tscript; /* a worker's state */

/* Load the script in the main state, run its top level and setup() for
 * each of cfg->threads threads. 0, or -EINVAL with "file:line: message"
 * in err (a syntax or runtime error), -ENOMEM. */
int script_load(pc_script **out, const pc_config *cfg, char *err, size_t errlen);
void script_free(pc_script *s);

/* The address setup() gave thread i through thread.addr, or NULL. */
const char *script_thread_addr(const pc_script *s, uint32_t i);

/* A worker's state: the script loaded again, the values setup() set on
 * thread i copied in, init(args) run. On error: -EINVAL, message in err. */
int script_thread_new(pc_tscript **out, pc_script *s, uint32_t i, char *err, size_t errlen);
void script_thread_free(pc_tscript *t);

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

/* thread:stop() was called in this worker's state. */
bool script_stopped(const pc_tscript *t);

/* The first script error, "file:line: message", or NULL. */
const char *script_error(const pc_tscript *t);

/* The first runtime error of any worker, or NULL. */
const char *script_run_error(const pc_script *s);


/* Run done(summary, latency, requests) in the main state if defined.
 * 0, or -EINVAL with the message in err. */
int script_done(pc_script *s, const pc_results *res, char *err, size_t errlen);

/* A script that does not return (an endless loop in init(), request(),
 * response() ...) must not make pacer deaf to SIGINT/SIGTERM.
 *
 * script_guard_begin/end bracket the main thread's calls into Lua while the
 * engine otherwise holds the signals blocked: a first SIGINT/SIGTERM makes
 * the script raise an error (the call fails), a second, or one second
 * without the script returning (a loop LuaJIT compiled runs no hooks),
 * ends the process with 130/143. end returns the signal caught, or 0.
 *
 * A worker's state: script_thread_interrupt sends the worker thread
 * SCRIPT_SIG, whose handler makes the script raise an error at once.
 * script_thread_seize: if the worker has been inside one call into Lua
 * since before stuck_since, take the worker over (true): from then on the
 * worker thread never touches its data again (it stops when the call
 * returns), and the state is not freed. */
#define SCRIPT_SIG SIGURG
int script_guard_begin(void);
int script_guard_end(void);
void script_thread_bind(pc_tscript *t); /* in the worker thread, before its first call */
void script_thread_interrupt(pc_tscript *t);
bool script_thread_seize(pc_tscript *t, uint64_t stuck_since);

/* How many requests a request string holds (HTTP/1.1 framing). */
uint32_t script_count_requests(const char *p, size_t n);

#endif

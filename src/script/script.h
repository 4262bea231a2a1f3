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
 *
 * The engine sees a script only as a request source (proto/reqsrc.h):
 * script_source gives it, and whoever prepares the run hands it to
 * engine_set_source. Neither module includes the other.
 */
#ifndef PACER_SCRIPT_SCRIPT_H
#define PACER_SCRIPT_SCRIPT_H

#include <signal.h>
#include <stddef.h>

#include "config.h"

typedef struct pc_results pc_results;
typedef struct pc_script pc_script;   /* the main state */
typedef struct pc_tscript pc_tscript; /* a worker's state */
struct pc_reqsource;

/* Load the script in the main state, run its top level and setup() for
 * each of cfg->threads threads. 0, or -EINVAL with "file:line: message"
 * in err (a syntax or runtime error), -ENOMEM. */
int script_load(pc_script **out, const pc_config *cfg, char *err, size_t errlen);
void script_free(pc_script *s);

/* The script as the run's request source, valid until script_free. Its
 * thread(i) makes worker i's state (the script loaded again, the values
 * setup() set on thread i copied in, init(args) run; on thread 0, a
 * request() called once ahead to count the requests it pipelines), under
 * a guard that keeps SIGINT/SIGTERM working (below). */
const struct pc_reqsource *script_source(pc_script *s);

/* The first runtime error of any worker, or NULL. */
const char *script_run_error(const pc_script *s);

/* Run done(summary, latency, requests) in the main state if defined.
 * 0, or -EINVAL with the message in err. */
int script_done(pc_script *s, const pc_results *res, char *err, size_t errlen);

/* A script that does not return (an endless loop in init(), request(),
 * response() ...) must not make pacer deaf to SIGINT/SIGTERM.
 *
 * The source's guard_begin/end bracket the main thread's calls into Lua
 * while the engine otherwise holds the signals blocked: a first
 * SIGINT/SIGTERM makes the script raise an error (the call fails), a
 * second, or one second without the script returning (a loop LuaJIT
 * compiled runs no hooks), ends the process with 130/143. end returns the
 * signal caught, or 0.
 *
 * A worker's state: the source's interrupt sends the worker thread
 * SCRIPT_SIG, whose handler makes the script raise an error at once.
 * seize: if the worker has been inside one call into Lua since before
 * stuck_since, take the worker over (true): from then on the worker thread
 * never touches its data again (it stops when the call returns), and the
 * state is not freed. */
#define SCRIPT_SIG SIGURG

#endif

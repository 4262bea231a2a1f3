/*
 * script_thread.c - a worker's Lua state: made from the main state after
 * setup(), its calls per request (request(), response(), delay()), the
 * guard that keeps a script that never returns stoppable, and the request
 * source (proto/reqsrc.h) through which the engine sees all of it.
 */
#include "script/script_int.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/file.h"

/* ---- interrupting a script that does not return -------------------------
 *
 * A signal (SIGINT/SIGTERM in the main thread, SCRIPT_SIG sent to a worker)
 * arms a hook on the state the thread is running, which raises an error at
 * the next Lua instruction count, call or return. LuaJIT runs no hooks in
 * compiled code, so a loop it compiled is not stopped that way: the engine
 * then gives up on the thread (script_thread_seize), and a main-thread call
 * ends the process after a second. */

static __thread lua_State *tls_L; /* the state this thread is in, for the handler */
static volatile sig_atomic_t guard_sig;

static void stop_hook(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    luaL_error(L, "interrupted by a signal: the script had not returned");
}

static void arm_hook(void)
{
    if (tls_L)
        lua_sethook(tls_L, stop_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

static void on_script_sig(int sig)
{
    (void)sig;
    arm_hook();
}

void scr_install_sig(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_script_sig;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SCRIPT_SIG, &sa, NULL);
}

/* Main thread, during init(), setup() or the first request(): the first
 * SIGINT/SIGTERM interrupts the script, a second (or one second later, for
 * a loop the hook cannot reach) ends the process. */
static void on_guard_sig(int sig)
{
    static const char msg[] = "pacer: the script did not return after the signal: exiting\n";

    if (sig == SIGALRM || guard_sig) {
        ssize_t r = write(2, msg, sizeof msg - 1);

        (void)r;
        pc_tmp_remove_all(); /* _exit runs no cleanup: the result files' temporaries */
        _exit(pc_exit_signal(guard_sig));
    }
    guard_sig = sig;
    arm_hook();
    alarm(1);
}

static struct sigaction guard_old[3];
static sigset_t guard_mask;

int script_guard_begin(void)
{
    struct sigaction sa;
    sigset_t un;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_guard_sig;
    sigemptyset(&sa.sa_mask);
    guard_sig = 0;
    sigaction(SIGINT, &sa, &guard_old[0]);
    sigaction(SIGTERM, &sa, &guard_old[1]);
    sigaction(SIGALRM, &sa, &guard_old[2]);
    sigemptyset(&un);
    sigaddset(&un, SIGINT);
    sigaddset(&un, SIGTERM);
    return pthread_sigmask(SIG_UNBLOCK, &un, &guard_mask);
}

int script_guard_end(void)
{
    alarm(0);
    pthread_sigmask(SIG_SETMASK, &guard_mask, NULL);
    sigaction(SIGINT, &guard_old[0], NULL);
    sigaction(SIGTERM, &guard_old[1], NULL);
    sigaction(SIGALRM, &guard_old[2], NULL);
    return guard_sig;
}

static void park_forever(void)
{
    /* The engine took this worker over while it was in Lua: it must not
     * touch the worker again. The process ends shortly. */
    for (;;)
        pause();
}

/* lua_pcall, with the thread's state known to the interrupt handler and,
 * for a worker's state, the time it went in published for the watchdog. */
int scr_call(pc_tscript *t, lua_State *L, int nargs, int nres)
{
    uint64_t entered = 0;
    int rc;

    tls_L = L;
    if (t) {
        entered = pc_now_ns();
        atomic_store_explicit(&t->in_lua, entered, memory_order_release);
    }
    rc = lua_pcall(L, nargs, nres, 0);
    if (t && !atomic_compare_exchange_strong(&t->in_lua, &entered, 0))
        park_forever();
    tls_L = NULL;
    return rc;
}

void script_thread_bind(pc_tscript *t)
{
    t->tid = pthread_self();
    t->have_tid = true;
}

void script_thread_interrupt(pc_tscript *t)
{
    if (t && t->have_tid && atomic_load(&t->in_lua))
        pthread_kill(t->tid, SCRIPT_SIG);
}

bool script_thread_seize(pc_tscript *t, uint64_t stuck_since)
{
    uint64_t v = t ? atomic_load_explicit(&t->in_lua, memory_order_acquire) : 0;

    if (v == 0 || v == IN_LUA_SEIZED || v > stuck_since ||
        !atomic_compare_exchange_strong(&t->in_lua, &v, IN_LUA_SEIZED))
        return false;
    snprintf(t->err, sizeof t->err,
             "%.160s: the script did not return for %.1fs (an endless loop?): its thread was given up",
             t->main->path, (double)(pc_now_ns() - v) / 1e9);
    return true;
}


const char *script_thread_addr(const pc_script *s, uint32_t i)
{
    return s && i < s->nthreads && s->threads[i].addr[0] ? s->threads[i].addr : NULL;
}

static int keep(pc_tscript *t, const char *p, size_t n)
{
    if (n + 1 > t->req_cap) {
        char *b = realloc(t->req, n + 1);

        if (!b)
            return -ENOMEM;
        t->req = b;
        t->req_cap = n + 1;
    }
    memcpy(t->req, p, n);
    t->req[n] = '\0';
    t->req_len = n;
    return 0;
}

int script_thread_new(pc_tscript **out, pc_script *s, uint32_t i, char *err, size_t errlen)
{
    pc_tscript *t = calloc(1, sizeof *t);
    lua_State *L;
    const char *req;
    size_t len;

    *out = t;
    if (!t)
        return -ENOMEM;
    t->main = s;
    t->t = &s->threads[i];
    s->threads[i].ts = t;
    L = t->L = scr_new_state(s->cfg, s->path, err, errlen);
    if (!L)
        return -EINVAL;
    /* thread:set values become globals; wrk.thread is this thread. */
    lua_rawgeti(s->L, LUA_REGISTRYINDEX, t->t->values);
    lua_pushnil(s->L);
    while (lua_next(s->L, -2)) {
        if (lua_type(s->L, -2) == LUA_TSTRING) {
            scr_copy_value(s->L, -1, L, 0);
            lua_setglobal(L, lua_tostring(s->L, -2));
        }
        lua_pop(s->L, 1);
    }
    lua_pop(s->L, 1);
    lua_getglobal(L, "wrk");
    scr_push_thread(L, s, t->t);
    lua_setfield(L, -2, "thread");
    lua_pop(L, 1);
    if (scr_is_function(L, "init")) {
        lua_getglobal(L, "init");
        lua_newtable(L);
        for (int a = 0; a < s->cfg->nscript_args; a++) {
            lua_pushstring(L, s->cfg->script_args[a]);
            lua_rawseti(L, -2, a + 1);
        }
        if (scr_call(NULL, L, 1, 0) != 0) {
            scr_set_err(err, errlen, L, NULL);
            return -EINVAL;
        }
    }
    /* The request wrk would send without request(): wrk.format() as the
     * script left wrk.method, path, headers and body. */
    lua_getglobal(L, "wrk");
    lua_getfield(L, -1, "format");
    if (lua_pcall(L, 0, 1, 0) != 0) {
        scr_set_err(err, errlen, L, NULL);
        return -EINVAL;
    }
    req = lua_tolstring(L, -1, &len);
    t->static_req = req ? malloc(len) : NULL;
    if (!t->static_req)
        return -ENOMEM;
    memcpy(t->static_req, req, len);
    t->static_len = len;
    lua_pop(L, 2);
    t->has_request = scr_is_function(L, "request");
    t->has_response = scr_is_function(L, "response");
    t->has_delay = scr_is_function(L, "delay");
    return 0;
}

void script_thread_free(pc_tscript *t)
{
    if (!t)
        return;
    if (atomic_load(&t->in_lua) == IN_LUA_SEIZED)
        return; /* its thread may still be running in the state: leave it */
    if (t->L)
        lua_close(t->L);
    if (t->t)
        t->t->ts = NULL;
    free(t->req);
    free(t->static_req);
    free(t);
}

bool script_has_request(const pc_tscript *t)
{
    return t->has_request;
}

bool script_has_response(const pc_tscript *t)
{
    return t->has_response;
}

bool script_has_delay(const pc_tscript *t)
{
    return t->has_delay;
}

const char *script_static_request(pc_tscript *t, size_t *len)
{
    *len = t->static_len;
    return t->static_req;
}

static void runtime_err(pc_tscript *t)
{
    const char *m = lua_tostring(t->L, -1);

    if (!t->err[0])
        snprintf(t->err, sizeof t->err, "%s", m ? m : "script error");
    lua_pop(t->L, 1);
    t->t->stop = true;
}

const char *script_request(pc_tscript *t, size_t *len)
{
    const char *s;
    size_t n;

    if (t->primed) {
        /* The call made to count pipelined requests: send its result. */
        t->primed = false;
        *len = t->req_len;
        return t->req;
    }
    lua_getglobal(t->L, "request");
    if (scr_call(t, t->L, 0, 1) != 0) {
        runtime_err(t);
        return NULL;
    }
    s = lua_type(t->L, -1) == LUA_TSTRING ? lua_tolstring(t->L, -1, &n) : NULL;
    if (!s || n == 0) {
        const char *got = lua_typename(t->L, lua_type(t->L, -1));

        lua_pop(t->L, 1);
        lua_pushfstring(t->L, "%s: request() must return a non-empty string, got %s",
                        t->main->path, s ? "\"\"" : got);
        runtime_err(t);
        return NULL;
    }
    if (keep(t, s, n) < 0) {
        lua_pop(t->L, 1);
        return NULL;
    }
    lua_pop(t->L, 1);
    *len = t->req_len;
    return t->req;
}

int script_response(pc_tscript *t, int status, const char *hdrs, size_t hlen, const char *body,
                    size_t blen)
{
    lua_State *L = t->L;
    size_t off = 0;

    lua_getglobal(L, "response");
    lua_pushinteger(L, status);
    lua_newtable(L);
    while (off < hlen) {
        const char *name = hdrs + off;
        size_t nl = strlen(name);
        const char *value = name + nl + 1;
        size_t vl = strlen(value);

        lua_pushlstring(L, value, vl);
        lua_setfield(L, -2, name);
        off += nl + vl + 2;
    }
    lua_getglobal(L, "pacer_headers_mt");
    lua_setmetatable(L, -2);
    lua_pushlstring(L, body ? body : "", blen);
    if (scr_call(t, L, 3, 0) != 0) {
        runtime_err(t);
        return -EINVAL;
    }
    return 0;
}

double script_delay(pc_tscript *t)
{
    double ms;

    lua_getglobal(t->L, "delay");
    if (scr_call(t, t->L, 0, 1) != 0) {
        runtime_err(t);
        return -1;
    }
    ms = lua_tonumber(t->L, -1);
    lua_pop(t->L, 1);
    return ms > 0 ? ms : 0;
}

const char *script_prime(pc_tscript *t, size_t *len)
{
    const char *r = script_request(t, len);

    t->primed = r != NULL;
    return r;
}

bool script_stopped(const pc_tscript *t)
{
    return t->t->stop;
}

const char *script_error(const pc_tscript *t)
{
    return t->err[0] ? t->err : NULL;
}

const char *script_run_error(const pc_script *s)
{
    for (uint32_t i = 0; s && i < s->nthreads; i++)
        if (s->threads[i].ts && s->threads[i].ts->err[0])
            return s->threads[i].ts->err;
    return NULL;
}


uint32_t script_count_requests(const char *p, size_t n)
{
    uint32_t count = 0;
    size_t off = 0;

    while (off < n) {
        const char *end = memmem(p + off, n - off, "\r\n\r\n", 4);
        size_t head, body = 0;

        if (!end)
            break;
        head = (size_t)(end - (p + off)) + 4;
        for (const char *q = p + off; q < end; q++) {
            if ((q == p + off || q[-1] == '\n') && (size_t)(end - q) > 15 &&
                strncasecmp(q, "content-length:", 15) == 0)
                body = strtoul(q + 15, NULL, 10);
        }
        off += head + body;
        count++;
    }
    return count ? count : 1;
}

/* ---- the request source the engine sees (proto/reqsrc.h) ----------------- */

static const pc_request *src_next(void *self, uint32_t tmpl)
{
    pc_tscript *t = self;
    const char *p;
    size_t len;

    (void)tmpl; /* the script decides */
    if (!t->has_request)
        return &t->rq; /* the request wrk.format() gave after init(), built once */
    p = script_request(t, &len);
    if (!p)
        return NULL;
    t->rq.h1 = p;
    t->rq.h1_len = len;
    t->rq.head = len >= 5 && memcmp(p, "HEAD ", 5) == 0;
    return &t->rq;
}

static int src_response(void *self, int status, const char *hdrs, size_t hlen, const char *body,
                        size_t blen)
{
    return script_response(self, status, hdrs, hlen, body, blen);
}

static double src_delay(void *self)
{
    return script_delay(self);
}

static bool src_stopped(const void *self)
{
    return script_stopped(self);
}

static void src_bind(void *self)
{
    script_thread_bind(self);
}

static void src_interrupt(void *self)
{
    script_thread_interrupt(self);
}

static bool src_seize(void *self, uint64_t stuck_since)
{
    return script_thread_seize(self, stuck_since);
}

static const pc_reqsrc_ops src_ops = {
    .next = src_next,
    .response = src_response,
    .delay = src_delay,
    .stopped = src_stopped,
    .bind = src_bind,
    .interrupt = src_interrupt,
    .seize = src_seize,
};

/* Thread i's state, and what the engine must know of it before the run:
 * which calls it wants, and (thread 0, with request()) how many requests
 * one request() returns, learned by calling it once ahead. */
static int src_thread(void *self, uint32_t i, pc_reqsrc *out, char *err, size_t errlen)
{
    pc_script *s = self;
    pc_tscript *t;
    size_t len;
    int rc = script_thread_new(&t, s, i, err, errlen);

    if (rc < 0)
        return rc;
    *out = (pc_reqsrc){.ops = &src_ops,
                       .self = t,
                       .per_call = t->has_request,
                       .wants_response = t->has_response,
                       .wants_delay = t->has_delay,
                       .batch = 1,
                       .addr = script_thread_addr(s, i)};
    if (!t->has_request) {
        t->rq.h1 = script_static_request(t, &len);
        t->rq.h1_len = len;
        t->rq.head = len >= 5 && memcmp(t->rq.h1, "HEAD ", 5) == 0;
        return 0;
    }
    t->rq.transient = true; /* request()'s text is replaced by the next call */
    if (i == 0) {
        /* request() may return several requests: they are pipelined, as
         * wrk does. */
        const char *req = script_prime(t, &len);

        if (!req) {
            snprintf(err, errlen, "%s", script_error(t));
            return -EINVAL;
        }
        out->batch = script_count_requests(req, len);
    }
    return 0;
}

void scr_source_init(pc_script *s)
{
    s->src = (pc_reqsource){.self = s,
                            .thread = src_thread,
                            .guard_begin = script_guard_begin,
                            .guard_end = script_guard_end};
}

const pc_reqsource *script_source(pc_script *s)
{
    return &s->src;
}

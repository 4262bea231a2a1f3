/*
 * test_reqsrc.c - a Lua script seen as the engine sees it: a request
 * source (proto/reqsrc.h) made by script_source, with no engine linked
 * in the test's logic. What a thread's source says before the run (the
 * calls it wants, the pipelined batch learned by priming request() on
 * thread 0, thread.addr) and what next() hands out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "proto/reqsrc.h"
#include "script/script.h"
#include "unit.h"

typedef struct loaded {
    pc_config cfg;
    pc_script *s;
    const pc_reqsource *rs;
    char path[64];
    int rc;
    char err[256];
} loaded;

/* Write the script to a temporary file, parse "-t THREADS -s FILE URL",
 * load it. */
static void load(loaded *l, const char *lua, const char *threads)
{
    FILE *null = fopen("/dev/null", "w");
    char *argv[] = {"pacer", "-t", (char *)threads, "-c", (char *)threads, "-s", NULL,
                    "http://127.0.0.1:9/p", NULL};
    int fd;

    memset(l, 0, sizeof *l);
    snprintf(l->path, sizeof l->path, "/tmp/pacer-reqsrc-XXXXXX");
    fd = mkstemp(l->path);
    if (fd >= 0) {
        if (write(fd, lua, strlen(lua)) < 0) {
            /* checked by the load below */
        }
        close(fd);
    }
    argv[6] = l->path;
    l->rc = cli_parse(8, argv, &l->cfg, null, null);
    if (null)
        fclose(null);
    if (l->rc == 0)
        l->rc = script_load(&l->s, &l->cfg, l->err, sizeof l->err);
    if (l->rc == 0)
        l->rs = script_source(l->s);
}

static void unload(loaded *l)
{
    script_free(l->s);
    cli_free(&l->cfg);
    unlink(l->path);
}

/* request() returning two requests: thread 0 learns the batch by calling it
 * once ahead, and its first next() hands out that very call's text. */
static void test_request_batch_primed(void)
{
    loaded l;
    pc_reqsrc t0, t1;
    const pc_request *r;
    int rc0, rc1;

    load(&l, "n = 0\n"
             "function request()\n"
             "  n = n + 1\n"
             "  return wrk.format('GET', '/a' .. n) .. wrk.format('GET', '/b' .. n)\n"
             "end\n",
         "2");
    CHECK_EQ_I64(l.rc, 0);
    CHECK(l.rs && l.rs->thread && l.rs->guard_begin && l.rs->guard_end);
    rc0 = l.rs->thread(l.rs->self, 0, &t0, l.err, sizeof l.err);
    rc1 = l.rs->thread(l.rs->self, 1, &t1, l.err, sizeof l.err);
    CHECK_EQ_I64(rc0, 0);
    CHECK_EQ_I64(rc1, 0);
    CHECK_EQ_U64(t0.batch, 2);
    CHECK_EQ_U64(t1.batch, 1); /* only thread 0 is primed */
    CHECK(t0.per_call && !t0.wants_response && !t0.wants_delay && !t0.addr);
    r = t0.ops->next(t0.self, 0);
    CHECK(r && r->h1 && r->transient && !r->fields && !r->head);
    CHECK(strncmp(r->h1, "GET /a1 HTTP/1.1\r\n", 18) == 0);
    CHECK(strstr(r->h1, "GET /b1 HTTP/1.1\r\n") != NULL);
    r = t0.ops->next(t0.self, 0);
    CHECK(r && strncmp(r->h1, "GET /a2 HTTP/1.1\r\n", 18) == 0);
    r = t1.ops->next(t1.self, 0);
    CHECK(r && strncmp(r->h1, "GET /a1 HTTP/1.1\r\n", 18) == 0);
    CHECK(!t0.ops->stopped(t0.self));
    unload(&l);
}

/* Without request(): the request wrk.format() gives after init(), built
 * once and handed out as it is, whichever template the schedule picked. */
static void test_static_request(void)
{
    loaded l;
    pc_reqsrc t;
    const pc_request *a, *b;

    load(&l, "function init(args) wrk.method = 'HEAD'; wrk.path = '/s' end\n"
             "function response(status, headers, body) end\n",
         "1");
    CHECK_EQ_I64(l.rc, 0);
    CHECK_EQ_I64(l.rs->thread(l.rs->self, 0, &t, l.err, sizeof l.err), 0);
    CHECK(!t.per_call && t.wants_response && !t.wants_delay);
    CHECK_EQ_U64(t.batch, 1);
    a = t.ops->next(t.self, 0);
    b = t.ops->next(t.self, 3);
    CHECK(a && a == b && !a->transient && a->head);
    CHECK(strncmp(a->h1, "HEAD /s HTTP/1.1\r\n", 18) == 0);
    /* h1 is h1_len bytes, not a C string: the request ends there. */
    CHECK(a->h1_len >= 22 && memcmp(a->h1 + a->h1_len - 4, "\r\n\r\n", 4) == 0);
    CHECK_EQ_I64(t.ops->response(t.self, 200, "a\0b\0", 4, "x", 1), 0);
    unload(&l);
}

/* setup()'s thread.addr and delay() reach the engine through the source;
 * thread:stop() in request() is stopped(). */
static void test_addr_delay_stop(void)
{
    loaded l;
    pc_reqsrc t;

    load(&l, "function setup(thread) thread.addr = '127.0.0.1:7' end\n"
             "function delay() return 12.5 end\n"
             "function request() wrk.thread:stop(); return wrk.format() end\n",
         "1");
    CHECK_EQ_I64(l.rc, 0);
    CHECK_EQ_I64(l.rs->thread(l.rs->self, 0, &t, l.err, sizeof l.err), 0);
    CHECK(t.addr && strcmp(t.addr, "127.0.0.1:7") == 0);
    CHECK(t.wants_delay);
    CHECK_NEAR(t.ops->delay(t.self), 12.5, 1e-9);
    /* Priming called request() once: it stopped the thread already. */
    CHECK(t.ops->stopped(t.self));
    unload(&l);
}

/* A request() that fails while thread 0 is primed fails the thread's
 * source, with the script's message. */
static void test_prime_error(void)
{
    loaded l;
    pc_reqsrc t;
    int rc;

    load(&l, "function request() error('boom') end\n", "1");
    CHECK_EQ_I64(l.rc, 0);
    rc = l.rs->thread(l.rs->self, 0, &t, l.err, sizeof l.err);
    CHECK_EQ_I64(rc, -EINVAL);
    CHECK(strstr(l.err, "boom") != NULL);
    unload(&l);
}

int main(void)
{
    RUN(test_request_batch_primed);
    RUN(test_static_request);
    RUN(test_addr_delay_stop);
    RUN(test_prime_error);
    return unit_done();
}

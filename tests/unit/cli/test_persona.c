/*
 * test_persona.c - unit tests for src/cli/persona*.c: the registry and
 * what each persona's command line puts into a pc_config (its defaults,
 * its letters' meanings, its derivations), and what it refuses.
 */
#include "cli/cli.h"
#include "cli/persona.h"
#include "cli_harness.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define URL "http://127.0.0.1:8080/"
#define TLS_URL "https://127.0.0.1:8443/"
#define NS 1000000000ull

/* Parse name + args (NULL-terminated) as persona name; fills r. */
static int as(const char *name, const char *const *args)
{
    const cli_persona *p = persona_find(name);

    harness_reset();
    return p ? harness_parse(p, PC_MODE_RUN, name, args) : -999;
}

#define AS(name, ...) as(name, (const char *const[]){__VA_ARGS__, NULL})
/* Refused: exit 2's -EINVAL, one line on err naming what. */
#define CHECK_REFUSED(what)                                                    \
    do {                                                                       \
        CHECK(r.rc < 0);                                                       \
        CHECK(strncmp(r.err, "pacer: ", 7) == 0 && strstr(r.err, (what)));     \
        CHECK(strchr(r.err, '\n') == r.err + strlen(r.err) - 1);               \
    } while (0)

static void test_registry(void)
{
    CHECK(persona_find("ab") != NULL);
    CHECK(persona_find("/usr/local/bin/h2load") == persona_find("h2load"));
    CHECK(persona_find("wrk2") != persona_find("wrk"));
    CHECK(persona_find("pacer") == NULL);
    CHECK(persona_find("abc") == NULL);
    for (size_t i = 0; persona_at(i); i++)
        CHECK(persona_find(persona_at(i)->name) == persona_at(i) && persona_at(i)->summary);
}

static void test_ab_defaults(void)
{
    CHECK_EQ_I64(AS("ab", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.format, PC_FORMAT_AB);
    CHECK_EQ_I64(r.cfg.requests, 1);
    CHECK_EQ_I64(r.cfg.connections, 1);
    CHECK_EQ_I64(r.cfg.threads, 1);
    CHECK(r.cfg.no_keepalive);
    CHECK(r.cfg.strict_length);
    CHECK_EQ_U64(r.cfg.timeout_ns, 30 * NS);
    CHECK_EQ_I64(r.cfg.ab_heartbeat, 0); /* 1 request: no progress lines */
    CHECK_EQ_STR(r.cfg.cmdline, "pacer ab " URL);
}

static void test_ab_flags(void)
{
    CHECK_EQ_I64(AS("ab", "-n", "2000", "-c", "20", "-k", "-l", "-s", "5", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.requests, 2000);
    CHECK_EQ_I64(r.cfg.connections, 20);
    CHECK(!r.cfg.no_keepalive && !r.cfg.strict_length);
    CHECK_EQ_U64(r.cfg.timeout_ns, 5 * NS);
    CHECK_EQ_I64(r.cfg.ab_heartbeat, 200);
    CHECK_EQ_I64(AS("ab", "-n", "1000", "-q", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.ab_heartbeat, 0);
    CHECK_EQ_I64(AS("ab", "-n", "500", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.ab_heartbeat, 100); /* a tenth, at least 100 */
}

/* -t is a time limit implying -n 50000; a later -n overrides it, as in ab. */
static void test_ab_time_limit(void)
{
    CHECK_EQ_I64(AS("ab", "-t", "5", URL), CLI_RUN);
    CHECK_EQ_U64(r.cfg.duration_ns, 5 * NS);
    CHECK_EQ_I64(r.cfg.requests, 50000);
    CHECK_EQ_I64(r.cfg.threads, 1);
    CHECK_EQ_I64(AS("ab", "-t", "5", "-n", "100", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.requests, 100);
    CHECK_EQ_U64(r.cfg.duration_ns, 5 * NS);
    CHECK_EQ_I64(AS("ab", "-n", "100", "-t", "5", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.requests, 50000);
}

static void test_ab_body(void)
{
    char path[] = "/tmp/pacer-test-persona.XXXXXX";
    int fd = mkstemp(path);

    CHECK(fd >= 0);
    CHECK(write(fd, "{\"a\":1}", 7) == 7);
    close(fd);
    AS("ab", "-n", "10", "-p", path, URL);
    CHECK_EQ_I64(r.rc, CLI_RUN);
    CHECK_EQ_STR(r.cfg.method, "POST");
    CHECK_EQ_STR(r.cfg.content_type, "text/plain"); /* ab's default */
    CHECK_EQ_I64(r.cfg.body_len, 7);
    AS("ab", "-n", "10", "-u", path, "-T", "application/json", URL);
    CHECK_EQ_I64(r.rc, CLI_RUN);
    CHECK_EQ_STR(r.cfg.method, "PUT");
    CHECK_EQ_STR(r.cfg.content_type, "application/json");
    unlink(path);
}

static void test_ab_refusals(void)
{
    AS("ab", "-X", "proxy:3128", URL);
    CHECK_REFUSED("-X proxy:3128: ab's proxy");
    AS("ab", "-P", "u:p", URL);
    CHECK_REFUSED("-P u:p: ab's proxy authentication");
    AS("ab", "-w", URL);
    CHECK_REFUSED("-w: ab's HTML tables");
    AS("ab", "-v", "4", URL);
    CHECK_REFUSED("-v 4: ab's verbosity");
    AS("ab", "-f", "TLS1.3", URL);
    CHECK_REFUSED("-f TLS1.3: pacer cannot pin");
    CHECK_EQ_I64(AS("ab", "-f", "ALL", "-v", "1", URL), CLI_RUN);
    AS("ab", "-n", "5", "-c", "10", URL);
    CHECK_REFUSED("concurrency level greater than total number of requests");
    AS("ab", "--requests", "5", URL); /* ab has letters only */
    CHECK_REFUSED("see pacer ab --help");
}

static void test_ab_help_and_version(void)
{
    CHECK_EQ_I64(AS("ab", "-h"), CLI_EXIT);
    CHECK(strncmp(r.out, "Usage: pacer ab [options]", 25) == 0);
    CHECK(strstr(r.out, "\n    -k "));
    CHECK_EQ_I64(AS("ab", "-V", URL), CLI_EXIT); /* ab: the version, and exit */
    CHECK(strncmp(r.out, "pacer ", 6) == 0);
}

static void test_h2load_defaults(void)
{
    CHECK_EQ_I64(AS("h2load", TLS_URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.format, PC_FORMAT_H2LOAD);
    CHECK(r.cfg.h2);
    CHECK_EQ_STR(r.cfg.alpn, "h2,http/1.1");
    CHECK_EQ_I64(r.cfg.requests, 1);
    CHECK_EQ_I64(r.cfg.connections, 1);
    CHECK_EQ_I64(r.cfg.threads, 1);
    CHECK_EQ_I64(r.cfg.streams, 1);
    CHECK_EQ_I64(AS("h2load", URL), CLI_RUN);
    CHECK(r.cfg.h2); /* prior knowledge over http */
    CHECK(r.err[0] == 0);
}

static void test_h2load_streams_and_h1(void)
{
    CHECK_EQ_I64(AS("h2load", "-n", "5000", "-c", "10", "-m", "10", URL), CLI_RUN);
    CHECK(r.cfg.h2);
    CHECK_EQ_I64(r.cfg.streams, 10);
    CHECK_EQ_I64(r.cfg.pipeline, 1);
    CHECK_EQ_I64(AS("h2load", "-n", "5000", "-c", "10", "-m", "10", "--h1", URL), CLI_RUN);
    CHECK(!r.cfg.h2);
    CHECK_EQ_I64(r.cfg.streams, 1);
    CHECK_EQ_I64(r.cfg.pipeline, 10); /* h2load: pipelined over http/1.1 */
    CHECK_EQ_I64(AS("h2load", "-n", "50", "-p", "http/1.1", URL), CLI_RUN);
    CHECK(!r.cfg.h2);
    CHECK_EQ_I64(AS("h2load", "-n", "50", "-p", "http/1.1", TLS_URL), CLI_RUN);
    CHECK(r.cfg.h2); /* -p is for http:// only */
}

static void test_h2load_duration_and_rps(void)
{
    CHECK_EQ_I64(AS("h2load", "-n", "100", "-c", "4", "-D", "3", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.requests, 0); /* -n ignored with -D */
    CHECK_EQ_U64(r.cfg.duration_ns, 3 * NS);
    CHECK_EQ_I64(AS("h2load", "-c", "4", "--rps", "50", "-D", "2", URL), CLI_RUN);
    CHECK(r.cfg.rate == 200); /* per client */
    CHECK(r.cfg.u_latency);
    AS("h2load", "-n", "1", "-c", "2", URL);
    CHECK_REFUSED("-n, -c: the number of requests must be greater than or equal");
}

static void test_h2load_uris(void)
{
    char path[] = "/tmp/pacer-test-persona.XXXXXX";
    int fd = mkstemp(path);
    const char *lines = "http://127.0.0.1:8080/a\n/b\nhttp://other.example:9/c?x=1\n";

    CHECK(fd >= 0);
    CHECK(write(fd, lines, strlen(lines)) == (ssize_t)strlen(lines));
    close(fd);
    AS("h2load", "-n", "3", "-i", path);
    CHECK_EQ_I64(r.rc, CLI_RUN);
    CHECK_EQ_I64(r.cfg.nreqs, 3);
    CHECK_EQ_STR(r.cfg.reqs[1].url_text, "http://127.0.0.1:8080/b");
    CHECK_EQ_STR(r.cfg.reqs[2].url_text, "http://127.0.0.1:8080/c?x=1"); /* first origin */
    CHECK_EQ_STR(r.cfg.url.host, "127.0.0.1");
    AS("h2load", "-n", "2", URL, "/two");
    CHECK_EQ_I64(r.rc, CLI_RUN);
    CHECK_EQ_I64(r.cfg.nreqs, 2);
    CHECK_EQ_I64(r.cfg.nscript_args, 0);
    CHECK_EQ_STR(r.cfg.reqs[1].url_text, "http://127.0.0.1:8080/two");
    unlink(path);
}

static void test_h2load_refusals(void)
{
    AS("h2load", "-r", "10", "-c", "10", URL);
    CHECK_REFUSED("-r/--rate 10: h2load's connections-per-period");
    AS("h2load", "--connection-active-timeout", "5", URL);
    CHECK_REFUSED("-T/--connection-active-timeout 5");
    AS("h2load", "-N", "5", URL);
    CHECK_REFUSED("-N/--connection-inactivity-timeout 5");
    AS("h2load", "-p", "h3", URL);
    CHECK_REFUSED("-p/--no-tls-proto must be h2c or http/1.1");
}

static void test_wrk_personas(void)
{
    CHECK_EQ_I64(AS("wrk", "-t2", "-c10", "-d1s", "-T", "3s", URL), CLI_RUN);
    CHECK_EQ_U64(r.cfg.timeout_ns, 3 * NS); /* wrk's -T */
    CHECK(r.cfg.content_type == NULL);
    CHECK_EQ_I64(r.cfg.format, PC_FORMAT_WRK);
    CHECK_EQ_I64(AS("wrk", "--content-type", "text/x", "-d1s", URL), CLI_RUN);
    CHECK_EQ_STR(r.cfg.content_type, "text/x");
    CHECK_EQ_I64(AS("wrk2", "-R", "2000", "--latency", URL), CLI_RUN);
    CHECK(r.cfg.rate == 2000 && r.cfg.latency);
    AS("wrk2", "-t2", "-c10", URL);
    CHECK_REFUSED("Throughput MUST be specified with the --rate or -R option");
    CHECK_EQ_I64(AS("wrk", "-h"), CLI_EXIT);
    CHECK(strncmp(r.out, "Usage: pacer wrk <options>", 26) == 0);
    CHECK(strstr(r.out, "-T, --timeout"));
}

int main(void)
{
    RUN(test_registry);
    RUN(test_ab_defaults);
    RUN(test_ab_flags);
    RUN(test_ab_time_limit);
    RUN(test_ab_body);
    RUN(test_ab_refusals);
    RUN(test_ab_help_and_version);
    RUN(test_h2load_defaults);
    RUN(test_h2load_streams_and_h1);
    RUN(test_h2load_duration_and_rps);
    RUN(test_h2load_uris);
    RUN(test_h2load_refusals);
    RUN(test_wrk_personas);
    harness_reset();
    return unit_done();
}

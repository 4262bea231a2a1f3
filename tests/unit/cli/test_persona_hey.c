/*
 * test_persona_hey.c - `pacer hey` (src/cli/persona_hey.c): hey's
 * defaults, each flag's meaning in a pc_config, hey's single-dash long
 * flags, and the refusals (one line, -EINVAL: exit 2).
 *
 * argv is a fresh array of writable copies (getopt permutes it, -m
 * upper-cases in place), out and err are memory streams; the previous
 * call's state is released at the start of the next one.
 */
#include "cli/cli.h"
#include "cli/persona.h"
#include "cli_harness.h"
#include "unit.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define URL "http://127.0.0.1:8080/"
#define TLS_URL "https://127.0.0.1:8443/"
#define NS 1000000000ull

static int hey_run(const char *const *args)
{
    const cli_persona *p = persona_find("hey");

    harness_reset();
    return p ? harness_parse(p, PC_MODE_RUN, "hey", args) : -999;
}

#define HEY(...) hey_run((const char *const[]){__VA_ARGS__, NULL})

/* The value of request header name, or NULL. */
static const char *header(const char *name)
{
    for (size_t i = 0; i < r.cfg.nheaders; i++)
        if (strcmp(r.cfg.headers[i].name, name) == 0)
            return r.cfg.headers[i].value;
    return NULL;
}

/* err is exactly one line "pacer: ...\n" and the call was refused. */
#define CHECK_REFUSED(want)                                                    \
    do {                                                                       \
        CHECK_EQ_I64(r.rc, -EINVAL);                                           \
        CHECK_EQ_STR(r.err, want);                                             \
    } while (0)

static void test_defaults(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);

    CHECK_EQ_I64(HEY(URL), CLI_RUN);
    CHECK_EQ_STR(r.err, "");
    CHECK_EQ_I64(r.cfg.format, PC_FORMAT_HEY);
    CHECK_EQ_U64(r.cfg.requests, 200);
    CHECK_EQ_I64(r.cfg.connections, 50);
    CHECK_EQ_I64(r.cfg.threads, cpus < 50 ? cpus : 50);
    CHECK_EQ_U64(r.cfg.timeout_ns, 20 * NS);
    CHECK_EQ_U64(r.cfg.connect_timeout_ns, 20 * NS);
    CHECK(r.cfg.rate == 0);
    CHECK(!r.cfg.h2 && !r.cfg.no_keepalive);
    CHECK_EQ_STR(r.cfg.method, "GET");
    CHECK_EQ_STR(r.cfg.content_type, "text/html");
    CHECK(header("Accept-Encoding") && strcmp(header("Accept-Encoding"), "gzip") == 0);
    CHECK(r.cfg.peer_follows_redirects);
}

/* -q is per worker: -R q*c. -n/-c per worker, the remainder dropped. */
static void test_count_and_rate(void)
{
    CHECK_EQ_I64(HEY("-n", "2000", "-c", "50", "-q", "20", URL), CLI_RUN);
    CHECK_EQ_U64(r.cfg.requests, 2000);
    CHECK_EQ_I64(r.cfg.connections, 50);
    CHECK(r.cfg.rate == 1000);
    CHECK_EQ_STR(r.err, "");
    CHECK_EQ_I64(HEY("-n", "105", "-c", "10", URL), CLI_RUN);
    CHECK_EQ_U64(r.cfg.requests, 100);
    CHECK_EQ_STR(r.err, "pacer: note: hey sends -n/-c = 10 requests per worker: 100 in all, not 105\n");
    CHECK_EQ_I64(HEY("-n", "10", "-c", "20", URL), -EINVAL);
    CHECK_REFUSED("pacer: -n cannot be less than -c (hey's rule: -n 10, -c 20)\n");
    /* -z sets -n aside, as in hey. */
    CHECK_EQ_I64(HEY("-n", "10", "-c", "20", "-z", "3s", URL), CLI_RUN);
    CHECK_EQ_U64(r.cfg.requests, 0);
    CHECK_EQ_U64(r.cfg.duration_ns, 3 * NS);
}

static void test_request_flags(void)
{
    CHECK_EQ_I64(HEY("-m", "post", "-d", "{\"a\":1}", "-T", "application/json", "-A", "text/plain",
                     "-H", "X-A: b", "-a", "u:pw", "-host", "example.test", "-U", "me", URL),
                 CLI_RUN);
    CHECK_EQ_STR(r.cfg.method, "POST");
    CHECK_EQ_STR(r.cfg.reqs[0].method, "POST");
    CHECK_EQ_I64(r.cfg.reqs[0].body_len, 7);
    CHECK_EQ_STR(r.cfg.content_type, "application/json");
    CHECK_EQ_STR(header("Accept"), "text/plain");
    CHECK_EQ_STR(header("X-A"), "b");
    CHECK_EQ_STR(header("User-Agent"), "me");
    CHECK_EQ_STR(r.cfg.auth_b64, "dTpwdw==");
    CHECK_EQ_STR(r.cfg.host, "example.test");
    /* A body does not make it a POST: hey's method stays GET. */
    CHECK_EQ_I64(HEY("-d", "x", URL), CLI_RUN);
    CHECK_EQ_STR(r.cfg.method, "GET");
    /* Go asks for gzip, but not for HEAD, nor over a -H of its own. */
    CHECK_EQ_I64(HEY("-m", "HEAD", URL), CLI_RUN);
    CHECK(!header("Accept-Encoding"));
    CHECK_EQ_I64(HEY("-H", "Accept-Encoding: br", URL), CLI_RUN);
    CHECK_EQ_STR(header("Accept-Encoding"), "br");
    CHECK_EQ_I64(r.cfg.nheaders, 1);
    CHECK_EQ_I64(HEY("-disable-compression", URL), CLI_RUN);
    CHECK(!header("Accept-Encoding"));
}

/* hey's single-dash long flags, and its -t in whole seconds. */
static void test_long_flags(void)
{
    CHECK_EQ_I64(HEY("-disable-keepalive", "-disable-redirects", "-cpus", "1", "-t", "5", URL),
                 CLI_RUN);
    CHECK(r.cfg.no_keepalive);
    CHECK(!r.cfg.peer_follows_redirects);
    CHECK_EQ_I64(r.cfg.threads, 1);
    CHECK_EQ_U64(r.cfg.timeout_ns, 5 * NS);
    CHECK_EQ_I64(HEY("-t", "0", URL), CLI_RUN);
    CHECK(r.cfg.timeout_ns >= 30ull * 86400 * NS);
    /* Go's flag package also reads -n=N and --c=N, and a value glued on. */
    CHECK_EQ_I64(HEY("-n=30", "--c=3", "-z=2s", "-d{x}", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.connections, 3);
    CHECK_EQ_U64(r.cfg.duration_ns, 2 * NS);
    CHECK_EQ_I64(r.cfg.reqs[0].body_len, 3);
    CHECK_EQ_I64(HEY("-n=30", "-c=3", URL), CLI_RUN);
    CHECK_EQ_U64(r.cfg.requests, 30);
    CHECK_EQ_I64(HEY("-t", "1.5", URL), -EINVAL);
    CHECK_REFUSED("pacer: invalid timeout for -t: '1.5' (whole seconds, 0: none)\n");
}

/* -h2: ALPN over https, the workers as streams; HTTP/1.1 on http://. */
static void test_h2(void)
{
    CHECK_EQ_I64(HEY("-h2", "-c", "10", "-n", "100", TLS_URL), CLI_RUN);
    CHECK(r.cfg.h2);
    CHECK_EQ_I64(r.cfg.connections, 1);
    CHECK_EQ_I64(r.cfg.streams, 10);
    CHECK_EQ_I64(r.cfg.threads, 1);
    CHECK_EQ_I64(HEY("-h2", "-c", "250", "-n", "500", TLS_URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.connections, 3);
    CHECK_EQ_I64(r.cfg.streams, 84);
    CHECK_EQ_I64(HEY("-h2", "-c", "10", "-n", "100", URL), CLI_RUN);
    CHECK(!r.cfg.h2);
    CHECK_EQ_I64(r.cfg.connections, 10);
    CHECK(strstr(r.err, "pacer: note: -h2 on http:// is HTTP/1.1 in hey"));
}

static void test_refusals(void)
{
    CHECK_EQ_I64(HEY("-x", "127.0.0.1:3128", URL), -EINVAL);
    CHECK_REFUSED("pacer: -x/--proxy 127.0.0.1:3128: pacer connects to the URL's host itself and cannot "
                  "send through a proxy (hey's -x)\n");
    CHECK_EQ_I64(HEY("-o", "json", URL), -EINVAL);
    CHECK_REFUSED("pacer: -o takes csv (hey's only other output; it would read 'json' as a Go "
                  "template)\n");
    CHECK_EQ_I64(HEY("-o", "csv", "-z", "1s", URL), -EINVAL);
    CHECK_REFUSED("pacer: -o csv needs -n here (pacer keeps a row per request for a fixed "
                  "count): drop -z\n");
    CHECK_EQ_I64(HEY("-o", "csv", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.format, PC_FORMAT_HEY_CSV);
    /* pacer's own spellings are not hey's. */
    CHECK_EQ_I64(HEY("--h2x", URL), -EINVAL);
    CHECK(strncmp(r.err, "pacer: unknown option", 21) == 0);
}

static void test_help(void)
{
    CHECK_EQ_I64(HEY("-h"), CLI_EXIT);
    CHECK(strncmp(r.out, "Usage: pacer hey [options...] <url>\n", 36) == 0);
    CHECK(strstr(r.out, "\n  -disable-keepalive "));
    CHECK(strstr(r.out, "\n  -h2 "));
    CHECK_EQ_STR(r.err, "");
}

int main(void)
{
    RUN(test_defaults);
    RUN(test_count_and_rate);
    RUN(test_request_flags);
    RUN(test_long_flags);
    RUN(test_h2);
    RUN(test_refusals);
    RUN(test_help);
    harness_reset();
    return unit_done();
}

/*
 * options.c - pacer's own command line: its option table, in --help's
 * order, and its usage text.
 */
#include "cli/cli.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_int.h"
#include "cli/persona.h"

/* pacer's options, in --help's order. Add a flag here, in docs/pacer.md and
 * in docs/pacer.1 (a unit test checks that the three agree). */
static const cli_opt pacer_opts[] = {
    {"connections", 'c', "N", U32(connections, 1, MAX_COUNT),
     .help = "Connections to keep open (default 10)"},
    {"duration", 'd', "T", FN(take_duration), AT(duration_ns), .min = MS,
     .help = "Duration of test (default 10s)"},
    {"threads", 't', "N", U32(threads, 1, MAX_COUNT),
     .help = "Number of threads to use (default 2)"},
    {"rate", 'R', "R", FN(take_run_rate),
     .help = "Constant throughput in requests/s in total\n"
             "(absent: closed loop, as wrk); A..B: a linear ramp over -d"},
    {"stages", 0, "LIST", FN(take_stages),
     .help = "Load shape D:R[,D:R...]: each stage ramps linearly to\n"
             "R over D (D:R! jumps to R); -d defaults to their sum"},
    {"arrival", 0, "A", FN(take_arrival),
     .help = "Arrivals: constant (default) or poisson (random gaps)"},
    {"seed", 0, "N", FN(take_seed),
     .help = "Seed of --arrival poisson (default: random, printed)"},
    {"latency", 'L', NULL, ON(latency),
     .help = "Print latency statistics"},
    {"u_latency", 'U', NULL, ON(u_latency),
     .help = "Also print uncorrected latency statistics"},
    {"batch_latency", 'B', NULL, ON(batch_latency),
     .help = "Measure whole pipelined batches, not each request"},
    {"header", 'H', "H", FN(take_header),
     .help = "Add header to request (repeatable)"},
    {"timeout", 0, "T", DUR(timeout_ns, MS),
     .help = "Request timeout (default 2s)"},
    {"connect-timeout", 0, "T", DUR(connect_timeout_ns, MS),
     .help = "TCP connect + TLS handshake timeout (default 10s:\n"
             "survives the SYN retransmits of a full accept backlog)"},
    {"slack", 0, "D", FN(take_slack), AT(slack_ns),
     .help = "-R: send a due request up to D late to coalesce sends\n"
             "(0: exact; default: adaptive, 0 while a thread is idle)"},
    {"spin", 0, "D", FN(take_spin), AT(spin_ns),
     .help = "-R: poll instead of sleeping for the last D of each wait\n"
             "(on time where a sleeping thread wakes late; costs CPU; default 0)"},
    {"no-tx-times", 0, NULL, ON(no_tx_times),
     .help = "-R over TCP or QUIC: no kernel send stamps (the uncorrected\n"
             "latency then counts from pacer's write, not the kernel's send)"},
    {"warmup", 0, "T", DUR(warmup_ns, 0),
     .help = "Run this long first and discard it (default 0)"},
    {"pipeline", 0, "N", U32(pipeline, 1, 1024),
     .help = "HTTP/1.1 requests in flight per connection (default 1)"},
    {"h2", 0, NULL, ON(h2),
     .help = "HTTP/2: ALPN h2 over TLS, prior knowledge (h2c) in clear"},
    {"alpn", 0, "LIST", FN(take_alpn),
     .help = "Protocols to offer over TLS, e.g. h2,http/1.1 (h3: --h3)"},
    {"h3", 0, NULL, ON(h3),
     .help = "HTTP/3 over QUIC (UDP) to an https:// URL"},
    {"h3-window", 0, "BYTES", FN(take_bytes), AT(h3_window), .min = 1024,
     .help = "HTTP/3: QUIC per-stream flow-control window (default 256k)"},
    {"h3-conn-window", 0, "BYTES", FN(take_bytes), AT(h3_conn_window), .min = 1024,
     .help = "HTTP/3: QUIC connection flow-control window (default 1m)"},
    {"streams", 'm', "N", FN(take_streams), AT(streams), .min = 1, .max = 65536,
     .alias = "max-concurrent-streams",
     .help = "Concurrent HTTP/2 streams per connection (default 1;\n"
             "N > 1 implies --h2, as in h2load)"},
    {"window-bits", 0, "N", FN(take_window), AT(window_bits),
     .help = "HTTP/2 stream window 2^N-1 (default 30)"},
    {"connection-window-bits", 0, "N", FN(take_window), AT(conn_window_bits), .min = 16,
     .help = "HTTP/2 connection window 2^N-1 (default 30)"},
    {"format", 0, "F", FN(take_format),
     .help = "Report layout: wrk (default), h2load, ab or hey"},
    {"script", 's', "FILE", FN(take_script),
     .help = "Load a wrk Lua script (arguments after the URL or --)"},
    {"requests", 'n', "N", FN(take_requests),
     .help = "Send exactly N requests, then stop (-d: upper bound)"},
    {"no-keepalive", 0, NULL, ON(no_keepalive),
     .help = "A new connection for every request"},
    {"keepalive", 'k', NULL, FN(take_nothing),
     .help = "Keep-alive (the default; accepted for ab)"},
    {"method", 'X', "M", FN(take_method),
     .help = "Request method (default GET)"},
    {"body", 0, "TEXT", FN(take_body),
     .help = "Request body"},
    {"body-file", 'p', "FILE", FN(take_body_file_hint),
     .help = "Request body from a file"},
    {"content-type", 'T', "T", FN(take_content_type_hint),
     .help = "Content-Type of the body"},
    {"cookie", 'C', "NAME=V", FN(take_cookie),
     .help = "Add a cookie (repeatable)"},
    {"basic-auth", 'A', "U:P", FN(take_basic_auth),
     .help = "HTTP basic authentication"},
    {"head", 'i', NULL, FN(take_head),
     .help = "HEAD requests"},
    {"host", 0, "NAME", FN(take_host),
     .help = "Host header and TLS SNI (the URL's address is used)"},
    {"connect-to", 0, "H:P", FN(take_connect_to),
     .help = "Connect to H:P instead (the URL's Host is kept)"},
    {"source", 0, "A[-B]", FN(take_source),
     .help = "Bind each TCP connection to an IPv4 source address of A..B, round\n"
             "robin (automatic on loopback past 2000 connections: 127.0.0.1..N)"},
    {"urls", 0, "FILE", STR(urls_path),
     .help = "Requests from a file: [METHOD] URL [@BODYFILE] [WEIGHT]"},
    {"mix", 0, "M", FN(take_mix),
     .help = "With --urls: roundrobin (default) or random (weighted)"},
    {"strict-length", 0, NULL, ON(strict_length),
     .help = "Count a body length differing from the first as failed (ab)"},
    {"gnuplot", 'g', "FILE", STR(out.gnuplot_path),
     .help = "ab's per-request TSV (with -n)"},
    {"percentiles-csv", 'e', "FILE", STR(out.csv_pct_path),
     .help = "ab's percentage CSV"},
    {"unix", 0, "PATH", FN(take_unix),
     .help = "Connect to a Unix-domain socket"},
    {"tls-resume", 0, "on|off", FN(take_tls_resume), .help = "Resume TLS sessions (default on)"},
    {"verify", 0, NULL, ON(verify),
     .help = "Verify the server's TLS certificate"},
    {"cacert", 0, "FILE", FN(take_cacert),
     .help = "Trust these CA certificates (implies --verify)"},
    {"hlog", 0, "FILE", STR(out.hlog_path),
     .help = "Write an HdrHistogram interval log (ns)"},
    {"hgrm", 0, "FILE", STR(out.hgrm_path),
     .help = "Write the percentile distribution (HdrHistogram plotter)"},
    {"json", 0, "FILE", STR(out.json_path),
     .help = "Write all results as JSON ('-': stdout, report to stderr)"},
    {"csv", 0, "FILE", STR(out.csv_path),
     .help = "Write the per-interval time series as CSV"},
    {"html", 0, "FILE", STR(out.html_path),
     .help = "Write a self-contained HTML report with plots"},
    {"interval", 0, "T", DUR(interval_ns, 10 * MS),
     .help = "Interval of logs and time series (default 1s)"},
    {"progress", 0, NULL, SET(progress, PC_PROGRESS_ON),
     .help = "Live progress on stderr even when it is not a terminal"},
    {"quiet", 0, NULL, SET(progress, PC_PROGRESS_OFF),
     .help = "No live progress"},
    {"no-progress", 0, NULL, SET(progress, PC_PROGRESS_OFF),
     .help = "No live progress (as --quiet)"},
    {"slo", 0, "EXPR", FN(take_slo),
     .help = "Objectives, e.g. 'p99<=100ms,errors<=0.1%,rate>=99%':\n"
             "PASS/FAIL lines, exit 5 when one fails"},
    /* The server's cost (src/srvm/, docs/server-cost.md). */
    {"server-pid", 0, "PID|NAME", FN(take_server_pid),
     .help = "Sample the server's CPU and memory from /proc: PID and\n"
             "its descendants, or every process named NAME"},
    {"server-metrics", 0, "URL", FN(take_server_metrics),
     .help = "Scrape a Prometheus exporter on the server host\n"
             "(node-exporter, process-exporter; repeatable)"},
    {"rounds", 0, "N", U32(wf.rounds, 1, 1000), COMPARE_ONLY,
     .help = "Rounds of A B A B ... (default 3)"},
    {"start-rate", 0, "R", FN(take_start_rate), .section = "capacity",
     .help = "First rate tried (default 100), grown x2 until the\n"
             "SLO fails, then bisected; each step lasts -d,\n"
             "longer when a percentile needs more samples\n"
             "(with --stages: where the first stage starts, default 0)"},
    {"max-rate", 0, "R", FN(take_rate), AT(wf.max_rate), CAPACITY_ONLY,
     .help = "Never go above this rate (default 1M)"},
    {"max-time", 0, "T", DUR(wf.max_time_ns, 0), CAPACITY_ONLY,
     .help = "Stop searching after this long in all (default 10m)"},
    {"precision", 0, "P", FN(take_precision), CAPACITY_ONLY,
     .help = "Stop when the bracket is within P (default 5%)"},
    {"pause", 0, "T", DUR(wf.pause_ns, 0), CAPACITY_ONLY,
     .help = "Idle time between steps (default 1s)"},
    {"shard", 0, "I/N", FN(take_shard),
     .help = "Run share I of N (I from 0): -c, -n and -R split so the\n"
             "N processes add up to the run as given (man pacer)"},
    {"start-at", 0, "TIME", FN(take_start_at),
     .help = "Start the schedule at TIME (epoch seconds or ISO 8601);\n"
             "connections open before it"},
    {"per-rank", 0, NULL, ON(shard.per_rank),
     .help = "Under mpirun: after the merged report, a line per rank,\n"
             "and each rank's files beside the merged ones (run.rank-1.json)"},
    /* --metrics-listen (report/openmetrics.h) */
    {"metrics-listen", 0, "ADDR:PORT", FN(take_metrics_listen), .modes = 1u << PC_MODE_RUN,
     .help = "Serve pacer's own figures live (OpenMetrics on GET\n"
             "/metrics, for Prometheus) until the report is printed"},
    {"metrics-linger", 0, "T", DUR(metrics.linger_ns, 0), .modes = 1u << PC_MODE_RUN,
     .help = "After the report, serve the final figures until one\n"
             "scrape has read them, at most T (default 0)"},
    {"version", 'v', NULL, FN(take_version),
     .help = "Print version details"},
    {"help", 'h', NULL, FN(take_help),
     .help = "Print this help"},
};

_Static_assert(NOPTS(pacer_opts) <= MAX_OPTS, "raise MAX_OPTS");

static void pacer_usage(FILE *f);
const cli_table cli_pacer_table = {pacer_opts, NOPTS(pacer_opts), pacer_usage, "pacer", false};

/* Where doc NAME can be read on this machine: beside the executable's
 * prefix (PREFIX/bin/pacer: PREFIX/share/doc/pacer/NAME, where `make
 * install` puts it), or in the source tree it was built in (./pacer:
 * ./docs/NAME); NULL: neither (the man page has the same). */
static const char *doc_path(const char *name, char *buf, size_t cap)
{
    static const char *const under[] = {"/../share/doc/pacer/", "/docs/"};
    char exe[2048];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash;

    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    if (!(slash = strrchr(exe, '/')))
        return NULL;
    *slash = '\0';
    for (size_t i = 0; i < sizeof under / sizeof under[0]; i++) {
        char real[4096];

        if ((size_t)snprintf(buf, cap, "%s%s%s", exe, under[i], name) >= cap)
            continue;
        if (realpath(buf, real) && strlen(real) < cap) {
            memcpy(buf, real, strlen(real) + 1);
            return buf;
        }
    }
    return NULL;
}

/* "Reading the report, line by line: PATH" (or the man page). */
static void print_doc_line(FILE *f, const char *what, const char *name)
{
    char buf[4096];
    const char *p = doc_path(name, buf, sizeof buf);

    if (p)
        fprintf(f, "  %s: %s (and man pacer)\n", what, p);
    else
        fprintf(f, "  %s: man pacer (%s in pacer's docs)\n", what, name);
}

static void print_exit_codes(FILE *f)
{
    fputs("  Exit codes: 0 ok, 1 could not run, 2 usage, 3 no response received, 4 script error,\n"
          "              5 an --slo objective failed (capacity: even at the start rate),\n"
          "              130/143 stopped by SIGINT/SIGTERM (partial report printed)\n",
          f);
}

static void pacer_usage(FILE *f)
{
    fputs("Usage: pacer <options> <url> [--] [script args]\n"
          "       pacer report [-U] [--json FILE] [--hgrm FILE] [--html FILE] [--slo EXPR]\n"
          "                    [--from T] [--to T] [--force] FILE...\n"
          "       pacer compare [--rounds N] <options> URL_A URL_B [URL...]\n"
          "       pacer capacity --slo EXPR [--start-rate R] [--max-rate R] [--max-time T]\n"
          "                      <options> URL\n"
          "       pacer suite [--json FILE] [--html FILE] SUITE_FILE\n"
          "       pacer serve [--port N] [--size BYTES] [--delay D] ...\n"
          "       pacer TOOL <that tool's own options> (also a link named TOOL):\n",
          f);
    for (size_t i = 0; persona_at(i); i++)
        fprintf(f, "         %-8s %s\n", persona_at(i)->name, persona_at(i)->summary);
    fputs("  Each subcommand's own: pacer SUBCOMMAND --help\n", f);
    print_doc_line(f, "Reading the report, line by line", "reading-the-report.md");
    fputs("  Options:\n", f);
    print_options(&cli_pacer_table, f);
    fputs("\n"
          "  Numeric arguments may include a SI unit (1k, 1M, 1G)\n"
          "  Time arguments may include a time unit (2ms, 2s, 2m, 2h)\n",
          f);
    print_exit_codes(f);
}

/* The options of one --help section of pacer's table ("compare"), printed
 * as the main list. */
static void print_section(const char *section, FILE *f)
{
    cli_opt opts[MAX_OPTS];
    cli_table t = cli_pacer_table;

    t.n = 0;
    for (size_t i = 0; i < NOPTS(pacer_opts); i++)
        if (pacer_opts[i].section && strcmp(pacer_opts[i].section, section) == 0) {
            opts[t.n] = pacer_opts[i];
            opts[t.n++].section = NULL;
        }
    t.opts = opts;
    print_options(&t, f);
}

static const char run_options[] =
    "  Run options: every option of `pacer URL` applies to each run (-t, -c, -d, --warmup,\n"
    "  -H, --h2, --h3, --stages, --slo, --json, --html, ...): pacer --help lists them.\n";

static void compare_usage(FILE *f)
{
    fputs("Usage: pacer compare [--rounds N] <run options> URL_A URL_B [URL...]\n"
          "  The same load against each URL, interleaved A B A B ... for --rounds rounds, so\n"
          "  drift falls on every target alike; the rounds of each target merged and printed\n"
          "  side by side, each value with its ratio to the first target's.\n"
          "  compare's options:\n",
          f);
    print_section("compare", f);
    fputs(run_options, f);
    fputs("  Refused here: --hlog, --hgrm, --csv, -g, -e, --urls.\n"
          "  Example: pacer compare --rounds 5 -t2 -c50 -R2000 -d10s http://a:8080/ http://b:8080/\n",
          f);
    print_doc_line(f, "More", "pacer.md");
    fputs("  Exit codes: 0 ok, 1 could not run, 2 usage, 3 a target received no response,\n"
          "              5 an --slo objective failed for a target, 130/143 stopped by a signal\n",
          f);
}

static void capacity_usage(FILE *f)
{
    fputs("Usage: pacer capacity --slo EXPR [--start-rate R] [--max-rate R] [--max-time T]\n"
          "                      [--precision P] [--pause T] <run options> URL\n"
          "  The highest constant rate at which --slo holds: steps of -d at --start-rate,\n"
          "  doubled while the SLO passes, then the bracket bisected to --precision.\n"
          "  capacity's options:\n",
          f);
    print_section("capacity", f);
    fputs(run_options, f);
    fputs("  Refused here: -R and -n (pacer chooses the rate; each step lasts -d).\n"
          "  Example: pacer capacity --slo 'p99<=50ms,errors<=0.1%' -t2 -c100 -d5s http://a:8080/\n",
          f);
    print_doc_line(f, "More", "pacer.md");
    fputs("  Exit codes: 0 a passing rate found, 1 could not run, 2 usage, 3 a step got no\n"
          "              response, 5 none passed (or the first step was inconclusive),\n"
          "              130/143 stopped by a signal\n",
          f);
}

void cli_usage_mode(int mode, FILE *f)
{
    if (mode == PC_MODE_COMPARE)
        compare_usage(f);
    else if (mode == PC_MODE_CAPACITY)
        capacity_usage(f);
    else
        pacer_usage(f);
}

void cli_usage(FILE *f)
{
    pacer_usage(f);
}

const char *cli_long_option(size_t i)
{
    for (size_t k = 0; k < NOPTS(pacer_opts); k++) {
        if (i-- == 0)
            return pacer_opts[k].name;
        if (pacer_opts[k].alias && i-- == 0)
            return pacer_opts[k].alias;
    }
    return NULL;
}

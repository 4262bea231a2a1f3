/*
 * test_cli.c - unit tests for src/cli/ (cli.c, options.c, takes.c, parse.c): flags, defaults, errors, and
 * what is printed where.
 *
 * Each call goes through cli(): argv is a fresh array (getopt permutes it),
 * out and err are memory streams read back as strings. The previous call's
 * state is released at the start of the next one (and once more at exit),
 * so a CHECK that returns early leaks nothing.
 */
#include "cli/cli.h"
#include "cli_harness.h"
#include "unit.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define URL "http://127.0.0.1:8080/"
#define NS 1000000000ull

/* The subcommand cli_run parses for (PC_MODE_RUN: through cli_parse). */
static int cli_mode = PC_MODE_RUN;

/* Run cli_parse on "pacer" + args (NULL-terminated); fills r. */
static int cli_run(const char *const *args)
{
    return harness_parse(NULL, cli_mode, "pacer", args);
}

#define CLI(...) cli_run((const char *const[]){__VA_ARGS__, NULL})
/* The same for a subcommand's command line (PC_MODE_*). */
#define CLI_IN(mode, ...) \
    (cli_mode = (mode), CLI(__VA_ARGS__), cli_mode = PC_MODE_RUN, r.rc)
#define URL2 "http://127.0.0.1:8081/"

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* err holds exactly one line, "pacer: ...\n"; out is empty. */
#define CHECK_ONE_ERROR_LINE()                                                 \
    do {                                                                       \
        CHECK(r.rc < 0);                                                       \
        CHECK_EQ_I64(r.rc, -EINVAL);                                           \
        CHECK_EQ_I64(strncmp(r.err, "pacer: ", 7), 0);                         \
        CHECK_EQ_I64(count_lines(r.err), 1);                                   \
        CHECK_EQ_I64(r.err[strlen(r.err) - 1], '\n');                          \
        CHECK_EQ_STR(r.out, "");                                               \
    } while (0)

/* A rejected command line: one error line that mentions `what`. */
#define CHECK_REJECTED(what)                                                   \
    do {                                                                       \
        CHECK_ONE_ERROR_LINE();                                                \
        if (!strstr(r.err, (what))) {                                          \
            snprintf(unit_msg, sizeof unit_msg,                                \
                     "%s:%d: error \"%.*s\" does not mention \"%s\"",          \
                     __FILE__, __LINE__, (int)strcspn(r.err, "\n"), r.err,     \
                     (what));                                                  \
            unit_failed_now = 1;                                               \
            return;                                                            \
        }                                                                      \
    } while (0)

/* ---- defaults ---------------------------------------------------------- */

static void test_defaults(void)
{
    CHECK_EQ_I64(CLI(URL), CLI_RUN);
    CHECK_EQ_STR(r.out, "");
    CHECK_EQ_STR(r.err, "");
    CHECK_EQ_I64(r.cfg.threads, 2);
    CHECK_EQ_I64(r.cfg.connections, 10);
    CHECK_EQ_I64(r.cfg.duration_ns, 10 * NS);
    CHECK_EQ_I64(r.cfg.timeout_ns, 2 * NS);
    CHECK_EQ_I64(r.cfg.warmup_ns, 0);
    CHECK(r.cfg.rate == 0.0);
    CHECK_EQ_I64(r.cfg.pipeline, 1);
    CHECK_EQ_I64(r.cfg.latency, 0);
    CHECK_EQ_I64(r.cfg.u_latency, 0);
    CHECK_EQ_I64(r.cfg.batch_latency, 0);
    CHECK_EQ_I64(r.cfg.nheaders, 0);
    CHECK(r.cfg.unix_path == NULL);
    CHECK_EQ_I64(r.cfg.verify, 0);
    CHECK(r.cfg.cacert == NULL);
    CHECK_EQ_I64(r.cfg.version, 0);
    CHECK_EQ_I64(r.cfg.nscript_args, 0);
    CHECK_EQ_STR(r.cfg.url_text, URL);
    CHECK_EQ_STR(r.cfg.url.host, "127.0.0.1");
    CHECK_EQ_STR(r.cfg.url.port, "8080");
    CHECK_EQ_STR(r.cfg.url.hostport, "127.0.0.1:8080");
    CHECK_EQ_STR(r.cfg.url.path, "/");
    CHECK_EQ_I64(r.cfg.url.tls, 0);
}

/* ---- each flag, short and long ----------------------------------------- */

static void test_threads(void)
{
    CHECK_EQ_I64(CLI("-t", "4", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.threads, 4);
    CHECK_EQ_I64(CLI("--threads", "5", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.threads, 5);
    CHECK_EQ_I64(CLI("--threads=3", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.threads, 3);
    CHECK_EQ_I64(CLI("-t1", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.threads, 1);
    CHECK_EQ_STR(r.err, "");
}

static void test_connections(void)
{
    CHECK_EQ_I64(CLI("-c", "100", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.connections, 100);
    CHECK_EQ_I64(CLI("--connections", "1k", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.connections, 1000);
    CHECK_EQ_I64(CLI("--connections=2", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.connections, 2);
    CHECK_EQ_I64(CLI("-c", "10000000", "-t", "1", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.connections, 10000000);
}

static void test_duration(void)
{
    CHECK_EQ_I64(CLI("-d", "30s", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.duration_ns, 30 * NS);
    CHECK_EQ_I64(CLI("--duration", "2m", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.duration_ns, 120 * NS);
    CHECK_EQ_I64(CLI("-d", "5", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.duration_ns, 5 * NS);
    CHECK_EQ_I64(CLI("-d", "1ms", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.duration_ns, 1000000);
}

static void test_rate(void)
{
    CHECK_EQ_I64(CLI("-R", "2.5k", URL), CLI_RUN);
    CHECK(r.cfg.rate == 2500.0);
    CHECK_EQ_I64(CLI("--rate", "1000", URL), CLI_RUN);
    CHECK(r.cfg.rate == 1000.0);
    CHECK_EQ_I64(CLI("--rate=0.5", URL), CLI_RUN);
    CHECK(r.cfg.rate == 0.5);
    CHECK_EQ_I64(CLI("-R", "1M", URL), CLI_RUN);
    CHECK(r.cfg.rate == 1e6);
}

static void test_latency_flags(void)
{
    CHECK_EQ_I64(CLI("-L", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.latency, 1);
    CHECK_EQ_I64(r.cfg.u_latency, 0);
    CHECK_EQ_I64(CLI("--latency", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.latency, 1);
    CHECK_EQ_I64(CLI("-U", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.u_latency, 1);
    CHECK_EQ_I64(r.cfg.latency, 0);
    CHECK_EQ_I64(CLI("--u_latency", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.u_latency, 1);
    CHECK_EQ_I64(CLI("-LU", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.latency, 1);
    CHECK_EQ_I64(r.cfg.u_latency, 1);
    CHECK_EQ_STR(r.err, "");
}

static void test_batch_latency(void)
{
    CHECK_EQ_I64(CLI("-B", "--pipeline", "4", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.batch_latency, 1);
    CHECK_EQ_I64(r.cfg.pipeline, 4);
    CHECK_EQ_STR(r.err, "");
    CHECK_EQ_I64(CLI("--batch_latency", "--pipeline=2", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.batch_latency, 1);
    CHECK_EQ_I64(r.cfg.pipeline, 2);
    CHECK_EQ_STR(r.err, "");
    /* Without pipelining -B does nothing: it runs, with one note on err. */
    CHECK_EQ_I64(CLI("-B", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.batch_latency, 1);
    CHECK_EQ_I64(count_lines(r.err), 1);
    CHECK_EQ_I64(strncmp(r.err, "pacer: note: ", 13), 0);
}

static void test_timeout_warmup_pipeline(void)
{
    CHECK_EQ_I64(CLI("--timeout", "500ms", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.timeout_ns, 500000000);
    CHECK_EQ_I64(CLI("--timeout=5", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.timeout_ns, 5 * NS);
    CHECK_EQ_I64(CLI("--warmup", "3s", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.warmup_ns, 3 * NS);
    CHECK_EQ_I64(CLI("--warmup", "0", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.warmup_ns, 0);
    CHECK_EQ_I64(CLI("--pipeline", "16", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.pipeline, 16);
    CHECK_EQ_I64(CLI("--pipeline", "1024", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.pipeline, 1024);
}

static void test_unix_verify_cacert(void)
{
    CHECK_EQ_I64(CLI("--unix", "/run/app.sock", URL), CLI_RUN);
    CHECK_EQ_STR(r.cfg.unix_path, "/run/app.sock");
    CHECK_EQ_I64(r.cfg.verify, 0);
    CHECK_EQ_I64(CLI("--verify", "https://h/"), CLI_RUN);
    CHECK_EQ_I64(r.cfg.verify, 1);
    CHECK(r.cfg.cacert == NULL);
    CHECK_EQ_I64(r.cfg.url.tls, 1);
    CHECK_EQ_I64(CLI("--cacert", "/etc/ca.pem", "https://h/"), CLI_RUN);
    CHECK_EQ_STR(r.cfg.cacert, "/etc/ca.pem");
    CHECK_EQ_I64(r.cfg.verify, 1); /* implied */
}

static void test_headers(void)
{
    CHECK_EQ_I64(CLI("-H", "Name:value", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.nheaders, 1);
    CHECK_EQ_STR(r.cfg.headers[0].name, "Name");
    CHECK_EQ_STR(r.cfg.headers[0].value, "value");
    CHECK_EQ_I64(CLI("-H", "Name: value", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.nheaders, 1);
    CHECK_EQ_STR(r.cfg.headers[0].name, "Name");
    CHECK_EQ_STR(r.cfg.headers[0].value, "value");
    CHECK_EQ_I64(CLI("--header", "X-Empty:", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.nheaders, 1);
    CHECK_EQ_STR(r.cfg.headers[0].name, "X-Empty");
    CHECK_EQ_STR(r.cfg.headers[0].value, "");
    /* Only the first colon splits; the rest belongs to the value. */
    CHECK_EQ_I64(CLI("--header=Host: example.com:8080", URL), CLI_RUN);
    CHECK_EQ_STR(r.cfg.headers[0].name, "Host");
    CHECK_EQ_STR(r.cfg.headers[0].value, "example.com:8080");
}

static void test_headers_keep_order(void)
{
    CHECK_EQ_I64(CLI("-H", "A: 1", "--header", "B:2", URL, "-H", "A: 3", "-H", "C:  x y "),
                 CLI_RUN);
    CHECK_EQ_I64(r.cfg.nheaders, 4);
    CHECK_EQ_STR(r.cfg.headers[0].name, "A");
    CHECK_EQ_STR(r.cfg.headers[0].value, "1");
    CHECK_EQ_STR(r.cfg.headers[1].name, "B");
    CHECK_EQ_STR(r.cfg.headers[1].value, "2");
    CHECK_EQ_STR(r.cfg.headers[2].name, "A");
    CHECK_EQ_STR(r.cfg.headers[2].value, "3");
    CHECK_EQ_STR(r.cfg.headers[3].name, "C");
    CHECK_EQ_STR(r.cfg.headers[3].value, "x y ");
}

static void test_all_flags_together(void)
{
    CHECK_EQ_I64(CLI("-t", "3", "-c", "30", "-d", "1m", "-R", "300", "-L", "-U", "-B", "-H",
                     "X: y", "--timeout", "1s", "--warmup", "2s", "--pipeline", "8", "--unix",
                     "/tmp/s", "--verify", "--cacert", "ca.pem", "https://h:8443/p?q"),
                 CLI_RUN);
    CHECK_EQ_STR(r.err, "");
    CHECK_EQ_STR(r.out, "");
    CHECK_EQ_I64(r.cfg.threads, 3);
    CHECK_EQ_I64(r.cfg.connections, 30);
    CHECK_EQ_I64(r.cfg.duration_ns, 60 * NS);
    CHECK(r.cfg.rate == 300.0);
    CHECK_EQ_I64(r.cfg.latency && r.cfg.u_latency && r.cfg.batch_latency, 1);
    CHECK_EQ_I64(r.cfg.nheaders, 1);
    CHECK_EQ_I64(r.cfg.timeout_ns, NS);
    CHECK_EQ_I64(r.cfg.warmup_ns, 2 * NS);
    CHECK_EQ_I64(r.cfg.pipeline, 8);
    CHECK_EQ_STR(r.cfg.unix_path, "/tmp/s");
    CHECK_EQ_I64(r.cfg.verify, 1);
    CHECK_EQ_STR(r.cfg.cacert, "ca.pem");
    CHECK_EQ_STR(r.cfg.url.hostport, "h:8443");
    CHECK_EQ_STR(r.cfg.url.path, "/p?q");
    CHECK_EQ_I64(r.cfg.nscript_args, 0);
}

/* ---- help and version -------------------------------------------------- */

static void test_help(void)
{
    CHECK_EQ_I64(CLI("-h"), CLI_EXIT);
    CHECK_EQ_STR(r.err, "");
    CHECK_EQ_I64(strncmp(r.out, "Usage: pacer", 12), 0);
    CHECK(strstr(r.out, "--connections") != NULL);
    CHECK(count_lines(r.out) > 10);
    CHECK_EQ_I64(CLI("--help", URL), CLI_EXIT);
    CHECK_EQ_STR(r.err, "");
    CHECK_EQ_I64(strncmp(r.out, "Usage: pacer", 12), 0);
    /* Help wins over a bad value given after it is seen. */
    CHECK_EQ_I64(CLI("-h", "-c", "abc"), CLI_EXIT);
    CHECK_EQ_STR(r.err, "");
}

static void test_help_matches_cli_usage(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    CHECK(f != NULL);
    cli_usage(f);
    fclose(f);
    CLI("-h");
    int same = strcmp(r.out, buf) == 0;
    free(buf);
    CHECK(same);
}

/* ---- the option table: --help and the docs list every option ---------- */

/* Whether text has spell ("--max-rate", or the man page's "\-\-max\-rate")
 * as a whole option name, not as the start or the end of a longer one. */
static int has_option(const char *text, const char *spell)
{
    size_t n = strlen(spell);

    for (const char *p = strstr(text, spell); p; p = strstr(p + 1, spell)) {
        const char *e = p + n;
        int name_char = (*e >= 'a' && *e <= 'z') || (*e >= '0' && *e <= '9') || *e == '_';

        if (p > text && (p[-1] == '-' || (p[-1] >= 'a' && p[-1] <= 'z')))
            continue;
        if (name_char || (*e == '-' && e[1] >= 'a' && e[1] <= 'z') ||
            (e[0] == '\\' && e[1] == '-'))
            continue;
        return 1;
    }
    return 0;
}

/* "--name" as the man page writes it: every '-' is "\-". */
static void man_spelling(const char *name, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "\\-\\-");

    for (; *name && n + 3 < cap; name++) {
        if (*name == '-')
            buf[n++] = '\\';
        buf[n++] = *name;
    }
    buf[n] = '\0';
}

static char *read_doc(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf = NULL;
    size_t len = 0, n;
    char chunk[4096];
    FILE *m = open_memstream(&buf, &len);

    if (!f || !m)
        abort();
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, n, m);
    fclose(f);
    fclose(m);
    return buf;
}

static int is_option(const char *name, size_t len)
{
    for (size_t i = 0; cli_long_option(i); i++)
        if (strlen(cli_long_option(i)) == len && strncmp(cli_long_option(i), name, len) == 0)
            return 1;
    return 0;
}

static void test_help_lists_every_option(void)
{
    char spell[64];

    CHECK(cli_long_option(0) != NULL);
    CHECK_EQ_I64(CLI("--help"), CLI_EXIT);
    for (size_t i = 0; cli_long_option(i); i++) {
        snprintf(spell, sizeof spell, "--%s", cli_long_option(i));
        if (!has_option(r.out, spell))
            CHECK_EQ_STR(spell, "(in pacer --help)");
    }
    /* An alias is an option too: it parses as its entry does. */
    CHECK_EQ_I64(CLI("--max-concurrent-streams", "4", "--h2", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.streams, 4);
    CHECK_EQ_I64(CLI("-max-concurrent-streams", "4", URL), -EINVAL);
    CHECK_ONE_ERROR_LINE();
    CHECK_EQ_STR(r.err, "pacer: unknown option '-max-concurrent-streams': did you mean "
                        "'--max-concurrent-streams'?\n");
}

/* Every option of the table is in docs/pacer.md and docs/pacer.1. */
static void test_docs_list_every_option(void)
{
    char *md = read_doc("docs/pacer.md"), *man = read_doc("docs/pacer.1");
    char spell[64], mspell[128], missing[1024] = "";
    size_t n = 0;

    for (size_t i = 0; cli_long_option(i); i++) {
        snprintf(spell, sizeof spell, "--%s", cli_long_option(i));
        man_spelling(cli_long_option(i), mspell, sizeof mspell);
        if (!has_option(md, spell) && n < sizeof missing)
            n += (size_t)snprintf(missing + n, sizeof missing - n, " pacer.md:%s", spell);
        if (!has_option(man, mspell) && n < sizeof missing)
            n += (size_t)snprintf(missing + n, sizeof missing - n, " pacer.1:%s", spell);
    }
    free(md);
    free(man);
    CHECK_EQ_STR(missing, "");
}

/* The other way round: every option the docs' OPTIONS lists name (the
 * first column of pacer.md's table, the .BR lines of pacer.1) is one. */
static void test_docs_list_only_options(void)
{
    char *md = read_doc("docs/pacer.md"), *man = read_doc("docs/pacer.1");
    const char *p, *end;
    char unknown[64] = "";
    int rows = 0;

    p = strstr(md, "\n## OPTIONS\n");
    end = p ? strstr(p + 1, "\n#") : NULL;
    for (; p && p < end && !unknown[0]; p = strchr(p + 1, '\n')) {
        const char *cell_end;

        if (strncmp(p, "\n| `", 4) != 0)
            continue;
        rows++;
        cell_end = strstr(p + 4, " |");
        for (const char *q = p + 4; q < cell_end && !unknown[0]; q++) {
            size_t n = 0;

            if (strncmp(q, "--", 2) != 0)
                continue;
            while (q[2 + n] == '-' || q[2 + n] == '_' || (q[2 + n] >= 'a' && q[2 + n] <= 'z') ||
                   (q[2 + n] >= '0' && q[2 + n] <= '9'))
                n++;
            if (!is_option(q + 2, n))
                snprintf(unknown, sizeof unknown, "pacer.md: --%.*s", (int)n, q + 2);
            q += 1 + n;
        }
    }
    p = strstr(man, "\n.SH OPTIONS\n");
    end = p ? strstr(p + 1, "\n.SH ") : NULL;
    for (; p && p < end && !unknown[0]; p = strchr(p + 1, '\n')) {
        const char *eol = strchr(p + 1, '\n');

        if (strncmp(p, "\n.BR ", 5) != 0)
            continue;
        rows++;
        for (const char *q = p + 5; q < eol && !unknown[0]; q++) {
            char name[64];
            size_t n = 0;

            if (strncmp(q, "\\-\\-", 4) != 0)
                continue;
            for (q += 4; q < eol && n + 1 < sizeof name; q++)
                if (strncmp(q, "\\-", 2) == 0 && q[2] >= 'a' && q[2] <= 'z')
                    name[n++] = '-', q++;
                else if (*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9'))
                    name[n++] = *q;
                else
                    break;
            if (!is_option(name, n))
                snprintf(unknown, sizeof unknown, "pacer.1: --%.*s", (int)n, name);
        }
    }
    free(md);
    free(man);
    CHECK_EQ_STR(unknown, "");
    CHECK(rows > 40);
}

/* The table says which subcommands take an option; the others refuse it. */
static void test_options_of_one_subcommand(void)
{
    CHECK_EQ_I64(CLI("--rounds", "2", URL), -EINVAL);
    CHECK_ONE_ERROR_LINE();
    CHECK_EQ_STR(r.err, "pacer: --rounds is an option of pacer compare\n");
    CHECK_EQ_I64(CLI("--pause=1s", URL), -EINVAL);
    CHECK_EQ_STR(r.err, "pacer: --pause is an option of pacer capacity\n");

    CHECK_EQ_I64(CLI_IN(PC_MODE_COMPARE, "--start-rate", "5", URL, URL2), -EINVAL);
    CHECK_EQ_STR(r.err, "pacer: --start-rate is where --stages begins (or pacer capacity's first "
                        "rate): it needs --stages\n");
    CHECK_EQ_I64(CLI_IN(PC_MODE_COMPARE, "--rounds", "5", URL, URL2), CLI_RUN);
    CHECK_EQ_I64(r.cfg.wf.rounds, 5);
    CHECK_EQ_I64(r.cfg.wf.ntargets, 2);

    CHECK_EQ_I64(CLI_IN(PC_MODE_CAPACITY, "--slo", "p99<=1s", "--precision", "10%",
                        "--max-time=1m", URL),
                 CLI_RUN);
    CHECK_NEAR(r.cfg.wf.precision, 0.1, 1e-12);
    CHECK_EQ_U64(r.cfg.wf.max_time_ns, 60 * NS);
    CHECK_EQ_I64(CLI_IN(PC_MODE_CAPACITY, "--slo", "p99<=1s", "--rounds", "2", URL), -EINVAL);
    CHECK_EQ_STR(r.err, "pacer: --rounds is an option of pacer compare\n");
}

/* --format's error names every layout it takes. */
static void test_format(void)
{
    CHECK_EQ_I64(CLI("--format", "ab", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.format, PC_FORMAT_AB);
    CHECK_EQ_I64(CLI("--format=h2load", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.format, PC_FORMAT_H2LOAD);
    CHECK_EQ_I64(CLI("--format", "hey", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.format, PC_FORMAT_HEY);
    CHECK_EQ_I64(CLI("--format", "json", URL), -EINVAL);
    CHECK_ONE_ERROR_LINE();
    CHECK_EQ_STR(r.err, "pacer: unknown --format 'json' (wrk, h2load, ab or hey)\n");
}

static void test_version_alone(void)
{
    CHECK_EQ_I64(CLI("-v"), CLI_EXIT);
    CHECK_EQ_STR(r.err, "");
    CHECK_EQ_I64(strncmp(r.out, "pacer ", 6), 0);
    CHECK(strstr(r.out, PACER_VERSION) != NULL);
    const char *nl = strchr(r.out, '\n');
    CHECK(nl != NULL);
    CHECK(strstr(r.out, PACER_VERSION) < nl);
    CHECK_EQ_I64(strncmp(nl + 1, "Usage: pacer", 12), 0);
    CHECK_EQ_I64(CLI("--version"), CLI_EXIT);
    CHECK_EQ_I64(strncmp(r.out, "pacer ", 6), 0);
}

static void test_version_with_url_runs(void)
{
    CHECK_EQ_I64(CLI("-v", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.version, 1);
    CHECK_EQ_STR(r.err, "");
    CHECK_EQ_I64(strncmp(r.out, "pacer ", 6), 0);
    CHECK_EQ_I64(count_lines(r.out), 1); /* the version line, no usage */
    CHECK(strstr(r.out, PACER_VERSION) != NULL);
    CHECK_EQ_STR(r.cfg.url.hostport, "127.0.0.1:8080");
    CHECK_EQ_I64(CLI(URL, "--version", "-c", "4"), CLI_RUN);
    CHECK_EQ_I64(r.cfg.version, 1);
    CHECK_EQ_I64(r.cfg.connections, 4);
}

/* ---- argument order, "--" and script args ------------------------------ */

static void test_options_after_url(void)
{
    CHECK_EQ_I64(CLI(URL, "-c", "5"), CLI_RUN);
    CHECK_EQ_I64(r.cfg.connections, 5);
    CHECK_EQ_STR(r.cfg.url_text, URL);
    CHECK_EQ_I64(r.cfg.nscript_args, 0);
    CHECK_EQ_I64(CLI("-t", "1", URL, "-c", "5", "-d", "3s", "--latency"), CLI_RUN);
    CHECK_EQ_I64(r.cfg.threads, 1);
    CHECK_EQ_I64(r.cfg.connections, 5);
    CHECK_EQ_I64(r.cfg.duration_ns, 3 * NS);
    CHECK_EQ_I64(r.cfg.latency, 1);
    CHECK_EQ_STR(r.cfg.url_text, URL);
}

static void test_script_args_after_dashdash(void)
{
    CHECK_EQ_I64(CLI(URL, "--", "a", "-c", "--bogus"), CLI_RUN);
    CHECK_EQ_STR(r.cfg.url_text, URL);
    CHECK_EQ_I64(r.cfg.connections, 10); /* "-c" after "--" is not an option */
    CHECK_EQ_I64(r.cfg.nscript_args, 3);
    CHECK_EQ_STR(r.cfg.script_args[0], "a");
    CHECK_EQ_STR(r.cfg.script_args[1], "-c");
    CHECK_EQ_STR(r.cfg.script_args[2], "--bogus");
    CHECK_EQ_STR(r.err, "");

    CHECK_EQ_I64(CLI("-c", "5", URL, "--", "x"), CLI_RUN);
    CHECK_EQ_I64(r.cfg.connections, 5);
    CHECK_EQ_I64(r.cfg.nscript_args, 1);
    CHECK_EQ_STR(r.cfg.script_args[0], "x");

    CHECK_EQ_I64(CLI(URL, "-c", "5", "--", "x", "y"), CLI_RUN);
    CHECK_EQ_I64(r.cfg.connections, 5);
    CHECK_EQ_STR(r.cfg.url_text, URL);
    CHECK_EQ_I64(r.cfg.nscript_args, 2);
    CHECK_EQ_STR(r.cfg.script_args[0], "x");
    CHECK_EQ_STR(r.cfg.script_args[1], "y");

    CHECK_EQ_I64(CLI("--", URL, "x"), CLI_RUN);
    CHECK_EQ_STR(r.cfg.url_text, URL);
    CHECK_EQ_I64(r.cfg.nscript_args, 1);
    CHECK_EQ_STR(r.cfg.script_args[0], "x");

    CHECK_EQ_I64(CLI(URL, "--"), CLI_RUN);
    CHECK_EQ_I64(r.cfg.nscript_args, 0);
}

static void test_script_args_without_dashdash(void)
{
    CHECK_EQ_I64(CLI(URL, "a", "b"), CLI_RUN);
    CHECK_EQ_STR(r.cfg.url_text, URL);
    CHECK_EQ_I64(r.cfg.nscript_args, 2);
    CHECK_EQ_STR(r.cfg.script_args[0], "a");
    CHECK_EQ_STR(r.cfg.script_args[1], "b");
}

/* ---- rejections -------------------------------------------------------- */

static void test_reject_unknown_flag(void)
{
    CLI("-x", URL);
    CHECK_REJECTED("-x");
    CLI("--bogus", URL);
    CHECK_REJECTED("--bogus");
    CLI(URL, "--bogus=1");
    CHECK_REJECTED("--bogus");
    CLI("-Lq", URL);
    CHECK_REJECTED("-q");
}

static void test_reject_missing_value(void)
{
    CLI(URL, "-c");
    CHECK_REJECTED("-c");
    CHECK(strstr(r.err, "value") != NULL);
    CLI(URL, "--threads");
    CHECK_REJECTED("--threads");
    CLI(URL, "-H");
    CHECK_REJECTED("-H");
    CLI(URL, "--timeout");
    CHECK_REJECTED("--timeout");
}

static void test_reject_bad_numbers(void)
{
    CLI("-c", "abc", URL);
    CHECK_REJECTED("abc");
    CHECK(strstr(r.err, "-c") != NULL);
    CLI("-t", "0", URL);
    CHECK_REJECTED("-t");
    CLI("-c", "0", URL);
    CHECK_REJECTED("-c");
    CLI("-t", "1.5", URL);
    CHECK_REJECTED("1.5");
    CLI("-c", "-1", URL);
    CHECK_REJECTED("-1");
    CLI("-c", "10000001", URL);
    CHECK_REJECTED("10000001");
    CLI("-c", "4294967306", URL); /* 2^32 + 10: must not wrap to 10 */
    CHECK_REJECTED("4294967306");
    CLI("--pipeline", "0", URL);
    CHECK_REJECTED("--pipeline");
    CLI("--pipeline", "1025", URL);
    CHECK_REJECTED("1025");
}

static void test_reject_bad_duration(void)
{
    CLI("-d", "10x", URL);
    CHECK_REJECTED("10x");
    CLI("-d", "abc", URL);
    CHECK_REJECTED("-d");
    CLI("-d", "0", URL);
    CHECK_REJECTED("-d");
    CLI("-d", "500us", URL);
    CHECK_REJECTED("500us");
    CLI("--timeout", "0", URL);
    CHECK_REJECTED("--timeout");
    CLI("--timeout", "-1s", URL);
    CHECK_REJECTED("--timeout");
    CLI("--warmup", "soon", URL);
    CHECK_REJECTED("--warmup");
}

static void test_reject_bad_rate(void)
{
    CLI("-R", "0", URL);
    CHECK_REJECTED("-R");
    CLI("-R", "-5", URL);
    CHECK_REJECTED("-5");
    CLI("-R", "abc", URL);
    CHECK_REJECTED("abc");
    CLI("--rate", "nan", URL);
    CHECK_REJECTED("nan");
    CLI("--rate=0.0", URL);
    CHECK_REJECTED("0.0");
}

/* wrk refuses -t above -c; pacer lowers -t to -c (a thread without a
 * connection would idle) and says so on the error stream. */
static void test_threads_lowered_to_connections(void)
{
    CLI("-c", "1", "-t", "2", URL);
    CHECK_EQ_I64(r.rc, CLI_RUN);
    CHECK_EQ_I64(r.cfg.threads, 1);
    CHECK(strstr(r.err, "using 1 thread, not 2") != NULL);
    CLI("-t", "8", URL); /* default 10 connections >= 8 is unchanged */
    CHECK_EQ_I64(r.cfg.threads, 8);
    CLI("-t", "11", URL);
    CHECK_EQ_I64(r.rc, CLI_RUN);
    CHECK_EQ_I64(r.cfg.threads, 10);
}

static void test_reject_bad_url(void)
{
    CLI("ftp://x");
    CHECK_REJECTED("ftp://x");
    CLI("-c", "5", "http://h:65536/");
    CHECK_REJECTED("65536");
    CLI("http://");
    CHECK_ONE_ERROR_LINE();
    CLI("localhost:8080");
    CHECK_ONE_ERROR_LINE();
}

static void test_reject_missing_url(void)
{
    const char *last;

    CHECK(CLI("-c", "5") < 0);
    CHECK_EQ_I64(r.rc, -EINVAL);
    CHECK_EQ_STR(r.out, "");
    /* Usage may come first; the last line is the error, and it is the only
     * line that starts with "pacer: ". */
    CHECK(r.errlen > 0 && r.err[r.errlen - 1] == '\n');
    r.err[r.errlen - 1] = '\0';
    last = strrchr(r.err, '\n');
    last = last ? last + 1 : r.err;
    CHECK_EQ_I64(strncmp(last, "pacer: ", 7), 0);
    CHECK(strstr(last, "missing URL") != NULL);
    int n = 0;
    for (const char *p = r.err; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        n += strncmp(p, "pacer: ", 7) == 0;
    CHECK_EQ_I64(n, 1);

    CHECK(CLI("--") < 0);
    CHECK(strstr(r.err, "missing URL") != NULL);
    CHECK(CLI("-L", "--latency") < 0);
    CHECK(strstr(r.err, "missing URL") != NULL);
}

static void test_reject_bad_headers(void)
{
    CLI("-H", "NoColon", URL);
    CHECK_REJECTED("NoColon");
    CLI("-H", "Bad Name: v", URL);
    CHECK_REJECTED("Bad Name");
    CLI("-H", ": v", URL);
    CHECK_REJECTED("invalid header");
    CLI("-H", "N\"ame: v", URL);
    CHECK_ONE_ERROR_LINE();
    CLI("-H", "Name : v", URL);
    CHECK_ONE_ERROR_LINE();
    CLI("-H", "Ok: 1", "-H", "Bad(: v", URL); /* the first is freed by cli_free */
    CHECK_ONE_ERROR_LINE();
}

/* A header value with a line break would inject a header: refused, and the
 * error is still one line. */
static void test_reject_header_line_break(void)
{
    CLI("-H", "X: a\r\nEvil: 1", URL);
    CHECK(r.rc < 0);
    CHECK_EQ_I64(r.cfg.nheaders, 0);
    CHECK_ONE_ERROR_LINE();
}

static void test_reject_unix_path_too_long(void)
{
    char path[200];

    memset(path, 'p', 108);
    path[0] = '/';
    path[108] = '\0';
    CLI("--unix", path, URL);
    CHECK_REJECTED("--unix");
    path[107] = '\0';
    CHECK_EQ_I64(CLI("--unix", path, URL), CLI_RUN);
    CHECK_EQ_STR(r.cfg.unix_path, path);
}

/* ---- calling cli_parse many times in one process ----------------------- */

static void test_many_calls(void)
{
    for (int i = 0; i < 500; i++) {
        switch (i % 6) {
        case 0:
            CHECK_EQ_I64(CLI("-c", "7", URL, "-t", "3"), CLI_RUN);
            CHECK_EQ_I64(r.cfg.connections, 7);
            CHECK_EQ_I64(r.cfg.threads, 3);
            CHECK_EQ_I64(r.cfg.latency, 0);
            break;
        case 1:
            CLI("-c", "abc", URL);
            CHECK_REJECTED("abc");
            break;
        case 2:
            CHECK_EQ_I64(CLI("-h"), CLI_EXIT);
            break;
        case 3:
            CHECK_EQ_I64(CLI(URL, "--", "s"), CLI_RUN);
            CHECK_EQ_I64(r.cfg.nscript_args, 1);
            CHECK_EQ_STR(r.cfg.script_args[0], "s");
            break;
        case 4:
            CLI(URL, "-c");
            CHECK_REJECTED("-c");
            break;
        case 5:
            CHECK_EQ_I64(CLI("-L", "-H", "A: b", URL), CLI_RUN);
            CHECK_EQ_I64(r.cfg.latency, 1);
            CHECK_EQ_I64(r.cfg.nheaders, 1);
            break;
        }
    }
}

/* A call that stopped in the middle of a group of short options ("-xL":
 * unknown -x; "-hL": help) must not leave getopt state that the next call
 * picks up (here: a stray -L, and a shifted argv). */
static void test_next_call_after_error_in_option_group(void)
{
    CLI("-xL", URL);
    CHECK_REJECTED("-x");
    CLI("-c", "5", URL);
    if (r.rc != CLI_RUN) {
        snprintf(unit_msg, sizeof unit_msg, "%s:%d: second call returned %d: %.*s", __FILE__,
                 __LINE__, r.rc, (int)strcspn(r.err, "\n"), r.err);
        unit_failed_now = 1;
        return;
    }
    CHECK_EQ_I64(r.cfg.latency, 0);
    CHECK_EQ_I64(r.cfg.connections, 5);
    CHECK_EQ_STR(r.cfg.url_text, URL);
}

static void test_next_call_after_help_in_option_group(void)
{
    CHECK_EQ_I64(CLI("-hU"), CLI_EXIT);
    CLI("-c", "6", URL);
    if (r.rc != CLI_RUN) {
        snprintf(unit_msg, sizeof unit_msg, "%s:%d: second call returned %d: %.*s", __FILE__,
                 __LINE__, r.rc, (int)strcspn(r.err, "\n"), r.err);
        unit_failed_now = 1;
        return;
    }
    CHECK_EQ_I64(r.cfg.u_latency, 0);
    CHECK_EQ_I64(r.cfg.connections, 6);
    CHECK_EQ_STR(r.cfg.url_text, URL);
}

/* Load shapes: --stages, -R A..B, --arrival, --seed, --start-rate. */
static void test_load_shapes(void)
{
    CHECK_EQ_I64(CLI("--stages", "2s:100,1s:300!,500ms:0", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.shape.n, 3);
    CHECK_EQ_U64(r.cfg.shape.stages[0].dur_ns, 2000000000ull);
    CHECK(r.cfg.shape.stages[1].step && !r.cfg.shape.stages[0].step);
    CHECK(r.cfg.shape.stages[2].rate == 0);
    CHECK_EQ_U64(r.cfg.duration_ns, 3500000000ull); /* -d: the stages' sum */
    /* The mean: (100 + 300 + 75) requests over 3.5 s. */
    CHECK(fabs(r.cfg.rate - 475 / 3.5) < 1e-9);
    CHECK_EQ_I64(r.cfg.shape.arrival, PC_ARRIVAL_CONSTANT);

    CHECK_EQ_I64(CLI("-R", "100..1k", "-d", "4s", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.shape.n, 1);
    CHECK(r.cfg.shape.start_rate == 100 && r.cfg.shape.stages[0].rate == 1000);
    CHECK_EQ_U64(r.cfg.shape.stages[0].dur_ns, 4000000000ull);
    CHECK(fabs(r.cfg.rate - 550) < 1e-9);

    CHECK_EQ_I64(CLI("--stages", "4s:1000", "--start-rate", "200", "-d", "2s", URL), CLI_RUN);
    CHECK(r.cfg.shape.start_rate == 200);
    CHECK(fabs(r.cfg.rate - 400) < 1e-9); /* 200 -> 600 over the 2 s that run */

    CHECK_EQ_I64(CLI("-R", "1k", "--arrival", "poisson", "--seed", "42", URL), CLI_RUN);
    CHECK_EQ_I64(r.cfg.shape.arrival, PC_ARRIVAL_POISSON);
    CHECK_EQ_U64(r.cfg.shape.seed, 42);
    CHECK(r.cfg.rate == 1000);
    /* No --seed: a random one, below 2^53 (JSON keeps it exact). */
    CHECK_EQ_I64(CLI("-R", "1k", "--arrival", "poisson", URL), CLI_RUN);
    CHECK(r.cfg.shape.seed < (1ull << 53));

    CHECK_EQ_I64(CLI("--stages", "2s", URL), -EINVAL);
    CHECK_REJECTED("DURATION:RATE");
    CHECK_EQ_I64(CLI("--stages", "2s:-5", URL), -EINVAL);
    CHECK_REJECTED("invalid rate for --stages");
    CHECK_EQ_I64(CLI("--stages", "0s:5", URL), -EINVAL);
    CHECK_REJECTED("at least 1ms");
    CHECK_EQ_I64(CLI("--stages", "2s:100", "-R", "5", URL), -EINVAL);
    CHECK_REJECTED("-R cannot be used");
    CHECK_EQ_I64(CLI("--stages", "2s:100", "-d", "3s", URL), -EINVAL);
    CHECK_REJECTED("longer than the stages");
    CHECK_EQ_I64(CLI("--stages", "2s:100", "--warmup", "1s", URL), -EINVAL);
    CHECK_REJECTED("--warmup");
    CHECK_EQ_I64(CLI("--stages", "2s:0", URL), -EINVAL);
    CHECK_REJECTED("no request");
    CHECK_EQ_I64(CLI("-R", "0..0", URL), -EINVAL);
    CHECK_REJECTED("no request");
    /* The ramp's grammar: exactly two dots between two rates, one ramp. */
    CHECK_EQ_I64(CLI("-R", "100...200", URL), -EINVAL); /* not 100 to .200 */
    CHECK_REJECTED("did you mean '100..200'?");
    CHECK_EQ_I64(CLI("-R", "100....200", URL), -EINVAL);
    CHECK_REJECTED("two dots");
    CHECK(!strstr(r.err, "did you mean"));
    CHECK_EQ_I64(CLI("-R", "100..", URL), -EINVAL);
    CHECK_REJECTED("no end rate");
    CHECK_EQ_I64(CLI("-R", "..200", URL), -EINVAL);
    CHECK_REJECTED("no start rate");
    CHECK_EQ_I64(CLI("-R", "100..200..300", URL), -EINVAL);
    CHECK_REJECTED("--stages");
    CHECK_EQ_I64(CLI("-R", "100..200x", URL), -EINVAL);
    CHECK_REJECTED("end rate '200x'");
    CHECK_EQ_I64(CLI("-R", "-5..10", URL), -EINVAL);
    CHECK_REJECTED("start rate '-5'");
    CHECK_EQ_I64(CLI("-R", "1.5..2.5k", URL), CLI_RUN);
    CHECK(r.cfg.shape.start_rate == 1.5 && r.cfg.shape.stages[0].rate == 2500);
    CHECK_EQ_I64(CLI("-R", "1e3", URL), CLI_RUN); /* an exponent is a number */
    CHECK(r.cfg.rate == 1000);
    CHECK_EQ_I64(CLI("--stages", "1s:5,", URL), -EINVAL);
    CHECK_REJECTED("stage 2 is empty");
    CHECK_EQ_I64(CLI("--stages", "1s:5,,1s:9", URL), -EINVAL);
    CHECK_REJECTED("stage 2 is empty");
    CHECK_EQ_I64(CLI("--arrival", "poisson", URL), -EINVAL);
    CHECK_REJECTED("needs -R or --stages");
    CHECK_EQ_I64(CLI("--arrival", "bursty", "-R", "5", URL), -EINVAL);
    CHECK_REJECTED("constant or poisson");
    CHECK_EQ_I64(CLI("--seed", "9007199254740992", "-R", "5", "--arrival", "poisson", URL),
                 -EINVAL);
    CHECK_REJECTED("2^53-1");
    CHECK_EQ_I64(CLI("--start-rate", "5", URL), -EINVAL);
    CHECK_REJECTED("it needs --stages");
    CHECK_EQ_I64(CLI_IN(PC_MODE_CAPACITY, "--slo", "p99<=1s", "-R", "1..5", URL), -EINVAL);
    CHECK_REJECTED("pacer capacity chooses the rate itself");
    CHECK_EQ_I64(CLI("--stages", "1s:5", "--slo", "stage2:p99<=1s", URL), -EINVAL);
    CHECK_REJECTED("no such stage");
    CHECK_EQ_I64(CLI("-R", "5", "--slo", "stage1:p99<=1s", URL), -EINVAL);
    CHECK_REJECTED("a stage objective needs --stages");
    CHECK_EQ_I64(CLI("--stages", "1s:5,1s:9", "--slo", "stage2:p99<=1s", URL), CLI_RUN);
    /* capacity keeps its own --start-rate */
    CHECK_EQ_I64(CLI_IN(PC_MODE_CAPACITY, "--slo", "p99<=1s", "--start-rate", "50", URL), CLI_RUN);
    CHECK(r.cfg.wf.start_rate == 50 && r.cfg.shape.n == 0);
}

int main(void)
{
    RUN(test_defaults);
    RUN(test_threads);
    RUN(test_connections);
    RUN(test_duration);
    RUN(test_rate);
    RUN(test_latency_flags);
    RUN(test_batch_latency);
    RUN(test_timeout_warmup_pipeline);
    RUN(test_unix_verify_cacert);
    RUN(test_headers);
    RUN(test_headers_keep_order);
    RUN(test_all_flags_together);
    RUN(test_help);
    RUN(test_help_matches_cli_usage);
    RUN(test_help_lists_every_option);
    RUN(test_options_of_one_subcommand);
    RUN(test_format);
    RUN(test_docs_list_every_option);
    RUN(test_docs_list_only_options);
    RUN(test_version_alone);
    RUN(test_version_with_url_runs);
    RUN(test_options_after_url);
    RUN(test_script_args_after_dashdash);
    RUN(test_script_args_without_dashdash);
    RUN(test_reject_unknown_flag);
    RUN(test_reject_missing_value);
    RUN(test_reject_bad_numbers);
    RUN(test_reject_bad_duration);
    RUN(test_reject_bad_rate);
    RUN(test_threads_lowered_to_connections);
    RUN(test_reject_bad_url);
    RUN(test_reject_missing_url);
    RUN(test_reject_bad_headers);
    RUN(test_reject_header_line_break);
    RUN(test_reject_unix_path_too_long);
    RUN(test_load_shapes);
    RUN(test_many_calls);
    RUN(test_next_call_after_error_in_option_group);
    RUN(test_next_call_after_help_in_option_group);
    harness_reset();
    return unit_done();
}

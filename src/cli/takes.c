/*
 * takes.c - what an option does with its value: the generic takes that
 * store into a pc_config field named by the table entry, and the options'
 * own (a check, a hint, or more than one field). Every error is one line
 * naming the flag and the bad text.
 */
#include "cli/cli_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/urls.h"
#include "dist/shard.h"
#include "report/om_listen.h"
#include "report/slo.h"
#include "srvm/srvm.h"
#include "stats/hdr_codec.h"
#include "util/units.h"

int cli_parse_u32(const char *flag, const char *s, uint32_t min, uint32_t *out, FILE *err)
{
    uint64_t v;
    int rc = units_parse_count(s, &v);

    if (rc < 0)
        return cli_bad(err, "invalid number for %s: '%s'", flag, s);
    if (v < min || v > MAX_COUNT)
        return cli_bad(err, "%s must be between %u and %u, got '%s'", flag, min, MAX_COUNT, s);
    *out = (uint32_t)v;
    return 0;
}
int cli_parse_dur(const char *flag, const char *s, uint64_t *out, FILE *err)
{
    if (units_parse_duration(s, out) < 0)
        return cli_bad(err, "invalid duration for %s: '%s' (use e.g. 500ms, 10s, 2m, 1h)", flag, s);
    if (*out > MAX_DURATION_NS)
        return cli_bad(err, "%s must be at most 30 days, got '%s'", flag, s);
    return 0;
}

static bool is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* "Name: value" or "Name:value", as wrk accepts both. */
static int add_header(pc_config *cfg, const char *s, FILE *err)
{
    const char *colon = strchr(s, ':');
    const char *v;
    pc_header *hs;

    if (!colon || colon == s)
        return cli_bad(err, "invalid header '%s': expected 'Name: value'", s);
    for (const char *p = s; p < colon; p++)
        if (!is_tchar((unsigned char)*p))
            return cli_bad(err, "invalid header '%s': bad character in name", s);
    v = colon + 1;
    while (*v == ' ' || *v == '\t')
        v++;
    for (const char *p = v; *p; p++)
        if (*p == '\r' || *p == '\n')
            return cli_bad(err, "invalid header '%s': line break in value", s);
    hs = realloc(cfg->headers, (cfg->nheaders + 1) * sizeof *hs);
    if (!hs)
        return cli_bad(err, "out of memory");
    cfg->headers = hs;
    hs[cfg->nheaders].name = strndup(s, (size_t)(colon - s));
    hs[cfg->nheaders].value = strdup(v);
    if (!hs[cfg->nheaders].name || !hs[cfg->nheaders].value)
        return cli_bad(err, "out of memory");
    cfg->nheaders++;
    return 0;
}

static int parse_rate_flag(const char *flag, const char *s, double *out, FILE *err)
{
    if (units_parse_rate(s, out) < 0 || !(*out > 0))
        return cli_bad(err, "invalid rate for %s: '%s' (requests/s > 0, e.g. 500, 2.5k)", flag, s);
    if (*out > MAX_RATE)
        return cli_bad(err, "%s must be at most 1G requests/s, got '%s'", flag, s);
    return 0;
}

/* Generic takes: what most options do, as data in their table entry. */

int take_u32(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    uint32_t *v = FIELD(uint32_t, cfg, o);
    const char *flag = FLAG(o);
    int rc = cli_parse_u32(flag, arg, (uint32_t)o->min, v, err);

    if (rc == 0 && *v > o->max)
        return cli_bad(err, "%s must be at most %llu, got '%s'", flag, (unsigned long long)o->max,
                   arg);
    return rc;
}

int take_dur(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    uint64_t *v = FIELD(uint64_t, cfg, o);
    const char *flag = FLAG(o);
    int rc = cli_parse_dur(flag, arg, v, err);

    if (rc == 0 && *v < o->min)
        return cli_bad(err, "%s must be at least %llums, got '%s'", flag,
                   (unsigned long long)(o->min / 1000000), arg);
    return rc;
}

int take_rate(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    return parse_rate_flag(FLAG(o), arg, FIELD(double, cfg, o), err);
}

int take_str(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)err;
    *FIELD(const char *, cfg, o) = arg;
    return 0;
}

int take_true(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)arg, (void)err;
    *FIELD(bool, cfg, o) = true;
    return 0;
}

int take_set(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)arg, (void)err;
    *FIELD(int, cfg, o) = (int)o->min;
    return 0;
}

int take_nothing(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)cfg, (void)o, (void)arg, (void)err;
    return 0;
}

int take_help(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)cfg, (void)o, (void)arg, (void)err;
    return TAKE_HELP;
}

int take_version(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o, (void)arg, (void)err;
    cfg->version = true;
    return TAKE_VERSION;
}

int take_version_exit(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o, (void)arg, (void)err;
    cfg->version = true;
    return TAKE_VERSION_EXIT;
}

/* Takes of their own: a check, a hint, or more than one field. */

int take_duration(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    if (strchr("{[\"'<", arg[0]))
        return cli_bad(err, "invalid duration for -d/--duration: '%s' (a request body is --body TEXT "
                        "here: hey's -d; or run it as `pacer hey ...`)",
                   arg);
    cfg->duration_set = true;
    return take_dur(cfg, o, arg, err);
}

int take_slack(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    int rc = take_dur(cfg, o, arg, err);

    if (rc == 0 && cfg->slack_ns > 1000000000u)
        return cli_bad(err, "--slack must be at most 1s, got '%s'", arg);
    cfg->slack_set = true;
    return rc;
}

int take_spin(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    int rc = take_dur(cfg, o, arg, err);

    if (rc == 0 && cfg->spin_ns > 10000000u)
        return cli_bad(err, "--spin must be at most 10ms, got '%s' (it polls a CPU that long "
                            "before every send)", arg);
    return rc;
}

int take_run_rate(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    if (strstr(arg, ".."))
        return take_rate_ramp(cfg, arg, err);
    cfg->shape.ramp_over_d = false;
    if (units_parse_rate(arg, &cfg->rate) < 0 || !(cfg->rate > 0))
        return cli_bad(err, "invalid rate for -R/--rate: '%s' (requests/s > 0, e.g. 500, 2.5k)", arg);
    if (cfg->rate > MAX_RATE)
        return cli_bad(err, "-R/--rate must be at most 1G requests/s (the schedule's resolution is "
                        "1 ns), got '%s'",
                   arg);
    return 0;
}

int take_header(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    return add_header(cfg, arg, err);
}

int take_unix(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    cfg->unix_path = arg;
    if (strlen(arg) >= 108)
        return cli_bad(err, "--unix path too long (max 107 bytes): '%s'", arg);
    return 0;
}

int take_cacert(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o, (void)err;
    cfg->cacert = arg;
    cfg->verify = true;
    return 0;
}

int take_slo(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    char serr[512];

    (void)o;
    free(cfg->slo);
    cfg->slo = malloc(sizeof *cfg->slo);
    if (!cfg->slo)
        return cli_bad(err, "out of memory");
    if (slo_parse(arg, cfg->slo, serr, sizeof serr) < 0)
        return cli_bad(err, "%s", serr);
    return 0;
}

/* --server-pid, --server-metrics (src/srvm/): checked here, read at the
 * run's start. */
int take_server_pid(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    char e[256];

    (void)o;
    if (srvm_check_pid(arg, e, sizeof e) < 0)
        return cli_bad(err, "%s", e);
    cfg->srv.pid = arg;
    return 0;
}

int take_server_metrics(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    char e[384];

    (void)o;
    if (srvm_check_url(arg, e, sizeof e) < 0)
        return cli_bad(err, "%s", e);
    if (cfg->srv.nurls >= PC_SRV_MAX_URLS)
        return cli_bad(err, "--server-metrics: at most %d exporters", PC_SRV_MAX_URLS);
    cfg->srv.urls[cfg->srv.nurls++] = arg;
    return 0;
}

int take_precision(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    char *end;

    (void)o;
    errno = 0;
    cfg->wf.precision = strtod(arg, &end);
    if (*end == '%') {
        cfg->wf.precision /= 100;
        end++;
    }
    if (end == arg || *end || errno || !(cfg->wf.precision >= 0.001 && cfg->wf.precision <= 1))
        return cli_bad(err, "invalid --precision '%s' (0.1%% to 100%%, e.g. 5%%)", arg);
    return 0;
}

int take_alpn(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    /* h3 alone or first: HTTP/3 over QUIC (QUIC has no fallback to TCP). */
    if (strncmp(arg, "h3", 2) == 0 && (arg[2] == '\0' || arg[2] == ',')) {
        cfg->h3 = true;
        cfg->alpn = NULL;
        return 0;
    }
    cfg->alpn = arg;
    if (!strstr(arg, "h2") && !strstr(arg, "http/1.1"))
        return cli_bad(err, "--alpn needs h3, h2 and/or http/1.1, got '%s'", arg);
    return 0;
}

int take_bytes(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    uint64_t *v = FIELD(uint64_t, cfg, o);

    if (units_parse_size(arg, v) < 0 || *v < o->min || *v > (1ull << 40))
        return cli_bad(err, "invalid %s '%s' (a size in bytes, %llu or more, e.g. 256k)", FLAG(o),
                       arg, (unsigned long long)o->min);
    return 0;
}

int take_streams(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    if (arg[0] >= 'A' && arg[0] <= 'Z')
        return cli_bad(err,
                   "invalid number for -m/--streams: '%s' (the method is -X %s here: hey's -m; or "
                   "run it as `pacer hey ...`)",
                   arg, arg);
    return take_u32(cfg, o, arg, err);
}

/* HTTP/2 windows 2^N-1: N at most 30, and at least o->min (the connection
 * window cannot be below the protocol's initial 2^16-1). */
int take_window(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    uint32_t *v = FIELD(uint32_t, cfg, o);
    const char *flag = FLAG(o);
    int rc = cli_parse_u32(flag, arg, 0, v, err);

    if (rc == 0 && *v > 30)
        return cli_bad(err, "window bits must be 0-30, got '%s'", arg);
    if (rc == 0 && *v < o->min)
        return cli_bad(err, "%s must be %llu-30, got '%s'", flag, (unsigned long long)o->min, arg);
    return rc;
}

int take_format(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    if (strcmp(arg, "wrk") == 0)
        cfg->format = PC_FORMAT_WRK;
    else if (strcmp(arg, "h2load") == 0)
        cfg->format = PC_FORMAT_H2LOAD;
    else if (strcmp(arg, "ab") == 0)
        cfg->format = PC_FORMAT_AB;
    else if (strcmp(arg, "hey") == 0)
        cfg->format = PC_FORMAT_HEY;
    else
        return cli_bad(err, "unknown --format '%s' (wrk, h2load, ab or hey)", arg);
    return 0;
}

int take_script(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    cfg->script_path = arg;
    if (access(arg, R_OK) != 0)
        return cli_bad(err, "cannot read script '%s': %s%s", arg, strerror(errno),
                   arg[strspn(arg, "0123456789")]
                       ? ""
                       : " (-s is a Lua script here; the timeout is --timeout: ab's -s; or run "
                         "it as `pacer ab ...`)");
    return 0;
}

int take_requests(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    if (units_parse_count(arg, &cfg->requests) < 0 || cfg->requests == 0 ||
        cfg->requests > 1000000000000ull)
        return cli_bad(err, "invalid number for -n/--requests: '%s'", arg);
    return 0;
}

int take_method(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    cfg->method = arg;
    for (const char *q = arg; *q; q++)
        if (!is_tchar((unsigned char)*q))
            return cli_bad(err, "invalid method '%s'", arg);
    if (!*arg)
        return cli_bad(err, "empty method");
    return 0;
}

int take_head(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o, (void)arg, (void)err;
    cfg->method = "HEAD";
    return 0;
}

int take_body(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o, (void)err;
    free(cfg->body);
    cfg->body_len = strlen(arg);
    cfg->body = strdup(arg);
    return 0;
}

int take_body_file(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    int r;

    (void)o;
    free(cfg->body);
    r = urls_read_file(arg, &cfg->body, &cfg->body_len);
    if (r < 0)
        return cli_bad(err, "cannot read body file '%s': %s", arg, strerror(-r));
    return 0;
}

/* pacer's -p: a body file (ab's -p); a protocol there that names no file
 * is h2load's -p (--no-tls-proto). */
int take_body_file_hint(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    static const char *const protos[] = {"h2c", "h2", "http/1.1", "h3"};

    if (access(arg, F_OK) != 0)
        for (size_t i = 0; i < sizeof protos / sizeof protos[0]; i++)
            if (strcasecmp(arg, protos[i]) == 0)
                return cli_bad(err, "cannot read body file '%s' (-p is a body file here, as in "
                                    "ab; h2load's -p %s: in clear text, HTTP/2 (h2c) is --h2 "
                                    "here, HTTP/1.1 the default; or run it as `pacer h2load ...`)",
                               arg, arg);
    return take_body_file(cfg, o, arg, err);
}

/* pacer's -T: ab's Content-Type; a duration there is wrk's -T (timeout). */
int take_content_type_hint(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    uint64_t ns;

    if (!strchr(arg, '/') && units_parse_duration(arg, &ns) == 0)
        return cli_bad(err, "invalid content type for -T: '%s' (-T is Content-Type here, as in "
                            "ab; the timeout is --timeout: wrk's -T; or run it as `pacer wrk "
                            "...`)",
                       arg);
    return take_content_type(cfg, o, arg, err);
}

int take_content_type(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    cfg->content_type = arg;
    if (strpbrk(arg, "\r\n"))
        return cli_bad(err, "invalid content type");
    return 0;
}

int take_cookie(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    char **cs = realloc(cfg->cookies, (cfg->ncookies + 1) * sizeof *cs);

    (void)o;
    if (cs)
        cfg->cookies = cs;
    if (!cs || !strchr(arg, '=') || strpbrk(arg, "\r\n;"))
        return cli_bad(err, "invalid cookie '%s': expected NAME=VALUE", arg);
    cs[cfg->ncookies++] = (char *)arg; /* an element of argv */
    return 0;
}

int take_basic_auth(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    size_t n = strlen(arg), cap = hdrc_base64_encoded_len(n) + 1;

    (void)o;
    if (!strchr(arg, ':'))
        return cli_bad(err, "invalid --basic-auth '%s': expected user:password", arg);
    free(cfg->auth_b64);
    cfg->auth_b64 = malloc(cap);
    if (!cfg->auth_b64 || hdrc_base64_encode((const uint8_t *)arg, n, cfg->auth_b64, cap) < 0)
        return cli_bad(err, "out of memory");
    return 0;
}

int take_host(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    cfg->host = arg;
    for (const char *q = arg; *q; q++)
        if ((unsigned char)*q <= ' ' || *q == 0x7f)
            return cli_bad(err, "invalid --host '%s'", arg);
    return 0;
}

int take_connect_to(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    const char *colon = strrchr(arg, ':');
    char *end;
    long port = colon ? strtol(colon + 1, &end, 10) : 0;

    (void)o;
    cfg->connect_to = arg;
    if (!colon || colon == arg || *end || port < 1 || port > 65535)
        return cli_bad(err, "invalid --connect-to '%s': expected HOST:PORT", arg);
    return 0;
}

/* --source A or A-B: IPv4 addresses, the range ascending. 0.0.0.0 is
 * "any", which binds nothing: refused rather than ignored. */
int take_source(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    char lo[INET_ADDRSTRLEN], hi[INET_ADDRSTRLEN];
    const char *dash = strchr(arg, '-');
    size_t ll = dash ? (size_t)(dash - arg) : strlen(arg);
    struct in_addr a, b;

    (void)o;
    if (ll >= sizeof lo || (dash && strlen(dash + 1) >= sizeof hi))
        return cli_bad(err, "invalid --source '%s': expected an IPv4 address A or a range A-B", arg);
    memcpy(lo, arg, ll);
    lo[ll] = '\0';
    snprintf(hi, sizeof hi, "%s", dash ? dash + 1 : lo);
    if (inet_pton(AF_INET, lo, &a) != 1 || inet_pton(AF_INET, hi, &b) != 1)
        return cli_bad(err, "invalid --source '%s': expected an IPv4 address A or a range A-B", arg);
    cfg->source_lo = ntohl(a.s_addr);
    cfg->source_hi = ntohl(b.s_addr);
    if (!cfg->source_lo)
        return cli_bad(err, "invalid --source '%s': 0.0.0.0 is no source address", arg);
    if (cfg->source_hi < cfg->source_lo)
        return cli_bad(err, "invalid --source '%s': the range ends before it starts", arg);
    return 0;
}

/* --shard I/N: stored here, applied (shard_apply) once the options are final. */
int take_shard(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    char why[256];

    (void)o;
    if (shard_parse(arg, &cfg->shard.index, &cfg->shard.count, why, sizeof why) < 0)
        return cli_bad(err, "%s", why);
    return 0;
}

/* --start-at TIME: checked against the clock once --connect-timeout is known. */
int take_start_at(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    if (shard_parse_time(arg, &cfg->shard.start_at_ns) < 0 || !cfg->shard.start_at_ns)
        return cli_bad(err, "invalid --start-at '%s' (seconds since the epoch, e.g. 1764590400.5, "
                            "or ISO 8601, e.g. 2026-12-01T12:00:00Z)",
                       arg);
    return 0;
}

int take_mix(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    if (strcmp(arg, "random") == 0)
        cfg->mix_random = true;
    else if (strcmp(arg, "roundrobin") == 0 || strcmp(arg, "round-robin") == 0)
        cfg->mix_random = false;
    else
        return cli_bad(err, "unknown --mix '%s' (roundrobin or random)", arg);
    return 0;
}

/* --tls-resume on|off: offer the worker's last TLS session on reconnects. */
int take_tls_resume(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    if (strcmp(arg, "on") == 0 || strcmp(arg, "off") == 0)
        cfg->no_tls_resume = strcmp(arg, "off") == 0;
    else
        return cli_bad(err, "unknown --tls-resume '%s' (on or off)", arg);
    return 0;
}

/* An option of another tool that pacer cannot honour: refused, naming it
 * and why (the entry's help text), never ignored. */
int take_refuse(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    char why[256];

    (void)cfg;
    snprintf(why, sizeof why, "%s", o->help);
    for (char *p = why; *p; p++)
        if (*p == '\n')
            *p = ' ';
    if (arg)
        return cli_bad(err, "%s %s: %s", FLAG(o), arg, why);
    return cli_bad(err, "%s: %s", FLAG(o), why);
}

/* ---- --metrics-listen (report/openmetrics.h) ------------------------ */

/* ADDR:PORT, its syntax only: the address is bound when the run starts. */
int take_metrics_listen(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    struct sockaddr_storage ss;
    socklen_t len;
    char why[256];

    (void)o;
    if (oml_parse_addr(arg, false, &ss, &len, why, sizeof why) < 0)
        return cli_bad(err, "%s", why);
    cfg->metrics.listen = arg;
    return 0;
}

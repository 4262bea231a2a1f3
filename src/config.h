/*
 * config.h - what the user asked for, as plain data.
 *
 * The CLI fills a pc_config; nothing downstream parses strings. Times are
 * nanoseconds, rates requests per second (double: never integer-divided).
 */
#ifndef PACER_CONFIG_H
#define PACER_CONFIG_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <strings.h>

#define PACER_VERSION "0.1.0"

/* Exit codes (docs/pacer.md lists them). */
enum {
    PC_EXIT_OK = 0,          /* the run finished and at least one response came back */
    PC_EXIT_RUNTIME = 1,     /* could not run: name not resolved, TLS setup, out of memory, fd limit,
                                --metrics-listen address in use or not this machine's */
    PC_EXIT_USAGE = 2,       /* bad flag, number, URL or header (a malformed --metrics-listen ADDR:PORT) */
    PC_EXIT_NO_RESPONSE = 3, /* the run finished but not one response was received */
    PC_EXIT_SCRIPT = 4,      /* the Lua script failed (file:line: message on stderr) */
    PC_EXIT_SLO = 5,         /* an --slo objective was not met (capacity: not even at the start rate) */
    PC_EXIT_SIGINT = 130,    /* stopped by SIGINT; the partial report was printed */
    PC_EXIT_SIGTERM = 143,   /* stopped by SIGTERM; the partial report was printed */
};

/* "SIGINT" or "SIGTERM", the signals that stop a run (static). */
static inline const char *pc_signal_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

/* The exit code for a run (or a workflow) that was stopped by sig (0: none). */
static inline int pc_exit_signal(int sig)
{
    return !sig ? PC_EXIT_OK : sig == SIGINT ? PC_EXIT_SIGINT : PC_EXIT_SIGTERM;
}

/* The exit code of a run or a workflow, in one order everywhere: an error
 * met on the way (so_far: the script failed, a file could not be written)
 * stands; then the signal that stopped it; then not one response; then a
 * failed --slo. */
static inline int pc_exit_code(int so_far, int sig, bool no_response, bool slo_failed)
{
    return so_far != PC_EXIT_OK ? so_far
           : sig                ? pc_exit_signal(sig)
           : no_response        ? PC_EXIT_NO_RESPONSE
           : slo_failed         ? PC_EXIT_SLO
                                : PC_EXIT_OK;
}

/* The exit code of a run that could not finish (engine_run failed): the
 * signal that cut it short, else the script's failure, else a runtime error. */
static inline int pc_exit_failed(int sig, bool script)
{
    return sig ? pc_exit_signal(sig) : script ? PC_EXIT_SCRIPT : PC_EXIT_RUNTIME;
}

/* The report layout (--format; a persona's own). PC_FORMAT_HEY_CSV: hey's
 * -o csv, a row per request instead of the summary. */
enum {
    PC_FORMAT_WRK = 0,
    PC_FORMAT_H2LOAD = 1,
    PC_FORMAT_AB = 2,
    PC_FORMAT_HEY = 3,
    PC_FORMAT_HEY_CSV = 4,
};

/* Which command line is being parsed: `pacer URL`, `pacer compare URL...`,
 * `pacer capacity URL`. */
enum { PC_MODE_RUN = 0, PC_MODE_COMPARE = 1, PC_MODE_CAPACITY = 2 };

/* Live progress on stderr: when it is a terminal, always, never. */
enum { PC_PROGRESS_AUTO = 0, PC_PROGRESS_ON = 1, PC_PROGRESS_OFF = 2 };

struct pc_slo;

typedef struct pc_url {
    bool tls;             /* https */
    char host[256];       /* name or IP literal, without IPv6 brackets */
    char port[6];         /* decimal, "80"/"443" when the URL has none */
    bool ipv6_literal;    /* host was written as [addr] */
    char hostport[300];   /* Host header value: host[:port], brackets kept, default port omitted */
    char *path;           /* path and query verbatim ("/" when the URL has none); heap */
} pc_url;

/* One distinct request: the URL (path, query, origin), a method, a body.
 * A run has one (the URL argument) or several (--urls FILE). A million of
 * them must fit in little memory, so what requests share is kept once:
 * the origin (scheme, host, port: its fixed-size fields) once per distinct
 * origin, and the texts in one arena (cli/urls.c owns both). */
typedef struct pc_reqspec {
    char *method;     /* in the arena (shared by consecutive equal methods); heap in pacer report */
    const pc_url *origin; /* scheme, host, port, Host value (its path unused); NULL in pacer report */
    const char *path; /* path and query verbatim ("/" when the URL has none); often inside url_text */
    char *url_text;   /* as written: in the arena; heap in pacer report */
    char *body;       /* heap, may be NULL */
    size_t body_len;
    double weight;    /* --mix random: relative weight (default 1) */
    char *body_sha256; /* hex, heap: pacer report's, from a result file (which has no body);
                          NULL: computed from body when written */
} pc_reqspec;

/* Headers whose values are credentials: result files (the JSON's
 * cmdline and headers) show them as REDACTED. */
static inline bool pc_header_is_secret(const char *name, size_t len)
{
    return (len == 13 && strncasecmp(name, "authorization", 13) == 0) ||
           (len == 19 && strncasecmp(name, "proxy-authorization", 19) == 0) ||
           (len == 6 && strncasecmp(name, "cookie", 6) == 0);
}

typedef struct pc_header {
    char *name;           /* heap, validated token */
    char *value;          /* heap, no CR/LF */
} pc_header;

/* The files a run writes (report/outputs.h opens them): NULL when not
 * asked for, "-" for stdout. compare and capacity write their own --json
 * and --html (and refuse the others). */
typedef struct pc_output_opts {
    const char *hlog_path;    /* --hlog: HdrHistogram interval log */
    const char *hgrm_path;    /* --hgrm: percentile distribution (plotter input) */
    const char *json_path;    /* --json: everything, "-" for stdout */
    const char *csv_path;     /* --csv: per-interval time series */
    const char *html_path;    /* --html: a self-contained HTML report with plots */
    const char *gnuplot_path; /* -g FILE (ab) */
    const char *csv_pct_path; /* -e FILE (ab) */
} pc_output_opts;

/* --metrics-listen: pacer's own figures served live to Prometheus
 * (report/openmetrics.h). A bad ADDR:PORT is a usage error (exit 2); an
 * address that cannot be bound (in use, not this machine's) a runtime one
 * (exit 1), before any load is sent. */
typedef struct pc_metrics_opts {
    const char *listen;  /* ADDR:PORT; NULL: no listener */
    uint64_t linger_ns;  /* --metrics-linger: after the report, until scraped, at most this */
} pc_metrics_opts;

/* Load shapes (--stages, -R A..B, --arrival, --seed; docs/pacer.md). A
 * stage moves the rate linearly from the previous target (the first from
 * start_rate) to its own over its duration; a step holds its rate. */
enum { PC_ARRIVAL_CONSTANT = 0, PC_ARRIVAL_POISSON = 1 };
#define PC_MAX_STAGES 64

typedef struct pc_stage {
    uint64_t dur_ns;
    double rate;       /* the target at the stage's end, requests/s in total */
    bool step;         /* D:R!: the rate is R from the stage's start */
} pc_stage;

typedef struct pc_shape {
    pc_stage stages[PC_MAX_STAGES];
    uint32_t n;        /* 0: the rate is -R throughout */
    double start_rate; /* where the first stage starts (--start-rate, default 0) */
    bool start_rate_set;
    bool ramp_over_d;  /* -R A..B: one stage from A to B over -d */
    int arrival;       /* PC_ARRIVAL_*: how the arrivals are spaced at the current rate */
    uint64_t seed;     /* --seed, or a random one (always printed) */
    bool seed_set;
} pc_shape;

/* The schedule is not one constant rate at evenly spaced times. */
static inline bool pc_shape_active(const pc_shape *s)
{
    return s->n > 0 || s->arrival != PC_ARRIVAL_CONSTANT;
}

/* A stage whose rate moves (a ramp) is also reported in PC_RAMP_STEPS
 * rows of equal time (equal steps of rate), so a reader finds the knee in
 * it; the ramp stages' rows follow each other in stage order. */
#define PC_RAMP_STEPS 10
static inline bool pc_stage_ramps(const pc_shape *s, uint32_t i)
{
    double from = s->stages[i].step ? s->stages[i].rate : i ? s->stages[i - 1].rate : s->start_rate;

    return from != s->stages[i].rate;
}
/* The ramp rows of the whole shape. */
static inline uint32_t pc_shape_steps(const pc_shape *s)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < s->n; i++)
        n += pc_stage_ramps(s, i) ? PC_RAMP_STEPS : 0;
    return n;
}

/* What `pacer compare` and `pacer capacity` add to a run's options. */
typedef struct pc_workflow_opts {
    const char **targets;  /* compare: the URLs, in order (heap array into argv) */
    size_t ntargets;
    uint32_t rounds;       /* compare --rounds, default 3 */
    double start_rate;     /* capacity --start-rate, default 100 */
    double max_rate;       /* --max-rate, default 1M */
    uint64_t max_time_ns;  /* --max-time: all steps together, default 10 min */
    double precision;      /* --precision: stop bisecting when (fail - pass) / pass <= this */
    uint64_t pause_ns;     /* --pause between steps, default 1s */
} pc_workflow_opts;

/* One share of a run spread over several processes or hosts (--shard,
 * --start-at, or mpirun; src/dist/shard.h does the arithmetic). Once a
 * config is sharded, connections, requests and rate are this shard's
 * share; the whole run's are kept here. */
typedef struct pc_shard_opts {
    uint32_t index;           /* I of --shard I/N, 0-based */
    uint32_t count;           /* N; 0: not sharded (one process is the whole run) */
    uint32_t total_connections; /* -c of the whole run */
    uint64_t total_requests;  /* -n of the whole run (0: by duration) */
    double total_rate;        /* -R of the whole run (0: closed loop) */
    bool per_rank;            /* --per-rank (mpirun): each rank's line and files too */
    uint64_t start_at_ns;     /* --start-at: the schedule's zero, wall clock (ns since the
                                 epoch); 0: when the connections are open */
} pc_shard_opts;

/* The server's cost (src/srvm/, docs/server-cost.md): what the sampler
 * reads at the start, each --interval and the end. */
#define PC_SRV_MAX_URLS 8
typedef struct pc_server_opts {
    const char *pid;                      /* --server-pid PID|NAME; NULL: none */
    const char *urls[PC_SRV_MAX_URLS];    /* --server-metrics URL, repeatable */
    uint32_t nurls;
} pc_server_opts;

/* Everything a command line asks for: the run (the engine and the script
 * read these), the files it writes (out), the workflow's own options (wf).
 * The reports read a pc_rundesc made from it (report/rundesc.h). */
typedef struct pc_config {
    char *cmdline;         /* the command as typed, shell-quoted, "pacer ..." (heap) */
    const char *url_text;  /* as given */
    pc_url url;
    uint32_t threads;      /* -t, default 2; at most -c (lowered, with a note) */
    uint32_t connections;  /* -c, default 10, >= threads */
    uint64_t duration_ns;  /* -d, default 10 s */
    uint64_t timeout_ns;   /* --timeout, default 2 s */
    uint64_t connect_timeout_ns; /* --connect-timeout (TCP + TLS handshake), default 10 s */
    uint64_t warmup_ns;    /* --warmup, default 0 */
    uint64_t slack_ns;     /* --slack: how late a due request may be sent, to coalesce */
    bool slack_set;        /* --slack given; otherwise adaptive (0 while a thread is idle) */
    uint64_t spin_ns;      /* --spin: poll, not sleep, the last this of each wait under -R */
    bool no_tx_times;      /* --no-tx-times: no kernel send stamps; uncorrected from the write */
    double rate;           /* -R requests/s in total; 0 = closed loop */
    bool latency;          /* -L: print the latency distribution */
    bool u_latency;        /* -U: also the uncorrected distribution */
    bool batch_latency;    /* -B: one sample per pipelined batch */
    uint32_t pipeline;     /* --pipeline, default 1 */
    bool h2;               /* --h2: HTTP/2 (ALPN h2 over TLS, prior knowledge in clear) */
    const char *alpn;      /* --alpn LIST: protocols to offer over TLS, e.g. "h2,http/1.1" */
    bool h3;               /* --h3 (or --alpn h3...): HTTP/3 over QUIC (UDP) */
    uint64_t h3_window;    /* --h3-window: QUIC per-stream initial max data, default 256 KiB */
    uint64_t h3_conn_window; /* --h3-conn-window: QUIC connection initial max data, default 1 MiB */
    uint32_t streams;      /* -m: concurrent streams per HTTP/2 connection, default 1 */
    uint32_t window_bits;  /* --window-bits: HTTP/2 stream window 2^N-1, default 30 */
    uint32_t conn_window_bits; /* --connection-window-bits, default 30 */
    int format;            /* --format: PC_FORMAT_* */
    /* Requests (ab-style shaping) */
    uint64_t requests;     /* -n: exactly this many requests, 0 = by duration */
    bool duration_set;     /* -d given (with -n it is an upper bound) */
    bool no_keepalive;     /* --no-keepalive: a new connection per request */
    bool goaway_ends_conn; /* h2load: a connection the server sent GOAWAY on is not reopened
                              (its client is done; -n's requests left are not done) */
    bool no_tls_resume;    /* --tls-resume off: every TLS handshake is a full one (ab and hey
                              never resume; wrk, h2load and pacer by default do, each
                              connection with its own last session) */
    const char *method;    /* -X, default GET (HEAD with -i) */
    char *body;            /* --body / -p FILE contents (heap) */
    size_t body_len;
    const char *content_type; /* -T */
    char **cookies;        /* -C, heap array of pointers into argv */
    size_t ncookies;
    char *auth_b64;        /* -A user:pass, base64 (heap) */
    const char *host;      /* --host: Host header and SNI */
    const char *connect_to; /* --connect-to HOST:PORT */
    uint32_t source_lo, source_hi; /* --source A[-B]: IPv4 range, host order (0: none) */
    bool strict_length;    /* --strict-length: ab's Length failures */
    bool peer_follows_redirects; /* the persona's tool follows redirects (hey without
                                    -disable-redirects); pacer does not: 3xx get a note */
    unsigned peer_flags;   /* a persona's own switches, for its finish (src/cli/persona_*.c) */
    const char *urls_path; /* --urls FILE */
    bool mix_random;       /* --mix random */
    pc_reqspec *reqs;      /* the distinct requests (at least one) */
    struct pc_reqstore *reqstore; /* what reqs share: origins, text arena (cli/urls.c) */
    size_t nreqs;
    uint64_t ab_heartbeat; /* ab: "Completed N requests" on stderr every N (0: none) */
    bool ab_no_confidence; /* ab -S: Connection Times without mean[+/-sd] and median */
    bool ab_no_percentiles; /* ab -d: no "Percentage of the requests served" table */
    const char *uri_file;  /* h2load -i FILE: URIs, one per line ("-": stdin) */
    bool h1_clear;         /* h2load --h1 / -p http/1.1: HTTP/1.1 over http:// */
    pc_header *headers;    /* -H, in order */
    size_t nheaders;
    const char *unix_path; /* --unix: connect here instead of the URL's address */
    bool verify;           /* --verify: check the server certificate */
    const char *cacert;    /* --cacert FILE (implies verify) */
    bool version;          /* -v was given */
    const char *script_path; /* -s/--script: a wrk Lua script */
    char **script_args;    /* everything after the URL / after "--" */
    int nscript_args;
    uint64_t interval_ns;  /* --interval, default 1 s */
    int progress;          /* --progress / --quiet: PC_PROGRESS_* */
    struct pc_slo *slo;    /* --slo EXPR, parsed (heap); NULL: none */
    int mode;              /* PC_MODE_*: which command line this is */
    pc_output_opts out;    /* --hlog, --hgrm, --json, --csv, --html, -g, -e */
    pc_workflow_opts wf;   /* compare and capacity */
    pc_shard_opts shard;   /* --shard, --start-at, mpirun */
    pc_shape shape;        /* --stages, -R A..B, --arrival, --seed; rate is then their mean */
    pc_metrics_opts metrics; /* --metrics-listen, --metrics-linger */
    pc_server_opts srv;    /* --server-pid, --server-metrics */
} pc_config;

#endif

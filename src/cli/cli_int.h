/*
 * cli_int.h - the machinery of the command lines, shared by src/cli/ only:
 * the option tables (cli_opt, cli_table), the takes that store an
 * option's value into a pc_config, and the parser that runs a table.
 *
 * An option table is data: an entry is one option, with its long name (and
 * another tool's spelling of it, if any), its short letter, the placeholder
 * of its value (NULL: it takes none), its --help text, the subcommands that
 * accept it, and what its value does (a take: a generic one that stores
 * into the pc_config field at off, or a function of its own).
 * getopt_long's arguments, the --help option lines, the "did you mean
 * '--x'?" and "takes no value" hints and the subcommand checks all come from
 * the table: adding a flag is adding one entry.
 *
 * pacer's own table is in options.c; another tool's command line (a
 * persona, persona.h) is another table run by the same parse_options,
 * taking into the same pc_config with the same takes (takes.c).
 */
#ifndef PACER_CLI_CLI_INT_H
#define PACER_CLI_CLI_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"

struct cli_opt;

/* What an option does with its value (arg: NULL for an option without
 * one). Returns 0, -EINVAL after one line on err, or TAKE_HELP /
 * TAKE_VERSION for the parser to act on. */
typedef int cli_take(pc_config *cfg, const struct cli_opt *o, const char *arg, FILE *err);

enum {
    TAKE_HELP = 1,         /* print the table's usage, exit 0 */
    TAKE_VERSION = 2,      /* wrk's -v: the version, and the run goes on with a URL */
    TAKE_VERSION_EXIT = 3, /* ab's -V, h2load's --version: the version, exit 0 */
};

/* The subcommands that accept an option (cli_opt.modes; 0: all of them). */
#define IN_COMPARE (1u << PC_MODE_COMPARE)
#define IN_CAPACITY (1u << PC_MODE_CAPACITY)

typedef struct cli_opt {
    const char *name;    /* the long name, as --help and the errors spell it */
    char letter;         /* the short option; 0: none */
    const char *value;   /* the value's placeholder in --help ("N"); NULL: takes no value */
    cli_take *take;
    size_t off;          /* the pc_config field a generic take writes */
    uint64_t min, max;   /* take_u32's bounds; take_dur's minimum (ns); take_set's value */
    unsigned modes;      /* IN_*: the subcommands that accept it; 0: all */
    const char *section; /* --help group ("compare"); NULL: the main list */
    const char *alias;   /* another long name for it (another tool's spelling) */
    const char *help;    /* --help text; each '\n' starts an indented line */
} cli_opt;

typedef struct cli_table {
    const cli_opt *opts;
    size_t n;
    void (*usage)(FILE *f); /* --help */
    const char *prog;       /* how errors name the command: "pacer", "pacer ab" */
    bool long_only;         /* single-dash long options too (getopt_long_only: hey's -host) */
} cli_table;

/* One line "pacer: ..." on err, whatever the user's text contained.
 * Returns -EINVAL. */
int cli_bad(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* How errors name an option: "-t/--threads", "--timeout". */
const char *cli_flag_of(const cli_opt *o, char buf[static 64]);
#define FLAG(o) cli_flag_of(o, (char[64]){0})

/* The largest count a u32 option takes (threads, connections, ...). */
#define MAX_COUNT 10000000u

/* Durations are capped at 30 days: deadlines are start + duration in ns,
 * and a run that long is a typo, not a plan. */
#define MAX_DURATION_NS (30ull * 86400 * 1000000000ull)

/* One request per nanosecond: intended times are whole ns, and k stays
 * exact in a double for 30 days (2.6e15 < 2^53). */
#define MAX_RATE 1e9

/* A count in [min, MAX_COUNT] (SI units allowed), a duration (time units
 * allowed, at most 30 days): 0, or -EINVAL after one line naming flag. */
int cli_parse_u32(const char *flag, const char *s, uint32_t min, uint32_t *out, FILE *err);
int cli_parse_dur(const char *flag, const char *s, uint64_t *out, FILE *err);

/* The field of cfg that option o's generic take writes. */
#define FIELD(T, cfg, o) ((T *)(void *)((char *)(cfg) + (o)->off))

/* The takes (takes.c). Generic: take_u32 (bounds min..max), take_dur (at
 * least min ns), take_rate, take_str, take_true, take_set (the int field =
 * min), take_nothing, take_help, take_version; the others are options'
 * own. */
cli_take take_u32;
cli_take take_dur;
cli_take take_rate;
cli_take take_str;
cli_take take_true;
cli_take take_set;
cli_take take_nothing;
cli_take take_help;
cli_take take_version;
cli_take take_version_exit;
cli_take take_duration;
cli_take take_slack;
cli_take take_spin;
cli_take take_run_rate;
cli_take take_header;
cli_take take_unix;
cli_take take_cacert;
cli_take take_slo;
cli_take take_server_pid;    /* --server-pid (src/srvm/) */
cli_take take_server_metrics; /* --server-metrics */
cli_take take_precision;
cli_take take_alpn;
cli_take take_bytes;
cli_take take_streams;
cli_take take_window;
cli_take take_format;
cli_take take_script;
cli_take take_requests;
cli_take take_method;
cli_take take_head;
cli_take take_body;
cli_take take_body_file;
cli_take take_body_file_hint;
cli_take take_content_type;
cli_take take_content_type_hint;
cli_take take_cookie;
cli_take take_basic_auth;
cli_take take_host;
cli_take take_connect_to;
cli_take take_source;
cli_take take_mix;
cli_take take_tls_resume;
cli_take take_shard;
cli_take take_start_at;
cli_take take_metrics_listen; /* --metrics-listen ADDR:PORT (report/om_listen.h) */
cli_take take_refuse; /* another tool's flag pacer cannot honour: its help says why */

/* The load-shape options (shape.c): --stages, --arrival, --seed,
 * --start-rate; take_rate_ramp is -R A..B (take_run_rate hands it over). */
cli_take take_stages;
cli_take take_arrival;
cli_take take_seed;
cli_take take_start_rate;
int take_rate_ramp(pc_config *cfg, const char *arg, FILE *err);

/* After the whole command line: the shape's checks, -d's default (the
 * stages' sum), the mean rate into cfg->rate, a random --seed. 0 or
 * -EINVAL after one line on err. */
int cli_shape_finish(pc_config *cfg, FILE *err);

/* Entry shorthands: AT(field) names the pc_config field of a generic take. */
#define AT(field) .off = offsetof(pc_config, field)
#define U32(field, lo, hi) .take = take_u32, AT(field), .min = (lo), .max = (hi)
#define DUR(field, lo) .take = take_dur, AT(field), .min = (lo)
#define STR(field) .take = take_str, AT(field)
#define ON(field) .take = take_true, AT(field)
#define SET(field, v) .take = take_set, AT(field), .min = (v)
#define FN(fn) .take = (fn)
#define COMPARE_ONLY .modes = IN_COMPARE, .section = "compare"
#define CAPACITY_ONLY .modes = IN_CAPACITY, .section = "capacity"
#define MS 1000000ull
#define REFUSE(why) .take = take_refuse, .help = (why)

#define NOPTS(a) (sizeof(a) / sizeof((a)[0]))

/* parse_options builds getopt_long's arguments on the stack. */
#define MAX_OPTS 96

/* pacer's own options (options.c). */
extern const cli_table cli_pacer_table;

/* pacer's --help for a subcommand (PC_MODE_COMPARE, PC_MODE_CAPACITY; any
 * other: the whole list), options.c. */
void cli_usage_mode(int mode, FILE *f);

/* "pacer 0.1.0 [epoll] HTTP load generator" (parse.c). */
void cli_print_version(FILE *out);

/* The option lines of --help, from the table (parse.c). */
void print_options(const cli_table *t, FILE *f);

/* Lines that must come before getopt sees argv (parse.c): typographic
 * dashes read as ASCII ones (in place, with a note on err; "–t2" as -t2
 * when t has no long option "t2"), and other tools' single-dash long flags
 * refused with a hint. */
void ascii_dashes(const cli_table *t, int argc, char **argv, FILE *err);
int peer_spellings(const cli_table *t, int argc, char **argv, FILE *err);

/* Another tool's flag that pacer's own table does not take, with what to
 * type here instead or why there is none (peer_hints.c: one table for
 * wrk, wrk2, ab, h2load and hey). */
typedef struct peer_flag {
    const char *tool; /* "hey": a persona's name */
    const char *flag; /* as that tool spells it: "-z", "--rps", "-host" */
    bool value;       /* it takes a value */
    const char *hint; /* the native equivalent, or "not supported: why" */
} peer_flag;

/* The rows, i = 0, 1, ... until NULL. */
const peer_flag *peer_flag_at(size_t i);

/* The hint for flag (its first len bytes: "--rps" of "--rps=10") in buf:
 * every tool's row for that spelling, "HINT (hey's -z; or run it as `pacer
 * hey ...`)", joined by "; "; NULL when no row has it. */
const char *peer_hint(const char *flag, size_t len, char *buf, size_t cap);

/* The options of argv, by table t: getopt_long with the short string and
 * long options built from it. Returns 0 with optind at the first
 * non-option, CLI_EXIT after --help, or -EINVAL. *version_only: the last
 * -v was spelled --version (it prints the version alone). */
int parse_options(const cli_table *t, int argc, char **argv, pc_config *cfg, FILE *out,
                  FILE *err, bool *version_only);

/* The whole command line by persona p's table (pacer's own included):
 * its defaults, its options, the positionals, p->finish, then the shared
 * checks and defaults (cli.c). Returns as cli_parse does. */
struct cli_persona;
int cli_parse_as(const struct cli_persona *p, int mode, int argc, char **argv, pc_config *cfg,
                 FILE *out, FILE *err);

#endif

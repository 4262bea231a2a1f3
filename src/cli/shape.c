/*
 * shape.c - the load-shape options: --stages, -R A..B, --start-rate (for
 * stages), --arrival, --seed, and the checks and defaults they need once
 * the whole command line is read (cli_shape_finish).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include "cli/cli.h"
#include "cli/cli_int.h"
#include "report/slo.h"
#include "util/units.h"

#define NS_PER_S 1e9

/* A stage's or a ramp end's rate: 0 is allowed (a ramp down to nothing). */
static int parse_stage_rate(const char *flag, const char *s, double *out, FILE *err)
{
    if (units_parse_rate(s, out) < 0 || !(*out >= 0))
        return cli_bad(err, "invalid rate for %s: '%s' (requests/s >= 0, e.g. 500, 2.5k)", flag, s);
    if (*out > MAX_RATE)
        return cli_bad(err, "%s: a rate must be at most 1G requests/s, got '%s'", flag, s);
    return 0;
}

/* One "D:R" or "D:R!" of --stages, len bytes of s; stage k (from 1) of arg,
 * named when it is empty. */
static int parse_stage(const char *arg, uint32_t k, const char *s, size_t len, pc_stage *st,
                       FILE *err)
{
    char buf[64], *colon;
    size_t n;

    if (len == 0)
        return cli_bad(err, "--stages '%s': stage %u is empty (stages are DURATION:RATE separated "
                            "by commas, e.g. 30s:500,1m:1k)",
                       arg, k);
    if (len >= sizeof buf)
        return cli_bad(err, "invalid stage for --stages: '%.*s...' (use DURATION:RATE, e.g. 30s:500)",
                       48, s);
    memcpy(buf, s, len);
    buf[len] = '\0';
    colon = strchr(buf, ':');
    if (!colon)
        return cli_bad(err, "invalid stage for --stages: '%s' (use DURATION:RATE, e.g. 30s:500)",
                       buf);
    *colon = '\0';
    n = strlen(colon + 1);
    st->step = n > 0 && colon[n] == '!';
    if (st->step)
        colon[n] = '\0';
    if (cli_parse_dur("--stages", buf, &st->dur_ns, err) < 0)
        return -1;
    if (st->dur_ns < MS)
        return cli_bad(err, "--stages: a stage lasts at least 1ms, got '%s'", buf);
    return parse_stage_rate("--stages", colon + 1, &st->rate, err) < 0 ? -1 : 0;
}

int take_stages(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    const char *p = arg;

    (void)o;
    cfg->shape.n = 0;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);

        if (cfg->shape.n == PC_MAX_STAGES)
            return cli_bad(err, "--stages: at most %d stages", PC_MAX_STAGES);
        if (parse_stage(arg, cfg->shape.n + 1, p, len, &cfg->shape.stages[cfg->shape.n], err) < 0)
            return -EINVAL;
        cfg->shape.n++;
        if (!end)
            return 0;
        p = end + 1;
    }
}

/* One end of -R A..B (which names it: "start" or "end"), len bytes of s. */
static int parse_ramp_end(const char *arg, const char *which, const char *s, size_t len,
                          double *out, FILE *err)
{
    char buf[64];

    if (len == 0)
        return cli_bad(err, "-R '%s': the ramp has no %s rate (a ramp is A..B, e.g. 100..2k)", arg,
                       which);
    if (len >= sizeof buf)
        return cli_bad(err, "invalid rate for -R/--rate: '%s' (a ramp is A..B, e.g. 100..2k)", arg);
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (units_parse_rate(buf, out) < 0 || !(*out >= 0))
        return cli_bad(err, "-R '%s': the %s rate '%s' is not a rate (requests/s >= 0, e.g. 500, "
                            "2.5k)",
                       arg, which, buf);
    if (*out > MAX_RATE)
        return cli_bad(err, "-R '%s': a rate must be at most 1G requests/s", arg);
    return 0;
}

/* -R A..B: one linear ramp from A to B over -d (built in cli_shape_finish,
 * once -d is known). Exactly two dots separate the ends: "100...200" is
 * refused, not read as 100 to .200 req/s (with the one spelling it can
 * mean, when dropping a dot gives a ramp), and a second ".." is not a
 * form of -R (several steps are --stages). */
int take_rate_ramp(pc_config *cfg, const char *arg, FILE *err)
{
    const char *dots = strstr(arg, ".."), *b;
    size_t run = 0;
    double a_rate, b_rate;

    while (dots[run] == '.')
        run++;
    b = dots + run;
    if (run > 2) {
        char a[64];
        size_t alen = (size_t)(dots - arg);

        if (alen < sizeof a) {
            memcpy(a, arg, alen);
            a[alen] = '\0';
        }
        if (run == 3 && alen > 0 && alen < sizeof a && units_parse_rate(a, &a_rate) == 0 &&
            units_parse_rate(b, &b_rate) == 0)
            return cli_bad(err, "-R '%s': a ramp is A..B with two dots: did you mean '%.*s..%s'?",
                           arg, (int)(dots - arg), arg, b);
        return cli_bad(err, "-R '%s': a ramp is A..B with two dots (e.g. 100..2k)", arg);
    }
    if (strstr(b, ".."))
        return cli_bad(err, "-R '%s': -R takes one ramp A..B; a shape of several is --stages "
                            "(e.g. --start-rate 100 --stages 10s:200,10s:300)",
                       arg);
    if (parse_ramp_end(arg, "start", arg, (size_t)(dots - arg), &a_rate, err) < 0 ||
        parse_ramp_end(arg, "end", b, strlen(b), &b_rate, err) < 0)
        return -EINVAL;
    if (!(a_rate > 0 || b_rate > 0))
        return cli_bad(err, "-R %s asks for no request at all", arg);
    cfg->shape.start_rate = a_rate;
    cfg->shape.stages[0].rate = b_rate;
    cfg->shape.ramp_over_d = true;
    cfg->rate = 0;
    return 0;
}

int take_start_rate(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    if (parse_stage_rate("--start-rate", arg, &cfg->wf.start_rate, err) < 0)
        return -EINVAL;
    cfg->shape.start_rate_set = true;
    return 0;
}

int take_arrival(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    (void)o;
    if (strcmp(arg, "constant") == 0)
        cfg->shape.arrival = PC_ARRIVAL_CONSTANT;
    else if (strcmp(arg, "poisson") == 0)
        cfg->shape.arrival = PC_ARRIVAL_POISSON;
    else
        return cli_bad(err, "invalid value for --arrival: '%s' (constant or poisson)", arg);
    return 0;
}

int take_seed(pc_config *cfg, const cli_opt *o, const char *arg, FILE *err)
{
    char *end;

    (void)o;
    errno = 0;
    cfg->shape.seed = strtoull(arg, &end, 0);
    /* Below 2^53: every JSON reader keeps it exact. */
    if (errno || end == arg || *end || arg[0] == '-' || cfg->shape.seed >= (1ull << 53))
        return cli_bad(err, "invalid seed for --seed: '%s' (a number from 0 to 2^53-1)", arg);
    cfg->shape.seed_set = true;
    return 0;
}

/* Requests the shape asks for in its first d ns (its rate's integral). */
static double shape_integral(const pc_shape *sh, uint64_t d)
{
    double prev = sh->start_rate, sum = 0, left = (double)d / NS_PER_S;

    for (uint32_t i = 0; i < sh->n && left > 0; i++) {
        double dur = (double)sh->stages[i].dur_ns / NS_PER_S, b = sh->stages[i].rate;
        double a = sh->stages[i].step ? b : prev, tau = left < dur ? left : dur;

        sum += a * tau + (b - a) / dur * tau * tau / 2;
        left -= tau;
        prev = b;
    }
    return sum;
}

static uint64_t random_seed(void)
{
    uint64_t s = 0;

    if (getrandom(&s, sizeof s, GRND_NONBLOCK) != (ssize_t)sizeof s)
        s = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
    return s & ((1ull << 53) - 1);
}

int cli_shape_finish(pc_config *cfg, FILE *err)
{
    pc_shape *sh = &cfg->shape;
    uint64_t total = 0;

    if (sh->start_rate_set && cfg->mode != PC_MODE_CAPACITY) {
        if (!sh->n)
            return cli_bad(err, "--start-rate is where --stages begins (or pacer capacity's first "
                                "rate): it needs --stages");
        sh->start_rate = cfg->wf.start_rate;
    }
    if (sh->ramp_over_d) {
        if (sh->n)
            return cli_bad(err, "-R A..B is one ramp over -d: use it or --stages, not both");
        sh->stages[0].dur_ns = cfg->duration_ns;
        sh->stages[0].step = false;
        sh->n = 1;
    } else if (sh->n && cfg->rate > 0) {
        return cli_bad(err, "--stages sets the rate: -R cannot be used with it (a ramp is -R A..B)");
    }
    if (cfg->mode == PC_MODE_CAPACITY && (sh->n || sh->arrival != PC_ARRIVAL_CONSTANT))
        return cli_bad(err, "pacer capacity chooses the rate itself: --stages, -R A..B and "
                            "--arrival cannot be used");
    if (!sh->n && sh->arrival == PC_ARRIVAL_POISSON && !(cfg->rate > 0))
        return cli_bad(err, "--arrival poisson spaces an open-loop schedule: it needs -R or --stages");
    if (sh->seed_set && sh->arrival != PC_ARRIVAL_POISSON)
        fprintf(err, "pacer: note: --seed only matters with --arrival poisson\n");
    for (size_t i = 0; cfg->slo && i < cfg->slo->n; i++)
        if (cfg->slo->v[i].stage > sh->n)
            return cli_bad(err, "--slo '%s': %s", cfg->slo->v[i].text,
                           sh->n ? "there is no such stage" : "a stage objective needs --stages");
    if (!sh->n)
        goto seed;
    if (cfg->warmup_ns)
        return cli_bad(err, "--warmup with a load shape: make the warm-up the first stage instead "
                            "(each stage has its own row)");
    for (uint32_t i = 0; i < sh->n; i++)
        total += sh->stages[i].dur_ns;
    if (!cfg->duration_set) {
        cfg->duration_ns = total;
        cfg->duration_set = true;
    } else if (cfg->duration_ns > total) {
        return cli_bad(err, "-d is longer than the stages (%.3fs): add a stage for the rest",
                       (double)total / NS_PER_S);
    }
    cfg->rate = shape_integral(sh, cfg->duration_ns) / ((double)cfg->duration_ns / NS_PER_S);
    if (!(cfg->rate > 0))
        return cli_bad(err, "the load shape asks for no request at all");
seed:
    if (sh->arrival == PC_ARRIVAL_POISSON && !sh->seed_set)
        sh->seed = random_seed();
    return 0;
}

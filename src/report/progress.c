/*
 * progress.c - see progress.h.
 */
#include "report/progress.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "dist/shard.h"
#include "engine/sched.h"
#include "util/units.h"
#include "stats/hdr.h"
#include "stats/stats.h"

#define BAR 20
#define TICK_NS 100000000ull /* the view's refresh: ten times a second */
#define RATE_TICKS 10        /* "now" is the rate of the last second */
#define HIST_ROWS 8
#define MAX_LINES (5 + HIST_ROWS)
#define LINE_CAP 512
#define FIELDS 24
#define FIELD_CAP 96

typedef struct frame {
    char line[MAX_LINES][LINE_CAP];
    int n;
    int width, height;
} frame;

struct pc_progress {
    const pc_config *cfg;
    const pc_results *res;
    FILE *f;
    bool tty;
    bool shown;
    char label[64];
    uint64_t completed, errors, non2xx;
    /* The terminal view: everything so far, from the ticks. */
    hdr_hist lat; /* corrected */
    uint64_t err[PC_ERR_KINDS], connect_errors;
    uint64_t status[STATS_MAX_STATUS], status_other;
    uint64_t ring_done[RATE_TICKS], ring_ns[RATE_TICKS];
    hdr_hist ring_lat[RATE_TICKS]; /* the last second's ticks, corrected */
    hdr_hist win;                  /* scratch: ring_lat added up */
    uint32_t ticks;
    /* Under a load shape: the schedule (whole run), to say what it asks for
     * now and in which stage; scale: this process's share of it. */
    bool shaped;
    sched sc;
    double scale;
    uint64_t drawn_ns; /* end of the last tick drawn */
    /* What the last frame left on the terminal. */
    int drawn, drawn_len[MAX_LINES], drawn_width;
    bool signal_seen; /* res->signal, and the engine's line about it, accounted for */
    uint64_t connect_line_s; /* not a terminal: the connect phase's last line, in whole seconds */
};

bool progress_wanted(const pc_config *cfg)
{
    if (cfg->progress == PC_PROGRESS_ON)
        return true;
    return cfg->progress == PC_PROGRESS_AUTO && isatty(STDERR_FILENO);
}

uint64_t progress_period_ns(const pc_progress *p)
{
    uint64_t iv = p->cfg->interval_ns, k;

    if (!p->tty || iv <= TICK_NS)
        return iv;
    /* The longest tick of at most TICK_NS that divides the interval; an
     * interval with no such divisor near (an odd number of ns) is its own
     * tick rather than a flood of tiny ones. */
    for (k = (iv + TICK_NS - 1) / TICK_NS; k <= 2 * ((iv + TICK_NS - 1) / TICK_NS); k++)
        if (iv % k == 0)
            return iv / k;
    return iv;
}

/* A terminal that can move the cursor: not TERM=dumb (an editor's shell
 * buffer, a CI log viewer), nor a TERM unset or empty (nothing says what
 * the terminal takes: a pty a job runner made, `env -i`), which get the
 * plain lines instead, as curses programs treat them. */
static bool can_redraw(FILE *f)
{
    const char *term = getenv("TERM");

    return isatty(fileno(f)) && term && term[0] && strcmp(term, "dumb") != 0;
}

/* ---- drawing ------------------------------------------------------- */

/* A frame as wide and tall as the terminal allows (80x24 when it cannot
 * say), one row kept free so the view never scrolls itself away. */
static void frame_start(pc_progress *p, frame *fr)
{
    struct winsize ws;

    fr->n = 0;
    fr->width = 80;
    fr->height = 24;
    if (ioctl(fileno(p->f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
        fr->width = ws.ws_col;
        fr->height = ws.ws_row;
    }
}

/* A line of fields (a number with its label, a bar...) that is fitted to
 * the width by leaving whole fields out, never by cutting one: the
 * highest `drop` first, of equals the rightmost. Each field after the
 * first kept one is preceded by its separator. */
typedef struct fline {
    struct {
        char s[FIELD_CAP];
        const char *sep;
        int drop;
    } f[FIELDS];
    int n;
} fline;

static void fl_add(fline *l, int drop, const char *sep, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fl_add(fline *l, int drop, const char *sep, const char *fmt, ...)
{
    va_list ap;

    if (l->n >= FIELDS)
        return;
    va_start(ap, fmt);
    vsnprintf(l->f[l->n].s, FIELD_CAP, fmt, ap);
    va_end(ap);
    l->f[l->n].sep = sep;
    l->f[l->n].drop = drop;
    l->n++;
}

static size_t fl_len(const fline *l, const bool *keep)
{
    size_t len = 0;
    bool first = true;

    for (int i = 0; i < l->n; i++) {
        if (!keep[i])
            continue;
        len += (first ? 0 : strlen(l->f[i].sep)) + strlen(l->f[i].s);
        first = false;
    }
    return len;
}

/* The line in fr's width less one column (a line that fills the last
 * column makes some terminals wrap); nothing when not even one field fits. */
static void frame_fields(frame *fr, const fline *l)
{
    bool keep[FIELDS];
    size_t max = fr->width > 1 ? (size_t)fr->width - 1 : 1, len = 0;
    char *out;
    bool first = true;

    if (fr->n >= MAX_LINES || fr->n >= fr->height - 1)
        return;
    for (int i = 0; i < l->n; i++)
        keep[i] = true;
    while (fl_len(l, keep) > max) {
        int worst = -1;

        for (int i = 0; i < l->n; i++)
            if (keep[i] && (worst < 0 || l->f[i].drop >= l->f[worst].drop))
                worst = i;
        if (worst < 0)
            break;
        keep[worst] = false;
    }
    out = fr->line[fr->n];
    out[0] = 0;
    for (int i = 0; i < l->n; i++) {
        if (!keep[i])
            continue;
        len += (size_t)snprintf(out + len, LINE_CAP - len, "%s%s", first ? "" : l->f[i].sep,
                                l->f[i].s);
        first = false;
    }
    if (len)
        fr->n++;
}

/* How many rows the last frame takes now. A terminal that was narrowed
 * since has rewrapped its longer lines (tmux, VTE, kitty, iTerm2 do). A
 * first SIGINT/SIGTERM printed one line below the view (the engine's
 * "stopping"): the view takes that row too, and says it itself. */
static int drawn_rows(pc_progress *p, int width)
{
    int rows = 0;

    if (p->res->signal && !p->signal_seen) {
        p->signal_seen = true;
        rows += p->drawn > 0;
    }

    for (int i = 0; i < p->drawn; i++) {
        int len = p->drawn_len[i];

        rows += width < p->drawn_width && len > width ? (len + width - 1) / width : 1;
    }
    return rows;
}

/* Replace the last frame with fr, in one write: up to its first row, each
 * line then the rest of its row cleared, then whatever lay below. */
static void frame_draw(pc_progress *p, const frame *fr)
{
    int up = drawn_rows(p, fr->width);

    if (up)
        fprintf(p->f, "\x1b[%dA", up);
    fputc('\r', p->f);
    for (int i = 0; i < fr->n; i++) {
        fputs(fr->line[i], p->f);
        fputs("\x1b[K\n", p->f);
        p->drawn_len[i] = (int)strlen(fr->line[i]);
    }
    fputs("\x1b[J", p->f);
    fflush(p->f);
    p->drawn = fr->n;
    p->drawn_width = fr->width;
    p->shown = true;
}

/* ---- what the schedule asks for ----------------------------------- */

/* The shape's time (s) at monotonic t_ns: its zero is the start of the
 * schedule (the warm-up's, if any). */
static double shape_time(const pc_progress *p, uint64_t t_ns)
{
    return ((double)t_ns - (double)p->res->start_mono_ns + (double)p->cfg->warmup_ns) / 1e9;
}

/* The mean rate this process's schedule asks for over [a, b] s of the
 * shape (-R itself without one): the target of what was achieved then. */
static double target_over(const pc_progress *p, double a, double b)
{
    if (!p->shaped)
        return p->cfg->rate;
    if (b - a < 1e-6)
        return sched_rate_at(&p->sc, b) * p->scale;
    return (sched_expected(&p->sc, b) - sched_expected(&p->sc, a)) / (b - a) * p->scale;
}

/* The stage the schedule is in at t s: "stage 2/3" (several stages), then,
 * if detail, what it asks for ("(1500 req/s)"; a ramp's ends and its rate at
 * t, "(0..1800 req/s, at 1230)"; -R A..B alone: "ramp 0..1800 req/s, at 1230").
 * Nothing without stages. */
static void stage_fields(const pc_progress *p, fline *l, double t, int drop, bool detail)
{
    const pc_shape *sh = &p->cfg->shape;
    uint32_t i;
    double from, to;
    bool many = sh->n > 1;

    if (!p->shaped || !sh->n)
        return;
    i = sched_stage_of(&p->sc, (uint64_t)llround((t > 0 ? t : 0) * 1e9));
    from = p->sc.seg[i].a * p->scale;
    to = sh->stages[i].rate * p->scale;
    if (many)
        fl_add(l, drop, "  ", "stage %u/%u", i + 1, sh->n);
    if (!detail)
        return;
    if (from == to)
        fl_add(l, drop + 1, many ? " " : "  ", "(%.0f req/s)", to);
    else if (many)
        fl_add(l, drop + 1, " ", "(%.0f..%.0f req/s, at %.0f)", from, to,
               sched_rate_at(&p->sc, t) * p->scale);
    else
        fl_add(l, drop + 1, "  ", "ramp %.0f..%.0f req/s, at %.0f", from, to,
               sched_rate_at(&p->sc, t) * p->scale);
}

/* ---- the terminal view --------------------------------------------- */

static void fmt_lat(int64_t ns, char *buf, size_t cap)
{
    units_fmt_time_us((double)ns / 1e3, buf, cap);
}

static void fill_bar(char *bar, double done)
{
    int fill;

    if (done > 1)
        done = 1;
    if (done < 0)
        done = 0;
    fill = (int)(done * BAR + 0.5);
    memset(bar, '#', (size_t)fill);
    memset(bar + fill, '.', (size_t)(BAR - fill));
    bar[BAR] = 0;
}

/* The first line: the label, the bar, how far (elapsed against -d, or
 * requests ended against -n), the time left, the stage. Left out first as
 * the width shrinks: the time left, the bar, what the stage asks for. */
static void view_where(pc_progress *p, frame *fr, uint64_t now_ns)
{
    const pc_config *cfg = p->cfg;
    double elapsed = (double)(now_ns - p->res->start_mono_ns) / 1e9;
    double dur = (double)cfg->duration_ns / 1e9;
    char bar[BAR + 1], total[32];
    fline l = {.n = 0};

    if (p->label[0])
        fl_add(&l, 0, "", "%s", p->label);
    if (cfg->requests) {
        uint64_t ended = p->completed + p->errors;

        fill_bar(bar, (double)ended / (double)cfg->requests);
        fl_add(&l, 4, "", "[%s]", bar);
        fl_add(&l, 0, " ", "%" PRIu64 "/%" PRIu64 " req", ended, cfg->requests);
        fl_add(&l, 5, "  ", "%.1fs", elapsed);
    } else {
        fill_bar(bar, elapsed / dur);
        units_fmt_time_us((double)cfg->duration_ns / 1e3, total, sizeof total);
        fl_add(&l, 4, "", "[%s]", bar);
        fl_add(&l, 0, " ", "%.1fs/%s", elapsed, total);
        fl_add(&l, 5, "  ", "%.1fs left", elapsed < dur ? dur - elapsed : 0.0);
    }
    stage_fields(p, &l, shape_time(p, now_ns), 1, true);
    frame_fields(fr, &l);
}

/* The rate of the last second, against what the schedule asked for over
 * that same second (under a shape: its mean there, not the run's). */
static void view_rate(pc_progress *p, frame *fr, uint64_t now_ns)
{
    uint64_t done = 0, ns = 0;
    uint32_t n = p->ticks < RATE_TICKS ? p->ticks : RATE_TICKS;
    double now, avg, secs = (double)(now_ns - p->res->start_mono_ns) / 1e9;
    fline l = {.n = 0};

    for (uint32_t i = 0; i < n; i++) {
        done += p->ring_done[i];
        ns += p->ring_ns[i];
    }
    now = ns ? (double)done * 1e9 / (double)ns : 0;
    avg = secs > 0 ? (double)p->completed / secs : 0;
    fl_add(&l, 0, "", "req/s");
    fl_add(&l, 1, "  ", "%.0f now", now);
    if (p->cfg->rate > 0) {
        double t = shape_time(p, now_ns), target = target_over(p, t - (double)ns / 1e9, t);

        if (target > 0)
            fl_add(&l, 2, "  ", "target %.0f (%.0f%%)", target, 100.0 * now / target);
        else
            fl_add(&l, 2, "  ", "target 0");
    }
    fl_add(&l, 4, "  ", "%.0f average", avg);
    fl_add(&l, 5, "  ", "%" PRIu64 " done", p->completed);
    frame_fields(fr, &l);
}

/* One latency line: p99 is kept longest, then p50, then max. */
static void latency_line(frame *fr, const char *label, const hdr_hist *h, const char *note)
{
    char p50[32], p99[32], max[32];
    fline l = {.n = 0};

    fl_add(&l, 0, "", "%s", label);
    if (!h->total_count) {
        fl_add(&l, 3, "  ", "p50 -");
        fl_add(&l, 2, "  ", "p99 -");
        fl_add(&l, 4, "  ", "max -");
    } else {
        fmt_lat(hdr_value_at_percentile(h, 50), p50, sizeof p50);
        fmt_lat(hdr_value_at_percentile(h, 99), p99, sizeof p99);
        fmt_lat(hdr_max(h), max, sizeof max);
        fl_add(&l, 3, "  ", "p50 %s", p50);
        fl_add(&l, 2, "  ", "p99 %s", p99);
        fl_add(&l, 4, "  ", "max %s", max);
    }
    if (note)
        fl_add(&l, 5, "  ", "%s", note);
    frame_fields(fr, &l);
}

/* The responses of the last second (the same window as "now"), then of
 * the whole run so far: a knee shows in the first while the second still
 * averages it away. */
static void view_latency(pc_progress *p, frame *fr)
{
    uint32_t n = p->ticks < RATE_TICKS ? p->ticks : RATE_TICKS;
    uint64_t ns = 0;
    char note[32];

    hdr_reset(&p->win);
    for (uint32_t i = 0; i < n; i++) {
        hdr_add(&p->win, &p->ring_lat[i]);
        ns += p->ring_ns[i];
    }
    snprintf(note, sizeof note, "(last %.1fs)", (double)ns / 1e9);
    latency_line(fr, "latency now", &p->win, note);
    latency_line(fr, "latency so far", &p->lat, NULL);
}

static void view_status(pc_progress *p, frame *fr)
{
    fline l = {.n = 0};
    bool any = false;

    fl_add(&l, 0, "", "status");
    for (int c = 0; c < STATS_MAX_STATUS; c++) {
        if (!p->status[c])
            continue;
        fl_add(&l, 1, "  ", "%03d: %" PRIu64, c, p->status[c]);
        any = true;
    }
    if (p->status_other)
        fl_add(&l, 1, "  ", "other: %" PRIu64, p->status_other);
    else if (!any)
        fl_add(&l, 1, "  ", "-");
    frame_fields(fr, &l);
}

static void view_errors(pc_progress *p, frame *fr)
{
    fline l = {.n = 0};

    fl_add(&l, 0, "", "errors %" PRIu64, p->errors);
    for (int k = 0; k < PC_ERR_KINDS; k++)
        if (p->err[k])
            fl_add(&l, 1, "  ", "%s %" PRIu64, pc_err_name(k), p->err[k]);
    if (p->connect_errors)
        fl_add(&l, 2, "  ", "(failed connects %" PRIu64 ")", p->connect_errors);
    frame_fields(fr, &l);
}

/* Latency so far in up to HIST_ROWS bins between the lowest and the
 * highest value, spaced geometrically (a tail 100x the median still
 * leaves the body of the distribution its own rows), as many rows as the
 * terminal has room for. */
static void view_histogram(pc_progress *p, frame *fr)
{
    uint64_t bin[HIST_ROWS] = {0}, top = 0;
    int rows = fr->height - 1 - fr->n, barw;
    double lo, hi, span;

    if (rows > HIST_ROWS)
        rows = HIST_ROWS;
    if (rows < 2 || !p->lat.total_count)
        return;
    lo = (double)hdr_min(&p->lat);
    hi = (double)hdr_max(&p->lat);
    lo = lo < 1 ? 1 : lo;
    span = hi > lo * 1.01 ? log(hi / lo) : 0;
    for (int32_t i = 0; i < p->lat.counts_len; i++) {
        double v;
        int b;

        if (!p->lat.counts[i])
            continue;
        v = (double)hdr_value_at_index(&p->lat, i);
        b = span > 0 && v > lo ? (int)(log(v / lo) / span * rows) : 0;
        b = b < 0 ? 0 : b >= rows ? rows - 1 : b;
        bin[b] += (uint64_t)p->lat.counts[i];
    }
    for (int b = 0; b < rows; b++)
        top = bin[b] > top ? bin[b] : top;
    barw = fr->width - 30;
    barw = barw > 40 ? 40 : barw;
    for (int b = 0; b < rows; b++) {
        char edge[32], bar[41];
        int fill = barw > 0 && top ? (int)((double)bin[b] / (double)top * barw + 0.5) : 0;

        fline l = {.n = 0};

        fmt_lat((int64_t)(span > 0 ? lo * exp(span * (b + 1) / rows) : hi), edge, sizeof edge);
        fl_add(&l, 0, "", "  <= %8s", edge);
        if (barw > 0) {
            memset(bar, '#', (size_t)fill);
            memset(bar + fill, ' ', (size_t)(barw - fill));
            bar[barw] = 0;
            fl_add(&l, 2, " ", "|%s|", bar);
        }
        fl_add(&l, 1, barw > 0 ? " " : "  ", "%" PRIu64, bin[b]);
        frame_fields(fr, &l);
    }
}

static void view_on_tick(pc_progress *p, const pc_interval *iv)
{
    uint32_t slot = p->ticks % RATE_TICKS;
    frame fr;

    hdr_add(&p->lat, &iv->latency);
    for (int k = 0; k < PC_ERR_KINDS; k++)
        p->err[k] += iv->err[k];
    p->connect_errors += iv->connect_errors;
    for (int c = 0; c < STATS_MAX_STATUS; c++)
        p->status[c] += iv->status[c];
    p->status_other += iv->status_other;
    p->ring_done[slot] = iv->completed;
    p->ring_ns[slot] = iv->end_ns - iv->start_ns;
    hdr_reset(&p->ring_lat[slot]);
    hdr_add(&p->ring_lat[slot], &iv->latency);
    p->ticks++;
    /* Ticks shorter than TICK_NS (--interval under 100 ms) are added up but
     * drawn at most every TICK_NS / 2. */
    if (p->drawn_ns && iv->end_ns - p->drawn_ns < TICK_NS / 2)
        return;
    p->drawn_ns = iv->end_ns;
    frame_start(p, &fr);
    view_where(p, &fr, iv->end_ns);
    view_rate(p, &fr, iv->end_ns);
    view_latency(p, &fr);
    view_status(p, &fr);
    view_errors(p, &fr);
    if (p->res->signal) {
        fline l = {.n = 0};

        fl_add(&l, 0, "", "%s: stopping", pc_signal_name(p->res->signal));
        fl_add(&l, 1, " ", "(again to abort)");
        frame_fields(&fr, &l);
    }
    view_histogram(p, &fr);
    frame_draw(p, &fr);
}

/* ---- one line per interval (not a terminal, or TERM=dumb) ----------- */

static void line_on_interval(pc_progress *p, const pc_interval *iv)
{
    const pc_config *cfg = p->cfg;
    double len = (double)(iv->end_ns - iv->start_ns) / 1e9;
    double elapsed = (double)(iv->end_ns - p->res->start_mono_ns) / 1e9;
    char bar[BAR + 1], where[64], p50[32] = "-", p99[32] = "-", total[32], stage[96] = "";
    char target[48] = "";

    if (cfg->requests) {
        fill_bar(bar, (double)(p->completed + p->errors) / (double)cfg->requests);
        snprintf(where, sizeof where, "%" PRIu64 "/%" PRIu64 " req", p->completed + p->errors,
                 cfg->requests);
    } else {
        fill_bar(bar, elapsed / ((double)cfg->duration_ns / 1e9));
        units_fmt_time_us((double)cfg->duration_ns / 1e3, total, sizeof total);
        snprintf(where, sizeof where, "%.1fs/%s", elapsed, total);
    }
    if (p->shaped) {
        double t1 = shape_time(p, iv->end_ns), t0 = shape_time(p, iv->start_ns);
        fline l = {.n = 0};

        /* The stage most of the interval was in: the one at its middle. */
        stage_fields(p, &l, (t0 + t1) / 2, 1, false);
        for (int i = 0, n = 0; i < l.n; i++)
            n += snprintf(stage + n, sizeof stage - (size_t)n, "%s%s", l.f[i].sep, l.f[i].s);
        snprintf(target, sizeof target, "  target %.0f", target_over(p, t0, t1));
    }
    if (iv->latency.total_count) {
        fmt_lat(hdr_value_at_percentile(&iv->latency, 50), p50, sizeof p50);
        fmt_lat(hdr_value_at_percentile(&iv->latency, 99), p99, sizeof p99);
    }
    fprintf(p->f, "%s[%s] %s%s  %.0f req/s%s  p50 %s  p99 %s  errors %" PRIu64, p->label, bar,
            where, stage, len > 0 ? (double)iv->completed / len : 0.0, target, p50, p99,
            p->errors);
    if (p->non2xx)
        fprintf(p->f, "  non-2xx %" PRIu64, p->non2xx);
    fputc('\n', p->f);
    fflush(p->f);
    p->shown = true;
}

/* ---- the sink ------------------------------------------------------ */

static void progress_free(pc_progress *p)
{
    hdr_free(&p->lat);
    hdr_free(&p->win);
    for (int i = 0; i < RATE_TICKS; i++)
        hdr_free(&p->ring_lat[i]);
    free(p);
}

pc_progress *progress_new(const pc_config *cfg, const pc_results *res, const char *label, FILE *f)
{
    pc_progress *p;
    frame fr;
    fline l = {.n = 0};

    if (!progress_wanted(cfg) || !(p = calloc(1, sizeof *p)))
        return NULL;
    p->cfg = cfg;
    p->res = res;
    p->f = f;
    p->tty = can_redraw(f);
    if (cfg->rate > 0 && pc_shape_active(&cfg->shape)) {
        double whole = shard_total_rate(cfg);

        sched_init_run(&p->sc, 0, &cfg->shape, whole, 1, 0);
        p->shaped = true;
        p->scale = whole > 0 ? cfg->rate / whole : 1;
    }
    if (label)
        snprintf(p->label, sizeof p->label, "%s ", label);
    if (!p->tty)
        return p;
    bool ok = hdr_init(&p->lat, 1, STATS_LAT_HIGHEST, 3) == 0 &&
              hdr_init(&p->win, 1, STATS_LAT_HIGHEST, 3) == 0;

    for (int i = 0; ok && i < RATE_TICKS; i++)
        ok = hdr_init(&p->ring_lat[i], 1, STATS_LAT_HIGHEST, 3) == 0;
    if (!ok) {
        progress_free(p);
        return NULL;
    }
    /* Shown before the connections open: nothing else moves until then. */
    frame_start(p, &fr);
    if (p->label[0])
        fl_add(&l, 0, "", "%s", p->label);
    fl_add(&l, 0, "", "connecting %u connections...", cfg->connections);
    if (cfg->warmup_ns) {
        char w[32];

        units_fmt_time_us((double)cfg->warmup_ns / 1e3, w, sizeof w);
        fl_add(&l, 1, "", ", then warming up for %s", w);
    }
    frame_fields(&fr, &l);
    frame_draw(p, &fr);
    return p;
}

void progress_on_connect(void *ud, uint32_t opened, uint32_t settled, uint32_t total,
                         uint64_t elapsed_ns, bool done)
{
    pc_progress *p = ud;
    char t[32], failed[48] = "";
    frame fr;
    fline l = {.n = 0};

    units_fmt_time_us((double)elapsed_ns / 1e3, t, sizeof t);
    if (settled > opened)
        snprintf(failed, sizeof failed, ", %u failed", settled - opened);
    if (!p->tty) {
        uint64_t s = elapsed_ns / 1000000000u;

        if (done ? s == 0 && total < 1000 : s == p->connect_line_s)
            return;
        p->connect_line_s = s;
        fprintf(p->f, "%sconnecting: %u/%u open%s, %s%s\n", p->label, opened, total, failed, t,
                done ? " (done)" : "");
        fflush(p->f);
        return;
    }
    frame_start(p, &fr);
    if (p->label[0])
        fl_add(&l, 0, "", "%s", p->label);
    fl_add(&l, 0, "", "connecting: %u/%u open%s, %s", opened, total, failed, t);
    if (p->cfg->warmup_ns) {
        char w[32];

        units_fmt_time_us((double)p->cfg->warmup_ns / 1e3, w, sizeof w);
        fl_add(&l, 1, "", ", then warming up for %s", w);
    }
    frame_fields(&fr, &l);
    frame_draw(p, &fr);
}

void progress_set_label(pc_progress *p, const char *label)
{
    snprintf(p->label, sizeof p->label, "%s%s", label ? label : "", label ? " " : "");
}

void progress_on_interval(void *ud, const pc_interval *iv)
{
    pc_progress *p = ud;

    p->completed += iv->completed;
    p->errors += iv->errors;
    p->non2xx += iv->non2xx;
    if (p->tty)
        view_on_tick(p, iv);
    else
        line_on_interval(p, iv);
}

void progress_end(pc_progress *p)
{
    if (!p)
        return;
    if (p->tty && p->shown) {
        struct winsize ws;
        int width = p->drawn_width, up;

        if (ioctl(fileno(p->f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
            width = ws.ws_col;
        up = drawn_rows(p, width);
        if (up)
            fprintf(p->f, "\x1b[%dA", up);
        fputs("\r\x1b[J", p->f);
        fflush(p->f);
    }
    progress_free(p);
}

/*
 * progress.c - see progress.h.
 */
#include "report/progress.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/units.h"
#include "stats/hdr.h"

#define BAR 20

struct pc_progress {
    const pc_config *cfg;
    const pc_results *res;
    FILE *f;
    bool tty;
    bool shown;
    char label[64];
    uint64_t completed, errors, non2xx;
};

bool progress_wanted(const pc_config *cfg)
{
    if (cfg->progress == PC_PROGRESS_ON)
        return true;
    return cfg->progress == PC_PROGRESS_AUTO && isatty(STDERR_FILENO);
}

pc_progress *progress_new(const pc_config *cfg, const pc_results *res, const char *label, FILE *f)
{
    pc_progress *p;

    if (!progress_wanted(cfg) || !(p = calloc(1, sizeof *p)))
        return NULL;
    p->cfg = cfg;
    p->res = res;
    p->f = f;
    p->tty = isatty(fileno(f));
    if (label)
        snprintf(p->label, sizeof p->label, "%s ", label);
    if (cfg->warmup_ns && p->tty) {
        /* Intervals start with the measured period: say why nothing moves. */
        char w[32];

        units_fmt_time_us((double)cfg->warmup_ns / 1e3, w, sizeof w);
        fprintf(f, "\r%swarming up for %s\x1b[K", p->label, w);
        fflush(f);
        p->shown = true;
    }
    return p;
}

void progress_on_interval(void *ud, const pc_interval *iv)
{
    pc_progress *p = ud;
    const pc_config *cfg = p->cfg;
    double len = (double)(iv->end_ns - iv->start_ns) / 1e9;
    double elapsed = (double)(iv->end_ns - p->res->start_mono_ns) / 1e9;
    double done;
    char bar[BAR + 1], where[64], p50[32] = "-", p99[32] = "-", total[32];
    int fill;

    p->completed += iv->completed;
    p->errors += iv->errors;
    p->non2xx += iv->non2xx;
    if (cfg->requests) {
        done = (double)(p->completed + p->errors) / (double)cfg->requests;
        snprintf(where, sizeof where, "%" PRIu64 "/%" PRIu64 " req", p->completed + p->errors,
                 cfg->requests);
    } else {
        done = elapsed / ((double)cfg->duration_ns / 1e9);
        units_fmt_time_us((double)cfg->duration_ns / 1e3, total, sizeof total);
        snprintf(where, sizeof where, "%.1fs/%s", elapsed, total);
    }
    if (done > 1)
        done = 1;
    fill = (int)(done * BAR + 0.5);
    memset(bar, '#', (size_t)fill);
    memset(bar + fill, '.', (size_t)(BAR - fill));
    bar[BAR] = 0;
    if (iv->latency.total_count) {
        units_fmt_time_us((double)hdr_value_at_percentile(&iv->latency, 50) / 1e3, p50, sizeof p50);
        units_fmt_time_us((double)hdr_value_at_percentile(&iv->latency, 99) / 1e3, p99, sizeof p99);
    }
    fprintf(p->f, "%s%s[%s] %s  %.0f req/s  p50 %s  p99 %s  errors %" PRIu64, p->tty ? "\r" : "",
            p->label, bar, where, len > 0 ? (double)iv->completed / len : 0.0, p50, p99, p->errors);
    if (p->non2xx)
        fprintf(p->f, "  non-2xx %" PRIu64, p->non2xx);
    fputs(p->tty ? "\x1b[K" : "\n", p->f);
    fflush(p->f);
    p->shown = true;
}

void progress_end(pc_progress *p)
{
    if (!p)
        return;
    if (p->tty && p->shown) {
        fputs("\r\x1b[K", p->f);
        fflush(p->f);
    }
    free(p);
}

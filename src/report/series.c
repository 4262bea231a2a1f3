/*
 * series.c - see series.h.
 */
#include "report/series.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "stats/hdr_codec.h"
#include "util/grow.h"

/* X(key, field, kind); a field of the wrong type for its kind does not
 * build. */
#define POINT_FIELDS(X)                                                                      \
    X("start_epoch_s", start_s, SECS)                                                        \
    X("length_s", length_s, SECS)                                                            \
    X("requests", completed, COUNT)                                                          \
    X("rate", completed, RATE)                                                               \
    X("errors", errors, COUNT)                                                               \
    X("timeouts", timeouts, COUNT)                                                           \
    X("non2xx", non2xx, COUNT)                                                               \
    X("bytes", bytes, COUNT)                                                                 \
    X("p50_us", p50, US)                                                                     \
    X("p90_us", p90, US)                                                                     \
    X("p99_us", p99, US)                                                                     \
    X("p99.9_us", p999, US)                                                                  \
    X("max_us", max, US)                                                                     \
    X("uncorrected_p50_us", u_p50, US)                                                       \
    X("uncorrected_p99_us", u_p99, US)                                                       \
    X("histogram", hist, B64)                                                                \
    X("histogram_uncorrected", hist_u, B64)

#define P_(f) (((pc_point *)0)->f)
#define TYPE_SECS(f) _Generic(P_(f), double: 1, default: 0)
#define TYPE_COUNT(f) _Generic(P_(f), uint64_t: 1, default: 0)
#define TYPE_RATE(f) TYPE_COUNT(f)
#define TYPE_US(f) _Generic(P_(f), int64_t: 1, default: 0)
#define TYPE_B64(f) _Generic(P_(f), char *: 1, default: 0)
#define CHECK(key, f, kind) _Static_assert(TYPE_##kind(f), "pc_point." #f " is not a " #kind);
POINT_FIELDS(CHECK)
#define ROW(key, f, kind) {key, offsetof(pc_point, f), PC_PF_##kind},
const pc_point_field pc_point_fields[] = {POINT_FIELDS(ROW)};
const size_t pc_point_nfields = sizeof pc_point_fields / sizeof pc_point_fields[0];
#undef ROW
#undef CHECK

static int grow(pc_series *s)
{
    return grow_array(&s->v, &s->cap, s->n + 1, 64, sizeof *s->v);
}

int series_add_interval(pc_series *s, const pc_interval *iv, double wall_start_s)
{
    pc_point *p;

    if (grow(s) < 0)
        return -ENOMEM;
    p = &s->v[s->n];
    memset(p, 0, sizeof *p);
    p->start_s = wall_start_s;
    p->length_s = (double)(iv->end_ns - iv->start_ns) / 1e9;
    p->completed = iv->completed;
    p->errors = iv->errors;
    p->timeouts = iv->timeouts;
    p->non2xx = iv->non2xx;
    p->bytes = iv->bytes_read;
    p->p50 = hdr_value_at_percentile(&iv->latency, 50);
    p->p90 = hdr_value_at_percentile(&iv->latency, 90);
    p->p99 = hdr_value_at_percentile(&iv->latency, 99);
    p->p999 = hdr_value_at_percentile(&iv->latency, 99.9);
    p->max = hdr_max(&iv->latency);
    p->u_p50 = hdr_value_at_percentile(&iv->latency_u, 50);
    p->u_p99 = hdr_value_at_percentile(&iv->latency_u, 99);
    if (hdrc_encode_base64(&iv->latency, &p->hist) < 0 ||
        hdrc_encode_base64(&iv->latency_u, &p->hist_u) < 0) {
        free(p->hist);
        return -ENOMEM;
    }
    s->n++;
    return 0;
}

void series_place_never_sent(pc_series *s, const pc_results *res)
{
    double t0 = (double)res->start_wall_ns / 1e9;
    uint64_t placed = 0;

    if (s->n == 0)
        return;
    for (size_t i = 0; i < s->n && s->interval_s > 0; i++) {
        pc_point *p = &s->v[i];
        double k = round((p->start_s - t0) / s->interval_s);

        if (k >= 0 && k < res->never_sent_n) {
            uint64_t n = res->never_sent_due[(size_t)k];

            p->never_sent += n;
            p->errors += n;
            placed += n;
        }
    }
    if (res->st.never_sent > placed) {
        s->v[s->n - 1].never_sent += res->st.never_sent - placed;
        s->v[s->n - 1].errors += res->st.never_sent - placed;
    }
}

int series_add_point(pc_series *s, const pc_point *src)
{
    pc_point *p;

    if (grow(s) < 0)
        return -ENOMEM;
    p = &s->v[s->n];
    *p = *src;
    p->hist = src->hist ? strdup(src->hist) : NULL;
    p->hist_u = src->hist_u ? strdup(src->hist_u) : NULL;
    if ((src->hist && !p->hist) || (src->hist_u && !p->hist_u)) {
        free(p->hist);
        free(p->hist_u);
        return -ENOMEM;
    }
    s->n++;
    return 0;
}

void series_free(pc_series *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].hist);
        free(s->v[i].hist_u);
    }
    free(s->v);
    memset(s, 0, sizeof *s);
}

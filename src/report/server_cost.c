/*
 * server_cost.c - the server's cost in the reports. See server_cost.h.
 */
#include "report/server_cost.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/units.h"

/* PC_SERVER_FIELDS as data: where each figure is and how runs add up. */
enum { ADD_SUM, ADD_MAX };
typedef struct srv_field {
    size_t off;
    const char *obj, *key;
    int how;
} srv_field;
static const srv_field srv_fields[] = {
#define SRV_FIELD(f, o, k, h) {offsetof(pc_server, f), o, k, ADD_##h},
    PC_SERVER_FIELDS(SRV_FIELD)
#undef SRV_FIELD
};
#define NFIELDS (sizeof srv_fields / sizeof srv_fields[0])

static double *field_of(pc_server *s, const srv_field *f)
{
    return (double *)(void *)((char *)s + f->off);
}

static double field_get(const pc_server *s, const srv_field *f)
{
    return *(const double *)(const void *)((const char *)s + f->off);
}

/* The figures of one object ("server": obj NULL, or "host") as JSON keys. */
static void write_fields(json_w *w, const pc_server *s, const char *obj)
{
    for (size_t i = 0; i < NFIELDS; i++)
        if ((obj == NULL) == (srv_fields[i].obj == NULL))
            json_w_kdouble(w, srv_fields[i].key, field_get(s, &srv_fields[i]));
}

/* The responses the server answered in the sampled window: the measured
 * ones and the warm-up's (the window spans both). */
static double responses(const pc_results *res)
{
    return (double)res->st.completed + (double)res->warmup_outcomes;
}

double report_server_cpu_per_1k(const pc_results *res)
{
    double n = res ? responses(res) : 0;

    if (!res || !res->server || isnan(res->server->cpu_s) || n <= 0)
        return NAN;
    return res->server->cpu_s / n * 1000.0;
}

double report_server_rps_per_cpu(const pc_results *res)
{
    double n = res ? responses(res) : 0;

    if (!res || !res->server || isnan(res->server->cpu_s) || res->server->cpu_s <= 0 || n <= 0)
        return NAN;
    return n / res->server->cpu_s;
}

static const char *bytes(double v, char *buf, size_t cap)
{
    size_t n;

    units_fmt_binary(v, buf, cap);
    n = strlen(buf);
    if (n + 2 < cap)
        buf[n] = 'B', buf[n + 1] = '\0';
    return buf;
}

void report_server(FILE *f, const pc_results *res, const char *ind)
{
    const pc_server *s = res->server;
    const pc_stats *st = &res->st;
    char b1[32], b2[32];

    if (!s)
        return;
    fprintf(f, "%sServer: %s", ind, s->source[0] ? s->source : "(not measured)");
    if (!isnan(s->window_s))
        fprintf(f, ", sampled over %.2fs", s->window_s);
    fputc('\n', f);
    if (!isnan(s->cpu_s)) {
        double per1k = report_server_cpu_per_1k(res);

        fprintf(f, "%s  CPU: %.3fs, %.1f%% of one core", ind, s->cpu_s,
                s->window_s > 0 ? 100.0 * s->cpu_s / s->window_s : NAN);
        if (!isnan(per1k))
            fprintf(f, ", %.4fs per 1,000 requests (%.0f requests per CPU-second)", per1k,
                    report_server_rps_per_cpu(res));
        fputc('\n', f);
    } else {
        fprintf(f, "%s  CPU: not measured (%s)\n", ind, s->proc_why);
    }
    if (!isnan(s->rss_peak)) {
        fprintf(f, "%s  Peak RSS: %s", ind, bytes(s->rss_peak, b1, sizeof b1));
        if (!isnan(s->hwm))
            fprintf(f, " (VmHWM %s: the processes' own peak since they started)",
                    bytes(s->hwm, b2, sizeof b2));
        if (!isnan(s->threads_peak))
            fprintf(f, ", threads %.0f", s->threads_peak);
        if (!isnan(s->fds_peak))
            fprintf(f, ", open fds %.0f", s->fds_peak);
        fputc('\n', f);
    } else if (isnan(s->cpu_s)) {
        ; /* the CPU line said why */
    } else {
        fprintf(f, "%s  Peak RSS: not measured (the source has no resident memory)\n", ind);
    }
    if (st->completed && !st->bytes_written) /* a --from/--to window keeps what was read */
        fprintf(f, "%s  Wire: %.0f bytes read per request (pacer's count; what it wrote is not "
                   "kept per interval)\n",
                ind, (double)st->bytes_read / (double)st->completed);
    else if (st->completed)
        fprintf(f, "%s  Wire: %.0f bytes per request (pacer's count: %.0f read, %.0f written)\n",
                ind, (double)(st->bytes_read + st->bytes_written) / (double)st->completed,
                (double)st->bytes_read / (double)st->completed,
                (double)st->bytes_written / (double)st->completed);
    if (s->host_source[0] && !isnan(s->host_busy_s)) {
        fprintf(f, "%s  Host (%s, %.0f CPUs): %.1f%% busy", ind, s->host_source, s->host_cpus,
                s->window_s > 0 && s->host_cpus > 0
                    ? 100.0 * s->host_busy_s / s->window_s / s->host_cpus
                    : NAN);
        if (!isnan(s->host_net_rx) && !isnan(s->host_net_tx) && st->completed)
            fprintf(f, ", network %.0f bytes per request (host-wide: the interfaces the exporter "
                       "counts, in + out)",
                    (s->host_net_rx + s->host_net_tx) / responses(res));
        if (!isnan(s->host_ctxsw) && s->window_s > 0)
            fprintf(f, ", %.0f context switches/s", s->host_ctxsw / s->window_s);
        if (!isnan(s->host_mem_used_peak))
            fprintf(f, ", memory used %s at most", bytes(s->host_mem_used_peak, b1, sizeof b1));
        fputc('\n', f);
    } else if (s->host_why[0]) {
        fprintf(f, "%s  Host: not measured (%s)\n", ind, s->host_why);
    }
}

void report_server_json(json_w *w, const pc_results *res)
{
    const pc_server *s = res->server;

    if (!s)
        return;
    json_w_key(w, "server");
    json_w_obj_begin(w);
    json_w_kstr(w, "source", s->source[0] ? s->source : NULL);
    json_w_kstr(w, "cpu_missing", s->proc_why[0] ? s->proc_why : NULL);
    write_fields(w, s, NULL);
    json_w_kdouble(w, "cpu_percent_of_one_core",
                   s->window_s > 0 && !isnan(s->cpu_s) ? 100.0 * s->cpu_s / s->window_s : NAN);
    json_w_kdouble(w, "cpu_s_per_1k_requests", report_server_cpu_per_1k(res));
    json_w_kdouble(w, "requests_per_cpu_s", report_server_rps_per_cpu(res));
    json_w_kdouble(w, "wire_bytes_per_request",
                   res->st.completed && res->st.bytes_written
                       ? (double)(res->st.bytes_read + res->st.bytes_written) /
                             (double)res->st.completed
                       : NAN);
    json_w_key(w, "host");
    json_w_obj_begin(w);
    json_w_kstr(w, "source", s->host_source[0] ? s->host_source : NULL);
    json_w_kstr(w, "missing", s->host_why[0] ? s->host_why : NULL);
    write_fields(w, s, "host");
    json_w_obj_end(w);
    json_w_key(w, "intervals");
    json_w_arr_begin(w);
    for (uint32_t i = 0; i < s->niv; i++) {
        json_w_obj_begin(w);
        json_w_kdouble(w, "cpu_s", s->iv[i].cpu_s);
        json_w_kdouble(w, "rss_bytes", s->iv[i].rss_bytes);
        json_w_kdouble(w, "host_busy_cpu_s", s->iv[i].host_busy_s);
        json_w_kdouble(w, "host_net_bytes", s->iv[i].host_net_bytes);
        json_w_obj_end(w);
    }
    json_w_arr_end(w);
    json_w_obj_end(w);
}

/* A number, or NAN for null or absent. */
static double num(const json_val *o, const char *k)
{
    const json_val *v = json_get(o, k);

    return v && json_type_of(v) == JSON_NUM ? json_num(v) : NAN;
}

static void str(const json_val *o, const char *k, char *buf, size_t cap)
{
    const char *s = json_str(json_get(o, k));

    snprintf(buf, cap, "%s", s ? s : "");
}

int report_server_load(const json_val *root, pc_results *res)
{
    const json_val *o = json_get(root, "server"), *h, *ivs;
    pc_server *s;

    if (!o || json_type_of(o) != JSON_OBJ)
        return 0;
    if (!(s = server_new()))
        return -ENOMEM;
    h = json_get(o, "host");
    str(o, "source", s->source, sizeof s->source);
    str(o, "cpu_missing", s->proc_why, sizeof s->proc_why);
    str(h, "source", s->host_source, sizeof s->host_source);
    str(h, "missing", s->host_why, sizeof s->host_why);
    for (size_t i = 0; i < NFIELDS; i++)
        *field_of(s, &srv_fields[i]) = num(srv_fields[i].obj ? h : o, srv_fields[i].key);
    if ((ivs = json_get(o, "intervals")) && json_type_of(ivs) == JSON_ARR && json_len(ivs)) {
        size_t n = json_len(ivs);

        if (n > UINT32_MAX || !(s->iv = calloc(n, sizeof *s->iv))) {
            server_free(s);
            return -ENOMEM;
        }
        s->niv = (uint32_t)n;
        for (size_t i = 0; i < n; i++) {
            const json_val *e = json_at(ivs, i);

            s->iv[i] = (pc_srv_point){num(e, "cpu_s"), num(e, "rss_bytes"),
                                      num(e, "host_busy_cpu_s"), num(e, "host_net_bytes")};
        }
    }
    server_free(res->server);
    res->server = s;
    return 0;
}

pc_server *report_server_dup(const pc_server *s)
{
    pc_server *d;

    if (!s || !(d = malloc(sizeof *d)))
        return NULL;
    *d = *s;
    d->iv = NULL;
    if (s->niv && !(d->iv = malloc(s->niv * sizeof *d->iv))) {
        free(d);
        return NULL;
    }
    if (s->niv)
        memcpy(d->iv, s->iv, s->niv * sizeof *d->iv);
    return d;
}

void report_server_window(pc_server *s, size_t first, size_t n, double window_s)
{
    double cpu = 0, rss = NAN, busy = 0, net = 0;
    bool gap = first + n > s->niv;

    for (size_t i = first; i < first + n && i < s->niv; i++) {
        const pc_srv_point *p = &s->iv[i];

        cpu += p->cpu_s;
        busy += p->host_busy_s;
        net += p->host_net_bytes;
        if (!isnan(p->rss_bytes) && (isnan(rss) || p->rss_bytes > rss))
            rss = p->rss_bytes;
    }
    if (gap)
        cpu = busy = net = NAN;
    if (isnan(cpu) && !isnan(s->cpu_s))
        snprintf(s->proc_why, sizeof s->proc_why,
                 "an interval in the time window has no reading of the server's CPU");
    if (isnan(busy) && !isnan(s->host_busy_s))
        snprintf(s->host_why, sizeof s->host_why,
                 "an interval in the time window has no reading of the host's CPU");
    s->cpu_s = isnan(s->cpu_s) ? NAN : cpu;
    s->rss_peak = rss;
    s->host_busy_s = isnan(s->host_busy_s) ? NAN : busy;
    /* The window keeps the sum in and out, not each. */
    s->host_net_rx = isnan(s->host_net_rx) ? NAN : net;
    s->host_net_tx = isnan(s->host_net_rx) ? NAN : 0;
    s->hwm = s->threads_peak = s->fds_peak = s->host_ctxsw = s->host_mem_used_peak = NAN;
    s->window_s = window_s;
    if (first && first < s->niv)
        memmove(s->iv, s->iv + first, (s->niv - first) * sizeof *s->iv);
    s->niv = first >= s->niv ? 0 : (uint32_t)(s->niv - first < n ? s->niv - first : n);
}

int report_server_add(pc_server **dstp, const pc_server *src)
{
    pc_server *d = *dstp;

    if (!src)
        return 0;
    if (!d)
        return (*dstp = report_server_dup(src)) ? 0 : -ENOMEM;
    if (src->niv) {
        pc_srv_point *iv = realloc(d->iv, (d->niv + src->niv) * sizeof *iv);

        if (!iv)
            return -ENOMEM;
        memcpy(iv + d->niv, src->iv, src->niv * sizeof *iv);
        d->iv = iv;
        d->niv += src->niv;
    }
    if (!d->proc_why[0] && src->proc_why[0])
        memcpy(d->proc_why, src->proc_why, sizeof d->proc_why);
    if (!d->host_why[0] && src->host_why[0])
        memcpy(d->host_why, src->host_why, sizeof d->host_why);
    for (size_t i = 0; i < NFIELDS; i++) {
        double *a = field_of(d, &srv_fields[i]), b = field_get(src, &srv_fields[i]);

        /* A sum with a missing part is missing; a peak is the larger known. */
        *a = srv_fields[i].how == ADD_SUM ? *a + b : fmax(*a, b);
    }
    return 0;
}

void report_server_cells(const pc_results *res, char *rpc, char *rss, size_t cap)
{
    double v = report_server_rps_per_cpu(res);

    if (isnan(v))
        snprintf(rpc, cap, "-");
    else
        snprintf(rpc, cap, "%.0f", v);
    if (!res->server || isnan(res->server->rss_peak))
        snprintf(rss, cap, "-");
    else
        snprintf(rss, cap, "%.1f", res->server->rss_peak / 1048576.0);
}

void report_server_note(FILE *f, const pc_results *res, const char *label)
{
    const pc_server *s = res->server;

    if (!s)
        fprintf(f, "%s: server not measured (its runs had no --server-pid or --server-metrics)\n",
                label);
    else if (isnan(s->cpu_s))
        fprintf(f, "%s: server CPU not measured (%s)\n", label,
                s->proc_why[0] ? s->proc_why : "no reading");
    else if (isnan(report_server_rps_per_cpu(res)))
        fprintf(f, "%s: requests per server CPU-second not measured (%s)\n", label,
                res->st.completed ? "the server used no measurable CPU" : "no response");
}

/*
 * srvm_page.c - an exporter's /metrics page, read into one reading: the
 * figures of prometheus-node-exporter (the host) and of
 * prometheus-process-exporter (the server's process groups). See
 * srvm_int.h.
 */
#include "srvm/srvm_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "proto/promtext.h"

/* What one parse collects; committed to the reading only when the whole
 * page parsed (pm_parse hands out the samples before a bad line). */
typedef struct page_acc {
    srvm_reading r;
    bool any_proc, any_host;
    double mem_total, mem_avail;
    const char *group; /* NULL: every group */
    char *groups;
    size_t gcap;
} page_acc;

static double add(double a, double b)
{
    return isnan(a) ? b : a + b;
}

/* Add a process-exporter group name to the list once. */
static void note_group(page_acc *a, const char *g)
{
    size_t have, n;
    const char *p;

    if (!a->groups || !a->gcap || !g)
        return;
    n = strlen(g);
    have = strlen(a->groups);
    for (p = a->groups; (p = strstr(p, g)); p += n)
        if ((p == a->groups || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return;
    if (have + n + 2 > a->gcap)
        return;
    if (have)
        a->groups[have++] = ',';
    memcpy(a->groups + have, g, n + 1);
}

static int on_sample(void *ctx, const pm_sample *s)
{
    page_acc *a = ctx;
    srvm_reading *r = &a->r;
    const char *n = s->name, *v;

    if (isnan(s->value))
        return 0;
    if (strncmp(n, "namedprocess_namegroup_", 23) == 0) {
        n += 23;
        if (a->group && (!(v = pm_label_get(s, "groupname")) || strcmp(v, a->group) != 0))
            return 0;
        if (strcmp(n, "cpu_seconds_total") == 0) {
            r->cpu_s = add(r->cpu_s, s->value);
            a->any_proc = true;
            note_group(a, pm_label_get(s, "groupname"));
        } else if (strcmp(n, "memory_bytes") == 0) {
            if ((v = pm_label_get(s, "memtype")) && strcmp(v, "resident") == 0)
                r->rss = add(r->rss, s->value);
        } else if (strcmp(n, "num_threads") == 0) {
            r->threads = add(r->threads, s->value);
        } else if (strcmp(n, "open_filedesc") == 0) {
            r->fds = add(r->fds, s->value);
        } else if (strcmp(n, "num_procs") == 0) {
            r->nproc = add(r->nproc, s->value);
        }
        return 0;
    }
    if (strncmp(n, "node_", 5) != 0)
        return 0;
    n += 5;
    if (strcmp(n, "cpu_seconds_total") == 0) {
        v = pm_label_get(s, "mode");
        a->any_host = true;
        if (v && strcmp(v, "idle") == 0)
            r->cpus = add(r->cpus, 1);
        else if (!v || strcmp(v, "iowait") != 0)
            r->busy_s = add(r->busy_s, s->value);
    } else if (strcmp(n, "network_receive_bytes_total") == 0) {
        r->net_rx = add(r->net_rx, s->value);
    } else if (strcmp(n, "network_transmit_bytes_total") == 0) {
        r->net_tx = add(r->net_tx, s->value);
    } else if (strcmp(n, "context_switches_total") == 0) {
        r->ctxsw = s->value;
    } else if (strcmp(n, "memory_MemTotal_bytes") == 0) {
        a->mem_total = s->value;
    } else if (strcmp(n, "memory_MemAvailable_bytes") == 0) {
        a->mem_avail = s->value;
    }
    return 0;
}

int srvm_page_read(const char *text, size_t len, const char *group, srvm_reading *r, char *groups,
                   size_t cap)
{
    page_acc a;
    pm_error err;
    int rc;

    srvm_reading_init(&a.r);
    a.any_proc = a.any_host = false;
    a.mem_total = a.mem_avail = NAN;
    a.group = group && group[0] ? group : NULL;
    a.groups = groups;
    a.gcap = cap;
    if (groups && cap)
        groups[0] = '\0';
    srvm_reading_init(r);
    rc = pm_parse(text, len, false, on_sample, &a, &err);
    if (rc == -1) {
        snprintf(r->why, sizeof r->why, "not a metrics page: line %u: %s", err.line, err.why);
        return -1;
    }
    if (rc < 0) {
        snprintf(r->why, sizeof r->why, "out of memory");
        return -1;
    }
    if (!a.any_proc && !a.any_host && a.group) {
        snprintf(r->why, sizeof r->why, "no process-exporter group '%s' on the page", a.group);
        return -1;
    }
    if (!a.any_proc && !a.any_host) {
        snprintf(r->why, sizeof r->why,
                 "neither node_cpu_seconds_total (node-exporter) nor "
                 "namedprocess_namegroup_cpu_seconds_total (process-exporter) on the page");
        return -1;
    }
    a.r.t_ns = r->t_ns;
    *r = a.r;
    r->proc = a.any_proc;
    r->host = a.any_host;
    if (!isnan(a.mem_total) && !isnan(a.mem_avail))
        r->mem_used = a.mem_total - a.mem_avail;
    return 0;
}

/*
 * srvm_proc.c - --server-pid: the server's processes read from /proc.
 * See srvm_int.h.
 */
#include "srvm/srvm_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/grow.h"

int srvm_procsel_parse(const char *arg, srvm_procsel *sel, char *err, size_t errlen)
{
    size_t n = strlen(arg), digits = strspn(arg, "0123456789");

    memset(sel, 0, sizeof *sel);
    if (n == 0) {
        snprintf(err, errlen, "--server-pid needs a PID or a process name");
        return -EINVAL;
    }
    if (digits == n) {
        long v = n <= 9 ? strtol(arg, NULL, 10) : 0;

        if (v <= 0) {
            snprintf(err, errlen, "--server-pid %s: not a process id", arg);
            return -EINVAL;
        }
        sel->pid = (int)v;
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        if (arg[i] == '/' || iscntrl((unsigned char)arg[i])) {
            snprintf(err, errlen, "--server-pid '%s': a PID or a process name (comm), not a path",
                     arg);
            return -EINVAL;
        }
    /* The kernel keeps 15 bytes of a comm. */
    snprintf(sel->name, sizeof sel->name, "%.15s", arg);
    return 0;
}

/* One process of /proc: what its stat line says. */
typedef struct proc_ent {
    int pid, ppid;
    char comm[16];
    double ticks; /* utime + stime */
    bool pick;
} proc_ent;

/* Read root/PID/stat: 0, or -1 (gone, or not a process). */
static int read_stat(const char *root, int pid, proc_ent *e)
{
    char path[256], buf[1024];
    FILE *f;
    size_t n;
    const char *open, *close;
    unsigned long long ut = 0, stt = 0;
    int ppid = 0;

    snprintf(path, sizeof path, "%s/%d/stat", root, pid);
    if (!(f = fopen(path, "re")))
        return -1;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* "pid (comm) state ppid ..." where comm may hold spaces and parens. */
    if (!(open = strchr(buf, '(')) || !(close = strrchr(buf, ')')) || close < open)
        return -1;
    if (sscanf(close + 1, " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ppid, &ut,
               &stt) != 3)
        return -1;
    e->pid = pid;
    e->ppid = ppid;
    snprintf(e->comm, sizeof e->comm, "%.*s", (int)(close - open - 1 > 15 ? 15 : close - open - 1),
             open + 1);
    e->ticks = (double)ut + (double)stt;
    e->pick = false;
    return 0;
}

/* root/PID/status's "Key:   N kB" lines we want (bytes; threads as is). */
static void read_status(const char *root, int pid, double *rss, double *hwm, double *threads)
{
    char path[256], line[256];
    FILE *f;

    *rss = *hwm = *threads = NAN;
    snprintf(path, sizeof path, "%s/%d/status", root, pid);
    if (!(f = fopen(path, "re")))
        return;
    while (fgets(line, sizeof line, f)) {
        unsigned long long v;

        if (sscanf(line, "VmRSS: %llu", &v) == 1)
            *rss = (double)v * 1024;
        else if (sscanf(line, "VmHWM: %llu", &v) == 1)
            *hwm = (double)v * 1024;
        else if (sscanf(line, "Threads: %llu", &v) == 1)
            *threads = (double)v;
    }
    fclose(f);
}

/* Open descriptors of root/PID (NAN: not readable, e.g. another user's). */
static double count_fds(const char *root, int pid)
{
    char path[256];
    DIR *d;
    struct dirent *de;
    double n = 0;

    snprintf(path, sizeof path, "%s/%d/fd", root, pid);
    if (!(d = opendir(path)))
        return NAN;
    while ((de = readdir(d)))
        n += de->d_name[0] != '.';
    closedir(d);
    return n;
}

/* a + b where NAN + x is x (a sum over processes some of which hide a
 * figure); NAN only when every term is. */
static double add_known(double a, double b)
{
    return isnan(a) ? b : isnan(b) ? a : a + b;
}

int srvm_proc_read(const char *root, const srvm_procsel *sel, srvm_reading *r)
{
    DIR *d = opendir(root);
    struct dirent *de;
    proc_ent *ents = NULL;
    size_t n = 0, cap = 0, picked = 0;
    long hz = sysconf(_SC_CLK_TCK);
    double ticks = 0;
    int rc = -1;

    srvm_reading_init(r);
    if (!d) {
        snprintf(r->why, sizeof r->why, "%s: %s", root, strerror(errno));
        return -1;
    }
    while ((de = readdir(d))) {
        char *end;
        long pid = strtol(de->d_name, &end, 10);

        if (*end || pid <= 0)
            continue;
        if (grow_array(&ents, &cap, n + 1, 256, sizeof *ents) < 0) {
            snprintf(r->why, sizeof r->why, "out of memory");
            goto out;
        }
        if (read_stat(root, (int)pid, &ents[n]) == 0)
            n++;
    }
    if (sel->pid > 0) {
        /* The process and its descendants: mark children of marked ones
         * until nothing changes (a tree is a few levels deep). */
        bool more = true;

        for (size_t i = 0; i < n; i++)
            if (ents[i].pid == sel->pid)
                ents[i].pick = true, picked = 1;
        while (more && picked) {
            more = false;
            for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < n && !ents[i].pick; j++)
                    if (ents[j].pick && ents[i].ppid == ents[j].pid)
                        ents[i].pick = true, picked++, more = true;
        }
        if (!picked) {
            snprintf(r->why, sizeof r->why, "no such process");
            goto out;
        }
    } else {
        for (size_t i = 0; i < n; i++)
            if (strcmp(ents[i].comm, sel->name) == 0)
                ents[i].pick = true, picked++;
        if (!picked) {
            snprintf(r->why, sizeof r->why, "no process has that name");
            goto out;
        }
    }
    r->rss = r->hwm = r->threads = r->fds = NAN;
    for (size_t i = 0; i < n; i++) {
        double rss, hwm, th;

        if (!ents[i].pick)
            continue;
        ticks += ents[i].ticks;
        read_status(root, ents[i].pid, &rss, &hwm, &th);
        r->rss = add_known(r->rss, rss);
        r->hwm = add_known(r->hwm, hwm);
        r->threads = add_known(r->threads, th);
        r->fds = add_known(r->fds, count_fds(root, ents[i].pid));
    }
    r->cpu_s = ticks / (double)(hz > 0 ? hz : 100);
    r->nproc = (double)picked;
    r->proc = true;
    rc = 0;
out:
    if (d)
        closedir(d);
    free(ents);
    return rc;
}

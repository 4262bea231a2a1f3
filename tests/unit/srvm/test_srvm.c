/*
 * test_srvm.c - the server-cost sampler's parts (src/srvm/): exporters'
 * pages read into figures (the real pages of tests/data/prometheus/, sums
 * computed independently), the URL and the HTTP response taken apart, a
 * fake /proc tree read by PID (with descendants) and by name, and the
 * sampler run against this process.
 */
#include "srvm/srvm.h"
#include "srvm/srvm_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

#define NEAR(a, b) (fabs((double)(a) - (double)(b)) <= 1e-6 * (fabs((double)(b)) + 1))

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf)
        buf[n] = '\0', *len = (size_t)n;
    return buf;
}

static void test_node_exporter_page(void)
{
    size_t len = 0;
    char *t = slurp("tests/data/prometheus/node-exporter-1.5.0.txt", &len);
    srvm_reading r;
    int rc;

    CHECK(t);
    rc = srvm_page_read(t, len, NULL, &r, NULL, 0);
    free(t);
    CHECK_EQ_I64(rc, 0);
    CHECK(r.host && !r.proc);
    CHECK(NEAR(r.cpus, 2));
    CHECK(NEAR(r.busy_s, 3097.83)); /* every mode but idle and iowait, both CPUs */
    CHECK(NEAR(r.net_rx, 215964355.0));
    CHECK(NEAR(r.net_tx, 228726.0));
    CHECK(NEAR(r.ctxsw, 6.685373e+06));
    CHECK(NEAR(r.mem_used, 2.5275953152e+10 - 2.4656900096e+10));
    CHECK(isnan(r.cpu_s) && isnan(r.rss));
}

static void test_process_exporter_page(void)
{
    size_t len = 0;
    char *t = slurp("tests/data/prometheus/process-exporter-0.7.10.txt", &len);
    srvm_reading r;
    char groups[64];
    int rc;

    CHECK(t);
    rc = srvm_page_read(t, len, NULL, &r, groups, sizeof groups);
    free(t);
    CHECK_EQ_I64(rc, 0);
    CHECK(r.proc && !r.host);
    CHECK(NEAR(r.cpu_s, 0.84));
    CHECK(NEAR(r.rss, 259325952.0)); /* memtype="resident" only */
    CHECK(NEAR(r.threads, 56));
    CHECK(NEAR(r.fds, 703));
    CHECK_EQ_STR(groups, "bash,sleep");
}

/* URL#GROUP: one group's figures only; a group not on the page says so. */
static void test_process_exporter_group(void)
{
    size_t len = 0;
    char *t = slurp("tests/data/prometheus/process-exporter-0.7.10.txt", &len);
    srvm_reading r;
    int rc, rc2;

    CHECK(t);
    rc = srvm_page_read(t, len, "bash", &r, NULL, 0);
    CHECK(rc == 0);
    CHECK(NEAR(r.cpu_s, 0.84));
    CHECK(NEAR(r.rss, 2.57724416e+08));
    rc = srvm_page_read(t, len, "sleep", &r, NULL, 0);
    CHECK(rc == 0);
    CHECK(NEAR(r.cpu_s, 0));
    CHECK(NEAR(r.rss, 1.601536e+06));
    rc2 = srvm_page_read(t, len, "nginx", &r, NULL, 0);
    free(t);
    CHECK_EQ_I64(rc2, -1);
    CHECK_EQ_STR(r.why, "no process-exporter group 'nginx' on the page");
}

static void test_bad_pages(void)
{
    static const char garbage[] = "# HELP x y\nthis is {not a page\n";
    static const char other[] = "go_goroutines 7\nup 1\n";
    static const char nan_page[] =
        "namedprocess_namegroup_cpu_seconds_total{groupname=\"a\",mode=\"user\"} NaN\n"
        "namedprocess_namegroup_cpu_seconds_total{groupname=\"a\",mode=\"system\"} 2\n";
    srvm_reading r;

    CHECK_EQ_I64(srvm_page_read(garbage, sizeof garbage - 1, NULL, &r, NULL, 0), -1);
    r.why[28] = '\0';
    CHECK_EQ_STR(r.why, "not a metrics page: line 2: ");
    CHECK(!r.proc && !r.host);
    CHECK_EQ_I64(srvm_page_read(other, sizeof other - 1, NULL, &r, NULL, 0), -1);
    CHECK(strstr(r.why, "neither node_cpu_seconds_total"));
    CHECK_EQ_I64(srvm_page_read("", 0, NULL, &r, NULL, 0), -1);
    /* A NaN sample is no figure: the rest still sum. */
    CHECK_EQ_I64(srvm_page_read(nan_page, sizeof nan_page - 1, NULL, &r, NULL, 0), 0);
    CHECK(NEAR(r.cpu_s, 2));
}

static void test_group_label_missing(void)
{
    /* A process-exporter sample with no groupname label (the fuzzer's
     * misspelt one) still counts when no group is asked for, and adds no
     * name to the list of groups seen; it once passed NULL to strlen. */
    static const char page[] =
        "namedprocess_namegroup_cpu_seconds_total{gpoupname=\"a\",mode=\"user\"} 0.5\n"
        "namedprocess_namegroup_cpu_seconds_total{groupname=\"b\",mode=\"user\"} 1\n";
    char groups[64] = "";
    srvm_reading r;

    CHECK_EQ_I64(srvm_page_read(page, sizeof page - 1, NULL, &r, groups, sizeof groups), 0);
    CHECK(NEAR(r.cpu_s, 1.5));
    CHECK_EQ_STR(groups, "b");
    CHECK_EQ_I64(srvm_page_read(page, sizeof page - 1, "b", &r, groups, sizeof groups), 0);
    CHECK(NEAR(r.cpu_s, 1));
}

static void test_url(void)
{
    srvm_url u;
    char err[256];
    static const char *const bad[] = {"ftp://h/", "http://", "http:///x", "http://h:0/",
                                      "http://h:65536/", "http://h:12a/", "http://h x/",
                                      "http://[::1/", "http://h/a b", "https://h/", "http://h/#",
                                      "http://h/#a b"};

    CHECK_EQ_I64(srvm_url_parse("http://127.0.0.1:9100/metrics", &u, err, sizeof err), 0);
    CHECK_EQ_STR(u.host, "127.0.0.1");
    CHECK_EQ_STR(u.port, "9100");
    CHECK_EQ_STR(u.path, "/metrics");
    CHECK_EQ_I64(srvm_url_parse("http://localhost", &u, err, sizeof err), 0);
    CHECK_EQ_STR(u.port, "80");
    CHECK_EQ_STR(u.path, "/metrics"); /* the exporters' default */
    CHECK_EQ_I64(srvm_url_parse("http://[::1]:9256/x?y=1", &u, err, sizeof err), 0);
    CHECK_EQ_STR(u.host, "::1");
    CHECK_EQ_STR(u.path, "/x?y=1");
    CHECK_EQ_STR(u.group, "");
    CHECK_EQ_I64(srvm_url_parse("http://127.0.0.1:9256/metrics#nginx", &u, err, sizeof err), 0);
    CHECK_EQ_STR(u.path, "/metrics");
    CHECK_EQ_STR(u.group, "nginx");
    CHECK_EQ_I64(srvm_url_parse("http://127.0.0.1:9256#h2o", &u, err, sizeof err), 0);
    CHECK_EQ_STR(u.path, "/metrics");
    CHECK_EQ_STR(u.group, "h2o");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        CHECK(srvm_url_parse(bad[i], &u, err, sizeof err) == -EINVAL);
        CHECK(strncmp(err, "--server-metrics '", 18) == 0);
    }
}

/* srvm_http_body on a copy of s (it works in place). */
static long body(const char *s, bool complete, char *out, size_t cap, char *why)
{
    size_t n = strlen(s);
    char *b = malloc(n + 1);
    long r;

    memcpy(b, s, n + 1);
    why[0] = '\0';
    r = srvm_http_body(b, n, complete, why, 128);
    if (r >= 0 && (size_t)r < cap)
        memcpy(out, b, (size_t)r), out[r] = '\0';
    free(b);
    return r;
}

static void test_http_body(void)
{
    char out[128], why[128];

    CHECK_EQ_I64(body("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc", true, out, sizeof out, why), 3);
    CHECK_EQ_STR(out, "abc");
    CHECK_EQ_I64(body("HTTP/1.0 200 OK\r\n\r\nto the close", true, out, sizeof out, why), 12);
    CHECK_EQ_STR(out, "to the close");
    CHECK_EQ_I64(body("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                      "3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\n\r\n",
                      true, out, sizeof out, why),
                 5);
    CHECK_EQ_STR(out, "abcde");
    CHECK_EQ_I64(body("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", true, out, sizeof out, why), -1);
    CHECK_EQ_STR(why, "HTTP 404");
    CHECK_EQ_I64(body("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc", true, out, sizeof out, why), -1);
    CHECK(strstr(why, "cut short"));
    CHECK_EQ_I64(body("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nff\r\nab", true, out, sizeof out, why), -1);
    CHECK(strstr(why, "chunked"));
    CHECK_EQ_I64(body("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXY0\r\n\r\n", true, out, sizeof out, why), -1);
    CHECK_EQ_I64(body("SSH-2.0-OpenSSH\r\n", true, out, sizeof out, why), -1);
    CHECK_EQ_STR(why, "not an HTTP response");
    CHECK_EQ_I64(body("HTTP/1.1 200 OK\r\nContent-Le", false, out, sizeof out, why), -1);
    CHECK_EQ_STR(why, "response headers cut short");
    CHECK_EQ_I64(body("HTTP/1.1 200 OK\r\n\r\npart", false, out, sizeof out, why), -1);
}

/* A fake /proc: root/PID/stat and status for each (pid, ppid, comm, utime,
 * stime, rss kB). */
static int fake_proc(const char *root, int pid, int ppid, const char *comm, int ut, int st, int rss)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof path, "%s/%d", root, pid);
    if (mkdir(path, 0755) < 0)
        return -1;
    snprintf(path, sizeof path, "%s/%d/stat", root, pid);
    if (!(f = fopen(path, "w")))
        return -1;
    fprintf(f, "%d (%s) S %d %d %d 0 -1 4194560 100 0 0 0 %d %d 0 0 20 0 1 0 100 1000 %d\n", pid,
            comm, ppid, pid, pid, ut, st, rss / 4);
    fclose(f);
    snprintf(path, sizeof path, "%s/%d/status", root, pid);
    if (!(f = fopen(path, "w")))
        return -1;
    fprintf(f, "Name:\t%s\nVmHWM:\t%8d kB\nVmRSS:\t%8d kB\nThreads:\t1\n", comm, rss * 2, rss);
    fclose(f);
    return 0;
}

static void test_proc(void)
{
    char root[] = "/tmp/pacer-test-srvm.XXXXXX", err[128];
    srvm_procsel sel;
    srvm_reading r;
    double hz = (double)sysconf(_SC_CLK_TCK);
    bool made;

    CHECK(mkdtemp(root));
    /* 10 the master, 11 and 12 its workers, 13 a child of 12, 20 another
     * "nginx", 30 unrelated; a comm with a space and a paren. */
    made = fake_proc(root, 10, 1, "nginx", 100, 50, 1000) == 0 &&
           fake_proc(root, 11, 10, "nginx", 300, 100, 2000) == 0 &&
           fake_proc(root, 12, 10, "nginx", 200, 100, 2000) == 0 &&
           fake_proc(root, 13, 12, "a) b", 10, 0, 100) == 0 &&
           fake_proc(root, 20, 1, "nginx", 1000, 0, 500) == 0 &&
           fake_proc(root, 30, 1, "sh", 7, 7, 10) == 0;
    CHECK(made);
    CHECK_EQ_I64(srvm_procsel_parse("10", &sel, err, sizeof err), 0);
    CHECK_EQ_I64(srvm_proc_read(root, &sel, &r), 0);
    CHECK(r.proc);
    CHECK(NEAR(r.nproc, 4));
    CHECK(NEAR(r.cpu_s, (150 + 400 + 300 + 10) / hz));
    CHECK(NEAR(r.rss, (1000 + 2000 + 2000 + 100) * 1024.0));
    CHECK(NEAR(r.hwm, 2 * (1000 + 2000 + 2000 + 100) * 1024.0));
    CHECK(NEAR(r.threads, 4));
    CHECK_EQ_I64(srvm_procsel_parse("nginx", &sel, err, sizeof err), 0);
    CHECK_EQ_I64(srvm_proc_read(root, &sel, &r), 0);
    CHECK(NEAR(r.nproc, 4)); /* 10, 11, 12, 20: by comm, not by tree */
    CHECK(NEAR(r.cpu_s, (150 + 400 + 300 + 1000) / hz));
    CHECK_EQ_I64(srvm_procsel_parse("a) b", &sel, err, sizeof err), 0);
    CHECK_EQ_I64(srvm_proc_read(root, &sel, &r), 0);
    CHECK(NEAR(r.cpu_s, 10 / hz));
    CHECK_EQ_I64(srvm_procsel_parse("99", &sel, err, sizeof err), 0);
    CHECK_EQ_I64(srvm_proc_read(root, &sel, &r), -1);
    CHECK_EQ_STR(r.why, "no such process");
    CHECK_EQ_I64(srvm_procsel_parse("httpd", &sel, err, sizeof err), 0);
    CHECK_EQ_I64(srvm_proc_read(root, &sel, &r), -1);
    CHECK_EQ_STR(r.why, "no process has that name");
    CHECK(srvm_procsel_parse("0", &sel, err, sizeof err) == -EINVAL);
    CHECK(srvm_procsel_parse("", &sel, err, sizeof err) == -EINVAL);
    CHECK(srvm_procsel_parse("/usr/sbin/nginx", &sel, err, sizeof err) == -EINVAL);
    CHECK(srvm_procsel_parse("99999999999", &sel, err, sizeof err) == -EINVAL);
    {
        char cmd[600];

        snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
        CHECK(system(cmd) == 0);
    }
}

/* The sampler on this process: a start, two ticks, the end; the CPU this
 * test burns in between shows, the intervals add up to the whole. */
static void test_sampler_self(void)
{
    char pid[16];
    pc_server_opts o = {.pid = pid};
    srvm *s = NULL;
    pc_server *out;
    volatile double x = 0;

    snprintf(pid, sizeof pid, "%d", (int)getpid());
    CHECK_EQ_I64(srvm_start(&s, &o, 300000000ull), 0);
    for (int k = 0; k < 2; k++) {
        for (long i = 0; i < 30000000; i++)
            x += (double)i;
        srvm_tick(s);
        usleep(50000);
    }
    out = srvm_finish(s, 2);
    CHECK(out);
    CHECK(out->proc_why[0] == '\0');
    CHECK(out->cpu_s > 0);
    CHECK(out->niv == 2);
    CHECK(!isnan(out->iv[0].cpu_s) && !isnan(out->iv[1].cpu_s));
    CHECK(out->iv[0].cpu_s + out->iv[1].cpu_s <= out->cpu_s + 1e-9);
    CHECK(out->rss_peak > 0);
    CHECK(strncmp(out->source, "pid ", 4) == 0);
    CHECK(isnan(out->host_busy_s) && out->host_why[0] == '\0');
    server_free(out);
}

int main(void)
{
    RUN(test_node_exporter_page);
    RUN(test_process_exporter_page);
    RUN(test_process_exporter_group);
    RUN(test_bad_pages);
    RUN(test_group_label_missing);
    RUN(test_url);
    RUN(test_http_body);
    RUN(test_proc);
    RUN(test_sampler_self);
    return unit_done();
}

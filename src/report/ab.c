/*
 * ab.c - ApacheBench's report layout (--format ab) and its two files:
 * -g (a TSV row per request) and -e (the percentage CSV).
 *
 * The numbers are pacer's, measured the way ab defines them: Connect is
 * the connection set-up a request paid for (0 on a reused connection),
 * Processing is Total minus Connect, Waiting is first byte written to
 * first byte of the response, Total is Connect plus first byte written to
 * last byte read. ab's bugs are not copied: medians come from the
 * histogram (ab gets an even count's median wrong), and a body length
 * that differs from the first response is a failure only with
 * --strict-length (a dynamic page is not a failure).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "report/server_cost.h"
#include "report/report.h"
#include "report/stages.h"
#include "stats/interval.h"

static long ms(double ns)
{
    return (long)(ns / 1e6 + 0.5);
}

void report_ab_header(FILE *f, const pc_rundesc *run)
{
    fprintf(f, "This is pacer %s, reporting in ApacheBench's layout\n\n", PACER_VERSION);
    fprintf(f, "Benchmarking %s (be patient)\n", run->url.host);
    fflush(f);
}

/* One row of the Connection Times table; brief: ab -S's min avg max. */
static void ct_row(FILE *f, const char *label, const hdr_hist *h, bool brief)
{
    bool any = h->total_count > 0;

    if (brief) {
        fprintf(f, "%-12s%5ld %5ld%5ld\n", label, any ? ms((double)hdr_min(h)) : 0,
                ms(hdr_mean(h)), any ? ms((double)hdr_max(h)) : 0);
        return;
    }

    fprintf(f, "%-12s%5ld %4ld %5.1f %6ld %7ld\n", label, any ? ms((double)hdr_min(h)) : 0,
            ms(hdr_mean(h)), hdr_stddev(h) / 1e6,
            any ? ms((double)hdr_value_at_percentile(h, 50)) : 0,
            any ? ms((double)hdr_max(h)) : 0);
}

void report_ab(FILE *f, const pc_rundesc *run, const pc_results *res)
{
    const pc_stats *st = &res->st;
    static const int pcts[] = {50, 66, 75, 80, 90, 95, 98, 99, 100};
    double secs = (double)res->duration_ns / 1e9;
    uint64_t receive = st->err[PC_ERR_READ] + st->err[PC_ERR_TIMEOUT] + st->err[PC_ERR_PROTOCOL];
    uint64_t length = run->strict_length ? st->length_differs : 0;
    uint64_t failed = st->connect_errors + receive + length + st->err[PC_ERR_WRITE];
    hdr_hist proc_ab;

    fprintf(f, "Finished %" PRIu64 " requests\n\n\n", st->completed);
    fprintf(f, "Server Software:        %s\n", st->server);
    fprintf(f, "Server Hostname:        %s\n", run->host ? run->host : run->url.host);
    fprintf(f, "Server Port:            %s\n", run->url.port);
    if (st->tls_version[0]) {
        fprintf(f, "SSL/TLS Protocol:       %s,%s\n", st->tls_version, st->tls_cipher);
        fprintf(f, "TLS Server Name:        %s\n", run->host ? run->host : run->url.host);
    }
    fprintf(f, "\n");
    fprintf(f, "Document Path:          %s\n", run->nreqs > 1 ? "(several: --urls)" : run->url.path);
    fprintf(f, "Document Length:        %" PRId64 " bytes%s\n", st->doc_len < 0 ? 0 : st->doc_len,
            st->length_differs && !run->strict_length ? " (varies)" : "");
    fprintf(f, "\n");
    fprintf(f, "Concurrency Level:      %u\n", run->connections * (run->h2 || run->h3 ? run->streams : run->pipeline));
    fprintf(f, "Time taken for tests:   %.3f seconds\n", secs);
    fprintf(f, "Complete requests:      %" PRIu64 "\n", st->completed);
    fprintf(f, "Failed requests:        %" PRIu64 "\n", failed);
    if (failed)
        fprintf(f,
                "   (Connect: %" PRIu64 ", Receive: %" PRIu64 ", Length: %" PRIu64
                ", Exceptions: %" PRIu64 ")\n",
                st->connect_errors, receive, length, st->err[PC_ERR_WRITE]);
    if (st->non2xx)
        fprintf(f, "Non-2xx responses:      %" PRIu64 "\n", st->non2xx);
    if (st->keepalive_responses)
        fprintf(f, "Keep-Alive requests:    %" PRIu64 "\n", st->keepalive_responses);
    fprintf(f, "Total transferred:      %" PRIu64 " bytes\n", st->bytes_read);
    fprintf(f, "HTML transferred:       %" PRIu64 " bytes\n", st->body_bytes);
    fprintf(f, "Requests per second:    %.2f [#/sec] (mean)\n",
            secs > 0 ? (double)st->completed / secs : 0);
    fprintf(f, "Time per request:       %.3f [ms] (mean)\n",
            st->completed ? (double)run->connections * secs * 1e3 / (double)st->completed : 0);
    fprintf(f, "Time per request:       %.3f [ms] (mean, across all concurrent requests)\n",
            st->completed ? secs * 1e3 / (double)st->completed : 0);
    fprintf(f, "Transfer rate:          %.2f [Kbytes/sec] received\n",
            secs > 0 ? (double)st->bytes_read / 1024.0 / secs : 0);
    fprintf(f, "\nConnection Times (ms)\n");
    if (run->ab_no_confidence)
        fprintf(f, "              min   avg   max\n");
    else
        fprintf(f, "              min  mean[+/-sd] median   max\n");
    ct_row(f, "Connect:", &st->conn_req, run->ab_no_confidence);
    /* ab's Processing is Total - Connect: first byte written to last read. */
    ct_row(f, "Processing:", &st->latency_u, run->ab_no_confidence);
    ct_row(f, "Waiting:", &st->ttfb, run->ab_no_confidence);
    ct_row(f, "Total:", &st->total_req, run->ab_no_confidence);
    (void)proc_ab;
    if (!run->ab_no_percentiles)
        fprintf(f, "\nPercentage of the requests served within a certain time (ms)\n");
    for (size_t i = 0; !run->ab_no_percentiles && i < sizeof pcts / sizeof pcts[0]; i++) {
        long v = st->total_req.total_count
                     ? ms((double)hdr_value_at_percentile(&st->total_req, pcts[i]))
                     : 0;

        fprintf(f, " %3d%%  %5ld%s\n", pcts[i], v, pcts[i] == 100 ? " (longest request)" : "");
    }
    /* pacer's own lines, as every layout's: the send lag first. */
    report_send_lag(f, run, res, "pacer: ");
    report_verdict(f, run, res, "pacer: ");
    report_notes(f, run, res, "pacer: ");
    report_server(f, res, "pacer: ");
    report_stages(f, run, res, "pacer: ");
}

void report_ab_progress(void *ud, const pc_interval *iv)
{
    pc_ab_progress *p = ud;

    p->done += iv->completed + iv->errors;
    while (p->every && p->next + p->every <= p->done) {
        p->next += p->every;
        fprintf(p->f, "Completed %" PRIu64 " requests\n", p->next);
    }
    fflush(p->f);
}

static int cmp_total(const void *a, const void *b)
{
    const pc_reqrec *x = a, *y = b;
    uint64_t tx = x->ctime + x->dtime, ty = y->ctime + y->dtime;

    return (tx > ty) - (tx < ty);
}

int report_ab_gnuplot(FILE *f, const pc_results *res)
{
    pc_reqrec *r = res->st.recs;
    size_t n = res->st.nrecs;

    /* ab writes its rows ordered by total time. */
    if (n > 1)
        qsort(r, n, sizeof *r, cmp_total);
    fprintf(f, "starttime\tseconds\tctime\tdtime\tttime\twait\n");
    for (size_t i = 0; i < n; i++) {
        double wall = (double)res->start_wall_ns / 1e9 +
                      ((double)r[i].start - (double)res->start_mono_ns) / 1e9;
        time_t t = (time_t)wall;
        char when[64];
        struct tm tm;

        localtime_r(&t, &tm);
        strftime(when, sizeof when, "%a %b %d %H:%M:%S %Y", &tm);
        fprintf(f, "%s\t%lld\t%ld\t%ld\t%ld\t%ld\n", when, (long long)t, ms((double)r[i].ctime),
                ms((double)r[i].dtime), ms((double)(r[i].ctime + r[i].dtime)),
                ms((double)r[i].wait));
    }
    return ferror(f) ? -1 : 0;
}

int report_ab_csv(FILE *f, const pc_results *res)
{
    const hdr_hist *h = &res->st.total_req;

    fprintf(f, "Percentage served,Time in ms\n");
    for (int i = 0; i <= 100; i++)
        fprintf(f, "%d,%.3f\n", i,
                h->total_count ? (double)hdr_value_at_percentile(h, i) / 1e6 : 0);
    return ferror(f) ? -1 : 0;
}

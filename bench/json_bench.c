/*
 * json_bench.c - time util/json.h on one file: parse it, and write the
 * parsed tree back the way --json writes (json_w, indent 2), REPS times
 * each; print the median CPU time of each in milliseconds. Built by bench/json.sh
 * against the json.c of each tree it compares (it uses json.h only, which
 * both keep), so the numbers isolate the JSON layer from the rest of
 * `pacer report`.
 *
 *   json_bench FILE [REPS]   ->   "parse_ms 12.3 write_ms 4.5"
 */
#include "util/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int reps = argc > 2 ? atoi(argv[2]) : 7;
    double tp[64], tw[64];
    char err[512];

    if (argc < 2 || reps < 1 || reps > 64) {
        fprintf(stderr, "usage: json_bench FILE [REPS (1..64)]\n");
        return 2;
    }
    for (int r = 0; r < reps; r++) {
        json_val *v = NULL;
        double t0 = now_ms();
        if (json_parse_file(argv[1], &v, err, sizeof err) != 0) {
            fprintf(stderr, "json_bench: %s\n", err);
            return 1;
        }
        double t1 = now_ms();
        FILE *f = fopen("/dev/null", "w");
        json_w w;
        if (!f)
            return 1;
        json_w_init(&w, f, 2);
        json_w_value(&w, v);
        if (json_w_finish(&w) != 0) {
            fprintf(stderr, "json_bench: write failed\n");
            return 1;
        }
        fclose(f);
        double t2 = now_ms();
        tp[r] = t1 - t0;
        tw[r] = t2 - t1;
        json_free(v);
    }
    printf("parse_ms %.2f write_ms %.2f\n", median(tp, reps), median(tw, reps));
    return 0;
}

/*
 * json_jansson.c - jansson alone on one file, for the writer question in
 * bench/json.sh: how long jansson takes to load the file, to build a tree
 * of that size (json_deep_copy, the cost a tree-building writer would pay
 * before dumping), and to dump it as --json would (indent 2, 17 digits).
 * Medians of REPS, CPU time in milliseconds.
 *
 *   json_jansson FILE [REPS]   ->   "load_ms 20.1 build_ms 8.0 dump_ms 15.2"
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
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
    double tl[64], tb[64], td[64];
    json_error_t e;

    if (argc < 2 || reps < 1 || reps > 64) {
        fprintf(stderr, "usage: json_jansson FILE [REPS (1..64)]\n");
        return 2;
    }
    for (int r = 0; r < reps; r++) {
        double t0 = now_ms();
        json_t *v = json_load_file(argv[1], JSON_DECODE_ANY, &e);
        if (!v) {
            fprintf(stderr, "json_jansson: %s:%d:%d: %s\n", argv[1], e.line, e.column, e.text);
            return 1;
        }
        double t1 = now_ms();
        json_t *copy = json_deep_copy(v);
        double t2 = now_ms();
        FILE *f = fopen("/dev/null", "w");
        if (!f || !copy || json_dumpf(copy, f, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) != 0)
            return 1;
        fclose(f);
        double t3 = now_ms();
        tl[r] = t1 - t0;
        tb[r] = t2 - t1;
        td[r] = t3 - t2;
        json_decref(copy);
        json_decref(v);
    }
    printf("load_ms %.2f build_ms %.2f dump_ms %.2f\n", median(tl, reps), median(tb, reps),
           median(td, reps));
    return 0;
}

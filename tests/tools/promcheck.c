/*
 * promcheck.c - an OpenMetrics page (what --metrics-listen serves) read
 * with pacer's own parser (src/proto/promtext.h, openmetrics: a page
 * without "# EOF", or with any malformed line, is refused whole), for
 * tests/integration/test_metrics_listen.sh:
 *
 *     promcheck FILE
 *
 * Exit 0 and one line per sample, "NAME VALUE LABEL=VALUE...", labels in
 * the page's order; exit 1 and "promcheck: line N: why" when the page is
 * refused; 2 when FILE cannot be read.
 */
#include <stdio.h>
#include <stdlib.h>

#include "proto/promtext.h"

static int print_sample(void *ctx, const pm_sample *s)
{
    (void)ctx;
    printf("%s %.17g", s->name, s->value);
    for (size_t i = 0; i < s->nlabels; i++)
        printf(" %s=%s", s->labels[i].name, s->labels[i].value);
    putchar('\n');
    return 0;
}

int main(int argc, char **argv)
{
    FILE *f;
    char *text = NULL;
    size_t len = 0, cap = 0, n;
    pm_error err = {0};
    int rc;

    if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
        fprintf(stderr, "usage: promcheck FILE (a readable file)\n");
        return 2;
    }
    do {
        if (len == cap) {
            char *p = realloc(text, cap = cap ? 2 * cap : 65536);

            if (!p) {
                fclose(f);
                free(text);
                return 2;
            }
            text = p;
        }
        n = fread(text + len, 1, cap - len, f);
        len += n;
    } while (n > 0);
    fclose(f);
    rc = pm_parse(text ? text : "", len, true, print_sample, NULL, &err);
    free(text);
    if (rc != 0) {
        fprintf(stderr, "promcheck: line %u: %s\n", err.line, rc == -1 ? err.why : "error");
        return 1;
    }
    return 0;
}

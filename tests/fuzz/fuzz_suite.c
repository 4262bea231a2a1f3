/*
 * fuzz_suite.c - libFuzzer harness for the suite-file parser of `pacer
 * suite` (src/workflow/suite_file.c).
 *
 *   make -f tests/fuzz/fuzz.mk build-fuzz/fuzz_suite
 *   dir=$(mktemp -d); cp -R tests/fuzz/corpus/suite "$dir/c"
 *   build-fuzz/fuzz_suite -max_total_time=60 "$dir/c"   # new inputs go there
 *
 * The whole input, NUL bytes included, goes to suite_file_parse as a heap
 * buffer of exactly its size (no NUL after it). The harness aborts when:
 *   - it returns anything but 0, -EINVAL or -ENOMEM;
 *   - on failure, err (heap memory of exactly ERRCAP bytes) is empty,
 *     unterminated, or does not start with "NAME:" (and "NAME:LINE: "
 *     with a LINE within the input's lines, unless it is one of the two
 *     whole-file messages); a short err buffer is overrun, left
 *     unterminated or given anything but a prefix of the full message;
 *     the output still holds items; an input with a NUL byte fails with
 *     anything but "NAME: not a text file (NUL byte)";
 *   - on success, there are no targets or no profiles, or more than
 *     SUITE_MAX_ITEMS; an item has no name, an empty one, a NULL word, a
 *     word or name with a line end or longer than the input; a target has
 *     no URL word; a name is defined twice among targets or profiles; a
 *     line would have had more than SUITE_MAX_WORDS words;
 *   - the parsed file, written back with every word in single quotes,
 *     parses to anything but the same items;
 *   - suite_file_free leaves items behind (ASan/LSan see what it leaks).
 */
#include "workflow/suite_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAME "fuzz"
#define ERRCAP 512
#define FILL 0x5a

static const char nul_msg[] = NAME ": not a text file (NUL byte)";
static const char both_msg[] = NAME ": needs at least one target line and one profile line";

/* The first parse and the re-parse of its write-back (static: 12 KiB each). */
static suite_file f1, f2;

static void check_item(const suite_item *it, bool is_target, size_t size)
{
    if (!it->name || !it->name[0] || strchr(it->name, '\n') || strlen(it->name) > size)
        abort();
    if (it->nwords < (is_target ? 1 : 0) || it->nwords > SUITE_MAX_WORDS - 2)
        abort();
    if (it->nwords > 0 && !it->words)
        abort();
    for (int i = 0; i < it->nwords; i++)
        if (!it->words[i] || strchr(it->words[i], '\n') || strlen(it->words[i]) > size)
            abort();
}

static void check_list(const suite_item *list, int n, bool is_target, size_t size)
{
    if (n < 1 || n > SUITE_MAX_ITEMS)
        abort();
    for (int i = 0; i < n; i++) {
        check_item(&list[i], is_target, size);
        for (int j = 0; j < i; j++)
            if (strcmp(list[i].name, list[j].name) == 0)
                abort();
    }
}

/* s in single quotes, a quote in it as '\'' (close, escaped quote, open). */
static void put_word(FILE *f, const char *s)
{
    fputs(" '", f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
}

static void put_items(FILE *f, const char *kw, const suite_item *list, int n)
{
    for (int i = 0; i < n; i++) {
        fputs(kw, f);
        put_word(f, list[i].name);
        for (int k = 0; k < list[i].nwords; k++)
            put_word(f, list[i].words[k]);
        fputs(i % 2 ? "\r\n" : "\n", f); /* both line ends */
    }
}

static bool same_items(const suite_item *a, const suite_item *b, int n)
{
    for (int i = 0; i < n; i++) {
        if (strcmp(a[i].name, b[i].name) != 0 || a[i].nwords != b[i].nwords)
            return false;
        for (int k = 0; k < a[i].nwords; k++)
            if (strcmp(a[i].words[k], b[i].words[k]) != 0)
                return false;
    }
    return true;
}

/* Write f1 back as a suite file (profiles first, to move the lines
 * around) and parse that: the same items must come back. */
static void check_roundtrip(void)
{
    char *text = NULL, err[ERRCAP];
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);

    if (!mem)
        abort();
    fputs("# written back\n", mem);
    put_items(mem, "profile", f1.profiles, f1.nprofiles);
    put_items(mem, "\ttarget", f1.targets, f1.ntargets);
    if (fclose(mem) != 0)
        abort();
    if (suite_file_parse(text, len, NAME, &f2, err, sizeof err) != 0)
        abort();
    if (f2.ntargets != f1.ntargets || f2.nprofiles != f1.nprofiles ||
        !same_items(f1.targets, f2.targets, f1.ntargets) ||
        !same_items(f1.profiles, f2.profiles, f1.nprofiles))
        abort();
    suite_file_free(&f2);
    free(text);
}

static size_t count_lines(const uint8_t *data, size_t size)
{
    size_t n = 1;

    for (size_t i = 0; i < size; i++)
        n += data[i] == '\n';
    return n;
}

static void check_error(const char *err, const uint8_t *data, size_t size)
{
    const char *p;
    char *end;
    unsigned long line;

    if (!memchr(err, '\0', ERRCAP) || !err[0])
        abort();
    if (memchr(data, '\0', size)) {
        if (strcmp(err, nul_msg) != 0)
            abort();
        return;
    }
    if (strcmp(err, nul_msg) == 0 || strncmp(err, NAME ":", strlen(NAME ":")) != 0)
        abort();
    if (strcmp(err, both_msg) == 0)
        return;
    p = err + strlen(NAME ":");
    if (*p < '1' || *p > '9')
        abort();
    line = strtoul(p, &end, 10);
    if (line > count_lines(data, size) || strncmp(end, ": ", 2) != 0 || !end[2])
        abort();
}

/* The message again into a short heap buffer of exactly cap bytes (and a
 * canary): a terminated prefix of the full one, nothing written past. */
static void check_short_err(const char *text, size_t size, const char *full, size_t cap)
{
    char *e = malloc(cap + 16);
    suite_file f;

    if (!e)
        abort();
    memset(e, FILL, cap + 16);
    if (suite_file_parse(text, size, NAME, &f, e, cap) >= 0)
        abort();
    for (size_t i = cap; i < cap + 16; i++)
        if (e[i] != FILL)
            abort();
    if (!memchr(e, '\0', cap) || strlen(e) != (strlen(full) < cap ? strlen(full) : cap - 1) ||
        memcmp(e, full, strlen(e)) != 0)
        abort();
    if (f.ntargets || f.nprofiles)
        abort();
    free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size ? size : 1), *err = malloc(ERRCAP);
    int rc;

    if (!text || !err)
        abort();
    if (size)
        memcpy(text, data, size);
    memset(err, FILL, ERRCAP);
    rc = suite_file_parse(text, size, NAME, &f1, err, ERRCAP);
    if (rc != 0 && rc != -EINVAL && rc != -ENOMEM)
        abort();
    if (rc < 0) {
        if (f1.ntargets || f1.nprofiles)
            abort();
        check_error(err, data, size);
        check_short_err(text, size, err, 1 + size % 40);
    } else {
        if (memchr(data, '\0', size))
            abort();
        check_list(f1.targets, f1.ntargets, true, size);
        check_list(f1.profiles, f1.nprofiles, false, size);
        check_roundtrip();
        suite_file_free(&f1);
        if (f1.ntargets || f1.nprofiles)
            abort();
        suite_file_free(&f1); /* twice is harmless */
    }
    free(text);
    free(err);
    return 0;
}

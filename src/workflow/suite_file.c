/*
 * suite_file.c - the suite file's lines split into words and gathered into
 * targets and profiles (the format is in suite_file.h).
 *
 * The text is read as (ptr, len) slices, line by line, and never written
 * to; each word is measured first and then decoded into a buffer of its
 * own size, so a long line costs its words' bytes, not its length per word.
 */
#include "workflow/suite_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/urls.h"

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static void free_words(char **w, int n)
{
    for (int i = 0; i < n; i++)
        free(w[i]);
}

/*
 * Decode the word that starts at *sp (not a blank) and ends at the first
 * blank outside quotes or at end. With o, the decoded bytes go there (the
 * caller terminates them); without, the word is only measured. Returns the
 * decoded length with *sp just past the word, or -1 with the reason in why
 * when a quote is not closed before end.
 */
static ptrdiff_t word_decode(const char **sp, const char *end, char *o, char *why, size_t cap)
{
    const char *s = *sp;
    ptrdiff_t n = 0;

    while (s < end && !is_blank(*s)) {
        if (*s == '\'') {
            const char *q = memchr(s + 1, '\'', (size_t)(end - s - 1));

            if (!q) {
                snprintf(why, cap, "unterminated ' quote");
                return -1;
            }
            if (o)
                memcpy(o + n, s + 1, (size_t)(q - s - 1));
            n += q - s - 1;
            s = q + 1;
        } else if (*s == '"') {
            for (s++; s < end && *s != '"'; s++) {
                if (*s == '\\' && end - s > 1 && (s[1] == '"' || s[1] == '\\'))
                    s++;
                if (o)
                    o[n] = *s;
                n++;
            }
            if (s == end) {
                snprintf(why, cap, "unterminated \" quote");
                return -1;
            }
            s++;
        } else {
            if (*s == '\\' && end - s > 1)
                s++;
            if (o)
                o[n] = *s;
            n++;
            s++;
        }
    }
    *sp = s;
    return n;
}

/* Split the line [s, end) into at most max heap words. Returns the count,
 * or -EINVAL / -ENOMEM with the reason in why (and nothing left allocated). */
static int split_words(const char *s, const char *end, char **out, int max, char *why,
                       size_t cap)
{
    int n = 0, rc;

    for (;;) {
        const char *w;
        ptrdiff_t len;

        while (s < end && is_blank(*s))
            s++;
        if (s == end || *s == '#')
            return n;
        if (n == max) {
            snprintf(why, cap, "too many words (max %d)", max);
            rc = -EINVAL;
            goto fail;
        }
        w = s;
        len = word_decode(&s, end, NULL, why, cap);
        if (len < 0) {
            rc = -EINVAL;
            goto fail;
        }
        out[n] = malloc((size_t)len + 1);
        if (!out[n]) {
            snprintf(why, cap, "out of memory");
            rc = -ENOMEM;
            goto fail;
        }
        word_decode(&w, end, out[n], NULL, 0);
        out[n++][len] = '\0';
    }
fail:
    free_words(out, n);
    return rc;
}

static void item_free(suite_item *it)
{
    free(it->name);
    free_words(it->words, it->nwords);
    free(it->words);
}

/* One "target"/"profile" line of n >= 1 words. On success the item owns
 * words[1..n-1] and words[0] is freed; on failure (-EINVAL / -ENOMEM, the
 * reason in why) every word is still the caller's. */
static int add_item(suite_file *f, char **words, int n, char *why, size_t cap)
{
    bool is_target = strcmp(words[0], "target") == 0;
    suite_item *list = is_target ? f->targets : f->profiles, *it;
    int *count = is_target ? &f->ntargets : &f->nprofiles;

    if (!is_target && strcmp(words[0], "profile") != 0) {
        snprintf(why, cap, "unknown keyword '%s' (target or profile)", words[0]);
        return -EINVAL;
    }
    if (n < (is_target ? 3 : 2)) {
        snprintf(why, cap, "%s", is_target ? "expected: target NAME URL [options]"
                                           : "expected: profile NAME [options]");
        return -EINVAL;
    }
    /* Names label the runs, the table and the JSON; '' would label nothing. */
    if (!words[1][0]) {
        snprintf(why, cap, "%s NAME is empty", words[0]);
        return -EINVAL;
    }
    if (*count == SUITE_MAX_ITEMS) {
        snprintf(why, cap, "too many %ss (max %d)", words[0], SUITE_MAX_ITEMS);
        return -EINVAL;
    }
    for (int i = 0; i < *count; i++)
        if (strcmp(list[i].name, words[1]) == 0) {
            snprintf(why, cap, "%s '%s' is defined twice", words[0], words[1]);
            return -EINVAL;
        }
    it = &list[*count];
    it->words = calloc((size_t)n, sizeof *it->words);
    if (!it->words) {
        snprintf(why, cap, "out of memory");
        return -ENOMEM;
    }
    (*count)++;
    it->name = words[1];
    it->nwords = n - 2;
    memcpy(it->words, words + 2, (size_t)(n - 2) * sizeof *words);
    free(words[0]);
    return 0;
}

int suite_file_parse(const char *text, size_t len, const char *name, suite_file *out, char *err,
                     size_t errlen)
{
    const char *p, *end;
    char *words[SUITE_MAX_WORDS], why[160];
    size_t lineno = 0;
    int rc = 0;

    memset(out, 0, sizeof *out);
    if (len == 0)
        text = ""; /* no arithmetic on a NULL text */
    if (memchr(text, '\0', len)) {
        snprintf(err, errlen, "%s: not a text file (NUL byte)", name);
        return -EINVAL;
    }
    for (p = text, end = text + len; p < end && rc == 0;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
        int n;

        lineno++;
        /* CRLF ends a line as LF does (a backslash before it stays one). */
        if (eol > p && eol[-1] == '\r')
            eol--;
        n = split_words(p, eol, words, SUITE_MAX_WORDS, why, sizeof why);
        if (n > 0) {
            rc = add_item(out, words, n, why, sizeof why);
            if (rc < 0)
                free_words(words, n);
        } else {
            rc = n;
        }
        p = nl ? nl + 1 : end;
    }
    if (rc < 0) {
        snprintf(err, errlen, "%s:%zu: %s", name, lineno, why);
        suite_file_free(out);
        return rc;
    }
    if (out->ntargets == 0 || out->nprofiles == 0) {
        snprintf(err, errlen, "%s: needs at least one target line and one profile line", name);
        suite_file_free(out);
        return -EINVAL;
    }
    return 0;
}

int suite_file_load(const char *path, suite_file *out, char *err, size_t errlen)
{
    char *text;
    size_t len;
    int rc = urls_read_file(path, &text, &len);

    if (rc < 0) {
        memset(out, 0, sizeof *out);
        snprintf(err, errlen, "cannot read suite '%s': %s", path, strerror(-rc));
        return rc;
    }
    rc = suite_file_parse(text, len, path, out, err, errlen);
    free(text);
    return rc;
}

void suite_file_free(suite_file *f)
{
    for (int i = 0; i < f->ntargets; i++)
        item_free(&f->targets[i]);
    for (int i = 0; i < f->nprofiles; i++)
        item_free(&f->profiles[i]);
    f->ntargets = f->nprofiles = 0;
}

/*
 * test_suite_file.c - the suite file of `pacer suite`
 * (src/workflow/suite_file.c): words and quoting, comments, blank lines,
 * CRLF, a last line without a line end, every error message exactly, the
 * word and item limits, a NUL byte, reading a file.
 *
 * Every text is handed over in a heap buffer of exactly its length, with
 * no NUL after it, so a read past the end shows under `make SAN=1 unit`.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workflow/suite_file.h"
#include "unit.h"

/* ---- helpers ------------------------------------------------------------ */

static suite_file sf;      /* the last parse (static: it is 12 KiB) */
static char perr[1024];    /* its message */

/* Parse len bytes of text as "f.txt"; the result lands in sf / perr. On
 * failure sf must be empty and perr terminated. */
static int parse_n(const char *text, size_t len)
{
    char *copy = malloc(len ? len : 1);
    int rc;

    if (!copy)
        abort();
    memcpy(copy, text, len);
    memset(perr, 'X', sizeof perr);
    rc = suite_file_parse(copy, len, "f.txt", &sf, perr, sizeof perr);
    free(copy);
    if (rc < 0 && (sf.ntargets || sf.nprofiles || !memchr(perr, 0, sizeof perr)))
        return 1; /* no error code: makes every CHECK on rc fail */
    return rc;
}

static int parse(const char *text)
{
    return parse_n(text, strlen(text));
}

/* Parse text, which must fail with -EINVAL and exactly this message. */
#define PARSE_ERR(text, want)                                                  \
    do {                                                                       \
        CHECK_EQ_I64(parse(text), -EINVAL);                                    \
        CHECK_EQ_STR(perr, (want));                                            \
    } while (0)

/* Item it has this name and these words (a NULL-terminated list). */
static bool item_is(const suite_item *it, const char *name, const char *const *words)
{
    int n = 0;

    if (strcmp(it->name, name) != 0)
        return false;
    for (; words[n]; n++)
        if (n >= it->nwords || strcmp(it->words[n], words[n]) != 0)
            return false;
    return n == it->nwords;
}

#define W(...) ((const char *const[]){__VA_ARGS__, NULL})
#define NOWORDS ((const char *const[]){NULL})

/* A growing text for the limit tests. */
typedef struct {
    char *s;
    size_t len, cap;
} text_buf;

static void tb_add(text_buf *b, const char *s)
{
    size_t n = strlen(s);

    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s)
            abort();
    }
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

/* ---- valid files -------------------------------------------------------- */

static void test_docs_example(void)
{
    CHECK_EQ_I64(parse("# target NAME URL [options]   a server\n"
                       "# profile NAME [options]      a load shape\n"
                       "target nginx  https://127.0.0.1:8443/  -H \"X-Bench: suite\"\n"
                       "target ols    https://127.0.0.1:9443/\n"
                       "profile closed   -t1 -c50 -d5s\n"
                       "profile h2-m80   -t1 -c50 -m80 --h2 -d5s\n"
                       "profile rated    -t1 -c50 -d10s -R2000 --slo 'p99<=50ms'\n"),
                 0);
    CHECK_EQ_I64(sf.ntargets, 2);
    CHECK_EQ_I64(sf.nprofiles, 3);
    CHECK(item_is(&sf.targets[0], "nginx", W("https://127.0.0.1:8443/", "-H", "X-Bench: suite")));
    CHECK(item_is(&sf.targets[1], "ols", W("https://127.0.0.1:9443/")));
    CHECK(item_is(&sf.profiles[0], "closed", W("-t1", "-c50", "-d5s")));
    CHECK(item_is(&sf.profiles[1], "h2-m80", W("-t1", "-c50", "-m80", "--h2", "-d5s")));
    CHECK(item_is(&sf.profiles[2], "rated",
                  W("-t1", "-c50", "-d10s", "-R2000", "--slo", "p99<=50ms")));
    suite_file_free(&sf);
    CHECK_EQ_I64(sf.ntargets + sf.nprofiles, 0);
    suite_file_free(&sf); /* twice is fine */
}

static void test_profile_without_options(void)
{
    CHECK_EQ_I64(parse("target a u\nprofile p\n"), 0);
    CHECK(item_is(&sf.profiles[0], "p", NOWORDS));
    CHECK(item_is(&sf.targets[0], "a", W("u")));
    suite_file_free(&sf);
}

static void test_single_quotes_are_literal(void)
{
    CHECK_EQ_I64(parse("target a u\nprofile p 'a b' 'x\\y\"z' '' 'it''s' '#no'\n"), 0);
    CHECK(item_is(&sf.profiles[0], "p", W("a b", "x\\y\"z", "", "its", "#no")));
    suite_file_free(&sf);
}

static void test_double_quotes(void)
{
    /* \" and \\ are escapes inside "..."; any other backslash stays. */
    CHECK_EQ_I64(parse("target a u\n"
                       "profile p \"a b\" \"say \\\"hi\\\"\" \"c:\\\\d\" \"\\n\\x\" \"\" \"'q'\"\n"),
                 0);
    CHECK(item_is(&sf.profiles[0], "p", W("a b", "say \"hi\"", "c:\\d", "\\n\\x", "", "'q'")));
    suite_file_free(&sf);
}

static void test_quotes_join_a_word(void)
{
    CHECK_EQ_I64(parse("target a u\nprofile p -H'X: 1'\"+\"y x'' \"\"z\n"), 0);
    CHECK(item_is(&sf.profiles[0], "p", W("-HX: 1+y", "x", "z")));
    suite_file_free(&sf);
}

static void test_backslash_outside_quotes(void)
{
    /* \X is X (a blank, a quote, a '#', a backslash); a last backslash stays. */
    CHECK_EQ_I64(parse("target a u\nprofile p a\\ b \\'c \\\"d \\#e f\\\\g h\\\n"), 0);
    CHECK(item_is(&sf.profiles[0], "p", W("a b", "'c", "\"d", "#e", "f\\g", "h\\")));
    suite_file_free(&sf);
}

static void test_blanks(void)
{
    /* Spaces and tabs (and a CR anywhere) separate; runs of them count once. */
    CHECK_EQ_I64(parse("\t target \t a\t\tu  \n  profile p  x\ry  \t\n"), 0);
    CHECK(item_is(&sf.targets[0], "a", W("u")));
    CHECK(item_is(&sf.profiles[0], "p", W("x", "y")));
    suite_file_free(&sf);
}

static void test_comments(void)
{
    /* '#' comments only at the start of a word. */
    CHECK_EQ_I64(parse("# a comment\n"
                       "   # an indented one\n"
                       "target a u # the rest 'is ignored\n"
                       "profile p a#b -d1s#x \t#c\n"
                       "#target b v\n"),
                 0);
    CHECK_EQ_I64(sf.ntargets, 1);
    CHECK(item_is(&sf.targets[0], "a", W("u")));
    CHECK(item_is(&sf.profiles[0], "p", W("a#b", "-d1s#x")));
    suite_file_free(&sf);
}

static void test_blank_lines(void)
{
    CHECK_EQ_I64(parse("\n\n   \n\t\ntarget a u\n\n\nprofile p\n\n"), 0);
    CHECK_EQ_I64(sf.ntargets, 1);
    CHECK_EQ_I64(sf.nprofiles, 1);
    suite_file_free(&sf);
}

static void test_crlf(void)
{
    CHECK_EQ_I64(parse("# c\r\ntarget a http://h/\r\n\r\nprofile p -d1s 'x y'\r\n"), 0);
    CHECK(item_is(&sf.targets[0], "a", W("http://h/")));
    CHECK(item_is(&sf.profiles[0], "p", W("-d1s", "x y")));
    suite_file_free(&sf);
    /* A backslash before CRLF stays a backslash, as before LF. */
    CHECK_EQ_I64(parse("target a u\r\nprofile p x\\\r\n"), 0);
    CHECK(item_is(&sf.profiles[0], "p", W("x\\")));
    suite_file_free(&sf);
    /* Line numbers count CRLF lines. */
    PARSE_ERR("target a u\r\n\r\nhost b\r\n", "f.txt:3: unknown keyword 'host' (target or profile)");
}

static void test_last_line_without_newline(void)
{
    CHECK_EQ_I64(parse("target a u\nprofile p -d1s"), 0);
    CHECK(item_is(&sf.profiles[0], "p", W("-d1s")));
    suite_file_free(&sf);
    CHECK_EQ_I64(parse("target a u\nprofile p x\\"), 0);
    CHECK(item_is(&sf.profiles[0], "p", W("x\\")));
    suite_file_free(&sf);
    CHECK_EQ_I64(parse("target a u\nprofile p 'q'"), 0);
    CHECK(item_is(&sf.profiles[0], "p", W("q")));
    suite_file_free(&sf);
}

static void test_not_nul_terminated(void)
{
    /* Only len bytes count: what follows is not read. */
    const char *t = "target a u\nprofile p -d1s\nhost x\n";

    CHECK_EQ_I64(parse_n(t, strlen("target a u\nprofile p -d1")), 0);
    CHECK(item_is(&sf.profiles[0], "p", W("-d1")));
    suite_file_free(&sf);
}

static void test_same_name_target_and_profile(void)
{
    CHECK_EQ_I64(parse("target x u\nprofile x\n"), 0);
    suite_file_free(&sf);
}

static void test_keyword_may_be_quoted(void)
{
    CHECK_EQ_I64(parse("'target' a u\n\"profile\" p\n"), 0);
    suite_file_free(&sf);
}

/* ---- errors -------------------------------------------------------------- */

static void test_error_unknown_keyword(void)
{
    PARSE_ERR("target a u\nhost b\nprofile p -d1s\n",
              "f.txt:2: unknown keyword 'host' (target or profile)");
    PARSE_ERR("Target a u\n", "f.txt:1: unknown keyword 'Target' (target or profile)");
    PARSE_ERR("'' a u\n", "f.txt:1: unknown keyword '' (target or profile)");
}

static void test_error_unterminated_quotes(void)
{
    PARSE_ERR("target a u\nprofile p -H 'X: y\n", "f.txt:2: unterminated ' quote");
    PARSE_ERR("target a u\nprofile p -H \"X: y\n", "f.txt:2: unterminated \" quote");
    /* An escaped quote does not close; quotes do not span lines. */
    PARSE_ERR("profile p \"a\\\"\n", "f.txt:1: unterminated \" quote");
    PARSE_ERR("profile p 'a\n'\n", "f.txt:1: unterminated ' quote");
    PARSE_ERR("profile p 'a", "f.txt:1: unterminated ' quote");
    PARSE_ERR("profile p \"a\\", "f.txt:1: unterminated \" quote");
    /* Inside a comment a quote is nothing. */
    CHECK_EQ_I64(parse("target a u # it's\nprofile p\n"), 0);
    suite_file_free(&sf);
}

static void test_error_missing_words(void)
{
    PARSE_ERR("target a\nprofile p\n", "f.txt:1: expected: target NAME URL [options]");
    PARSE_ERR("target\n", "f.txt:1: expected: target NAME URL [options]");
    PARSE_ERR("target a u\nprofile # none\n", "f.txt:2: expected: profile NAME [options]");
}

static void test_error_empty_name(void)
{
    PARSE_ERR("target '' u\nprofile p\n", "f.txt:1: target NAME is empty");
    PARSE_ERR("target a u\nprofile \"\" -d1s\n", "f.txt:2: profile NAME is empty");
}

static void test_error_defined_twice(void)
{
    PARSE_ERR("target a u\ntarget a v\nprofile p\n", "f.txt:2: target 'a' is defined twice");
    PARSE_ERR("target a u\nprofile p\n\nprofile 'p' -d1s\n",
              "f.txt:4: profile 'p' is defined twice");
}

static void test_error_needs_both(void)
{
    static const char want[] = "f.txt: needs at least one target line and one profile line";

    PARSE_ERR("target a u\n", want);
    PARSE_ERR("profile p\n", want);
    PARSE_ERR("", want);
    PARSE_ERR("# nothing\n\n  \r\n", want);
}

static void test_error_nul_byte(void)
{
    static const char mid[] = "target a u\0\nprofile p\n", last[] = "target a u\nprofile p\n#\0";

    CHECK_EQ_I64(parse_n(mid, sizeof mid - 1), -EINVAL);
    CHECK_EQ_STR(perr, "f.txt: not a text file (NUL byte)");
    /* Even in a comment, even as the last byte. */
    CHECK_EQ_I64(parse_n(last, sizeof last), -EINVAL);
    CHECK_EQ_STR(perr, "f.txt: not a text file (NUL byte)");
}

static void test_error_undoes_earlier_lines(void)
{
    /* parse_n checks that a failed parse leaves sf empty: the items of
     * lines 1-3 must be freed (LSan sees it under SAN=1). */
    PARSE_ERR("target a u -H x\ntarget b v\nprofile p -d1s\nprofile q 'x\n",
              "f.txt:4: unterminated ' quote");
}

static void test_error_message_truncated(void)
{
    char small[12];
    suite_file f;

    memset(small, 'X', sizeof small);
    CHECK_EQ_I64(suite_file_parse("host b\n", 7, "f.txt", &f, small, sizeof small), -EINVAL);
    CHECK_EQ_STR(small, "f.txt:1: un");
    CHECK_EQ_I64(suite_file_parse("host b\n", 7, "f.txt", &f, NULL, 0), -EINVAL);
    CHECK_EQ_I64(f.ntargets + f.nprofiles, 0);
}

/* ---- limits -------------------------------------------------------------- */

static void test_limit_words(void)
{
    text_buf b = {0};
    char w[64];

    /* SUITE_MAX_WORDS words, keyword included, fit on a line... */
    tb_add(&b, "profile p\ntarget a u");
    for (int i = 3; i < SUITE_MAX_WORDS; i++) {
        snprintf(w, sizeof w, " w%d", i);
        tb_add(&b, w);
    }
    tb_add(&b, "  # a comment is no word\n");
    CHECK_EQ_I64(parse_n(b.s, b.len), 0);
    CHECK_EQ_I64(sf.targets[0].nwords, SUITE_MAX_WORDS - 2);
    CHECK_EQ_STR(sf.targets[0].words[SUITE_MAX_WORDS - 3], "w255");
    suite_file_free(&sf);

    /* ...one more does not. */
    b.len -= strlen("  # a comment is no word\n");
    tb_add(&b, " ''\n");
    CHECK_EQ_I64(parse_n(b.s, b.len), -EINVAL);
    snprintf(w, sizeof w, "f.txt:2: too many words (max %d)", SUITE_MAX_WORDS);
    CHECK_EQ_STR(perr, w);
    free(b.s);
}

static void test_limit_items(void)
{
    text_buf b = {0};
    char line[128];

    for (int i = 0; i < SUITE_MAX_ITEMS; i++) {
        snprintf(line, sizeof line, "target t%d http://h/%d\nprofile p%d -d%ds\n", i, i, i, i);
        tb_add(&b, line);
    }
    CHECK_EQ_I64(parse_n(b.s, b.len), 0);
    CHECK_EQ_I64(sf.ntargets, SUITE_MAX_ITEMS);
    CHECK_EQ_I64(sf.nprofiles, SUITE_MAX_ITEMS);
    CHECK(item_is(&sf.targets[SUITE_MAX_ITEMS - 1], "t255", W("http://h/255")));
    CHECK(item_is(&sf.profiles[SUITE_MAX_ITEMS - 1], "p255", W("-d255s")));
    suite_file_free(&sf);

    size_t both = b.len;
    tb_add(&b, "target x u\n");
    CHECK_EQ_I64(parse_n(b.s, b.len), -EINVAL);
    snprintf(line, sizeof line, "f.txt:%d: too many targets (max %d)", 2 * SUITE_MAX_ITEMS + 1,
             SUITE_MAX_ITEMS);
    CHECK_EQ_STR(perr, line);

    b.len = both;
    tb_add(&b, "profile x\n");
    CHECK_EQ_I64(parse_n(b.s, b.len), -EINVAL);
    snprintf(line, sizeof line, "f.txt:%d: too many profiles (max %d)", 2 * SUITE_MAX_ITEMS + 1,
             SUITE_MAX_ITEMS);
    CHECK_EQ_STR(perr, line);
    free(b.s);
}

/* ---- suite_file_load ----------------------------------------------------- */

static void test_load(void)
{
    const char *tmp = getenv("TMPDIR");
    char path[512], err[600], want[600];
    static const char text[] = "target a http://h/\nprofile p -d1s\n";
    suite_file f;
    FILE *fp;
    int fd;

    snprintf(path, sizeof path, "%s/pacer-suite-test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    fd = mkstemp(path);
    CHECK(fd >= 0);
    fp = fdopen(fd, "w");
    CHECK(fp != NULL);
    fputs(text, fp);
    fclose(fp);
    CHECK_EQ_I64(suite_file_load(path, &f, err, sizeof err), 0);
    CHECK(item_is(&f.targets[0], "a", W("http://h/")));
    CHECK(item_is(&f.profiles[0], "p", W("-d1s")));
    suite_file_free(&f);

    /* The path names the file in a bad line's message. */
    fp = fopen(path, "w");
    CHECK(fp != NULL);
    fputs("target a u\nprofile\n", fp);
    fclose(fp);
    CHECK_EQ_I64(suite_file_load(path, &f, err, sizeof err), -EINVAL);
    snprintf(want, sizeof want, "%s:2: expected: profile NAME [options]", path);
    CHECK_EQ_STR(err, want);

    unlink(path);
    CHECK_EQ_I64(suite_file_load(path, &f, err, sizeof err), -ENOENT);
    snprintf(want, sizeof want, "cannot read suite '%s': No such file or directory", path);
    CHECK_EQ_STR(err, want);
    CHECK_EQ_I64(f.ntargets + f.nprofiles, 0);
}

int main(void)
{
    RUN(test_docs_example);
    RUN(test_profile_without_options);
    RUN(test_single_quotes_are_literal);
    RUN(test_double_quotes);
    RUN(test_quotes_join_a_word);
    RUN(test_backslash_outside_quotes);
    RUN(test_blanks);
    RUN(test_comments);
    RUN(test_blank_lines);
    RUN(test_crlf);
    RUN(test_last_line_without_newline);
    RUN(test_not_nul_terminated);
    RUN(test_same_name_target_and_profile);
    RUN(test_keyword_may_be_quoted);
    RUN(test_error_unknown_keyword);
    RUN(test_error_unterminated_quotes);
    RUN(test_error_missing_words);
    RUN(test_error_empty_name);
    RUN(test_error_defined_twice);
    RUN(test_error_needs_both);
    RUN(test_error_nul_byte);
    RUN(test_error_undoes_earlier_lines);
    RUN(test_error_message_truncated);
    RUN(test_limit_words);
    RUN(test_limit_items);
    RUN(test_load);
    return unit_done();
}

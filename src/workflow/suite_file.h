/*
 * suite_file.h - the suite file of `pacer suite` (docs/pacer.md, "pacer
 * suite"), parsed into its target and profile lines:
 *
 *   # comment
 *   target  NAME  URL  [pacer options for this target only]
 *   profile NAME  [pacer options: the load shape]
 *
 * Words split as in a shell: blanks (space, tab, CR) separate; '...' is
 * literal; "..." allows \" and \\ (any other backslash stays); outside
 * quotes a backslash takes the next character as it is; '#' at the start
 * of a word comments out the rest of the line. Quotes do not span lines.
 * A line may end in LF or CRLF; the last line needs no line end.
 *
 * Only the file's syntax is checked here: the options are checked when
 * suite.c turns each target x profile pair into a command line.
 */
#ifndef PACER_WORKFLOW_SUITE_FILE_H
#define PACER_WORKFLOW_SUITE_FILE_H

#include <stddef.h>

#define SUITE_MAX_WORDS 256 /* words on one line, keyword included */
#define SUITE_MAX_ITEMS 256 /* target lines, and profile lines, per file */

/* One target or profile line. name is not empty; words are the words
 * after it: for a target, the URL first (so nwords >= 1), then its
 * options; for a profile, its options (nwords >= 0). All heap memory. */
typedef struct suite_item {
    char *name;
    char **words;
    int nwords;
} suite_item;

/* The lines in file order; names are unique among the targets and among
 * the profiles. A parsed file has 1..SUITE_MAX_ITEMS of each. */
typedef struct suite_file {
    suite_item targets[SUITE_MAX_ITEMS], profiles[SUITE_MAX_ITEMS];
    int ntargets, nprofiles;
} suite_file;

/* Parse len bytes of text (not necessarily NUL-terminated). Returns 0
 * with *out filled (suite_file_free it), or -EINVAL for a bad file /
 * -ENOMEM, with *out holding nothing and the reason, NUL-terminated and
 * truncated to errlen, in err: "NAME:LINE: reason" for a bad line,
 * "NAME: not a text file (NUL byte)", or "NAME: needs at least one target
 * line and one profile line". name only labels the messages. */
int suite_file_parse(const char *text, size_t len, const char *name, suite_file *out, char *err,
                     size_t errlen);

/* Read the file at path and parse it, path naming it in messages. As
 * suite_file_parse, plus -errno with "cannot read suite 'PATH': reason"
 * when the file cannot be read. */
int suite_file_load(const char *path, suite_file *out, char *err, size_t errlen);

/* Free what a successful parse left in f and empty it (a zeroed or
 * already freed f is fine). */
void suite_file_free(suite_file *f);

#endif

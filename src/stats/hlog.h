/*
 * hlog.h - HdrHistogram interval logs (".hlog"), the text format of Java's
 * HistogramLogWriter / HistogramLogReader (format version 1.3), as written by
 * jHiccup, HdrHistogram_c's hdr_log_writer and HdrHistogram_py:
 *
 *   #[Logged with pacer 1.0]                         optional comment(s)
 *   #[Histogram log format version 1.3]
 *   #[StartTime: 1441812279.474 (seconds since epoch), Wed Sep 09 15:24:39 UTC 2015]
 *   #[BaseTime: 1441812279.474 (seconds since epoch)]   optional
 *   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
 *   0.127,1.007,2.769,HISTFAAAAEV42pNp...            untagged interval
 *   Tag=corrected,0.127,1.007,2.769,HISTFAAAAEV4...  tagged interval
 *
 * Each interval line: optional "Tag=<tag>,", then the interval's start
 * timestamp and length in seconds, the interval histogram's max divided by
 * the writer's max-value unit ratio (Java's default 1e6 turns nanoseconds
 * into milliseconds), all "%.3f", then the histogram in V2 compressed base64
 * (hdr_codec.h).
 *
 * Timestamps, as the Java reader interprets them (what hlog_entry.start_s
 * holds): start_s = the line's timestamp + a base time. The base time is the
 * latest "#[BaseTime: x" line's x when the log has one before the entry.
 * Otherwise it is decided once, at the first interval line: if the log has a
 * StartTime and that line's timestamp lies more than 365 days before it, the
 * timestamps are relative and the base is the StartTime; otherwise (no
 * StartTime, or a timestamp that already looks absolute) the base is 0 and
 * timestamps are taken as written. Later lines keep that decision.
 *
 * Numbers are parsed and printed with strtod / printf, so LC_NUMERIC must be
 * the "C" locale (the default unless the program calls setlocale).
 *
 * Input is hostile: lines are capped at HLOG_LINE_MAX bytes, tags at
 * HLOG_TAG_MAX - 1, histograms are decoded by hdrc_decode_base64 with its
 * bounds; a bad line is an error (-EINVAL), never a crash.
 */
#ifndef PACER_STATS_HLOG_H
#define PACER_STATS_HLOG_H

#include <stdbool.h>
#include <stdio.h>

#include "stats/hdr.h"

#define HLOG_TAG_MAX 64             /* tag bytes + NUL */
#define HLOG_LINE_MAX (1u << 22)    /* longest line accepted, without "\n" */
#define HLOG_FORMAT_VERSION "1.3"   /* what the writer writes */
#define HLOG_DEFAULT_MAX_UNIT_RATIO 1e6

/* One interval of a log. */
typedef struct hlog_entry {
    char tag[HLOG_TAG_MAX]; /* "" for an untagged line (or "Tag=,") */
    double start_s;         /* absolute start, seconds (see the file comment) */
    double start_raw_s;     /* the start timestamp exactly as written */
    double length_s;        /* interval length, seconds */
    double max;             /* Interval_Max as written (max / the writer's unit ratio) */
    hdr_hist h;             /* the decoded interval histogram */
} hlog_entry;

typedef struct hlog_reader hlog_reader;

/* Starts reading a log from f (positioned at its beginning, opened for
 * reading; the reader does not close it). Reads nothing yet. Returns 0,
 * -EINVAL (NULL argument), -ENOMEM; *r is NULL on failure. */
int hlog_reader_open(hlog_reader **r, FILE *f);

/* As hlog_reader_open on the file at path, which the reader owns and
 * closes. Returns 0, -errno from fopen (e.g. -ENOENT), -EINVAL, -ENOMEM. */
int hlog_reader_open_path(hlog_reader **r, const char *path);

/* Reads up to and including the next interval line, taking in the comment,
 * legend and blank lines before it (StartTime, BaseTime and the format
 * version are noted; other comments are skipped). Returns
 *   1   an interval in *e; the caller hdr_free(&e->h)s;
 *   0   end of the log;
 *   <0  -EINVAL for a malformed line (bad tag, number, field count, or
 *       histogram; an unparseable StartTime/BaseTime value; a line longer
 *       than HLOG_LINE_MAX), -EIO for a read error, -ENOMEM.
 * hlog_reader_line then tells which line. After -EINVAL the bad line has
 * been consumed and the next call continues with the line after it. Except
 * when 1 is returned, *e holds no histogram (hdr_free on it is harmless). */
int hlog_reader_next(hlog_reader *r, hlog_entry *e);

/* 1-based number of the last line read (the entry's line after a 1, the bad
 * line after an error); 0 before the first line. */
unsigned long hlog_reader_line(const hlog_reader *r);

/* Whether a "#[StartTime: " line has been read, and its value in seconds
 * since the epoch. Without one, hlog_reader_start_time gives the first
 * interval's raw timestamp once one has been read (as Java), else 0. */
bool hlog_reader_has_start_time(const hlog_reader *r);
double hlog_reader_start_time(const hlog_reader *r);

/* Whether a "#[BaseTime: " line has been read; hlog_reader_base_time is the
 * base time being added to timestamps: the BaseTime line's, else the one
 * decided at the first interval (see the file comment), else 0. */
bool hlog_reader_has_base_time(const hlog_reader *r);
double hlog_reader_base_time(const hlog_reader *r);

/* The text of "#[Histogram log format version X]" ("1.2", "1.3"...), ""
 * when none was read. Not checked: every version reads the same way. */
const char *hlog_reader_version(const hlog_reader *r);

/* Frees the reader (closing the file if it opened it). NULL is harmless. */
void hlog_reader_close(hlog_reader *r);

/* Writes a log's header: "#[<comment>]" when comment is not NULL, the format
 * version line (1.3), "#[StartTime: %.3f (seconds since epoch), <UTC date>]",
 * "#[BaseTime: %.3f (seconds since epoch)]" unless base_time_s is negative
 * or NaN, and the legend line. start_time_s must be finite and >= 0; the
 * comment may not contain a line break. Entries written after a BaseTime
 * line should carry timestamps relative to it; without one, readers treat
 * small timestamps as relative to the StartTime. Returns 0, -EINVAL, -EIO. */
int hlog_write_header(FILE *f, double start_time_s, double base_time_s, const char *comment);

/* Writes one interval line: "Tag=<tag>," unless tag is NULL or "", then
 * start_s, length_s and hdr_max(h) / max_unit_ratio as "%.3f", then h as
 * V2 compressed base64. start_s and length_s must be finite and >= 0,
 * max_unit_ratio finite and > 0 (HLOG_DEFAULT_MAX_UNIT_RATIO for ns -> ms),
 * the tag at most HLOG_TAG_MAX - 1 bytes of printable ASCII other than ','
 * and ' '. Returns 0, -EINVAL, -ENOMEM, -EIO. */
int hlog_write_entry(FILE *f, const char *tag, double start_s, double length_s, const hdr_hist *h,
                     double max_unit_ratio);

#endif

/*
 * units.h - parsing and printing of durations, counts, rates and sizes.
 *
 * Parsers take a NUL-terminated string and return 0, or -EINVAL for text
 * that is not a well-formed value (trailing junk, empty, negative, NaN) and
 * -ERANGE for a value too large to represent. They never print.
 */
#ifndef PACER_CLI_UNITS_H
#define PACER_CLI_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* "10s", "1.5s", "500ms", "250us", "2m", "1h", "3d"; a bare number is
 * seconds (as in wrk). Result in nanoseconds. */
int units_parse_duration(const char *s, uint64_t *ns);

/* Whole counts with metric suffixes: "100", "10k", "2M", "1G" (1000-based). */
int units_parse_count(const char *s, uint64_t *n);

/* Rates (requests per second): decimals and k/M/G suffixes: "0.5", "2.5k". */
int units_parse_rate(const char *s, double *r);

/* Byte sizes with binary suffixes: "512", "4k" or "4KiB" = 4096, "1M", "1G". */
int units_parse_size(const char *s, uint64_t *bytes);

/* wrk's printers. Each writes into buf (NUL-terminated, truncated to cap) and
 * returns buf. Time: microseconds in, "626.39us" / "1.64ms" / "2.00s" /
 * "1.50m" out. Metric: "16.27k". Binary: 1024-based "397.39M" (the caller
 * appends "B"). */
char *units_fmt_time_us(double us, char *buf, size_t cap);
char *units_fmt_metric(double n, char *buf, size_t cap);
char *units_fmt_binary(double n, char *buf, size_t cap);

#endif

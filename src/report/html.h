/*
 * html.h - one self-contained HTML page with tables and charts, and the
 * run report (--html) built with it.
 *
 * A page is built block by block (headings, paragraphs, tables, <pre>,
 * charts) and written once. It fetches nothing: the CSS and a small
 * renderer are inline, the chart data is JSON embedded in the page, and
 * each chart is drawn as inline SVG when the page loads. Without
 * JavaScript the tables and text still read.
 *
 * Errors are sticky: every call after an out-of-memory is harmless (the
 * void functions also accept a NULL doc or chart), and html_doc_write()
 * reports the first error, so callers chain calls and check once.
 *
 * The rendered page is testable: each chart is an <svg class="pacer-chart"
 * data-title="..." data-series="N"> (N = series with at least one point
 * drawn), each series a <g class="series" data-name="...">, each x tick
 * label a <text class="xtick">; when all are drawn, <body
 * data-rendered="number of charts">; any script error is appended to
 * <body data-errors="...">.
 */
#ifndef PACER_REPORT_HTML_H
#define PACER_REPORT_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/rundesc.h"
#include "stats/results.h"
#include "report/series.h"
#include "stats/hdr.h"

typedef struct html_doc html_doc;
typedef struct html_chart html_chart;

/* Axis scales. HTML_PERCENTILE (meant for the x axis): values are
 * percentiles in [0, 100), plotted at log10(1 / (1 - x/100)), ticks
 * labelled 0%, 90%, 99%, 99.9%, 99.99%... as the HdrHistogram plotter.
 * HTML_LOG: decades; values <= 0 are drawn on the axis' low edge (their
 * tooltips show the real value). HTML_LINEAR: 1-2-5 ticks. Points that do
 * not fit (non-finite values, x outside [0, 100) on a percentile axis) are
 * left out, and break the line there. */
enum { HTML_LINEAR = 0, HTML_LOG = 1, HTML_PERCENTILE = 2 };

/* A new page; title goes into <title> and the <h1>. NULL on OOM. */
html_doc *html_doc_new(const char *title);
/* Free the page and its charts (NULL is fine). */
void html_doc_free(html_doc *d);

/* Blocks, in order. Text is HTML-escaped; NULL is taken as "". */
void html_doc_heading(html_doc *d, const char *text); /* <h2> */
void html_doc_text(html_doc *d, const char *text);    /* <p> */
void html_doc_pre(html_doc *d, const char *text);     /* <pre> (e.g. the text report) */
/* A verdict: a paragraph marked as a pass (green) or a fail (red),
 * <p class="pacer-verdict pass|fail">. */
void html_doc_verdict(html_doc *d, bool pass, const char *text);

/* A box that says what the run's numbers mean (who limited it): title,
 * then each line of text a paragraph, <div class="pacer-diagnosis"
 * id="pacer-diagnosis">. */
void html_doc_diagnosis(html_doc *d, const char *title, const char *text);

/* A table: cells has nrows * ncols strings (NULL: empty cell), row-major;
 * row 0 is the header row. caption may be NULL. Cells that read as a
 * number are right-aligned. */
void html_doc_table(html_doc *d, const char *caption, size_t ncols, size_t nrows,
                    const char *const *cells);

/* A chart placed here in the page; series are added to it afterwards (at
 * any time before html_doc_write). The chart belongs to the doc. NULL on
 * OOM (also sets the doc's error) or when d is NULL. */
html_chart *html_doc_chart(html_doc *d, const char *title, const char *xlabel, int xscale,
                           const char *ylabel, int yscale);

/* Add a line: n points (x[i], y[i]), copied. Non-finite values are kept as
 * gaps (JSON null). c may be NULL (ignored). */
void html_chart_series(html_chart *c, const char *name, size_t n, const double *x,
                       const double *y);

/* A reference line to read the others against (a requested rate, an
 * objective): as html_chart_series, drawn dashed grey without markers
 * (<g class="series ref">). */
void html_chart_reference(html_chart *c, const char *name, size_t n, const double *x,
                          const double *y);

/* A line of per-interval values: as html_chart_series, but each y holds
 * from its x to the next x (the last to xend; non-finite: it ends at its
 * x), drawn as steps: a mean over an interval is flat across it. */
void html_chart_steps(html_chart *c, const char *name, size_t n, const double *x,
                      const double *y, double xend);

/* A limit to read the others against (an --slo objective): as
 * html_chart_reference, drawn dashed red and named at its right end
 * (<g class="series ref limit">). */
void html_chart_limit(html_chart *c, const char *name, size_t n, const double *x,
                      const double *y);

/* Name the x values: x = i (0 .. n-1) is labelled names[i] (copied), one
 * tick each, and markers' tooltips show the name; the series are then
 * given those x values. Long names are slanted (and cut at 28
 * characters). For a linear x axis; c may be NULL. */
void html_chart_categories(html_chart *c, size_t n, const char *const *names);

/* A latency percentile spectrum of h (values in ns) as one series meant
 * for an HTML_PERCENTILE x axis: one point per step of hdr_pct_iter (5
 * ticks per half-distance, as the .hgrm files), x = percentile,
 * y = value / scale (scale 1e6 gives ms). The closing 100% step is left
 * out (it repeats the maximum, and 100% is off the axis). An empty
 * histogram adds a series with no points. */
void html_chart_spectrum(html_chart *c, const char *name, const hdr_hist *h, double scale);

/* Write the page. 0; -ENOMEM if any earlier call ran out of memory (or d
 * is NULL); -EIO if writing to f failed. Can be called more than once. */
int html_doc_write(const html_doc *d, FILE *f);

/* The run report (--html, `pacer report --html`): the command line
 * (run->cmdline; without one, the files merged and run->source_cmdlines),
 * the run's shape, the --slo verdict and objectives (run->slo), a summary
 * and latency table, the latency percentile spectrum (corrected and
 * uncorrected), latency, throughput (with the -R line) and errors over time
 * (from series, which may be NULL or empty; an errors chart of zeros is one
 * line instead), the connect / TLS / first-byte breakdown, and the text
 * report. 0, -ENOMEM or -EIO. */
int report_html(FILE *f, const pc_rundesc *run, const pc_results *res, const pc_series *series);

#endif

/*
 * hdr.h - pacer's HdrHistogram.
 *
 * A fixed-memory histogram of non-negative integer values (pacer records
 * latencies in nanoseconds) whose relative error is bounded by a number of
 * significant decimal figures. The bucket layout, equivalent ranges,
 * percentile lookup, percentile iteration, mean and standard deviation follow
 * the reference HdrHistogram (HdrHistogram_c / Java) so that the numbers pacer
 * reports, and the histograms it encodes later, agree with every other
 * HdrHistogram tool.
 *
 * Layout: counts[] is split into bucket_count buckets. Bucket 0 holds
 * sub_bucket_count slots of width 2^unit_magnitude; every further bucket b
 * holds the upper half (sub_bucket_half_count slots) of a range twice as wide
 * as bucket b-1, each slot 2^(unit_magnitude + b) wide. A value's
 * "equivalent range" is the slot it falls in.
 *
 * hdr_init is the only function that allocates. Nothing here is thread-safe;
 * pacer gives each worker its own histogram and merges them with hdr_add.
 */
#ifndef PACER_STATS_HDR_H
#define PACER_STATS_HDR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct hdr_hist {
    int64_t lowest;            /* lowest discernible value, >= 1 */
    int64_t highest;           /* highest trackable value */
    int32_t sigfigs;           /* 1..5 */
    int32_t unit_magnitude, sub_bucket_half_count_magnitude;
    int32_t sub_bucket_count, sub_bucket_half_count, bucket_count, counts_len;
    int64_t sub_bucket_mask;
    int64_t total_count, min_value, max_value;  /* raw min/max recorded (min = INT64_MAX when empty, max = 0) */
    int64_t *counts;           /* counts_len entries */
} hdr_hist;

/* Output formats of hdr_percentiles_print. */
enum {
    HDR_FMT_CLASSIC = 0,       /* HdrHistogram_c CLASSIC, wrk2's "Detailed Percentile spectrum" */
    HDR_FMT_CSV = 1,
};

/* Sets up an empty histogram tracking values in [0, highest] with `sigfigs`
 * significant decimal figures of precision, values below `lowest` sharing
 * slots of width 2^floor(log2(lowest)). Requires lowest >= 1,
 * 1 <= sigfigs <= 5 and highest >= 2 * lowest; any highest up to INT64_MAX is
 * accepted. Returns 0, -EINVAL for a bad geometry, -ENOMEM. On failure *h is
 * left zeroed, so hdr_free on it is harmless. */
int hdr_init(hdr_hist *h, int64_t lowest, int64_t highest, int sigfigs);

/* Releases the counts of an initialised (or failed, or already freed)
 * histogram and zeroes *h. */
void hdr_free(hdr_hist *h);

/* Forgets every recorded value; the geometry is kept. */
void hdr_reset(hdr_hist *h);

/* Records one occurrence of value. Returns false, recording nothing, when
 * value < 0 or value > h->highest. O(1), no allocation, no division: this is
 * the load generator's per-response call. */
bool hdr_record(hdr_hist *h, int64_t value);

/* Records n occurrences of value. Returns false, recording nothing, when the
 * value is out of range (as hdr_record) or n < 0; n == 0 records nothing and
 * returns true. */
bool hdr_record_n(hdr_hist *h, int64_t value, int64_t n);

/* HdrHistogram's recordValueWithExpectedInterval (coordinated-omission
 * correction): records value, then, if expected_interval > 0 and
 * value > expected_interval, also value - k*expected_interval for k = 1, 2...
 * while that stays >= expected_interval. These are the samples a stalled
 * sender failed to take. Returns false if value, or one of the synthetic
 * values, could not be recorded (recording stops there). Runs in
 * O(value / expected_interval): keep it off the hot path. */
bool hdr_record_corrected(hdr_hist *h, int64_t value, int64_t expected_interval);

/* Adds every count of src into dst; the geometries may differ. Each of src's
 * slots is recorded in dst at its lowest equivalent value (as the reference
 * does), so if dst is coarser than or as fine as src the result equals
 * having recorded src's values into dst directly. Returns how many counts
 * were dropped because they lie outside dst's range. dst may be src. */
int64_t hdr_add(hdr_hist *dst, const hdr_hist *src);

/* The value at or below which pct percent (0..100, clamped; NaN counts as 0)
 * of the recorded values fall: the highest equivalent value of the slot
 * holding the n-th smallest value, n = (int64_t)(pct/100 * total_count + 0.5)
 * but at least 1 (HdrHistogram_c's rounding; Java rounds up instead), except
 * that pct == 0 gives the lowest equivalent value of the smallest recorded
 * slot. 0 when the histogram is empty. O(counts_len). */
int64_t hdr_value_at_percentile(const hdr_hist *h, double pct);

/* Smallest recorded value, rounded down to its lowest equivalent value;
 * 0 if a 0 was recorded; INT64_MAX when empty (as HdrHistogram_c). */
int64_t hdr_min(const hdr_hist *h);

/* Largest recorded value, rounded up to its highest equivalent value;
 * 0 when empty or when only zeros were recorded. */
int64_t hdr_max(const hdr_hist *h);

/* Mean of the recorded values, each slot counted at its median equivalent
 * value (as HdrHistogram). 0 when empty. */
double hdr_mean(const hdr_hist *h);

/* Population standard deviation around hdr_mean, slots at their median
 * equivalent values (as HdrHistogram). 0 when empty. */
double hdr_stddev(const hdr_hist *h);

/* Percent (0..100) of the recorded counts whose slot's median equivalent
 * value lies in [lo, hi]; wrk's "+/- Stdev" column with lo = mean - stddev,
 * hi = mean + stddev. The median equivalent value is used so that this agrees
 * with hdr_mean/hdr_stddev (a single recorded value is 100% within
 * [mean, mean]). 0 when empty. */
double hdr_fraction_within(const hdr_hist *h, double lo, double hi);

/* Equivalent-range arithmetic. v may be any value >= 0 (also above highest);
 * a negative v is treated as 0. Two values are equivalent when they share a
 * slot; the slot of v spans [lowest_equivalent(v), highest_equivalent(v)],
 * size_of_equivalent_range(v) values, and median_equivalent(v) is
 * lowest + size/2. */
int64_t hdr_lowest_equivalent(const hdr_hist *h, int64_t v);
int64_t hdr_highest_equivalent(const hdr_hist *h, int64_t v);
int64_t hdr_median_equivalent(const hdr_hist *h, int64_t v);
int64_t hdr_size_of_equivalent_range(const hdr_hist *h, int64_t v);

/* Index into counts[] of v's slot, or -1 when v < 0 or the slot lies past
 * the end of counts[]. (counts[] may cover a little more than highest.) */
int32_t hdr_counts_index(const hdr_hist *h, int64_t v);

/* Lowest equivalent value of slot idx; -1 when idx is not in
 * [0, counts_len). Inverse of hdr_counts_index on lowest equivalent values. */
int64_t hdr_value_at_index(const hdr_hist *h, int32_t idx);

/* Count recorded in v's slot; 0 for values outside the histogram. */
int64_t hdr_count_at_value(const hdr_hist *h, int64_t v);

/* True when a and b hold the same total and the same count in every slot,
 * slots compared by their lowest and highest equivalent values, so two
 * histograms of the same geometry compare by counts[], and different
 * geometries are equal only where their occupied slots coincide. Raw
 * min/max are not compared: a decoded histogram cannot know them. */
bool hdr_equal(const hdr_hist *a, const hdr_hist *b);

/* Percentile iteration, step for step the reference's percentile iterator
 * (the one behind the "Detailed Percentile spectrum"): starting at 0%, each
 * step reports the first occupied slot whose cumulative percentile reaches
 * the next reporting level, and the level then advances by
 * 100 / (ticks_per_half_distance * 2^(floor(log2(100 / (100 - level))) + 1)),
 * i.e. ticks_per_half_distance steps per halving of the distance to 100%.
 * Once every count has been passed, one final step at 100% (is_last) repeats
 * the last slot. An empty histogram yields just that final step, value 0.
 * The histogram must not change during iteration. */
typedef struct hdr_pct_iter {
    /* Read after a successful hdr_pct_iter_next: */
    int64_t value;             /* highest equivalent value of the step's slot */
    double percentile;         /* reporting level reached, 0..100 */
    int64_t count_to_here;     /* cumulative count up to and including the slot */
    bool is_last;              /* the closing 100% step */

    /* Private state. */
    const hdr_hist *h;
    int64_t total;             /* total_count when the iteration started */
    int64_t count_at_index;
    int32_t index;             /* -1 before the first slot */
    int32_t ticks_per_half_distance;
    double level;              /* next percentile to report */
    bool seen_last;
} hdr_pct_iter;

/* Starts a percentile iteration over h; ticks_per_half_distance < 1 is
 * taken as 1 (the reference would loop forever or stop reporting). */
void hdr_pct_iter_init(hdr_pct_iter *it, const hdr_hist *h, int ticks_per_half_distance);

/* Advances to the next step; false when the iteration is over. */
bool hdr_pct_iter_next(hdr_pct_iter *it);

/* Writes the percentile distribution as HdrHistogram_c's
 * hdr_percentiles_print, which is also wrk2's "Detailed Percentile spectrum".
 * HDR_FMT_CLASSIC: a "%12s %12s %12s %12s\n\n" header (Value, Percentile,
 * TotalCount, 1/(1-Percentile)), one "%12.<sigfigs>f %12f %12d %12.2f\n" row
 * per iterator step (value / value_scale, percentile as a fraction 0..1,
 * cumulative count, 1/(1-fraction), "inf" on the last row), then the
 * Mean/StdDeviation, Max/Total count and Buckets/SubBuckets footer lines
 * (mean, stddev and max divided by value_scale). HDR_FMT_CSV: a
 * "Value,Percentile,TotalCount,1/(1-Percentile)" header and rows
 * "%.<sigfigs>f,%f,%d,%.2f", no footer. As in the reference, the value
 * column has h->sigfigs decimals (3 for pacer's histograms). Returns 0,
 * -EINVAL (ticks_per_half_distance < 1, value_scale not > 0, unknown fmt) or
 * -EIO when writing fails. */
int hdr_percentiles_print(const hdr_hist *h, FILE *f, int ticks_per_half_distance,
                          double value_scale, int fmt);

#endif

/*
 * hdr.c - pacer's HdrHistogram (see hdr.h).
 *
 * The arithmetic deliberately mirrors the reference implementation, including
 * its floating-point steps (unit magnitude, percentile reporting levels,
 * percentile-count rounding), because the point of an HdrHistogram is that
 * every implementation reports the same numbers for the same data.
 */
#include "stats/hdr.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- slot arithmetic ---------------------------------------------------- */

/* Which bucket v falls in. OR-ing in the mask makes every value below the
 * top of bucket 0 land in bucket 0 and keeps clzll's argument non-zero. */
static inline int32_t bucket_of(const hdr_hist *h, int64_t v)
{
    int32_t pow2ceiling = 64 - __builtin_clzll((uint64_t)(v | h->sub_bucket_mask));
    return pow2ceiling - h->unit_magnitude - (h->sub_bucket_half_count_magnitude + 1);
}

static inline int32_t sub_bucket_of(int64_t v, int32_t bucket, int32_t unit_magnitude)
{
    return (int32_t)(v >> (bucket + unit_magnitude));
}

/* Buckets after the first only use their upper half of sub-buckets (the lower
 * half is covered, at finer resolution, by the bucket before), hence the
 * half-count offsets. */
static inline int32_t index_of(const hdr_hist *h, int32_t bucket, int32_t sub_bucket)
{
    int32_t bucket_base = (bucket + 1) << h->sub_bucket_half_count_magnitude;
    return bucket_base + (sub_bucket - h->sub_bucket_half_count);
}

static inline int32_t index_for(const hdr_hist *h, int64_t v)
{
    int32_t b = bucket_of(h, v);
    return index_of(h, b, sub_bucket_of(v, b, h->unit_magnitude));
}

static inline int64_t value_from(int32_t bucket, int32_t sub_bucket, int32_t unit_magnitude)
{
    return (int64_t)sub_bucket << (bucket + unit_magnitude);
}

/* idx must be in [0, counts_len). */
static int64_t value_at(const hdr_hist *h, int32_t idx)
{
    int32_t b = (idx >> h->sub_bucket_half_count_magnitude) - 1;
    int32_t sb = (idx & (h->sub_bucket_half_count - 1)) + h->sub_bucket_half_count;
    if (b < 0) {
        sb -= h->sub_bucket_half_count;
        b = 0;
    }
    return value_from(b, sb, h->unit_magnitude);
}

/* v >= 0 from here on. */
static int64_t lowest_equiv(const hdr_hist *h, int64_t v)
{
    int32_t b = bucket_of(h, v);
    return value_from(b, sub_bucket_of(v, b, h->unit_magnitude), h->unit_magnitude);
}

static int64_t range_size(const hdr_hist *h, int64_t v)
{
    int32_t b = bucket_of(h, v);
    int32_t sb = sub_bucket_of(v, b, h->unit_magnitude);
    /* Kept from the reference; with the clz-based bucket_of sb never
     * reaches sub_bucket_count. */
    int32_t adjusted = sb >= h->sub_bucket_count ? b + 1 : b;
    return INT64_C(1) << (h->unit_magnitude + adjusted);
}

/* Reference: lowest + size - 1, summed so the top slot (which ends at
 * INT64_MAX) does not overflow. */
static int64_t highest_equiv(const hdr_hist *h, int64_t v)
{
    return lowest_equiv(h, v) + (range_size(h, v) - 1);
}

static int64_t median_equiv(const hdr_hist *h, int64_t v)
{
    return lowest_equiv(h, v) + (range_size(h, v) >> 1);
}

/* ---- lifecycle ---------------------------------------------------------- */

int hdr_init(hdr_hist *h, int64_t lowest, int64_t highest, int sigfigs)
{
    memset(h, 0, sizeof *h);
    /* "lowest > highest / 2" is the reference's "lowest * 2 > highest"
     * without the overflow. */
    if (lowest < 1 || sigfigs < 1 || sigfigs > 5 || lowest > highest / 2)
        return -EINVAL;

    /* Enough sub-buckets to give every value up to 2 * 10^sigfigs its own
     * slot: ceil(log2(2 * 10^sigfigs)), computed exactly. */
    int64_t largest_single_unit = 2;
    for (int i = 0; i < sigfigs; i++)
        largest_single_unit *= 10;
    int32_t sub_bucket_count_magnitude = 0;
    while ((INT64_C(1) << sub_bucket_count_magnitude) < largest_single_unit)
        sub_bucket_count_magnitude++;
    int32_t half_mag = (sub_bucket_count_magnitude > 1 ? sub_bucket_count_magnitude : 1) - 1;

    /* The reference computes floor(log2(lowest)) in floating point, which
     * rounds 2^k - 1 up to k for k >= 48. Geometry has to agree bit for bit
     * with other implementations (an encoded histogram only carries lowest,
     * highest and sigfigs), so do the same. */
    int32_t unit = (int32_t)(log((double)lowest) / log(2));
    if (unit + half_mag > 61)
        return -EINVAL;

    int32_t sub_bucket_count = INT32_C(1) << (half_mag + 1);

    /* Buckets needed so that the first untrackable value exceeds highest;
     * once doubling would overflow, one more bucket covers everything up to
     * INT64_MAX. */
    int64_t smallest_untrackable = (int64_t)sub_bucket_count << unit;
    int32_t bucket_count = 1;
    while (smallest_untrackable <= highest) {
        if (smallest_untrackable > INT64_MAX / 2) {
            bucket_count++;
            break;
        }
        smallest_untrackable <<= 1;
        bucket_count++;
    }

    int32_t counts_len = (bucket_count + 1) * (sub_bucket_count / 2);
    int64_t *counts = calloc((size_t)counts_len, sizeof *counts);
    if (!counts)
        return -ENOMEM;

    h->lowest = lowest;
    h->highest = highest;
    h->sigfigs = sigfigs;
    h->unit_magnitude = unit;
    h->sub_bucket_half_count_magnitude = half_mag;
    h->sub_bucket_count = sub_bucket_count;
    h->sub_bucket_half_count = sub_bucket_count / 2;
    h->bucket_count = bucket_count;
    h->counts_len = counts_len;
    h->sub_bucket_mask = ((int64_t)sub_bucket_count - 1) << unit;
    h->total_count = 0;
    h->min_value = INT64_MAX;
    h->max_value = 0;
    h->counts = counts;
    return 0;
}

void hdr_free(hdr_hist *h)
{
    free(h->counts);
    memset(h, 0, sizeof *h);
}

void hdr_reset(hdr_hist *h)
{
    if (h->counts)
        memset(h->counts, 0, (size_t)h->counts_len * sizeof *h->counts);
    h->total_count = 0;
    h->min_value = INT64_MAX;
    h->max_value = 0;
}

/* ---- recording ---------------------------------------------------------- */

/* Caller has checked 0 <= value <= highest; bucket_count was chosen so that
 * every such value has an index inside counts[]. min_value skips zeros
 * because hdr_min reports a recorded 0 from counts[0] instead. */
static inline void add_at(hdr_hist *h, int64_t value, int64_t n)
{
    h->counts[index_for(h, value)] += n;
    h->total_count += n;
    if (value > h->max_value)
        h->max_value = value;
    if (value != 0 && value < h->min_value)
        h->min_value = value;
}

bool hdr_record(hdr_hist *h, int64_t value)
{
    /* One unsigned compare rejects negatives and values above highest. */
    if ((uint64_t)value > (uint64_t)h->highest)
        return false;
    add_at(h, value, 1);
    return true;
}

bool hdr_record_n(hdr_hist *h, int64_t value, int64_t n)
{
    if ((uint64_t)value > (uint64_t)h->highest || n < 0)
        return false;
    /* The reference would still move min/max for a zero count; an empty
     * histogram must keep reporting itself as empty. */
    if (n > 0)
        add_at(h, value, n);
    return true;
}

bool hdr_record_corrected(hdr_hist *h, int64_t value, int64_t expected_interval)
{
    if (!hdr_record(h, value))
        return false;
    if (expected_interval <= 0 || value <= expected_interval)
        return true;
    for (int64_t missing = value - expected_interval; missing >= expected_interval;
         missing -= expected_interval) {
        if (!hdr_record(h, missing))
            return false;
    }
    return true;
}

int64_t hdr_add(hdr_hist *dst, const hdr_hist *src)
{
    int64_t dropped = 0, seen = 0;
    /* Snapshot: when dst == src the total grows as we go. */
    const int64_t total = src->total_count;
    const int32_t len = src->counts_len;

    for (int32_t i = 0; i < len && seen < total; i++) {
        int64_t c = src->counts[i];
        if (c == 0)
            continue;
        seen += c;
        /* Same-geometry self-add writes back to index i, already read. */
        if (!hdr_record_n(dst, value_at(src, i), c))
            dropped += c;
    }
    return dropped;
}

/* ---- queries ------------------------------------------------------------ */

int64_t hdr_value_at_percentile(const hdr_hist *h, double pct)
{
    if (h->total_count <= 0)
        return 0;
    if (!(pct > 0.0))
        pct = 0.0;
    double requested = pct < 100.0 ? pct : 100.0;
    int64_t want = (int64_t)(((requested / 100) * (double)h->total_count) + 0.5);
    if (want < 1)
        want = 1;

    int64_t running = 0, v = 0;
    for (int32_t i = 0; i < h->counts_len; i++) {
        running += h->counts[i];
        if (running >= want) {
            v = value_at(h, i);
            break;
        }
    }
    return pct == 0.0 ? lowest_equiv(h, v) : highest_equiv(h, v);
}

int64_t hdr_min(const hdr_hist *h)
{
    if (h->counts_len > 0 && h->counts[0] > 0)
        return 0;
    if (h->min_value == INT64_MAX)
        return INT64_MAX;
    return lowest_equiv(h, h->min_value);
}

int64_t hdr_max(const hdr_hist *h)
{
    if (h->max_value == 0)
        return 0;
    return highest_equiv(h, h->max_value);
}

double hdr_mean(const hdr_hist *h)
{
    if (h->total_count <= 0)
        return 0.0;
    /* Accumulated in double, in index order, as HdrHistogram_c (current) and
     * Java do: count * value overflows int64 for long runs at large values. */
    double sum = 0.0;
    int64_t seen = 0;
    for (int32_t i = 0; i < h->counts_len && seen < h->total_count; i++) {
        int64_t c = h->counts[i];
        if (c == 0)
            continue;
        seen += c;
        sum += (double)c * (double)median_equiv(h, value_at(h, i));
    }
    return sum / (double)h->total_count;
}

double hdr_stddev(const hdr_hist *h)
{
    if (h->total_count <= 0)
        return 0.0;
    double mean = hdr_mean(h);
    double dev_total = 0.0;
    for (int32_t i = 0; i < h->counts_len; i++) {
        int64_t c = h->counts[i];
        if (c == 0)
            continue;
        double dev = (double)median_equiv(h, value_at(h, i)) - mean;
        dev_total += (dev * dev) * (double)c;
    }
    return sqrt(dev_total / (double)h->total_count);
}

double hdr_fraction_within(const hdr_hist *h, double lo, double hi)
{
    if (h->total_count <= 0)
        return 0.0;
    int64_t within = 0;
    for (int32_t i = 0; i < h->counts_len; i++) {
        int64_t c = h->counts[i];
        if (c == 0)
            continue;
        double m = (double)median_equiv(h, value_at(h, i));
        if (m >= lo && m <= hi)
            within += c;
    }
    return ((double)within / (double)h->total_count) * 100.0;
}

int64_t hdr_lowest_equivalent(const hdr_hist *h, int64_t v)
{
    return lowest_equiv(h, v < 0 ? 0 : v);
}

int64_t hdr_highest_equivalent(const hdr_hist *h, int64_t v)
{
    return highest_equiv(h, v < 0 ? 0 : v);
}

int64_t hdr_median_equivalent(const hdr_hist *h, int64_t v)
{
    return median_equiv(h, v < 0 ? 0 : v);
}

int64_t hdr_size_of_equivalent_range(const hdr_hist *h, int64_t v)
{
    return range_size(h, v < 0 ? 0 : v);
}

int32_t hdr_counts_index(const hdr_hist *h, int64_t v)
{
    if (v < 0)
        return -1;
    int32_t idx = index_for(h, v);
    return idx < h->counts_len ? idx : -1;
}

int64_t hdr_value_at_index(const hdr_hist *h, int32_t idx)
{
    if (idx < 0 || idx >= h->counts_len)
        return -1;
    return value_at(h, idx);
}

int64_t hdr_count_at_value(const hdr_hist *h, int64_t v)
{
    int32_t idx = hdr_counts_index(h, v);
    return idx < 0 ? 0 : h->counts[idx];
}

bool hdr_equal(const hdr_hist *a, const hdr_hist *b)
{
    if (a->total_count != b->total_count)
        return false;
    int32_t i = 0, j = 0;
    for (;;) {
        while (i < a->counts_len && a->counts[i] == 0)
            i++;
        while (j < b->counts_len && b->counts[j] == 0)
            j++;
        bool a_done = i >= a->counts_len, b_done = j >= b->counts_len;
        if (a_done || b_done)
            return a_done && b_done;
        if (a->counts[i] != b->counts[j])
            return false;
        int64_t va = value_at(a, i), vb = value_at(b, j);
        if (va != vb || highest_equiv(a, va) != highest_equiv(b, vb))
            return false;
        i++;
        j++;
    }
}

/* ---- percentile iteration ---------------------------------------------- */

void hdr_pct_iter_init(hdr_pct_iter *it, const hdr_hist *h, int ticks_per_half_distance)
{
    memset(it, 0, sizeof *it);
    it->h = h;
    it->total = h->total_count;
    it->index = -1;
    it->ticks_per_half_distance = ticks_per_half_distance < 1 ? 1 : ticks_per_half_distance;
    it->level = 0.0;
}

/* The reference's basic iterator step: next slot, while counts remain. */
static bool pct_iter_advance(hdr_pct_iter *it)
{
    if (it->count_to_here >= it->total || it->index + 1 >= it->h->counts_len)
        return false;
    it->index++;
    it->count_at_index = it->h->counts[it->index];
    it->count_to_here += it->count_at_index;
    return true;
}

bool hdr_pct_iter_next(hdr_pct_iter *it)
{
    if (it->count_to_here >= it->total) {
        if (it->seen_last)
            return false;
        it->seen_last = true;
        it->is_last = true;
        it->percentile = 100.0;
        return true;
    }

    if (it->index == -1 && !pct_iter_advance(it))
        return false;

    do {
        double current = (100.0 * (double)it->count_to_here) / (double)it->total;
        if (it->count_at_index != 0 && it->level <= current) {
            it->value = highest_equiv(it->h, value_at(it->h, it->index));
            it->percentile = it->level;
            /* The reference's step: ticks_per_half_distance reports per
             * halving of the distance to 100%. Its int64 product ticks *
             * 2^temp is formed in double here (exact: a power of two times
             * a small integer) so huge counts cannot overflow it. A level
             * that rounded up to 100 only happens on the final slot, after
             * which no level is needed. */
            if (it->level < 100.0) {
                double temp = (double)((int64_t)(log(100 / (100.0 - it->level)) / log(2)) + 1);
                double reporting_ticks = (double)it->ticks_per_half_distance * pow(2, temp);
                it->level += 100.0 / reporting_ticks;
            }
            return true;
        }
    } while (pct_iter_advance(it));

    /* Only reachable if (100.0 * total) / total rounds below a level that is
     * itself below 100. The reference then repeats its previous step with the
     * new count; reporting the closing 100% step straight away is saner. */
    it->value = highest_equiv(it->h, value_at(it->h, it->index));
    it->seen_last = true;
    it->is_last = true;
    it->percentile = 100.0;
    return true;
}

/* ---- printing ----------------------------------------------------------- */

int hdr_percentiles_print(const hdr_hist *h, FILE *f, int ticks_per_half_distance,
                          double value_scale, int fmt)
{
    if (!f || ticks_per_half_distance < 1 || !(value_scale > 0.0) ||
        (fmt != HDR_FMT_CLASSIC && fmt != HDR_FMT_CSV))
        return -EINVAL;

    const bool csv = fmt == HDR_FMT_CSV;
    const int prec = h->sigfigs;

    if (fprintf(f, csv ? "%s,%s,%s,%s\n" : "%12s %12s %12s %12s\n\n", "Value", "Percentile",
                "TotalCount", "1/(1-Percentile)") < 0)
        return -EIO;

    hdr_pct_iter it;
    hdr_pct_iter_init(&it, h, ticks_per_half_distance);
    while (hdr_pct_iter_next(&it)) {
        double value = (double)it.value / value_scale;
        double fraction = it.percentile / 100.0;
        /* 1/(1-1.0) is +inf, printed "inf" as by the reference; spelled out
         * so the division by zero is deliberate. */
        double inverted = fraction < 1.0 ? 1.0 / (1.0 - fraction) : INFINITY;
        int rc = csv ? fprintf(f, "%.*f,%f,%" PRId64 ",%.2f\n", prec, value, fraction,
                               it.count_to_here, inverted)
                     : fprintf(f, "%12.*f %12f %12" PRId64 " %12.2f\n", prec, value, fraction,
                               it.count_to_here, inverted);
        if (rc < 0)
            return -EIO;
    }

    if (!csv) {
        if (fprintf(f,
                    "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n"
                    "#[Max     = %12.3f, Total count    = %12" PRIu64 "]\n"
                    "#[Buckets = %12d, SubBuckets     = %12d]\n",
                    hdr_mean(h) / value_scale, hdr_stddev(h) / value_scale,
                    (double)hdr_max(h) / value_scale, (uint64_t)h->total_count,
                    (int)h->bucket_count, (int)h->sub_bucket_count) < 0)
            return -EIO;
    }
    return 0;
}

/*
 * hdr_codec.h - HdrHistogram "V2 compressed" encoding and its base64 text.
 *
 * The wire format every HdrHistogram implementation (Java, C, Python, Go,
 * Rust...) exchanges, and the one jHiccup / HistogramLogWriter logs carry.
 * All integers are big-endian:
 *
 *   outer: u32 cookie 0x1c849314 | i32 deflated_len | zlib stream (RFC 1950)
 *   inner (the inflated zlib stream):
 *          u32 cookie 0x1c849313 | i32 payload_len | i32 normalizing_index_offset
 *          | i32 significant_figures | i64 lowest | i64 highest
 *          | f64 conversion_ratio | payload_len bytes of payload
 *   payload: ZigZag LEB128-64b9B varints over counts[] in index order; a
 *          value >= 0 is the count of the next slot, a value -N < 0 stands
 *          for N empty slots.
 *
 * The base64 text (standard alphabet, '=' padding, no line breaks) of an
 * encoding starts with "HISTFAA".
 *
 * Decoding is meant for hostile input. The decoder accepts what the known
 * writers produce: a lone empty slot written as -1 (C) or as 0 (Java); any
 * zlib compression level; the pre-Nov-2015 HdrHistogram_c payload_len that
 * counted the 40-byte inner header too (generally: a payload_len larger than
 * the inflated payload is tolerated, decoding stops at the end of the
 * inflated data). It rejects, with -EINVAL, everything else that is not
 * exactly one well-formed encoding: a bad cookie (the low 0xf0 "word size"
 * bits of a cookie are ignored, as Java does), a deflated_len beyond the data
 * or bytes after the zlib stream, a zlib stream that does not end or fails
 * its checksum, a geometry hdr_init refuses, a geometry whose counts[] would
 * exceed HDRC_MAX_COUNTS_LEN slots, more inflated payload than payload_len, a
 * varint cut short or longer than 9 bytes, a count or empty run that runs
 * past counts[], a total count that overflows int64. The header's
 * normalizing_index_offset and conversion_ratio are ignored (as
 * HdrHistogram_c does): slots are read at their logical index.
 *
 * Memory while decoding is bounded: the inflated data is streamed through a
 * fixed buffer, the only allocation proportional to the claimed geometry is
 * the histogram itself (at most HDRC_MAX_COUNTS_LEN * 8 bytes = 32 MiB), and
 * the base64 decoder allocates at most 3/4 of its input.
 *
 * The encoder writes a single empty slot as -1, like HdrHistogram_c, stops
 * after the last non-empty slot, writes normalizing_index_offset 0 and
 * conversion_ratio 1.0, and deflates at zlib's default level; its bytes are
 * not meant to equal any other writer's (they need not), only to decode to
 * the same histogram everywhere.
 */
#ifndef PACER_STATS_HDR_CODEC_H
#define PACER_STATS_HDR_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "stats/hdr.h"

/* Cookies of the V2 encoding (inner) and of its compressed form (outer). */
#define HDRC_COOKIE_V2 0x1c849313u
#define HDRC_COOKIE_V2_COMPRESSED 0x1c849314u

/* Largest counts_len a decoded geometry may have (2^22 slots, 32 MiB).
 * pacer's own histogram, hdr_init(h, 1, 86400000000000, 3), has 38912. */
#define HDRC_MAX_COUNTS_LEN (INT32_C(1) << 22)

/* The counts_len hdr_init(lowest, highest, sigfigs) would give, computed
 * without allocating; -1 when hdr_init would refuse the geometry. The
 * decoder refuses geometries for which this exceeds HDRC_MAX_COUNTS_LEN. */
int64_t hdrc_geometry_counts_len(int64_t lowest, int64_t highest, int sigfigs);

/* Encodes h (any geometry hdr_init accepts) in the V2 compressed binary
 * form into a new heap buffer *out (free()) of *len bytes. Returns 0,
 * -EINVAL when h holds a negative count or is not initialised, -ENOMEM.
 * On failure *out is NULL and *len 0. */
int hdrc_encode(const hdr_hist *h, uint8_t **out, size_t *len);

/* Decodes exactly one V2 compressed encoding occupying all len bytes of buf
 * into *out, which is hdr_init'ed with the encoded geometry (lowest,
 * highest, significant figures) and filled with the encoded counts;
 * total_count is their sum, min_value the lowest equivalent value of the
 * lowest occupied slot (INT64_MAX when only slot 0 or nothing is occupied,
 * as after recording), max_value the highest equivalent value of the top
 * occupied slot (as Java), so hdr_min/hdr_max report the slots' bounds. The
 * encoding cannot tell a recorded 0 from other values in slot 0: when slot 0
 * is the top occupied slot and lowest >= 2, hdr_max is 2^unit_magnitude - 1
 * (with lowest == 1, slot 0 is exactly 0 and hdr_max 0). The caller
 * hdr_free()s *out. Returns 0, -EINVAL for input that is not a valid
 * encoding (see the file comment), -ENOMEM. On failure *out is left zeroed
 * (hdr_free on it is harmless). */
int hdrc_decode(const uint8_t *buf, size_t len, hdr_hist *out);

/* hdrc_encode, then base64: *out is a NUL-terminated heap string (free())
 * starting "HISTFAA". Returns 0, -EINVAL, -ENOMEM; *out NULL on failure. */
int hdrc_encode_base64(const hdr_hist *h, char **out);

/* Decodes the base64 text of a V2 compressed encoding, len characters (no
 * NUL needed, no whitespace allowed), into a new histogram *out as
 * hdrc_decode does. Returns 0, -EINVAL (bad base64 or bad encoding),
 * -ENOMEM. On failure *out is left zeroed. */
int hdrc_decode_base64(const char *text, size_t len, hdr_hist *out);

/* Characters (without the NUL) of the padded base64 encoding of n bytes:
 * 4 * ceil(n / 3). Returns SIZE_MAX when that does not fit a size_t. */
size_t hdrc_base64_encoded_len(size_t n);

/* Writes the padded base64 encoding of in[0..n) and a terminating NUL to
 * out, which has room for cap bytes (at least hdrc_base64_encoded_len(n) +
 * 1). Returns 0, or -ENOSPC (nothing written) when cap is too small. */
int hdrc_base64_encode(const uint8_t *in, size_t n, char *out, size_t cap);

/* Decodes padded base64 in[0..n) into out (room for cap bytes) and sets
 * *outlen to the bytes written. As HdrHistogram_c, requires n >= 4,
 * n % 4 == 0, and cap >= n / 4 * 3 (the room for the unpadded maximum, even
 * when padding makes the result shorter). Only the standard alphabet is
 * accepted; '=' may appear only as the last one or two characters. Returns
 * 0, -EINVAL for malformed text, -ENOSPC when cap is too small (nothing
 * decoded in either case; *outlen is 0). */
int hdrc_base64_decode(const char *in, size_t n, uint8_t *out, size_t cap, size_t *outlen);

/* ZigZag LEB128-64b9B: writes v to out (room for at least 9 bytes) and
 * returns the bytes used, 1..9. Eight 7-bit groups with continuation bits,
 * then a ninth byte that carries the remaining 8 bits whole. */
size_t hdrc_zigzag_encode(int64_t v, uint8_t *out);

/* Reads one ZigZag LEB128-64b9B value from in[0..n) into *v. Returns the
 * bytes consumed (1..9), or 0 when the varint is cut short by the end of
 * the input (*v untouched). */
size_t hdrc_zigzag_decode(const uint8_t *in, size_t n, int64_t *v);

#endif

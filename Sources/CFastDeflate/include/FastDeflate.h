#ifndef REFERENCE_IMAGES_FAST_DEFLATE_H
#define REFERENCE_IMAGES_FAST_DEFLATE_H
#include <stddef.h>
#include <stdint.h>

/// The most bytes `ri_fast_deflate` writes for `length` input bytes: the input stored, plus
/// block headers and the closing marker.
size_t ri_fast_deflate_bound(size_t length);

/// Compresses `input` as raw deflate blocks (RFC 1951) into `output`, which holds at least
/// `ri_fast_deflate_bound(length)` bytes.
///
/// Greedy matching with one hash probe per position, and for each block the smallest of a
/// dynamic Huffman, a fixed Huffman and a stored encoding. When `is_last` is nonzero the last
/// block is final and the stream ends padded to a byte; otherwise it ends with an empty stored
/// block, byte-aligned, as zlib's `Z_SYNC_FLUSH` does, so independently compressed parts
/// concatenate into one stream. `length` must be below 2^31.
///
/// Returns the number of bytes written, or 0 when the work tables cannot be allocated.
size_t ri_fast_deflate(const uint8_t *input, size_t length, int is_last, uint8_t *output);

/// The Adler-32 checksum of zlib's stream trailer, continued from `adler` (1 to start).
uint32_t ri_adler32(uint32_t adler, const uint8_t *data, size_t length);

#endif

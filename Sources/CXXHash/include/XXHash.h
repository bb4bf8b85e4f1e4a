#ifndef REFERENCE_IMAGES_XXHASH_H
#define REFERENCE_IMAGES_XXHASH_H
#include <stddef.h>
#include <stdint.h>

/// The XXH3 128-bit hash (xxHash, from the system's header: `libxxhash-dev`), seed 0, of
/// `length` bytes, written to `digest` in xxHash's canonical byte order (big-endian, high half
/// first), the form `xxhsum -H2` prints.
void ri_xxh3_128(const void *data, size_t length, uint8_t digest[16]);

/// A streaming XXH3 128-bit hash, for data that is not contiguous (a PNG's IDAT chunks).
typedef struct ri_xxh3_stream ri_xxh3_stream;

/// A new stream, seed 0; NULL when memory runs out. Free it with `ri_xxh3_stream_free`.
ri_xxh3_stream *ri_xxh3_stream_new(void);
/// Adds `length` bytes to the stream.
void ri_xxh3_stream_update(ri_xxh3_stream *stream, const void *data, size_t length);
/// The hash of everything added, in canonical byte order; the stream may be updated further.
void ri_xxh3_stream_digest(const ri_xxh3_stream *stream, uint8_t digest[16]);
void ri_xxh3_stream_free(ri_xxh3_stream *stream);

#endif

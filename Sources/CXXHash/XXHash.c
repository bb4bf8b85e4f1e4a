// xxHash's implementation, compiled here from the system's header (libxxhash-dev) with every
// function inline: no call goes through the shared library.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "XXHash.h"

struct ri_xxh3_stream {
  XXH3_state_t state;
};

void ri_xxh3_128(const void *data, size_t length, uint8_t digest[16]) {
  XXH128_canonicalFromHash((XXH128_canonical_t *)digest, XXH3_128bits(data, length));
}

ri_xxh3_stream *ri_xxh3_stream_new(void) {
  XXH3_state_t *state = XXH3_createState();
  if (state == NULL) return NULL;
  XXH3_128bits_reset(state);
  return (ri_xxh3_stream *)state;
}

void ri_xxh3_stream_update(ri_xxh3_stream *stream, const void *data, size_t length) {
  XXH3_128bits_update((XXH3_state_t *)stream, data, length);
}

void ri_xxh3_stream_digest(const ri_xxh3_stream *stream, uint8_t digest[16]) {
  XXH128_canonicalFromHash(
      (XXH128_canonical_t *)digest, XXH3_128bits_digest((const XXH3_state_t *)stream));
}

void ri_xxh3_stream_free(ri_xxh3_stream *stream) { XXH3_freeState((XXH3_state_t *)stream); }

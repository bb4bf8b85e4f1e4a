#ifndef REFERENCE_IMAGES_CZLIB_SHIM_H
#define REFERENCE_IMAGES_CZLIB_SHIM_H
#include <zlib.h>

/// `deflateInit2` is a macro, which Swift cannot call: the same call as a function.
static inline int ri_deflate_init_raw(z_streamp stream, int level) {
  return deflateInit2(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}

/// `inflateInit2` as a function, for raw deflate streams.
static inline int ri_inflate_init_raw(z_streamp stream) {
  return inflateInit2(stream, -15);
}
#endif

#include "PNGUnfilter.h"

#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

// GCC and Clang vector extensions: SSE2 on x86-64, NEON on arm64, from one source. Pixels are
// handled four lanes at a time (one RGBA pixel, or an RGB pixel and a spare lane), because Sub,
// Average and Paeth depend on the pixel to the left; Up and the rows without that dependency
// run 16 bytes at a time. Every load and store goes through memcpy, so in-place rows are read
// before they are overwritten and no alignment is assumed.
typedef uint8_t u8x16 __attribute__((vector_size(16)));
typedef uint8_t u8x4 __attribute__((vector_size(4)));
typedef int16_t i16x4 __attribute__((vector_size(8)));

static inline u8x4 load4(const uint8_t *p, size_t bpp) {
  u8x4 v = {0, 0, 0, 0};
  memcpy(&v, p, bpp);
  return v;
}

static inline void store4(uint8_t *p, u8x4 v, size_t bpp) { memcpy(p, &v, bpp); }

static void unfilter_none(const uint8_t *in, uint8_t *out, size_t count) {
  // memmove: in place, `out` lies before `in`.
  memmove(out, in, count);
}

static void unfilter_up(const uint8_t *in, uint8_t *out, const uint8_t *up, size_t count) {
  size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    u8x16 a, b;
    memcpy(&a, in + i, 16);
    memcpy(&b, up + i, 16);
    a += b;
    memcpy(out + i, &a, 16);
  }
  for (; i < count; i++) out[i] = (uint8_t)(in[i] + up[i]);
}

static inline void unfilter_sub(const uint8_t *in, uint8_t *out, size_t count, size_t bpp) {
  u8x4 left = {0, 0, 0, 0};
  for (size_t i = 0; i < count; i += bpp) {
    left += load4(in + i, bpp);
    store4(out + i, left, bpp);
  }
}

static inline void unfilter_average(
  const uint8_t *in, uint8_t *out, const uint8_t *up, size_t count, size_t bpp
) {
  i16x4 left = {0, 0, 0, 0};
  for (size_t i = 0; i < count; i += bpp) {
    i16x4 above = __builtin_convertvector(load4(up + i, bpp), i16x4);
    i16x4 x = __builtin_convertvector(load4(in + i, bpp), i16x4);
    left = (x + ((left + above) >> 1)) & 0xFF;
    store4(out + i, __builtin_convertvector(left, u8x4), bpp);
  }
}

static inline void unfilter_paeth(
  const uint8_t *in, uint8_t *out, const uint8_t *up, size_t count, size_t bpp
) {
  i16x4 a = {0, 0, 0, 0}, c = {0, 0, 0, 0};
  for (size_t i = 0; i < count; i += bpp) {
    i16x4 b = __builtin_convertvector(load4(up + i, bpp), i16x4);
    i16x4 x = __builtin_convertvector(load4(in + i, bpp), i16x4);
    // p = a + b - c; pa = |p - a| = |b - c|, pb = |a - c|, pc = |(b - c) + (a - c)|.
    i16x4 signedA = b - c, signedB = a - c, signedC = signedA + signedB;
    i16x4 pa = (signedA ^ (signedA >> 15)) - (signedA >> 15);
    i16x4 pb = (signedB ^ (signedB >> 15)) - (signedB >> 15);
    i16x4 pc = (signedC ^ (signedC >> 15)) - (signedC >> 15);
    // The first of a, b, c whose distance is smallest, ties in that order (the PNG rule).
    i16x4 takeA = (pa <= pb) & (pa <= pc);
    i16x4 takeB = ~takeA & (pb <= pc);
    i16x4 predictor = (takeA & a) | (takeB & b) | (~(takeA | takeB) & c);
    a = (x + predictor) & 0xFF;
    c = b;
    store4(out + i, __builtin_convertvector(a, u8x4), bpp);
  }
}

/// One row: `in` holds `count` filtered bytes (after the filter byte), `up` the unfiltered row
/// above (zeros for the first row).
static inline int unfilter_row(
  uint8_t filter, const uint8_t *in, uint8_t *out, const uint8_t *up, size_t count, size_t bpp
) {
  switch (filter) {
  case 0: unfilter_none(in, out, count); return 0;
  case 1: unfilter_sub(in, out, count, bpp); return 0;
  case 2: unfilter_up(in, out, up, count); return 0;
  case 3: unfilter_average(in, out, up, count, bpp); return 0;
  case 4: unfilter_paeth(in, out, up, count, bpp); return 0;
  default: return -1;
  }
}

int ri_png_unfilter_rgba8(
  const uint8_t *filtered, uint8_t *output, const uint8_t *previous, size_t width, size_t rows
) {
  size_t count = 4 * width;
  uint8_t *zeros = NULL;
  if (previous == NULL) {
    zeros = calloc(count, 1);
    if (zeros == NULL) return -1;
    previous = zeros;
  }
  int status = 0;
  for (size_t y = 0; y < rows && status == 0; y++) {
    const uint8_t *in = filtered + y * (count + 1);
    uint8_t *out = output + y * count;
    status = unfilter_row(in[0], in + 1, out, previous, count, 4);
    previous = out;
  }
  free(zeros);
  return status;
}

size_t ri_png_unfilter_rgb8_scratch_size(size_t width) { return 2 * (3 * width + 16); }

int ri_png_unfilter_rgb8_to_rgba8(
  const uint8_t *filtered, uint8_t *output, size_t width, size_t rows, uint8_t *scratch
) {
  size_t count = 3 * width;
  // Each row is unfiltered into scratch before any byte of its output is written, so the
  // output may catch up with the filtered rows at the end of the same buffer.
  uint8_t *previous = scratch, *current = scratch + count + 16;
  memset(previous, 0, count + 16);
  for (size_t y = 0; y < rows; y++) {
    const uint8_t *in = filtered + y * (count + 1);
    if (unfilter_row(in[0], in + 1, current, previous, count, 3) != 0) return -1;
    uint8_t *out = output + y * 4 * width;
    for (size_t x = 0; x < width; x++) {
      out[4 * x] = current[3 * x];
      out[4 * x + 1] = current[3 * x + 1];
      out[4 * x + 2] = current[3 * x + 2];
      out[4 * x + 3] = 255;
    }
    uint8_t *swap = previous;
    previous = current;
    current = swap;
  }
  return 0;
}

void ri_advise_huge_pages(void *start, size_t length) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const uintptr_t huge = (uintptr_t)2 << 20;
  uintptr_t first = ((uintptr_t)start + huge - 1) & ~(huge - 1);
  uintptr_t end = ((uintptr_t)start + length) & ~(huge - 1);
  if (end > first) (void)madvise((void *)first, end - first, MADV_HUGEPAGE);
#else
  (void)start;
  (void)length;
#endif
}

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

/// How many consecutive Paeth rows of one or two bytes a pixel are unfiltered together.
enum { kPaethRowsAtOnce = 4 };
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

static inline i16x4 absolute(i16x4 v) { return __builtin_elementwise_abs(v); }

/// The Paeth predictor of a (left), b (above) and c (above left) given pa = |b - c|, with the
/// PNG rule's tie order a, b, c. Only a enters through the differences that follow it, so the
/// chain from one pixel to the next is a few operations long.
static inline i16x4 paeth_predictor(i16x4 a, i16x4 b, i16x4 c, i16x4 signedA, i16x4 pa) {
  i16x4 signedB = a - c;
  i16x4 pb = absolute(signedB), pc = absolute(signedA + signedB);
  i16x4 smallest = __builtin_elementwise_min(pa, __builtin_elementwise_min(pb, pc));
  i16x4 takeB = pb == smallest, takeA = pa == smallest;
  i16x4 bOrC = (takeB & b) | (~takeB & c);
  return (takeA & a) | (~takeA & bOrC);
}

static inline void unfilter_paeth(
  const uint8_t *in, uint8_t *out, const uint8_t *up, size_t count, size_t bpp
) {
  i16x4 a = {0, 0, 0, 0}, c = {0, 0, 0, 0};
  for (size_t i = 0; i < count; i += bpp) {
    i16x4 b = __builtin_convertvector(load4(up + i, bpp), i16x4);
    i16x4 x = __builtin_convertvector(load4(in + i, bpp), i16x4);
    i16x4 signedA = b - c;
    a = (x + paeth_predictor(a, b, c, signedA, absolute(signedA))) & 0xFF;
    c = b;
    store4(out + i, __builtin_convertvector(a, u8x4), bpp);
  }
}

typedef int16_t i16x8 __attribute__((vector_size(16)));
typedef uint8_t u8x8 __attribute__((vector_size(8)));

/// Two pixels in one vector: the 4 bytes at `low` in lanes 0–3, those at `high` in lanes 4–7.
static inline i16x8 load_pair(const uint8_t *low, const uint8_t *high) {
  u8x8 v;
  memcpy(&v, low, 4);
  memcpy((uint8_t *)&v + 4, high, 4);
  return __builtin_convertvector(v, i16x8);
}

/// `paeth_predictor` for two pixels at once.
static inline i16x8 paeth_predictor2(i16x8 a, i16x8 b, i16x8 c, i16x8 signedA, i16x8 pa) {
  i16x8 signedB = a - c;
  i16x8 pb = __builtin_elementwise_abs(signedB), pc = __builtin_elementwise_abs(signedA + signedB);
  i16x8 smallest = __builtin_elementwise_min(pa, __builtin_elementwise_min(pb, pc));
  i16x8 takeB = pb == smallest, takeA = pa == smallest;
  i16x8 bOrC = (takeB & b) | (~takeB & c);
  return (takeA & a) | (~takeA & bOrC);
}

/// Two consecutive Paeth rows of 8-bit RGBA (`width` >= 3) at once: row 1 runs two pixels
/// behind row 0, so each pixel's inputs from the row above are written, and the two chains
/// from one pixel to the next (Paeth's cost: each pixel waits for its left neighbour) share
/// the vector lanes and overlap in time. Row 1 is written to `out1`, which must not overlap
/// `in0` (in the in-place layout, row 1's pixels would overwrite row 0's unread bytes).
static void unfilter_paeth_rows(
  const uint8_t *in0, uint8_t *out0, const uint8_t *up, const uint8_t *in1, uint8_t *out1,
  size_t width
) {
  unfilter_paeth(in0, out0, up, 8, 4);
  i16x8 left = load_pair(out0 + 4, (const uint8_t[4]){0, 0, 0, 0});
  const uint8_t *aboveLeft1 = (const uint8_t[4]){0, 0, 0, 0};
  for (size_t i = 2; i < width; i++) {
    size_t j = i - 2;
    i16x8 b = load_pair(up + 4 * i, out0 + 4 * j);
    i16x8 c = load_pair(up + 4 * (i - 1), aboveLeft1);
    i16x8 x = load_pair(in0 + 4 * i, in1 + 4 * j);
    i16x8 signedA = b - c;
    left = (x + paeth_predictor2(left, b, c, signedA, __builtin_elementwise_abs(signedA))) & 0xFF;
    u8x8 bytes = __builtin_convertvector(left, u8x8);
    memcpy(out0 + 4 * i, &bytes, 4);
    memcpy(out1 + 4 * j, (uint8_t *)&bytes + 4, 4);
    aboveLeft1 = out0 + 4 * j;
  }
  // Row 1's last two pixels.
  i16x4 a = {left[4], left[5], left[6], left[7]};
  for (size_t j = width - 2; j < width; j++) {
    i16x4 b = __builtin_convertvector(load4(out0 + 4 * j, 4), i16x4);
    i16x4 c = __builtin_convertvector(load4(out0 + 4 * (j - 1), 4), i16x4);
    i16x4 x = __builtin_convertvector(load4(in1 + 4 * j, 4), i16x4);
    i16x4 signedA = b - c;
    a = (x + paeth_predictor(a, b, c, signedA, absolute(signedA))) & 0xFF;
    store4(out1 + 4 * j, __builtin_convertvector(a, u8x4), 4);
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
  // Zeros for the row above the first, and the second row of a Paeth pair, written here
  // first and copied to its place once the first row has read all its bytes.
  uint8_t *zeros = calloc(2 * count, 1);
  if (zeros == NULL) return -1;
  uint8_t *pairRow = zeros + count;
  if (previous == NULL) previous = zeros;
  int status = 0;
  for (size_t y = 0; y < rows && status == 0; y++) {
    const uint8_t *in = filtered + y * (count + 1);
    uint8_t *out = output + y * count;
    const uint8_t *next = in + count + 1;
    if (in[0] == 4 && y + 1 < rows && next[0] == 4 && width >= 3) {
      unfilter_paeth_rows(in + 1, out, previous, next + 1, pairRow, width);
      memcpy(out + count, pairRow, count);
      previous = out + count;
      y++;
      continue;
    }
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

size_t ri_png_unfilter_expand_scratch_size(size_t row_bytes) {
  return (kPaethRowsAtOnce + 1) * (row_bytes + 16);
}

/// The Paeth predictor of one byte, written as selects so the compiler emits conditional
/// moves: pa does not depend on the left byte, so only pb, pc and the selects sit on the chain
/// from one byte to the next.
static inline int paeth_byte(int a, int b, int c) {
  int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
  int bOrC = pb <= pc ? b : c;
  int takeA = (pa <= pb) & (pa <= pc);
  return takeA ? a : bOrC;
}

/// Up to `kPaethRowsAtOnce` consecutive Paeth rows of 1 or 2 bytes a pixel at once, each
/// `bpp` bytes behind the row above it: a byte needs the bytes above it and above-left, which
/// the row above has just written, so the rows' chains (each byte waits for its left
/// neighbour) overlap in time and several rows take little longer than one. `rows[0]` is the
/// unfiltered row above the first; `rows[1...n]` receive the rows.
static inline void unfilter_paeth_rows_narrow(
  const uint8_t *const *in, uint8_t *const *rows, size_t n, size_t count, size_t bpp
) {
  for (size_t i = 0; i < count + (n - 1) * bpp; i++) {
    for (size_t k = 0; k < n; k++) {
      if (i < k * bpp || i - k * bpp >= count) continue;
      size_t j = i - k * bpp;
      const uint8_t *up = rows[k];
      uint8_t *out = rows[k + 1];
      int left = j >= bpp ? out[j - bpp] : 0, upLeft = j >= bpp ? up[j - bpp] : 0;
      out[j] = (uint8_t)(in[k][j] + paeth_byte(left, up[j], upLeft));
    }
  }
}

/// One row of 1 or 2 bytes a pixel, in scalar code: the four-lane loops above would spend most
/// of each step moving one or two bytes in and out of vectors, several times slower than this
/// for the Paeth rows of a palette image.
static int unfilter_row_narrow(
  uint8_t filter, const uint8_t *in, uint8_t *out, const uint8_t *up, size_t count, size_t bpp
) {
  size_t left = bpp < count ? bpp : count;
  switch (filter) {
  case 0: memmove(out, in, count); return 0;
  case 1:
    memmove(out, in, left);
    for (size_t i = left; i < count; i++) out[i] = (uint8_t)(in[i] + out[i - bpp]);
    return 0;
  case 2: unfilter_up(in, out, up, count); return 0;
  case 3:
    for (size_t i = 0; i < left; i++) out[i] = (uint8_t)(in[i] + (up[i] >> 1));
    for (size_t i = left; i < count; i++) {
      out[i] = (uint8_t)(in[i] + ((out[i - bpp] + up[i]) >> 1));
    }
    return 0;
  case 4:
    for (size_t i = 0; i < left; i++) out[i] = (uint8_t)(in[i] + up[i]);
    for (size_t i = left; i < count; i++) {
      out[i] = (uint8_t)(in[i] + paeth_byte(out[i - bpp], up[i], up[i - bpp]));
    }
    return 0;
  default: return -1;
  }
}

/// Sample `x` of a row of `bit_depth`-bit samples, the leftmost in the high bits.
static inline unsigned sample(const uint8_t *row, size_t x, int bit_depth) {
  if (bit_depth == 8) return row[x];
  size_t bit = x * (size_t)bit_depth;
  return (row[bit >> 3] >> (8 - bit_depth - (bit & 7))) & ((1u << bit_depth) - 1);
}

/// One unfiltered row of grey, grey-alpha or palette samples as RGBA; -2 for an index beyond
/// the palette.
static int expand_row(
  const uint8_t *row, uint8_t *out, size_t width, int colour_type, int bit_depth,
  const uint8_t *palette_rgba, size_t palette_count
) {
  if (colour_type == 3) {
    for (size_t x = 0; x < width; x++) {
      unsigned index = sample(row, x, bit_depth);
      if (index >= palette_count) return -2;
      memcpy(out + 4 * x, palette_rgba + 4 * index, 4);
    }
  } else if (colour_type == 4) {
    for (size_t x = 0; x < width; x++) {
      out[4 * x] = out[4 * x + 1] = out[4 * x + 2] = row[2 * x];
      out[4 * x + 3] = row[2 * x + 1];
    }
  } else {
    unsigned scale = 255u / ((1u << bit_depth) - 1);
    for (size_t x = 0; x < width; x++) {
      uint8_t level = (uint8_t)(sample(row, x, bit_depth) * scale);
      out[4 * x] = out[4 * x + 1] = out[4 * x + 2] = level;
      out[4 * x + 3] = 255;
    }
  }
  return 0;
}

int ri_png_unfilter_expand_to_rgba8(
  const uint8_t *filtered, uint8_t *output, size_t width, size_t rows, size_t row_bytes,
  int colour_type, int bit_depth, const uint8_t *palette_rgba, size_t palette_count,
  uint8_t *scratch
) {
  // Filters work on whole bytes: the left neighbour is one byte back below 8 bits a pixel.
  size_t bpp = colour_type == 4 ? 2 : 1;
  // As for RGB, each row is unfiltered into scratch before its output is written;
  // consecutive Paeth rows are unfiltered together. rows[0] is the row above.
  uint8_t *rows_[kPaethRowsAtOnce + 1];
  for (size_t k = 0; k <= kPaethRowsAtOnce; k++) rows_[k] = scratch + k * (row_bytes + 16);
  memset(rows_[0], 0, row_bytes + 16);
  for (size_t y = 0; y < rows;) {
    const uint8_t *in[kPaethRowsAtOnce];
    size_t paeth = 0;
    while (paeth < kPaethRowsAtOnce && y + paeth < rows) {
      in[paeth] = filtered + (y + paeth) * (row_bytes + 1);
      if (in[paeth][0] != 4) break;
      in[paeth] += 1;
      paeth++;
    }
    size_t done = paeth >= 2 ? paeth : 1;
    if (paeth >= 2) {
      unfilter_paeth_rows_narrow(in, rows_, paeth, row_bytes, bpp);
    } else {
      const uint8_t *row = filtered + y * (row_bytes + 1);
      if (unfilter_row_narrow(row[0], row + 1, rows_[1], rows_[0], row_bytes, bpp) != 0) {
        return -1;
      }
    }
    for (size_t k = 1; k <= done; k++) {
      int status = expand_row(
        rows_[k], output + (y + k - 1) * 4 * width, width, colour_type, bit_depth,
        palette_rgba, palette_count);
      if (status != 0) return status;
    }
    // The last row unfiltered is the next one's row above.
    uint8_t *last = rows_[done];
    rows_[done] = rows_[0];
    rows_[0] = last;
    y += done;
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

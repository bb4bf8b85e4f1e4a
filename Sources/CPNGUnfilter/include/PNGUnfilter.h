#ifndef REFERENCE_IMAGES_PNG_UNFILTER_H
#define REFERENCE_IMAGES_PNG_UNFILTER_H
#include <stddef.h>
#include <stdint.h>

/// Reverses the PNG row filters (None, Sub, Up, Average, Paeth) of `rows` rows of 8-bit RGBA,
/// each stored as its filter byte and `4 * width` filtered bytes from `filtered` on, writing
/// rows of `4 * width` bytes from `output` on.
///
/// `previous` is the unfiltered row above the first one, or NULL for an image's first row.
/// The unfiltering may run in place: `output` may equal `filtered`, or lie before it, because
/// each row is written behind the bytes still to be read (row `y` is read from
/// `filtered + y * (4 * width + 1)` and written at `output + y * 4 * width`).
///
/// Returns 0, or -1 when a filter byte is not 0–4 (the output is then partly written).
int ri_png_unfilter_rgba8(
  const uint8_t *filtered, uint8_t *output, const uint8_t *previous, size_t width, size_t rows);

/// The same for 8-bit RGB, each row of `3 * width` filtered bytes after its filter byte,
/// written as RGBA with alpha 255 (`4 * width` bytes a row). `output` must not overlap any row
/// still to be read except as in `ri_png_unfilter_rgba8`'s in-place layout with the filtered
/// rows at the end of the output (`filtered == output + rows * (width - 1)`), which is safe.
///
/// `scratch` holds at least `ri_png_unfilter_rgb8_scratch_size(width)` bytes. Returns 0, or -1
/// for a bad filter byte.
int ri_png_unfilter_rgb8_to_rgba8(
  const uint8_t *filtered, uint8_t *output, size_t width, size_t rows, uint8_t *scratch);

/// The scratch `ri_png_unfilter_rgb8_to_rgba8` needs: two rows of RGB with room for 4-byte
/// accesses past the end.
size_t ri_png_unfilter_rgb8_scratch_size(size_t width);

/// The same for grey (colour type 0, 1/2/4/8 bits), grey with alpha (type 4, 8 bits) and
/// palette images (type 3, 1/2/4/8 bits), each row of `row_bytes` filtered bytes after its
/// filter byte, written as RGBA (`4 * width` bytes a row), in the layout of
/// `ri_png_unfilter_rgb8_to_rgba8`: `filtered` may lie at the end of `output`'s buffer. A grey
/// level of d bits is scaled to 8 by multiplying by 255 / (2^d - 1); a palette index reads its
/// entry from `palette_rgba` (4 bytes an entry, `palette_count` entries).
///
/// `scratch` holds at least `ri_png_unfilter_expand_scratch_size(row_bytes)` bytes. Returns 0,
/// -1 for a bad filter byte, or -2 for a palette index beyond the palette.
int ri_png_unfilter_expand_to_rgba8(
  const uint8_t *filtered, uint8_t *output, size_t width, size_t rows, size_t row_bytes,
  int colour_type, int bit_depth, const uint8_t *palette_rgba, size_t palette_count,
  uint8_t *scratch);

/// The scratch `ri_png_unfilter_expand_to_rgba8` needs: three rows with room for 4-byte
/// accesses past the end.
size_t ri_png_unfilter_expand_scratch_size(size_t row_bytes);

/// Asks the kernel to back the whole 2 MiB pages inside `[start, start + length)` with huge
/// pages (`madvise(MADV_HUGEPAGE)` on Linux; nothing elsewhere), so a fresh output buffer of
/// many megabytes costs a few page faults instead of one per 4 KiB. A hint: memory already
/// touched is unaffected, and failure is harmless.
void ri_advise_huge_pages(void *start, size_t length);

#endif

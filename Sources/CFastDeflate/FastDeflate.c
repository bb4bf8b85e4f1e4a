// A deflate compressor for filtered PNG rows, built for speed on screenshot-like images.
//
// zlib's deflate at levels 1 to 3 follows hash chains and inserts every position of short
// matches; on Up-filtered screenshots, whose rows are mostly zeros and repeated glyph edges,
// two probes per position find as good matches. The matcher below is greedy with a two-way
// hash table (as LZ4 and fpng, with one more way), extends matches eight bytes at a time and,
// after a run of misses, probes less often, so incompressible data is stored quickly. Each block then
// takes the smallest of the three block types RFC 1951 defines.

#include "FastDeflate.h"

#include <stdlib.h>
#include <string.h>

enum {
  kHashBits = 15,
  kWindow = 32768,
  kMinMatch = 4,
  kMaxMatch = 258,
  kMaxSymbols = 1 << 16,  // symbols per block
  kLitLenCodes = 286,
  kDistCodes = 30,
  kCodeLengthCodes = 19,
  kMaxCodeBits = 15,
  kMaxCodeLengthBits = 7,
  kEndOfBlock = 256,
  kMaxStep = 32,
};

/// Marks a match among a block's symbols.
static const uint32_t kMatchFlag = 1u << 31;

// MARK: - Unaligned little-endian access

static inline uint32_t load32(const uint8_t *p) {
  uint32_t value;
  memcpy(&value, p, 4);
  return value;
}

static inline uint64_t load64(const uint8_t *p) {
  uint64_t value;
  memcpy(&value, p, 8);
  return value;
}

static inline void store64le(uint8_t *p, uint64_t value) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  value = __builtin_bswap64(value);
#endif
  memcpy(p, &value, 8);
}

/// The number of equal leading bytes of `a` and `b`, at most `max`.
static inline size_t common_length(const uint8_t *a, const uint8_t *b, size_t max) {
  size_t n = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  while (n + 8 <= max) {
    uint64_t difference = load64(a + n) ^ load64(b + n);
    if (difference != 0) return n + ((size_t)__builtin_ctzll(difference) >> 3);
    n += 8;
  }
#endif
  while (n < max && a[n] == b[n]) n++;
  return n;
}

static inline uint32_t hash4(uint32_t bytes) { return (bytes * 2654435761u) >> (32 - kHashBits); }

/// Makes `position` the newer of a bucket's two.
static inline void insert(uint32_t *bucket, size_t position) {
  bucket[1] = bucket[0];
  bucket[0] = (uint32_t)position;
}

// MARK: - Symbols

/// The length symbol (257...285) of a match length minus 3, and its extra bits.
static inline unsigned length_symbol(unsigned length3, unsigned *extra_bits) {
  if (length3 < 8) {
    *extra_bits = 0;
    return 257 + length3;
  }
  if (length3 == 255) {
    *extra_bits = 0;
    return 285;
  }
  unsigned extra = 29 - (unsigned)__builtin_clz(length3);  // floor(log2) - 2
  *extra_bits = extra;
  return 257 + 4 * (extra + 1) + (length3 >> extra) - 4;
}

/// The distance symbol (0...29) of a distance minus 1, and its extra bits.
static inline unsigned distance_symbol(unsigned distance1, unsigned *extra_bits) {
  if (distance1 < 4) {
    *extra_bits = 0;
    return distance1;
  }
  unsigned extra = 30 - (unsigned)__builtin_clz(distance1);  // floor(log2) - 1
  *extra_bits = extra;
  return 2 * extra + 2 + ((distance1 >> extra) & 1);
}

typedef struct {
  // Two positions per hash, the newer first: the second way finds matches that make files
  // noticeably shorter (screenshots and charts alike) for little more time.
  uint32_t table[2 << kHashBits];
  // A literal is its byte; a match is kMatchFlag | (length - 3) << 16 | (distance - 1).
  uint32_t symbols[kMaxSymbols];
  uint32_t litlen_counts[kLitLenCodes];
  uint32_t dist_counts[kDistCodes];
} Work;

// MARK: - Huffman codes

typedef struct {
  uint32_t count;
  uint16_t symbol;
} SymbolCount;

static int by_count(const void *a, const void *b) {
  const SymbolCount *x = a, *y = b;
  if (x->count != y->count) return x->count < y->count ? -1 : 1;
  return x->symbol < y->symbol ? -1 : 1;
}

/// Code lengths from counts, Moffat and Katajainen's in-place minimum-redundancy algorithm on
/// counts sorted ascending; afterwards `sorted[i].count` holds the length of `sorted[i]`.
static void minimum_redundancy(SymbolCount *sorted, int n) {
  if (n == 1) {
    sorted[0].count = 1;
    return;
  }
  sorted[0].count += sorted[1].count;
  int root = 0, leaf = 2;
  for (int next = 1; next < n - 1; next++) {
    if (leaf >= n || sorted[root].count < sorted[leaf].count) {
      sorted[next].count = sorted[root].count;
      sorted[root++].count = (uint32_t)next;
    } else {
      sorted[next].count = sorted[leaf++].count;
    }
    if (leaf >= n || (root < next && sorted[root].count < sorted[leaf].count)) {
      sorted[next].count += sorted[root].count;
      sorted[root++].count = (uint32_t)next;
    } else {
      sorted[next].count += sorted[leaf++].count;
    }
  }
  sorted[n - 2].count = 0;
  for (int next = n - 3; next >= 0; next--) sorted[next].count = sorted[sorted[next].count].count + 1;
  int available = 1, used = 0, depth = 0, root2 = n - 2, next = n - 1;
  while (available > 0) {
    while (root2 >= 0 && (int)sorted[root2].count == depth) {
      used++;
      root2--;
    }
    while (available > used) {
      sorted[next--].count = (uint32_t)depth;
      available--;
    }
    available = 2 * used;
    depth++;
    used = 0;
  }
}

/// Canonical code lengths (at most `max_bits`) for `counts`; symbols with count 0 get length
/// 0. At least two symbols get a code, so every decoder accepts the tree.
static void build_lengths(const uint32_t *counts, int n, int max_bits, uint8_t *lengths) {
  SymbolCount sorted[kLitLenCodes];
  int used = 0;
  memset(lengths, 0, (size_t)n);
  for (int symbol = 0; symbol < n; symbol++) {
    if (counts[symbol] > 0) sorted[used++] = (SymbolCount){counts[symbol], (uint16_t)symbol};
  }
  for (int symbol = 0; used < 2; symbol++) {
    if (counts[symbol] == 0) sorted[used++] = (SymbolCount){1, (uint16_t)symbol};
  }
  qsort(sorted, (size_t)used, sizeof sorted[0], by_count);
  minimum_redundancy(sorted, used);
  // Lengths come out descending; limit them by the Kraft sum, as miniz does.
  int per_length[33] = {0};
  for (int i = 0; i < used; i++) per_length[sorted[i].count < 32 ? sorted[i].count : 32]++;
  for (int bits = max_bits + 1; bits <= 32; bits++) per_length[max_bits] += per_length[bits];
  uint32_t total = 0;
  for (int bits = max_bits; bits > 0; bits--) total += (uint32_t)per_length[bits] << (max_bits - bits);
  while (total != (1u << max_bits)) {
    per_length[max_bits]--;
    for (int bits = max_bits - 1; bits > 0; bits--) {
      if (per_length[bits] != 0) {
        per_length[bits]--;
        per_length[bits + 1] += 2;
        break;
      }
    }
    total--;
  }
  // The least frequent symbols (first in `sorted`) take the longest codes.
  int i = 0;
  for (int bits = max_bits; bits > 0; bits--) {
    for (int k = per_length[bits]; k > 0; k--) lengths[sorted[i++].symbol] = (uint8_t)bits;
  }
}

/// Canonical codes for `lengths`, bit-reversed for the LSB-first bit stream.
static void build_codes(const uint8_t *lengths, int n, uint16_t *codes) {
  unsigned per_length[kMaxCodeBits + 1] = {0};
  for (int symbol = 0; symbol < n; symbol++) per_length[lengths[symbol]]++;
  per_length[0] = 0;
  unsigned next[kMaxCodeBits + 2] = {0};
  for (int bits = 1; bits <= kMaxCodeBits; bits++) next[bits + 1] = (next[bits] + per_length[bits]) << 1;
  for (int symbol = 0; symbol < n; symbol++) {
    unsigned bits = lengths[symbol];
    if (bits == 0) continue;
    unsigned code = next[bits]++, reversed = 0;
    for (unsigned b = 0; b < bits; b++) reversed |= ((code >> b) & 1) << (bits - 1 - b);
    codes[symbol] = (uint16_t)reversed;
  }
}

// MARK: - Bit output

typedef struct {
  uint8_t *out;
  uint64_t bits;
  unsigned count;  // below 8 after every flush
} Bits;

static inline void put(Bits *w, uint32_t value, unsigned n) {
  w->bits |= (uint64_t)value << w->count;
  w->count += n;
}

/// Writes the whole bytes held; at most 56 bits may be put between flushes.
static inline void flush(Bits *w) {
  store64le(w->out, w->bits);
  unsigned bytes = w->count >> 3;
  w->out += bytes;
  w->bits = bytes == 8 ? 0 : w->bits >> (bytes * 8);
  w->count &= 7;
}

static void align_to_byte(Bits *w) {
  if (w->count & 7) put(w, 0, 8 - (w->count & 7));
  flush(w);
}

// MARK: - Blocks

/// The code length sequence of a dynamic block's trees, run-length coded with symbols 16-18.
typedef struct {
  uint8_t symbols[kLitLenCodes + kDistCodes];
  uint8_t extras[kLitLenCodes + kDistCodes];
  int count;
  uint32_t counts[kCodeLengthCodes];
} LengthRuns;

static void run_length_code(const uint8_t *lengths, int n, LengthRuns *runs) {
  memset(runs, 0, sizeof *runs);
  for (int i = 0; i < n;) {
    uint8_t length = lengths[i];
    int run = 1;
    while (i + run < n && lengths[i + run] == length) run++;
    i += run;
    if (length == 0) {
      while (run >= 3) {
        int take = run > 138 ? 138 : run;
        uint8_t symbol = take >= 11 ? 18 : 17;
        runs->symbols[runs->count] = symbol;
        runs->extras[runs->count++] = (uint8_t)(take - (symbol == 18 ? 11 : 3));
        runs->counts[symbol]++;
        run -= take;
      }
    } else {
      runs->symbols[runs->count] = length;
      runs->extras[runs->count++] = 0;
      runs->counts[length]++;
      run--;
      while (run >= 3) {
        int take = run > 6 ? 6 : run;
        runs->symbols[runs->count] = 16;
        runs->extras[runs->count++] = (uint8_t)(take - 3);
        runs->counts[16]++;
        run -= take;
      }
    }
    for (; run > 0; run--) {
      runs->symbols[runs->count] = length;
      runs->extras[runs->count++] = 0;
      runs->counts[length]++;
    }
  }
}

static const uint8_t kCodeLengthOrder[kCodeLengthCodes] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                            11, 4,  12, 3, 13, 2, 14, 1, 15};

static const uint8_t kLengthExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                         2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};

static const uint8_t kDistExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

/// A block's trees: lengths and codes of both alphabets.
typedef struct {
  // Room for the two literal/length codes that never occur but shape the fixed code.
  uint8_t litlen_lengths[kLitLenCodes + 2];
  uint16_t litlen_codes[kLitLenCodes + 2];
  uint8_t dist_lengths[kDistCodes];
  uint16_t dist_codes[kDistCodes];
} Trees;

static void fixed_trees(Trees *trees) {
  for (int s = 0; s < kLitLenCodes + 2; s++) {
    trees->litlen_lengths[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
  }
  memset(trees->dist_lengths, 5, sizeof trees->dist_lengths);
  build_codes(trees->litlen_lengths, kLitLenCodes + 2, trees->litlen_codes);
  build_codes(trees->dist_lengths, kDistCodes, trees->dist_codes);
}

/// The bits of the block's symbols under `trees`, extra bits included.
static uint64_t payload_bits(const Work *work, const Trees *trees) {
  uint64_t bits = 0;
  for (int s = 0; s < kLitLenCodes; s++) {
    uint64_t extra = s > 256 ? kLengthExtra[s - 257] : 0;
    bits += (uint64_t)work->litlen_counts[s] * (trees->litlen_lengths[s] + extra);
  }
  for (int s = 0; s < kDistCodes; s++) {
    bits += (uint64_t)work->dist_counts[s] * (trees->dist_lengths[s] + kDistExtra[s]);
  }
  return bits;
}

static void write_symbols(Bits *w, const Work *work, size_t symbol_count, const Trees *trees) {
  for (size_t i = 0; i < symbol_count; i++) {
    uint32_t symbol = work->symbols[i];
    if (!(symbol & kMatchFlag)) {
      put(w, trees->litlen_codes[symbol], trees->litlen_lengths[symbol]);
    } else {
      unsigned length3 = (symbol >> 16) & 0xFF, distance1 = symbol & 0xFFFF, extra;
      unsigned code = length_symbol(length3, &extra);
      put(w, trees->litlen_codes[code], trees->litlen_lengths[code]);
      if (extra) put(w, length3 & ((1u << extra) - 1), extra);
      code = distance_symbol(distance1, &extra);
      put(w, trees->dist_codes[code], trees->dist_lengths[code]);
      if (extra) put(w, distance1 & ((1u << extra) - 1), extra);
    }
    flush(w);
  }
  put(w, trees->litlen_codes[kEndOfBlock], trees->litlen_lengths[kEndOfBlock]);
  flush(w);
}

static void write_stored(Bits *w, const uint8_t *data, size_t length, int is_final) {
  do {
    size_t part = length > 65535 ? 65535 : length;
    length -= part;
    put(w, is_final && length == 0, 3);
    align_to_byte(w);
    put(w, (uint32_t)part | (uint32_t)(~part & 0xFFFF) << 16, 32);
    flush(w);
    memcpy(w->out, data, part);
    w->out += part;
    data += part;
  } while (length > 0);
}

/// Writes the symbols gathered for `data` as one block of the cheapest type.
static void write_block(Bits *w, Work *work, size_t symbol_count, const uint8_t *data,
                        size_t length, int is_final) {
  work->litlen_counts[kEndOfBlock]++;
  Trees dynamic, fixed;
  build_lengths(work->litlen_counts, kLitLenCodes, kMaxCodeBits, dynamic.litlen_lengths);
  build_lengths(work->dist_counts, kDistCodes, kMaxCodeBits, dynamic.dist_lengths);
  build_codes(dynamic.litlen_lengths, kLitLenCodes, dynamic.litlen_codes);
  build_codes(dynamic.dist_lengths, kDistCodes, dynamic.dist_codes);
  int litlen_used = kLitLenCodes, dist_used = kDistCodes;
  while (litlen_used > 257 && dynamic.litlen_lengths[litlen_used - 1] == 0) litlen_used--;
  while (dist_used > 1 && dynamic.dist_lengths[dist_used - 1] == 0) dist_used--;
  uint8_t all_lengths[kLitLenCodes + kDistCodes];
  memcpy(all_lengths, dynamic.litlen_lengths, (size_t)litlen_used);
  memcpy(all_lengths + litlen_used, dynamic.dist_lengths, (size_t)dist_used);
  LengthRuns runs;
  run_length_code(all_lengths, litlen_used + dist_used, &runs);
  uint8_t run_lengths[kCodeLengthCodes];
  uint16_t run_codes[kCodeLengthCodes];
  build_lengths(runs.counts, kCodeLengthCodes, kMaxCodeLengthBits, run_lengths);
  build_codes(run_lengths, kCodeLengthCodes, run_codes);
  int order_used = kCodeLengthCodes;
  while (order_used > 4 && run_lengths[kCodeLengthOrder[order_used - 1]] == 0) order_used--;

  uint64_t header_bits = 5 + 5 + 4 + 3 * (uint64_t)order_used;
  for (int i = 0; i < runs.count; i++) {
    uint8_t s = runs.symbols[i];
    header_bits += run_lengths[s] + (s == 16 ? 2 : s == 17 ? 3 : s == 18 ? 7 : 0);
  }
  uint64_t dynamic_bits = header_bits + payload_bits(work, &dynamic);
  fixed_trees(&fixed);
  uint64_t fixed_bits = payload_bits(work, &fixed);
  uint64_t stored_bits = (uint64_t)length * 8 + 40 * (length / 65535 + 1);

  if (stored_bits <= dynamic_bits && stored_bits <= fixed_bits) {
    write_stored(w, data, length, is_final);
  } else if (fixed_bits <= dynamic_bits) {
    put(w, (is_final ? 1 : 0) | 1 << 1, 3);
    write_symbols(w, work, symbol_count, &fixed);
  } else {
    put(w, (is_final ? 1 : 0) | 2 << 1, 3);
    put(w, (uint32_t)(litlen_used - 257), 5);
    put(w, (uint32_t)(dist_used - 1), 5);
    put(w, (uint32_t)(order_used - 4), 4);
    flush(w);
    for (int i = 0; i < order_used; i++) {
      put(w, run_lengths[kCodeLengthOrder[i]], 3);
      flush(w);
    }
    for (int i = 0; i < runs.count; i++) {
      uint8_t s = runs.symbols[i];
      put(w, run_codes[s], run_lengths[s]);
      if (s >= 16) put(w, runs.extras[i], s == 16 ? 2 : s == 17 ? 3 : 7);
      flush(w);
    }
    write_symbols(w, work, symbol_count, &dynamic);
  }
  memset(work->litlen_counts, 0, sizeof work->litlen_counts);
  memset(work->dist_counts, 0, sizeof work->dist_counts);
}

// MARK: - The compressor

size_t ri_fast_deflate_bound(size_t length) {
  // Stored blocks: 5 bytes per 65,535, one more block header per symbol block, the final
  // marker and the eight bytes the bit writer stores past its end.
  return length + 5 * (length / 65535 + 2) + 5 * (length / kMaxSymbols + 2) + 16;
}

size_t ri_fast_deflate(const uint8_t *input, size_t length, int is_last, uint8_t *output) {
  Work *work = calloc(1, sizeof(Work));
  if (work == NULL) return 0;
  Bits w = {output, 0, 0};
  size_t symbol_count = 0, block_start = 0, position = 0, misses = 0;
  size_t limit = length > 8 ? length - 8 : 0;
  while (position < limit) {
    uint32_t bytes = load32(input + position);
    uint32_t *bucket = &work->table[hash4(bytes) << 1];
    size_t match = 0, candidate = 0;
    size_t max = length - position < kMaxMatch ? length - position : kMaxMatch;
    for (int way = 0; way < 2 && match < max; way++) {
      size_t earlier = bucket[way];
      if (earlier < position && position - earlier <= kWindow && load32(input + earlier) == bytes) {
        size_t found = kMinMatch + common_length(input + earlier + kMinMatch,
                                                 input + position + kMinMatch, max - kMinMatch);
        if (found > match) {
          match = found;
          candidate = earlier;
        }
      }
    }
    insert(bucket, position);
    if (match > 0) {
      unsigned length3 = (unsigned)match - 3, distance1 = (unsigned)(position - candidate) - 1, extra;
      work->symbols[symbol_count++] = kMatchFlag | length3 << 16 | distance1;
      work->litlen_counts[length_symbol(length3, &extra)]++;
      work->dist_counts[distance_symbol(distance1, &extra)]++;
      position += match;
      misses = 0;
      // The match's last position, so a match ending where the next starts is found.
      if (position < limit) {
        insert(&work->table[hash4(load32(input + position - 1)) << 1], position - 1);
      }
    } else {
      // After 64 misses in a row, probe every second position, then every third, up to every
      // 32nd: noise is stored quickly, and text, whose misses come in short runs, keeps every
      // probe.
      size_t step = 1 + (misses++ >> 6);
      if (step > kMaxStep) step = kMaxStep;
      if (step > limit - position) step = limit - position;
      for (size_t k = 0; k < step; k++) {
        uint8_t literal = input[position + k];
        work->symbols[symbol_count++] = literal;
        work->litlen_counts[literal]++;
      }
      position += step;
    }
    // Room for the next iteration's symbols, and for the tail's.
    if (symbol_count + kMaxStep + 8 >= kMaxSymbols) {
      write_block(&w, work, symbol_count, input + block_start, position - block_start, 0);
      symbol_count = 0;
      block_start = position;
    }
  }
  for (; position < length; position++) {
    work->symbols[symbol_count++] = input[position];
    work->litlen_counts[input[position]]++;
  }
  write_block(&w, work, symbol_count, input + block_start, length - block_start, is_last);
  if (!is_last) {
    put(&w, 0, 3);
    align_to_byte(&w);
    put(&w, 0xFFFF0000u, 32);
  }
  align_to_byte(&w);
  free(work);
  return (size_t)(w.out - output);
}

// MARK: - Adler-32

uint32_t ri_adler32(uint32_t adler, const uint8_t *data, size_t length) {
  enum { kBase = 65521, kLanes = 16, kBlock = 5536 };  // 5536 = 346 * 16, under zlib's NMAX
  uint32_t s1 = adler & 0xFFFF, s2 = adler >> 16;
  while (length >= kLanes) {
    size_t chunks = (length < kBlock ? length : kBlock) / kLanes;
    // Per lane: the sum of its bytes, and the sum of those sums before each chunk.
    uint32_t sums[kLanes] = {0}, prefixes[kLanes] = {0};
    for (size_t c = 0; c < chunks; c++) {
      for (int j = 0; j < kLanes; j++) {
        prefixes[j] += sums[j];
        sums[j] += data[c * kLanes + j];
      }
    }
    uint64_t byte_sum = 0, weighted = 0;
    for (int j = 0; j < kLanes; j++) {
      byte_sum += sums[j];
      weighted += (uint64_t)kLanes * prefixes[j] + (uint64_t)(kLanes - j) * sums[j];
    }
    size_t n = chunks * kLanes;
    s2 = (uint32_t)((s2 + (uint64_t)s1 * n + weighted) % kBase);
    s1 = (uint32_t)((s1 + byte_sum) % kBase);
    data += n;
    length -= n;
  }
  for (size_t i = 0; i < length; i++) {
    s1 += data[i];
    s2 += s1;
  }
  return (s2 % kBase) << 16 | (s1 % kBase);
}

// CAMBI's hot loops, a C reference and SIMD variants beside it (dav1d
// style). Every variant gives the C reference's outputs bit for bit; the
// tests run each against it (tests/checkasm_test.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "features/cambi/plan.hpp"

namespace speedqa::cambi {

// One scale's filtering: the 3-tap mode along rows, then along columns of
// that, in place (the first and last rows and columns keep their values);
// the histogram level of every pixel (Levels: the masked pixels of the band
// are counted); and, when `decimate`, the next scale: every other row and
// column of the filtered picture and of the mask, moved to the top of the
// buffers (each row is moved once it has been used).
struct ScaleArgs {
    uint16_t* image = nullptr;  // 10-bit values
    uint8_t* mask = nullptr;    // 0 or 1
    ptrdiff_t stride = 0;       // of image and mask, in elements
    int width = 0, height = 0;
    const Levels* levels = nullptr;
    uint16_t* level_out = nullptr;  // width * height, row-major, no padding
    bool decimate = false;
    uint16_t* scratch = nullptr;    // 3 * width
};

// The banding pass of one scale: for every pixel of the mask whose value is
// in the band, the largest banding value over the visible level differences,
// from the counts of masked pixels of each value in its window (the window
// clipped to the picture); 0 elsewhere. Most values are 0: the pass writes
// which pixels have a nonzero one, and those values in row-major order.
struct BandingArgs {
    const uint16_t* levels = nullptr;  // width * height histogram levels (ScaleArgs::level_out)
    int width = 0, height = 0;
    int pad = 0;                       // window >> 1; at most width and height
    const Plan* plan = nullptr;        // levels, differences and tables
    uint8_t* columns = nullptr;        // scratch: banding_scratch_bytes(width, pad, plan->levels)
    // out: bit i (of words of 64, from the lowest) set where pixel i =
    // r * width + c has a nonzero value; banding_bits_words(width * height)
    // words, all written.
    uint64_t* nonzero = nullptr;
    // out: the nonzero values in row-major order; room for
    // banding_values_room(width * height) floats.
    float* values = nullptr;
};

inline size_t banding_bits_words(size_t n) { return n / 64 + 2; }
inline size_t banding_values_room(size_t n) { return n + 16; }

// What the pooling needs to know of the values without sorting them.
struct BandingStats {
    long long nonzero = 0;  // values written
    float smallest = 0;  // the smallest nonzero value, 0 when none
    // The sum of all values in an unspecified order: exact (so equal in any
    // order) when it is below 2^53 units of the smallest value's last bit,
    // the only case the pooling uses it.
    double sum = 0;
};

struct Kernels {
    const char* name;
    // 10-bit values of n samples of `bitdepth` bits (two bytes each above 8
    // bits, little-endian). Returns the largest sample read.
    unsigned (*convert_row)(uint16_t* dst, const uint8_t* src, int n, int bitdepth);
    // The anti-dithering 2x2 mean, in place on row a with b the row below:
    // a[j] = (a[j] + a[j+1] + b[j] + b[j+1]) >> 2, the last column
    // (a + b) >> 1. Every sum reads values not yet replaced.
    void (*antidither_row)(uint16_t* a, const uint16_t* b, int n);
    // The last row: a[j] = (a[j] + a[j+1]) >> 1, the last column kept.
    void (*antidither_last_row)(uint16_t* a, int n);
    // The spatial mask, a row at a time: mask = 1 where more than
    // `threshold` pixels of the 7x7 neighbourhood (clipped to the picture)
    // equal their right and lower neighbours (a missing neighbour counts as
    // equal). The scratch (mask_scratch_bytes(width), zeroed before row 0)
    // holds the flags of the last kMaskFilter rows and their column sums.
    // mask_add_row: the flags of row r (below: row r + 1, nullptr on the
    // last row), added to the sums; rows in order, r at most kMaskPad past
    // the last row given to mask_row.
    void (*mask_add_row)(uint8_t* scratch, const uint16_t* row, const uint16_t* below, int width, int r);
    // Mask row r (its flags rows up to r + kMaskPad added, as far as the
    // picture goes; not made where mask is nullptr), then the flags of row
    // r - kMaskPad leave the sums.
    void (*mask_row)(uint8_t* mask, uint8_t* scratch, int width, int r, int threshold);
    // Every other column of a picture row and of its mask row from column 0
    // (n of them): dst[c] = src[2c]. dst may be src (reads stay ahead).
    void (*decimate_row)(uint16_t* dst, uint8_t* dst_mask, const uint16_t* src, const uint8_t* src_mask, int n);
    // Steps [from, to) of the filtering: step i filters row i along the
    // row and finishes row i - 1 (row 0 at step 0, the last row when to is
    // the height). Calls cover 0 .. height in order; scratch carries over.
    void (*filter_scale)(const ScaleArgs& args, int from, int to);
    // Rows [from, to) of the banding pass: their levels, and those of pad
    // rows above and below, must be there. Calls cover 0 .. height in order
    // (the first one starts the counts); scratch carries over, and `stats`
    // adds up (the values go on after the `stats->nonzero` ones written).
    void (*banding)(const BandingArgs& args, int from, int to, BandingStats* stats);
};

// Bytes of one histogram level (or column) in the banding scratch: every
// column of the window's reach, an empty one, and room for whole-vector reads.
inline ptrdiff_t banding_row_bytes(int width, int pad) { return (width + 2 * pad + 1 + 64 + 31) / 32 * 32; }
// Every level's row, and a spare line.
inline size_t banding_scratch_bytes(int width, int pad, const Levels& l) {
    return static_cast<size_t>(banding_row_bytes(width, pad)) * static_cast<size_t>(l.row) + 64;
}
// The column sums (with kMaskPad zero bytes on each side) at the start,
// then the flags of kMaskFilter rows.
inline size_t mask_scratch_bytes(int width) { return static_cast<size_t>(kMaskFilter + 1) * width + 2 * kMaskPad; }
inline uint8_t* mask_column_sums(uint8_t* scratch) { return scratch + kMaskPad; }
inline uint8_t* mask_flags(uint8_t* scratch, int width, int r) {
    return scratch + width + 2 * kMaskPad + static_cast<ptrdiff_t>(r % kMaskFilter) * width;
}
// Pictures and masks are allocated with this many spare elements past their
// last row: SIMD loads may read (and ignore) a few of them.
inline constexpr int kSpare = 64;

const Kernels& kernels_c();
const Kernels* kernels_avx2();    // nullptr when the build or this CPU lacks AVX2
const Kernels* kernels_avx512();  // nullptr when the build or this CPU lacks AVX-512 (F, BW, DQ, VL, CD)

}  // namespace speedqa::cambi

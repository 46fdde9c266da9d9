// The hot loops of integer VIF: a C reference and SIMD variants beside it,
// each returning the C reference's integers (tests/vif_checkasm_test.cpp).
// A kernel sees one output row at a time; the driver (vif.cpp) hands it the
// input rows the filter covers, already mirrored the way the reference pads.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/feature.hpp"
#include "features/vif/exact/vif_exact.hpp"

namespace speedqa::vif {

namespace ev = exact::vif;

// Per-worker buffers of the kernels, sized for the widest row of the frame:
// the vertical pass's outputs for one row, each lane with room for the
// mirrored columns on both sides and slack for vector overreads.
struct RowScratch {
    uint32_t* lanes[5] = {};  // 32-bit lanes
    double* wide[3] = {};     // 64-bit lanes (the SIMD kernels' second moments)
    size_t lane_len = 0;      // elements per lane
};

// The reference reads column p in [-kMaxRadius, w + kMaxRadius) from column
// col_src[p] (col_src points at the entry of column 0).
struct StatRowArgs {
    const void* const* ref_rows = nullptr;  // filter.width rows, top tap first
    const void* const* dis_rows = nullptr;
    // Bits of the samples: 8 (uint8: scale 0 of 8-bit video), 10, 12 (uint16:
    // scale 0) or 16 (uint16: scale 0 of 16-bit video, and every later scale).
    int bits = 8;
    int w = 0;
    ev::Filter filter;
    ev::StatRounding rounding;
    const int* col_src = nullptr;
    double gain_limit = 100.0;
    const uint16_t* log2_table = nullptr;
};

// One row of the next scale: the filter at row 2i of the input image and at
// its even columns, w_in / 2 outputs.
struct HalveRowArgs {
    const void* const* ref_rows = nullptr;
    const void* const* dis_rows = nullptr;
    int bits = 8;  // as in StatRowArgs
    int w_in = 0;
    ev::Filter filter;
    ev::Rounding vertical;
    const int* col_src = nullptr;
    uint16_t* ref_out = nullptr;
    uint16_t* dis_out = nullptr;
};

struct Kernels {
    const char* name;
    // Adds the statistic of every pixel of one row to `sums`.
    void (*stat_row)(const StatRowArgs& args, const RowScratch& scratch, ev::Sums& sums);
    void (*halve_row)(const HalveRowArgs& args, const RowScratch& scratch);
};

// Vertical-pass lanes the kernels need for rows of w columns.
size_t row_lane_len(int w);

const Kernels& kernels_c();
const Kernels* kernels_avx2();  // nullptr where the build or the CPU lacks AVX2
const Kernels& kernels_for(Isa isa);

}  // namespace speedqa::vif

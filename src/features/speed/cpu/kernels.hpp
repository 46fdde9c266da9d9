// The CPU engine's hot loops, in a C reference and SIMD variants beside it
// (dav1d style). Every variant returns the C reference's bits: each output
// element receives the same operations in the same order; the variants only
// process several elements at once. tests/cpu_kernels_test.cpp runs every
// variant this CPU supports against the C reference on random inputs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/feature.hpp"
#include "features/speed/exact/covariance.hpp"

namespace speedqa::cpu {

// The vertical anti-alias pass at one kept row: v[c] = sum over taps k, in
// order from 0.0f, of taps[k] * x_k[c] for c in [0, n), where x_k is row k
// converted to float (sample + offset, or / scaler + offset), or the
// difference of two such rows (diff), or a row of floats (rows_are_float).
struct VerticalArgs {
    float* v = nullptr;
    int n = 0;
    const float* taps = nullptr;
    int count = 0;
    const uint8_t* const* a = nullptr;
    const uint8_t* const* b = nullptr;  // diff: x_k = conv(a_k) - conv(b_k)
    int bitdepth = 8;
    bool diff = false;
    bool rows_are_float = false;
    // Sample rows (a, and b with diff) that the next call reads and this
    // one does not: the SIMD kernels ask for their lines at the columns
    // they reach (a hint only: the rows of a frame are first read here, and
    // the prefetcher does not start a new row's stream ahead of the loads).
    const uint8_t* const* ahead = nullptr;
    int ahead_count = 0;
};

// Asks for the lines of the `ahead` rows at columns [c, c + n) of samples
// `bytes` wide. (static: each SIMD file its own copy, see
// tests/simd_objects_check.sh)
static inline void prefetch_ahead(const VerticalArgs& g, int c, int n, int bytes) {
    for (int k = 0; k < g.ahead_count; k++)
        for (int o = 0; o < n * bytes; o += 64) __builtin_prefetch(g.ahead[k] + static_cast<ptrdiff_t>(c) * bytes + o);
}

// Accumulator layout for the covariance chains: [chain][x][kCovPad] doubles,
// pair (x, y) at [chain][x][y] for y <= x (other entries are scratch).
inline constexpr int kCovPad = 32;
inline constexpr int kCovChainDoubles = exact::kBlockElems * kCovPad;

struct Kernels {
    const char* name;
    void (*vertical)(const VerticalArgs& args);
    // Feeds the chains the terms of submatrix rows [i0, i0 + rows) (all their
    // positions j, row by row). `mean` holds the 25 means as doubles, padded
    // with zeros to kCovPad.
    void (*cov_rows)(const float* img, int stride, int i0, int rows, int sub_w, const double* mean,
                     const exact::CovLayout& layout, double* acc);
    // Adds submatrix row i to the 25 running float sums (the means' chains).
    void (*sums_row)(const float* img, int stride, int i, int sub_w, float* sums);
    // dst = x * y with exact::matmul's bits (each element a float sum over k
    // in order, from 0): the products of the Householder QR and Q B.
    void (*matmul)(float* dst, const float* x, const float* y, int rows, int inner, int cols);
};

const Kernels& kernels_c();
// Per-thread scratch of the SIMD covariance kernels, grown to the largest
// request and kept. It lives in a file built for the baseline ISA: a file
// built with -mavx512f must instantiate no standard-library template (a
// vector's resize, say), because the linker keeps one copy of each for the
// whole program and may keep the AVX-512 one, which then faults on CPUs
// without it. (ctest's SimdObjectsShareNoCode checks those objects.)
struct CovScratch {
    double* centred;
    int* js;
    int* row_js;
};
CovScratch cov_scratch(size_t centred_doubles, size_t js_ints, size_t row_js_ints);
// The C reference's vertical pass for columns [from, n) only: the SIMD
// variants finish their last columns with it.
void vertical_columns_c(const VerticalArgs& args, int from);
const Kernels* kernels_avx2();    // nullptr when this CPU lacks AVX2 (or the build lacks the variant)
const Kernels* kernels_avx512();  // nullptr when this CPU lacks AVX-512
// The widest variant up to `isa` that this CPU runs and this build has.
const Kernels& kernels_for(Isa isa);
// kernels_for(host_isa()): the widest this CPU runs (SPEEDQA_KERNELS narrows it).
const Kernels& best_kernels();

}  // namespace speedqa::cpu

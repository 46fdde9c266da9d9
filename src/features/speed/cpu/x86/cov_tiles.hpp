// What the AVX2 and AVX-512 covariance kernels share: the map of a register
// tile of accumulators and the driver that feeds the tiles a strip of rows.
// Everything here has internal linkage (an anonymous namespace), so that each
// SIMD file compiles its own copy for its instruction set and the linker has
// nothing to pick between (see SimdObjectsShareNoCode).
#pragma once

#include <algorithm>
#include <cstddef>

#include "features/speed/cpu/kernels.hpp"
#include "features/speed/exact/covariance.hpp"

namespace speedqa::cpu {
namespace {

// A register tile: the accumulators of pairs with x in [X0, X1) and y in
// whole vectors of Lanes doubles up to x. Its chains advance over a run of
// positions with the accumulators held in registers; each chain still gets
// its terms in order.
template <int Lanes>
constexpr int tile_size(int x0, int x1) {
    int n = 0;
    for (int x = x0; x < x1; x++) n += x / Lanes + 1;
    return n;
}

template <int Lanes, int X0, int X1>
struct TileMap {
    int x[tile_size<Lanes>(X0, X1)];
    int v[tile_size<Lanes>(X0, X1)];
    constexpr TileMap() : x(), v() {
        int k = 0;
        for (int xx = X0; xx < X1; xx++)
            for (int vv = 0; vv <= xx / Lanes; vv++) x[k] = xx, v[k] = vv, k++;
    }
};

constexpr int kTileChunk = 48;  // positions a pass of all tiles: 48 x 256 bytes of centred samples stay in L1

// Feeds the chains the terms of submatrix rows [i0, i0 + rows): centres the
// strip once (centred_row), then for each chain runs its positions, row by
// row and in order, through every tile (advance<fused>), a chunk at a time.
template <class CentredRow, class Advance>
inline void cov_rows_tiled(const float* img, int stride, int i0, int rows, int sub_w, const double* mean,
                           const exact::CovLayout& l, double* acc, CentredRow centred_row, Advance advance) {
    const size_t positions = static_cast<size_t>(rows) * sub_w;
    const CovScratch scratch = cov_scratch(positions * kCovPad, positions, static_cast<size_t>(sub_w));
    double* const centred = scratch.centred;
    int* const js = scratch.js;
    int* const row_js = scratch.row_js;
    for (int r = 0; r < rows; r++)
        centred_row(img, stride, i0 + r, sub_w, mean, centred + static_cast<size_t>(r) * sub_w * kCovPad);
    for (int s = 0; s < l.chains(); s++) {
        const int per_row = l.columns(s, sub_w, row_js);
        if (per_row == 0) continue;
        int n = 0;
        for (int r = 0; r < rows; r++)
            for (int q = 0; q < per_row; q++) js[n++] = r * sub_w + row_js[q];
        double* a = acc + static_cast<ptrdiff_t>(s) * kCovChainDoubles;
        for (int p0 = 0; p0 < n; p0 += kTileChunk)
            advance(l.fused(s), a, centred, js + p0, std::min(kTileChunk, n - p0));
    }
}

}  // namespace
}  // namespace speedqa::cpu

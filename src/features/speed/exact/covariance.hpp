// The 25 means and the 325 covariances of the shifted submatrices.
//
// The reference sums each covariance in fp64 in one of three orders, picked
// by the CPU it runs on; they give different bits, so each is reproduced
// here as a set of independent accumulation chains:
//   scalar : one chain, row by row: subtract, subtract, multiply, add.
//   avx2   : per row, blocks of 8 columns feed 8 fused lanes (acc0 takes
//            j..j+3, acc1 j+4..j+7), then one block of 4 feeds acc0, then a
//            scalar tail chain (multiply, add) shared by all rows; finished
//            by acc0 + acc1 lane-wise, then lane0 + lane1 + lane2 + lane3 + tail.
//   avx512 : the same with 8-lane accumulators, blocks of 16 and 8, finished
//            by GCC's _mm512_reduce_add_pd tree over acc0 + acc1, plus tail.
// A chain's terms arrive in row-major order of the submatrix, so any
// implementation that feeds each chain its terms in that order is exact.
#pragma once

#include "features/speed/exact/constants.hpp"

namespace speedqa::exact {

enum class CovOrder : int { scalar = 0, avx2 = 1, avx512 = 2 };

inline constexpr int kMaxCovChains = 17;  // avx512: 16 lanes + tail

struct CovLayout {
    int lanes = 0;       // fused lanes (0 for scalar)
    int wide_end = 0;    // columns [0, wide_end) go to lanes j % lanes
    int narrow_end = 0;  // columns [wide_end, narrow_end) go to lanes j - wide_end
    SPEEDQA_HD int chains() const { return lanes + 1; }
    SPEEDQA_HD int tail_chain() const { return lanes; }
    // Which chain column j of a submatrix row of `width` columns feeds.
    SPEEDQA_HD int chain_of(int j) const {
        if (j < wide_end) return j % lanes;
        if (j < narrow_end) return j - wide_end;
        return lanes;
    }
    SPEEDQA_HD bool fused(int chain) const { return chain < lanes; }
    // The chain walk: the columns of a submatrix row of `width` that feed
    // chain s, in order, as runs fn(first, step, count): the chain's lanes of
    // the wide blocks, then its lane of the narrow block (if any), or for
    // the tail chain the columns after the blocks. Every implementation (the
    // CPU's pair-by-pair path and tiles, the device's chain threads) walks
    // the chains through this.
    template <class Fn>
    SPEEDQA_HD void chain_runs(int s, int width, Fn&& fn) const {
        if (lanes == 0) {
            fn(0, 1, width);
        } else if (s < lanes) {
            fn(s, lanes, s < wide_end ? (wide_end - s + lanes - 1) / lanes : 0);
            if (s < lanes / 2 && narrow_end > wide_end) fn(wide_end + s, 1, 1);
        } else {
            fn(narrow_end, 1, width - narrow_end);
        }
    }
    // The same columns written to out; returns how many.
    SPEEDQA_HD int columns(int s, int width, int* out) const {
        int n = 0;
        chain_runs(s, width, [&](int first, int step, int count) {
            for (int q = 0; q < count; q++) out[n++] = first + q * step;
        });
        return n;
    }
};

SPEEDQA_HD CovLayout cov_layout(CovOrder order, int width) {
    CovLayout l;
    if (order == CovOrder::scalar) return l;
    l.lanes = order == CovOrder::avx2 ? 8 : 16;
    const int half = l.lanes / 2;
    l.wide_end = width / l.lanes * l.lanes;
    l.narrow_end = l.wide_end + half <= width ? l.wide_end + half : l.wide_end;
    return l;
}

// One term of a chain. Fused lanes are _mm*_fmadd_pd; the scalar chain and
// the tail are C statements compiled without contraction.
SPEEDQA_HD double cov_term(bool fused, double acc, double cx, double cy) {
    return fused ? ::fma(cx, cy, acc) : acc + cx * cy;
}

// Combine the chains of one covariance into the reference's un-normalised sum.
SPEEDQA_HD double cov_finish(CovOrder order, const double* s) {
    switch (order) {
    case CovOrder::scalar:
        return s[0];
    case CovOrder::avx2: {
        const double t0 = s[0] + s[4], t1 = s[1] + s[5], t2 = s[2] + s[6], t3 = s[3] + s[7];
        return t0 + t1 + t2 + t3 + s[8];
    }
    case CovOrder::avx512:
    default: {
        double a[8];
        for (int l = 0; l < 8; l++) a[l] = s[l] + s[8 + l];
        return ((a[4] + a[0]) + (a[6] + a[2])) + ((a[5] + a[1]) + (a[7] + a[3])) + s[16];
    }
    }
}

// The covariance as stored: the fp64 sum over the count, rounded to float.
SPEEDQA_HD float cov_normalise(double sum, int count) {
    return static_cast<float>(sum / static_cast<double>(count));
}

// A mean as stored: a float sum over the count converted to float.
SPEEDQA_HD float mean_normalise(float sum, int count) { return sum / static_cast<float>(count); }

// Pair p in the reference's loop order: x_index = 0..24, y_index = 0..x_index.
struct CovPair {
    int x, y;
};
SPEEDQA_HD CovPair cov_pair(int p) {
    int x = 0;
    while ((x + 1) * (x + 2) / 2 <= p) x++;
    return {x, p - x * (x + 1) / 2};
}

}  // namespace speedqa::exact

#include "cpu/est_params.hpp"

#include <algorithm>
#include <cmath>

#include "cpu/simd_clones.hpp"

namespace speedqa::cpu {
namespace {

using exact::kBlock;
using exact::kBlockElems;
using exact::kCovPairs;

// Advance all 325 chains of one slot by the terms of one position; `c` holds
// the 25 centred samples (x - mean) of that position.
template <bool Fused>
inline void advance_pairs(double* __restrict acc, const double* __restrict c) {
    int p = 0;
    for (int x = 0; x < kBlockElems; x++) {
        const double cx = c[x];
        double* a = acc + p;
        for (int y = 0; y <= x; y++) a[y] = exact::cov_term(Fused, a[y], cx, c[y]);
        p += x + 1;
    }
}

SPEEDQA_CLONES
void covariance_chains(const float* img, int stride, const float* means, int sub_w, int sub_h,
                       exact::CovLayout layout, double* slots) {
    double mean_d[kBlockElems];
    for (int b = 0; b < kBlockElems; b++) mean_d[b] = means[b];
    alignas(64) double c[kBlockElems];
    for (int i = 0; i < sub_h; i++) {
        const float* rows[kBlock];
        for (int r = 0; r < kBlock; r++) rows[r] = img + static_cast<ptrdiff_t>(i + r) * stride;
        for (int j = 0; j < sub_w; j++) {
            for (int b = 0; b < kBlockElems; b++)
                c[b] = static_cast<double>(rows[b / kBlock][j + b % kBlock]) - mean_d[b];
            const int s = layout.slot(j);
            double* acc = slots + static_cast<ptrdiff_t>(s) * kCovPairs;
            if (layout.fused(s)) advance_pairs<true>(acc, c);
            else advance_pairs<false>(acc, c);
        }
    }
}

SPEEDQA_CLONES
void submatrix_sums(const float* img, int stride, int sub_w, int sub_h, float* sums) {
    float acc[kBlockElems] = {};
    for (int i = 0; i < sub_h; i++) {
        const float* rows[kBlock];
        for (int r = 0; r < kBlock; r++) rows[r] = img + static_cast<ptrdiff_t>(i + r) * stride;
        for (int j = 0; j < sub_w; j++)
            for (int b = 0; b < kBlockElems; b++) acc[b] += rows[b / kBlock][j + b % kBlock];
    }
    for (int b = 0; b < kBlockElems; b++) sums[b] = acc[b];
}

}  // namespace

EstParams::EstParams(const exact::Dimensions& dim, exact::CovOrder order, CovImpl impl)
    : dim_(dim), order_(order), impl_(impl), layout_(exact::cov_layout(order, dim.sub_w)) {
    cov_.resize(kBlockElems * kBlockElems);
    slots_.resize(static_cast<size_t>(layout_.slots()) * kCovPairs);
    const size_t nb = static_cast<size_t>(dim.num_blocks);
    b_.resize(kBlockElems * nb);
    qb_.resize(kBlockElems * nb);
    x_.resize(kBlockElems * nb);
}

void EstParams::compute_means(const float* img, int stride) {
    float sums[kBlockElems];
    submatrix_sums(img, stride, dim_.sub_w, dim_.sub_h, sums);
    for (int b = 0; b < kBlockElems; b++) means_[b] = exact::mean_normalise(sums[b], dim_.sub_count());
}

void EstParams::compute_covariance_all_pairs(const float* img, int stride) {
    std::fill(slots_.begin(), slots_.end(), 0.0);
    covariance_chains(img, stride, means_, dim_.sub_w, dim_.sub_h, layout_, slots_.data());
    double s[exact::kMaxCovSlots];
    int p = 0;
    for (int x = 0; x < kBlockElems; x++)
        for (int y = 0; y <= x; y++, p++) {
            for (int k = 0; k < layout_.slots(); k++) s[k] = slots_[static_cast<size_t>(k) * kCovPairs + p];
            const float v = exact::cov_normalise(exact::cov_finish(order_, s), dim_.sub_count());
            cov_[x * kBlockElems + y] = v;
            cov_[y * kBlockElems + x] = v;
        }
}

void EstParams::compute_covariance_per_pair(const float* img, int stride) {
    for (int x = 0; x < kBlockElems; x++)
        for (int y = 0; y <= x; y++) {
            const double mx = means_[x], my = means_[y];
            const float* px = img + (x / kBlock) * stride + x % kBlock;
            const float* py = img + (y / kBlock) * stride + y % kBlock;
            double s[exact::kMaxCovSlots] = {};
            for (int i = 0; i < dim_.sub_h; i++)
                for (int j = 0; j < dim_.sub_w; j++) {
                    const double vx = px[i * stride + j], vy = py[i * stride + j];
                    const int k = layout_.slot(j);
                    s[k] = exact::cov_term(layout_.fused(k), s[k], vx - mx, vy - my);
                }
            const float v = exact::cov_normalise(exact::cov_finish(order_, s), dim_.sub_count());
            cov_[x * kBlockElems + y] = v;
            cov_[y * kBlockElems + x] = v;
        }
}

void EstParams::solve(ImageStats& out) {
    out.eigen_sweeps = exact::symmetric_eigenvalues(cov_.data(), out.eigenvalues, eigen_scratch_);
    bool regular = true;
    for (float e : out.eigenvalues)
        if (static_cast<double>(e) < exact::kEigenEps) regular = false;

    const int nb = dim_.num_blocks;
    for (int e = 0; e < kBlockElems; e++)
        for (int bi = 0; bi < dim_.blocks_h; bi++)
            for (int bj = 0; bj < dim_.blocks_w; bj++)
                b_[static_cast<size_t>(e) * nb + bi * dim_.blocks_w + bj] =
                    dec_[static_cast<size_t>(kBlock * bi + e / kBlock) * dec_stride_ + kBlock * bj + e % kBlock];

    bool solved = false;
    if (regular) {
        exact::householder_qr(cov_.data(), solve_scratch_);
        exact::matmul(qb_.data(), solve_scratch_.q, b_.data(), kBlockElems, kBlockElems, nb);
        if (exact::pivots_usable(solve_scratch_.r)) {
            exact::back_substitute_rows(solve_scratch_.r, qb_.data(), x_.data(), nb);
            solved = true;
        }
    }
    out.singular = !solved;
    if (!solved) std::fill(x_.begin(), x_.end(), 0.0f);
    out.variances.resize(static_cast<size_t>(nb));
    for (int j = 0; j < nb; j++) out.variances[static_cast<size_t>(j)] = exact::block_variance(x_.data(), b_.data(), nb, j);
}

void EstParams::run(const float* img, int stride, ImageStats& out) {
    dec_ = img;
    dec_stride_ = stride;
    compute_means(img, stride);
    if (impl_ == CovImpl::per_pair) compute_covariance_per_pair(img, stride);
    else compute_covariance_all_pairs(img, stride);
    solve(out);
}

}  // namespace speedqa::cpu

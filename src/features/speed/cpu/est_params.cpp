#include "features/speed/cpu/est_params.hpp"

#include <algorithm>
#include <cmath>

#include "features/speed/cpu/kernels.hpp"
#include "features/speed/cpu/simd_clones.hpp"
#include "features/speed/exact/sequence.hpp"

namespace speedqa::cpu {
namespace {

using exact::kBlock;
using exact::kBlockElems;
using exact::kCovPairs;

// The Householder QR solve of K X = B, its products through the CPU
// kernels (same bits as exact::matmul). Compiled for several instruction
// sets so that back-substitution vectorises across columns.
SPEEDQA_CLONES
bool solve_system(const Kernels& kern, const float* cov, const float* b, float* qb, float* x, int nb,
                  exact::SolveScratch& s) {
    exact::householder_qr(cov, s, kern.matmul);
    kern.matmul(qb, s.q, b, kBlockElems, kBlockElems, nb);
    if (!exact::pivots_usable(s.r)) return false;
    exact::back_substitute_rows(s.r, qb, x, nb);
    return true;
}

}  // namespace

EstParams::EstParams(const exact::Dimensions& dim, exact::CovOrder order, const Kernels* kernels)
    : dim_(dim), order_(order), layout_(exact::cov_layout(order, dim.sub_w)),
      kernels_(kernels ? kernels : &best_kernels()) {
    cov_.resize(kBlockElems * kBlockElems);
    chain_acc_.resize(static_cast<size_t>(layout_.chains()) * kCovChainDoubles);
    const size_t nb = static_cast<size_t>(dim.num_blocks);
    b_.resize(kBlockElems * nb);
    qb_.resize(kBlockElems * nb);
    x_.resize(kBlockElems * nb);
}

size_t EstParams::bytes(const exact::Dimensions& dim, exact::CovOrder order) {
    const size_t chains = static_cast<size_t>(exact::cov_layout(order, dim.sub_w).chains());
    return kBlockElems * kBlockElems * sizeof(float) + chains * kCovChainDoubles * sizeof(double) +
           3 * kBlockElems * static_cast<size_t>(dim.num_blocks) * sizeof(float);
}

void EstParams::compute_means(const float* img, int stride) {
    float sums[kBlockElems] = {};
    for (int i = 0; i < dim_.sub_h; i++) kernels_->sums_row(img, stride, i, dim_.sub_w, sums);
    for (int b = 0; b < kBlockElems; b++) means_[b] = exact::mean_normalise(sums[b], dim_.sub_count());
}

void EstParams::compute_covariance(const float* img, int stride) {
    std::fill(chain_acc_.begin(), chain_acc_.end(), 0.0);
    alignas(64) double mean[kCovPad] = {};
    for (int b = 0; b < kBlockElems; b++) mean[b] = means_[b];
    constexpr int kStrip = 8;  // rows a kernel call: the chains' accumulators stay in registers across them
    for (int i = 0; i < dim_.sub_h; i += kStrip)
        kernels_->cov_rows(img, stride, i, std::min(kStrip, dim_.sub_h - i), dim_.sub_w, mean, layout_, chain_acc_.data());
    double s[exact::kMaxCovChains];
    for (int x = 0; x < kBlockElems; x++)
        for (int y = 0; y <= x; y++) {
            for (int k = 0; k < layout_.chains(); k++) s[k] = chain_acc_[static_cast<size_t>(k) * kCovChainDoubles + x * kCovPad + y];
            sums_[x * kBlockElems + y] = exact::cov_finish(order_, s);
            const float v = exact::cov_normalise(sums_[x * kBlockElems + y], dim_.sub_count());
            cov_[x * kBlockElems + y] = v;
            cov_[y * kBlockElems + x] = v;
        }
}

void EstParams::solve(ImageStats& out) {
    out.eigen_sweeps = exact::symmetric_eigenvalues(cov_.data(), out.eigenvalues, eigen_scratch_);
    const bool regular = exact::eigenvalues_regular(out.eigenvalues);

    const int nb = dim_.num_blocks;
    for (int e = 0; e < kBlockElems; e++)
        for (int j = 0; j < nb; j++)
            b_[static_cast<size_t>(e) * nb + j] = exact::block_sample(dec_, dec_stride_, dim_.blocks_w, e, j);

    const bool solved = regular && solve_system(*kernels_, cov_.data(), b_.data(), qb_.data(), x_.data(), nb, solve_scratch_);
    out.singular = !solved;
    if (!solved) exact::zero_solution(x_.data(), static_cast<int>(x_.size()));
    out.variances.resize(static_cast<size_t>(nb));
    for (int j = 0; j < nb; j++) out.variances[static_cast<size_t>(j)] = exact::block_variance(x_.data(), b_.data(), nb, j);
}

void EstParams::run(const float* img, int stride, ImageStats& out) {
    dec_ = img;
    dec_stride_ = stride;
    compute_means(img, stride);
    compute_covariance(img, stride);
    solve(out);
}

}  // namespace speedqa::cpu

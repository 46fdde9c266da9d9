#include "features/speed/reference/est_params.hpp"

#include "features/speed/exact/sequence.hpp"

namespace speedqa::reference {
namespace {

using exact::kBlock;
using exact::kBlockElems;

}  // namespace

EstParams::EstParams(const exact::Dimensions& dim, exact::CovOrder order)
    : dim_(dim), order_(order), layout_(exact::cov_layout(order, dim.sub_w)) {
    cov_.resize(kBlockElems * kBlockElems);
    const size_t nb = static_cast<size_t>(dim.num_blocks);
    b_.resize(kBlockElems * nb);
    qb_.resize(kBlockElems * nb);
    x_.resize(kBlockElems * nb);
}

size_t EstParams::bytes(const exact::Dimensions& dim, exact::CovOrder) {
    return kBlockElems * kBlockElems * sizeof(float) + 3 * kBlockElems * static_cast<size_t>(dim.num_blocks) * sizeof(float);
}

// Each submatrix's float sum, row by row, then its mean.
void EstParams::compute_means(const float* img, int stride) {
    float sums[kBlockElems] = {};
    for (int i = 0; i < dim_.sub_h; i++)
        for (int b = 0; b < kBlockElems; b++)
            sums[b] = exact::mean_chain_row(sums[b], img + static_cast<ptrdiff_t>(i + b / kBlock) * stride + b % kBlock, dim_.sub_w);
    for (int b = 0; b < kBlockElems; b++) means_[b] = exact::mean_normalise(sums[b], dim_.sub_count());
}

// One pair at a time, the reference statement as written.
void EstParams::compute_covariance(const float* img, int stride) {
    for (int x = 0; x < kBlockElems; x++)
        for (int y = 0; y <= x; y++) {
            const double mx = means_[x], my = means_[y];
            const float* px = img + (x / kBlock) * stride + x % kBlock;
            const float* py = img + (y / kBlock) * stride + y % kBlock;
            double s[exact::kMaxCovChains] = {};
            for (int k = 0; k < layout_.chains(); k++)
                s[k] = exact::cov_chain(layout_, k, dim_.sub_w, dim_.sub_h, [&](int i, int j, double& cx, double& cy) {
                    cx = static_cast<double>(px[i * stride + j]) - mx;
                    cy = static_cast<double>(py[i * stride + j]) - my;
                });
            sums_[x * kBlockElems + y] = exact::cov_finish(order_, s);
            const float v = exact::cov_normalise(sums_[x * kBlockElems + y], dim_.sub_count());
            cov_[x * kBlockElems + y] = v;
            cov_[y * kBlockElems + x] = v;
        }
}

// The Householder QR solve of K X = B, column by column.
void EstParams::solve(const float* img, int stride, ImageStats& out) {
    out.eigen_sweeps = exact::symmetric_eigenvalues(cov_.data(), out.eigenvalues, eigen_scratch_);
    const int nb = dim_.num_blocks;
    for (int e = 0; e < kBlockElems; e++)
        for (int j = 0; j < nb; j++) b_[static_cast<size_t>(e) * nb + j] = exact::block_sample(img, stride, dim_.blocks_w, e, j);
    bool solved = exact::eigenvalues_regular(out.eigenvalues);
    if (solved) {
        exact::householder_qr(cov_.data(), solve_scratch_);
        exact::matmul(qb_.data(), solve_scratch_.q, b_.data(), kBlockElems, kBlockElems, nb);
        for (int j = 0; j < nb && solved; j++)
            solved = exact::back_substitute_column(solve_scratch_.r, qb_.data(), x_.data(), nb, j);
    }
    out.singular = !solved;
    if (!solved) exact::zero_solution(x_.data(), static_cast<int>(x_.size()));
    out.variances.resize(static_cast<size_t>(nb));
    for (int j = 0; j < nb; j++) out.variances[static_cast<size_t>(j)] = exact::block_variance(x_.data(), b_.data(), nb, j);
}

void EstParams::run(const float* img, int stride, ImageStats& out) {
    compute_means(img, stride);
    compute_covariance(img, stride);
    solve(img, stride, out);
}

}  // namespace speedqa::reference

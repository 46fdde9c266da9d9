// est_params as the reference writes it, for the straightforward path: the
// 25 submatrix means, the covariance one pair at a time, the eigenvalues,
// and the Householder QR solve with plain matrix products (exact::matmul).
// No CPU kernel takes part: it is the yardstick cpu/est_params.hpp (all
// pairs at once, through the kernels) is tested against.
#pragma once

#include <vector>

#include "features/speed/exact/covariance.hpp"
#include "features/speed/exact/dimensions.hpp"
#include "features/speed/exact/eigen.hpp"
#include "features/speed/exact/solve.hpp"
#include "features/speed/image_stats.hpp"

namespace speedqa::reference {

class EstParams {
public:
    EstParams(const exact::Dimensions& dim, exact::CovOrder order);

    // The bytes the constructor allocates for these dimensions and order.
    static size_t bytes(const exact::Dimensions& dim, exact::CovOrder order);

    // `img` is the operating-size image, row stride `stride` floats.
    void run(const float* img, int stride, ImageStats& out);

    // Stage outputs of the last run, for tests.
    const float* means() const { return means_; }
    const float* covariance() const { return cov_.data(); }
    // The un-normalised fp64 sum of pair (x, y), y <= x, at [x * 25 + y]:
    // what libvmaf's covariance kernel returns, before the division.
    const double* covariance_sums() const { return sums_; }

private:
    void compute_means(const float* img, int stride);
    void compute_covariance(const float* img, int stride);
    void solve(const float* img, int stride, ImageStats& out);

    exact::Dimensions dim_;
    exact::CovOrder order_;
    exact::CovLayout layout_;
    float means_[exact::kBlockElems] = {};
    double sums_[exact::kBlockElems * exact::kBlockElems] = {};
    std::vector<float> cov_;  // 25 x 25
    std::vector<float> b_;    // 25 x num_blocks block samples
    std::vector<float> qb_;   // Q * B
    std::vector<float> x_;    // solution
    exact::EigenScratch eigen_scratch_;
    exact::SolveScratch solve_scratch_;
};

}  // namespace speedqa::reference

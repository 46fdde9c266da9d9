// est_params on the CPU: from the decimated, mean-subtracted image to the 25
// eigenvalues of its block covariance and one variance per 5x5 block, its
// sums and products through the CPU kernels (all 325 covariance pairs
// advance together). reference/est_params.hpp is the same stage written
// pair by pair, as the reference does, without the kernels.
#pragma once

#include <vector>

#include "features/speed/image_stats.hpp"
#include "features/speed/exact/covariance.hpp"
#include "features/speed/exact/dimensions.hpp"
#include "features/speed/exact/eigen.hpp"
#include "features/speed/exact/solve.hpp"

namespace speedqa::cpu {

using speedqa::ImageStats;

struct Kernels;

class EstParams {
public:
    // kernels: the CPU kernels to use (nullptr: the widest this host runs).
    EstParams(const exact::Dimensions& dim, exact::CovOrder order, const Kernels* kernels = nullptr);

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
    void solve(ImageStats& out);

    const float* dec_ = nullptr;  // image of the current run
    int dec_stride_ = 0;
    exact::Dimensions dim_;
    exact::CovOrder order_;
    exact::CovLayout layout_;
    float means_[exact::kBlockElems] = {};
    double sums_[exact::kBlockElems * exact::kBlockElems] = {};
    std::vector<float> cov_;        // 25 x 25
    std::vector<double> chain_acc_;     // chain accumulators, kernels.hpp's layout
    const struct Kernels* kernels_;
    std::vector<float> b_;          // 25 x num_blocks block samples
    std::vector<float> qb_;         // Q * B
    std::vector<float> x_;          // solution
    exact::EigenScratch eigen_scratch_;
    exact::SolveScratch solve_scratch_;
};

}  // namespace speedqa::cpu

// CAMBI's topk pooling of one scale, with libvmaf's bits but without its
// quickselect where the result does not depend on it.
//
// libvmaf partially sorts the n banding values with a quickselect, then sums
// the k it leaves in front in double, in that order. The sum is the same in
// any order when no partial sum rounds: the values are nonnegative floats of
// at least `smallest`, so all are multiples of the unit of the last place of
// `smallest`, and so is every partial sum; below 2^53 units none rounds.
// Otherwise the order matters, and it is reproduced: in one sweep when
// libvmaf's first pivot is 0 and that pass already settles the front (the
// usual case on large pictures with little banding), else by replaying
// libvmaf's quickselect.
//
// The values come as the banding pass leaves them (kernels.hpp): a bit per
// pixel for the nonzero ones, and those in pixel order.
#pragma once

#include "features/cambi/kernels.hpp"

namespace speedqa::cambi {

// Whether a double sum of nonnegative floats, each at least `smallest`, that
// totals `sum` is the same in every order.
bool order_free(double sum, float smallest);

// libvmaf's mean when its first partition has pivot a[k] = 0 and ends below
// k: the front is then every value of a[0, n - s) with the s zeros found there
// from the left replaced by a[n - 1], a[n - 2], ... (its swaps). False when
// that is not the case.
bool mean_after_zero_pivot(const uint64_t* nonzero, const float* values, long long count, int n, int k, double* mean);

// What a reduction of one scale's values tells without their order (the
// CPU's banding pass and selection, or the device's sums and radix select).
struct ScaleSummary {
    long long count = 0;  // nonzero values
    float smallest = 0;   // the smallest of them (count > 0)
    double sum = 0;       // count <= k: their sum, in any order
    float kth = 0;        // count > k: the k-th largest
    double top_sum = 0;   // count > k: the sum of the k largest, in any order
};

// The topk mean of the k largest values where the summary settles it (no
// order of summation can change it): true and *mean; false where libvmaf's
// order matters (ordered_topk_mean).
bool order_free_mean(const ScaleSummary& summary, int k, double* mean);

// libvmaf's topk mean from the values themselves in its order: n values,
// count of them nonzero (bits and values as the banding pass writes them).
// scratch: n floats.
double ordered_topk_mean(const uint64_t* nonzero, const float* values, int n, long long count, int k, float* scratch);

// The topk mean of the n values (stats.nonzero of them nonzero). scratch: n
// floats.
double topk_mean(const uint64_t* nonzero, const float* values, int n, const BandingStats& stats, double topk,
                 float* scratch);

}  // namespace speedqa::cambi

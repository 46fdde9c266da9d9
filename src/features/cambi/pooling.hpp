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

// The topk mean of the n values (stats.nonzero of them nonzero). scratch: n
// floats.
double topk_mean(const uint64_t* nonzero, const float* values, int n, const BandingStats& stats, double topk,
                 float* scratch);

}  // namespace speedqa::cambi

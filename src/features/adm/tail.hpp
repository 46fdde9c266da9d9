// The float tail of integer ADM, after the integer sums of each scale: the
// per-scale values libvmaf keeps (powf of the sums) and the frame's outputs.
// Shared by the CPU driver (frame.cpp, adm.cpp) and the CUDA part, whose
// device stages end with the same integer sums (cuda/stages.hpp).
#pragma once

#include <cstdint>

#include "features/adm/plan.hpp"

namespace speedqa::adm {

// The integer sums of one scale, per orientation (h, v, d), each the sum of
// its rows' rounded and shifted inner sums: the DLM's and the AIM's contrast
// masking (wrapping int64) and the denominator.
struct ScaleTotals {
    int64_t dlm[3] = {}, aim[3] = {};
    uint64_t den[3] = {};
};

// What libvmaf keeps of each scale: the DLM numerator and denominator and
// the AIM numerator, as floats.
struct ScaleSums {
    float num[4] = {}, den[4] = {}, aim[4] = {};
};

// Scale `scale`'s floats from its sums (not called for scale 0 with
// adm_skip_scale0; finish_frame does that).
void finish_scale(const Plan& plan, int scale, const ScaleTotals& totals, ScaleSums& out);
// Every scale's: with adm_skip_scale0, scale 0 gives den 1e-10f and no numerators.
void finish_frame(const Plan& plan, const ScaleTotals totals[4], ScaleSums& out);
// libvmaf's integer_compute_adm() and extract(), after the per-scale floats:
// the feature's raw values (Feature::raw_count() of them).
void assemble(const Plan& plan, const ScaleSums& sums, double* raw);

}  // namespace speedqa::adm

// A configured integer VIF feature: its plan (shared by the CPU kernel and
// the device part, cuda/), and the per-frame raw values both write from the
// four scales' sums.
#pragma once

#include <memory>

#include "core/feature.hpp"
#include "features/vif/exact/vif_exact.hpp"
#include "features/vif/vif_plan.hpp"

namespace speedqa::vif {

class VifFeature final : public Feature {
public:
    VifFeature(const OptionValues& options, Plan plan);

    const Plan& plan() const { return *plan_; }

    PlanesRead planes_read() const override { return {1, 1, 0, 0}; }  // the lumas

    // the reference's scalar, AVX2 and AVX-512 VIF give the same integers, so
    // every dispatch is served by the same kernels
    CpuTarget kernel_target(const CpuTarget& t) const override { return {t.isa, Dispatch::scalar, t.straightforward}; }
    std::unique_ptr<CpuKernel> make_cpu_kernel(const CpuTarget& target) const override;

private:
    std::shared_ptr<const Plan> plan_;
};

// write_scores of integer_vif.c: a frame's raw values (the feature's
// raw_count()) from the sums of its four scales (scale 0's unused when
// skipped): float num / den per scale; the debug sums in double.
void write_outputs(const Plan& p, const exact::vif::Sums* sums, double* raw);

}  // namespace speedqa::vif

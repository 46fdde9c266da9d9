// The CAMBI feature object (what cambi_feature()'s factory makes), declared
// for the module's engine parts, which read its plan.
#pragma once

#include <memory>
#include <vector>

#include "core/feature.hpp"
#include "features/cambi/plan.hpp"

namespace speedqa::cambi {

class CambiFeature final : public Feature {
public:
    CambiFeature(const OptionValues& options, Plan plan);

    const Plan& plan() const { return *plan_; }

    // the distorted luma, and the reference's with full_ref
    PlanesRead planes_read() const override { return {plan_->full_ref ? 1u : 0u, 1, 0, 0}; }

    // libvmaf's scalar and AVX2 CAMBI give the same values: the dispatch
    // changes nothing here.
    CpuTarget kernel_target(const CpuTarget& t) const override { return {t.isa, Dispatch::scalar, t.straightforward}; }
    std::unique_ptr<CpuKernel> make_cpu_kernel(const CpuTarget& target) const override;

private:
    static std::vector<FeatureOutput> outputs(const OptionValues& options, bool full_ref);
    std::shared_ptr<const Plan> plan_;
};

}  // namespace speedqa::cambi

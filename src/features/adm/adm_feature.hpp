// A configured integer ADM feature: its format and options, from which each
// libvmaf dispatch's plan is made (the CPU kernels here and the CUDA part,
// cuda/part.hpp).
#pragma once

#include <memory>

#include "core/feature.hpp"
#include "features/adm/plan.hpp"

namespace speedqa {

class AdmFeature final : public Feature {
public:
    AdmFeature(const OptionValues& options, const VideoFormat& format, const adm::Options& opt);

    const VideoFormat& format() const { return format_; }
    const adm::Options& adm_options() const { return opt_; }

    PlanesRead planes_read() const override { return {1, 1, 0, 0}; }  // the lumas
    std::unique_ptr<CpuKernel> make_cpu_kernel(const CpuTarget& target) const override;

private:
    VideoFormat format_;
    adm::Options opt_;
};

}  // namespace speedqa

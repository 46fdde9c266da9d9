// A configured SpEED feature: its spec and plan (shared by the CPU kernel,
// which speed.cpp builds, and the CUDA engine's speed kernels).
#pragma once

#include "core/feature.hpp"
#include "features/speed/plan.hpp"
#include "features/speed/speed_options.hpp"

namespace speedqa {

class SpeedFeature final : public Feature {
public:
    SpeedFeature(const VideoFormat& format, SpeedKind kind, const OptionValues& options);

    const VideoFormat& format() const { return format_; }
    const SpeedSpec& spec() const { return spec_; }
    const ImagePlan& plan() const { return plan_; }

    // speed_temporal compares each frame with the one before it.
    int history() const override { return spec_.kind == SpeedKind::temporal ? 1 : 0; }
    // speed_chroma: the chroma planes; speed_temporal: the lumas, of these
    // frames and the ones before
    PlanesRead planes_read() const override {
        if (spec_.kind == SpeedKind::chroma) return {6, 6, 0, 0};
        return {1, 1, 1, 1};
    }
    // those planes' rows the anti-alias filter reads at the kept points (or
    // that the prescale's interpolation reads for them)
    InputNeeds input_needs() const override;
    std::unique_ptr<CpuKernel> make_cpu_kernel(const CpuTarget& target) const override;

private:
    VideoFormat format_;
    SpeedSpec spec_;
    ImagePlan plan_;
};

}  // namespace speedqa

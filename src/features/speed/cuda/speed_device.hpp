// speed_chroma and speed_temporal on the GPU, as the CUDA engine sees them
// (no CUDA headers here).
#pragma once

#include <memory>

#include "core/feature.hpp"

namespace speedqa::cuda {
class DeviceFeature;
}

namespace speedqa {

class SpeedFeature;

// The device part of a SpEED feature, reproducing libvmaf's `dispatch`;
// nullptr for a feature that is not SpEED. Call with the device selected.
std::unique_ptr<cuda::DeviceFeature> make_speed_device_feature(const Feature& feature, Dispatch dispatch);
bool is_speed_feature(const Feature& feature);

}  // namespace speedqa

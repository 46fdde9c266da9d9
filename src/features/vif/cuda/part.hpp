// integer VIF on the GPU: the CUDA engine's part of a vif feature (no CUDA
// headers here; src/features/registry.cpp lists it).
#pragma once

#include <memory>

#include "core/engine_part.hpp"

namespace speedqa::vif {

// A cuda::DeviceFeature: the four scales' sums on the device
// (cuda/stages.hpp), the scores on the host. Call with the device selected.
std::unique_ptr<EnginePart> make_cuda_part(const Feature& feature, const PartContext& context);

}  // namespace speedqa::vif

// integer motion on the GPU: the CUDA engine's part of a motion feature (no
// CUDA headers here; src/features/registry.cpp lists it).
#pragma once

#include <memory>

#include "core/engine_part.hpp"

namespace speedqa::motion {

// A cuda::DeviceFeature: the per-frame sums on the device (cuda/stages.hpp),
// the raw value on the host. Call with the device selected.
std::unique_ptr<EnginePart> make_cuda_part(const Feature& feature, const PartContext& context);

}  // namespace speedqa::motion

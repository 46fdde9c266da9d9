// speed_chroma and speed_temporal on the GPU: the CUDA engine's part of a
// SpEED feature (no CUDA headers here; src/features/registry.cpp lists it).
#pragma once

#include "core/engine_part.hpp"

namespace speedqa::speed {

// A cuda::DeviceFeature reproducing the context's libvmaf dispatch (the
// covariance order). Call with the device selected.
std::unique_ptr<EnginePart> make_cuda_part(const Feature& feature, const PartContext& context);

}  // namespace speedqa::speed

// Integer ADM on the GPU: the CUDA engine's part of the feature (no CUDA
// headers here; src/features/registry.cpp lists it).
#pragma once

#include <memory>

#include "core/engine_part.hpp"

namespace speedqa::adm {

// A cuda::DeviceFeature giving the context's libvmaf dispatch's values.
// Call with the device selected.
std::unique_ptr<EnginePart> make_cuda_part(const Feature& feature, const PartContext& context);

}  // namespace speedqa::adm

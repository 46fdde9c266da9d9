// CAMBI on the GPU: the CUDA engine's part of the cambi feature (no CUDA
// headers here; src/features/registry.cpp lists it).
#pragma once

#include "core/engine_part.hpp"

namespace speedqa::cambi {

// A cuda::DeviceFeature computing CAMBI's raw values (the dispatch changes
// nothing: libvmaf's CAMBI kernels agree). Call with the device selected.
std::unique_ptr<EnginePart> make_cuda_part(const Feature& feature, const PartContext& context);

}  // namespace speedqa::cambi

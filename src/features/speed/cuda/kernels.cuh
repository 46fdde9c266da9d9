// Launchers for the per-feature kernel chain of one batch. Every launch is
// asynchronous on `stream` and safe to capture into a CUDA graph.
#pragma once

#include <cuda_runtime.h>

#include "cuda/device_feature.cuh"
#include "features/speed/cuda/device_types.cuh"

namespace speedqa::cuda {


// All stages of one feature for `work.images` images, from the batch input
// buffer to work.out (eigenvalues, block variances, flags per image).
void launch_feature_chain(const DevicePlan& plan, const InputLayout& layout, const uint8_t* input,
                          const DeviceWork& work, cudaStream_t stream, StageTimer* timer = nullptr);

}  // namespace speedqa::cuda

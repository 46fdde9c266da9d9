// The CUDA engine's public face (no CUDA headers): build one, or ask whether
// a device is there.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/engine.hpp"

namespace speedqa::cuda {

struct CudaEngineConfig {
    exact::CovOrder order = exact::CovOrder::scalar;
    int batch = 0;         // frames per graph replay; 0 = pick from the geometry
    int host_threads = 1;  // threads for staging uploads and the log2 tail
    int lanes = 3;         // batches in flight: one staged on the host while two upload or compute
    int device = 0;
};

// True when a CUDA device is usable; otherwise `why` says what is missing.
bool device_present(std::string* why);

std::unique_ptr<Engine> make_cuda_engine(const VideoFormat& format, const std::vector<FeatureSpec>& features,
                                         const CudaEngineConfig& config);

}  // namespace speedqa::cuda

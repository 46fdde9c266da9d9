// The CUDA engine's public face (no CUDA headers): build one, or ask whether
// a device is there.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/engine.hpp"

namespace speedqa::cuda {

struct CudaEngineConfig {
    Dispatch dispatch = Dispatch::scalar;  // libvmaf's, whose values are reproduced
    int batch = 0;         // frames per graph replay; 0 = pick from the geometry
    int host_threads = 1;  // threads for staging uploads and the log2 tail
    int lanes = 3;         // batches in flight: one staged on the host while two upload or compute
    int device = 0;
};

// True when a CUDA device is usable; otherwise `why` says what is missing.
bool device_present(std::string* why);

// Whether the engine has device kernels for the feature.
bool has_device_kernels(const Feature& feature);

// The engine and what it can say beyond the generic interface.
class CudaEngine : public Engine {
public:
    // Batches whose rows went to the device straight from page-locked frames
    // (Picture::page_locked), skipping the engine's staging.
    virtual long long batches_copied_directly() const = 0;
    // Bytes of samples the engine moves to its device per frame.
    virtual double upload_bytes_per_frame() const = 0;
};

// Throws Error for a feature without device kernels.
std::unique_ptr<CudaEngine> make_cuda_engine(const VideoFormat& format, const std::vector<const Feature*>& features,
                                             const CudaEngineConfig& config);

}  // namespace speedqa::cuda

// The CUDA engine's public face (no CUDA headers). Per batch of frames: one
// upload of the rows the features read, one replayed CUDA graph running
// every feature's kernels and read-backs, and the host tails of the
// features. Queues (each a stream with its buffers and graphs) let batch
// n + 1 be staged and uploaded while batch n computes and the tail of batch
// n - 1 runs on the host.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/engine.hpp"

#include "core/engine_part.hpp"

namespace speedqa::cuda {

struct CudaEngineConfig {
    int batch = 0;         // frames per graph replay; 0 = picked from the bytes a frame uploads
    int host_threads = 1;  // threads for staging and the host tails
    int queues = 3;        // batches in flight: one staged on the host while two upload or compute
    int device = 0;
};

// True when a CUDA device is usable; otherwise `why` says plainly what is
// missing (no GPU, no driver, a driver too old for this build).
bool device_present(std::string* why);
// CUDA devices (0 where none is usable).
int device_count();

class CudaEngine : public Engine {
public:
    // Batches whose rows went to the device straight from page-locked frames
    // (Picture::page_locked), skipping the engine's staging.
    virtual long long batches_copied_directly() const = 0;
    // Bytes of samples the engine moves to its device per frame.
    virtual double upload_bytes_per_frame() const = 0;
};

// Makes the device part of one feature (a cuda::DeviceFeature); called in
// the engine's constructor once the device is selected.
using DeviceFeatureMaker = std::function<std::unique_ptr<EnginePart>()>;

// One maker per feature, in the order of the engine's raw values; `needs`:
// what the features read, together (input_needs_of).
std::unique_ptr<CudaEngine> make_cuda_engine(const VideoFormat& format, const InputNeeds& needs,
                                             const std::vector<DeviceFeatureMaker>& features,
                                             const CudaEngineConfig& config);

}  // namespace speedqa::cuda

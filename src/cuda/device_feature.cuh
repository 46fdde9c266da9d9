// A feature's device part, as the CUDA engine sees it (the runner knows
// features only through this and core/feature.hpp): its device buffers for a
// batch, its kernels (launched on a stream, capturable into a graph, ending
// with the read-back of its results into pinned host memory), and the host
// tail that turns those results into each frame's raw values. What it reads
// of the frames is the feature's Feature::input_needs(); the engine uploads
// that once for all features (core/input_plan.hpp) and hands every part the
// same input.
//
// A feature module makes its part in src/features/<name>/cuda/ (a
// PartMaker, core/engine_part.hpp, listed in src/features/registry.cpp).
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "core/engine_part.hpp"
#include "core/input_layout.hpp"

namespace speedqa::cuda {

// Optional per-stage timing (SPEEDQA_CUDA_STAGES=1, outside graphs): an event
// is recorded after each stage under its name.
struct StageTimer {
    virtual ~StageTimer() = default;
    virtual void mark(const char* stage, cudaStream_t stream) = 0;
};

// A feature's buffers for one queue of batches (device scratch, pinned results).
class QueueWork {
public:
    virtual ~QueueWork() = default;
};

// Per host thread scratch of the tail.
class TailScratch {
public:
    virtual ~TailScratch() = default;
};

class DeviceFeature : public EnginePart {
public:
    // Raw values per frame (the feature's Feature::raw_count()).
    virtual int raw_count() const = 0;
    // Device bytes make_queue_work(frames) takes (the engine sizes its
    // batches by them before it allocates anything).
    virtual size_t device_bytes(int frames) const = 0;
    // Buffers for batches of up to `frames` frames.
    virtual std::unique_ptr<QueueWork> make_queue_work(int frames) const = 0;
    // The kernels for `frames` frames of `input` (frame k of the batch at
    // position layout.position(k); the frames before it, where the feature
    // reads them, at layout.position(k, distance)) and the read-back of
    // their results, all asynchronous on `stream`. Captured once into a
    // graph per batch size and replayed: nothing that changes from batch to
    // batch may be baked in (no frame indices).
    virtual void launch(QueueWork& work, const InputLayout& layout, const unsigned char* input, int frames,
                        cudaStream_t stream, StageTimer* timer) const = 0;
    virtual std::unique_ptr<TailScratch> make_tail_scratch() const = 0;
    // Frame k of the batch (clip index `index`), once its read-back is done:
    // its raw values (Feature::raw_count() of them). Thread-safe for
    // different frames, each thread with its own scratch. It may throw Error
    // (a sample out of range, say). Device buffers of `work` still hold the
    // batch's results: a tail may copy more from them where a frame needs
    // it (synchronously).
    virtual void tail(const QueueWork& work, TailScratch& scratch, long long index, int k, double* raw) const = 0;
    // Lines for the user once the clip is done (warnings).
    virtual std::vector<std::string> notes() const { return {}; }
};

}  // namespace speedqa::cuda

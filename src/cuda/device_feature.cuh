// A feature's device part, as the CUDA engine sees it (the runner knows
// features only through this): which rows of which planes it reads, its
// device buffers for a batch, its kernels (launched on a stream, capturable
// into a graph, ending with the read-back of its results into pinned host
// memory), and the host tail that turns those results into each frame's raw
// values.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cuda/input_layout.cuh"

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

class DeviceFeature {
public:
    virtual ~DeviceFeature() = default;
    // Source rows of each plane (0 Y, 1 U, 2 V) the kernels read, on both sides.
    virtual void rows_read(std::set<int> rows[3]) const = 0;
    // The planes of the frame before each one that the kernels read (frame
    // position 0 for the first of a batch), as bits 1 << plane; 0 for none.
    virtual unsigned previous_frame_planes() const = 0;
    // Raw values per frame (the feature's Feature::raw_count()).
    virtual int raw_count() const = 0;
    // Buffers for batches of up to `frames` frames.
    virtual std::unique_ptr<QueueWork> make_queue_work(int frames) const = 0;
    // The kernels for `frames` frames of `input` and the read-back of their
    // results, all asynchronous on `stream`.
    virtual void launch(QueueWork& work, const InputLayout& layout, const unsigned char* input, int frames,
                        cudaStream_t stream, StageTimer* timer) const = 0;
    virtual std::unique_ptr<TailScratch> make_tail_scratch() const = 0;
    // Frame k of the batch (clip index `index`), once its read-back is done:
    // its raw values (Feature::raw_count() of them). Thread-safe for
    // different frames, each thread with its own scratch.
    virtual void tail(const QueueWork& work, TailScratch& scratch, long long index, int k, double* raw) const = 0;
    // Lines for the user once the clip is done (warnings).
    virtual std::vector<std::string> notes() const { return {}; }
};

}  // namespace speedqa::cuda

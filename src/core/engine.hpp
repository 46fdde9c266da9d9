// An engine turns batches of frames into per-frame scores for a fixed video
// format and list of features. Both the CPU and the CUDA engine implement it
// and give the same bits.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/options.hpp"
#include "core/video.hpp"
#include "exact/covariance.hpp"

namespace speedqa {

// Frames [first_index, first_index + count) of ref and dis. speed_temporal
// needs the frame before each one: within the batch it is the previous
// element; for the first it is `prev_ref` / `prev_dis` (required when
// first_index > 0).
struct FrameBatch {
    const Picture* ref = nullptr;
    const Picture* dis = nullptr;
    int count = 0;
    int first_index = 0;
    const Picture* prev_ref = nullptr;
    const Picture* prev_dis = nullptr;
};

class Engine {
public:
    virtual ~Engine() = default;
    // Scores for each frame of the batch: out[frame * metric_count + metric],
    // metrics in the order of the feature list (chroma: u, v, uv).
    virtual void score(const FrameBatch& batch, double* out) = 0;
    virtual std::string describe() const = 0;
    // Images whose eigenvalue iteration stopped at 500 sweeps (the reference
    // warns "possible non-convergence"), and singular covariances, so far.
    virtual long long unconverged_images() const { return 0; }
    virtual long long singular_images() const { return 0; }
    // Frames a score() call should carry to keep the engine busy.
    virtual int preferred_batch() const { return 16; }
    // How many frames the caller will score in all, when it knows (-1: it
    // does not); lets `auto` judge whether a device start pays.
    virtual void expect_frames(long long frames) { (void)frames; }
    // A device engine is still being started in the background (auto backend):
    // destroying this engine waits for that start to finish.
    virtual bool device_start_pending() const { return false; }
    // The engine holds a GPU (context, pinned memory), whose release at exit
    // costs tens of milliseconds.
    virtual bool holds_device() const { return false; }
    // Batches whose rows went to the device straight from page-locked frames
    // (Picture::page_locked), skipping the engine's staging (CUDA only).
    virtual long long batches_copied_directly() const { return 0; }
    // Bytes of samples the engine moves to its device per frame (0 on the CPU).
    virtual double upload_bytes_per_frame() const { return 0; }
};

int metric_count(const std::vector<FeatureSpec>& features);

// The covariance order the reference picks on this CPU: the widest it has,
// narrowed by libvmaf's --cpumask bits (8: no AVX2, 16: no AVX-512).
exact::CovOrder covariance_order_for_cpu(unsigned cpumask);
const char* cov_order_name(exact::CovOrder o);

}  // namespace speedqa

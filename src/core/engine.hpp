// An engine turns batches of frames into each frame's raw feature values for
// a fixed video format and list of features: the CPU engine (src/cpu) and
// the CUDA engine (src/cuda) implement it and give the same bits. Engines
// know features only through core/feature.hpp; the sequencers and models
// that follow are the API layer's (src/api).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/feature.hpp"
#include "core/video.hpp"

namespace speedqa {

// Frames [first_index, first_index + count) of ref and dis, and the frames
// before the first one, for features that read history: prev_ref[0] is frame
// first_index - 1, prev_ref[1] frame first_index - 2 (nullptr where the clip
// has none).
struct FrameBatch {
    const Picture* ref = nullptr;
    const Picture* dis = nullptr;
    int count = 0;
    long long first_index = 0;
    const Picture* prev_ref[2] = {nullptr, nullptr};
    const Picture* prev_dis[2] = {nullptr, nullptr};

    // The view of frame k of the batch, with `history` previous frames.
    FrameView view(int k, int history) const;
};

// Where each feature's raw values sit in a frame's row of raw values.
struct RawLayout {
    std::vector<int> offset;  // per feature
    int stride = 0;           // values per frame
    explicit RawLayout(const std::vector<const Feature*>& features);
};

class Engine {
public:
    virtual ~Engine() = default;
    // Raw values of each frame of the batch: out[frame * stride + offset[f] + i]
    // (RawLayout of the engine's features).
    virtual void score(const FrameBatch& batch, double* out) = 0;
    // Which engine, in words.
    virtual std::string describe() const = 0;
    // Lines for the user once the clip is done (warnings of the kernels).
    virtual std::vector<std::string> notes() const { return {}; }
    // Frames a score() call should carry to keep the engine busy.
    virtual int preferred_batch() const { return 16; }
    // How many frames the caller will score in all, when it knows; lets a
    // hybrid engine judge whether a device start pays.
    virtual void expect_frames(long long frames) { (void)frames; }
    // A device engine is still being started in the background: destroying
    // this engine waits for that start to finish.
    virtual bool device_start_pending() const { return false; }
    // The engine holds a GPU (context, pinned memory), whose release at exit
    // costs tens of milliseconds.
    virtual bool holds_device() const { return false; }
};

// Throws Error when a batch that starts after frame 0 lacks the previous
// frames a feature reads.
void check_history(const FrameBatch& batch, const std::vector<const Feature*>& features);

}  // namespace speedqa

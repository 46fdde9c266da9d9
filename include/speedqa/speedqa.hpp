// speedqa: Netflix libvmaf's features and VMAF models, computed exactly as
// libvmaf computes them, on the CPU or on an NVIDIA GPU.
//
//   speedqa::ScorerOptions o;
//   o.models = {"version=vmaf_v0.6.1"};
//   speedqa::Scorer scorer({1920, 1080, speedqa::PixelFormat::yuv420, 10}, {"speed_chroma"}, o);
//   for each frame:  for (const speedqa::FrameScores& f : scorer.push(ref_picture, dis_picture)) use(f);
//   at the end:      for (const speedqa::FrameScores& f : scorer.flush()) use(f);
//   scorer.metric_names()  -> {"integer_adm2", ..., "speed_chroma_u", ..., "vmaf"}
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "speedqa/error.hpp"
#include "speedqa/video.hpp"

namespace speedqa {

// The most threads a Scorer takes (each holds a frame's working memory).
inline constexpr int max_threads = 256;

struct ScorerOptions {
    std::string backend = "cpu";  // one of backends(): "cpu", "cuda", "auto" ("cpu-reference": the straightforward path)
    int threads = 0;              // 0: the CPU engine 1 thread (as vmaf), CUDA and auto every core; at most max_threads
    unsigned cpumask = 0;         // libvmaf's --cpumask: 8 disables AVX2, 16 AVX-512 (picks the dispatch)
    std::string dispatch;         // "", or force libvmaf's "scalar", "avx2" or "avx512" dispatch values
    int batch = 0;                // frames per device batch; 0 = the engine's choice
    int device = 0;               // the GPU of "cuda" and "auto", by its index (0 .. gpu_count() - 1)
    // VMAF models, as vmaf's --model takes them: "version=vmaf_v0.6.1",
    // "path=model.json:name=my_vmaf", ... (none: features only).
    std::vector<std::string> models;
    // Folders that `version=NAME` searches for NAME.json, before
    // $SPEEDQA_MODEL_DIR and the installed model folder.
    std::vector<std::string> model_dirs;
};

// The values of one frame, in metric_names() order.
struct FrameScores {
    long long index = 0;
    std::vector<double> values;
};

// PreviousFrames (speedqa/video.hpp): the pictures before a batch, where the
// caller still holds them.

class Scorer {
public:
    // features: libvmaf --feature strings ("adm", "speed_chroma=speed_max_val=45").
    // Throws Error (one line) for an unknown feature or option, a bad value,
    // a format a feature cannot score, a model that cannot be read.
    Scorer(const VideoFormat& format, const std::vector<std::string>& features, const ScorerOptions& options = {});
    ~Scorer();
    Scorer(Scorer&&) noexcept;
    Scorer& operator=(Scorer&&) noexcept;

    // Every value of a frame, named as libvmaf prints them, in libvmaf's order.
    const std::vector<std::string>& metric_names() const;
    // Which backend runs, in words.
    std::string backend_description() const;
    // Why that backend, where the choice was the library's (backend "auto"); else "".
    const std::string& backend_choice() const;

    // The next frame pair. Returns the frames whose values are now final, in
    // order: usually this one; features that compare a frame with the next
    // (motion) hold it back until then, or until flush().
    std::vector<FrameScores> push(const Picture& ref, const Picture& dis);
    // `count` consecutive pairs at once (faster: frames run in parallel);
    // appends the frames now final to `done`.
    void push_batch(const Picture* ref, const Picture* dis, int count, std::vector<FrameScores>& done,
                    const PreviousFrames* previous = nullptr);
    // The clip has ended: the frames held back.
    std::vector<FrameScores> flush();

    // Frames one push_batch should carry to keep the engine busy.
    int preferred_batch() const;
    // The frames before and after a range of a clip that a run must push for
    // the range's frames to get the values a run of the whole clip gives
    // them (temporal features' warm-up, motion2's next frame): push from
    // `before` frames ahead of the range's first frame (or the clip's start)
    // to `after` frames past its last (or the clip's end), and keep the
    // range's frames.
    struct FrameContext {
        int before = 0, after = 0;
    };
    FrameContext frame_context() const;
    // The caller knows how many frames it will push (lets `auto` judge
    // whether starting a GPU pays).
    void expect_frames(long long frames);
    // A GPU is held, or still starting (its release at exit is slow).
    bool holds_device() const;
    // Warnings for the user once the clip is done.
    std::vector<std::string> notes() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Every feature speedqa computes, as --feature names them.
std::vector<std::string> feature_names();

// Every backend ScorerOptions::backend takes, and a line on each.
struct BackendInfo {
    std::string name, summary;
};
std::vector<BackendInfo> backends();

// The CUDA GPUs this process can use (0 without a driver or a CUDA engine).
int gpu_count();

const char* version();

}  // namespace speedqa

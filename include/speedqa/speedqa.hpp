// speedqa: the SpEED-QA features of Netflix libvmaf (speed_chroma and
// speed_temporal), computed exactly as libvmaf computes them, on the CPU or
// on an NVIDIA GPU.
//
//   speedqa::Scorer scorer({1920, 1080, speedqa::PixelFormat::yuv420, 10},
//                          {"speed_chroma", "speed_temporal=speed_use_ref_diff=true"});
//   for each frame:  std::vector<double> s = scorer.push(ref_picture, dis_picture);
//   scorer.metric_names()  -> {"speed_chroma_u", "speed_chroma_v", "speed_chroma_uv", "speed_temporal_urd"}
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "speedqa/video.hpp"

namespace speedqa {

struct ScorerOptions {
    std::string backend = "cpu";  // "cpu", "cuda" or "auto"
    int threads = 1;              // CPU: frames in parallel
    unsigned cpumask = 0;         // libvmaf's --cpumask: 8 disables AVX2, 16 AVX-512 (picks the covariance order)
    std::string cov_order;        // "", or force "scalar", "avx2", "avx512"
    int batch = 0;                // frames per engine call; 0 = the backend's choice
};

// Thrown for bad input or options; what() is one line naming the problem.
class Error;  // speedqa/error.hpp

class Scorer {
public:
    // features: "speed_chroma" or "speed_temporal", optionally with
    // "=option=value:option=value" as libvmaf's --feature takes them.
    Scorer(const VideoFormat& format, const std::vector<std::string>& features, const ScorerOptions& options = {});
    ~Scorer();
    Scorer(Scorer&&) noexcept;
    Scorer& operator=(Scorer&&) noexcept;

    const std::vector<std::string>& metric_names() const;
    // Which backend runs, in words.
    std::string backend_description() const;

    // Scores of the next frame pair (speed_temporal compares it with the
    // previous pair; the Scorer keeps what it needs of that one).
    std::vector<double> push(const Picture& ref, const Picture& dis);

    // Scores of `count` consecutive pairs at once (faster: frames run in
    // parallel); out[frame * metric_count + metric].
    void push_batch(const Picture* ref, const Picture* dis, int count, double* out);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

const char* version();

}  // namespace speedqa

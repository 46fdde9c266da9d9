// Picking and building an engine for a backend name.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/engine.hpp"

namespace speedqa {

struct EngineChoice {
    std::string backend = "cpu";  // cpu, cuda, auto; cpu-reference = the straightforward full-frame path
    int threads = 0;              // 0: the CPU engine 1 (vmaf's default); CUDA and auto: every core
    unsigned cpumask = 0;
    std::string cov_order;        // "" = as the reference would pick on this CPU
    int batch = 0;                // CUDA: frames per graph replay (0 = default)
};

exact::CovOrder resolve_cov_order(const EngineChoice& c);

// Throws Error when the backend is unknown or unavailable (no CUDA device,
// or a build without the CUDA engine). `note` receives a line saying what
// was chosen and why (for --backend auto).
std::unique_ptr<Engine> make_engine(const VideoFormat& format, const std::vector<FeatureSpec>& features,
                                    const EngineChoice& choice, std::string* note = nullptr);

// Whether the CUDA engine can run here; `why` says why not.
bool cuda_available(std::string* why);

}  // namespace speedqa

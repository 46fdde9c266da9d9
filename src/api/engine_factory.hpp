// Picking and building an engine for a backend name (the engine-choice
// policy, `auto` included, lives here, above the engines).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/engine.hpp"

namespace speedqa {

struct EngineChoice {
    std::string backend = "cpu";  // cpu, cuda, auto; cpu-reference = the straightforward path
    int threads = 0;              // 0: the CPU engine 1 (vmaf's default); CUDA and auto: every core
    unsigned cpumask = 0;
    std::string dispatch;         // "" = as libvmaf would pick on this CPU under cpumask
    int batch = 0;                // CUDA: frames per graph replay (0 = default)
    int device = 0;               // CUDA: the GPU (its index)
};

// The libvmaf dispatch whose values the engines reproduce.
Dispatch resolve_dispatch(const EngineChoice& c);

// Throws Error when the backend is unknown or unavailable (no CUDA device, a
// build without the CUDA engine, a feature without CUDA kernels). `note`
// receives a line saying what was chosen and why (for --backend auto).
std::unique_ptr<Engine> make_engine(const VideoFormat& format, const std::vector<const Feature*>& features,
                                    const EngineChoice& choice, std::string* note = nullptr);

// Whether the CUDA engine can run here; `why` says why not.
bool cuda_available(std::string* why);
// How many GPUs the CUDA engine can use here.
int cuda_devices();

}  // namespace speedqa

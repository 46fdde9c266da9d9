#include "api/engine_factory.hpp"

#include <algorithm>
#include <thread>

#include "api/hybrid_engine.hpp"
#include "core/cpu_flags.hpp"
#include "core/error.hpp"
#include "cpu/cpu_engine.hpp"
#ifdef SPEEDQA_HAVE_CUDA
#include "cuda/cuda_engine.hpp"
#include "cuda/device_feature.cuh"
#include "features/speed/cuda/speed_device.hpp"
#endif

namespace speedqa {

Dispatch resolve_dispatch(const EngineChoice& c) {
    if (c.dispatch.empty()) return libvmaf_dispatch(c.cpumask);
    if (c.dispatch == "scalar") return Dispatch::scalar;
    if (c.dispatch == "avx2") return Dispatch::avx2;
    if (c.dispatch == "avx512") return Dispatch::avx512;
    throw Error("unknown dispatch \"" + c.dispatch + "\" (expected scalar, avx2 or avx512)");
}

bool cuda_available(std::string* why) {
#ifdef SPEEDQA_HAVE_CUDA
    return cuda::device_present(why);
#else
    if (why) *why = "this build of speedqa has no CUDA engine (built without nvcc)";
    return false;
#endif
}

namespace {

int all_cores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

std::unique_ptr<Engine> make_cpu_engine(const VideoFormat& format, const std::vector<const Feature*>& features,
                                        const EngineChoice& c, int threads, bool straightforward) {
    CpuTarget t;
    // the straightforward path: SpEED's full-frame pipeline, every other
    // feature's C reference kernels
    t.isa = straightforward ? Isa::c : host_isa(c.cpumask);
    t.dispatch = resolve_dispatch(c);
    t.straightforward = straightforward;
    return std::make_unique<cpu::CpuEngine>(format, features, t, threads);
}

// The features the CUDA engine cannot run, by name ("" if none).
std::string without_cuda_kernels(const std::vector<const Feature*>& features) {
    std::string names;
    for (const Feature* f : features) {
#ifdef SPEEDQA_HAVE_CUDA
        if (is_speed_feature(*f)) continue;
#endif
        if (names.find(f->name()) == std::string::npos) names += (names.empty() ? "" : ", ") + f->name();
    }
    return names;
}

std::unique_ptr<Engine> make_cuda_engine(const VideoFormat& format, const std::vector<const Feature*>& features,
                                         const EngineChoice& c, const std::string& context) {
    std::string why;
    if (!cuda_available(&why)) throw Error(context + why);
#ifdef SPEEDQA_HAVE_CUDA
    cuda::CudaEngineConfig cfg;
    cfg.batch = c.batch;
    // staging and the host tails: every core unless told otherwise
    cfg.host_threads = c.threads > 0 ? c.threads : all_cores();
    const Dispatch dispatch = resolve_dispatch(c);
    std::vector<cuda::DeviceFeatureMaker> makers;
    for (const Feature* f : features) {
        if (!is_speed_feature(*f)) throw Error(context + "the CUDA engine has no kernels for " + f->name());
        makers.push_back([f, dispatch] { return make_speed_device_feature(*f, dispatch); });
    }
    return cuda::make_cuda_engine(format, makers, cfg);
#else
    (void)format, (void)features, (void)c;
    throw Error(context + "this build of speedqa has no CUDA engine");
#endif
}

}  // namespace

std::unique_ptr<Engine> make_engine(const VideoFormat& format, const std::vector<const Feature*>& features,
                                    const EngineChoice& choice, std::string* note) {
    const std::string& backend = choice.backend;
    if (backend == "auto") {
        const int threads = choice.threads > 0 ? choice.threads : all_cores();
        auto cpu = make_cpu_engine(format, features, choice, threads, false);
        std::string why;
#ifdef SPEEDQA_HAVE_CUDA
        // (whether a device is there is found out in the background)
        const std::string missing = without_cuda_kernels(features);
        if (!missing.empty()) why = "the CUDA engine has no kernels for " + missing + " yet";
#else
        cuda_available(&why);
#endif
        if (!why.empty()) {
            if (note) *note = "backend auto: using the CPU engine (" + why + ")";
            return cpu;
        }
        if (note) *note = "backend auto: the CPU engine starts at once; the CUDA engine takes over when its device is ready";
        return std::make_unique<HybridEngine>(
            std::move(cpu), [=] { return make_cuda_engine(format, features, choice, ""); }, RawLayout(features).stride,
            2 * threads);
    }
    if (backend == "cpu" || backend == "cpu-reference")
        return make_cpu_engine(format, features, choice, choice.threads > 0 ? choice.threads : 1, backend == "cpu-reference");
    if (backend == "cuda") {
        const std::string missing = without_cuda_kernels(features);
        if (!missing.empty() && cuda_available(nullptr))
            throw Error("backend cuda: the CUDA engine has no kernels for " + missing +
                        " yet; use the cpu or auto backend");
        return make_cuda_engine(format, features, choice, "backend cuda: ");
    }
    throw Error("unknown backend \"" + choice.backend + "\" (expected cpu, cuda, auto or cpu-reference)");
}

}  // namespace speedqa

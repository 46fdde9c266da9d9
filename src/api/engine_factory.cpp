// The engines of the registry and the factory over it: `cpu`, its
// straightforward twin `cpu-reference`, `cuda` (the features' device parts
// on the CUDA engine), and `auto` (the CPU engine at once, a device engine
// taking over once it has started, where that pays).
#include "api/engine_factory.hpp"

#include <algorithm>
#include <thread>

#include "api/engines.hpp"
#include "api/hybrid_engine.hpp"
#include "core/cpu_flags.hpp"
#include "core/error.hpp"
#include "core/input_plan.hpp"
#include "cpu/cpu_engine.hpp"
#include "features/registry.hpp"
#ifdef SPEEDQA_HAVE_CUDA
#include "cuda/cuda_engine.hpp"
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

int cuda_devices() {
#ifdef SPEEDQA_HAVE_CUDA
    return cuda::device_present(nullptr) ? cuda::device_count() : 0;
#else
    return 0;
#endif
}

namespace {

int all_cores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

bool always(std::string*) { return true; }

std::unique_ptr<Engine> make_cpu(const VideoFormat& format, const std::vector<const Feature*>& features, const EngineChoice& c,
                                 bool straightforward) {
    CpuTarget t;
    // the straightforward path: SpEED's full-frame pipeline, every other
    // feature's C reference kernels
    t.isa = straightforward ? Isa::c : host_isa(c.cpumask);
    t.dispatch = resolve_dispatch(c);
    t.straightforward = straightforward;
    const int threads = c.threads > 0 ? c.threads : (c.backend == "auto" ? all_cores() : 1);
    return std::make_unique<cpu::CpuEngine>(format, features, t, threads);
}

std::unique_ptr<Engine> make_cpu_engine(const VideoFormat& format, const std::vector<const Feature*>& features,
                                        const EngineChoice& c, std::string*) {
    return make_cpu(format, features, c, false);
}

std::unique_ptr<Engine> make_cpu_reference_engine(const VideoFormat& format, const std::vector<const Feature*>& features,
                                                  const EngineChoice& c, std::string*) {
    return make_cpu(format, features, c, true);
}

// "backend cuda: " where the user named it; "" where auto starts it.
std::unique_ptr<Engine> build_cuda_engine(const VideoFormat& format, const std::vector<const Feature*>& features,
                                          const EngineChoice& c, const std::string& context) {
    std::string why;
    if (!cuda_available(&why)) throw Error(context + why);
#ifdef SPEEDQA_HAVE_CUDA
    cuda::CudaEngineConfig cfg;
    cfg.batch = c.batch;
    cfg.device = c.device;
    // staging and the host tails: every core unless told otherwise
    cfg.host_threads = c.threads > 0 ? c.threads : all_cores();
    PartContext context_of_parts;
    context_of_parts.dispatch = resolve_dispatch(c);
    std::vector<cuda::DeviceFeatureMaker> makers;
    for (const Feature* f : features) {
        const PartMaker make = find_engine_part(*f, "cuda");
        if (!make) throw Error(context + "the CUDA engine has no kernels for " + f->name());
        makers.push_back([f, make, context_of_parts] { return make(*f, context_of_parts); });
    }
    return cuda::make_cuda_engine(format, input_needs_of(features), makers, cfg);
#else
    (void)format, (void)features, (void)c;
    throw Error(context + "this build of speedqa has no CUDA engine");
#endif
}

std::unique_ptr<Engine> make_cuda(const VideoFormat& format, const std::vector<const Feature*>& features, const EngineChoice& c,
                                  std::string*) {
    const std::string missing = features_without_parts(features, "cuda");
    if (!missing.empty() && cuda_available(nullptr))
        throw Error("backend cuda: the CUDA engine has no kernels for " + missing + " yet; use the cpu or auto backend");
    return build_cuda_engine(format, features, c, "backend cuda: ");
}

// The CPU engine from the first frame; the CUDA engine, started in the
// background, takes over once it is up (HybridEngine decides whether that
// pays). The values are the same whichever scores.
std::unique_ptr<Engine> make_auto(const VideoFormat& format, const std::vector<const Feature*>& features, const EngineChoice& choice,
                                  std::string* note) {
    const int threads = choice.threads > 0 ? choice.threads : all_cores();
    EngineChoice cpu_choice = choice;
    cpu_choice.threads = threads;
    auto cpu = make_cpu(format, features, cpu_choice, false);
    std::string why;
#ifdef SPEEDQA_HAVE_CUDA
    // (whether a device is there is found out in the background)
    const std::string missing = features_without_parts(features, "cuda");
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
        std::move(cpu), [=] { return build_cuda_engine(format, features, choice, ""); }, RawLayout(features).stride,
        2 * threads);
}

}  // namespace

const std::vector<EngineDef>& engine_defs() {
    static const std::vector<EngineDef> defs = {
        {"cpu", "cpu", "the CPU engine (default)", nullptr, always, make_cpu_engine},
        {"cuda", "cuda", "every frame on an NVIDIA GPU", "cuda", cuda_available, make_cuda},
        {"auto", "", "the CPU engine at once, the GPU taking over once started where that pays", nullptr, always,
         make_auto},
        {"cpu-reference", "cpu", "the straightforward full-frame path, for comparison", nullptr, always,
         make_cpu_reference_engine},
    };
    return defs;
}

const EngineDef* find_engine(const std::string& name) {
    for (const EngineDef& d : engine_defs())
        if (name == d.name) return &d;
    return nullptr;
}

std::string features_without_parts(const std::vector<const Feature*>& features, const std::string& engine) {
    std::vector<std::string> names;
    for (const Feature* f : features)
        if (!find_engine_part(*f, engine) && std::find(names.begin(), names.end(), f->name()) == names.end())
            names.push_back(f->name());
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

std::unique_ptr<Engine> make_engine(const VideoFormat& format, const std::vector<const Feature*>& features,
                                    const EngineChoice& choice, std::string* note) {
    const EngineDef* def = find_engine(choice.backend);
    if (!def) {
        std::string known;
        for (const EngineDef& d : engine_defs()) known += (known.empty() ? "" : ", ") + std::string(d.name);
        throw Error("unknown backend \"" + choice.backend + "\" (expected " + known + ")");
    }
    return def->make(format, features, choice, note);
}

}  // namespace speedqa

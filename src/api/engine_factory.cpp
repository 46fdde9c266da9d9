#include "api/engine_factory.hpp"

#include <algorithm>
#include <thread>

#include "core/hybrid_engine.hpp"
#include "core/error.hpp"
#include "cpu/cpu_engine.hpp"
#ifdef SPEEDQA_HAVE_CUDA
#include "cuda/cuda_engine.hpp"
#endif

namespace speedqa {

exact::CovOrder resolve_cov_order(const EngineChoice& c) {
    if (c.cov_order.empty()) return covariance_order_for_cpu(c.cpumask);
    if (c.cov_order == "scalar") return exact::CovOrder::scalar;
    if (c.cov_order == "avx2") return exact::CovOrder::avx2;
    if (c.cov_order == "avx512") return exact::CovOrder::avx512;
    throw Error("unknown covariance order \"" + c.cov_order + "\" (expected scalar, avx2 or avx512)");
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

std::unique_ptr<Engine> make_cpu_engine(const VideoFormat& format, const std::vector<FeatureSpec>& features,
                                        exact::CovOrder order, int threads, bool full_frame) {
    cpu::CpuEngineConfig cfg;
    cfg.threads = threads;
    cfg.order = order;
    cfg.full_frame = full_frame;
    return std::make_unique<cpu::CpuEngine>(format, features, cfg);
}

std::unique_ptr<Engine> make_cuda_engine(const VideoFormat& format, const std::vector<FeatureSpec>& features,
                                         exact::CovOrder order, const EngineChoice& choice, const std::string& context) {
    std::string why;
    if (!cuda_available(&why)) throw Error(context + why);
#ifdef SPEEDQA_HAVE_CUDA
    cuda::CudaEngineConfig cfg;
    cfg.order = order;
    cfg.batch = choice.batch;
    // staging and the log2 tail: every core unless told otherwise
    cfg.host_threads = choice.threads > 0 ? choice.threads : all_cores();
    return cuda::make_cuda_engine(format, features, cfg);
#else
    (void)format, (void)features, (void)order, (void)choice;
    throw Error(context + "this build of speedqa has no CUDA engine");
#endif
}

}  // namespace

std::unique_ptr<Engine> make_engine(const VideoFormat& format, const std::vector<FeatureSpec>& features,
                                    const EngineChoice& choice, std::string* note) {
    const exact::CovOrder order = resolve_cov_order(choice);
    const std::string& backend = choice.backend;
    if (backend == "auto") {
        const int threads = choice.threads > 0 ? choice.threads : all_cores();
        auto cpu = make_cpu_engine(format, features, order, threads, false);
#ifdef SPEEDQA_HAVE_CUDA
        if (note) *note = "backend auto: the CPU engine starts at once; the CUDA engine takes over when its device is ready";
        return std::make_unique<HybridEngine>(
            std::move(cpu), [=] { return make_cuda_engine(format, features, order, choice, ""); }, metric_count(features),
            2 * threads);
#else
        std::string why;
        cuda_available(&why);
        if (note) *note = "backend auto: using the CPU engine (" + why + ")";
        return cpu;
#endif
    }
    if (backend == "cpu" || backend == "cpu-reference")
        return make_cpu_engine(format, features, order, choice.threads > 0 ? choice.threads : 1, backend == "cpu-reference");
    if (backend == "cuda") return make_cuda_engine(format, features, order, choice, "--backend cuda: ");
    throw Error("unknown backend \"" + choice.backend + "\" (expected cpu, cuda, auto or cpu-reference)");
}

}  // namespace speedqa

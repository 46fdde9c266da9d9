#include "api/engine_factory.hpp"

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

std::unique_ptr<Engine> make_engine(const VideoFormat& format, const std::vector<FeatureSpec>& features,
                                    const EngineChoice& choice, std::string* note) {
    const exact::CovOrder order = resolve_cov_order(choice);
    std::string backend = choice.backend;
    if (backend == "auto") {
        std::string why;
        backend = cuda_available(&why) ? "cuda" : "cpu";
        if (note) *note = backend == "cuda" ? "backend auto: using the CUDA engine"
                                            : "backend auto: using the CPU engine (" + why + ")";
    }
    if (backend == "cpu" || backend == "cpu-reference") {
        cpu::CpuEngineConfig cfg;
        cfg.threads = choice.threads;
        cfg.order = order;
        cfg.full_frame = backend == "cpu-reference";
        return std::make_unique<cpu::CpuEngine>(format, features, cfg);
    }
    if (backend == "cuda") {
        std::string why;
        if (!cuda_available(&why)) throw Error("--backend cuda: " + why);
#ifdef SPEEDQA_HAVE_CUDA
        cuda::CudaEngineConfig cfg;
        cfg.order = order;
        cfg.batch = choice.batch;
        cfg.host_threads = choice.threads;
        return cuda::make_cuda_engine(format, features, cfg);
#endif
    }
    throw Error("unknown backend \"" + choice.backend + "\" (expected cpu, cuda, auto or cpu-reference)");
}

}  // namespace speedqa

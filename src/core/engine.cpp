#include "core/engine.hpp"

#include "core/cpu_flags.hpp"

namespace speedqa {

int metric_count(const std::vector<FeatureSpec>& features) {
    int n = 0;
    for (const FeatureSpec& f : features) n += f.kind == FeatureKind::chroma ? 3 : 1;
    return n;
}

exact::CovOrder covariance_order_for_cpu(unsigned cpumask) {
    const CpuFlags flags = detect_cpu_flags();
    // speed_init: AVX2 if present, then AVX-512 if present, each unless masked.
    exact::CovOrder order = exact::CovOrder::scalar;
    if (flags.avx2 && !(cpumask & kMaskAvx2)) order = exact::CovOrder::avx2;
    if (flags.avx512 && !(cpumask & kMaskAvx512)) order = exact::CovOrder::avx512;
    return order;
}

const char* cov_order_name(exact::CovOrder o) {
    switch (o) {
    case exact::CovOrder::scalar: return "scalar";
    case exact::CovOrder::avx2: return "avx2";
    default: return "avx512";
    }
}

}  // namespace speedqa

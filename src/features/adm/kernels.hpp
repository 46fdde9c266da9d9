// The per-frame ADM computation: the C reference and the AVX2 kernel, each
// able to reproduce any libvmaf dispatch (the plan says which).
#pragma once

#include <memory>

#include "core/feature.hpp"
#include "features/adm/plan.hpp"

namespace speedqa::adm {

// What libvmaf keeps of each scale: the DLM numerator and denominator and
// the AIM numerator, as floats.
struct ScaleSums {
    float num[4] = {}, den[4] = {}, aim[4] = {};
};

struct Kernels {
    // Buffers for one worker, sized once.
    std::unique_ptr<KernelScratch> (*make_scratch)(const Plan& plan);
    void (*score)(const Plan& plan, KernelScratch& scratch, const Picture& ref, const Picture& dis, ScaleSums& out);
};

const Kernels& kernels_c();
// nullptr where the AVX2 kernel is not built (non-x86).
const Kernels* kernels_avx2();

}  // namespace speedqa::adm

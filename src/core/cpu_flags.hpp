// Instruction-set detection the way libvmaf does it (x86/cpu.c), so that the
// dispatch we reproduce is the one libvmaf picks on the same CPU.
#pragma once

#include "core/feature.hpp"

namespace speedqa {

inline constexpr unsigned kMaskAvx2 = 1u << 3;    // VMAF_X86_CPU_FLAG_AVX2
inline constexpr unsigned kMaskAvx512 = 1u << 4;  // VMAF_X86_CPU_FLAG_AVX512

struct CpuFlags {
    bool avx2 = false;    // AVX2 with BMI1/BMI2 and OS YMM state
    bool avx512 = false;  // F, CD, BW, DQ, VL with OS ZMM state
    bool avx512vnni = false;  // and VNNI (vpdpwssd): only our kernels use it, libvmaf's dispatch does not look
    // Gathers are microcode that costs more than computing what they would
    // read (AMD's cores: a 16-lane vpgatherdd takes 21 cycles on Zen 5,
    // about 9 on Intel's Sapphire Rapids). Only our kernels' choice of
    // method depends on it, never a value. SPEEDQA_GATHERS=slow|fast
    // overrides it (benchmarks, tests).
    bool slow_gather = false;
};

CpuFlags detect_cpu_flags();

// The widest instruction set our kernels may use here, narrowed by the mask.
Isa host_isa(unsigned cpumask = 0);
// The dispatch libvmaf picks on this CPU under --cpumask: the widest it has,
// unless masked.
Dispatch libvmaf_dispatch(unsigned cpumask);

}  // namespace speedqa

#include "core/cpu_flags.hpp"

#include <algorithm>

#include "core/env.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <cstdint>
#endif

namespace speedqa {

#if defined(__x86_64__) || defined(__i386__)
namespace {
bool all(uint32_t reg, uint32_t mask) { return (reg & mask) == mask; }
uint64_t xgetbv0() {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (static_cast<uint64_t>(hi) << 32) | lo;
}
}  // namespace

CpuFlags detect_cpu_flags() {
    CpuFlags f;
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return f;
    const unsigned max_leaf = a;
    const bool amd = b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163;  // "AuthenticAMD"
    static const int gathers = env_choice("SPEEDQA_GATHERS", {"auto", "slow", "fast"}, 0);
    f.slow_gather = gathers == 0 ? amd : gathers == 1;
    if (max_leaf < 1) return f;
    __cpuid_count(1, 0, a, b, c, d);
    if (!all(c, 0x18000000)) return f;  // OSXSAVE and AVX
    const uint64_t xcr0 = xgetbv0();
    if (!all(static_cast<uint32_t>(xcr0), 0x6) || max_leaf < 7) return f;  // XMM and YMM state
    __cpuid_count(7, 0, a, b, c, d);
    if (!all(b, 0x00000128)) return f;  // BMI1, AVX2, BMI2
    f.avx2 = true;
    if (all(static_cast<uint32_t>(xcr0), 0xe0) && all(b, 0xd0030000)) f.avx512 = true;  // ZMM state; F DQ CD BW VL
    f.avx512vnni = f.avx512 && all(c, 0x800);                                           // ECX bit 11
    return f;
}
#else
CpuFlags detect_cpu_flags() { return {}; }
#endif

Isa host_isa(unsigned cpumask) {
    const CpuFlags f = detect_cpu_flags();
    Isa isa = Isa::c;
    if (f.avx2 && !(cpumask & kMaskAvx2)) isa = Isa::avx2;
    if (isa == Isa::avx2 && f.avx512 && !(cpumask & kMaskAvx512)) isa = Isa::avx512;
    // SPEEDQA_KERNELS narrows it further (tests, benchmarks)
    static const int limit = env_choice("SPEEDQA_KERNELS", {"c", "avx2", "avx512"}, 2);
    return static_cast<Isa>(std::min(static_cast<int>(isa), limit));
}

Dispatch libvmaf_dispatch(unsigned cpumask) {
    const CpuFlags f = detect_cpu_flags();
    // speed_init and the others: AVX2 if present, then AVX-512 if present, each unless masked
    Dispatch d = Dispatch::scalar;
    if (f.avx2 && !(cpumask & kMaskAvx2)) d = Dispatch::avx2;
    if (f.avx512 && !(cpumask & kMaskAvx512)) d = Dispatch::avx512;
    return d;
}

}  // namespace speedqa

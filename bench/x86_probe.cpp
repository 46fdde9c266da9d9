// speedqa_x86_probe: how many of each instruction the kernels lean on this
// core issues per cycle, measured, for the performance notes
// (docs/PERF_NOTES.md). Machines without performance counters (virtual
// machines) still show it: the clock is a chain of dependent vpaddd (one a
// cycle), and every other row is many independent copies of one instruction
// (12 registers, enough to cover its latency), so its rate is its throughput.
//
//   speedqa_x86_probe            prints a markdown table
//
// Rows need AVX-512 (F, BW), VNNI and VBMI2 where they use them; those the
// CPU lacks are printed as "not on this CPU". The AMX rows (tile products
// and tile loads, counted for VIF's filter sums) also need the kernel to
// grant the tile state (Linux: arch_prctl ARCH_REQ_XCOMP_PERM).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

constexpr long kOps = 60'000'000;  // instructions per timed run

// gather indices (in dwords): 8 as int64, then 16 as int32, 16 dwords apart
struct Indices {
    int64_t q[8];
    int32_t d[16];
};
alignas(64) const Indices kIndexData = {{0, 16, 32, 48, 64, 80, 96, 112},
                                        {0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240}};
const void* const kIndices = &kIndexData;

double seconds_now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

#define SPEEDQA_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx512vbmi2"), noinline))
#define SPEEDQA_CLOBBER                                                                                          \
    "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm27", \
        "xmm28", "xmm30", "xmm31", "k1", "memory"
#define SPEEDQA_S(x) #x
// one instruction on each of the 12 registers zmm0..zmm11
#define SPEEDQA_12(I) I(0) I(1) I(2) I(3) I(4) I(5) I(6) I(7) I(8) I(9) I(10) I(11)
// the timed loop: 12 instructions an iteration; base (a memory operand's
// address) in %0
#define SPEEDQA_LOOP(NAME, I)                                                                          \
    SPEEDQA_AVX512 double NAME(const void* base) {                                                     \
        asm volatile("vmovdqu64 (%0), %%zmm27\n vmovdqu64 64(%0), %%zmm28\n"                               \
                     "vpxord %%zmm30, %%zmm30, %%zmm30\n vpxord %%zmm31, %%zmm31, %%zmm31\n" ::"r"(kIndices) \
                     : SPEEDQA_CLOBBER);                                                               \
        const double t0 = seconds_now();                                                               \
        for (long i = 0; i < kOps / 12; i++) asm volatile(SPEEDQA_12(I)::"r"(base) : SPEEDQA_CLOBBER); \
        return (seconds_now() - t0) / kOps;                                                            \
    }

// the clock: each vpaddd waits for the one before (latency 1)
#define I_CHAIN(k) "vpaddd %%zmm31, %%zmm0, %%zmm0\n"
#define I_ADD(k) "vpaddd %%zmm31, %%zmm" SPEEDQA_S(k) ", %%zmm" SPEEDQA_S(k) "\n"
#define I_DPWSSD(k) "vpdpwssd %%zmm30, %%zmm31, %%zmm" SPEEDQA_S(k) "\n"
#define I_DPWSSD_Y(k) "vpdpwssd %%ymm30, %%ymm31, %%ymm" SPEEDQA_S(k) "\n"
#define I_MADDWD(k) "vpmaddwd %%zmm30, %%zmm31, %%zmm" SPEEDQA_S(k) "\n"
#define I_MULLW(k) "vpmullw %%zmm30, %%zmm31, %%zmm" SPEEDQA_S(k) "\n"
#define I_MULLD(k) "vpmulld %%zmm30, %%zmm31, %%zmm" SPEEDQA_S(k) "\n"
#define I_MULUDQ(k) "vpmuludq %%zmm30, %%zmm31, %%zmm" SPEEDQA_S(k) "\n"
#define I_FMA(k) "vfmadd231pd %%zmm30, %%zmm31, %%zmm" SPEEDQA_S(k) "\n"
#define I_SRAD(k) "vpsrad $1, %%zmm" SPEEDQA_S(k) ", %%zmm" SPEEDQA_S(k) "\n"
#define I_SRLVD(k) "vpsrlvd %%zmm30, %%zmm" SPEEDQA_S(k) ", %%zmm" SPEEDQA_S(k) "\n"
#define I_PERMD(k) "vpermd %%zmm30, %%zmm31, %%zmm" SPEEDQA_S(k) "\n"
#define I_PACK(k) "vpackusdw %%zmm30, %%zmm31, %%zmm" SPEEDQA_S(k) "\n"
#define I_ALIGND(k) "valignd $3, %%zmm30, %%zmm" SPEEDQA_S(k) ", %%zmm" SPEEDQA_S(k) "\n"
#define I_SHRDD(k) "vpshrdd $16, %%zmm30, %%zmm" SPEEDQA_S(k) ", %%zmm" SPEEDQA_S(k) "\n"
#define I_CVTDQ2PD(k) "vcvtdq2pd %%ymm30, %%zmm" SPEEDQA_S(k) "\n"
// memory operands: 12 cache lines in a row, from %0
#define I_DPWSSD_MEM(k) "vpdpwssd " SPEEDQA_S(k) "*64(%0), %%zmm31, %%zmm" SPEEDQA_S(k) "\n"
// 8 dwords at the 8 qword indices of zmm27, 16 at the 16 dword indices of
// zmm28 (each in its own cache line); the mask set anew each time (kxnorb)
#define I_GATHER8(k) "kxnorb %%k1, %%k1, %%k1\n vpgatherqd (%0,%%zmm27,4), %%ymm" SPEEDQA_S(k) "%{%%k1%}\n"
#define I_GATHER16(k) "kxnorw %%k1, %%k1, %%k1\n vpgatherdd (%0,%%zmm28,4), %%zmm" SPEEDQA_S(k) "%{%%k1%}\n"

SPEEDQA_LOOP(t_chain, I_CHAIN)
SPEEDQA_LOOP(t_add, I_ADD)
SPEEDQA_LOOP(t_dpwssd, I_DPWSSD)
SPEEDQA_LOOP(t_dpwssd_y, I_DPWSSD_Y)
SPEEDQA_LOOP(t_maddwd, I_MADDWD)
SPEEDQA_LOOP(t_mullw, I_MULLW)
SPEEDQA_LOOP(t_mulld, I_MULLD)
SPEEDQA_LOOP(t_muludq, I_MULUDQ)
SPEEDQA_LOOP(t_fma, I_FMA)
SPEEDQA_LOOP(t_srad, I_SRAD)
SPEEDQA_LOOP(t_srlvd, I_SRLVD)
SPEEDQA_LOOP(t_permd, I_PERMD)
SPEEDQA_LOOP(t_pack, I_PACK)
SPEEDQA_LOOP(t_alignd, I_ALIGND)
SPEEDQA_LOOP(t_shrdd, I_SHRDD)
SPEEDQA_LOOP(t_cvt, I_CVTDQ2PD)
SPEEDQA_LOOP(t_dpwssd_mem, I_DPWSSD_MEM)
SPEEDQA_LOOP(t_gather8, I_GATHER8)
SPEEDQA_LOOP(t_gather16, I_GATHER16)

// ---- AMX ----

// Whether the kernel lets this process use the tile data (Linux 5.16+).
bool amx_granted() {
    constexpr long kReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, kReqXcompPerm, kXfeatureXtiledata) == 0;
}

// Palette 1, tiles 0-5 of 16 rows x 64 bytes: 0-3 accumulators (16 x 16
// int32), 4 the bytes of A (16 x 64), 5 those of B (16 rows of 4 x 16).
struct alignas(64) TileConfig {
    uint8_t palette = 1, start_row = 0, reserved[14] = {};
    uint16_t colsb[16] = {64, 64, 64, 64, 64, 64};
    uint8_t rows[16] = {16, 16, 16, 16, 16, 16};
};

#define SPEEDQA_AMX __attribute__((target("amx-tile,amx-int8"), noinline))

// ns per tdpbuud (C[16 x 16] += A[16 x 64] . B[64 x 16], u8 x u8 into int32:
// 16384 byte products), four accumulators in turn (their latency covered)
SPEEDQA_AMX double t_tdpbuud(const void* base) {
    const TileConfig cfg;
    _tile_loadconfig(&cfg);
    _tile_loadd(4, base, 64);
    _tile_loadd(5, base, 64);
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    constexpr long kTiles = kOps / 100;
    const double t0 = seconds_now();
    for (long i = 0; i < kTiles / 4; i++) {
        _tile_dpbuud(0, 4, 5);
        _tile_dpbuud(1, 4, 5);
        _tile_dpbuud(2, 4, 5);
        _tile_dpbuud(3, 4, 5);
    }
    alignas(64) static int32_t sink[16 * 16];
    _tile_stored(0, sink, 64);
    const double t = (seconds_now() - t0) / kTiles;
    _tile_release();
    return t;
}

// ns per tileloadd of 16 rows x 64 bytes from L1 (1 KiB), into four tiles in turn
SPEEDQA_AMX double t_tileload(const void* base) {
    const TileConfig cfg;
    _tile_loadconfig(&cfg);
    constexpr long kLoads = kOps / 100;
    const double t0 = seconds_now();
    for (long i = 0; i < kLoads / 4; i++) {
        _tile_loadd(0, base, 64);
        _tile_loadd(1, base, 64);
        _tile_loadd(2, base, 64);
        _tile_loadd(3, base, 64);
    }
    const double t = (seconds_now() - t0) / kLoads;
    _tile_release();
    return t;
}

struct Row {
    const char* what;
    double (*run)(const void*);
    int offset;  // bytes from a cache line's start, for the memory operand
    bool vbmi2;
    const char* kernels;  // where speedqa's kernels use it
    bool amx = false;
};

}  // namespace

int main() {
    __builtin_cpu_init();
    const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
    const bool vbmi2 = avx512 && __builtin_cpu_supports("avx512vbmi2");
    const bool amx = __builtin_cpu_supports("amx-tile") && __builtin_cpu_supports("amx-int8") && amx_granted();
    if (!avx512) {
        std::printf("speedqa_x86_probe: this CPU has no AVX-512 with VNNI; nothing to measure\n");
        return 0;
    }
    // 4 KiB of zeros, 64-byte aligned (+64 for the line-split operands);
    // gathers read its first element everywhere
    std::vector<unsigned char> mem(4096 + 128, 0);
    unsigned char* base = mem.data() + (64 - reinterpret_cast<uintptr_t>(mem.data()) % 64);

    const Row rows[] = {
        {"vpaddd zmm", t_add, 0, false, "everywhere"},
        {"vpdpwssd zmm", t_dpwssd, 0, false, "VIF, motion filter sums"},
        {"vpdpwssd ymm", t_dpwssd_y, 0, false, "(AVX-VNNI width)"},
        {"vpmaddwd zmm", t_maddwd, 0, false, "ADM DWT, motion"},
        {"vpmullw zmm", t_mullw, 0, false, "VIF products"},
        {"vpmulld zmm", t_mulld, 0, false, "ADM CSF, masking"},
        {"vpmuludq zmm", t_muludq, 0, false, "VIF mean products, ADM scales 1-3"},
        {"vfmadd231pd zmm", t_fma, 0, false, "(reference)"},
        {"vpsrad zmm (immediate)", t_srad, 0, false, "every rounding shift"},
        {"vpsrlvd zmm", t_srlvd, 0, false, "variable shifts"},
        {"vpermd zmm", t_permd, 0, false, "lane moves"},
        {"vpackusdw zmm", t_pack, 0, false, "narrowing"},
        {"valignd zmm", t_alignd, 0, false, "shifted windows from aligned loads"},
        {"vpshrdd zmm", t_shrdd, 0, true, "(VBMI2) odd windows from even ones"},
        {"vcvtdq2pd zmm", t_cvt, 0, false, "VIF statistic"},
        {"vpdpwssd zmm, aligned 64-byte load", t_dpwssd_mem, 0, false, "VIF vertical sums (ring)"},
        {"vpdpwssd zmm, load split over 2 lines", t_dpwssd_mem, 4, false, "VIF horizontal sums"},
        {"vpgatherqd 8 dwords", t_gather8, 0, false, "VIF log2 table"},
        {"vpgatherdd 16 dwords", t_gather16, 0, false, "ADM reciprocal table"},
        {"tdpbuud (AMX: 16 x 16 int32 += 16 x 64 u8 . 64 x 16 u8, 16384 byte products)", t_tdpbuud, 0, false,
         "(counted for VIF's filter sums)", true},
        {"tileloadd 16 x 64 bytes from L1 (AMX)", t_tileload, 0, false, "(counted for VIF's filter sums)", true},
    };
    // the clock first, and again at the end: the best of both
    double cycle = t_chain(base);
    std::vector<double> ns;
    for (const Row& r : rows) {
        if ((r.vbmi2 && !vbmi2) || (r.amx && !amx)) {
            ns.push_back(0);
            continue;
        }
        double best = 1e9;
        for (int rep = 0; rep < 3; rep++) {
            const double t = r.run(base + r.offset);
            if (t < best) best = t;
        }
        ns.push_back(best);
    }
    const double cycle2 = t_chain(base);
    if (cycle2 < cycle) cycle = cycle2;
    std::printf("clock: one dependent vpaddd every %.3f ns (%.2f GHz)\n\n", cycle * 1e9, 1e-9 / cycle);
    std::printf("| instruction | ns each | per cycle | speedqa uses it in |\n|---|---|---|---|\n");
    for (size_t i = 0; i < ns.size(); i++) {
        if (ns[i] == 0) {
            std::printf("| %s | not on this CPU | | %s |\n", rows[i].what, rows[i].kernels);
            continue;
        }
        std::printf("| %s | %.3f | %.2f | %s |\n", rows[i].what, ns[i] * 1e9, cycle / ns[i], rows[i].kernels);
    }
    return 0;
}

#else
int main() {
    std::printf("speedqa_x86_probe: x86-64 with GCC or Clang only\n");
    return 0;
}
#endif

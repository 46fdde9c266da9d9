// checkasm for the motion kernel: every SIMD variant this CPU runs against
// the C reference on random and adversarial frame pairs (each bit depth's
// extremes 0 and 2^bd - 1 against each other, flat frames, checkerboards,
// ramps, flat frames with a narrow band of extremes: rows where a few
// columns' blurred difference does not fit int16 and the rest does; flat
// frames at half the range against zeros: blurred differences of exactly
// -2^15 and 2^15, whose low 16 bits are -2^15, the SIMD kernels' extreme),
// odd and minimal sizes, strides wider than the rows.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <vector>

#include "features/motion/motion_kernels.hpp"

namespace speedqa::motion {
namespace {

enum class Pattern { random, zeros, maxima, extremes, checker, flat, ramp, band, half };
const Pattern kPatterns[] = {Pattern::random, Pattern::zeros, Pattern::maxima, Pattern::extremes, Pattern::checker,
                             Pattern::flat,   Pattern::ramp,  Pattern::band,   Pattern::half};

struct Plane {
    std::vector<uint8_t> bytes;
    ptrdiff_t stride = 0;
};

Plane make_plane(int bd, int w, int h, Pattern p, std::mt19937& rng) {
    const int bps = bd == 8 ? 1 : 2;
    Plane pl;
    pl.stride = static_cast<ptrdiff_t>(w + 5) * bps;  // a stride wider than the row
    pl.bytes.assign(static_cast<size_t>(pl.stride) * h, 0xa5);
    const uint32_t max = (1u << bd) - 1;
    std::uniform_int_distribution<uint32_t> any(0, max), coin(0, 1);
    const uint32_t level = any(rng);
    std::uniform_int_distribution<int> column(-2, w + 1);
    const int band = column(rng);  // band: columns band .. band + 2 (some may lie outside the row)
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++) {
            uint32_t v = 0;
            switch (p) {
            case Pattern::random: v = any(rng); break;
            case Pattern::zeros: v = 0; break;
            case Pattern::maxima: v = max; break;
            case Pattern::extremes: v = coin(rng) ? max : 0; break;
            case Pattern::checker: v = ((i + j) & 1) ? max : 0; break;
            case Pattern::flat: v = level; break;
            case Pattern::ramp: v = static_cast<uint32_t>((static_cast<uint64_t>(j) * 2654435761u + i * 40503u) & max); break;
            case Pattern::band: v = (j >= band && j < band + 3) ? ((i + j) & 1 ? max : 0) : max / 2; break;
            case Pattern::half: v = 1u << (bd - 1); break;
            }
            uint8_t* at = pl.bytes.data() + pl.stride * i + j * bps;
            at[0] = static_cast<uint8_t>(v);
            if (bps == 2) at[1] = static_cast<uint8_t>(v >> 8);
        }
    return pl;
}

void sad_equals_c(const Kernels* simd) {
    std::mt19937 rng(3);
    long long frames = 0, pixels = 0;
    const std::pair<int, int> sizes[] = {{3, 3}, {4, 7}, {7, 4}, {8, 3}, {9, 5}, {15, 16}, {16, 9},
                                         {17, 17}, {31, 6}, {33, 3}, {64, 12}, {100, 7}, {257, 5}, {641, 3},
                                         {32, 4}, {47, 6}, {63, 3}, {65, 5}};
    for (int bd : {8, 10, 12, 16})
        for (auto [w, h] : sizes)
            for (Pattern pp : kPatterns)
                for (Pattern pc :
                     {Pattern::random, Pattern::zeros, Pattern::maxima, Pattern::extremes, Pattern::band, Pattern::half}) {
                    const Plane prev = make_plane(bd, w, h, pp, rng), cur = make_plane(bd, w, h, pc, rng);
                    std::vector<int32_t> row1(row_len(w), 0x7777), row2(row_len(w), 0x7777);
                    SadArgs a;
                    a.prev = prev.bytes.data();
                    a.prev_stride = prev.stride;
                    a.cur = cur.bytes.data();
                    a.cur_stride = cur.stride;
                    a.w = w;
                    a.h = h;
                    a.bitdepth = bd;
                    a.row = row1.data();
                    const uint64_t want = kernels_c().sad(a);
                    a.row = row2.data();
                    const uint64_t got = simd->sad(a);
                    ASSERT_EQ(want, got) << simd->name << " " << bd << "-bit " << w << "x" << h << " patterns "
                                         << static_cast<int>(pp) << "/" << static_cast<int>(pc);
                    frames++;
                    pixels += static_cast<long long>(w) * h;
                }
    std::printf("[motion-checkasm] %s sad: %lld frame pairs (%lld pixels) identical to C\n", simd->name, frames,
                pixels);
}

TEST(MotionCheckasm, SadEqualsC) {
    const Kernels* simd = kernels_avx2();
    if (!simd) GTEST_SKIP() << "no AVX2 on this CPU";
    sad_equals_c(simd);
}

TEST(MotionCheckasm, Avx512SadEqualsC) {
    const Kernels* simd = kernels_avx512();
    if (!simd) GTEST_SKIP() << "no AVX-512 on this CPU";
    sad_equals_c(simd);
}

// Each dispatch picks its kernel: C for c, AVX2 for avx2, AVX-512 for avx512
// where the CPU has it (else AVX2).
TEST(MotionCheckasm, DispatchPicksItsKernel) {
    EXPECT_STREQ(kernels_for(Isa::c).name, "c");
    if (kernels_avx2()) {
        EXPECT_STREQ(kernels_for(Isa::avx2).name, "avx2");
    }
    if (kernels_avx512()) {
        EXPECT_STREQ(kernels_for(Isa::avx512).name, "avx512");
    } else if (kernels_avx2()) {
        EXPECT_STREQ(kernels_for(Isa::avx512).name, "avx2");
    }
}

}  // namespace
}  // namespace speedqa::motion

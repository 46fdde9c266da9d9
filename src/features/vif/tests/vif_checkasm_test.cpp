// checkasm for the VIF kernels: every SIMD variant this CPU runs against the
// C reference, on random and adversarial rows (each bit depth's extremes 0
// and 2^bits - 1, flat rows, checkerboards, ramps), every filter and rounding
// the frame driver uses, odd and minimal widths; the sums (statistic) and
// samples (halving) must be equal.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "features/vif/vif_kernels.hpp"
#include "features/vif/vif_plan.hpp"

namespace speedqa::vif {
namespace {

// A block of rows holding one pattern, as the kernels read them.
struct Rows {
    int bits = 8, w = 0, n = 0;
    std::vector<uint8_t> bytes;  // n rows of w samples
    const void* row(int i) const { return bytes.data() + static_cast<size_t>(i) * w * (bits == 8 ? 1 : 2); }
};

enum class Pattern { random, zeros, maxima, extremes, checker, flat, ramp, sparse };
const Pattern kPatterns[] = {Pattern::random, Pattern::zeros,   Pattern::maxima, Pattern::extremes,
                             Pattern::checker, Pattern::flat, Pattern::ramp,   Pattern::sparse};
const char* name(Pattern p) {
    const char* n[] = {"random", "zeros", "maxima", "extremes", "checker", "flat", "ramp", "sparse"};
    return n[static_cast<int>(p)];
}

Rows make_rows(int bits, int w, int n, Pattern p, std::mt19937& rng) {
    Rows r;
    r.bits = bits;
    r.w = w;
    r.n = n;
    const uint32_t max = (1u << bits) - 1;
    std::uniform_int_distribution<uint32_t> any(0, max), coin(0, 1), small(0, 3);
    const uint32_t level = any(rng);
    r.bytes.resize(static_cast<size_t>(w) * n * (bits == 8 ? 1 : 2));
    for (int i = 0; i < n; i++)
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
            case Pattern::sparse: v = small(rng) == 0 ? any(rng) : level; break;
            }
            const size_t at = static_cast<size_t>(i) * w + j;
            if (bits == 8) r.bytes[at] = static_cast<uint8_t>(v);
            else {
                r.bytes[2 * at] = static_cast<uint8_t>(v);
                r.bytes[2 * at + 1] = static_cast<uint8_t>(v >> 8);
            }
        }
    return r;
}

// A scale's image as the frame driver hands it to the kernels: rows through
// the reference's padding.
struct Image {
    Rows ref, dis;
    std::vector<int> row_src, col_src;
    std::vector<const void*> ref_rows, dis_rows;
    ScaleImage view() const {
        ScaleImage im;
        im.ref_rows = ref_rows.data() + ev::kMaxRadius;
        im.dis_rows = dis_rows.data() + ev::kMaxRadius;
        im.bits = ref.bits;
        im.w = ref.w;
        im.h = ref.n;
        im.col_src = col_src.data() + ev::kMaxRadius;
        return im;
    }
};

Image make_image(int bits, int w, int h, Pattern pr, Pattern pd, std::mt19937& rng) {
    Image im;
    im.ref = make_rows(bits, w, h, pr, rng);
    im.dis = make_rows(bits, w, h, pd, rng);
    im.row_src = padded_sources(h);
    im.col_src = padded_sources(w);
    for (int r = -ev::kMaxRadius; r < h + ev::kMaxRadius; r++) {
        im.ref_rows.push_back(im.ref.row(im.row_src[static_cast<size_t>(r + ev::kMaxRadius)]));
        im.dis_rows.push_back(im.dis.row(im.row_src[static_cast<size_t>(r + ev::kMaxRadius)]));
    }
    return im;
}

// The (scale, sample bits) combinations the frame driver runs: scale 0 on
// the video's samples, later scales on 16-bit ones.
struct Case {
    int scale, bits, bitdepth;
};
std::vector<Case> cases() {
    std::vector<Case> c;
    for (int bd : {8, 10, 12, 16}) c.push_back({0, bd, bd});
    for (int s = 1; s < 4; s++)
        for (int bd : {8, 10, 12, 16}) c.push_back({s, 16, bd});
    return c;
}

struct Result {
    ev::Sums sums;
    std::vector<uint16_t> out[2];
};

Result run(const Kernels& k, const Image& im, const Case& c, bool stat, bool halve, double limit,
           const std::vector<uint16_t>& table) {
    ScaleArgs a;
    a.in = im.view();
    a.scale = c.scale;
    a.stat = stat;
    a.rounding = ev::stat_rounding(c.scale, c.bitdepth);
    a.gain_limit = limit;
    a.log2_table = table.data();
    Result r;
    a.halve = halve && c.scale < 3;
    if (a.halve) {
        a.halve_rounding = ev::halving_rounding(c.scale + 1, c.bitdepth);
        // one spare sample after each row: a kernel must not write it
        a.out_stride = a.in.w / 2 + 1;
        for (auto& o : r.out) o.assign(static_cast<size_t>(a.out_stride) * (a.in.h / 2), 0xbeef);
        a.ref_out = r.out[0].data();
        a.dis_out = r.out[1].data();
    }
    const auto scratch = k.make_scratch(a.in.w);
    k.scale_pass(a, *scratch, r.sums);
    return r;
}

std::string describe(const Case& c, int w, int h, Pattern pr, Pattern pd, double limit) {
    return "scale " + std::to_string(c.scale) + " bits " + std::to_string(c.bits) + " (video " +
           std::to_string(c.bitdepth) + ") " + std::to_string(w) + "x" + std::to_string(h) + " ref " + name(pr) +
           " dis " + name(pd) + " limit " + std::to_string(limit);
}

// Sizes around the strip width (512: one, two and three strips; and 256,
// its old value) and the vector blocks (16 and 32), odd and minimal ones.
const std::pair<int, int> kSizes[] = {{2, 2},   {3, 5},   {5, 3},   {7, 9},    {8, 8},   {9, 17},  {15, 4},
                                      {16, 16}, {17, 6},  {24, 11}, {31, 33},  {32, 3},  {33, 2},  {48, 5},  {64, 20}, {100, 7},
                                      {255, 3}, {256, 5}, {257, 4}, {263, 19}, {300, 2}, {511, 2}, {512, 3},
                                      {513, 3}, {777, 2}, {1030, 2}};

struct Counts {
    long long passes = 0, pixels = 0, samples = 0;
};

// Every case, size and pattern pair (or, with `few`, scale 0 at 8 and 10
// bits on a third of the sizes) through both kernels with `table`.
void compare_all(const Kernels& simd, const std::vector<uint16_t>& table, bool few, Counts& n) {
    std::mt19937 rng(7);
    int size_index = 0;
    for (const Case& c : cases()) {
        if (few && (c.scale != 0 || c.bits > 10)) continue;
        for (auto [w, h] : kSizes) {
            if (few && size_index++ % 3 != 0) continue;
            for (Pattern pr : kPatterns)
                for (Pattern pd : {pr, Pattern::random, Pattern::extremes}) {
                    const Image im = make_image(c.bits, w, h, pr, pd, rng);
                    const double limit = pr == Pattern::random ? 1.37 : pd == Pattern::random ? 1.0 : 100.0;
                    for (auto [stat, halve] : {std::pair{true, true}, {false, true}, {true, false}}) {
                        if (!stat && (!halve || c.scale == 3)) continue;
                        const Result want = run(kernels_c(), im, c, stat, halve, limit, table);
                        const Result got = run(simd, im, c, stat, halve, limit, table);
                        const std::string what = std::string(simd.name) + " " + describe(c, w, h, pr, pd, limit) +
                                                 (stat ? " stat" : "") + (halve ? " halve" : "");
                        ASSERT_TRUE(want.sums == got.sums)
                            << what << ": num_log " << got.sums.num_log << " vs " << want.sums.num_log << ", den_log "
                            << got.sums.den_log << " vs " << want.sums.den_log << ", num_non_log "
                            << got.sums.num_non_log << " vs " << want.sums.num_non_log << ", den_non_log "
                            << got.sums.den_non_log << " vs " << want.sums.den_non_log;
                        ASSERT_EQ(want.out[0], got.out[0]) << what << ": halved ref";
                        ASSERT_EQ(want.out[1], got.out[1]) << what << ": halved dis";
                        n.passes++;
                        if (stat) n.pixels += static_cast<long long>(w) * h;
                        n.samples += static_cast<long long>(want.out[0].size());
                    }
                }
        }
    }
}

// The SIMD kernel of a dispatch (null where this CPU has none) and why not.
const Kernels* simd_kernel(Isa which) { return which == Isa::avx512 ? kernels_avx512() : kernels_avx2(); }
const char* no_kernel(Isa which) {
    return which == Isa::avx512 ? "no AVX-512 with VNNI on this CPU" : "no AVX2 on this CPU";
}

void equals_c(Isa which) {
    const Kernels* simd = simd_kernel(which);
    if (!simd) GTEST_SKIP() << no_kernel(which);
    Counts n;
    compare_all(*simd, make_log2_table(), false, n);
    std::printf("[vif-checkasm] %s scale_pass: %lld passes (%lld pixels of statistic, %lld halved samples) identical "
                "to C\n",
                simd->name, n.passes, n.pixels, n.samples);
}

// The SIMD kernels read the log2 table as byte offsets from a chord where
// they fit (libvmaf's table) and as the uint16 table where they do not: both
// ways with tables other than libvmaf's, the C kernel reading them as given.
void equals_c_with_other_tables(Isa which) {
    const Kernels* simd = simd_kernel(which);
    if (!simd) GTEST_SKIP() << no_kernel(which);
    std::mt19937 rng(11);
    std::vector<uint16_t> within = make_log2_table(), beyond = within;
    for (int i = 32768; i < 65536; i++) {
        // (libvmaf's offsets are 0..177: up to 78 more stays in a byte)
        within[static_cast<size_t>(i)] = static_cast<uint16_t>(within[static_cast<size_t>(i)] + rng() % 79);
        beyond[static_cast<size_t>(i)] = static_cast<uint16_t>(rng());
    }
    Counts n;
    compare_all(*simd, within, true, n);
    compare_all(*simd, beyond, true, n);
    std::printf("[vif-checkasm] %s scale_pass with two other log2 tables (offsets within a byte, and not): %lld "
                "passes (%lld pixels of statistic) identical to C\n",
                simd->name, n.passes, n.pixels);
}

TEST(VifCheckasm, ScalePassEqualsC) { equals_c(Isa::avx2); }
TEST(VifCheckasm, ScalePassEqualsCWithOtherLog2Tables) { equals_c_with_other_tables(Isa::avx2); }
TEST(VifCheckasm, Avx512ScalePassEqualsC) { equals_c(Isa::avx512); }
TEST(VifCheckasm, Avx512ScalePassEqualsCWithOtherLog2Tables) { equals_c_with_other_tables(Isa::avx512); }

// Each dispatch picks its kernel: C for c, AVX2 for avx2, and AVX-512 where
// the CPU has it with VNNI (else AVX2).
TEST(VifCheckasm, DispatchPicksItsKernel) {
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
}  // namespace speedqa::vif

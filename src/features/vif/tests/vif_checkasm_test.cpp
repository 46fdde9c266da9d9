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

struct ScratchBuf {
    explicit ScratchBuf(int w) {
        const size_t len = row_lane_len(w);
        lanes.assign(5 * len, 0xdeadbeefu);
        wide.assign(3 * len, -12345.0);
        rs.lane_len = len;
        for (int q = 0; q < 5; q++) rs.lanes[q] = lanes.data() + q * len;
        for (int q = 0; q < 3; q++) rs.wide[q] = wide.data() + q * len;
    }
    std::vector<uint32_t> lanes;
    std::vector<double> wide;
    RowScratch rs;
};

// The (scale, sample bits) combinations the frame driver runs: scale 0 on
// the video's samples, later scales on 16-bit ones.
struct Case {
    int scale, bits, bitdepth;
};
std::vector<Case> stat_cases() {
    std::vector<Case> c;
    for (int bd : {8, 10, 12, 16}) c.push_back({0, bd, bd});
    for (int s = 1; s < 4; s++)
        for (int bd : {8, 10, 12, 16}) c.push_back({s, 16, bd});
    return c;
}

const int kWidths[] = {2, 3, 5, 7, 8, 9, 15, 16, 17, 24, 31, 33, 64, 100, 255, 256, 257, 263, 300, 513, 777};

TEST(VifCheckasm, StatRowEqualsC) {
    const Kernels* simd = kernels_avx2();
    if (!simd) GTEST_SKIP() << "no AVX2 on this CPU";
    const std::vector<uint16_t> table = make_log2_table();
    std::mt19937 rng(7);
    long long rows = 0, pixels = 0;
    for (const Case& c : stat_cases())
        for (int w : kWidths)
            for (Pattern pr : kPatterns)
                for (Pattern pd : {pr, Pattern::random, Pattern::extremes})
                    for (double limit : {100.0, 1.0, 1.37}) {
                        const ev::Filter f = ev::filter(c.scale);
                        const Rows ref = make_rows(c.bits, w, f.width, pr, rng);
                        const Rows dis = make_rows(c.bits, w, f.width, pd, rng);
                        std::vector<const void*> rr, dr;
                        for (int k = 0; k < f.width; k++) {
                            rr.push_back(ref.row(k));
                            dr.push_back(dis.row(k));
                        }
                        const std::vector<int> cols = padded_sources(w);
                        StatRowArgs a;
                        a.ref_rows = rr.data();
                        a.dis_rows = dr.data();
                        a.bits = c.bits;
                        a.w = w;
                        a.filter = f;
                        a.rounding = ev::stat_rounding(c.scale, c.bitdepth);
                        a.col_src = cols.data() + ev::kMaxRadius;
                        a.gain_limit = limit;
                        a.log2_table = table.data();
                        ScratchBuf s1(w), s2(w);
                        ev::Sums want, got;
                        kernels_c().stat_row(a, s1.rs, want);
                        simd->stat_row(a, s2.rs, got);
                        ASSERT_TRUE(want == got)
                            << simd->name << " scale " << c.scale << " bits " << c.bits << " w " << w << " ref "
                            << name(pr) << " dis " << name(pd) << " limit " << limit << ": num_log " << got.num_log
                            << " vs " << want.num_log << ", den_log " << got.den_log << " vs " << want.den_log
                            << ", num_non_log " << got.num_non_log << " vs " << want.num_non_log << ", den_non_log "
                            << got.den_non_log << " vs " << want.den_non_log;
                        rows++;
                        pixels += w;
                    }
    std::printf("[vif-checkasm] stat_row: %lld rows (%lld pixels) identical to C\n", rows, pixels);
}

TEST(VifCheckasm, HalveRowEqualsC) {
    const Kernels* simd = kernels_avx2();
    if (!simd) GTEST_SKIP() << "no AVX2 on this CPU";
    std::mt19937 rng(11);
    long long rows = 0, samples = 0;
    for (int scale = 1; scale < 4; scale++)
        for (int bd : {8, 10, 12, 16})
            for (int w : kWidths)
                for (Pattern p : kPatterns) {
                    const int bits = scale == 1 ? bd : 16;
                    const ev::Filter f = ev::filter(scale);
                    const Rows ref = make_rows(bits, w, f.width, p, rng);
                    const Rows dis = make_rows(bits, w, f.width, Pattern::random, rng);
                    std::vector<const void*> rr, dr;
                    for (int k = 0; k < f.width; k++) {
                        rr.push_back(ref.row(k));
                        dr.push_back(dis.row(k));
                    }
                    const std::vector<int> cols = padded_sources(w);
                    std::vector<uint16_t> want[2], got[2];
                    for (auto* v : {&want[0], &want[1], &got[0], &got[1]}) v->assign(static_cast<size_t>(w / 2) + 1, 0xbeef);
                    HalveRowArgs a;
                    a.ref_rows = rr.data();
                    a.dis_rows = dr.data();
                    a.bits = bits;
                    a.w_in = w;
                    a.filter = f;
                    a.vertical = ev::halving_rounding(scale, bd);
                    a.col_src = cols.data() + ev::kMaxRadius;
                    ScratchBuf s1(w), s2(w);
                    a.ref_out = want[0].data();
                    a.dis_out = want[1].data();
                    kernels_c().halve_row(a, s1.rs);
                    a.ref_out = got[0].data();
                    a.dis_out = got[1].data();
                    simd->halve_row(a, s2.rs);
                    ASSERT_EQ(want[0], got[0]) << simd->name << " ref, scale " << scale << " bits " << bits << " w " << w
                                               << " " << name(p);
                    ASSERT_EQ(want[1], got[1]) << simd->name << " dis, scale " << scale << " bits " << bits << " w " << w;
                    rows++;
                    samples += w / 2;
                }
    std::printf("[vif-checkasm] halve_row: %lld rows (%lld output samples) identical to C\n", rows, samples);
}

}  // namespace
}  // namespace speedqa::vif

// checkasm style: every kernel variant against the C reference, and the C
// reference against the direct definitions (oracle.hpp), on random and
// adversarial inputs: each bit depth's extremes, flat planes, checkerboards,
// odd and minimal sizes, windows as large as the picture. Exact ==.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "features/cambi/cambi.hpp"
#include "features/cambi/exact/arith.hpp"
#include "features/cambi/kernels.hpp"
#include "features/cambi/plan.hpp"
#include "features/cambi/pooling.hpp"
#include "oracle.hpp"

namespace speedqa::cambi {
namespace {

std::vector<const Kernels*> simd_variants() {
    std::vector<const Kernels*> v;
    if (const Kernels* k = kernels_avx2()) v.push_back(k);
    if (const Kernels* k = kernels_avx512()) v.push_back(k);
    return v;
}

Plan plan_for(const std::string& options) {
    VideoFormat f;
    f.width = 1920;
    f.height = 1080;
    OptionValues o("cambi", cambi_feature().options);
    const FeatureRequest r = parse_feature_request(options);
    for (const auto& [key, value] : r.options) o.set(key, value);
    return make_plan(f, o);
}

enum class Kind { random, few_levels, flat, checkerboard, stripes, extremes };
const Kind kKinds[] = {Kind::random, Kind::few_levels, Kind::flat, Kind::checkerboard, Kind::stripes, Kind::extremes};

// A picture of 10-bit values (0 .. 1024) around `base` and a mask of the given density.
oracle::Picture10 picture(int w, int h, Kind kind, int base, double density, std::mt19937& rng) {
    oracle::Picture10 p;
    p.w = w;
    p.h = h;
    p.value.resize(static_cast<size_t>(w) * h);
    p.mask.resize(p.value.size());
    std::uniform_int_distribution<int> any(0, 1024), small(0, 5);
    std::bernoulli_distribution masked(density), coin(0.5);
    for (int r = 0; r < h; r++)
        for (int c = 0; c < w; c++) {
            int v = base;
            switch (kind) {
            case Kind::random: v = any(rng); break;
            case Kind::few_levels: v = base + small(rng); break;
            case Kind::flat: break;
            case Kind::checkerboard: v = base + ((r + c) & 1); break;
            case Kind::stripes: v = base + (c / 3) % 4; break;
            case Kind::extremes: v = coin(rng) ? 0 : 1024; break;
            }
            p.value[static_cast<size_t>(r) * w + c] = static_cast<uint16_t>(std::clamp(v, 0, 1024));
            p.mask[static_cast<size_t>(r) * w + c] = masked(rng);
        }
    return p;
}

// Scratch and outputs of one banding run.
struct BandingRun {
    std::vector<uint16_t> levels;
    std::vector<uint8_t> columns;
    std::vector<uint64_t> nonzero;
    std::vector<float> values;  // the nonzero ones, as written
    BandingStats stats;
    std::vector<float> dense;   // every pixel's value
};

// The nonzero bits and values of a dense array, as the banding pass writes them.
void sparse(const std::vector<float>& dense, std::vector<uint64_t>& bits, std::vector<float>& values) {
    bits.assign(banding_bits_words(dense.size()), 0);
    values.clear();
    for (size_t i = 0; i < dense.size(); i++)
        if (dense[i] != 0.0f) {
            bits[i / 64] |= uint64_t{1} << (i % 64);
            values.push_back(dense[i]);
        }
}

BandingRun run_banding(const Kernels& k, const oracle::Picture10& p, int pad, const Plan& plan,
                       std::mt19937* bands_rng = nullptr) {
    auto bands = [&]() -> unsigned { return bands_rng ? (*bands_rng)() : 0u; };
    BandingRun run;
    run.levels = oracle::levels(p, plan.levels);
    run.columns.resize(banding_scratch_bytes(p.w, pad, plan.levels));
    run.nonzero.assign(banding_bits_words(p.value.size()), ~uint64_t{0});
    run.values.assign(banding_values_room(p.value.size()), -1.0f);
    BandingArgs a;
    a.levels = run.levels.data();
    a.width = p.w;
    a.height = p.h;
    a.pad = pad;
    a.plan = &plan;
    a.columns = run.columns.data();
    a.nonzero = run.nonzero.data();
    a.values = run.values.data();
    // In bands of random heights, as the pipeline calls it.
    for (int from = 0; from < p.h;) {
        const int to = bands_rng ? std::min(p.h, from + 1 + static_cast<int>(bands() % 7)) : p.h;
        k.banding(a, from, to, &run.stats);
        from = to;
    }
    run.values.resize(static_cast<size_t>(run.stats.nonzero));
    size_t next = 0;
    for (size_t i = 0; i < p.value.size(); i++)
        run.dense.push_back(run.nonzero[i / 64] >> (i % 64) & 1 ? run.values.at(next++) : 0.0f);
    EXPECT_EQ(next, run.values.size()) << k.name << ": bits and values disagree";
    for (size_t i = p.value.size(); i < run.nonzero.size() * 64; i++)
        EXPECT_FALSE(run.nonzero[i / 64] >> (i % 64) & 1) << k.name << ": a bit past the picture";
    return run;
}

void expect_same_stats(const BandingStats& want, const BandingStats& got) {
    EXPECT_EQ(want.nonzero, got.nonzero);
    EXPECT_EQ(want.smallest, got.smallest);
    if (want.nonzero && order_free(want.sum, want.smallest)) {
        EXPECT_EQ(want.sum, got.sum);
    }
}

TEST(CambiKernels, ConvertRow) {
    std::mt19937 rng(1);
    for (int bd : {8, 9, 10, 12, 16})
        for (int n : {1, 2, 15, 16, 17, 31, 33, 64, 100, 1921}) {
            const int bytes = bd > 8 ? 2 : 1;
            std::vector<uint8_t> src(static_cast<size_t>(n) * bytes);
            std::uniform_int_distribution<int> any(0, (1 << bd) - 1);
            for (int j = 0; j < n; j++) {
                int s = j % 7 == 0 ? (1 << bd) - 1 : j % 11 == 0 ? 0 : any(rng);
                if (bd == 10 && j == n / 2 && n > 40) s = 65535;  // out of range: reported, not clipped
                src[static_cast<size_t>(j) * bytes] = static_cast<uint8_t>(s);
                if (bytes == 2) src[static_cast<size_t>(j) * 2 + 1] = static_cast<uint8_t>(s >> 8);
            }
            std::vector<uint16_t> want(static_cast<size_t>(n));
            const unsigned top = kernels_c().convert_row(want.data(), src.data(), n, bd);
            for (int j = 0; j < n; j++) {
                const unsigned s = bytes == 2 ? static_cast<unsigned>(src[2 * j] | src[2 * j + 1] << 8) : src[j];
                ASSERT_EQ(want[static_cast<size_t>(j)], to_10bit(s, bd));
            }
            for (const Kernels* k : simd_variants()) {
                std::vector<uint16_t> got(static_cast<size_t>(n));
                EXPECT_EQ(k->convert_row(got.data(), src.data(), n, bd), top) << k->name << " bd " << bd << " n " << n;
                EXPECT_EQ(got, want) << k->name << " bd " << bd << " n " << n;
            }
        }
    EXPECT_EQ(to_10bit(65535, 16), 1024);
    EXPECT_EQ(to_10bit(4095, 12), 1024);
    EXPECT_EQ(to_10bit(255, 8), 1020);
}

TEST(CambiKernels, AntiDithering) {
    std::mt19937 rng(2);
    std::uniform_int_distribution<int> any(0, 1024);
    for (int n : {1, 2, 3, 16, 17, 18, 33, 70, 1920}) {
        std::vector<uint16_t> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
        for (int j = 0; j < n; j++) {
            a[static_cast<size_t>(j)] = static_cast<uint16_t>(j % 5 == 0 ? 1024 : any(rng));
            b[static_cast<size_t>(j)] = static_cast<uint16_t>(j % 3 == 0 ? 1024 : any(rng));
        }
        std::vector<uint16_t> want = a, want_last = a;
        kernels_c().antidither_row(want.data(), b.data(), n);
        kernels_c().antidither_last_row(want_last.data(), n);
        for (int j = 0; j + 1 < n; j++) {
            ASSERT_EQ(want[static_cast<size_t>(j)], (a[j] + a[j + 1] + b[j] + b[j + 1]) >> 2);
            ASSERT_EQ(want_last[static_cast<size_t>(j)], (a[j] + a[j + 1]) >> 1);
        }
        ASSERT_EQ(want[static_cast<size_t>(n - 1)], (a[n - 1] + b[n - 1]) >> 1);
        ASSERT_EQ(want_last[static_cast<size_t>(n - 1)], a[static_cast<size_t>(n - 1)]);
        for (const Kernels* k : simd_variants()) {
            std::vector<uint16_t> got = a, got_last = a;
            k->antidither_row(got.data(), b.data(), n);
            k->antidither_last_row(got_last.data(), n);
            EXPECT_EQ(got, want) << k->name << " n " << n;
            EXPECT_EQ(got_last, want_last) << k->name << " n " << n;
        }
    }
}

const int kSizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {3, 3}, {7, 7}, {8, 8}, {17, 5}, {33, 17}, {40, 41}, {67, 38}, {130, 9}};

// The spatial mask of a whole picture through a kernel's row functions, in
// the order the picture's pass calls them; with odd_rows false, the odd rows
// are not asked for (left 7).
std::vector<uint8_t> spatial_mask_rows(const Kernels& k, const oracle::Picture10& p, int threshold, bool odd_rows = true) {
    const int w = p.w, h = p.h;
    std::vector<uint8_t> scratch(mask_scratch_bytes(w), 0);
    std::vector<uint8_t> got(p.value.size() + kSpare, 7);
    const auto row = [&](int r) { return p.value.data() + static_cast<size_t>(r) * w; };
    const auto add = [&](int r) { k.mask_add_row(scratch.data(), row(r), r + 1 < h ? row(r + 1) : nullptr, w, r); };
    for (int r = 0; r < kMaskPad && r < h; r++) add(r);
    for (int r = 0; r < h; r++) {
        if (r + kMaskPad < h) add(r + kMaskPad);
        k.mask_row(odd_rows || r % 2 == 0 ? got.data() + static_cast<size_t>(r) * w : nullptr, scratch.data(), w, r,
                   threshold);
    }
    got.resize(p.value.size());
    return got;
}

TEST(CambiKernels, SpatialMask) {
    std::mt19937 rng(3);
    for (const auto& s : kSizes)
        for (Kind kind : kKinds)
            for (int threshold : {0, 7, 15, 21, 24, 27, 48}) {
                const int w = s[0], h = s[1];
                const oracle::Picture10 p = picture(w, h, kind, 300, 1.0, rng);
                const std::vector<uint8_t> want = oracle::spatial_mask(p, threshold);
                std::vector<uint8_t> want_even = want;
                for (int r = 1; r < h; r += 2) std::fill_n(want_even.begin() + static_cast<ptrdiff_t>(r) * w, w, uint8_t{7});
                for (const Kernels* k : [&] { auto v = simd_variants(); v.insert(v.begin(), &kernels_c()); return v; }()) {
                    ASSERT_EQ(spatial_mask_rows(*k, p, threshold), want) << k->name << " " << w << "x" << h << " threshold " << threshold;
                    ASSERT_EQ(spatial_mask_rows(*k, p, threshold, false), want_even)
                        << k->name << " " << w << "x" << h << " threshold " << threshold << ", even rows only";
                }
            }
}

TEST(CambiKernels, DecimateRow) {
    std::mt19937 rng(4);
    for (const auto& s : kSizes)
        for (Kind kind : {Kind::random, Kind::extremes}) {
            const int w = s[0], h = s[1], dw = (w + 1) / 2;
            oracle::Picture10 p = picture(w, h, kind, 0, 0.5, rng);
            p.value.resize(p.value.size() + kSpare);
            p.mask.resize(p.mask.size() + kSpare);
            for (const Kernels* k : [&] { auto v = simd_variants(); v.insert(v.begin(), &kernels_c()); return v; }()) {
                for (int r = 0; r < h; r++)
                    for (bool in_place : {false, true}) {
                        std::vector<uint16_t> img = p.value;
                        std::vector<uint8_t> mask = p.mask;
                        const size_t o = static_cast<size_t>(r) * w;
                        std::vector<uint16_t> dst(static_cast<size_t>(dw) + kSpare, 9);
                        std::vector<uint8_t> dst_mask(static_cast<size_t>(dw) + kSpare, 9);
                        uint16_t* d = in_place ? img.data() + o : dst.data();
                        uint8_t* dm = in_place ? mask.data() + o : dst_mask.data();
                        k->decimate_row(d, dm, img.data() + o, mask.data() + o, dw);
                        for (int c = 0; c < dw; c++) {
                            ASSERT_EQ(d[c], p.at(r, 2 * c)) << k->name << " " << w << "x" << h << " row " << r;
                            ASSERT_EQ(dm[c], p.mask[o + 2 * c]) << k->name << " " << w << "x" << h << " row " << r;
                        }
                        if (!in_place) {
                            ASSERT_EQ(dst[dw], 9) << k->name << ": written past the row";
                            ASSERT_EQ(dst_mask[dw], 9) << k->name << ": written past the mask row";
                        }
                    }
            }
        }
}

TEST(CambiKernels, FilterScale) {
    std::mt19937 rng(5);
    const Plan plan = plan_for("cambi");
    for (const auto& s : kSizes)
        for (Kind kind : kKinds)
            for (bool decimate : {false, true}) {
                const int w = s[0], h = s[1];
                oracle::Picture10 p = picture(w, h, kind, kind == Kind::random ? 0 : 560, 0.7, rng);
                // The definition: mode filter, levels of the filtered picture, every other row and column.
                oracle::Picture10 filtered = p;
                filtered.value = oracle::mode_filter(p);
                const std::vector<uint16_t> want_levels = oracle::levels(filtered, plan.levels);
                std::vector<uint16_t> image_c;
                std::vector<uint8_t> mask_c;
                for (const Kernels* k : [&] { auto v = simd_variants(); v.insert(v.begin(), &kernels_c()); return v; }()) {
                    std::vector<uint16_t> image = p.value, levels(p.value.size()), scratch(static_cast<size_t>(3) * w);
                    std::vector<uint8_t> mask = p.mask;
                    image.resize(image.size() + kSpare);
                    mask.resize(mask.size() + kSpare);
                    ScaleArgs a;
                    a.image = image.data();
                    a.mask = mask.data();
                    a.stride = w;
                    a.width = w;
                    a.height = h;
                    a.levels = &plan.levels;
                    a.level_out = levels.data();
                    a.decimate = decimate;
                    a.scratch = scratch.data();
                    // In steps of random lengths, as the pipeline calls it.
                    for (int from = 0; from < h;) {
                        const int to = std::min(h, from + 1 + static_cast<int>(rng() % 5));
                        k->filter_scale(a, from, to);
                        from = to;
                    }
                    ASSERT_EQ(levels, want_levels) << k->name << " " << w << "x" << h;
                    if (!decimate) {
                        image.resize(p.value.size());
                        ASSERT_EQ(image, filtered.value) << k->name << " " << w << "x" << h;
                    } else {
                        for (int r = 0; 2 * r < h; r++)
                            for (int c = 0; 2 * c < w; c++) {
                                ASSERT_EQ(image[static_cast<size_t>(r) * w + c], filtered.at(2 * r, 2 * c)) << k->name;
                                ASSERT_EQ(mask[static_cast<size_t>(r) * w + c], p.mask[static_cast<size_t>(2 * r) * w + 2 * c]) << k->name;
                            }
                    }
                    // Every variant leaves the buffers as the C reference does.
                    if (k == &kernels_c()) {
                        image_c = image;
                        mask_c = mask;
                    } else {
                        EXPECT_EQ(image, image_c) << k->name;
                        EXPECT_EQ(mask, mask_c) << k->name;
                    }
                }
            }
}

const char* const kPlans[] = {
    "cambi",
    "cambi=max_log_contrast=0",
    "cambi=max_log_contrast=3:tvi_threshold=0.05",
    "cambi=max_log_contrast=4",
    "cambi=max_log_contrast=5:tvi_threshold=0.0001",
    "cambi=cambi_vis_lum_threshold=0.06",
    "cambi=cambi_vis_lum_threshold=300",  // the band is empty: every value 0
    "cambi=eotf=pq:tvi_threshold=0.3",
    "cambi=tvi_threshold=1",
};

TEST(CambiKernels, BandingAgainstDefinition) {
    std::mt19937 rng(6);
    std::uniform_int_distribution<int> base(0, 1024);
    long long nonzero_total = 0;
    for (const char* options : kPlans) {
        const Plan plan = plan_for(options);
        for (const auto& s : {std::array<int, 2>{1, 1}, {5, 3}, {9, 9}, {17, 12}, {31, 23}})
            for (int pad : {0, 1, 2, 3, 5, 8})
                for (Kind kind : kKinds) {
                    const int w = s[0], h = s[1];
                    if (pad > w || pad > h) continue;
                    const oracle::Picture10 p = picture(w, h, kind, base(rng), 0.8, rng);
                    const std::vector<float> want = oracle::banding_values(p, pad, plan);
                    const BandingRun c = run_banding(kernels_c(), p, pad, plan);
                    ASSERT_EQ(c.dense, want) << options << " " << w << "x" << h << " pad " << pad;
                    long long nonzero = 0;
                    for (float v : want) nonzero += v != 0.0f;
                    EXPECT_EQ(c.stats.nonzero, nonzero);
                    nonzero_total += nonzero;
                }
    }
    EXPECT_GT(nonzero_total, 10000);
}

TEST(CambiKernels, BandingVariants) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> base(0, 1024);
    long long nonzero_total = 0;
    for (const char* options : kPlans) {
        const Plan plan = plan_for(options);
        for (const auto& s : {std::array<int, 2>{16, 16}, {33, 20}, {97, 61}, {240, 135}, {300, 40}})
            for (int pad : {0, 3, 8, 16, 32})
                for (Kind kind : kKinds)
                    for (double density : {0.3, 1.0}) {
                        const int w = s[0], h = s[1];
                        if (pad > w || pad > h) continue;
                        const oracle::Picture10 p = picture(w, h, kind, base(rng), density, rng);
                        const BandingRun want = run_banding(kernels_c(), p, pad, plan);
                        for (const Kernels* k : [&] { auto v = simd_variants(); v.insert(v.begin(), &kernels_c()); return v; }()) {
                            const BandingRun got = run_banding(*k, p, pad, plan, &rng);
                            ASSERT_EQ(got.nonzero, want.nonzero) << k->name << " " << options << " " << w << "x" << h << " pad " << pad;
                            ASSERT_EQ(got.values, want.values) << k->name << " " << options << " " << w << "x" << h << " pad " << pad;
                            expect_same_stats(want.stats, got.stats);
                        }
                        nonzero_total += want.stats.nonzero;
                    }
    }
    EXPECT_GT(nonzero_total, 100000);
}

// Banding-like values: zeros and floats of at least 0.5.
std::vector<float> pool_values(int n, double zeros, float scale, bool ties, std::mt19937& rng) {
    std::vector<float> v(static_cast<size_t>(n));
    std::bernoulli_distribution zero(zeros);
    std::uniform_real_distribution<float> any(0.5f, scale);
    for (auto& x : v) x = zero(rng) ? 0.0f : ties ? std::floor(any(rng)) + 0.5f : any(rng);
    return v;
}

BandingStats stats_of(const std::vector<float>& v) {
    BandingStats st;
    for (float x : v)
        if (x != 0.0f) {
            st.smallest = st.nonzero ? std::min(st.smallest, x) : x;
            st.nonzero++;
            st.sum += x;
        }
    return st;
}

TEST(CambiPooling, EqualsLibvmafQuickselect) {
    std::mt19937 rng(8);
    int replayed = 0, order_free_cases = 0;
    for (int n : {1, 2, 3, 10, 1000, 65536, 300000})
        for (double zeros : {0.0, 0.5, 0.9, 0.99, 1.0})
            for (float scale : {2.0f, 1000.0f, 20000.0f})
                for (bool ties : {false, true})
                    for (double topk : {0.0001, 0.2, 0.6, 1.0}) {
                        if (n > 1000 && (topk == 0.0001 || ties)) continue;
                        const std::vector<float> v = pool_values(n, zeros, scale, ties, rng);
                        std::vector<float> ref = v, scratch(v.size()), values;
                        std::vector<uint64_t> bits;
                        sparse(v, bits, values);
                        const int k = topk_count(topk, n);
                        select_largest(ref.data(), n, k);
                        const double want = mean_of_first(ref.data(), k);
                        const BandingStats st = stats_of(v);
                        const double got = topk_mean(bits.data(), values.data(), n, st, topk, scratch.data());
                        ASSERT_EQ(got, want) << "n " << n << " zeros " << zeros << " scale " << scale << " topk " << topk;
                        double fast = 0;
                        if (mean_after_zero_pivot(bits.data(), values.data(), st.nonzero, n, k, &fast)) {
                            replayed++;
                            EXPECT_EQ(fast, want);
                        }
                        order_free_cases += st.nonzero && order_free(st.sum, st.smallest);
                    }
    // Both the order-free sums and the one-pass replay were exercised.
    EXPECT_GT(replayed, 10);
    EXPECT_GT(order_free_cases, 10);
}

}  // namespace
}  // namespace speedqa::cambi

// Feature::kernel_target says which targets build the same kernel: a
// feature whose kernels ignore libvmaf's dispatch (VIF, motion, CAMBI) maps
// every dispatch onto one, CAMBI maps AVX-512 onto its AVX2 kernels. The
// golden tests compute such runs once and compare them with every
// dispatch's file, so the claim is checked here: every target, run on the
// same frames, gives bit for bit the values of its kernel target, for every
// feature, where the dispatch changes values (ADM with adm_csf_mode=1,
// SpEED's covariance order) included.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/cpu_flags.hpp"
#include "core/feature.hpp"
#include "features/registry.hpp"
#include "support/run_feature.hpp"

namespace speedqa {
namespace {

// Smooth content with noise: real blocks for CAMBI's bands and ADM's masks.
struct Frame {
    std::vector<uint16_t> data;
    Picture pic;
    Frame(const VideoFormat& f, uint32_t seed) : data(f.frame_bytes() / 2 + 1) {
        std::mt19937 rng(seed);
        const int max = (1 << f.bitdepth) - 1;
        const size_t n = f.bitdepth > 8 ? data.size() : data.size() * 2;
        for (size_t i = 0; i < n; i++) {
            const int smooth = static_cast<int>((i / 7 + (i / 1931) * 3) % static_cast<size_t>(max + 1));
            const int v = std::min(max, std::max(0, smooth + static_cast<int>(rng() % 9) - 4));
            if (f.bitdepth > 8) data[i] = static_cast<uint16_t>(v);
            else reinterpret_cast<uint8_t*>(data.data())[i] = static_cast<uint8_t>(v);
        }
        pic = picture_in_frame(f, reinterpret_cast<const uint8_t*>(data.data()));
    }
};

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

TEST(KernelTarget, EqualKernelTargetsGiveTheSameValues) {
    struct Case {
        VideoFormat format;
        std::string feature;
        std::vector<std::pair<std::string, std::string>> options;
    };
    std::vector<Case> cases;
    for (const VideoFormat& f : {VideoFormat{352, 288, PixelFormat::yuv420, 8}, VideoFormat{352, 288, PixelFormat::yuv444, 10}})
        for (const FeatureDef* def : all_features()) cases.push_back({f, def->name, {}});
    cases.push_back({{352, 288, PixelFormat::yuv420, 8}, "adm", {{"adm_csf_mode", "1"}}});

    std::vector<Isa> isas{Isa::c};
    const CpuFlags flags = detect_cpu_flags();
    if (flags.avx2) isas.push_back(Isa::avx2);
    if (flags.avx512) isas.push_back(Isa::avx512);
    long long targets = 0, mapped = 0;
    for (const Case& c : cases) {
        const FeatureDef* def = find_feature(c.feature);
        ASSERT_NE(def, nullptr) << c.feature;
        const auto feature = make_feature(*def, c.format, c.options);
        const Frame ref0(c.format, 11), dis0(c.format, 12), ref1(c.format, 13), dis1(c.format, 14), ref2(c.format, 15),
            dis2(c.format, 16);
        const Picture* refs[3] = {&ref0.pic, &ref1.pic, &ref2.pic};
        const Picture* diss[3] = {&dis0.pic, &dis1.pic, &dis2.pic};
        const FrameView view = testing::third_frame_view(refs, diss);
        const auto raw = [&](const CpuTarget& t) {
            const auto kernel = feature->make_cpu_kernel(t);
            std::vector<double> out(static_cast<size_t>(feature->raw_count()));
            kernel->extract(*kernel->make_scratch(), view, out.data());
            return out;
        };
        for (Isa isa : isas)
            for (Dispatch d : {Dispatch::scalar, Dispatch::avx2, Dispatch::avx512})
                for (bool straightforward : {false, true}) {
                    const CpuTarget t{isa, d, straightforward};
                    const CpuTarget k = feature->kernel_target(t);
                    SCOPED_TRACE(feature->canonical() + " at " + c.format.describe() + ": isa " +
                                 std::to_string(static_cast<int>(isa)) + ", dispatch " + dispatch_name(d) +
                                 (straightforward ? ", straightforward" : ""));
                    // the kernel target is its own kernel target
                    const CpuTarget kk = feature->kernel_target(k);
                    EXPECT_TRUE(kk.isa == k.isa && kk.dispatch == k.dispatch && kk.straightforward == k.straightforward);
                    targets++;
                    if (k.isa == t.isa && k.dispatch == t.dispatch && k.straightforward == t.straightforward) continue;
                    mapped++;
                    EXPECT_TRUE(same_bits(raw(t), raw(k))) << "values differ from those of its kernel target";
                }
    }
    std::printf("[kernel-target] %lld targets of %zu feature cases; %lld mapped onto another target, each with its "
                "values bit for bit\n",
                targets, cases.size(), mapped);
    EXPECT_GT(mapped, 0);
}

}  // namespace
}  // namespace speedqa

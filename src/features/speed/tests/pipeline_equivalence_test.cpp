// The fast CPU pipeline (filter only at the kept points, prescale only the
// pixels they read, all covariance pairs at once) against the straightforward
// full-frame path, on random planes, for every option the reference has.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "features/speed/plan.hpp"
#include "features/speed/cpu/image_pipeline.hpp"
#include "features/speed/reference/full_frame.hpp"

namespace speedqa {
namespace {

struct Plane {
    int w, h, bitdepth;
    std::vector<uint8_t> bytes;
    ptrdiff_t stride() const { return static_cast<ptrdiff_t>(w) * (bitdepth > 8 ? 2 : 1); }
};

// Smooth structure plus noise, so covariances are regular and scores vary;
// `flat` gives a constant plane (singular covariance).
Plane random_plane(std::mt19937& rng, int w, int h, int bitdepth, bool flat = false) {
    Plane p{w, h, bitdepth, {}};
    const int maxv = (1 << bitdepth) - 1;
    p.bytes.resize(static_cast<size_t>(p.stride()) * h);
    std::uniform_real_distribution<double> u(0, 1);
    const double fx = 0.01 + 0.2 * u(rng), fy = 0.01 + 0.2 * u(rng), noise = 0.02 + 0.3 * u(rng);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double v = flat ? 0.5 : 0.5 + 0.25 * std::sin(fx * x) * std::cos(fy * y) + noise * (u(rng) - 0.5);
            const int s = std::clamp(static_cast<int>(v * maxv), 0, maxv);
            if (bitdepth == 8) p.bytes[static_cast<size_t>(y) * w + x] = static_cast<uint8_t>(s);
            else {
                const uint16_t s16 = static_cast<uint16_t>(s);
                std::memcpy(&p.bytes[(static_cast<size_t>(y) * w + x) * 2], &s16, 2);
            }
        }
    return p;
}

ImageSource source_of(const Plane& a, const Plane* b) {
    ImageSource s;
    s.a = {a.bytes.data(), a.stride()};
    if (b) {
        s.b = {b->bytes.data(), b->stride()};
        s.difference = true;
    }
    s.bitdepth = a.bitdepth;
    return s;
}

void expect_same_stats(const ImageStats& fast, const ImageStats& full, const std::string& what) {
    SCOPED_TRACE(what);
    EXPECT_EQ(fast.singular, full.singular);
    EXPECT_EQ(0, std::memcmp(fast.eigenvalues, full.eigenvalues, sizeof fast.eigenvalues));
    ASSERT_EQ(fast.variances.size(), full.variances.size());
    EXPECT_EQ(0, std::memcmp(fast.variances.data(), full.variances.data(), fast.variances.size() * sizeof(float)));
}

struct Case {
    int w, h, bitdepth;
    SpeedOptions opt;
    bool difference;
    bool flat;
};

void run_case(const Case& c, std::mt19937& rng, long long& compared) {
    const ImagePlan plan = make_plan(c.w, c.h, c.opt, "test");
    const Plane a = random_plane(rng, c.w, c.h, c.bitdepth, c.flat);
    const Plane b = random_plane(rng, c.w, c.h, c.bitdepth, c.flat);
    const ImageSource src = source_of(a, c.difference ? &b : nullptr);
    for (exact::CovOrder order : {exact::CovOrder::scalar, exact::CovOrder::avx2, exact::CovOrder::avx512}) {
        cpu::ImagePipeline fast(plan, order);
        reference::FullFramePipeline full(plan, order);
        ImageStats s1, s2;
        fast.run(src, s1);
        full.run(src, s2);
        ASSERT_EQ(fast.decimated(), full.decimated());
        const std::string what = std::to_string(c.w) + "x" + std::to_string(c.h) + " " + std::to_string(c.bitdepth) +
                                 "-bit ks=" + std::to_string(c.opt.kernelscale) + " ps=" + std::to_string(c.opt.prescale) +
                                 " " + c.opt.prescale_method + " order=" + std::to_string(static_cast<int>(order));
        expect_same_stats(s1, s2, what);
        compared += exact::kBlockElems + static_cast<long long>(s1.variances.size()) + fast.decimated().size();
    }
}

TEST(PipelineEquivalence, EveryKernelscaleAndBitdepth) {
    std::mt19937 rng(1234);
    const double kernelscales[] = {1.0, 0.5, 1.5, 2.0, 2.0 / 3, 2.4, 360.0 / 97, 4.0 / 3, 3.5 / 3, 3.75 / 3, 4.25 / 3,
                                   5.0 / 3, 3.0, 1 / 2.25, 1.4746, 1.54, 1.6, 1.06667, 0.711111, 0.74074, 1.111111};
    long long compared = 0;
    int i = 0;
    for (double ks : kernelscales) {
        SpeedOptions o;
        o.kernelscale = ks;
        const int bd = std::array{8, 10, 12, 16}[static_cast<size_t>(i % 4)];
        run_case({160 + 7 * i, 96 + 5 * i, bd, o, (i % 3) == 0, false}, rng, compared);
        i++;
    }
    std::printf("[equivalence] kernelscales: %lld values identical\n", compared);
}

TEST(PipelineEquivalence, EveryPrescaleMethod) {
    std::mt19937 rng(99);
    long long compared = 0;
    const double prescales[] = {0.5, 0.7, 1.5, 2.0, 0.33, 1.0007 /* skipped by the reference: size kept */, 3.1};
    for (const char* method : {"nearest", "bilinear", "bicubic", "lanczos4"})
        for (double ps : prescales) {
            SpeedOptions o;
            o.prescale = ps;
            o.prescale_method = method;
            const int w = ps < 1 ? 330 : 101, h = ps < 1 ? 250 : 93;
            if (ps == 1.0007) {
                // |ps - 1| < 1e-3 and the size does not change: no prescale at all
                run_case({200, 120, 8, o, false, false}, rng, compared);
                continue;
            }
            run_case({w, h, 10, o, std::string(method) == "bicubic", false}, rng, compared);
        }
    std::printf("[equivalence] prescale: %lld values identical\n", compared);
}

TEST(PipelineEquivalence, SingularAndOddSizes) {
    std::mt19937 rng(7);
    long long compared = 0;
    SpeedOptions o;
    run_case({80, 80, 8, o, false, true}, rng, compared);     // flat: singular
    run_case({80, 80, 8, o, true, true}, rng, compared);      // zero difference
    run_case({95, 81, 12, o, false, false}, rng, compared);   // smallest blocks
    run_case({337, 211, 16, o, true, false}, rng, compared);  // odd sizes, wide tails
    o.prescale = 0.5;
    o.prescale_method = "bilinear";
    run_case({161, 163, 8, o, false, false}, rng, compared);  // one block after prescale
    std::printf("[equivalence] singular/odd: %lld values identical\n", compared);
}

}  // namespace
}  // namespace speedqa

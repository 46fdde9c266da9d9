// What every feature's CPU kernel says its per-worker scratch takes
// (CpuKernel::scratch_bytes, which the CPU engine weighs against the memory
// there is before it allocates) against what the scratch really holds once
// it has scored a frame: the heap in use before and after, for every
// registered feature, at several sizes and formats, for each kind of kernel.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/cpu_flags.hpp"
#include "core/feature.hpp"
#include "features/registry.hpp"
#include "support/run_feature.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define SPEEDQA_ASAN_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPEEDQA_ASAN_HEAP 1
#endif
#endif
#ifdef SPEEDQA_ASAN_HEAP
// The sanitizer runtime's (GCC's and clang's libasan export it; only clang
// ships <sanitizer/allocator_interface.h> that declares it).
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#else
#include <malloc.h>
#endif

namespace speedqa {
namespace {

// Bytes of heap in use now (the sanitizer's allocator under ASan, where
// mallinfo2 reports nothing).
size_t heap_in_use() {
#ifdef SPEEDQA_ASAN_HEAP
    return __sanitizer_get_current_allocated_bytes();
#else
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
#endif
}

// A frame of random samples within the bit depth.
struct SyntheticFrame {
    std::vector<uint16_t> data;
    Picture pic;
    SyntheticFrame(const VideoFormat& f, uint32_t seed) : data(f.frame_bytes() / 2 + 1) {
        std::mt19937 rng(seed);
        const int mask = (1 << f.bitdepth) - 1;
        if (f.bitdepth > 8)
            for (uint16_t& v : data) v = static_cast<uint16_t>(rng() & mask);
        else
            for (uint16_t& v : data) v = static_cast<uint16_t>(rng());
        pic = picture_in_frame(f, reinterpret_cast<const uint8_t*>(data.data()));
    }
};

struct Case {
    VideoFormat format;
    std::string feature;
    std::vector<std::pair<std::string, std::string>> options;
};

std::vector<Case> cases() {
    std::vector<Case> out;
    for (const VideoFormat& f : {VideoFormat{640, 360, PixelFormat::yuv420, 8}, VideoFormat{1280, 720, PixelFormat::yuv444, 10},
                                 VideoFormat{1920, 1080, PixelFormat::yuv422, 12}})
        for (const FeatureDef* def : all_features()) out.push_back({f, def->name, {}});
    // the options that change a scratch's size most
    const VideoFormat hd{1920, 1080, PixelFormat::yuv420, 8};
    for (const char* speed : {"speed_chroma", "speed_temporal"})
        for (const char* ps : {"0.5", "2", "4"}) out.push_back({hd, speed, {{"speed_prescale", ps}}});
    out.push_back({hd, "cambi", {{"cambi_high_res_speedup", "1080"}}});
    out.push_back({hd, "cambi", {{"window_size", "127"}}});
    return out;
}

TEST(ScratchBytes, EveryFeatureSaysWhatItsScratchTakes) {
    int checked = 0;
    std::vector<CpuTarget> targets = {{Isa::c, Dispatch::scalar, false}, {host_isa(0), Dispatch::avx2, false},
                                      {Isa::c, Dispatch::scalar, true}};
    for (const Case& c : cases()) {
        const FeatureDef* def = find_feature(c.feature);
        ASSERT_NE(def, nullptr) << c.feature;
        const auto feature = make_feature(*def, c.format, c.options);
        SyntheticFrame ref0(c.format, 1), dis0(c.format, 2), ref1(c.format, 3), dis1(c.format, 4), ref2(c.format, 5),
            dis2(c.format, 6);
        const Picture* refs[3] = {&ref0.pic, &ref1.pic, &ref2.pic};
        const Picture* diss[3] = {&dis0.pic, &dis1.pic, &dis2.pic};
        const FrameView view = testing::third_frame_view(refs, diss);
        std::vector<double> raw(static_cast<size_t>(feature->raw_count()));
        for (const CpuTarget& t : targets) {
            SCOPED_TRACE(feature->canonical() + " at " + c.format.describe() + (t.straightforward ? ", straightforward" : "") +
                         (t.isa == Isa::c ? ", C kernels" : ", SIMD kernels"));
            const auto kernel = feature->make_cpu_kernel(t);
            // a first frame grows the thread's own buffers (SpEED's SIMD
            // covariance strip), which are not a scratch's
            kernel->extract(*kernel->make_scratch(), view, raw.data());
            const size_t before = heap_in_use();
            auto scratch = kernel->make_scratch();
            kernel->extract(*scratch, view, raw.data());
            const size_t measured = heap_in_use() - before;
            const size_t said = kernel->scratch_bytes();
            // the scratch objects themselves and the allocator's headers
            // are not in the estimate: a few KB
            const size_t slack = measured / 20 + (64 << 10);
            EXPECT_LE(measured, said + slack) << "says " << said << " bytes, holds " << measured;
            EXPECT_LE(said, measured + slack) << "says " << said << " bytes, holds " << measured;
            checked++;
        }
    }
    std::printf("[scratch] %d kernels' scratch sizes within 5%% + 64 KB of what they hold\n", checked);
}

}  // namespace
}  // namespace speedqa

// What every feature's CPU kernel says its per-worker scratch takes
// (CpuKernel::scratch_bytes, which the CPU engine weighs against the memory
// there is before it allocates) against what the scratch really holds once
// it has scored a frame: the heap in use before and after, for every
// registered feature, at several sizes and formats, for each kind of kernel
// (in the sanitizer build, which looks for memory errors, each case with one
// kind in turn: every feature still meets every kind, at some size).
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/cpu_flags.hpp"
#include "core/feature.hpp"
#include "core/zeroed_array.hpp"
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
// mallinfo2 reports nothing), and the large scratch arrays' own mappings
// (ZeroedArray's huge-page ones, outside the heap).
size_t heap_in_use() {
#ifdef SPEEDQA_ASAN_HEAP
    const size_t heap = __sanitizer_get_current_allocated_bytes();
#else
    const struct mallinfo2 m = mallinfo2();
    const size_t heap = m.uordblks + m.hblkhd;
#endif
    return heap + zeroed_mapped_bytes();
}

// A frame of random samples within the bit depth (splitmix64: four
// samples a step, cheap enough for 4:2:2 1080p under the sanitizers).
struct SyntheticFrame {
    std::vector<uint16_t> data;
    Picture pic;
    SyntheticFrame(const VideoFormat& f, uint64_t seed) : data((f.frame_bytes() / 2 + 4) / 4 * 4) {
        const uint64_t mask16 = f.bitdepth > 8 ? (uint64_t{1} << f.bitdepth) - 1 : 0xffff;
        const uint64_t mask = mask16 | mask16 << 16 | mask16 << 32 | mask16 << 48;
        uint64_t x = seed;
        for (size_t i = 0; i < data.size(); i += 4) {
            uint64_t z = (x += 0x9e3779b97f4a7c15ull);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            z = (z ^ (z >> 31)) & mask;
            for (int k = 0; k < 4; k++) data[i + static_cast<size_t>(k)] = static_cast<uint16_t>(z >> (16 * k));
        }
        pic = picture_in_frame(f, reinterpret_cast<const uint8_t*>(data.data()));
    }
};

// Three frames of ref and dis in one format, made once for the cases that
// share it.
struct SyntheticClip {
    VideoFormat format;
    std::vector<std::unique_ptr<SyntheticFrame>> frames;  // ref 0, dis 0, ref 1, dis 1, ref 2, dis 2
    explicit SyntheticClip(const VideoFormat& f) : format(f) {
        for (uint64_t seed = 1; seed <= 6; seed++) frames.push_back(std::make_unique<SyntheticFrame>(f, seed));
    }
    FrameView view() const {
        const Picture* refs[3] = {&frames[0]->pic, &frames[2]->pic, &frames[4]->pic};
        const Picture* diss[3] = {&frames[1]->pic, &frames[3]->pic, &frames[5]->pic};
        return testing::third_frame_view(refs, diss);
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
    std::unique_ptr<SyntheticClip> clip;  // the frames of the cases' format at hand (the cases come grouped by format)
    // (the straightforward kind first: in the sanitizer build it is the
    // slowest, and a feature's first case is its smallest format)
    const std::vector<CpuTarget> all_targets = {{Isa::c, Dispatch::scalar, true}, {Isa::c, Dispatch::scalar, false},
                                                {host_isa(0), Dispatch::avx2, false}};
    std::map<std::string, int> turns;  // a feature's cases so far
    for (const Case& c : cases()) {
        std::vector<CpuTarget> targets = all_targets;
        if (testing::sanitizer_build()) targets = {all_targets[static_cast<size_t>(turns[c.feature]++) % all_targets.size()]};
        const FeatureDef* def = find_feature(c.feature);
        ASSERT_NE(def, nullptr) << c.feature;
        const auto feature = make_feature(*def, c.format, c.options);
        if (!clip || !(clip->format == c.format)) clip = std::make_unique<SyntheticClip>(c.format);
        const FrameView view = clip->view();
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
    std::printf("[scratch] %d kernels' scratch sizes within 5%% + 64 KB of what they hold%s\n", checked,
                testing::sanitizer_build() ? " (sanitizer build: each case with one kind of kernel in turn)" : "");
}

}  // namespace
}  // namespace speedqa

// The host twin of motion's device part: its stages (cuda/stages.hpp) run
// through HostGrid on batches laid out as the CUDA engine stages them
// (history positions included, batches after frame 0 reading frames of the
// batch before), then its tail, against the C kernel's raw values with ==:
// every golden clip at every option set the golden data has for motion
// (one dispatch: the kernels' values are every dispatch's), synthetic clips
// of every bit depth and pixel format, and frames too wide for the
// reference's 32-bit row sums.
#include <gtest/gtest.h>

#include <set>

#include "core/grid.hpp"
#include "features/motion/cuda/stages.hpp"
#include "features/motion/motion.hpp"
#include "features/motion/motion_feature.hpp"
#include "features/vif/tests/twin_support.hpp"
#include "support/host_input.hpp"

namespace speedqa::testing {
namespace {

namespace md = motion::device;

// The device part's raw values of every frame, in batches of `batch`.
std::vector<std::vector<double>> twin_raw(const Feature& feature, const VideoFormat& format,
                                          const std::vector<Picture>& ref, const std::vector<Picture>& dis, int batch) {
    const auto& f = dynamic_cast<const motion::MotionFeature&>(feature);
    const md::Plan plan = md::make_plan(f.params());
    HostInput in(format, {&f});
    std::vector<unsigned long long> counters(md::counter_elements(plan, batch)), sad(md::sad_elements(plan, batch));
    std::vector<std::vector<double>> out;
    twin::in_batches(static_cast<int>(ref.size()), batch, [&](int first, int count) {
        in.fill(ref, dis, first, count);
        std::fill(counters.begin(), counters.end(), 0);
        std::fill(sad.begin(), sad.end(), 0xdeadbeefull);  // the stage must write each frame's sum
        md::launch_stages(HostGrid{}, plan, md::Buffers{counters.data(), sad.data()}, in.layout(), in.data(), count);
        for (int k = 0; k < count; k++) out.push_back({md::frame_raw(f.params(), first + k, sad.data(), k)});
    });
    return out;
}

void compare_clip(const std::string& name, const VideoFormat& format, const std::vector<Picture>& ref,
                  const std::vector<Picture>& dis, const std::string& arg, const std::vector<int>& batches,
                  twin::Tally& t) {
    const auto feature = feature_from_arg({&motion_feature()}, arg, format);
    const auto want = twin::cpu_raw(*feature, ref, dis);
    for (int batch : batches) {
        const auto got = twin_raw(*feature, format, ref, dis, batch);
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < want.size(); i++)
            t.compare(want[i][0], got[i][0], name + " " + arg + " batch " + std::to_string(batch) + " frame " + std::to_string(i));
    }
}

// Every bit depth and pixel format, odd sizes, the options that change raw
// values, batches of 1, 3 and 7 frames.
void synthetic_clips(twin::Tally& t) {
    uint32_t seed = 11;
    for (const VideoFormat& f : twin::synthetic_formats()) {
        const twin::Clip c = twin::synthetic_clip(f, 7, seed += 2);
        for (const std::string arg : {"motion", "motion=motion_five_frame_window=true", "motion=motion_force_zero=true",
                                      "motion=motion_fps_weight=2.0:motion_max_val=5"})
            compare_clip(c.name(), f, c.ref, c.dis, arg, {1, 3, 7}, t);
    }
}

// Frames as wide as the strip stages take (65537) and wider (the per-row
// stages): prev all white, cur all black at 16 bits, 65535 a pixel, so the
// wider frames' rows pass 2^32.
std::vector<uint8_t> wide_frames(const VideoFormat& f) {
    std::vector<uint8_t> bytes(f.frame_bytes() * 3, 0);
    std::fill(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(f.frame_bytes()), 0xff);  // frame 0 white
    for (size_t i = f.frame_bytes() * 2; i < bytes.size(); i += 4) bytes[i] = 0xff;             // frame 2 striped
    return bytes;
}
constexpr int kWideWidths[] = {65537, 65538, 70001};

void wide_clips(twin::Tally& t) {
    for (int w : kWideWidths) {
        const VideoFormat f{w, 3, PixelFormat::yuv400, 16};
        const std::vector<uint8_t> bytes = wide_frames(f);
        const std::vector<Picture> frames = frames_of(f, bytes);
        compare_clip("wide " + std::to_string(w), f, frames, frames, "motion", {2, 3}, t);
    }
}

TEST(MotionDeviceTwin, EveryClipAndOptionSetEqualsTheCKernel) {
    twin::Tally t;
    // every golden clip at every option set; a sanitizer build, which looks
    // for memory errors: the first 5 frames (still across two batches) at
    // the first option set of each kind of stages (distance 1, 2, forced)
    std::set<std::pair<std::string, int>> kinds;
    twin::for_each_golden_run("motion", "_motion", sanitizer_build() ? 5 : SIZE_MAX,
                              [&](const std::string& clip, const VideoFormat& f, const std::vector<Picture>& ref,
                                  const std::vector<Picture>& dis, const std::string& arg) {
                                  if (sanitizer_build()) {
                                      const auto feature = feature_from_arg({&motion_feature()}, arg, f);
                                      const motion::Params& p =
                                          dynamic_cast<const motion::MotionFeature&>(*feature).params();
                                      if (!kinds.insert({clip, p.force_zero ? 0 : p.distance()}).second) return;
                                  }
                                  compare_clip(clip, f, ref, dis, arg, {4}, t);
                              });
    synthetic_clips(t);
    wide_clips(t);
    t.print("motion");
    EXPECT_GT(t.values, 0);
    EXPECT_EQ(t.values, t.identical);
}

// Frames 0 and 1 of the five-frame window and every frame forced to 0 are
// 0, whatever the device computed from the history positions (zeros before
// frame 0); frame 2 reads the frame two back across a batch boundary.
TEST(MotionDeviceTwin, WindowStartsAndForcedZero) {
    const VideoFormat f{40, 24, PixelFormat::yuv420, 10};
    const twin::Clip c = twin::synthetic_clip(f, 5, 3);
    for (const bool five : {true, false}) {
        const std::string arg = five ? "motion=motion_five_frame_window=true" : "motion=motion_force_zero=true";
        const auto feature = feature_from_arg({&motion_feature()}, arg, f);
        EXPECT_EQ(HostInput(f, {feature.get()}).layout().history, five ? 2 : 0) << arg;
        const auto got = twin_raw(*feature, f, c.ref, c.dis, 2);
        ASSERT_EQ(got.size(), 5u);
        EXPECT_EQ(got[0][0], 0.0) << arg;
        EXPECT_EQ(got[1][0], 0.0) << arg;
        if (five) EXPECT_GT(got[2][0], 0.0);
        else EXPECT_EQ(got[2][0], 0.0);
    }
}

// The wider frames' rows wrap (as the reference's do), 65537's cannot.
TEST(MotionDeviceTwin, RowSumsWrapOnlyPast65537) {
    for (int w : kWideWidths) {
        const VideoFormat f{w, 3, PixelFormat::yuv400, 16};
        const std::vector<uint8_t> bytes = wide_frames(f);
        const std::vector<Picture> frames = frames_of(f, bytes);
        const auto feature = feature_from_arg({&motion_feature()}, "motion", f);
        const uint64_t unwrapped_sad = uint64_t{65535} * static_cast<uint64_t>(w) * 3;
        const double unwrapped = exact::motion::frame_score(unwrapped_sad, static_cast<unsigned>(w), 3, 1.0, 10000.0);
        const double got = twin_raw(*feature, f, frames, frames, 3)[1][0];
        if (w > md::kMaxUnwrappedWidth) EXPECT_NE(got, unwrapped) << w;
        else EXPECT_EQ(got, unwrapped) << w;
    }
}

}  // namespace
}  // namespace speedqa::testing

// The host twin of vif's device part: its tiles (cuda/stages.hpp) run
// through the host's team on batches laid out as the CUDA engine stages
// them, then its tail, against the C kernel's raw values with ==: every
// golden clip at every option set the golden data has for vif (one
// dispatch: the kernels' values are every dispatch's), synthetic clips of
// every bit depth and pixel format (odd sizes, the extremes of the range),
// and the smallest frame VIF takes.
#include <gtest/gtest.h>

#include <set>

#include "features/vif/cuda/stages.hpp"
#include "features/vif/tests/twin_support.hpp"
#include "features/vif/vif.hpp"
#include "features/vif/vif_feature.hpp"
#include "support/host_input.hpp"

namespace speedqa::testing {
namespace {

namespace vd = vif::device;

// The device part's raw values of every frame, in batches of `batch`.
std::vector<std::vector<double>> twin_raw(const Feature& feature, const VideoFormat& format,
                                          const std::vector<Picture>& ref, const std::vector<Picture>& dis, int batch) {
    const auto& f = dynamic_cast<const vif::VifFeature&>(feature);
    const vd::Plan plan = vd::make_plan(f.plan(), vd::host_tables(f.plan()));
    HostInput in(format, {&f});
    std::vector<uint16_t> images[exact::vif::kScales][2];
    vd::Buffers b;
    for (int s = 1; s < exact::vif::kScales; s++)
        for (int side = 0; side < 2; side++) {
            images[s][side].assign(vd::image_elements(plan, s, batch), 0);
            b.images[s][side] = images[s][side].data();
        }
    std::vector<exact::vif::Sums> sums(vd::sums_elements(batch));
    b.sums = sums.data();
    std::vector<std::vector<double>> out;
    twin::in_batches(static_cast<int>(ref.size()), batch, [&](int first, int count) {
        in.fill(ref, dis, first, count);
        std::fill(sums.begin(), sums.end(), exact::vif::Sums{});
        vd::launch_stages(vd::HostTiles{}, plan, b, in.layout(), in.data(), count);
        for (int k = 0; k < count; k++) {
            out.emplace_back(static_cast<size_t>(f.raw_count()));
            vd::frame_raw(f.plan(), sums.data(), k, out.back().data());
        }
    });
    return out;
}

void compare_clip(const std::string& name, const VideoFormat& format, const std::vector<Picture>& ref,
                  const std::vector<Picture>& dis, const std::string& arg, int batch, twin::Tally& t) {
    const auto feature = feature_from_arg({&vif_feature()}, arg, format);
    const auto want = twin::cpu_raw(*feature, ref, dis);
    const auto got = twin_raw(*feature, format, ref, dis, batch);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); i++)
        for (size_t m = 0; m < want[i].size(); m++)
            t.compare(want[i][m], got[i][m],
                      name + " " + arg + " frame " + std::to_string(i) + " " + feature->outputs()[m].name);
}

// Every bit depth and pixel format, odd sizes, every option.
void synthetic_clips(twin::Tally& t) {
    uint32_t seed = 5;
    for (const VideoFormat& f : twin::synthetic_formats()) {
        const twin::Clip c = twin::synthetic_clip(f, 3, seed += 2);
        for (const std::string arg : {"vif", "vif=vif_enhn_gain_limit=1.0:debug=true", "vif=vif_skip_scale0=true:debug=true"})
            compare_clip(c.name(), f, c.ref, c.dis, arg, 2, t);
    }
}

TEST(VifDeviceTwin, EveryClipAndOptionSetEqualsTheCKernel) {
    twin::Tally t;
    // every golden clip at every option set; a sanitizer build, which looks
    // for memory errors: the first frames (golden_frames) at the first
    // option set with and without scale 0's statistic
    std::set<std::pair<std::string, bool>> kinds;
    twin::for_each_golden_run("vif", "_vif_", golden_frames(SIZE_MAX),
                              [&](const std::string& clip, const VideoFormat& f, const std::vector<Picture>& ref,
                                  const std::vector<Picture>& dis, const std::string& arg) {
                                  if (sanitizer_build()) {
                                      const auto feature = feature_from_arg({&vif_feature()}, arg, f);
                                      const bool skip = dynamic_cast<const vif::VifFeature&>(*feature).plan().skip_scale0;
                                      if (!kinds.insert({clip, skip}).second) return;
                                  }
                                  compare_clip(clip, f, ref, dis, arg, 4, t);
                              });
    synthetic_clips(t);
    t.print("vif");
    EXPECT_GT(t.values, 0);
    EXPECT_EQ(t.values, t.identical);
}

}  // namespace
}  // namespace speedqa::testing

// The device input plan (core/input_plan.hpp): from the features' needs, the
// planes and rows a batch uploads, the frames before it, and where each
// lands. Checked on the real features' needs.
#include <gtest/gtest.h>

#include "core/input_plan.hpp"
#include "features/registry.hpp"
#include "support/host_input.hpp"
#include "support/run_feature.hpp"

#include <cstring>

namespace speedqa::testing {
namespace {

InputPlan plan_of(const VideoFormat& f, const std::vector<std::string>& features) {
    const FeatureSet set = feature_set(all_features(), features, f);
    return make_input_plan(f, input_needs_of(set.list));
}

TEST(InputPlan, MotionsFiveFrameWindowReadsTheReferenceTwoBackOnly) {
    const VideoFormat f{320, 240, PixelFormat::yuv420, 8};
    const InputPlan p = plan_of(f, {"motion=motion_five_frame_window=true"});
    EXPECT_EQ(p.layout.history, 2);
    EXPECT_EQ(p.staged[0][0], 1u);  // the batch's frames: the reference's luma
    EXPECT_EQ(p.staged[0][1], 0u);
    EXPECT_EQ(p.staged[1][0], 1u);  // the frame before the first: read by the second frame
    EXPECT_EQ(p.staged[2][0], 1u);
    EXPECT_TRUE(p.whole[0]);
    EXPECT_EQ(p.layout.plane_offset[0][0], 0);
    EXPECT_EQ(p.layout.plane_offset[1][0], -1);
    EXPECT_EQ(p.bytes_per_frame(), size_t{320} * 240);
    EXPECT_EQ(p.layout.position(0), 2);
    EXPECT_EQ(p.layout.position(3, 2), 3);
    // without the window: one frame back
    EXPECT_EQ(plan_of(f, {"motion"}).layout.history, 1);
    EXPECT_EQ(plan_of(f, {"motion=motion_force_zero=true", "vif"}).layout.history, 0);
}

TEST(InputPlan, SpeedChromaUploadsTheRowsItsFilterReadsAndAWholePlaneWins) {
    const VideoFormat f{640, 480, PixelFormat::yuv420, 10};
    const InputPlan chroma = plan_of(f, {"speed_chroma"});
    EXPECT_EQ(chroma.layout.history, 0);
    EXPECT_FALSE(chroma.plane_used[0]);
    ASSERT_TRUE(chroma.plane_used[1]);
    EXPECT_FALSE(chroma.whole[1]);
    EXPECT_LT(chroma.rows[1].size(), static_cast<size_t>(f.feature_h(1)));
    EXPECT_EQ(chroma.staged[0][0], 6u);
    EXPECT_EQ(chroma.staged[0][1], 6u);
    for (size_t i = 0; i < chroma.rows[1].size(); i++)
        EXPECT_EQ(chroma.row_index[1][static_cast<size_t>(chroma.rows[1][i])], static_cast<int>(i));
    // speed_temporal reads luma rows of this frame and the one before; with
    // vif (the whole luma of both sides) every luma row goes up
    const InputPlan both = plan_of(f, {"speed_temporal", "vif"});
    EXPECT_EQ(both.layout.history, 1);
    EXPECT_TRUE(both.whole[0]);
    EXPECT_EQ(both.staged[1][0], 1u);
    EXPECT_EQ(both.staged[1][1], 1u);
    EXPECT_EQ(both.bytes_per_frame(), size_t{2} * 640 * 480 * 2);
    const InputPlan temporal = plan_of(f, {"speed_temporal"});
    EXPECT_FALSE(temporal.whole[0]);
    EXPECT_LT(temporal.bytes_per_frame(), both.bytes_per_frame());
}

TEST(InputPlan, CambiReadsTheDistortedLumaAndTheReferenceOnlyWithFullRef) {
    const VideoFormat f{480, 270, PixelFormat::yuv420, 8};
    const InputPlan dis = plan_of(f, {"cambi"});
    EXPECT_EQ(dis.staged[0][0], 0u);
    EXPECT_EQ(dis.staged[0][1], 1u);
    EXPECT_EQ(dis.layout.plane_offset[1][0], 0);
    const InputPlan both = plan_of(f, {"cambi=full_ref=true"});
    EXPECT_EQ(both.staged[0][0], 1u);
    EXPECT_EQ(both.staged[0][1], 1u);
    // the positions are whole multiples of the alignment
    EXPECT_EQ(both.layout.frame_bytes % 256, 0u);
    EXPECT_GE(both.layout.plane_offset[1][0], 480 * 270);
}

}  // namespace
}  // namespace speedqa::testing

namespace speedqa::testing {
namespace {

// HostInput lays frames out as the plan says: every staged row reads back
// through input_row / input_sample, history positions hold the frames before.
TEST(InputPlan, HostInputHoldsEveryPlannedRowWhereTheLayoutSays) {
    const VideoFormat f{176, 168, PixelFormat::yuv420, 10};
    const FeatureSet set = feature_set(all_features(), {"motion=motion_five_frame_window=true", "speed_chroma"}, f);
    std::vector<uint8_t> rbytes(f.frame_bytes() * 5), dbytes(f.frame_bytes() * 5);
    for (size_t i = 0; i < rbytes.size(); i += 2) {
        const uint16_t a = static_cast<uint16_t>((i * 7) % 1024), b = static_cast<uint16_t>((i * 13 + 5) % 1024);
        std::memcpy(&rbytes[i], &a, 2);
        std::memcpy(&dbytes[i], &b, 2);
    }
    std::vector<Picture> ref, dis;
    for (int k = 0; k < 5; k++) {
        ref.push_back(picture_in_frame(f, rbytes.data() + f.frame_bytes() * static_cast<size_t>(k)));
        dis.push_back(picture_in_frame(f, dbytes.data() + f.frame_bytes() * static_cast<size_t>(k)));
    }
    HostInput in(f, set.list);
    in.fill(ref, dis, 3, 2);  // frames 3, 4 and, before them, 1, 2
    const InputLayout& L = in.layout();
    ASSERT_EQ(L.history, 2);
    const auto sample = [&](const Picture& p, int plane, int y, int x) {
        uint16_t v;
        std::memcpy(&v, p.plane[plane] + p.stride[plane] * y + 2 * x, 2);
        return unsigned{v};
    };
    long long checked = 0;
    for (int k = 0; k < 2; k++)
        for (int d = 0; d <= 2; d++) {
            const int frame = 3 + k - d;
            for (int y = 0; y < f.feature_h(0); y++)
                for (int x = 0; x < f.feature_w(0); x += 7, checked++)
                    ASSERT_EQ(input_sample(L, in.data(), L.position(k, d), 0, 0, y, x), sample(ref[frame], 0, y, x));
        }
    for (int plane = 1; plane < 3; plane++)
        for (int y : in.plan().rows[plane])
            for (int side = 0; side < 2; side++)
                for (int x = 0; x < f.feature_w(plane); x += 5, checked++)
                    ASSERT_EQ(input_sample(L, in.data(), L.position(1), side, plane, y, x),
                              sample((side == 0 ? ref : dis)[4], plane, y, x));
    EXPECT_GT(checked, 1000);
}

}  // namespace
}  // namespace speedqa::testing

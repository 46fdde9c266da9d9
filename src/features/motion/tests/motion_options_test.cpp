// motion's options and output names as libvmaf defines them, its history
// and deferred outputs, and the sizes it refuses.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "features/motion/motion.hpp"
#include "support/run_feature.hpp"

namespace speedqa {
namespace {

VideoFormat fmt(int w, int h) {
    VideoFormat f;
    f.width = w;
    f.height = h;
    return f;
}

std::unique_ptr<Feature> make(const std::string& arg, VideoFormat f = fmt(64, 48)) {
    return testing::feature_from_arg({&motion_feature()}, arg, f);
}

TEST(MotionOptions, NamesDeferredOutputsAndHistory) {
    const auto f = make("motion");
    ASSERT_EQ(f->outputs().size(), 3u);
    EXPECT_EQ(f->outputs()[0].name, "VMAF_integer_feature_motion_sad_score");  // no alias: printed in full
    EXPECT_EQ(f->outputs()[1].name, "integer_motion2");
    EXPECT_EQ(f->outputs()[2].name, "integer_motion3");
    EXPECT_FALSE(f->outputs()[0].deferred);
    EXPECT_TRUE(f->outputs()[1].deferred);
    EXPECT_TRUE(f->outputs()[2].deferred);
    EXPECT_EQ(f->history(), 1);
    EXPECT_EQ(f->raw_count(), 1);

    const auto d = make("motion=debug=true:motion_five_frame_window=true:motion_max_val=18:motion_moving_average=true");
    ASSERT_EQ(d->outputs().size(), 4u);
    EXPECT_EQ(d->outputs()[0].name, "VMAF_integer_feature_motion_sad_score_mffw_mmxv_18_mma");
    EXPECT_EQ(d->outputs()[1].name, "integer_motion_mffw_mmxv_18_mma");
    EXPECT_FALSE(d->outputs()[1].deferred);
    EXPECT_EQ(d->outputs()[3].name, "integer_motion3_mffw_mmxv_18_mma");
    EXPECT_EQ(d->history(), 2);
    EXPECT_EQ(make("motion=motion_force_zero=true")->outputs()[1].name, "integer_motion2_force_0");
    EXPECT_EQ(make("motion=motion_force_zero=true")->history(), 0);
    EXPECT_EQ(make("motion=motion_blend_factor=0.5:motion_blend_offset=20:motion_fps_weight=2.0")->outputs()[2].name,
              "integer_motion3_mbf_0.5_mbo_20_mfw_2");
}

TEST(MotionOptions, RangesTypesNanAndAliasesRefused) {
    EXPECT_THROW(make("motion=motion_blend_factor=1.5"), Error);
    EXPECT_THROW(make("motion=motion_blend_offset=-1"), Error);
    EXPECT_THROW(make("motion=motion_fps_weight=5.5"), Error);
    EXPECT_THROW(make("motion=motion_max_val=10001"), Error);
    EXPECT_THROW(make("motion=motion_max_val=nan"), Error);
    EXPECT_THROW(make("motion=motion_moving_average=yes"), Error);
    EXPECT_THROW(make("motion=mmxv=18"), Error);  // alias
    EXPECT_THROW(make("motion=motion_foo=1"), Error);
    EXPECT_NO_THROW(make("motion=motion_max_val=0:motion_fps_weight=0:motion_blend_factor=0"));
}

TEST(MotionOptions, FramesBelow3x3Refused) {
    for (auto [w, h] : {std::pair{2, 3}, {3, 2}, {1, 1}}) {
        try {
            make("motion", fmt(w, h));
            ADD_FAILURE() << w << "x" << h << " accepted";
        } catch (const Error& e) {
            EXPECT_EQ(std::string(e.what()).rfind("motion: ", 0), 0u) << e.what();
        }
    }
    EXPECT_NO_THROW(make("motion", fmt(3, 3)));
}

}  // namespace
}  // namespace speedqa

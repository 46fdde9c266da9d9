// integer motion against libvmaf master's golden values: every
// feature_motion* file of every clip and dispatch, and the motion columns of
// every model run (v0.6.1: motion2; v1.0.16: motion3, the hfr models with the
// five-frame window and the moving average), with every kernel this host
// has, value by value with ==.
#include "features/motion/motion.hpp"
#include "features/vif/tests/feature_golden.hpp"

namespace speedqa::testing {
namespace {

TEST(MotionGolden, FeatureRunsEveryValueExact) {
    if (const char* why = golden_skip_in_sanitizer_build()) GTEST_SKIP() << why;
    if (shared_testdata_dir().empty()) GTEST_SKIP() << "../shared/testdata is absent (set SPEEDQA_SHARED_TESTDATA)";
    const GoldenTally t = check_feature_runs(motion_feature(), Frames::in_sequence);
    print_tally("motion feature runs", t, Frames::in_sequence);
    EXPECT_EQ(t.files, 9 * 8 * 3);
    EXPECT_GT(t.values, 0);
    EXPECT_EQ(t.values, t.identical);
}

TEST(MotionGolden, ModelRunColumnsEveryValueExact) {
    if (const char* why = golden_skip_in_sanitizer_build()) GTEST_SKIP() << why;
    if (shared_testdata_dir().empty()) GTEST_SKIP() << "../shared/testdata is absent (set SPEEDQA_SHARED_TESTDATA)";
    const GoldenTally t = check_model_runs(motion_feature(), "_motion", Frames::in_sequence);
    print_tally("motion columns of model runs", t, Frames::in_sequence);
    EXPECT_EQ(t.files, 9 * 11 * 3);  // every model uses motion
    EXPECT_GT(t.values, 0);
    EXPECT_EQ(t.values, t.identical);
}

// One kernel serves every dispatch because libvmaf's three agree.
TEST(MotionGolden, LibvmafDispatchesAgree) {
    if (const char* why = golden_skip_in_sanitizer_build()) GTEST_SKIP() << why;
    if (shared_testdata_dir().empty()) GTEST_SKIP() << "../shared/testdata is absent (set SPEEDQA_SHARED_TESTDATA)";
    const long long n = check_dispatches_agree("feature_motion", "motion") + check_dispatches_agree("vmaf_", "motion");
    std::printf("[golden-models] motion: scalar, avx2 and avx512 files agree on %lld values\n", n);
    EXPECT_GT(n, 0);
}

}  // namespace
}  // namespace speedqa::testing

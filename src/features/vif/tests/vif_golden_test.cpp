// integer VIF against libvmaf master's golden values: every feature_vif*
// file of every clip and dispatch, and the integer_vif_* columns of the
// v0.6.1 model runs, with every kernel this host has, value by value with ==.
#include "features/vif/tests/feature_golden.hpp"
#include "features/vif/vif.hpp"

namespace speedqa::testing {
namespace {

TEST(VifGolden, FeatureRunsEveryValueExact) {
    if (const char* why = golden_skip_in_sanitizer_build()) GTEST_SKIP() << why;
    if (shared_testdata_dir().empty()) GTEST_SKIP() << "../shared/testdata is absent (set SPEEDQA_SHARED_TESTDATA)";
    const GoldenTally t = check_feature_runs(vif_feature(), Frames::each_alone);
    print_tally("vif feature runs", t, Frames::each_alone);
    EXPECT_EQ(t.files, 9 * 4 * 3);
    EXPECT_GT(t.values, 0);
    EXPECT_EQ(t.values, t.identical);
}

TEST(VifGolden, ModelRunColumnsEveryValueExact) {
    if (const char* why = golden_skip_in_sanitizer_build()) GTEST_SKIP() << why;
    if (shared_testdata_dir().empty()) GTEST_SKIP() << "../shared/testdata is absent (set SPEEDQA_SHARED_TESTDATA)";
    const GoldenTally t = check_model_runs(vif_feature(), "_vif_", Frames::each_alone);
    print_tally("vif columns of model runs", t, Frames::each_alone);
    EXPECT_EQ(t.files, 9 * 3 * 3);  // vmaf_v0.6.1, vmaf_v0.6.1neg, vmaf_4k_v0.6.1
    EXPECT_GT(t.values, 0);
    EXPECT_EQ(t.values, t.identical);
}

// One kernel serves every dispatch because libvmaf's three agree.
TEST(VifGolden, LibvmafDispatchesAgree) {
    if (const char* why = golden_skip_in_sanitizer_build()) GTEST_SKIP() << why;
    if (shared_testdata_dir().empty()) GTEST_SKIP() << "../shared/testdata is absent (set SPEEDQA_SHARED_TESTDATA)";
    const long long n = check_dispatches_agree("feature_vif", "integer_vif") + check_dispatches_agree("vmaf_", "integer_vif");
    std::printf("[golden-models] vif: scalar, avx2 and avx512 files agree on %lld values\n", n);
    EXPECT_GT(n, 0);
}

}  // namespace
}  // namespace speedqa::testing

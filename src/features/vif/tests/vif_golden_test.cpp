// integer VIF against libvmaf master's golden values: every feature_vif*
// file of every clip and dispatch, and the integer_vif_* columns of the
// v0.6.1 model runs, with every kernel this host has, value by value with ==.
#include "features/vif/tests/feature_golden.hpp"
#include "features/vif/vif.hpp"

namespace speedqa::testing {
namespace {

TEST(VifGolden, FeatureRunsEveryValueExact) {
    if (shared_testdata_dir().empty()) GTEST_SKIP() << "../shared/testdata is absent (set SPEEDQA_SHARED_TESTDATA)";
    const GoldenTally t = check_feature_runs(vif_feature());
    print_tally("vif feature runs", t);
    EXPECT_EQ(t.files, 9 * 4 * 3);
    EXPECT_GT(t.values, 0);
    EXPECT_EQ(t.values, t.identical);
}

TEST(VifGolden, ModelRunColumnsEveryValueExact) {
    if (shared_testdata_dir().empty()) GTEST_SKIP() << "../shared/testdata is absent (set SPEEDQA_SHARED_TESTDATA)";
    const GoldenTally t = check_model_runs(vif_feature(), "_vif_");
    print_tally("vif columns of model runs", t);
    EXPECT_EQ(t.files, 9 * 3 * 3);  // vmaf_v0.6.1, vmaf_v0.6.1neg, vmaf_4k_v0.6.1
    EXPECT_GT(t.values, 0);
    EXPECT_EQ(t.values, t.identical);
}

}  // namespace
}  // namespace speedqa::testing

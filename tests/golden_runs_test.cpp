// Every golden run of libvmaf's whole models and of its adm, vif, motion and
// cambi features (../shared/testdata/models/golden), through the public
// Scorer as the speedqa command runs it: the same metric names in the same
// order, every per-frame value and every pooled value ==, in every dispatch;
// runs where libvmaf failed give one clean error instead.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>

#include "io/pooling.hpp"
#include "speedqa/speedqa.hpp"
#include "support/golden_runs.hpp"
#include "support/model_golden.hpp"
#include "support/run_engine.hpp"
#include "support/run_feature.hpp"
#include "support/testdata.hpp"

namespace speedqa::testing {
namespace {

TEST(GoldenRuns, EveryModelAndFeatureRunOfEveryDispatch) {
    if (const char* why = golden_skip_in_sanitizer_build()) GTEST_SKIP() << why;
    const std::string root = shared_testdata_dir();
    const std::vector<ModelGolden> runs = load_model_golden(root);
    if (runs.empty()) {
        if (in_ci()) FAIL() << "CI=true but ../shared/testdata/models/golden is absent";
        GTEST_SKIP() << "../shared/testdata/models/golden is absent: the whole-model golden runs were not checked";
    }
    const auto data = TestData::open(root);
    ASSERT_TRUE(data);
    GoldenTally t;
    long long index = 0, left = 0;
    for (const ModelGolden& g : runs) {
        // a sanitizer build, which looks for memory errors, runs one file of
        // each three (a run's dispatches, in order), the next dispatch for the
        // next run; the release build runs every file
        const long long i = index++;
        if (sanitizer_build() && i % 3 != sanitizer_turn(i, 3)) {
            left++;
            continue;
        }
        const ClipInfo* clip = data->clip(g.clip);
        ASSERT_NE(clip, nullptr) << g.path;
        check_golden_run(g, *clip, GoldenRunOptions{}, t);
    }
    std::printf("[golden-runs] %zu files: %lld compared (%lld values, %lld identical; %lld pooled values, %lld identical), "
                "%lld where libvmaf failed refused clearly, %lld reference-defect runs computed from initialised memory\n",
                runs.size(), t.files, t.values, t.identical, t.pooled, t.pooled_identical, t.errors, t.defects);
    for (const auto& [kind, n] : t.values_by_run) std::printf("[golden-runs]   %-16s %lld values\n", kind.c_str(), n);
    if (left > 0)
        std::printf("[golden-runs] sanitizer build: one file of each run's three dispatches, in turn (%lld files left "
                    "to the release build)\n",
                    left);
    EXPECT_EQ(t.values, t.identical);
    EXPECT_EQ(t.pooled, t.pooled_identical);
    EXPECT_GT(t.values, 0);
}

}  // namespace
}  // namespace speedqa::testing

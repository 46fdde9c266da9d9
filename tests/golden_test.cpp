// Every golden value from Netflix libvmaf, reproduced with ==, in the
// covariance order of the dispatch that produced it.
#include <gtest/gtest.h>

#include <cstdio>
#include <cmath>

#include "core/error.hpp"
#include "cpu/cpu_engine.hpp"
#include "support/run_engine.hpp"
#include "support/testdata.hpp"

namespace speedqa::testing {
namespace {

struct Tally {
    long long files = 0, values = 0, identical = 0, crash_cases = 0;
};

// Runs every golden file of `data`; returns the tally.
Tally check_golden(const TestData& data) {
    Tally t;
    for (const GoldenFile& g : data.golden()) {
        SCOPED_TRACE(g.path);
        const ClipInfo* clip = data.clip(g.clip);
        if (!clip) {
            ADD_FAILURE() << "golden file names an unknown clip";
            continue;
        }
        const FeatureSpec spec = parse_feature(g.cli_feature_arg());
        EXPECT_EQ(spec.metric_names(), g.metric_keys) << "metric names differ from the CLI's";
        cpu::CpuEngineConfig cfg;
        cfg.threads = 2;
        cfg.order = order_named(g.dispatch);
        cpu::CpuEngine engine(clip->format, {spec}, cfg);
        const auto ref = frames_of(clip->format, load_xz(clip->ref_xz), clip->frames);
        const auto dis = frames_of(clip->format, load_xz(clip->dis_xz), clip->frames);
        const int metrics = static_cast<int>(g.metrics.size());
        const auto got = run_clip(engine, ref, dis, metrics);
        t.files++;
        if (g.exit_status != 0) {
            // The reference crashed (speed_temporal with speed_prescale > 1
            // overflows its frame buffers): nothing to compare; the values
            // are checked against the full-frame path elsewhere.
            t.crash_cases++;
            for (const auto& fr : got)
                for (double v : fr) EXPECT_TRUE(std::isfinite(v));
            continue;
        }
        const size_t n = std::min(got.size(), g.frames.size());
        EXPECT_EQ(got.size(), static_cast<size_t>(clip->frames));
        for (size_t i = 0; i < n; i++)
            for (int m = 0; m < metrics; m++) {
                t.values++;
                const double want = g.frames[i][static_cast<size_t>(m)];
                const double have = got[i][static_cast<size_t>(m)];
                if (have == want) t.identical++;
                else
                    ADD_FAILURE() << g.metrics[static_cast<size_t>(m)] << " frame " << i << ": got "
                                  << std::hexfloat << have << " (" << std::defaultfloat << have << "), want "
                                  << want;
            }
    }
    return t;
}

void report(const char* label, const TestData& data, const Tally& t) {
    std::printf("[golden] %s (%s): %lld files, %lld values compared, %lld identical, %lld reference-crash cases\n",
                label, data.root().c_str(), t.files, t.values, t.identical, t.crash_cases);
    ::testing::Test::RecordProperty("values_compared", static_cast<int>(t.values));
    ::testing::Test::RecordProperty("values_identical", static_cast<int>(t.identical));
}

TEST(Golden, SharedTestdataEveryValueExact) {
    const auto data = TestData::open(shared_testdata_dir());
    if (!data) GTEST_SKIP() << "../shared/testdata is absent: the full golden set was not checked "
                               "(the repository subset still runs in Golden.RepositorySubsetEveryValueExact)";
    const Tally t = check_golden(*data);
    report("shared", *data, t);
    EXPECT_GT(t.values, 0);
    EXPECT_EQ(t.values, t.identical);
}

TEST(Golden, RepositorySubsetEveryValueExact) {
    const auto data = TestData::open(repo_testdata_dir());
    ASSERT_TRUE(data) << "the repository's testdata/ subset is missing";
    const Tally t = check_golden(*data);
    report("repository subset", *data, t);
    EXPECT_GT(t.values, 0);
    EXPECT_EQ(t.values, t.identical);
}

}  // namespace
}  // namespace speedqa::testing

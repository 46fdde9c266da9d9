// Every golden value of speed_chroma and speed_temporal from Netflix libvmaf,
// reproduced with ==, in the dispatch (covariance order) that produced it, by
// every instruction set this CPU has, through the CPU engine (frames in
// parallel, in batches) and through the sequential runner.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/cpu_flags.hpp"
#include "cpu/cpu_engine.hpp"
#include "features/speed/speed.hpp"
#include "support/run_engine.hpp"
#include "support/run_feature.hpp"
#include "support/testdata.hpp"

namespace speedqa::testing {
namespace {

struct Tally {
    long long files = 0, values = 0, identical = 0, crash_cases = 0, sequential = 0;
};

const std::vector<const FeatureDef*>& speed_defs() {
    static const std::vector<const FeatureDef*> defs = {&speed_chroma_feature(), &speed_temporal_feature()};
    return defs;
}

Dispatch dispatch_named(const std::string& d) {
    if (d == "scalar") return Dispatch::scalar;
    if (d == "avx2") return Dispatch::avx2;
    if (d == "avx512") return Dispatch::avx512;
    throw std::runtime_error("unknown dispatch " + d);
}

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
        const auto feature = feature_from_arg(speed_defs(), g.cli_feature_arg(), clip->format);
        std::vector<std::string> names;
        for (const FeatureOutput& o : feature->outputs()) names.push_back(o.name);
        EXPECT_EQ(names, g.metric_keys) << "metric names differ from the CLI's";
        const auto ref = frames_of(clip->format, load_xz(clip->ref_xz), clip->frames);
        const auto dis = frames_of(clip->format, load_xz(clip->dis_xz), clip->frames);
        t.files++;
        // each instruction set this CPU has (one in turn in a sanitizer
        // build), in the file's dispatch: the engine (2 threads, batches of
        // 4) and, for the widest, the sequential runner (in a sanitizer
        // build for one run in three, in turn)
        std::vector<std::vector<std::vector<double>>> runs;
        for (const CpuTarget& target : golden_targets(dispatch_named(g.dispatch), t.files - 1)) {
            cpu::CpuEngine engine(clip->format, {feature.get()}, target, 2);
            runs.push_back(run_clip(engine, ref, dis, feature->raw_count()));
        }
        if (!sanitizer_build() || sanitizer_turn(t.files - 1, 3) == 0) {
            runs.push_back(run_feature(*feature, {host_isa(), dispatch_named(g.dispatch)}, ref, dis));
            t.sequential++;
        }
        if (g.exit_status != 0) {
            // The reference crashed (speed_temporal with speed_prescale > 1
            // overflows its frame buffers): nothing to compare; the values
            // are checked against the full-frame path elsewhere.
            t.crash_cases++;
            for (const auto& run : runs)
                for (const auto& fr : run)
                    for (double v : fr) EXPECT_TRUE(std::isfinite(v));
            continue;
        }
        // libvmaf exited 0 with frames: as many frames, no more, no fewer
        EXPECT_FALSE(g.frames.empty()) << "libvmaf exited 0 but the golden file has no frames";
        EXPECT_EQ(g.frames.size(), static_cast<size_t>(clip->frames)) << "golden frames vs the clip's";
        for (const auto& got : runs) {
            EXPECT_EQ(got.size(), g.frames.size()) << "frames scored vs the golden file's";
            const size_t n = std::min(got.size(), g.frames.size());
            for (size_t i = 0; i < n; i++)
                for (size_t m = 0; m < g.metrics.size(); m++) {
                    t.values++;
                    const double want = g.frames[i][m];
                    const double have = got[i][m];
                    if (have == want) t.identical++;
                    else
                        ADD_FAILURE() << g.metrics[m] << " frame " << i << ": got " << std::hexfloat << have << " ("
                                      << std::defaultfloat << have << "), want " << want;
                }
        }
    }
    return t;
}

void report(const char* label, const TestData& data, const Tally& t) {
    std::printf("[golden] %s (%s): %lld files, %lld values compared, %lld identical, %lld reference-crash cases; "
                "%lld files also through the sequential runner\n",
                label, data.root().c_str(), t.files, t.values, t.identical, t.crash_cases, t.sequential);
    ::testing::Test::RecordProperty("values_compared", static_cast<int>(t.values));
    ::testing::Test::RecordProperty("values_identical", static_cast<int>(t.identical));
    print_golden_targets_note(label);
}

TEST(Golden, SharedTestdataEveryValueExact) {
    if (const char* why = golden_skip_in_sanitizer_build()) GTEST_SKIP() << why;
    const auto data = TestData::open(shared_testdata_dir());
    if (!data) {
        if (in_ci()) FAIL() << "CI=true but ../shared/testdata is absent: the full golden set must run in CI";
        GTEST_SKIP() << "../shared/testdata is absent: the full golden set was not checked "
                        "(the repository subset still runs in Golden.RepositorySubsetEveryValueExact)";
    }
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
    // the subset keeps a 1080p 10-bit clip
    bool hd10 = false;
    for (const ClipInfo& c : data->clips()) hd10 = hd10 || (c.format.width == 1920 && c.format.height == 1080 && c.format.bitdepth == 10);
    EXPECT_TRUE(hd10) << "the repository subset must keep a 1080p 10-bit clip";
}

}  // namespace
}  // namespace speedqa::testing

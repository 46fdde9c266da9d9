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
#include "support/model_golden.hpp"
#include "support/run_engine.hpp"
#include "support/run_feature.hpp"
#include "support/testdata.hpp"

namespace speedqa::testing {
namespace {

namespace fs = std::filesystem;

struct Tally {
    long long files = 0, values = 0, identical = 0, pooled = 0, pooled_identical = 0, errors = 0, defects = 0;
    std::map<std::string, long long> values_by_run;  // run kind -> values compared
};

// The Scorer's arguments for a golden run: its --feature and --model values.
void scorer_args(const ModelGolden& g, std::vector<std::string>& features, std::vector<std::string>& models) {
    for (size_t i = 0; i + 1 < g.args.size(); i++) {
        if (g.args[i] == "--feature") features.push_back(g.args[i + 1]);
        if (g.args[i] == "--model") {
            std::string m = g.args[i + 1];
            // the golden runs name the model files beside them
            if (m.rfind("path=", 0) == 0)
                m = "path=" + (fs::path(SPEEDQA_SOURCE_DIR) / "models" / m.substr(5)).string();
            models.push_back(m);
        }
    }
}

std::string run_kind(const std::string& run) {
    if (run.rfind("vmaf_", 0) == 0) return "models";
    const size_t o = run.find("_o");
    return o == std::string::npos ? run : run.substr(0, o);
}

void check_run(const ModelGolden& g, const ClipInfo& clip, Tally& t) {
    SCOPED_TRACE(g.path);
    std::vector<std::string> features, models;
    scorer_args(g, features, models);
    ScorerOptions o;
    o.models = models;
    o.dispatch = g.dispatch;
    o.threads = 2;
    const auto ref = frames_of(clip.format, load_xz(clip.ref_xz), clip.frames);
    const auto dis = frames_of(clip.format, load_xz(clip.dis_xz), clip.frames);
    std::vector<FrameScores> got;
    std::vector<std::string> names;
    try {
        Scorer s(clip.format, features, o);
        names = s.metric_names();
        s.push_batch(ref.data(), dis.data(), static_cast<int>(ref.size()), got);
        for (FrameScores& f : s.flush()) got.push_back(std::move(f));
    } catch (const Error& e) {
        if (g.exit_status != 0) {
            t.errors++;
            const std::string msg = e.what();
            EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
            // libvmaf exits 234 where CAMBI refuses the size, and crashes (-11)
            // where SpEED's prescale leaves a plane under 80x80: name the feature
            const char* who = g.exit_status == 234 ? "cambi" : "speed_chroma";
            EXPECT_NE(msg.find(who), std::string::npos) << "the message should name " << who << ": " << msg;
            return;
        }
        ADD_FAILURE() << "libvmaf scored this run, speedqa refused it: " << e.what();
        return;
    }
    if (g.exit_status != 0) {
        ADD_FAILURE() << "libvmaf failed here (exit " << g.exit_status << "); speedqa must refuse it clearly";
        return;
    }
    ASSERT_EQ(got.size(), static_cast<size_t>(clip.frames));
    if (!g.reference_defect.empty()) {
        // libvmaf read uninitialised memory: its values are not a target; ours
        // are computed from initialised memory (the ADM module's tests check
        // them against its C reference, and ASan/valgrind-clean runs)
        t.defects++;
        return;
    }
    t.files++;
    EXPECT_EQ(names, g.keys) << "metric names or their order differ from libvmaf's";
    ASSERT_EQ(g.frames.size(), got.size());
    for (size_t i = 0; i < got.size(); i++) {
        EXPECT_EQ(got[i].index, static_cast<long long>(i));
        for (size_t k = 0; k < g.keys.size() && k < names.size(); k++) {
            const size_t m = static_cast<size_t>(std::find(names.begin(), names.end(), g.keys[k]) - names.begin());
            if (m == names.size()) continue;  // reported above
            t.values++;
            t.values_by_run[run_kind(g.run)]++;
            const double want = g.frames[i][k], have = got[i].values[m];
            // libvmaf prints a non-finite value as null (NaN here)
            if (have == want || (std::isnan(want) && !std::isfinite(have))) t.identical++;
            else
                ADD_FAILURE() << g.keys[k] << " frame " << i << ": got " << std::hexfloat << have << " ("
                              << std::defaultfloat << have << "), libvmaf " << want;
        }
    }
    // pooled metrics, as the writers pool them
    io::ScoreTable table;
    table.metric_names = names;
    for (FrameScores& f : got) table.frames.push_back(f.values);
    for (const auto& [name, stats] : g.pooled) {
        const size_t m = static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
        if (m == names.size()) continue;
        const io::Pooled p = io::pool_metric(table, m);
        for (const auto& [stat, want] : stats) {
            const double have = stat == "min" ? p.min : stat == "max" ? p.max : stat == "mean" ? p.mean : p.harmonic_mean;
            t.pooled++;
            if (have == want || (std::isnan(want) && !std::isfinite(have))) t.pooled_identical++;
            else ADD_FAILURE() << "pooled " << name << " " << stat << ": got " << have << ", libvmaf " << want;
        }
    }
}

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
    Tally t;
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
        check_run(g, *clip, t);
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

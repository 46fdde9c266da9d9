// Every golden model run of libvmaf (../shared/testdata/models/golden,
// runs vmaf_*): its per-frame feature values, read from the columns libvmaf
// named after the model's features and options, go through our prediction,
// and every frame's score must be == libvmaf's. The pooled scores of those
// runs must come out of io/pooling.hpp == libvmaf's too.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>

#include "io/pooling.hpp"
#include "model/model_arg.hpp"
#include "model/tests/model_test_util.hpp"
#include "model/tests/vmaf_columns.hpp"
#include "support/model_golden.hpp"
#include "support/run_feature.hpp"
#include "support/testdata.hpp"
#include "support/json.hpp"

namespace speedqa::model {
namespace {

namespace fs = std::filesystem;
using speedqa::testing::ModelGolden;
using testing::column_of;

struct Tally {
    int files = 0, compared_files = 0, expected_errors = 0, defects = 0;
    long long predictions = 0, identical = 0, pooled = 0, pooled_identical = 0;
};

void check_run(const ModelGolden& g, const speedqa::testing::ClipInfo& clip, Tally& t) {
    SCOPED_TRACE(g.path);
    ASSERT_EQ(g.args.size(), 2u);
    ASSERT_EQ(g.args[0], "--model");
    const ModelArg arg = parse_model_arg(g.args[1]);
    const Model m = Model::load_file(testing::repo_models_dir() + "/" + fs::path(arg.path).filename().string(),
                                     arg.options);
    std::vector<int> cols;
    for (const ModelFeature& f : m.features()) {
        const std::string name = column_of(f);
        cols.push_back(g.key_index(name));
        ASSERT_GE(cols.back(), 0) << "no golden column " << name;
    }
    const int score = g.key_index(m.name());
    ASSERT_GE(score, 0) << "no golden column " << m.name();
    EXPECT_EQ(g.frames.size(), static_cast<size_t>(clip.frames));
    t.compared_files++;
    std::vector<double> x(cols.size());
    for (size_t i = 0; i < g.frames.size(); i++) {
        for (size_t k = 0; k < cols.size(); k++) x[k] = g.frames[i][static_cast<size_t>(cols[k])];
        const double want = g.frames[i][static_cast<size_t>(score)];
        const double got = m.predict(x.data());
        t.predictions++;
        if (got == want) t.identical++;
        else
            ADD_FAILURE() << "frame " << i << ": got " << std::hexfloat << got << " (" << std::defaultfloat << got
                          << "), libvmaf " << std::hexfloat << want << " (" << std::defaultfloat << want << ")";
    }

    // pooling: every metric of the run, the model's score first of all
    io::ScoreTable table;
    table.metric_names = g.keys;
    table.frames = g.frames;
    ASSERT_EQ(g.pooled.size(), g.keys.size());
    for (size_t mi = 0; mi < g.keys.size(); mi++) {
        ASSERT_EQ(g.pooled[mi].first, g.keys[mi]);
        const io::Pooled p = io::pool_metric(table, mi);
        ASSERT_TRUE(p.valid);
        const std::map<std::string, double> have = {
            {"min", p.min}, {"max", p.max}, {"mean", p.mean}, {"harmonic_mean", p.harmonic_mean}};
        ASSERT_EQ(g.pooled[mi].second.size(), have.size());
        for (const auto& [stat, want] : g.pooled[mi].second) {
            t.pooled++;
            const double got = have.at(stat);
            if (got == want) t.pooled_identical++;
            else
                ADD_FAILURE() << g.keys[mi] << " " << stat << ": pooled " << std::hexfloat << got << ", libvmaf "
                              << want;
        }
    }
}

// The model runs of a clip: <clip>__vmaf_*.json, sorted.
std::vector<std::string> model_run_files(const std::string& root, const std::string& clip) {
    std::vector<std::string> out;
    const std::string prefix = clip + "__vmaf_";
    for (const auto& e : fs::directory_iterator(fs::path(root) / "models" / "golden")) {
        const std::string name = e.path().filename().string();
        if (name.rfind(prefix, 0) == 0 && e.path().extension() == ".json") out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Whether a golden file has per-frame values: the runs where libvmaf failed
// have none (support/model_golden.cpp cannot load those, hence this check).
bool has_frames(const std::string& path) {
    const nlohmann::json g = speedqa::testing::parse_json(testing::read_text(path));
    return g.contains("frames") && g.value("exit_status", -1) == 0;
}

TEST(GoldenModels, EveryFrameScoreIsLibvmafs) {
    if (const char* why = speedqa::testing::golden_skip_in_sanitizer_build()) GTEST_SKIP() << why;
    const std::string root = speedqa::testing::shared_testdata_dir();
    SPEEDQA_REQUIRE_SHARED(root);
    const auto data = speedqa::testing::TestData::open(root);
    ASSERT_TRUE(data.has_value());
    Tally t;
    for (const auto& clip : data->clips()) {
        for (const std::string& file : model_run_files(root, clip.name)) {
            t.files++;
            if (!has_frames(file)) {
                // libvmaf failed in a feature (CAMBI on 80x80, SpEED's prescaled chroma under 80x80)
                t.expected_errors++;
                continue;
            }
            const auto runs = speedqa::testing::load_model_golden(root, fs::path(file).filename().string());
            ASSERT_EQ(runs.size(), 1u) << file;
            const ModelGolden& g = runs[0];
            ASSERT_EQ(g.exit_status, 0) << file;
            if (!g.reference_defect.empty()) t.defects++;  // the features are off, the prediction from them is not
            check_run(g, clip, t);
        }
    }
    EXPECT_GT(t.predictions, 0);
    EXPECT_EQ(t.files, 9 * 11 * 3);
    std::printf("[golden-models] model: %d files, %lld predictions compared, %lld identical (%d files compared, "
                "%d expected-error files, %d reference-defect files among those compared)\n",
                t.files, t.predictions, t.identical, t.compared_files, t.expected_errors, t.defects);
    std::printf("[golden-models] model pooling (io/pooling.hpp): %lld pooled values compared, %lld identical\n",
                t.pooled, t.pooled_identical);
}

}  // namespace
}  // namespace speedqa::model

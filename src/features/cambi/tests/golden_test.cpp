// Every CAMBI value of the golden files (libvmaf master), reproduced with ==
// by every kernel variant this host runs: the feature runs (feature_cambi and
// its option sets) and the cambi column of the VMAF v1.0.16 model runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "core/error.hpp"
#include "features/cambi/cambi.hpp"
#include "support/model_golden.hpp"
#include "support/run_feature.hpp"
#include "support/testdata.hpp"
#include "support/json.hpp"

namespace speedqa::testing {
namespace {

namespace fs = std::filesystem;

struct Tally {
    long long files = 0, values = 0, identical = 0, expected_errors = 0, defects = 0, model_files = 0,
              skipped_models = 0;
};


// The golden files whose name starts with `prefix`. load_model_golden reads
// files of failed runs too, but they have no frames: those are read here.
std::vector<ModelGolden> golden_files(const std::string& root, const std::string& prefix) {
    std::vector<ModelGolden> out;
    std::vector<fs::path> paths;
    for (const auto& e : fs::directory_iterator(fs::path(root) / "models" / "golden"))
        if (e.path().filename().string().rfind(prefix, 0) == 0) paths.push_back(e.path());
    std::sort(paths.begin(), paths.end());
    for (const fs::path& p : paths) {
        std::ifstream in(p);
        const nlohmann::json j = parse_json(in);
        if (j.contains("frames")) {
            for (ModelGolden& g : load_model_golden(root, p.stem().string())) out.push_back(std::move(g));
            continue;
        }
        ModelGolden g;
        g.path = p.string();
        g.clip = j.at("clip");
        g.run = j.at("run");
        g.dispatch = j.at("dispatch");
        g.cpumask = j.at("cpumask");
        g.args = j.at("args").get<std::vector<std::string>>();
        g.exit_status = j.at("exit_status");
        out.push_back(std::move(g));
    }
    return out;
}

// Compares the values of column `key` (all columns when empty) of every frame.
// `got` holds the first frames of the clip (golden_frames).
void compare(const ModelGolden& g, const Feature& f, const std::vector<std::vector<double>>& got, int column,
             const std::string& key, Tally& t) {
    ASSERT_EQ(got.size(), golden_frames(g.frames.size()));
    for (size_t i = 0; i < got.size(); i++)
        for (size_t m = 0; m < f.outputs().size(); m++) {
            const int gk = column >= 0 ? column : static_cast<int>(m);
            if (column >= 0 && f.outputs()[m].name != key) continue;
            const double want = g.frames[i][static_cast<size_t>(gk)], have = got[i][m];
            t.values++;
            if (have == want) t.identical++;
            else
                ADD_FAILURE() << g.path << ": " << f.outputs()[m].name << " frame " << i << ": got " << std::hexfloat
                              << have << ", want " << want << std::defaultfloat << " (" << have << " vs " << want << ")";
        }
}

void run_golden(const ModelGolden& g, const TestData& data, const std::string& arg, bool model, Tally& t) {
    SCOPED_TRACE(g.path);
    const ClipInfo* clip = data.clip(g.clip);
    ASSERT_NE(clip, nullptr) << "unknown clip";
    if (g.exit_status != 0) {
        if (model) return;  // another feature of the model failed in libvmaf
        // libvmaf fails on this clip: we refuse it before any frame.
        t.files++;
        t.expected_errors++;
        EXPECT_THROW(feature_from_arg({&cambi_feature()}, arg, clip->format), Error);
        return;
    }
    if (!g.reference_defect.empty()) t.defects++;
    const auto feature = feature_from_arg({&cambi_feature()}, arg, clip->format);
    std::string key;
    int column = -1;
    if (model) {
        key = feature->outputs().at(0).name;
        column = g.key_index(key);
        ASSERT_GE(column, 0) << "no column " << key;
        t.model_files++;
    } else {
        std::vector<std::string> names;
        for (const auto& o : feature->outputs()) names.push_back(o.name);
        EXPECT_EQ(names, g.keys);
    }
    t.files++;
    EXPECT_EQ(g.frames.size(), static_cast<size_t>(clip->frames));
    // (CAMBI has no history: each frame alone)
    const auto ref = first_golden_frames(clip_pictures(*clip, clip->ref_xz));
    const auto dis = first_golden_frames(clip_pictures(*clip, clip->dis_xz));
    for (const CpuTarget& target : golden_targets(g.dispatch_value(), t.files - 1)) {
        SCOPED_TRACE(isa_name(target.isa));
        compare(g, *feature, run_feature_once(g.clip, *feature, target, ref, dis), column, key, t);
    }
}

TEST(CambiGolden, EveryValueExact) {
    if (const char* why = golden_skip_in_sanitizer_build()) GTEST_SKIP() << why;
    const std::string root = shared_testdata_dir();
    const auto data = TestData::open(root);
    if (!data) {
        const char* ci = std::getenv("CI");
        if (ci && std::string(ci) == "true") FAIL() << "the shared test data is absent (set SPEEDQA_SHARED_TESTDATA)";
        GTEST_SKIP() << "the shared test data is absent: no golden value was checked";
    }
    Tally t;
    std::vector<ModelGolden> features, models;
    for (const ClipInfo& c : data->clips()) {
        for (ModelGolden& g : golden_files(root, c.name + "__feature_cambi")) features.push_back(std::move(g));
        for (ModelGolden& g : golden_files(root, c.name + "__vmaf_")) models.push_back(std::move(g));
    }
    for (const ModelGolden& g : features) run_golden(g, *data, g.feature_arg(), false, t);
    const fs::path model_dir = fs::path(root).parent_path() / "models";
    for (const ModelGolden& g : models) {
        const std::string arg = model_feature_arg((model_dir / (g.run + ".json")).string(), "_feature_cambi_score", "cambi");
        if (arg.empty()) continue;
        if (g.exit_status != 0) {
            t.skipped_models++;
            continue;
        }
        run_golden(g, *data, arg, true, t);
    }
    std::printf("[golden-models] cambi: %lld files (%lld model runs), %lld values compared, %lld identical, "
                "%lld expected-error files, %lld reference-defect files, %lld failed model runs skipped\n",
                t.files, t.model_files, t.values, t.identical, t.expected_errors, t.defects, t.skipped_models);
    print_run_feature_once_counts("cambi");
    print_golden_targets_note("cambi");
    print_golden_frames_note("cambi");
    EXPECT_GT(t.values, 0);
    EXPECT_EQ(t.values, t.identical);
}

}  // namespace
}  // namespace speedqa::testing

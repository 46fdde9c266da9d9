// Every integer ADM value of the golden files (libvmaf master), reproduced
// with == by every kernel this host runs, for each libvmaf dispatch: the
// feature runs (feature_adm and its option sets) and the integer_adm*
// columns of the model runs (built with the model's feature_opts_dicts).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "features/adm/adm.hpp"
#include "support/model_golden.hpp"
#include "support/run_feature.hpp"
#include "support/testdata.hpp"
#include "support/json.hpp"

namespace speedqa::testing {
namespace {

namespace fs = std::filesystem;

struct Tally {
    long long files = 0, values = 0, identical = 0, nan_identical = 0, expected_errors = 0, defect_files = 0,
              defect_values = 0, model_files = 0, skipped_models = 0;
};

// One golden file. load_model_golden cannot read these: libvmaf's NaN is
// written as null (ADM with adm_csf_mode=1 overflows into NaN on some frames).
struct Golden {
    std::string path, clip, run;
    Dispatch dispatch = Dispatch::scalar;
    std::vector<std::string> args, keys;
    int exit_status = 0;
    bool defect = false;
    std::vector<std::vector<double>> frames;
    int key_index(const std::string& k) const {
        const auto it = std::find(keys.begin(), keys.end(), k);
        return it == keys.end() ? -1 : static_cast<int>(it - keys.begin());
    }
};

Golden read_golden(const fs::path& p) {
    std::ifstream in(p);
    const nlohmann::ordered_json j = parse_ordered_json(in);
    Golden g;
    g.path = p.string();
    g.clip = j.at("clip");
    g.run = j.at("run");
    const std::string d = j.at("dispatch");
    g.dispatch = d == "scalar" ? Dispatch::scalar : (d == "avx2" ? Dispatch::avx2 : Dispatch::avx512);
    g.args = j.at("args").get<std::vector<std::string>>();
    g.exit_status = j.at("exit_status");
    g.defect = j.contains("reference_defect");
    if (!j.contains("frames")) return g;
    for (const auto& fr : j.at("frames")) {
        if (g.keys.empty())
            for (auto it = fr.begin(); it != fr.end(); ++it)
                if (it.key() != "frameNum") g.keys.push_back(it.key());
        std::vector<double> row;
        for (const std::string& k : g.keys) {
            const auto& v = fr.at(k);
            row.push_back(v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>());
        }
        g.frames.push_back(std::move(row));
    }
    return g;
}

std::vector<Golden> golden_files(const std::string& root, const std::string& prefix) {
    std::vector<fs::path> paths;
    for (const auto& e : fs::directory_iterator(fs::path(root) / "models" / "golden"))
        if (e.path().filename().string().rfind(prefix, 0) == 0) paths.push_back(e.path());
    std::sort(paths.begin(), paths.end());
    std::vector<Golden> out;
    for (const fs::path& p : paths) out.push_back(read_golden(p));
    return out;
}


std::string feature_arg(const Golden& g) {
    for (size_t i = 0; i + 1 < g.args.size(); i++)
        if (g.args[i] == "--feature") return g.args[i + 1];
    return "";
}

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

void run_golden(const Golden& g, const TestData& data, const std::string& arg, bool model, Tally& t) {
    SCOPED_TRACE(g.path);
    const ClipInfo* clip = data.clip(g.clip);
    ASSERT_NE(clip, nullptr) << "unknown clip";
    if (g.exit_status != 0) {
        if (model) {
            t.skipped_models++;   // another feature of the model failed in libvmaf
            return;
        }
        t.files++;
        t.expected_errors++;
        EXPECT_THROW(feature_from_arg({&adm_feature()}, arg, clip->format), Error);
        return;
    }
    const auto feature = feature_from_arg({&adm_feature()}, arg, clip->format);
    std::vector<int> columns;
    for (const auto& o : feature->outputs()) columns.push_back(g.key_index(o.name));
    if (model) {
        for (size_t m = 0; m < columns.size(); m++) ASSERT_GE(columns[m], 0) << "no column " << feature->outputs()[m].name;
        t.model_files++;
    } else {
        std::vector<std::string> names;
        for (const auto& o : feature->outputs()) names.push_back(o.name);
        ASSERT_EQ(names, g.keys);
    }
    t.files++;
    if (g.defect) t.defect_files++;
    ASSERT_EQ(g.frames.size(), static_cast<size_t>(clip->frames));
    // (ADM has no history: each frame alone)
    const auto ref = first_golden_frames(clip_pictures(*clip, clip->ref_xz));
    const auto dis = first_golden_frames(clip_pictures(*clip, clip->dis_xz));
    const size_t frames = ref.size();
    for (const CpuTarget& target : golden_targets(g.dispatch, t.files - 1)) {
        SCOPED_TRACE(isa_name(target.isa));
        const auto& got = run_feature_once(g.clip, *feature, target, ref, dis);
        ASSERT_EQ(got.size(), frames);
        for (size_t i = 0; i < got.size(); i++)
            for (size_t m = 0; m < columns.size(); m++) {
                const double want = g.frames[i][static_cast<size_t>(columns[m])], have = got[i][m];
                if (g.defect) {
                    // libvmaf read uninitialised memory: not a target.
                    t.defect_values++;
                    continue;
                }
                t.values++;
                if (same(have, want)) {
                    t.identical++;
                    if (std::isnan(want)) t.nan_identical++;
                } else {
                    ADD_FAILURE() << feature->outputs()[m].name << " frame " << i << ": got " << std::hexfloat << have
                                  << ", want " << want << std::defaultfloat << " (" << have << " vs " << want << ")";
                }
            }
    }
}

TEST(AdmGolden, EveryValueExact) {
    if (const char* why = golden_skip_in_sanitizer_build()) GTEST_SKIP() << why;
    const std::string root = shared_testdata_dir();
    const auto data = TestData::open(root);
    if (!data) {
        const char* ci = std::getenv("CI");
        if (ci && std::string(ci) == "true") FAIL() << "the shared test data is absent (set SPEEDQA_SHARED_TESTDATA)";
        GTEST_SKIP() << "the shared test data is absent: no golden value was checked";
    }
    Tally t;
    for (const ClipInfo& c : data->clips()) {
        for (const Golden& g : golden_files(root, c.name + "__feature_adm")) run_golden(g, *data, feature_arg(g), false, t);
        for (const Golden& g : golden_files(root, c.name + "__vmaf_")) {
            const std::string model = (fs::path(root) / "models" / (g.run + ".json")).string();
            const std::string shared_model = (fs::path(root).parent_path() / "models" / (g.run + ".json")).string();
            const std::string arg = model_feature_arg(fs::exists(model) ? model : shared_model, "_integer_feature_adm", "adm");
            if (!arg.empty()) run_golden(g, *data, arg, true, t);
        }
    }
    std::printf("[golden-models] adm: %lld files (%lld model runs, %lld skipped: libvmaf failed), %lld values compared, "
                "%lld identical (%lld NaN), %lld expected-error files, %lld reference-defect files (%lld values not "
                "compared)\n",
                t.files, t.model_files, t.skipped_models, t.values, t.identical, t.nan_identical, t.expected_errors,
                t.defect_files, t.defect_values);
    print_run_feature_once_counts("adm");
    print_golden_targets_note("adm");
    print_golden_frames_note("adm");
    EXPECT_GT(t.values, 0);
    EXPECT_EQ(t.values, t.identical);
}

}  // namespace
}  // namespace speedqa::testing

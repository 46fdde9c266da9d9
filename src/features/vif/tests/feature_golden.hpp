// Golden checks shared by the vif and motion tests: a feature against the
// libvmaf golden files of ../shared/testdata/models (its own feature runs,
// and its columns inside the model runs), every value with ==.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/feature.hpp"
#include "support/model_golden.hpp"
#include "support/run_engine.hpp"
#include "support/run_feature.hpp"
#include "support/testdata.hpp"
#include "support/json.hpp"

namespace speedqa::testing {

struct GoldenTally {
    long long files = 0, runs = 0, values = 0, identical = 0, expected_errors = 0, reference_defects = 0;
    long long frames = 0;
};

// The shared test data, or "" after GTEST_SKIP (a failure when CI=true).
inline std::string golden_root_or_skip() {
    const std::string root = shared_testdata_dir();
    if (root.empty()) {
        const char* ci = std::getenv("CI");
        if (ci && std::string(ci) == "true") ADD_FAILURE() << "CI=true but ../shared/testdata is absent";
    }
    return root;
}

// Frames of each clip, decoded once per process.
struct ClipFrames {
    VideoFormat format;
    int frames = 0;
    std::vector<Picture> ref, dis;
};

inline const ClipFrames& clip_frames(const TestData& data, const std::string& name) {
    static std::map<std::string, ClipFrames> cache;
    auto it = cache.find(name);
    if (it != cache.end()) return it->second;
    const ClipInfo* c = data.clip(name);
    if (!c) throw std::runtime_error("unknown clip " + name);
    ClipFrames f;
    f.format = c->format;
    f.frames = c->frames;
    f.ref = frames_of(c->format, load_xz(c->ref_xz), c->frames);
    f.dis = frames_of(c->format, load_xz(c->dis_xz), c->frames);
    return cache.emplace(name, std::move(f)).first->second;
}

// The golden files whose run name starts with `run_prefix`, read one by one:
// load_model_golden reads neither the files of failed runs (no frames) nor
// those with null values (NaN, in other features' files); a failed run comes
// back with its exit status and no frames.
inline std::vector<ModelGolden> load_golden_runs(const TestData& data, const std::string& run_prefix) {
    namespace fs = std::filesystem;
    std::vector<std::string> stems;
    for (const auto& e : fs::directory_iterator(fs::path(data.root()) / "models" / "golden")) {
        const std::string stem = e.path().stem().string();
        const size_t sep = stem.find("__");
        if (e.path().extension() == ".json" && sep != std::string::npos &&
            stem.compare(sep + 2, run_prefix.size(), run_prefix) == 0)
            stems.push_back(stem);
    }
    std::sort(stems.begin(), stems.end());
    std::vector<ModelGolden> out;
    for (const std::string& stem : stems) {
        const fs::path path = fs::path(data.root()) / "models" / "golden" / (stem + ".json");
        std::ifstream in(path);
        const nlohmann::json j = parse_json(in);
        if (j.at("exit_status").get<int>() != 0) {
            ModelGolden g;
            g.path = path.string();
            g.clip = j.at("clip");
            g.run = j.at("run");
            g.dispatch = j.at("dispatch");
            g.args = j.at("args").get<std::vector<std::string>>();
            g.exit_status = j.at("exit_status");
            out.push_back(std::move(g));
            continue;
        }
        for (ModelGolden& g : load_model_golden(data.root(), stem)) out.push_back(std::move(g));
    }
    return out;
}

// Compares one run's outputs column by column: `cols[o]` is the golden key
// index of output o (-1: not in the file).
// `frames`: the golden frames the run scored (its first ones).
inline void compare_frames(const std::vector<std::vector<double>>& got, const ModelGolden& g,
                           const std::vector<int>& cols, const Feature& feature, const char* isa, GoldenTally& t,
                           size_t frames) {
    EXPECT_EQ(got.size(), frames) << isa;
    EXPECT_LE(frames, g.frames.size()) << isa;
    const size_t n = std::min({got.size(), frames, g.frames.size()});
    for (size_t i = 0; i < n; i++)
        for (size_t o = 0; o < cols.size(); o++) {
            if (cols[o] < 0) continue;
            const double want = g.frames[i][static_cast<size_t>(cols[o])];
            const double have = got[i][o];
            t.values++;
            if (have == want) t.identical++;
            else
                ADD_FAILURE() << g.path << " [" << isa << "] " << feature.outputs()[o].name << " frame " << i
                              << ": got " << std::hexfloat << have << " (" << std::defaultfloat << have
                              << "), want " << std::hexfloat << want << " (" << std::defaultfloat << want << ")";
        }
    t.frames += static_cast<long long>(n);
}

// Whether a feature's frames are each scored alone (no history, nothing
// deferred): then a sanitizer build runs the clips' first frames only
// (golden_frames).
enum class Frames { each_alone, in_sequence };

// Runs `feature` on a golden file's clip with every host kernel for its
// dispatch and compares the columns (not where the file flags a defect of
// libvmaf's, unless the defect lies in another feature of the run).
inline void run_and_compare(const TestData& data, const ModelGolden& g, const Feature& feature,
                            const std::vector<int>& cols, GoldenTally& t, Frames kind, bool defect_elsewhere = false) {
    const ClipFrames& clip = clip_frames(data, g.clip);
    const bool alone = kind == Frames::each_alone;
    const std::vector<Picture> ref = alone ? first_golden_frames(clip.ref) : clip.ref;
    const std::vector<Picture> dis = alone ? first_golden_frames(clip.dis) : clip.dis;
    const size_t frames = ref.size();
    for (const CpuTarget& target : golden_targets(g.dispatch_value(), t.files - 1)) {
        const auto& got = run_feature_once(g.clip, feature, target, ref, dis);
        EXPECT_EQ(got.size(), frames) << g.path;
        if (!g.reference_defect.empty() && !defect_elsewhere) {
            for (const auto& fr : got)
                for (double v : fr) EXPECT_TRUE(std::isfinite(v)) << g.path;
            continue;
        }
        compare_frames(got, g, cols, feature, isa_name(target.isa), t, frames);
        t.runs++;
    }
}

// Every file of runs "feature_<name>" and "feature_<name>_o<N>".
inline GoldenTally check_feature_runs(const FeatureDef& def, Frames kind) {
    GoldenTally t;
    const std::string root = golden_root_or_skip();
    const auto data = TestData::open(root);
    if (!data) return t;
    const std::string run = std::string("feature_") + def.name;
    for (const ModelGolden& g : load_golden_runs(*data, run)) {
        if (g.run != run && g.run.rfind(run + "_o", 0) != 0) continue;
        SCOPED_TRACE(g.path);
        t.files++;
        const ClipFrames& clip = clip_frames(*data, g.clip);
        if (g.exit_status != 0) {
            // libvmaf failed: we must refuse with one clear line
            t.expected_errors++;
            EXPECT_THROW(
                {
                    auto f = feature_from_arg({&def}, g.feature_arg(), clip.format);
                    for (const CpuTarget& target : host_targets(g.dispatch_value()))
                        run_feature(*f, target, clip.ref, clip.dis);
                },
                Error);
            continue;
        }
        if (!g.reference_defect.empty()) t.reference_defects++;
        const auto feature = feature_from_arg({&def}, g.feature_arg(), clip.format);
        std::vector<std::string> names;
        for (const FeatureOutput& o : feature->outputs()) names.push_back(o.name);
        EXPECT_EQ(names, g.keys) << "output names differ from libvmaf's";
        std::vector<int> cols;
        for (const std::string& n : names) cols.push_back(g.key_index(n));
        run_and_compare(*data, g, *feature, cols, t, kind);
    }
    return t;
}

// The feature's columns inside every model run ("vmaf_*") whose model uses
// a provided feature containing `marker`.
inline GoldenTally check_model_runs(const FeatureDef& def, const std::string& marker, Frames kind) {
    GoldenTally t;
    const std::string root = golden_root_or_skip();
    const auto data = TestData::open(root);
    if (!data) return t;
    const std::filesystem::path models = std::filesystem::path(root) / ".." / "models";
    for (const ModelGolden& g : load_golden_runs(*data, "vmaf_")) {
        SCOPED_TRACE(g.path);
        const std::string model_path = (models / (g.run + ".json")).string();
        std::ifstream probe(model_path);
        if (!probe) {
            ADD_FAILURE() << "model file missing: " << model_path;
            continue;
        }
        const auto opts = model_feature_options(model_path, marker);
        if (!opts) continue;  // the model does not use this feature
        t.files++;
        if (g.exit_status != 0) {
            t.expected_errors++;  // another feature of the model failed in libvmaf: no frames
            continue;
        }
        const ClipFrames& clip = clip_frames(*data, g.clip);
        const auto feature = make_feature(def, clip.format, *opts);
        std::vector<int> cols;
        int found = 0;
        for (const FeatureOutput& o : feature->outputs()) {
            cols.push_back(g.key_index(o.name));
            found += cols.back() >= 0;
        }
        EXPECT_GT(found, 0) << "none of the feature's columns is in the model run";
        // the defects flagged in model runs are ADM's (v6, SIMD): this
        // feature's columns there are still libvmaf's own values
        const bool defect_elsewhere = g.reference_defect.find("ADM") != std::string::npos;
        if (!g.reference_defect.empty()) t.reference_defects++;
        run_and_compare(*data, g, *feature, cols, t, kind, defect_elsewhere);
    }
    return t;
}

// libvmaf's scalar, AVX2 and AVX-512 dispatches give the same values for
// this feature (so one kernel serves all three): every column whose name
// contains `marker` in the runs starting with `run_prefix`, file by file.
// Returns the values compared.
inline long long check_dispatches_agree(const std::string& run_prefix, const std::string& marker) {
    const std::string root = golden_root_or_skip();
    const auto data = TestData::open(root);
    if (!data) return 0;
    std::map<std::string, std::vector<const ModelGolden*>> by_run;  // clip + run -> dispatches
    const std::vector<ModelGolden> all = load_golden_runs(*data, run_prefix);
    for (const ModelGolden& g : all)
        if (g.exit_status == 0) by_run[g.clip + "/" + g.run].push_back(&g);
    long long values = 0;
    for (const auto& [name, files] : by_run) {
        EXPECT_EQ(files.size(), 3u) << name;
        const ModelGolden& a = *files[0];
        for (const ModelGolden* b : files) {
            EXPECT_EQ(a.keys, b->keys) << name;
            if (a.keys != b->keys || a.frames.size() != b->frames.size()) continue;
            for (size_t k = 0; k < a.keys.size(); k++) {
                if (a.keys[k].find(marker) == std::string::npos) continue;
                for (size_t i = 0; i < a.frames.size(); i++) {
                    values++;
                    EXPECT_EQ(a.frames[i][k], b->frames[i][k])
                        << name << " " << a.keys[k] << " frame " << i << ": " << a.dispatch << " vs " << b->dispatch;
                }
            }
        }
    }
    return values;
}

inline void print_tally(const char* what, const GoldenTally& t, Frames kind) {
    std::printf(
        "[golden-models] %s: %lld files, %lld kernel runs, %lld frames, %lld values compared, %lld identical, "
        "%lld files of runs libvmaf failed, %lld reference-defect files\n",
        what, t.files, t.runs, t.frames, t.values, t.identical, t.expected_errors, t.reference_defects);
    print_run_feature_once_counts(what);
    print_golden_targets_note(what);
    if (kind == Frames::each_alone) print_golden_frames_note(what);
}

}  // namespace speedqa::testing

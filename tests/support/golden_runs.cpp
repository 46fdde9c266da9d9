#include "support/golden_runs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "io/pooling.hpp"
#include "speedqa/speedqa.hpp"
#include "support/run_engine.hpp"

namespace speedqa::testing {

namespace fs = std::filesystem;

// The Scorer's arguments for a golden run: its --feature and --model values.
void golden_scorer_args(const ModelGolden& g, std::vector<std::string>& features, std::vector<std::string>& models) {
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

std::string golden_run_kind(const std::string& run) {
    if (run.rfind("vmaf_", 0) == 0) return "models";
    const size_t o = run.find("_o");
    return o == std::string::npos ? run : run.substr(0, o);
}

void check_golden_run(const ModelGolden& g, const ClipInfo& clip, const GoldenRunOptions& run, GoldenTally& t) {
    SCOPED_TRACE(g.path);
    std::vector<std::string> features, models;
    golden_scorer_args(g, features, models);
    ScorerOptions o;
    o.models = models;
    o.dispatch = g.dispatch;
    o.threads = 2;
    o.backend = run.backend;
    o.batch = run.batch;
    const auto ref = frames_of(clip.format, load_xz(clip.ref_xz), clip.frames);
    const auto dis = frames_of(clip.format, load_xz(clip.dis_xz), clip.frames);
    std::vector<FrameScores> got;
    std::vector<std::string> names;
    try {
        Scorer s(clip.format, features, o);
        names = s.metric_names();
        for (size_t first = 0; first < ref.size(); first += static_cast<size_t>(run.push)) {
            const int n = static_cast<int>(std::min(ref.size() - first, static_cast<size_t>(run.push)));
            s.push_batch(ref.data() + first, dis.data() + first, n, got);
        }
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
            t.values_by_run[golden_run_kind(g.run)]++;
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

}  // namespace speedqa::testing

// The speedqa command with VMAF models, end to end: vmaf's default model and
// the v1.0.16 family print libvmaf's frames (names, order, values), several
// models at once, and every bad input of a model run refused with one line,
// a non-zero exit and no output file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/cpu_flags.hpp"
#include "support/cli_fixture.hpp"
#include "support/model_golden.hpp"
#include "support/testdata.hpp"
#include "support/json.hpp"

namespace speedqa::testing {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

using Result = CommandResult;

class CliModels : public CliTest {
protected:
    static void SetUpTestSuite() { make_dir("speedqa_cli_models", {"v1", "v6", "v7"}); }
};

// The golden run of clip v1 in the dispatch the command picks on this CPU.
ModelGolden golden_v1(const std::string& run) {
    const std::string d = dispatch_name(libvmaf_dispatch(0));
    const auto g = load_model_golden(shared_testdata_dir(), "v1__" + run + "__" + d);
    if (g.empty()) return {};
    return g.front();
}

// Every frame of the JSON output against the golden run of the whole clip:
// the keys in libvmaf's order and every value ==. The repository's clip is
// the first frames of the golden one, so its last frame's motion2 and
// motion3 (which look at the next frame) are left out. Returns the values
// compared.
int compare_json(const std::string& text, const ModelGolden& g, int frames) {
    const ojson got = parse_ordered_json(text);
    EXPECT_EQ(got["frames"].size(), static_cast<size_t>(frames));
    int compared = 0;
    for (int i = 0; i < frames && i < static_cast<int>(got["frames"].size()); i++) {
        const ojson& m = got["frames"][i]["metrics"];
        std::vector<std::string> keys;
        for (auto it = m.begin(); it != m.end(); ++it) keys.push_back(it.key());
        EXPECT_EQ(keys, g.keys) << "frame " << i;
        for (size_t k = 0; k < g.keys.size(); k++)
            if (m.contains(g.keys[k]) && !(i == frames - 1 && g.keys[k].find("motion") != std::string::npos &&
                                           g.keys[k].find("sad") == std::string::npos) &&
                !(i == frames - 1 && g.keys[k] == "vmaf")) {
                EXPECT_EQ(m[g.keys[k]].get<double>(), g.frames[static_cast<size_t>(i)][k]) << g.keys[k] << " frame " << i;
                compared++;
            }
    }
    return compared;
}

TEST_F(CliModels, DefaultModelIsVmafsAndPrintsLibvmafsFrames) {
    const ModelGolden g = golden_v1("vmaf_v0.6.1");
    if (g.keys.empty()) GTEST_SKIP() << "../shared/testdata/models/golden is absent";
    // no --model and no --no_prediction: vmaf_v0.6.1, as vmaf does
    const Result r = run(v1() + " --json --precision max -o - -q --threads 2");
    ASSERT_EQ(r.status, 0) << r.err;
    const int n = compare_json(r.out, g, 8);
    std::printf("[cli-models] default model: %d values identical to libvmaf's\n", n);
}

TEST_F(CliModels, TheV1016FamilyAndSeveralModelsAtOnce) {
    const ModelGolden g = golden_v1("vmaf_v1.0.16_3d0h");
    if (g.keys.empty()) GTEST_SKIP() << "../shared/testdata/models/golden is absent";
    const Result r = run(v1() + " --model version=vmaf_v1.0.16 --json --precision max -o - -q");
    ASSERT_EQ(r.status, 0) << r.err;
    const int n = compare_json(r.out, g, 8);
    // two models: each a column named as given, after every feature column
    const Result two = run(v1() + " --model version=vmaf_v1.0.16_3d0h:name=v16 --model version=vmaf_v0.6.1:name=v061 "
                                  "--json --precision max -o - -q");
    ASSERT_EQ(two.status, 0) << two.err;
    const ojson got = parse_ordered_json(two.out);
    const ojson& m = got["frames"][0]["metrics"];
    std::vector<std::string> keys;
    for (auto it = m.begin(); it != m.end(); ++it) keys.push_back(it.key());
    ASSERT_GE(keys.size(), 2u);
    EXPECT_EQ(keys[keys.size() - 2], "v16");
    EXPECT_EQ(keys.back(), "v061");
    EXPECT_EQ(m["v16"].get<double>(), g.frames[0][static_cast<size_t>(g.key_index("vmaf"))]);
    const ModelGolden g061 = golden_v1("vmaf_v0.6.1");
    EXPECT_EQ(m["v061"].get<double>(), g061.frames[0][static_cast<size_t>(g061.key_index("vmaf"))]);
    std::printf("[cli-models] vmaf_v1.0.16: %d values identical to libvmaf's; two models at once identical too\n", n);
}

TEST_F(CliModels, BadModelRunsAreRefusedClearly) {
    std::ofstream(dir / "broken.json") << "{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", ";
    struct Case {
        const char* name;
        std::string args, expect;
    };
    const std::string v6 = clip("v6", "-w 80 -h 80 -p 444 -b 8"), v7 = clip("v7", "-w 320 -h 240 -p 420 -b 8");
    const std::vector<Case> cases = {
        {"unknown version", v1() + " --model version=vmaf_v9", "vmaf_v9"},
        {"missing file", v1() + " --model path=/nonexistent/m.json", "/nonexistent/m.json"},
        {"malformed file", v1() + " --model path=" + (dir / "broken.json").string(), "broken.json"},
        {"two models of one name", v1() + " --model version=vmaf_v0.6.1 --model version=vmaf_v1.0.16_3d0h", "vmaf"},
        {"CAMBI on 80x80 (libvmaf exits 234)", v6 + " --model version=vmaf_v1.0.16_3d0h", "cambi"},
        {"SpEED's prescale under 80x80 (libvmaf crashes)", v7 + " --model version=vmaf_v1.0.16_5d0h", "speed_chroma"},
        {"NaN model option overload", v1() + " --model version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=nan", "vif_enhn_gain_limit"},
        {"a feature option out of range", v1() + " --no_prediction --feature adm=adm_csf_mode=42", "adm_csf_mode"},
        {"heatmaps", v1() + " --no_prediction --feature cambi=heatmaps_path=/tmp", "heatmaps_path"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        const fs::path o = dir / "must_not_exist.json";
        fs::remove(o);
        const Result r = run(c.args + " --json -o " + o.string());
        EXPECT_NE(r.status, 0);
        EXPECT_LT(r.status, 128) << "crashed";
        EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
        EXPECT_FALSE(fs::exists(o)) << "an output file was left behind";
    }
    std::printf("[cli-models] %zu bad model runs refused with one clear line\n", cases.size());
}

}  // namespace
}  // namespace speedqa::testing

// What the golden files do not cover, checked against a libvmaf `vmaf`
// command that prints %.17g (SPEEDQA_VMAF_BIN; skipped without it): model
// files edited to use knots, rectification, clips that bite, no
// normalisation, another chroma correction, and the --model flags and
// overloads. vmaf scores one clip with every model at once; each model's
// per-frame score must be == ours from the feature values vmaf printed.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <algorithm>

#include "model/model_arg.hpp"
#include "model/tests/model_test_util.hpp"
#include "model/tests/vmaf_columns.hpp"
#include "support/testdata.hpp"
#include "support/json.hpp"

namespace speedqa::model {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

struct Variant {
    std::string file;  // written into the work folder
    std::string base;  // the repository model it is edited from
    std::function<void(ojson&)> edit;  // on model_dict
};

// Model files that exercise the parts of predict.c the shipped models leave idle.
std::vector<Variant> variants() {
    return {
        {"knots_lte.json", "vmaf_v0.6.1",
         [](ojson& d) {
             d["score_transform"] = speedqa::testing::parse_ordered_json(
                 R"({"enabled": true, "knots": [[0, 0], [20, 10], [50, 30], [90, 80], [100, 100]], "out_lte_in": "true"})");
         }},
        {"poly_knots.json", "vmaf_v0.6.1",
         [](ojson& d) {
             // poly(80) = 79.6, poly(83) = 82.4: some frames on the flat segment
             d["score_transform"] = speedqa::testing::parse_ordered_json(R"({"enabled": true, "p0": -2, "p1": 1.1, "p2": -0.001,
                 "knots": [[10, 5], [79, 79], [81, 79], [95, 110]], "out_gte_in": "false", "out_lte_in": "false"})");
         }},
        {"tight_clip.json", "vmaf_v0.6.1", [](ojson& d) { d["score_clip"] = {80.25, 82.5}; }},
        {"no_norm.json", "vmaf_v0.6.1", [](ojson& d) { d["norm_type"] = "none"; }},
        {"chroma_50.json", "vmaf_v1.0.16_3d0h_2160", [](ojson& d) { d["chroma_correction_parameter"] = 50.5; }},
        {"chroma_none.json", "vmaf_v1.0.16_3d0h", [](ojson& d) {
             d.erase("chroma_correction_parameter");
             d["score_transform"]["enabled"] = false;
         }},
    };
}

// The --model arguments: the edited files and the shipped ones with flags
// and overloads. Names must be unique (vmaf refuses twins).
std::vector<std::string> model_args(const std::string& work, const std::string& models) {
    std::vector<std::string> args;
    for (const Variant& v : variants()) args.push_back("path=" + work + "/" + v.file + ":name=" + fs::path(v.file).stem().string());
    args.push_back("path=" + models + "/vmaf_v0.6.1.json:name=v061_transform:enable_transform");
    args.push_back("path=" + models + "/vmaf_v0.6.1.json:name=v061_unclipped:disable_clip=true");
    args.push_back("path=" + models + "/vmaf_v0.6.1.json:name=v061_both:enable_transform:disable_clip");
    args.push_back("path=" + models + "/vmaf_v0.6.1neg.json:name=neg_overload:vif.vif_enhn_gain_limit=1.5:"
                   "adm.adm_min_val=0.25:motion.motion_max_val=3");
    args.push_back("path=" + models + "/vmaf_v1.0.16_hfr_3d0h.json:name=hfr_unclipped:disable_clip:"
                   "adm.adm_csf_mode=3:cambi.cambi_max_val=1.5");
    args.push_back("path=" + models + "/vmaf_v1.0.16_3d0h_2160.json:name=v116_2160");
    return args;
}

std::string write_raw(const std::string& xz, const fs::path& to) {
    const auto& bytes = speedqa::testing::load_xz(xz);
    std::ofstream out(to, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return to.string();
}

TEST(VmafLive, EditedModelsFlagsAndOverloadsScoreAsVmaf) {
    const char* bin = std::getenv("SPEEDQA_VMAF_BIN");
    if (!bin) GTEST_SKIP() << "set SPEEDQA_VMAF_BIN to a libvmaf vmaf that prints %.17g";
    const std::string root = speedqa::testing::shared_testdata_dir();
    if (root.empty()) GTEST_SKIP() << "no shared test data";
    const auto data = speedqa::testing::TestData::open(root);
    ASSERT_TRUE(data.has_value());
    const auto* clip = data->clip("v1");
    ASSERT_NE(clip, nullptr);

    const fs::path work = fs::temp_directory_path() / ("speedqa_vmaf_live_" + std::to_string(::getpid()));
    fs::create_directories(work);
    const std::string models = testing::repo_models_dir();
    for (const Variant& v : variants()) {
        ojson j = speedqa::testing::parse_ordered_json(testing::read_text(models + "/" + v.base + ".json"));
        v.edit(j["model_dict"]);
        std::ofstream(work / v.file) << speedqa::testing::dump_json(j, 1);
    }
    const std::string ref = write_raw(clip->ref_xz, work / "ref.yuv");
    const std::string dis = write_raw(clip->dis_xz, work / "dis.yuv");
    const auto args = model_args(work.string(), models);
    std::string cmd = std::string(bin) + " -r " + ref + " -d " + dis + " -w " + std::to_string(clip->format.width) +
                      " -h " + std::to_string(clip->format.height) + " -p 420 -b 8 -q --threads 2 --json -o " +
                      (work / "out.json").string();
    for (const std::string& a : args) cmd += " --model '" + a + "'";
    cmd += " > " + (work / "log.txt").string() + " 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd << "\n" << testing::read_text((work / "log.txt").string());
    const ojson out = speedqa::testing::parse_ordered_json(testing::read_text((work / "out.json").string()));

    long long compared = 0, identical = 0;
    std::map<std::string, std::vector<double>> scores;
    for (const std::string& a : args) {
        SCOPED_TRACE(a);
        const Model m = load_model(parse_model_arg(a), {});
        std::vector<double> x(m.features().size());
        for (const ojson& frame : out.at("frames")) {
            const ojson& metrics = frame.at("metrics");
            for (size_t k = 0; k < x.size(); k++) {
                const std::string col = testing::column_of(m.features()[k]);
                ASSERT_TRUE(metrics.contains(col)) << col;
                x[k] = metrics[col].get<double>();
            }
            const double want = metrics.at(m.name()).get<double>();
            scores[m.name()].push_back(want);
            const double got = m.predict(x.data());
            compared++;
            if (got == want) identical++;
            else
                ADD_FAILURE() << m.name() << " frame " << frame.at("frameNum") << ": got " << std::hexfloat << got
                              << ", vmaf " << want;
        }
    }
    fs::remove_all(work);
    // each edit changes the scores, so the check above covers it
    auto hits = [&](const std::string& name, double v) {
        return std::count(scores[name].begin(), scores[name].end(), v) > 0;
    };
    EXPECT_TRUE(hits("tight_clip", 80.25) && hits("tight_clip", 82.5));
    EXPECT_NE(scores["knots_lte"], scores["v061_unclipped"]);
    EXPECT_TRUE(hits("poly_knots", 79.0));
    EXPECT_NE(scores["poly_knots"], scores["v061_unclipped"]);
    EXPECT_NE(scores["v061_transform"], scores["v061_unclipped"]);
    EXPECT_NE(scores["chroma_50"], scores["v116_2160"]);
    EXPECT_EQ(compared, static_cast<long long>(args.size()) * clip->frames);
    std::printf("[vmaf-live] model: %zu models on %s, %lld predictions compared, %lld identical\n", args.size(),
                clip->name.c_str(), compared, identical);
}

}  // namespace
}  // namespace speedqa::model

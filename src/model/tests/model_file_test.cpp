// Model files: every file Netflix ships for our features loads, with the
// features and options libvmaf reads from it; anything malformed or
// unsupported fails with one line naming the file; versions are found in
// the folders given.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

#include "model/model.hpp"
#include "model/tests/model_test_util.hpp"
#include "support/json.hpp"

namespace speedqa::model {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;
using testing::expect_error;
using testing::read_text;
using testing::repo_models_dir;
using Options = std::vector<std::pair<std::string, std::string>>;

std::string model_path(const std::string& version) { return repo_models_dir() + "/" + version + ".json"; }

std::vector<std::string> model_files(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".json") out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

TEST(ModelFiles, EveryRepositoryModelLoads) {
    const auto files = model_files(repo_models_dir());
    EXPECT_EQ(files.size(), 11u);
    for (const std::string& f : files) {
        SCOPED_TRACE(f);
        const Model m = Model::load_file(f);
        EXPECT_EQ(m.name(), "vmaf");
        EXPECT_EQ(m.origin(), f);
        EXPECT_FALSE(m.features().empty());
        for (const ModelFeature& feat : m.features()) EXPECT_FALSE(feat.extractor.empty());
    }
}

TEST(ModelFiles, SharedModelsLoadAndTheRepositoryHoldsThemUnmodified) {
    const std::string shared = testing::shared_models_dir();
    SPEEDQA_REQUIRE_SHARED(shared);
    int n = 0;
    for (const auto& e : fs::directory_iterator(shared)) {
        const std::string name = e.path().filename().string();
        SCOPED_TRACE(name);
        EXPECT_EQ(read_text(e.path().string()), read_text(repo_models_dir() + "/" + name)) << "copy differs";
        if (e.path().extension() == ".json") {
            Model::load_file(e.path().string());
            n++;
        }
    }
    EXPECT_EQ(n, 11);
    std::printf("[golden-models] model files: %d loaded from %s, identical to the repository's copies\n", n,
                shared.c_str());
}

TEST(ModelFiles, V061ReadsTheIntegerFeaturesWithoutOptions) {
    const Model m = Model::load_file(model_path("vmaf_v0.6.1"));
    const std::vector<std::pair<std::string, std::string>> want = {
        {"VMAF_integer_feature_adm2_score", "adm"},         {"VMAF_integer_feature_motion2_score", "motion"},
        {"VMAF_integer_feature_vif_scale0_score", "vif"},   {"VMAF_integer_feature_vif_scale1_score", "vif"},
        {"VMAF_integer_feature_vif_scale2_score", "vif"},   {"VMAF_integer_feature_vif_scale3_score", "vif"}};
    ASSERT_EQ(m.features().size(), want.size());
    for (size_t i = 0; i < want.size(); i++) {
        EXPECT_EQ(m.features()[i].provided, want[i].first);
        EXPECT_EQ(m.features()[i].extractor, want[i].second);
        EXPECT_TRUE(m.features()[i].options.empty());
    }
}

TEST(ModelFiles, OptionsAreTheTextOfLibvmafsDictionary) {
    const Model neg = Model::load_file(model_path("vmaf_v0.6.1neg"));
    EXPECT_EQ(neg.features()[0].options, (Options{{"adm_enhn_gain_limit", "1"}}));
    EXPECT_TRUE(neg.features()[1].options.empty());
    EXPECT_EQ(neg.features()[2].options, (Options{{"vif_enhn_gain_limit", "1"}}));

    const Model m = Model::load_file(model_path("vmaf_v1.0.16_hfr_3d0h_2160"));
    ASSERT_EQ(m.features().size(), 4u);
    EXPECT_EQ(m.features()[0].extractor, "cambi");
    EXPECT_EQ(m.features()[0].options,
              (Options{{"cambi_high_res_speedup", "1080"}, {"cambi_vis_lum_threshold", "0.06"}, {"cambi_max_val", "17"}}));
    EXPECT_EQ(m.features()[1].extractor, "speed_chroma");
    EXPECT_EQ(m.features()[1].provided, "Speed_chroma_feature_speed_chroma_uv_score");
    EXPECT_EQ(m.features()[1].options, (Options{{"speed_nn_floor", "0.1"},
                                                {"speed_sigma_nn", "0.19"},
                                                {"speed_weight_var_mode", "5"},
                                                {"speed_prescale", "0.5"},
                                                {"speed_prescale_method", "bilinear"},
                                                {"speed_max_val", "45"}}));
    EXPECT_EQ(m.features()[2].extractor, "adm");
    EXPECT_EQ(m.features()[2].options, (Options{{"adm_dlm_weight", "0.7"},
                                                {"adm_enhn_gain_limit", "1"},
                                                {"adm_noise_weight", "0.02"},
                                                {"adm_norm_view_dist", "3"},
                                                {"adm_ref_display_height", "2160"},
                                                {"adm_min_val", "0.5"},
                                                {"adm_csf_mode", "2"}}));
    EXPECT_EQ(m.features()[3].extractor, "motion");
    EXPECT_EQ(m.features()[3].options, (Options{{"motion_max_val", "18"},
                                                {"motion_five_frame_window", "true"},
                                                {"motion_moving_average", "true"}}));
}

TEST(ModelFiles, NumbersAreNormalisedAsLibvmafsDictionaryDoes) {
    // strtof then %g: six significant digits of the float
    ojson j = speedqa::testing::parse_ordered_json(read_text(model_path("vmaf_v0.6.1neg")));
    j["model_dict"]["feature_opts_dicts"][0] = speedqa::testing::parse_ordered_json(R"({"adm_min_val": 0.123456789, "a": 1e2, "b": -0.0,
        "c": 123456789, "d": "0.123456789", "e": false})");
    const Model m = Model::from_json(speedqa::testing::dump_json(j), "edited");
    EXPECT_EQ(m.features()[0].options, (Options{{"adm_min_val", "0.123457"},
                                                {"a", "100"},
                                                {"b", "-0"},
                                                {"c", "1.23457e+08"},
                                                {"d", "0.123456789"},  // a JSON string is kept as written
                                                {"e", "false"}}));
}

// ---- malformed and unsupported files -------------------------------------------------------------------------------

// The v0.6.1 file with model_dict edited by `edit`.
std::string edited(const std::function<void(ojson&)>& edit, const std::string& version = "vmaf_v0.6.1") {
    ojson j = speedqa::testing::parse_ordered_json(read_text(model_path(version)));
    edit(j["model_dict"]);
    return speedqa::testing::dump_json(j, 1);
}

void expect_refused(const std::string& text, const std::string& part, const LoadOptions& o = {}) {
    expect_error([&] { Model::from_json(text, "edited.json", o); }, "model file edited.json: ", part);
}

// The libsvm text of v0.6.1 with `from` replaced by `to` (once).
std::string svm_edited(const std::string& from, const std::string& to) {
    return edited([&](ojson& d) {
        std::string s = d["model"];
        const size_t at = s.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        if (at != std::string::npos) s.replace(at, from.size(), to);
        d["model"] = s;
    });
}

TEST(ModelFiles, TruncatedFilesFailCleanly) {
    const std::string text = read_text(model_path("vmaf_v1.0.16_3d0h"));
    for (size_t n = 0; n < text.size() - 2; n += 7) {
        SCOPED_TRACE(n);
        const std::string msg = testing::error_of([&] { Model::from_json(text.substr(0, n), "cut.json"); });
        EXPECT_EQ(msg.rfind("model file cut.json: ", 0), 0u) << msg;
    }
    expect_refused(text.substr(0, text.size() / 2), "not valid JSON: line ");
    expect_refused("", "not valid JSON: line 1, column 1: unexpected end of text");
}

TEST(ModelFiles, RandomlyDamagedFilesLoadOrFailCleanly) {
    const std::string text = read_text(model_path("vmaf_v1.0.16_3d0h"));
    const std::string alphabet = "0123456789.-+eE:,[]{}\" \\n\t\r\\ax_";
    std::mt19937 rng(2024);
    int loaded = 0, refused = 0;
    for (int trial = 0; trial < 3000; trial++) {
        std::string t = text;
        const int edits = 1 + static_cast<int>(rng() % 3);
        for (int e = 0; e < edits; e++) {
            const size_t at = rng() % t.size();
            const char c = alphabet[rng() % alphabet.size()];
            switch (rng() % 3) {
            case 0: t[at] = c; break;
            case 1: t.insert(t.begin() + static_cast<long>(at), c); break;
            default: t.erase(at, 1 + rng() % 4); break;
            }
        }
        const std::string msg = testing::error_of([&] {
            const Model m = Model::from_json(t, "damaged.json");
            std::vector<double> x(m.features().size(), 0.5);
            (void)m.predict(x.data());
        });
        if (msg.empty()) loaded++;
        else {
            refused++;
            ASSERT_EQ(msg.rfind("model file damaged.json: ", 0), 0u) << msg;
            ASSERT_EQ(msg.find('\n'), std::string::npos) << msg;
        }
    }
    EXPECT_GT(refused, 1000);
    std::printf("[model] damaged files: %d loaded, %d refused with one line\n", loaded, refused);
}

TEST(ModelFiles, RefusesWrongTypes) {
    expect_refused("[1, 2]", "expected a JSON object with a model_dict, found an array");
    expect_refused(edited([](ojson& d) { d["model_type"] = 1; }), "model_type must be a string, found a number");
    expect_refused(edited([](ojson& d) { d["feature_names"] = "x"; }), "feature_names must be an array");
    expect_refused(edited([](ojson& d) { d["feature_names"][2] = 5; }), "each of feature_names must be a string");
    expect_refused(edited([](ojson& d) { d["slopes"][3] = "1"; }), "slopes[3] must be a number, found a string");
    expect_refused(edited([](ojson& d) { d["intercepts"] = ojson::object(); }), "intercepts must be an array");
    expect_refused(edited([](ojson& d) { d["score_clip"] = ojson::object(); }), "score_clip must be an array");
    expect_refused(edited([](ojson& d) { d["score_clip"] = {0}; }), "score_clip must be [min, max]");
    expect_refused(edited([](ojson& d) { d["score_clip"] = {0, true}; }), "score_clip[1] must be a number");
    expect_refused(edited([](ojson& d) { d["score_transform"] = {1}; }), "score_transform must be an object");
    expect_refused(edited([](ojson& d) { d["score_transform"]["p0"] = "1"; }), "score_transform.p0 must be a number");
    expect_refused(edited([](ojson& d) { d["score_transform"]["enabled"] = "true"; }),
                   "score_transform.enabled must be a boolean");
    expect_refused(edited([](ojson& d) { d["score_transform"]["out_gte_in"] = true; }),
                   "score_transform.out_gte_in must be a string");
    expect_refused(edited([](ojson& d) { d["score_transform"]["out_lte_in"] = "yes"; }),
                   "score_transform.out_lte_in must be \"true\" or \"false\"");
    expect_refused(edited([](ojson& d) { d["score_transform"]["knots"] = {{1}}; }), "knots has 1 knots");
    expect_refused(edited([](ojson& d) { d["score_transform"]["knots"] = {{0, 0}, {1}}; }),
                   "score_transform.knots[1] must be [x, y]");
    expect_refused(edited([](ojson& d) { d["score_transform"]["knots"] = {{0, 0}, {"1", 1}}; }),
                   "score_transform.knots[1] must be a number");
    expect_refused(edited([](ojson& d) { d["model"] = 5; }), "model must be a string, found a number");
    expect_refused(edited([](ojson& d) { d["norm_type"] = ojson(); }), "norm_type must be a string, found null");
    expect_refused(edited([](ojson& d) { d["feature_opts_dicts"] = {1}; }),
                   "feature_opts_dicts[0] must be an object");
    expect_refused(edited([](ojson& d) { d["feature_opts_dicts"] = {{{"adm_min_val", ojson()}}}; }),
                   "feature_opts_dicts[0].adm_min_val must be a number, a boolean or a string, found null");
    expect_refused(edited([](ojson& d) { d["feature_opts_dicts"] = {{{"adm_min_val", {1}}}}; }),
                   "found an array");
    expect_refused(edited([](ojson& d) { d["chroma_correction_parameter"] = "120"; }),
                   "chroma_correction_parameter must be a number");
    expect_refused(edited([](ojson& d) { d = 3; }), "model_dict must be an object, found a number");
}

TEST(ModelFiles, RefusesMissingKeys) {
    expect_refused("{}", "no model_dict: not a VMAF model");
    expect_refused(R"({"param_dict": {}})", "no model_dict");
    for (const char* key : {"model_type", "feature_names", "norm_type", "model", "slopes", "intercepts"})
        expect_refused(edited([&](ojson& d) { d.erase(key); }), std::string("model_dict has no ") + key);
}

TEST(ModelFiles, RefusesUnknownAndBootstrapModelTypes) {
    expect_refused(edited([](ojson& d) { d["model_type"] = "RANDOMFOREST"; }),
                   "unknown model_type \"RANDOMFOREST\" (VMAF models are LIBSVMNUSVR)");
    for (const char* t : {"BOOTSTRAP_LIBSVMNUSVR", "RESIDUEBOOTSTRAP_LIBSVMNUSVR"})
        expect_refused(edited([&](ojson& d) { d["model_type"] = t; }), "is a bootstrap model");
    expect_refused(edited([](ojson& d) { d["norm_type"] = "clip_0to1"; }), "unknown norm_type \"clip_0to1\"");
}

TEST(ModelFiles, RefusesModelCollectionsInOneLine) {
    const ojson one = speedqa::testing::parse_ordered_json(read_text(model_path("vmaf_v0.6.1")));
    ojson collection;
    collection["0"] = one;
    collection["1"] = one;
    expect_refused(speedqa::testing::dump_json(collection), "a model collection (bootstrap models \"0\", \"1\", ...); speedqa scores single "
                                      "models only");
}

TEST(ModelFiles, RefusesNaNAndNumbersOutOfRange) {
    std::string text = read_text(model_path("vmaf_v0.6.1"));
    std::string nan = text;
    nan.replace(nan.find("0.012020766332648465"), 20, "NaN");
    expect_refused(nan, "not valid JSON: line ");
    expect_refused(nan, "(NaN and Infinity are not JSON)");
    std::string huge = text;
    huge.replace(huge.find("0.012020766332648465"), 20, "1e999");
    expect_refused(huge, "slopes[0] = 1e999 is out of the range of a double (line ");
    std::string huge_opt = read_text(model_path("vmaf_v1.0.16_3d0h"));
    huge_opt.replace(huge_opt.find("120.0"), 5, "-1e400");
    expect_refused(huge_opt, "chroma_correction_parameter = -1e400 is out of the range of a double");
    EXPECT_NO_THROW(Model::from_json(edited([](ojson& d) { d["score_transform"]["p1"] = 1e308; }), "big"));
}

TEST(ModelFiles, RefusesBadLibsvmText) {
    expect_refused(svm_edited("nu_svr", "c_svc"), "model_dict.model: libsvm header: svm_type \"c_svc\"");
    expect_refused(svm_edited("kernel_type rbf", "kernel_type linear"), "kernel_type \"linear\"");
    expect_refused(svm_edited("gamma 0.04\n", ""), "libsvm header: no gamma");
    expect_refused(svm_edited("rho -1.33133\n", ""), "libsvm header: no rho");
    expect_refused(svm_edited("gamma 0.04", "gamma 1e999"), "libsvm header: gamma: \"1e999\" is out of the range");
    expect_refused(svm_edited("gamma 0.04", "gamma nan"), "libsvm header: gamma: \"nan\" is not a number");
    expect_refused(svm_edited("gamma 0.04", "gamma 0.04 0.05"), "\"gamma\" needs 1 value, found 2");
    expect_refused(svm_edited("gamma 0.04", "gamma 0.04\ngamma 0.04"), "\"gamma\" appears twice");
    expect_refused(svm_edited("nr_class 2\ntotal_sv 211\nrho -1.33133", "rho -1.33133\nnr_class 2\ntotal_sv 211"),
                   "\"rho\" comes before nr_class");
    expect_refused(svm_edited("nr_class 2", "nr_class 3"), "nr_class: 3 is out of range [2, 2]");
    expect_refused(svm_edited("total_sv 211", "total_sv 212"), "211 support vectors, total_sv says 212");
    expect_refused(svm_edited("total_sv 211", "total_sv 210"), "more support vectors than total_sv (210)");
    expect_refused(svm_edited("total_sv 211", "total_sv 99999999999999999999"), "is not an integer");
    expect_refused(svm_edited("SV\n", "sv\n"), "unknown line \"sv\"");
    expect_refused(svm_edited("6:0.73495824", "7:0.73495824"), "support vector 1, index: 7 is out of range [1, 6]");
    expect_refused(svm_edited("5:0.69117362 6:0.73495824", "6:0.73495824 5:0.69117362"),
                   "support vector 1: index 5 after 6 (indices must ascend)");
    expect_refused(svm_edited("1:0.65734273", "1:abc"), "support vector 1, component 1: \"abc\" is not a number");
    expect_refused(svm_edited("1:0.65734273", "1:1e400"), "is out of the range of a double");
    expect_refused(svm_edited("1:0.65734273", "1=0.65734273"), "\"1=0.65734273\" is not index:value");
    expect_refused(svm_edited("\n-4 1:0.65734273", "\n\n-4 1:0.65734273"), "support vector 1: empty line");
    expect_refused(svm_edited("-4 1:0.65734273", "x 1:0.65734273"), "coefficient: \"x\" is not a number");
}

TEST(ModelFiles, RefusesFeaturesSpeedqaDoesNotCompute) {
    expect_refused(edited([](ojson& d) { d["feature_names"][0] = "VMAF_feature_adm2_score"; }),
                   "feature VMAF_feature_adm2_score is computed by libvmaf's floating-point extractor float_adm, which "
                   "speedqa does not compute");
    expect_refused(edited([](ojson& d) { d["feature_names"][2] = "VMAF_feature_vif_scale0_score"; }), "float_vif");
    expect_refused(edited([](ojson& d) { d["feature_names"][1] = "VMAF_feature_motion2_score"; }), "float_motion");
    expect_refused(edited([](ojson& d) { d["feature_names"][1] = "float_psnr"; }),
                   "feature float_psnr is not one speedqa computes");
}

TEST(ModelFiles, RefusesInconsistentShapes) {
    expect_refused(edited([](ojson& d) { d["feature_names"] = ojson::array(); }), "feature_names is empty");
    expect_refused(edited([](ojson& d) {
                       for (int i = 0; i < 59; i++) d["feature_names"].push_back("VMAF_integer_feature_adm2_score");
                   }),
                   "feature_names lists 65 features; libvmaf reads at most 64");
    expect_refused(edited([](ojson& d) { d["slopes"].erase(6); }),
                   "slopes has 6 values; with 6 features it needs 7 (the score's, then one per feature)");
    expect_refused(edited([](ojson& d) { d["intercepts"].push_back(1); }), "intercepts has 8 values");
    expect_refused(edited([](ojson& d) { d["feature_opts_dicts"] = ojson::array({{}, {}, {}, {}, {}, {}, {}}); }),
                   "feature_opts_dicts has 7 entries for 6 features");
    expect_refused(edited([](ojson& d) { d["score_transform"]["knots"] = {{0, 0}, {1, 2}, {1, 3}}; }),
                   "x strictly ascending and y not descending (knots 1 and 2)");
    expect_refused(edited([](ojson& d) { d["score_transform"]["knots"] = {{0, 5}, {1, 2}}; }), "(knots 0 and 1)");
    expect_refused(edited([](ojson& d) {
                       d["score_transform"]["knots"] = ojson::array();
                       for (int i = 0; i < 11; i++) d["score_transform"]["knots"].push_back({i, i});
                   }),
                   "knots has 11 knots (expected 2 to 10)");
}

TEST(ModelFiles, RefusesDuplicateKeys) {
    std::string text = read_text(model_path("vmaf_v0.6.1"));
    text.replace(text.find("\"model_type\""), 12, "\"norm_type\"");
    expect_refused(text, "model_dict has the key \"norm_type\" twice (line ");
    std::string opts = read_text(model_path("vmaf_v0.6.1neg"));
    opts.replace(opts.find("{\n                \"adm_enhn_gain_limit\": 1.0"), 1,
                 "{\"adm_enhn_gain_limit\": 1.0, ");
    expect_refused(opts, "feature_opts_dicts[0] has the key \"adm_enhn_gain_limit\" twice");
}

TEST(ModelFiles, RefusesChromaCorrectionsLibvmafCannotApply) {
    expect_refused(edited([](ojson& d) { d["chroma_correction_parameter"] = 0; }, "vmaf_v1.0.16_3d0h"),
                   "chroma_correction_parameter is 0 (libvmaf then computes no score)");
    expect_refused(edited([](ojson& d) { d["chroma_correction_parameter"] = 120; }),
                   "chroma_correction_parameter needs exactly one feature whose name contains \"adm3\", found 0");
    expect_refused(edited(
                       [](ojson& d) {
                           d["feature_names"][0] = "Speed_chroma_feature_speed_chroma_u_score";
                       },
                       "vmaf_v1.0.16_3d0h"),
                   "whose name contains \"speed_chroma\", found 2");
}

TEST(ModelFiles, IgnoresKeysLibvmafIgnores) {
    const Model m = Model::from_json(edited([](ojson& d) {
                                         d["unknown"] = {1, 2};
                                         d["score_transform"]["comment"] = "x";
                                     }),
                                     "edited.json");
    EXPECT_EQ(m.features().size(), 6u);
}

TEST(ModelFiles, FileErrorsNameTheFile) {
    expect_error([] { Model::load_file("/nonexistent/m.json"); }, "cannot read model file /nonexistent/m.json",
                 "no such file");
    expect_error([] { Model::load_file(repo_models_dir()); }, "cannot read model file", "it is a directory");
    expect_error([] { Model::load_file(repo_models_dir() + "/vmaf_v0.6.1.pkl"); }, "model file ",
                 ".pkl models are not supported");
    expect_error([] { Model::load_file(repo_models_dir() + "/LICENSE"); }, "model file " + repo_models_dir() + "/LICENSE: ",
                 "not valid JSON");
}

// ---- load options ---------------------------------------------------------------------------------------------------

TEST(ModelFiles, LoadOptionsNameAndOverloads) {
    LoadOptions o;
    o.name = "vmaf_neg";
    o.overloads = {{"adm", "adm_enhn_gain_limit", "1.5"}, {"adm", "adm_min_val", "0.1"},
                   {"vif", "vif_enhn_gain_limit", "2"}};
    const Model m = Model::load_file(model_path("vmaf_v0.6.1neg"), o);
    EXPECT_EQ(m.name(), "vmaf_neg");
    // replaced in place, then appended; every feature of the extractor
    EXPECT_EQ(m.features()[0].options, (Options{{"adm_enhn_gain_limit", "1.5"}, {"adm_min_val", "0.1"}}));
    EXPECT_TRUE(m.features()[1].options.empty());
    for (size_t i = 2; i < 6; i++) EXPECT_EQ(m.features()[i].options, (Options{{"vif_enhn_gain_limit", "2"}}));

    o.overloads = {{"cambi", "cambi_max_val", "5"}};
    expect_error([&] { Model::load_file(model_path("vmaf_v0.6.1"), o); }, "model file ",
                 "the overload cambi.cambi_max_val names no extractor of this model (it uses adm, motion, vif)");
    o.overloads.clear();
    o.name = "";
    expect_error([&] { Model::load_file(model_path("vmaf_v0.6.1"), o); }, "model ", "the model's name is empty");
}

// ---- versions -------------------------------------------------------------------------------------------------------

TEST(ModelVersions, FoundInTheFirstFolderThatHasThem) {
    const Model m = Model::load_version("vmaf_v0.6.1", {"/nonexistent", repo_models_dir()});
    EXPECT_EQ(m.origin(), repo_models_dir() + "/vmaf_v0.6.1.json");

    // a folder earlier in the list wins
    const fs::path dir = fs::temp_directory_path() / ("speedqa_model_versions_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    fs::copy_file(model_path("vmaf_v0.6.1neg"), dir / "vmaf_v0.6.1.json", fs::copy_options::overwrite_existing);
    const Model first = Model::load_version("vmaf_v0.6.1", {dir.string(), repo_models_dir()});
    EXPECT_EQ(first.features()[0].options, (Options{{"adm_enhn_gain_limit", "1"}}));
    fs::remove_all(dir);
}

TEST(ModelVersions, MissingVersionsSayWhereTheyWereLookedFor) {
    expect_error([] { Model::load_version("vmaf_4k_v0.6.1neg", {repo_models_dir()}); },
                 "model version vmaf_4k_v0.6.1neg (one of libvmaf's built-in models): vmaf_4k_v0.6.1neg.json is not in " +
                     repo_models_dir() + "; versions there: vmaf_4k_v0.6.1, vmaf_v0.6.1, vmaf_v0.6.1neg,",
                 "vmaf_v1.0.16_hfr_5d0h");
    expect_error([] { Model::load_version("mine", {}); }, "model version mine: mine.json is ",
                 "no model folder was given");
    expect_error([] { Model::load_version("../models/vmaf_v0.6.1", {repo_models_dir()}); }, "model version ",
                 "is not a version name (use path= for a file)");
    expect_error([] { Model::load_version("vmaf_v0.6.1.json", {repo_models_dir()}); }, "model version ",
                 "give the name without .json");
    expect_error([] { Model::load_version("", {repo_models_dir()}); }, "model version ", "is not a version name");
}

TEST(ModelVersions, SearchDirsFromOptionEnvironmentAndInstallation) {
    ::unsetenv("SPEEDQA_MODEL_DIR");
    EXPECT_EQ(model_search_dirs("", ""), std::vector<std::string>{});
    EXPECT_EQ(model_search_dirs("opt", "inst"), (std::vector<std::string>{"opt", "inst"}));
    ::setenv("SPEEDQA_MODEL_DIR", "a::b:", 1);
    EXPECT_EQ(model_search_dirs("opt", "inst"), (std::vector<std::string>{"opt", "a", "b", "inst"}));
    ::unsetenv("SPEEDQA_MODEL_DIR");
    EXPECT_TRUE(is_libvmaf_builtin_version("vmaf_b_v0.6.3"));
    EXPECT_FALSE(is_libvmaf_builtin_version("vmaf_v0.6.2"));
}

}  // namespace
}  // namespace speedqa::model

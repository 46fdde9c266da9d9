// --model arguments as vmaf's cli_parse.c reads them.
#include <gtest/gtest.h>

#include "model/model_arg.hpp"
#include "model/tests/model_test_util.hpp"

namespace speedqa::model {
namespace {

using testing::expect_error;

void expect_bad(const std::string& text, const std::string& part) {
    expect_error([&] { parse_model_arg(text); }, "model \"" + text + "\": ", part);
}

TEST(ModelArg, PathAndDefaults) {
    const ModelArg a = parse_model_arg("path=model/vmaf_v0.6.1.json");
    EXPECT_EQ(a.path, "model/vmaf_v0.6.1.json");
    EXPECT_EQ(a.version, "");
    EXPECT_EQ(a.options.name, "vmaf");
    EXPECT_FALSE(a.options.disable_clip);
    EXPECT_FALSE(a.options.enable_transform);
    EXPECT_TRUE(a.options.overloads.empty());
}

TEST(ModelArg, EveryKeyVmafKnows) {
    const ModelArg a = parse_model_arg(
        "version=vmaf_v0.6.1neg:name=neg:disable_clip:enable_transform=true:vif.vif_enhn_gain_limit=1.0:"
        "adm.adm_enhn_gain_limit=1.50:speed_chroma.speed_prescale_method=bilinear");
    EXPECT_EQ(a.version, "vmaf_v0.6.1neg");
    EXPECT_EQ(a.options.name, "neg");
    EXPECT_TRUE(a.options.disable_clip);
    EXPECT_TRUE(a.options.enable_transform);
    ASSERT_EQ(a.options.overloads.size(), 3u);
    EXPECT_EQ(a.options.overloads[0].extractor, "vif");
    EXPECT_EQ(a.options.overloads[0].option, "vif_enhn_gain_limit");
    EXPECT_EQ(a.options.overloads[0].value, "1");  // vmaf_feature_dictionary_set normalises numbers
    EXPECT_EQ(a.options.overloads[1].value, "1.5");
    EXPECT_EQ(a.options.overloads[2].value, "bilinear");
}

TEST(ModelArg, FlagsTakeTrueOrFalse) {
    EXPECT_TRUE(parse_model_arg("path=a:disable_clip=true").options.disable_clip);
    EXPECT_FALSE(parse_model_arg("path=a:disable_clip=false").options.disable_clip);
    EXPECT_FALSE(parse_model_arg("path=a:enable_transform=false").options.enable_transform);
    // vmaf silently ignores any other value
    expect_bad("path=a:disable_clip=1", "disable_clip=1: expected true or false");
    expect_bad("path=a:enable_transform=", "enable_transform=: expected true or false");
}

TEST(ModelArg, LaterItemsWin) {
    const ModelArg a = parse_model_arg("path=a:name=x:path=b:name=y");
    EXPECT_EQ(a.path, "b");
    EXPECT_EQ(a.options.name, "y");
}

TEST(ModelArg, RefusesWhatVmafRefusesOrMisreads) {
    expect_bad("", "bad option string \"\" (expected key=value)");
    expect_bad("path=a:", "bad option string \"\"");
    expect_bad("path=a::name=b", "bad option string \"\"");
    expect_bad("path", "bad option string \"path\"");
    expect_bad("path=", "path= needs a value");
    expect_bad("name=:path=a", "name= needs a value");
    expect_bad("path=a=b", "\"path=a=b\" has more than one '='");
    expect_bad("path=a:version=b", "give path= or version=, not both");
    expect_bad("name=x", "no path= or version=");
    expect_bad("path=a:foo=1", "unknown key \"foo\"");
    expect_bad("path=a:disable_transform", "bad option string \"disable_transform\"");
    expect_bad("path=a:vif.=1", "unknown key \"vif.\"");
    expect_bad("path=a:.x=1", "unknown key \".x\"");
    expect_bad("path=a:vif.a.b=1", "unknown key \"vif.a.b\"");
}

TEST(ModelArg, LoadsWhatItNames) {
    const std::string dir = testing::repo_models_dir();
    const Model v = load_model(parse_model_arg("version=vmaf_v0.6.1neg:name=neg"), {dir});
    EXPECT_EQ(v.name(), "neg");
    EXPECT_EQ(v.origin(), dir + "/vmaf_v0.6.1neg.json");
    const Model p = load_model(parse_model_arg("path=" + dir + "/vmaf_4k_v0.6.1.json"), {});
    EXPECT_EQ(p.name(), "vmaf");
    expect_error([&] { load_model(parse_model_arg("version=" + std::string(kDefaultVersion)), {}); },
                 "model version vmaf_v0.6.1 (one of libvmaf's built-in models)", "no model folder was given");
    EXPECT_NO_THROW(load_model(parse_model_arg("version=" + std::string(kDefaultVersion)), {dir}));
}

}  // namespace
}  // namespace speedqa::model

// Option tables as libvmaf's: parsing and normalisation of values, ranges,
// what is refused (unknown keys, aliases, NaN), and the metric-name suffixes.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "core/option_table.hpp"

namespace speedqa {
namespace {

const char* const kColours[] = {"red", "green", nullptr};
constexpr OptionDef kTable[] = {
    {.name = "zz_real", .type = OptionType::real, .def = 1.0, .min = 0.1, .max = 4.0, .alias = "zr"},
    {.name = "aa_int", .type = OptionType::integer, .def = 0, .min = 0, .max = 6, .alias = "ai"},
    {.name = "mm_flag", .type = OptionType::boolean, .def = 0, .alias = "mf"},
    {.name = "cc_text", .type = OptionType::text, .def_text = "red", .alias = "ct", .choices = kColours},
    {.name = "debug", .type = OptionType::boolean, .def = 0, .feature_param = false},
    {.name = "no_alias", .type = OptionType::real, .def = 2.0, .min = 0, .max = 10},
};

OptionValues fresh() { return OptionValues("toy", kTable); }

TEST(OptionTable, DefaultsAndNoSuffix) {
    const OptionValues v = fresh();
    EXPECT_EQ(v.real("zz_real"), 1.0);
    EXPECT_EQ(v.integer("aa_int"), 0);
    EXPECT_FALSE(v.flag("mm_flag"));
    EXPECT_EQ(v.text("cc_text"), "red");
    EXPECT_EQ(v.suffix(), "");
    EXPECT_EQ(v.canonical(), "toy");
}

TEST(OptionTable, SuffixIsAlphabeticalByNameWithAliasesAndPercentG) {
    OptionValues v = fresh();
    v.set("zz_real", "0.123456789");  // libvmaf's dictionary keeps %g of the float: 0.123457
    v.set("aa_int", "5");
    v.set("mm_flag", "true");
    v.set("cc_text", "green");
    v.set("debug", "true");  // not a feature parameter: never in names
    v.set("no_alias", "7.5");
    EXPECT_EQ(v.suffix(), "_ai_5_ct_green_mf_no_alias_7.5_zr_0.123457");
    EXPECT_EQ(v.real("zz_real"), 0.123457);
    EXPECT_EQ(v.canonical(), "toy=aa_int=5:cc_text=green:debug=true:mm_flag=true:no_alias=7.5:zz_real=0.123457");
    // a value equal to the default is left out of the name, as libvmaf does
    OptionValues w = fresh();
    w.set("zz_real", "1.0");
    EXPECT_EQ(w.suffix(), "");
}

TEST(OptionTable, RefusesWhatLibvmafWouldIgnoreOrMisread) {
    auto refused = [](const char* key, const char* val, const char* phrase) {
        OptionValues v = fresh();
        try {
            v.set(key, val);
            ADD_FAILURE() << key << "=" << val << " was accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
            EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line";
        }
    };
    refused("zr", "0.5", "zz_real");            // an alias: libvmaf ignores it silently
    refused("nope", "1", "unknown option");
    refused("zz_real", "nan", "zz_real");
    refused("zz_real", "-nan", "zz_real");
    refused("zz_real", "inf", "zz_real");
    refused("zz_real", "5", "[0.1, 4]");
    refused("zz_real", "abc", "zz_real");
    refused("aa_int", "7", "aa_int");
    refused("aa_int", "1.5", "aa_int");
    refused("aa_int", "x", "aa_int");
    refused("mm_flag", "yes", "true or false");
    refused("cc_text", "blue", "red, green");
}

TEST(OptionTable, FeatureRequests) {
    const FeatureRequest r = parse_feature_request("adm=adm_csf_mode=1:debug=true");
    EXPECT_EQ(r.name, "adm");
    ASSERT_EQ(r.options.size(), 2u);
    EXPECT_EQ(r.options[1].first, "debug");
    EXPECT_EQ(parse_feature_request("vif").options.size(), 0u);
    for (const char* bad : {"adm=", "adm=x", "adm==1", "adm=a=1:", "adm=a=1=2", "=x"})
        EXPECT_THROW(parse_feature_request(bad), Error) << bad;
}

TEST(OptionTable, LibvmafAliasesOfProvidedFeatures) {
    EXPECT_EQ(vmaf_feature_alias("VMAF_integer_feature_adm2_score"), "integer_adm2");
    EXPECT_EQ(vmaf_feature_alias("Cambi_feature_cambi_score"), "cambi");
    EXPECT_EQ(vmaf_feature_alias("VMAF_integer_feature_motion_sad_score"), "VMAF_integer_feature_motion_sad_score");
}

}  // namespace
}  // namespace speedqa

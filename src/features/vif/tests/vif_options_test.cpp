// vif's options and output names as libvmaf defines them, and the sizes it
// refuses.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "features/vif/vif.hpp"
#include "support/run_feature.hpp"

namespace speedqa {
namespace {

VideoFormat fmt(int w, int h, int bd = 8) {
    VideoFormat f;
    f.width = w;
    f.height = h;
    f.bitdepth = bd;
    return f;
}

std::vector<std::string> names(const Feature& f) {
    std::vector<std::string> n;
    for (const FeatureOutput& o : f.outputs()) n.push_back(o.name);
    return n;
}

std::unique_ptr<Feature> make(const std::string& arg, VideoFormat f = fmt(64, 48)) {
    return testing::feature_from_arg({&vif_feature()}, arg, f);
}

TEST(VifOptions, NamesCarryTheSuffixesOfNonDefaultFeatureParams) {
    EXPECT_EQ(names(*make("vif")),
              (std::vector<std::string>{"integer_vif_scale0", "integer_vif_scale1", "integer_vif_scale2",
                                        "integer_vif_scale3"}));
    EXPECT_EQ(names(*make("vif=vif_enhn_gain_limit=1.0"))[0], "integer_vif_scale0_egl_1");
    EXPECT_EQ(names(*make("vif=vif_enhn_gain_limit=1.5:vif_skip_scale0=true"))[3], "integer_vif_scale3_egl_1.5_ssclz");
    EXPECT_EQ(names(*make("vif=vif_enhn_gain_limit=100"))[1], "integer_vif_scale1");  // the default
    // debug is no feature parameter: no suffix, eleven more outputs
    const auto d = names(*make("vif=debug=true:vif_skip_scale0=true"));
    ASSERT_EQ(d.size(), 15u);
    EXPECT_EQ(d[4], "integer_vif_ssclz");
    EXPECT_EQ(d[14], "integer_vif_den_scale3_ssclz");
    const auto debug = make("vif=debug=true");  // owned here: a temporary would die before the loop
    for (const FeatureOutput& o : debug->outputs()) EXPECT_FALSE(o.deferred);
}

TEST(VifOptions, RangesTypesNanAndAliasesRefused) {
    EXPECT_THROW(make("vif=vif_enhn_gain_limit=0.99"), Error);
    EXPECT_THROW(make("vif=vif_enhn_gain_limit=100.5"), Error);
    EXPECT_THROW(make("vif=vif_enhn_gain_limit=nan"), Error);
    EXPECT_THROW(make("vif=vif_enhn_gain_limit=abc"), Error);
    EXPECT_THROW(make("vif=vif_skip_scale0=1"), Error);
    EXPECT_THROW(make("vif=egl=1.0"), Error);  // libvmaf's alias is a name suffix, not an option
    EXPECT_THROW(make("vif=vif_foo=1"), Error);
    EXPECT_NO_THROW(make("vif=vif_enhn_gain_limit=1"));
}

TEST(VifOptions, FramesBelow16x16Refused) {
    for (auto [w, h] : {std::pair{15, 16}, {16, 15}, {8, 8}, {1, 100}}) {
        try {
            make("vif", fmt(w, h));
            ADD_FAILURE() << w << "x" << h << " accepted";
        } catch (const Error& e) {
            const std::string m = e.what();
            EXPECT_EQ(m.rfind("vif: ", 0), 0u) << m;
            EXPECT_NE(m.find("16x16"), std::string::npos) << m;
            EXPECT_EQ(m.find('\n'), std::string::npos) << m;
        }
    }
    EXPECT_NO_THROW(make("vif", fmt(16, 16, 12)));
    EXPECT_NO_THROW(make("vif", fmt(17, 23, 16)));
}

}  // namespace
}  // namespace speedqa

// The options and output names of "adm" as libvmaf defines them, and the
// formats and options we refuse (where libvmaf fails or reads out of bounds).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "features/adm/adm.hpp"
#include "support/run_feature.hpp"

namespace speedqa::testing {
namespace {

VideoFormat format(int w = 640, int h = 360) {
    VideoFormat f;
    f.width = w;
    f.height = h;
    f.pix = PixelFormat::yuv420;
    f.bitdepth = 8;
    return f;
}

std::vector<std::string> names(const std::string& arg, VideoFormat f = format()) {
    const auto feature = feature_from_arg({&adm_feature()}, arg, f);
    std::vector<std::string> out;
    for (const auto& o : feature->outputs()) out.push_back(o.name);
    return out;
}

TEST(AdmOptions, OutputNamesAndOrder) {
    EXPECT_EQ(names("adm"), (std::vector<std::string>{"integer_adm2", "integer_aim", "integer_adm3", "integer_adm_scale0",
                                                       "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3"}));
    const auto debug = names("adm=debug=true");
    ASSERT_EQ(debug.size(), 18u);
    EXPECT_EQ(debug[7], "integer_adm");
    EXPECT_EQ(debug[8], "integer_adm_num");
    EXPECT_EQ(debug[17], "integer_adm_den_scale3");
    const auto feature = feature_from_arg({&adm_feature()}, "adm", format());
    const auto& provided = feature->outputs();
    EXPECT_EQ(provided[0].provided, "VMAF_integer_feature_adm2_score");
    EXPECT_EQ(provided[2].provided, "VMAF_integer_feature_adm3_score");
}

TEST(AdmOptions, SuffixesAsLibvmaf) {
    // Aliases, %g values, alphabetical order of the full names; adm_skip_aim
    // and debug are no feature parameters.
    EXPECT_EQ(names("adm=adm_csf_mode=2:adm_dlm_weight=0.7:adm_enhn_gain_limit=1.0:adm_noise_weight=0.02:"
                    "adm_min_val=0.5:adm_norm_view_dist=1.5:adm_ref_display_height=2160")[0],
              "integer_adm2_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02_nvd_1.5_rdh_2160");
    EXPECT_EQ(names("adm=adm_skip_aim=true:adm_skip_scale0=true")[1], "integer_aim_ssz");
    EXPECT_EQ(names("adm=adm_min_val=0.8:adm_csf_scale=1.2:adm_csf_diag_scale=0.9")[3],
              "integer_adm_scale0_scfd_0.9_scf_1.2_min_0.8");
    EXPECT_EQ(names("adm=adm_enhn_gain_limit=100")[0], "integer_adm2");   // the default: no suffix
}

TEST(AdmOptions, RangesAliasesAndNaNRefused) {
    for (const char* bad : {"adm=adm_csf_mode=4", "adm=adm_enhn_gain_limit=0.5", "adm=adm_enhn_gain_limit=101",
                            "adm=adm_norm_view_dist=0.5", "adm=adm_ref_display_height=0", "adm=adm_dlm_weight=1.5",
                            "adm=adm_min_val=-0.1", "adm=adm_noise_weight=nan", "adm=egl=2", "adm=adm_bogus=1",
                            "adm=adm_csf_mode=1.5"})
        EXPECT_THROW(names(bad), Error) << bad;
}

TEST(AdmOptions, UnsupportedRefusedWithOneLine) {
    // libvmaf's extract() fails (-EINVAL) below 3.0 * 1080.
    EXPECT_THROW(names("adm=adm_norm_view_dist=1.0"), Error);
    EXPECT_NO_THROW(names("adm=adm_norm_view_dist=1.5:adm_ref_display_height=2160"));
    // The blended CSF has factors for a few displays only.
    EXPECT_THROW(names("adm=adm_csf_mode=2:adm_ref_display_height=1440"), Error);
    EXPECT_NO_THROW(names("adm=adm_csf_mode=3:adm_norm_view_dist=5:adm_ref_display_height=720"));
    // Below 33x33 libvmaf's coarsest scale reads outside its bands.
    EXPECT_THROW(names("adm", format(32, 100)), Error);
    EXPECT_THROW(names("adm", format(100, 20)), Error);
    EXPECT_NO_THROW(names("adm", format(33, 33)));
    try {
        names("adm", format(16, 16));
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("adm"), std::string::npos);
        EXPECT_EQ(m.find('\n'), std::string::npos);
    }
}

}  // namespace
}  // namespace speedqa::testing

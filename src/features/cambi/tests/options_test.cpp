// CAMBI's options and output names as libvmaf's, and the requests it refuses.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "features/cambi/cambi.hpp"
#include "features/cambi/plan.hpp"
#include "support/run_feature.hpp"

namespace speedqa::testing {
namespace {

VideoFormat format(int w, int h, int bitdepth = 8, PixelFormat pix = PixelFormat::yuv420) {
    VideoFormat f;
    f.width = w;
    f.height = h;
    f.bitdepth = bitdepth;
    f.pix = pix;
    return f;
}

std::vector<std::string> names(const std::string& arg, const VideoFormat& f = format(1920, 1080)) {
    std::vector<std::string> out;
    const auto feature = feature_from_arg({&cambi_feature()}, arg, f);
    for (const auto& o : feature->outputs()) out.push_back(o.name);
    return out;
}

void expect_refused(const std::string& arg, const VideoFormat& f, const std::string& part) {
    try {
        feature_from_arg({&cambi_feature()}, arg, f);
        ADD_FAILURE() << arg << " on " << f.describe() << " was accepted";
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("cambi"), std::string::npos) << what;
        EXPECT_NE(what.find(part), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
}

TEST(CambiOptions, NamesAsLibvmafPrintsThem) {
    using V = std::vector<std::string>;
    EXPECT_EQ(names("cambi"), V{"cambi"});
    EXPECT_EQ(names("cambi=full_ref=true"), (V{"cambi", "cambi_source", "cambi_full_reference"}));
    EXPECT_EQ(names("cambi=full_ref=true:window_size=31"), (V{"cambi_ws_31", "cambi_source", "cambi_full_reference"}));
    EXPECT_EQ(names("cambi=window_size=31:topk=0.2"), V{"cambi_topk_0.2_ws_31"});
    EXPECT_EQ(names("cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17"),
              V{"cambi_hrs_1080_cmxv_17_vlt_0.06"});
    EXPECT_EQ(names("cambi=enc_width=480:enc_height=270"), V{"cambi_ench_270_encw_480"});
    EXPECT_EQ(names("cambi=eotf=pq:cambi_eotf=pq:cambi_topk=0.5"), V{"cambi_ceot_pq_ctpk_0.5_eotf_pq"});
    EXPECT_EQ(names("cambi=src_width=1920:src_height=1080:enc_bitdepth=8"), V{"cambi_encbd_8_srch_1080_srcw_1920"});
    EXPECT_EQ(names("cambi=tvi_threshold=0.05:max_log_contrast=3"), V{"cambi_mlc_3_tvit_0.05"});
    // Values equal to the default add nothing; other speed-up values are
    // named but not applied (as libvmaf).
    EXPECT_EQ(names("cambi=window_size=65:cambi_max_val=1000"), V{"cambi"});
    EXPECT_EQ(names("cambi=cambi_high_res_speedup=720"), V{"cambi_hrs_720"});
}

TEST(CambiOptions, RangesAliasesAndValues) {
    const VideoFormat f = format(1920, 1080);
    expect_refused("cambi=window_size=14", f, "window_size");
    expect_refused("cambi=window_size=128", f, "window_size");
    expect_refused("cambi=topk=0", f, "topk");
    expect_refused("cambi=topk=nan", f, "topk");
    expect_refused("cambi=tvi_threshold=1.5", f, "tvi_threshold");
    expect_refused("cambi=max_log_contrast=6", f, "max_log_contrast");
    expect_refused("cambi=enc_width=0", f, "enc_width");
    expect_refused("cambi=cambi_vis_lum_threshold=301", f, "cambi_vis_lum_threshold");
    expect_refused("cambi=eotf=hlg", f, "eotf");
    expect_refused("cambi=full_ref=yes", f, "full_ref");
    expect_refused("cambi=ws=31", f, "window_size");  // an alias is a name, not an option
    expect_refused("cambi=heatmaps_path=/tmp/h", f, "heatmaps_path");
}

TEST(CambiOptions, PicturesLibvmafRefuses) {
    // Both sides under 216: libvmaf's init fails (exit 234 on the 80x80 clip).
    expect_refused("cambi", format(80, 80, 8, PixelFormat::yuv444), "216");
    expect_refused("cambi", format(215, 215), "216");
    EXPECT_NO_THROW(names("cambi", format(216, 120)));
    // An encoding size larger than the video is the video's size.
    EXPECT_NO_THROW(names("cambi=enc_width=480:enc_height=270", format(320, 240)));
    expect_refused("cambi=src_width=1000:src_height=1200", format(1920, 1080), "larger in one direction");
    EXPECT_NO_THROW(names("cambi=src_width=320:src_height=200", format(1920, 1080)));
    expect_refused("cambi=src_width=2000:src_height=1000", format(1920, 1080), "larger in one direction");
    // The window must fit half into the smallest scale.
    expect_refused("cambi", format(1920, 100), "window");
    // Windows beyond libvmaf's reciprocal table.
    expect_refused("cambi", format(7680, 4320), "at most 65");
    EXPECT_NO_THROW(names("cambi=cambi_high_res_speedup=2160", format(7680, 4320)));
    expect_refused("cambi=window_size=127", format(3840, 2160), "at most 65");
    // libvmaf's memcpy with the wrong pitch.
    expect_refused("cambi=full_ref=true:src_width=2000:src_height=1200", format(1920, 1080, 10), "row pitch");
    EXPECT_NO_THROW(names("cambi=full_ref=true:src_width=2000:src_height=1200", format(1920, 1080, 8)));
}

TEST(CambiPlan, ThresholdsAndTables) {
    // The 10-bit visibility thresholds at the default 0.019 (BT.1886).
    EXPECT_EQ(cambi::tvi_for_diff(1, 0.019, false), 178);
    EXPECT_EQ(cambi::tvi_for_diff(4, 0.019, false), 559);
    EXPECT_EQ(cambi::visibility_luma(0.0, false), 0);
    EXPECT_EQ(cambi::visibility_luma(300.0, false), 940);  // the head's luminance is exactly 300
    // libvmaf's reciprocals were printed with 9 digits: some differ from 1/n.
    const std::vector<float> r = cambi::reciprocal_table();
    ASSERT_EQ(r.size(), static_cast<size_t>(cambi::kReciprocals));
    EXPECT_EQ(r[0], 0.0f);
    EXPECT_EQ(r[3], 1.0f / 3.0f);
    EXPECT_EQ(r[82], 0x1.8f9c1ap-7f);
    EXPECT_NE(r[82], 1.0f / 82.0f);
    EXPECT_EQ(r[4225], 0x1.f05e0ap-13f);
}

}  // namespace
}  // namespace speedqa::testing

// The plot module's parts against values worked out by hand: axes, score
// files in the three layouts, XML escaping, worst frames.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "plot/chart.hpp"
#include "plot/score_file.hpp"
#include "plot/svg_canvas.hpp"
#include "plot/ticks.hpp"

namespace speedqa::plot {
namespace {

void expect_ticks(const Axis& a, std::vector<double> want, int decimals) {
    ASSERT_EQ(a.ticks.size(), want.size());
    for (size_t i = 0; i < want.size(); i++) EXPECT_NEAR(a.ticks[i], want[i], 1e-12) << i;
    EXPECT_EQ(a.decimals, decimals);
    EXPECT_DOUBLE_EQ(a.lo, a.ticks.front());
    EXPECT_DOUBLE_EQ(a.hi, a.ticks.back());
}

TEST(PlotAxis, RoundTicksAroundTheData) {
    // range 5.79: a nice range of 10, over 4 intervals 2.5, nearest nice step 2
    expect_ticks(nice_axis(77.87, 83.66, 5), {76, 78, 80, 82, 84}, 0);
    // range 0.006: step 0.002
    expect_ticks(nice_axis(0.947, 0.953, 5), {0.946, 0.948, 0.950, 0.952, 0.954}, 3);
    // frames 0..7, up to 8 ticks: every frame
    expect_ticks(nice_axis(0, 7, 8, true), {0, 1, 2, 3, 4, 5, 6, 7}, 0);
    // frames 0..20000 in 10 ticks: step 2000
    EXPECT_EQ(nice_axis(0, 20000, 10, true).step, 2000);
    // a flat curve at 0 gets a range around it; no finite value at all: 0..1
    expect_ticks(nice_axis(0, 0, 5), {-0.6, -0.4, -0.2, 0, 0.2, 0.4, 0.6}, 1);
    expect_ticks(nice_axis(NAN, NAN, 5), {0, 0.2, 0.4, 0.6, 0.8, 1.0}, 1);
}

TEST(PlotAxis, NumbersPrintWithoutMinusZero) {
    EXPECT_EQ(format_fixed(-0.0001, 2), "0.00");
    EXPECT_EQ(format_fixed(-1.25, 1), "-1.2");  // %.1f: round half to even in binary
    EXPECT_EQ(format_value(81.488227, nice_axis(77, 84, 5)), "81.49");
    EXPECT_EQ(format_value(INFINITY, nice_axis(0, 1, 5)), "inf");
}

TEST(PlotScoreFile, JsonNullIsNaNAndPooledValuesComeFromTheFile) {
    const ScoreFile f = parse_score_text(R"({"frames": [
        {"frameNum": 0, "metrics": {"vmaf": 90.5, "psnr_y": null}},
        {"frameNum": 2, "metrics": {"vmaf": 80.25}}],
      "pooled_metrics": {"vmaf": {"min": 1, "max": 2, "mean": 3, "harmonic_mean": 4}, "psnr_y": {}}})",
                                         "a.json");
    EXPECT_EQ(f.frame_nums, (std::vector<long long>{0, 2}));
    ASSERT_EQ(f.metrics.size(), 2u);
    EXPECT_EQ(f.metrics[0].values, (std::vector<double>{90.5, 80.25}));
    EXPECT_EQ(f.metrics[0].pooled.mean, 3);  // as the file says, not recomputed
    EXPECT_TRUE(std::isnan(f.metrics[1].values[0]));
    EXPECT_TRUE(std::isnan(f.metrics[1].values[1]));  // absent from frame 2
}

TEST(PlotScoreFile, XmlAndCsvAsVmafWritesThem) {
    const ScoreFile x = parse_score_text(R"(<?xml version="1.0" encoding="UTF-8"?>
<VMAF version="3.0.0">
  <params qualityWidth="576" qualityHeight="324" />
  <fyi fps="10.00" />
  <frames>
    <frame frameNum="0" integer_motion2="0.000000" vmaf="77.868446" />
    <frame frameNum="1" integer_motion2="inf" vmaf="80.824032" />
  </frames>
  <pooled_metrics>
    <metric name="vmaf" min="77.868446" max="80.824032" mean="79.346239" harmonic_mean="79.3" />
  </pooled_metrics>
  <aggregate_metrics />
</VMAF>
)",
                                         "a.xml");
    EXPECT_EQ(x.frame_nums, (std::vector<long long>{0, 1}));
    EXPECT_EQ(x.find("vmaf")->values, (std::vector<double>{77.868446, 80.824032}));
    EXPECT_EQ(x.find("vmaf")->pooled.mean, 79.346239);
    EXPECT_TRUE(std::isinf(x.find("integer_motion2")->values[1]));

    // CSV has no pooled values: libvmaf's pooling of what it has
    const ScoreFile c = parse_score_text("Frame,vmaf,speed_chroma_uv,\n0,1.000000,3.000000,\n1,3.000000,nan,\n", "a.csv");
    const io::Pooled p = c.find("vmaf")->pooled;
    EXPECT_EQ(p.mean, 2.0);
    EXPECT_EQ(p.min, 1.0);
    EXPECT_EQ(p.max, 3.0);
    EXPECT_EQ(p.harmonic_mean, 2.0 / (1.0 / 2 + 1.0 / 4) - 1);
    EXPECT_TRUE(std::isnan(c.find("speed_chroma_uv")->values[1]));
}

void expect_error(const std::string& text, const std::string& message) {
    try {
        parse_score_text(text, "f");
        ADD_FAILURE() << "no error for " << text;
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), message);
    }
}

TEST(PlotScoreFile, BadFilesGetOneLineNamingTheProblem) {
    expect_error("", "f: not a score file (expected the JSON, XML or CSV that speedqa or vmaf writes)");
    expect_error("{\"frames\": [", "f: not valid JSON: line 1, column 13: unexpected end of text");
    expect_error("{\"x\": 1}", "f: the file has no \"frames\" array");
    expect_error("{\"frames\": []}", "f: no frames in this score file");
    expect_error("{\"frames\": [{\"frameNum\": 0.5, \"metrics\": {}}]}", "f: the frame at line 1: frameNum is not an integer");
    expect_error("{\"frames\": [{\"frameNum\": 0, \"metrics\": {\"a\": \"x\"}}]}",
                 "f: the frame at line 1: \"a\" is a string, not a number");
    expect_error("{\"frames\": [{\"frameNum\": 0, \"metrics\": {\"a\": 1, \"a\": 2}}]}", "f: frame 0 has \"a\" twice");
    expect_error("<html/>", "f: not a score file (the XML root is <html>, not <VMAF>)");
    expect_error("<VMAF><frames>\n<frame frameNum=\"0\" a=\"1x\"/></frames></VMAF>", "f: line 2: a: \"1x\" is not a number");
    expect_error("<VMAF><frames>", "f: not valid XML: line 1: no element found");
    expect_error("Frame,a,\n1,2,\n0,3,\n", "f: frame 0 follows frame 1 (frames must be in ascending order)");
    expect_error("Frame,a,b,\n0,2,\n", "f: line 2: 2 field(s) where the header has 3");
}

TEST(PlotSvg, TextIsEscapedAndAlwaysValidUtf8) {
    EXPECT_EQ(xml_escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
    EXPECT_EQ(xml_escape("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\xac"), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\xac");
    const std::string bad = "\xef\xbf\xbd";
    EXPECT_EQ(xml_escape("a\xff"), "a" + bad);                     // not UTF-8
    EXPECT_EQ(xml_escape("\x01"), bad);                            // a control character XML 1.0 forbids
    EXPECT_EQ(xml_escape("\xc0\xaf"), bad + bad);                  // an overlong '/'
    EXPECT_EQ(xml_escape("\xed\xa0\x80"), bad + bad + bad);        // a surrogate
    EXPECT_EQ(xml_escape("\xe2\x82"), bad + bad);                  // cut short
    EXPECT_EQ(xml_escape("tab\there\n"), "tab\there\n");
}

ScoreFile one_metric(const std::string& name, const std::string& metric, const std::vector<double>& v) {
    std::string text = "Frame," + metric + ",\n";
    for (size_t i = 0; i < v.size(); i++) text += std::to_string(i) + "," + std::to_string(v[i]) + ",\n";
    return parse_score_text(text, name);
}

TEST(PlotChart, WorstFramesFollowWhichWayAMetricGetsWorse) {
    EXPECT_EQ(worse_direction("vmaf"), Worse::lower);
    EXPECT_EQ(worse_direction("integer_adm2"), Worse::lower);
    EXPECT_EQ(worse_direction("cambi"), Worse::higher);
    EXPECT_EQ(worse_direction("speed_chroma_uv_mxv_45"), Worse::higher);
    EXPECT_EQ(worse_direction("integer_aim"), Worse::higher);
    EXPECT_EQ(worse_direction("integer_motion2"), Worse::neither);

    const std::vector<ScoreFile> files = {one_metric("dir/a.csv", "vmaf", {90, 70, 95, 70, 80}),
                                          one_metric("other/a.csv", "cambi", {1, 3, 2, 3, 0}),
                                          one_metric("flat.csv", "vmaf", {99, 99, 99, 99, 99})};
    ChartOptions o;
    o.worst = 3;
    const Chart chart(files, o);
    EXPECT_EQ(chart.labels(), (std::vector<std::string>{"dir/a.csv", "other/a.csv", "flat.csv"}));
    ASSERT_EQ(chart.panels().size(), 2u);
    const Panel& vmaf = chart.panels()[0];
    EXPECT_EQ(vmaf.metric, "vmaf");
    EXPECT_EQ(vmaf.series[0].worst, (std::vector<size_t>{1, 3, 4}));  // 70, 70 (earlier first), 80
    EXPECT_TRUE(vmaf.series[2].worst.empty());                         // flat: no frame is worse
    EXPECT_EQ(vmaf.series[1].scores, nullptr);
    EXPECT_EQ(chart.panels()[1].series[1].worst, (std::vector<size_t>{1, 3, 2}));  // higher is worse
}

TEST(PlotChart, RefusesUnknownMetricsAndMismatchedLabels) {
    const std::vector<ScoreFile> files = {one_metric("a.csv", "vmaf", {90, 70})};
    ChartOptions o;
    o.metrics = {"psnr"};
    EXPECT_THROW(Chart(files, o), Error);
    o.metrics = {};
    o.labels = {"a", "b"};
    EXPECT_THROW(Chart(files, o), Error);
    EXPECT_THROW(Chart({}, ChartOptions{}), Error);
}

}  // namespace
}  // namespace speedqa::plot

// The score layouts against hand-checked copies of libvmaf's output.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "core/error.hpp"
#include "io/pooling.hpp"
#include "io/score_writer.hpp"
#include "io_test_util.hpp"

namespace speedqa::io {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

ScoreTable small_table() {
    ScoreTable t;
    t.metric_names = {"speed_chroma_u", "speed_temporal"};
    t.frames = {{0.5, 0.0}, {0.00000001234, 1.25}, {2.0, 3.5}};
    t.width = 576;
    t.height = 324;
    t.fps = 23.976;
    t.version = "3.0.0";
    return t;
}

std::string text(OutputFormat f, const ScoreTable& t, Precision p = {}) { return format_scores(f, t, p); }

TEST(ScoreWriter, Xml) {
    EXPECT_EQ(text(OutputFormat::xml, small_table()),
              "<VMAF version=\"3.0.0\">\n"
              "  <params qualityWidth=\"576\" qualityHeight=\"324\" />\n"
              "  <fyi fps=\"23.98\" />\n"
              "  <frames>\n"
              "    <frame frameNum=\"0\" speed_chroma_u=\"0.500000\" speed_temporal=\"0.000000\" />\n"
              "    <frame frameNum=\"1\" speed_chroma_u=\"0.0000000123400000\" speed_temporal=\"1.250000\" />\n"
              "    <frame frameNum=\"2\" speed_chroma_u=\"2.000000\" speed_temporal=\"3.500000\" />\n"
              "  </frames>\n"
              "  <pooled_metrics>\n"
              "    <metric name=\"speed_chroma_u\" min=\"0.0000000123400000\" max=\"2.000000\" mean=\"0.833333\" "
              "harmonic_mean=\"0.500000\" />\n"
              "    <metric name=\"speed_temporal\" min=\"0.000000\" max=\"3.500000\" mean=\"1.583333\" "
              "harmonic_mean=\"0.800000\" />\n"
              "  </pooled_metrics>\n"
              "  <aggregate_metrics />\n"
              "</VMAF>\n");
}

TEST(ScoreWriter, Json) {
    EXPECT_EQ(text(OutputFormat::json, small_table()),
              "{\n"
              "  \"version\": \"3.0.0\",\n"
              "  \"fps\": 23.98,\n"
              "  \"frames\": [\n"
              "    {\n"
              "      \"frameNum\": 0,\n"
              "      \"metrics\": {\n"
              "        \"speed_chroma_u\": 0.500000,\n"
              "        \"speed_temporal\": 0.000000\n"
              "      }\n"
              "    },\n"
              "    {\n"
              "      \"frameNum\": 1,\n"
              "      \"metrics\": {\n"
              "        \"speed_chroma_u\": 0.0000000123400000,\n"
              "        \"speed_temporal\": 1.250000\n"
              "      }\n"
              "    },\n"
              "    {\n"
              "      \"frameNum\": 2,\n"
              "      \"metrics\": {\n"
              "        \"speed_chroma_u\": 2.000000,\n"
              "        \"speed_temporal\": 3.500000\n"
              "      }\n"
              "    }\n"
              "  ],\n"
              "  \"pooled_metrics\": {\n"
              "    \"speed_chroma_u\": {\n"
              "      \"min\": 0.0000000123400000,\n"
              "      \"max\": 2.000000,\n"
              "      \"mean\": 0.833333,\n"
              "      \"harmonic_mean\": 0.500000\n"
              "    },\n"
              "    \"speed_temporal\": {\n"
              "      \"min\": 0.000000,\n"
              "      \"max\": 3.500000,\n"
              "      \"mean\": 1.583333,\n"
              "      \"harmonic_mean\": 0.800000\n"
              "    }\n"
              "  },\n"
              "  \"aggregate_metrics\": {\n"
              "  }\n"
              "}\n");
}

TEST(ScoreWriter, Csv) {
    EXPECT_EQ(text(OutputFormat::csv, small_table()),
              "Frame,speed_chroma_u,speed_temporal,\n"
              "0,0.500000,0.000000,\n"
              "1,0.0000000123400000,1.250000,\n"
              "2,2.000000,3.500000,\n");
}

TEST(ScoreWriter, Sub) {
    EXPECT_EQ(text(OutputFormat::sub, small_table()),
              "{0}{1}frame: 0|speed_chroma_u: 0.500000|speed_temporal: 0.000000|\n"
              "{1}{2}frame: 1|speed_chroma_u: 0.0000000123400000|speed_temporal: 1.250000|\n"
              "{2}{3}frame: 2|speed_chroma_u: 2.000000|speed_temporal: 3.500000|\n");
}

// libvmaf prints a JSON null without the newline that follows a number.
TEST(ScoreWriter, JsonNullQuirk) {
    ScoreTable t;
    t.metric_names = {"a", "b"};
    t.frames = {{kNaN, 1.0}, {0.25, kInf}};
    t.fps = kNaN;
    t.version = "3.0.0";
    EXPECT_EQ(text(OutputFormat::json, t),
              "{\n"
              "  \"version\": \"3.0.0\",\n"
              "  \"fps\": null,\n"
              "  \"frames\": [\n"
              "    {\n"
              "      \"frameNum\": 0,\n"
              "      \"metrics\": {\n"
              "        \"a\": null,        \"b\": 1.000000\n"
              "      }\n"
              "    },\n"
              "    {\n"
              "      \"frameNum\": 1,\n"
              "      \"metrics\": {\n"
              "        \"a\": 0.250000,\n"
              "        \"b\": null      }\n"
              "    }\n"
              "  ],\n"
              "  \"pooled_metrics\": {\n"
              "    \"a\": {\n"
              "      \"min\": null,\n"
              "      \"max\": null,\n"
              "      \"mean\": null,\n"
              "      \"harmonic_mean\": null\n"
              "    },\n"
              "    \"b\": {\n"
              "      \"min\": 1.000000,\n"
              "      \"max\": null,\n"
              "      \"mean\": null,\n"
              "      \"harmonic_mean\": 3.000000\n"
              "    }\n"
              "  },\n"
              "  \"aggregate_metrics\": {\n"
              "  }\n"
              "}\n");
    t.fps = -kInf;
    EXPECT_NE(text(OutputFormat::json, t).find("  \"fps\": null,\n"), std::string::npos);
    // Other layouts print what printf prints.
    EXPECT_NE(text(OutputFormat::csv, t).find("0,nan,1.000000,\n1,0.250000,inf,\n"), std::string::npos);
}

ScoreTable subsampled_table() {
    ScoreTable t;
    t.metric_names = {"m"};
    t.frames = {{1.5}, {100}, {0.25}, {7}, {2.0}};
    t.width = t.height = 8;
    t.fps = 25;
    t.version = "3.0.0";
    t.subsample = 2;
    return t;
}

TEST(ScoreWriter, Subsample) {
    const ScoreTable t = subsampled_table();
    EXPECT_EQ(text(OutputFormat::xml, t),
              "<VMAF version=\"3.0.0\">\n"
              "  <params qualityWidth=\"8\" qualityHeight=\"8\" />\n"
              "  <fyi fps=\"25.00\" />\n"
              "  <frames>\n"
              "    <frame frameNum=\"0\" m=\"1.500000\" />\n"
              "    <frame frameNum=\"2\" m=\"0.250000\" />\n"
              "    <frame frameNum=\"4\" m=\"2.000000\" />\n"
              "  </frames>\n"
              "  <pooled_metrics>\n"
              "    <metric name=\"m\" min=\"0.250000\" max=\"2.000000\" mean=\"1.250000\" harmonic_mean=\"0.956522\" />\n"
              "  </pooled_metrics>\n"
              "  <aggregate_metrics />\n"
              "</VMAF>\n");
    EXPECT_EQ(text(OutputFormat::json, t),
              "{\n"
              "  \"version\": \"3.0.0\",\n"
              "  \"fps\": 25.00,\n"
              "  \"frames\": [\n"
              "    {\n"
              "      \"frameNum\": 0,\n"
              "      \"metrics\": {\n"
              "        \"m\": 1.500000\n"
              "      }\n"
              "    },\n"
              "    {\n"
              "      \"frameNum\": 2,\n"
              "      \"metrics\": {\n"
              "        \"m\": 0.250000\n"
              "      }\n"
              "    },\n"
              "    {\n"
              "      \"frameNum\": 4,\n"
              "      \"metrics\": {\n"
              "        \"m\": 2.000000\n"
              "      }\n"
              "    }\n"
              "  ],\n"
              "  \"pooled_metrics\": {\n"
              "    \"m\": {\n"
              "      \"min\": 0.250000,\n"
              "      \"max\": 2.000000,\n"
              "      \"mean\": 1.250000,\n"
              "      \"harmonic_mean\": 0.956522\n"
              "    }\n"
              "  },\n"
              "  \"aggregate_metrics\": {\n"
              "  }\n"
              "}\n");
    EXPECT_EQ(text(OutputFormat::csv, t), "Frame,m,\n0,1.500000,\n2,0.250000,\n4,2.000000,\n");
    EXPECT_EQ(text(OutputFormat::sub, t),
              "{0}{1}frame: 0|m: 1.500000|\n{2}{3}frame: 2|m: 0.250000|\n{4}{5}frame: 4|m: 2.000000|\n");
    // subsample 0 and 1 both mean every frame.
    ScoreTable all = t;
    all.subsample = 1;
    ScoreTable all0 = t;
    all0.subsample = 0;
    EXPECT_EQ(text(OutputFormat::csv, all), "Frame,m,\n0,1.500000,\n1,100.000000,\n2,0.250000,\n3,7.000000,\n4,2.000000,\n");
    EXPECT_EQ(text(OutputFormat::csv, all0), text(OutputFormat::csv, all));
}

TEST(ScoreWriter, NoFrames) {
    ScoreTable t;
    t.metric_names = {"m"};
    t.width = t.height = 8;
    t.fps = 25;
    t.version = "3.0.0";
    EXPECT_EQ(text(OutputFormat::xml, t),
              "<VMAF version=\"3.0.0\">\n"
              "  <params qualityWidth=\"8\" qualityHeight=\"8\" />\n"
              "  <fyi fps=\"25.00\" />\n"
              "  <frames>\n"
              "  </frames>\n"
              "  <pooled_metrics>\n"
              "    <metric name=\"m\" />\n"
              "  </pooled_metrics>\n"
              "  <aggregate_metrics />\n"
              "</VMAF>\n");
    EXPECT_EQ(text(OutputFormat::json, t),
              "{\n  \"version\": \"3.0.0\",\n  \"fps\": 25.00,\n  \"frames\": [\n  ],\n  \"pooled_metrics\": {\n"
              "    \"m\": {\n    }\n  },\n  \"aggregate_metrics\": {\n  }\n}\n");
    EXPECT_EQ(text(OutputFormat::csv, t), "Frame,m,\n");
    EXPECT_EQ(text(OutputFormat::sub, t), "");
}

TEST(ScoreWriter, PrecisionDigits) {
    const ScoreTable t = small_table();
    EXPECT_EQ(text(OutputFormat::csv, t, Precision{3, false}),
              "Frame,speed_chroma_u,speed_temporal,\n0,0.500,0.000,\n1,0.000,1.250,\n2,2.000,3.500,\n");
    EXPECT_EQ(text(OutputFormat::sub, t, Precision{0, false}).substr(0, 51),
              "{0}{1}frame: 0|speed_chroma_u: 0|speed_temporal: 0|");
    std::string xml = text(OutputFormat::xml, t, Precision{3, false});
    EXPECT_NE(xml.find("<metric name=\"speed_chroma_u\" min=\"0.000\" max=\"2.000\" mean=\"0.833\" "
                       "harmonic_mean=\"0.500\" />"),
              std::string::npos);
    EXPECT_NE(xml.find("<fyi fps=\"23.98\" />"), std::string::npos);  // fps keeps %.2f
}

TEST(ScoreWriter, PrecisionMax) {
    ScoreTable t = small_table();
    EXPECT_EQ(text(OutputFormat::csv, t, Precision{-1, true}),
              "Frame,speed_chroma_u,speed_temporal,\n0,0.5,0,\n1,1.234e-08,1.25,\n2,2,3.5,\n");
    std::string json = text(OutputFormat::json, t, Precision{-1, true});
    EXPECT_NE(json.find("      \"mean\": 0.83333333744666671,\n"), std::string::npos) << json;
    t.frames[0][0] = kNaN;
    json = text(OutputFormat::json, t, Precision{-1, true});
    EXPECT_NE(json.find("        \"speed_chroma_u\": null,        \"speed_temporal\": 0\n"), std::string::npos)
        << json;
    json = text(OutputFormat::json, t, Precision{4, false});
    EXPECT_NE(json.find("        \"speed_chroma_u\": null,        \"speed_temporal\": 0.0000\n"), std::string::npos)
        << json;
}

TEST(Pooling, LibvmafRules) {
    ScoreTable t;
    t.metric_names = {"m"};
    t.frames = {{3.0}, {1.0}, {-0.5}, {4.0}};
    Pooled p = pool_metric(t, 0);
    ASSERT_TRUE(p.valid);
    EXPECT_EQ(p.min, -0.5);
    EXPECT_EQ(p.max, 4.0);
    EXPECT_EQ(p.mean, (3.0 + 1.0 + -0.5 + 4.0) / 4);
    EXPECT_EQ(p.harmonic_mean, 4 / (1. / 4. + 1. / 2. + 1. / 0.5 + 1. / 5.) - 1.0);
    t.subsample = 3;  // frames 0 and 3
    p = pool_metric(t, 0);
    EXPECT_EQ(p.min, 3.0);
    EXPECT_EQ(p.max, 4.0);
    EXPECT_EQ(p.mean, 3.5);
    // A NaN in the first frame sticks in min and max, as in libvmaf.
    t.subsample = 0;
    t.frames[0][0] = kNaN;
    p = pool_metric(t, 0);
    EXPECT_TRUE(std::isnan(p.min));
    EXPECT_TRUE(std::isnan(p.max));
    t.frames.clear();
    EXPECT_FALSE(pool_metric(t, 0).valid);
}

TEST(ScoreWriter, RaggedTableIsAnError) {
    ScoreTable t = small_table();
    t.frames[1].pop_back();
    EXPECT_EQ(test::error_of([&] { text(OutputFormat::csv, t); }), "score table: frame 1 has 1 scores for 2 metrics");
}

TEST(ScoreWriter, NoMetricsPrintsNoFrames) {
    ScoreTable t;
    t.frames = {{}, {}};
    EXPECT_EQ(text(OutputFormat::csv, t), "Frame,\n");
    EXPECT_EQ(text(OutputFormat::sub, t), "");
}

TEST(ScoreWriter, WritesToAFile) {
    std::FILE* f = std::tmpfile();
    ASSERT_TRUE(f);
    write_scores(f, OutputFormat::xml, small_table(), {});
    std::rewind(f);
    std::string got;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) got.append(buf, n);
    std::fclose(f);
    EXPECT_EQ(got, text(OutputFormat::xml, small_table()));
}

}  // namespace
}  // namespace speedqa::io

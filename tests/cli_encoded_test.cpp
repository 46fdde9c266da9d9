// The command with encoded video and vmaf users' habits, end to end:
// encodes of the test clips (8, 10 and 12 bits; 4:2:0, 4:2:2, 4:4:4) score
// exactly as `ffmpeg -i FILE -strict -1 -f yuv4mpegpipe - | speedqa ...`;
// one reference against several distorted videos gives each the values of a
// run of its own; a build without libav shows the pipe command that works;
// --gpumask, -q, early output checks and skips past the end.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "support/cli_fixture.hpp"
#include "support/command.hpp"
#include "support/testdata.hpp"
#include "support/json.hpp"

namespace speedqa::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class CliEncoded : public CliTest {
protected:
    static void SetUpTestSuite() { make_dir("speedqa_cli_encoded"); }

    // The raw reference of a test clip, and its ffmpeg input options.
    static std::string raw_input(const std::string& clip) {
        const auto data = TestData::open(repo_testdata_dir());
        const ClipInfo* c = data ? data->clip(clip) : nullptr;
        if (!c) {
            ADD_FAILURE() << "no clip " << clip;
            return "";
        }
        const std::string raw = path(clip + "_ref.yuv");
        if (!fs::exists(raw)) {
            const std::vector<uint8_t>& bytes = load_xz(c->ref_xz);
            std::ofstream(raw, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        }
        const VideoFormat& f = c->format;
        const std::string depth = f.bitdepth > 8 ? std::to_string(f.bitdepth) + "le" : "";
        return "-f rawvideo -pix_fmt yuv" + std::string(pixel_format_name(f.pix)) + "p" + depth + " -s " +
               std::to_string(f.width) + "x" + std::to_string(f.height) + " -r 25 -i " + raw;
    }
    // `clip`'s reference encoded into `name` with these ffmpeg options.
    static std::string encode(const std::string& clip, const std::string& name, const std::string& options) {
        const std::string out = path(name);
        if (!ffmpeg(raw_input(clip) + " " + options + " " + out)) {
            ADD_FAILURE() << "ffmpeg could not make " << name;
        }
        return out;
    }
    // What the y4m pipe of `file` gives (the pipe's bytes, kept in a file).
    static std::string pipe_of(const std::string& file) {
        const std::string out = file + ".y4m";
        if (!ffmpeg("-i " + file + " -strict -1 -f yuv4mpegpipe " + out)) {
            ADD_FAILURE() << "ffmpeg could not decode " << file;
        }
        return out;
    }

    void SetUp() override {
        if (!have_ffmpeg()) GTEST_SKIP() << "the ffmpeg command is not installed (Debian: apt-get install ffmpeg)";
    }
};

const std::string kScores = " --feature speed_chroma --json --precision max -o - -q";

// Every value of every frame, direct and through ffmpeg's pipe: identical.
TEST_F(CliEncoded, ScoresEqualTheY4mPipe) {
    struct Case {
        std::string clip, ref_options, dis_name, dis_options;
    };
    const std::string x265 = " -c:v libx265 -preset ultrafast -x265-params log-level=none:crf=32";
    const std::vector<Case> cases = {
        {"v1", "-c:v ffv1", "v1_420_8bit.mp4", "-c:v libx264 -crf 32 -bf 3"},
        {"v2", "-c:v ffv1", "v2_420_10bit.mkv", x265},
        {"v4", "-c:v ffv1", "v4_422_10bit.mp4", x265},
        {"v3", "-c:v ffv1", "v3_444_8bit.mp4", "-c:v libx264 -crf 32"},
        {"v5", "-c:v ffv1", "v5_420_12bit.mkv", x265},
    };
    long long values = 0;
    for (const Case& c : cases) {
        SCOPED_TRACE(c.dis_name);
        const std::string ref = encode(c.clip, c.clip + "_ref.mkv", c.ref_options);
        const std::string dis = encode(c.clip, c.dis_name, c.dis_options);
        const CommandResult direct = run("-r " + ref + " -d " + dis + kScores);
        // the distorted one through a real pipe, the reference as the pipe writes it
        const std::string dis_pipe = "ffmpeg -nostdin -v error -i " + dis + " -strict -1 -f yuv4mpegpipe - | " + SPEEDQA_CLI_PATH;
        const CommandResult piped = run_command(dis_pipe, "-r " + pipe_of(ref) + " -d -" + kScores, dir);
        ASSERT_EQ(direct.status, 0) << direct.err;
        ASSERT_EQ(piped.status, 0) << piped.err;
        const json a = parse_json(direct.out), b = parse_json(piped.out);
        ASSERT_EQ(a["frames"].size(), b["frames"].size());
        EXPECT_GT(a["frames"].size(), 0u);
        for (size_t i = 0; i < a["frames"].size(); i++) {
            EXPECT_EQ(a["frames"][i]["metrics"], b["frames"][i]["metrics"]) << "frame " << i;
            values += static_cast<long long>(a["frames"][i]["metrics"].size());
        }
        EXPECT_TRUE(a["frames"][0]["metrics"].contains("speed_chroma_uv"));
    }
    std::printf("[cli] encoded input: %zu clips, %lld values identical to the y4m pipe's\n", cases.size(), values);
}

// One reference, several distorted: each gets the values of a run of its
// own. The reference comes from standard input, which can be read once.
TEST_F(CliEncoded, OneReferenceSeveralDistorted) {
    const std::string ref = encode("v1", "ladder_ref.mkv", "-c:v ffv1");
    const std::string a = encode("v1", "rung_a.mp4", "-c:v libx264 -crf 26");
    const std::string b = encode("v1", "rung_b.mp4", "-c:v libx264 -crf 40");
    const std::string c = encode("v1", "rung_c.y4m", "-vf scale=576:324:flags=bilinear,hflip");
    const CommandResult ladder =
        run("-r - -d " + a + " " + b + " -d " + c + " --json --precision max -q -o " + path("out_%s.json"), pipe_of(ref));
    ASSERT_EQ(ladder.status, 0) << ladder.err;
    long long frames = 0;
    for (const std::string& rung : {a, b, c}) {
        const std::string name = fs::path(rung).stem().string();
        const CommandResult alone = run("-r " + ref + " -d " + rung + " --json --precision max -q -o -");
        ASSERT_EQ(alone.status, 0) << alone.err;
        const json mine = parse_json(slurp(dir / ("out_" + name + ".json"))), own = parse_json(alone.out);
        EXPECT_EQ(mine["frames"], own["frames"]) << name;
        EXPECT_EQ(mine["pooled_metrics"], own["pooled_metrics"]) << name;
        frames += static_cast<long long>(mine["frames"].size());
    }
    // without -o: each one's pooled means, named
    const CommandResult means = run("-r " + ref + " -d " + a + " " + b + " -q");
    EXPECT_NE(means.out.find(a + ": vmaf: "), std::string::npos) << means.out;
    EXPECT_NE(means.out.find(b + ": vmaf: "), std::string::npos) << means.out;
    std::printf("[cli] one reference, 3 distorted: %lld frames identical to separate runs\n", frames);

    const std::vector<std::pair<std::string, std::string>> bad = {
        {"-o " + path("one.json"), "needs %s"},
        {"-o -", "needs %s"},
        {"-o " + path("%s.json") + " -d " + path("sub/rung_a.mp4"), "would both write"},
        {"--parity -o " + path("%s.json"), "--parity"},
    };
    for (const auto& [args, expect] : bad) {
        const CommandResult r = run("-r " + ref + " -d " + a + " " + b + " " + args);
        EXPECT_NE(r.status, 0) << args;
        EXPECT_NE(r.err.find(expect), std::string::npos) << args << ": " << r.err;
    }
}

// FFmpeg's libraries are opened at the first encoded input, not at start:
// a run on y4m or raw video never loads them (the loader's LD_DEBUG=files
// lines name each library it maps).
TEST_F(CliEncoded, LibavLoadedOnlyForEncodedInput) {
    const std::string ref = encode("v1", "lazy_ref.mkv", "-c:v ffv1");
    const std::string y4m = pipe_of(ref);
    const std::string args = " --feature speed_chroma --no_prediction --json -o " + path("lazy.json");
    const CommandResult plain = run("-r " + y4m + " -d " + y4m + args, "", "LD_DEBUG=files");
    ASSERT_EQ(plain.status, 0) << plain.err;
    EXPECT_NE(plain.err.find("file=libc.so"), std::string::npos) << "LD_DEBUG printed nothing: " << plain.err;
    EXPECT_EQ(plain.err.find("libavcodec"), std::string::npos);
    EXPECT_EQ(plain.err.find("libavformat"), std::string::npos);
    const CommandResult encoded = run("-r " + ref + " -d " + y4m + args, "", "LD_DEBUG=files");
    ASSERT_EQ(encoded.status, 0) << encoded.err;
    EXPECT_NE(encoded.err.find("file=libavformat.so"), std::string::npos);
    EXPECT_NE(encoded.err.find("file=libavcodec.so"), std::string::npos);
}

// Where FFmpeg's libraries cannot be loaded, an encoded input is refused in
// one line naming the library (here: damaged copies found first through
// LD_LIBRARY_PATH, for any major version), and nothing is written.
TEST_F(CliEncoded, MissingLibavIsNamed) {
    const std::string ref = encode("v1", "missing_ref.mkv", "-c:v ffv1");
    fs::create_directories(path("broken_libs"));
    for (int major = 50; major < 80; major++) write(path("broken_libs/libavutil.so." + std::to_string(major)), "not a library");
    const CommandResult r = run("-r " + ref + " -d " + ref + " --feature speed_chroma -o " + path("missing.json"), "",
                                "LD_LIBRARY_PATH=" + path("broken_libs"));
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err.rfind("speedqa: error: " + ref + ": ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("cannot load libavutil.so."), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("yuv4mpegpipe"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(path("missing.json")));
}

// A build without libavformat/libavcodec says how to pipe encoded video in,
// and that command works.
TEST_F(CliEncoded, WithoutLibavTheMessageShowsThePipe) {
    const std::string ref = encode("v1", "nolibav_ref.mkv", "-c:v ffv1");
    const std::string dis = encode("v1", "nolibav_dis.mp4", "-c:v libx264 -crf 30");
    const std::string y4m = pipe_of(ref);
    for (const auto& [args, flag, file] : {std::tuple{"-r " + ref + " -d " + y4m, "-r", ref},
                                           std::tuple{"-r " + y4m + " -d " + dis, "-d", dis}}) {
        const CommandResult r = run_command(SPEEDQA_CLI_WITHOUT_LIBAV_PATH, args + " -o " + path("no.json"), dir);
        EXPECT_EQ(r.status, 1);
        EXPECT_NE(r.err.find("ffmpeg -i " + file + " -strict -1 -f yuv4mpegpipe - | speedqa " + flag + " - ..."),
                  std::string::npos)
            << r.err;
        EXPECT_FALSE(fs::exists(path("no.json")));
    }
    const std::string shown = "ffmpeg -nostdin -v error -i " + dis + " -strict -1 -f yuv4mpegpipe - | " +
                              SPEEDQA_CLI_WITHOUT_LIBAV_PATH;
    const CommandResult piped = run_command(shown, "-r " + y4m + " -d -" + kScores, dir);
    const CommandResult direct = run("-r " + ref + " -d " + dis + kScores);
    ASSERT_EQ(piped.status, 0) << piped.err;
    EXPECT_EQ(parse_json(piped.out)["frames"], parse_json(direct.out)["frames"]);
}

// ---- vmaf users' habits (raw input; no ffmpeg needed) ----------------------
class CliHabits : public CliTest {
protected:
    static void SetUpTestSuite() { make_dir("speedqa_cli_habits", {"v1"}); }
};

// --gpumask as vmaf takes it: 0 lets --backend use the GPU, anything else
// forbids it; values in any base strtoul reads.
TEST_F(CliHabits, GpumaskAsVmaf) {
    const std::string args = v1() + " --no_prediction --feature speed_temporal --json --precision max -o -";
    const CommandResult plain = run(args + " -q");
    ASSERT_EQ(plain.status, 0) << plain.err;
    for (const char* mask : {"0", "0x0", "1", "0x10", "017"}) {
        const CommandResult r = run(args + " -q --gpumask " + mask);
        ASSERT_EQ(r.status, 0) << mask << ": " << r.err;
        EXPECT_EQ(parse_json(r.out)["frames"], parse_json(plain.out)["frames"]) << mask;
    }
    const CommandResult forbidden = run(args + " --backend auto --gpumask 1");
    EXPECT_EQ(forbidden.status, 0) << forbidden.err;
    EXPECT_NE(forbidden.err.find("backend auto: using the CPU engine (--gpumask 1)"), std::string::npos) << forbidden.err;
    EXPECT_EQ(parse_json(forbidden.out)["frames"], parse_json(plain.out)["frames"]);
    for (const std::string& bad : {std::string(" --backend cuda --gpumask 4"), std::string(" --gpumask x")}) {
        const CommandResult r = run(args + bad);
        EXPECT_NE(r.status, 0) << bad;
        EXPECT_NE(r.err.find("--gpumask"), std::string::npos) << r.err;
        EXPECT_TRUE(r.out.empty());
    }
}

// -q silences the auto backend's lines too; without it they are there.
TEST_F(CliHabits, QuietSilencesAutoLines) {
    const std::string args = v1() + " --no_prediction --feature speed_temporal --backend auto --json -o " + path("q.json");
    const CommandResult loud = run(args), quiet = run(args + " -q"), masked = run(args + " -q --gpumask 1");
    ASSERT_EQ(loud.status, 0) << loud.err;
    EXPECT_NE(loud.err.find("auto"), std::string::npos);
    EXPECT_EQ(quiet.status, 0);
    EXPECT_EQ(quiet.err, "");
    EXPECT_EQ(masked.err, "");
}

// --backend cuda without a GPU (or without a CUDA engine) says so plainly;
// option aliases are refused naming the full option.
TEST_F(CliHabits, PlainRefusals) {
    const std::string args = v1() + " --no_prediction --feature speed_temporal --json -o " + path("cuda.json");
    const CommandResult cuda = run(args + " --backend cuda");
    if (cuda.status != 0) {  // (on a machine with a GPU it scores)
        EXPECT_EQ(cuda.err.rfind("speedqa: error: backend cuda: ", 0), 0u) << cuda.err;
        const bool plain = cuda.err.find("no CUDA engine") != std::string::npos ||
                           cuda.err.find("no CUDA GPU") != std::string::npos ||
                           cuda.err.find("no NVIDIA driver") != std::string::npos;
        EXPECT_TRUE(plain) << cuda.err;
        EXPECT_EQ(cuda.err.find("insufficient"), std::string::npos) << cuda.err;
        EXPECT_FALSE(fs::exists(path("cuda.json")));
    }
    const CommandResult alias = run(v1() + " --no_prediction --feature vif=egl=1.0 -o " + path("alias.json"));
    EXPECT_NE(alias.status, 0);
    EXPECT_NE(alias.err.find("vif_enhn_gain_limit"), std::string::npos) << alias.err;
    EXPECT_FALSE(fs::exists(path("alias.json")));
}

// An output that cannot be written is refused before any frame is scored:
// here the reference, a y4m stream, is damaged in its last frame, which
// only scoring would reach.
TEST_F(CliHabits, OutputCheckedBeforeScoring) {
    const std::string frame = slurp(path("v1_ref.yuv")).substr(0, 576 * 324 * 3 / 2);
    std::string y4m = "YUV4MPEG2 W576 H324 F25:1 Ip C420jpeg\n";
    for (int i = 0; i < 3; i++) y4m += "FRAME\n" + frame;
    std::ofstream(path("whole.y4m"), std::ios::binary) << y4m + "FRAME\n" + frame;
    std::ofstream(path("damaged.y4m"), std::ios::binary) << y4m + "FRAME\n" + frame.substr(0, 100);
    std::ofstream(path("a_file"), std::ios::binary) << "x";
    const std::string out = path("a_file") + "/scores.json";  // a folder that is a file
    const CommandResult r = run("-r - -d " + path("whole.y4m") + " --no_prediction --feature speed_temporal -o " + out,
                                path("damaged.y4m"));
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.err.find(out), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("truncated"), std::string::npos) << r.err;
}

// A skip past the end names the file that ran out.
TEST_F(CliHabits, SkipPastTheEndNamesTheFile) {
    for (const auto& [flag, file] : {std::pair{"--frame_skip_ref", "v1_ref.yuv"}, std::pair{"--frame_skip_dist", "v1_dis.yuv"}}) {
        const CommandResult over = run(v1() + " --no_prediction --feature speed_temporal " + flag + " 9");
        EXPECT_NE(over.status, 0);
        EXPECT_NE(over.err.find(std::string(flag) + " 9: " + path(file) + " has only 8 frames"), std::string::npos) << over.err;
        const CommandResult all = run(v1() + " --no_prediction --feature speed_temporal " + flag + " 8");
        EXPECT_NE(all.status, 0);
        EXPECT_NE(all.err.find(path(file) + " has no frame after the 8 skipped by " + flag), std::string::npos) << all.err;
    }
}

}  // namespace
}  // namespace speedqa::testing

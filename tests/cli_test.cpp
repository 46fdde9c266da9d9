// The speedqa command end to end: every output format against the golden
// values, y4m files and pipes, and every bad input the issue lists (a clear
// one-line error, a non-zero exit, no output file left behind).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/cpu_flags.hpp"
#include "support/cli_fixture.hpp"
#include "support/command.hpp"
#include "support/testdata.hpp"
#include "support/json.hpp"

namespace speedqa::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using Result = CommandResult;

class Cli : public CliTest {
protected:
    static void SetUpTestSuite() { make_dir("speedqa_cli_test", {"v1", "v6", "v7"}); }

    // y4m of a raw clip: header, then FRAME + frame bytes each.
    static std::string y4m(const std::string& raw, int w, int h, const std::string& tags, size_t frame_bytes) {
        std::string s = "YUV4MPEG2 W" + std::to_string(w) + " H" + std::to_string(h) + " F25:1 Ip A1:1" + tags + "\n";
        for (size_t at = 0; at + frame_bytes <= raw.size(); at += frame_bytes) s += "FRAME\n" + raw.substr(at, frame_bytes);
        return s;
    }

    // A switch that changes only the speed: the command's output (args) under
    // each of `values` of `var` and unset is the same; the value `bad` is one
    // line naming the values it takes (`expected`), status 1, no output.
    static void expect_same_scores_under(const std::string& args, const std::string& var,
                                         std::initializer_list<const char*> values, const std::string& bad,
                                         const std::string& expected) {
        const CommandResult plain = run(args + " -q");
        ASSERT_EQ(plain.status, 0) << plain.err;
        EXPECT_NE(plain.out, "");
        for (const char* v : values) {
            const CommandResult r = run(args + " -q", "", var + "=" + v);
            ASSERT_EQ(r.status, 0) << var << "=" << v << ": " << r.err;
            EXPECT_EQ(r.out, plain.out) << var << "=" << v;
        }
        const CommandResult r = run(args, "", var + "=" + bad);
        EXPECT_EQ(r.status, 1);
        EXPECT_EQ(r.err, "speedqa: error: " + var + "=" + bad + " is not a value speedqa knows (expected " + expected + ")\n");
        EXPECT_EQ(r.out, "");
    }

    static std::string v6() { return "-r " + (dir / "v6_ref.yuv").string() + " -d " + (dir / "v6_dis.yuv").string() + " -w 80 -h 80 -p 444 -b 8"; }
};

json golden(const std::string& file) {
    std::ifstream in(fs::path(repo_testdata_dir()) / "golden" / file);
    return parse_json(in);
}

// --precision max prints %.17g: every value must equal the golden double.
TEST_F(Cli, JsonExactValuesAndNames) {
    const fs::path o = dir / "o.json";
    const Result r = run(v1() + " --no_prediction --feature speed_chroma=speed_kernelscale=1.0:speed_nn_floor=0.1:speed_sigma_nn=0.19:"
                                "speed_weight_var_mode=5:speed_max_val=45.0 --feature speed_temporal --json --precision max -o " +
                         o.string() + " -q");
    ASSERT_EQ(r.status, 0) << r.err;
    const json got = parse_json(slurp(o));
    // the golden file of the dispatch the command picks on this CPU
    const std::string d = dispatch_name(libvmaf_dispatch(0));
    const json gc = golden("v1__o1__speed_chroma__" + d + ".json"), gt = golden("v1__o0__speed_temporal__" + d + ".json");
    ASSERT_EQ(got["frames"].size(), 8u);
    int compared = 0;
    for (int i = 0; i < 8; i++) {
        const json& m = got["frames"][i]["metrics"];
        EXPECT_EQ(got["frames"][i]["frameNum"], i);
        for (const char* k : {"speed_chroma_u", "speed_chroma_v", "speed_chroma_uv"}) {
            EXPECT_EQ(m[gc["metric_keys"][k].get<std::string>()].get<double>(), gc["frames"][i][k].get<double>());
            compared++;
        }
        EXPECT_EQ(m["speed_temporal"].get<double>(), gt["frames"][i]["speed_temporal"].get<double>());
        compared++;
    }
    EXPECT_TRUE(got["pooled_metrics"].contains("speed_chroma_uv_mxv_45_nnf_0.1_snn_0.19_wvm_5"));
    for (const char* p : {"min", "max", "mean", "harmonic_mean"}) EXPECT_TRUE(got["pooled_metrics"]["speed_temporal"].contains(p));
    EXPECT_EQ(compared, 32);
}

// Default precision prints as the stock vmaf CLI does (%.6f): compare with
// what the unmodified CLI printed for the same clip.
TEST_F(Cli, DefaultPrecisionMatchesStockCliText) {
    const fs::path o = dir / "o.csv";
    const Result r = run(v1() + " --no_prediction --feature speed_chroma --csv -o " + o.string() + " -q");
    ASSERT_EQ(r.status, 0) << r.err;
    const json g = golden("v1__o0__speed_chroma__" + std::string(dispatch_name(libvmaf_dispatch(0))) + ".json");
    std::istringstream lines(slurp(o));
    std::string line;
    std::getline(lines, line);
    EXPECT_EQ(line, "Frame,speed_chroma_u,speed_chroma_v,speed_chroma_uv,");
    for (int i = 0; i < 8; i++) {
        std::getline(lines, line);
        char want[256];
        const json& s = g["stock_cli_frames"][i];
        std::snprintf(want, sizeof want, "%d,%.6f,%.6f,%.6f,", i, s["speed_chroma_u"].get<double>(),
                      s["speed_chroma_v"].get<double>(), s["speed_chroma_uv"].get<double>());
        EXPECT_EQ(line, want);
    }
}

TEST_F(Cli, XmlAndSubLayouts) {
    const fs::path x = dir / "o.xml", s = dir / "o.sub";
    ASSERT_EQ(run(v6() + " --no_prediction --feature speed_temporal --xml -o " + x.string() + " -q").status, 0);
    const std::string xml = slurp(x);
    EXPECT_EQ(xml.rfind("<VMAF version=\"", 0), 0u);
    EXPECT_NE(xml.find("<params qualityWidth=\"80\" qualityHeight=\"80\" />"), std::string::npos);
    EXPECT_NE(xml.find("<frame frameNum=\"0\" speed_temporal=\"0.000000\" />"), std::string::npos);
    EXPECT_NE(xml.find("<metric name=\"speed_temporal\" min=\""), std::string::npos);
    EXPECT_NE(xml.find("</VMAF>\n"), std::string::npos);
    ASSERT_EQ(run(v6() + " --no_prediction --feature speed_temporal --sub -o " + s.string() + " -q").status, 0);
    EXPECT_EQ(slurp(s).rfind("{0}{1}frame: 0|speed_temporal: 0.000000|\n", 0), 0u);
}

TEST_F(Cli, Y4mFilesAndStdinGiveTheRawResult) {
    const size_t fb = 576 * 324 * 3 / 2;
    write(dir / "r.y4m", y4m(slurp(dir / "v1_ref.yuv"), 576, 324, " C420jpeg", fb));
    write(dir / "d.y4m", y4m(slurp(dir / "v1_dis.yuv"), 576, 324, "", fb));
    const Result raw = run(v1() + " --no_prediction --feature speed_chroma --feature speed_temporal --csv --precision max -o -");
    const Result file = run("-r " + (dir / "r.y4m").string() + " -d " + (dir / "d.y4m").string() +
                            " --no_prediction --feature speed_chroma --feature speed_temporal --csv --precision max -o -");
    const Result pipe = run("-r - -d " + (dir / "d.y4m").string() +
                                " --no_prediction --feature speed_chroma --feature speed_temporal --csv --precision max -o -",
                            (dir / "r.y4m").string());
    // -w -h -p -b that agree with the headers (scripts pass them always): read as y4m all the same
    const Result flagged = run("-r " + (dir / "r.y4m").string() + " -d " + (dir / "d.y4m").string() +
                               " -w 576 -h 324 -p 420 -b 8 --no_prediction --feature speed_chroma --feature speed_temporal --csv "
                               "--precision max -o -");
    ASSERT_EQ(raw.status, 0) << raw.err;
    EXPECT_EQ(file.status, 0) << file.err;
    EXPECT_EQ(pipe.status, 0) << pipe.err;
    EXPECT_EQ(flagged.status, 0) << flagged.err;
    EXPECT_EQ(raw.out, file.out);
    EXPECT_EQ(raw.out, pipe.out);
    EXPECT_EQ(raw.out, flagged.out);
    EXPECT_NE(raw.out.find("\n7,"), std::string::npos);
}

TEST_F(Cli, ThreadsFrameCountAndNoOutputFile) {
    const Result one = run(v1() + " --no_prediction --feature speed_temporal --json --precision max -o - --threads 1");
    const Result four = run(v1() + " --no_prediction --feature speed_temporal --json --precision max -o - --threads 4 --batch 3");
    ASSERT_EQ(one.status, 0);
    const json a = parse_json(one.out), b = parse_json(four.out);
    EXPECT_EQ(a["frames"], b["frames"]);
    const Result cnt = run(v1() + " --no_prediction --feature speed_temporal --frame_cnt 3 --csv -o -");
    EXPECT_EQ(std::count(cnt.out.begin(), cnt.out.end(), '\n'), 4);
    // no -o: the pooled mean of each metric on standard output
    const Result plain = run(v1() + " --no_prediction --feature speed_chroma -q");
    EXPECT_EQ(plain.status, 0);
    EXPECT_EQ(plain.out.rfind("speed_chroma_u: ", 0), 0u) << plain.out;
}

// --backend auto: the CPU engine starts while the CUDA engine (where there is
// a device) starts beside it; whichever scores a frame, the values are the
// CPU engine's, and the run says which engine scored how many frames.
TEST_F(Cli, AutoBackendGivesTheCpuValuesAndSaysWhoScored) {
    const std::string args = v1() + " --no_prediction --feature speed_temporal --feature speed_chroma --json --precision max -o -";
    const Result cpu = run(args + " --backend cpu");
    const Result autob = run(args + " --backend auto --threads 2");
    ASSERT_EQ(cpu.status, 0) << cpu.err;
    ASSERT_EQ(autob.status, 0) << autob.err;
    EXPECT_EQ(parse_json(cpu.out)["frames"], parse_json(autob.out)["frames"]);
    // with the CUDA engine built: "auto: N frames on cpu (...)"; without: "using the CPU engine (why)"
    const bool says = autob.err.find("frames on cpu") != std::string::npos ||
                      autob.err.find("backend auto: using the CPU engine (") != std::string::npos;
    EXPECT_TRUE(says) << autob.err;
}

TEST_F(Cli, VersionAndHelp) {
    EXPECT_EQ(run("--version").status, 0);
    const Result h = run("--help");
    EXPECT_EQ(h.status, 0);
    EXPECT_NE(h.out.find("--feature"), std::string::npos);
}

// ---- bad input: exit non-zero, one clear line, no output file -------------
struct BadCase {
    const char* name;
    std::string args;
    std::string expect;  // a phrase the message must contain
};

TEST_F(Cli, BadInputIsRefusedClearly) {
    const std::string ref = (dir / "v1_ref.yuv").string(), dis = (dir / "v1_dis.yuv").string();
    write(dir / "short.yuv", slurp(dir / "v1_ref.yuv").substr(0, 1000));
    write(dir / "bad_header.y4m", std::string("YUV4MPEG2 W576 Hx\nFRAME\n"));
    write(dir / "interlaced.y4m", std::string("YUV4MPEG2 W576 H324 F25:1 It C420jpeg\nFRAME\n") + std::string(279936, 'a'));
    write(dir / "other_size.y4m", y4m(slurp(dir / "v6_ref.yuv"), 80, 80, " C444", 80 * 80 * 3));
    write(dir / "mono.y4m", y4m(std::string(160 * 96 * 2, 'x'), 160, 96, " Cmono", 160 * 96));
    const std::string r6 = (dir / "v6_ref.yuv").string(), d6 = (dir / "v6_dis.yuv").string();
    const std::string raw = " -w 576 -h 324 -p 420 -b 8";
    const std::vector<BadCase> cases = {
        {"missing file", "-r /nonexistent.yuv -d " + dis + raw + " --no_prediction --feature speed_chroma", "/nonexistent.yuv"},
        {"directory", "-r " + dir.string() + " -d " + dis + raw + " --no_prediction --feature speed_chroma", dir.string()},
        {"size not a whole number of frames", "-r " + (dir / "short.yuv").string() + " -d " + dis + raw + " --no_prediction --feature speed_chroma",
         "not a whole number"},
        {"different geometry", "-r " + (dir / "other_size.y4m").string() + " -d " + (dir / "bad_header.y4m").string() +
                                   " --no_prediction --feature speed_chroma", "y4m"},
        {"ref and dis differ", "-r " + (dir / "other_size.y4m").string() + " -d " + (dir / "mono.y4m").string() +
                                   " --no_prediction --feature speed_temporal", "differ"},
        {"malformed y4m header", "-r " + (dir / "bad_header.y4m").string() + " -d " + (dir / "bad_header.y4m").string() +
                                     " --no_prediction --feature speed_chroma", "bad_header.y4m"},
        {"interlaced y4m", "-r " + (dir / "interlaced.y4m").string() + " -d " + (dir / "interlaced.y4m").string() +
                               " --no_prediction --feature speed_chroma", "interlaced"},
        {"unknown feature", "-r " + ref + " -d " + dis + raw + " --no_prediction --feature speed_luma", "unknown feature"},
        {"unknown option", "-r " + ref + " -d " + dis + raw + " --no_prediction --feature speed_chroma=speed_foo=1", "unknown option"},
        {"--model with --no_prediction", "-r " + ref + " -d " + dis + raw + " --no_prediction --feature speed_chroma -m version=vmaf_v0.6.1",
         "--no_prediction"},
        {"option of the other feature", "-r " + ref + " -d " + dis + raw + " --no_prediction --feature speed_temporal=speed_weight_var_mode=1", "unknown option"},
        {"weight_var_mode out of range", "-r " + ref + " -d " + dis + raw + " --no_prediction --feature speed_chroma=speed_weight_var_mode=7", "speed_weight_var_mode"},
        {"sigma_nn out of range", "-r " + ref + " -d " + dis + raw + " --no_prediction --feature speed_chroma=speed_sigma_nn=5", "speed_sigma_nn"},
        {"prescale out of range", "-r " + ref + " -d " + dis + raw + " --no_prediction --feature speed_temporal=speed_prescale=5", "speed_prescale"},
        {"bad boolean", "-r " + ref + " -d " + dis + raw + " --no_prediction --feature speed_temporal=speed_use_ref_diff=yes", "speed_use_ref_diff"},
        {"invalid kernelscale", "-r " + ref + " -d " + dis + raw + " --no_prediction --feature speed_chroma=speed_kernelscale=1.3", "kernelscale"},
        {"unknown prescale method", "-r " + ref + " -d " + dis + raw + " --no_prediction --feature speed_chroma=speed_prescale=2:speed_prescale_method=sinc", "speed_prescale_method"},
        {"plane under 80x80 after prescale", "-r " + r6 + " -d " + d6 + " -w 80 -h 80 -p 444 -b 8 --no_prediction --feature speed_temporal=speed_prescale=0.5",
         "at least 80x80"},
        {"plane under 80x80", "-r " + r6 + " -d " + d6 + " -w 80 -h 80 -p 420 -b 8 --no_prediction --feature speed_chroma", "at least 80x80"},
        {"4:0:0 to speed_chroma", "-r " + (dir / "mono.y4m").string() + " -d " + (dir / "mono.y4m").string() +
                                      " --no_prediction --feature speed_chroma", "4:0:0"},
        {"incomplete raw parameters", "-r " + ref + " -d " + dis + " -w 576 --no_prediction --feature speed_chroma", "--height"},
        {"bad bit depth", "-r " + ref + " -d " + dis + " -w 576 -h 324 -p 420 -b 9 --no_prediction --feature speed_chroma", "bitdepth"},
        {"bad pixel format", "-r " + ref + " -d " + dis + " -w 576 -h 324 -p 411 -b 8 --no_prediction --feature speed_chroma", "pixel_format"},
        {"no feature", "-r " + ref + " -d " + dis + raw + " --no_prediction", "--feature"},
        {"an alias as an option key", "-r " + ref + " -d " + dis + raw + " --no_prediction --feature speed_chroma=ks=0.5",
         "speed_kernelscale"},
        {"NaN option", "-r " + ref + " -d " + dis + raw + " --no_prediction --feature speed_chroma=speed_max_val=nan",
         "speed_max_val"},
        {"NaN prescale", "-r " + ref + " -d " + dis + raw + " --no_prediction --feature speed_temporal=speed_prescale=nan",
         "speed_prescale"},
        {"both on stdin", "-r - -d -" + std::string(" --no_prediction --feature speed_chroma"), "standard input"},
        {"y4m contradicting -b", "-r " + (dir / "other_size.y4m").string() + " -d " + (dir / "other_size.y4m").string() +
                                     " -w 80 -h 80 -p 444 -b 10 --no_prediction --feature speed_temporal",
         "the y4m header says 80x80 444 8-bit but -w -h -p -b say 80x80 444 10-bit"},
        {"unknown backend", "-r " + ref + " -d " + dis + raw + " --no_prediction --feature speed_chroma --backend gpu", "--backend"},
        {"unknown flag", "-r " + ref + " -d " + dis + raw + " --no_prediction --feature speed_chroma --bogus", "--bogus"},
        {"too many threads", "-r " + ref + " -d " + dis + raw + " --no_prediction --feature speed_chroma --threads 999", "--threads"},
        {"a newline in a file name", "-r '" + (dir / "new\nline.yuv").string() + "' -d " + dis + raw +
                                         " --no_prediction --feature speed_chroma", "new\\nline.yuv: size 1000 bytes"},
    };
    write(dir / "new\nline.yuv", slurp(dir / "short.yuv"));
    for (const BadCase& c : cases) {
        SCOPED_TRACE(c.name);
        const fs::path o = dir / "must_not_exist.json";
        fs::remove(o);
        const Result r = run(c.args + " --json -o " + o.string());
        EXPECT_NE(r.status, 0);
        EXPECT_LT(r.status, 128) << "crashed";
        EXPECT_NE(r.err.find(c.expect), std::string::npos) << "stderr: " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
        EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(o)) << "an output file was left behind";
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
    std::printf("[cli] %zu bad-input cases refused with a clear message\n", cases.size());
}

// Standard output that cannot take the scores (a full disk) fails the run,
// with or without -o -; --help and --version too.
TEST_F(Cli, FailedWriteToStdoutFails) {
    const fs::path err = dir / "stderr.txt";
    for (const std::string& args : {v1() + " --no_prediction --feature speed_chroma -q", v1() + " --no_prediction --feature speed_chroma -q --json -o -",
                                     std::string("--version"), std::string("--help")}) {
        SCOPED_TRACE(args);
        const int rc = std::system((std::string(SPEEDQA_CLI_PATH) + " " + args + " >/dev/full 2>" + err.string()).c_str());
        ASSERT_TRUE(WIFEXITED(rc));
        EXPECT_EQ(WEXITSTATUS(rc), 1);
        const std::string e = slurp(err);
        EXPECT_EQ(e.rfind("speedqa: error: stdout: cannot write", 0), 0u) << e;
        EXPECT_TRUE(e.ends_with(": No space left on device\n")) << e;
        EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 1) << e;
    }
}

// "no frames to score" names the input that ran out: the reference, the
// distorted one or standard input, or the --frame_skip_* that skipped all;
// skipping past the end names the input and its length.
TEST_F(Cli, NoFramesNamesTheInputThatRanOut) {
    const fs::path empty = dir / "empty.y4m", two = dir / "two.y4m";
    write(empty, std::string("YUV4MPEG2 W576 H324 F25:1 Ip C420jpeg\n"));
    write(two, y4m(slurp(dir / "v1_ref.yuv").substr(0, 2 * 279936), 576, 324, " C420jpeg", 279936));
    const std::string f = " --no_prediction --feature speed_chroma -q";
    const struct {
        std::string args, stdin_file, message;
    } cases[] = {
        {"-r - -d " + two.string() + f, empty.string(), "no frames to score: stdin is empty"},
        {"-r " + two.string() + " -d -" + f, empty.string(), "no frames to score: stdin is empty"},
        {"-r " + empty.string() + " -d " + two.string() + f, "", "no frames to score: " + empty.string() + " is empty"},
        {"-r " + two.string() + " -d " + empty.string() + f, "", "no frames to score: " + empty.string() + " is empty"},
        {"-r " + two.string() + " -d " + two.string() + " --frame_skip_ref 5" + f, "", "--frame_skip_ref 5: " + two.string() + " has only 2 frames"},
        {"-r - -d " + two.string() + " --frame_skip_ref 3" + f, two.string(), "--frame_skip_ref 3: stdin has only 2 frames"},
        {"-r - -d " + two.string() + " --frame_skip_dist 2" + f, two.string(),
         "no frames to score: " + two.string() + " has no frame after the 2 skipped by --frame_skip_dist"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.args);
        const Result r = run(c.args, c.stdin_file);
        EXPECT_EQ(r.status, 1);
        EXPECT_EQ(r.err, "speedqa: error: " + c.message + "\n");
    }
    const Result shorter = run("-r - -d " + two.string() + " --frame_skip_ref 1" + f + " --csv -o -", two.string());
    EXPECT_EQ(shorter.status, 0) << shorter.err;
    EXPECT_EQ(shorter.err, "warning: \"stdin\" ended before \"" + two.string() + "\"; scoring the 1 frame they share\n");
}

// Memory is taken for frames that were read, within what the machine has
// (SPEEDQA_MEMORY_LIMIT stands in for a small machine here).
TEST_F(Cli, MemoryIsTakenForFramesReadAndWithinTheLimit) {
    const std::string limit = "SPEEDQA_MEMORY_LIMIT=";
    // an 8K header without a frame: no worker scratch is made (eight
    // threads of it would take gigabytes)
    const fs::path header = dir / "8k_header.y4m";
    write(header, std::string("YUV4MPEG2 W7680 H4320 F25:1 Ip C420jpeg\n"));
    const Result none = run("-r " + header.string() + " -d " + header.string() +
                            " --no_prediction --feature speed_chroma=speed_prescale=4 --threads 8 -q");
    EXPECT_EQ(none.err, "speedqa: error: no frames to score: " + header.string() + " is empty\n");
    const Result none_small = run("-r " + header.string() + " -d " + header.string() +
                                  " --no_prediction --feature speed_chroma=speed_prescale=4 --threads 8 -q", "", limit + "100M");
    EXPECT_EQ(none_small.err, none.err);

    // 48 bytes on standard input (and a pipe) declaring 1048576x2047 16-bit
    // 4:4:4 frames: the 12.9 GB frame buffer is refused before it is used
    const fs::path big = dir / "big48.y4m", fifo = dir / "big48.fifo";
    write(big, std::string("YUV4MPEG2 W1048576 H2047 F25:1 C444p16\nFRAME\n\1\2\3"));
    ASSERT_EQ(fs::file_size(big), 48u);
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const Result huge = run("-r - -d " + fifo.string() + " -q <" + big.string(), "", limit + "1G",
                            "cat " + big.string() + " >" + fifo.string() + " & ");
    EXPECT_EQ(huge.status, 1);
    EXPECT_TRUE(huge.err == "speedqa: error: stdin: a frame takes 12.9 GB, and 1.1 GB is available (SPEEDQA_MEMORY_LIMIT)\n" ||
                huge.err == "speedqa: error: " + fifo.string() + ": a frame takes 12.9 GB, and 1.1 GB is available (SPEEDQA_MEMORY_LIMIT)\n")
        << huge.err;

    // threads: as many as fit, said unless -q, the same scores
    const std::string speed = " --no_prediction --feature speed_chroma --csv -o -";
    const Result all = run(v1() + speed + " --threads 4 -q");
    ASSERT_EQ(all.status, 0) << all.err;
    const Result fewer = run(v1() + speed + " --threads 4", "", limit + "25M");
    EXPECT_EQ(fewer.status, 0);
    EXPECT_EQ(fewer.err, "warning: 2 threads instead of 4: a thread takes 11 MB and 26 MB is available (SPEEDQA_MEMORY_LIMIT)\n");
    EXPECT_EQ(fewer.out, all.out);
    EXPECT_EQ(run(v1() + speed + " --threads 4 -q", "", limit + "25M").err, "");

    // not one thread fits: one line, no output file
    const fs::path out = dir / "no_memory.json";
    const Result no_room = run(v1() + " --no_prediction --feature speed_chroma --json -o " + out.string(), "", limit + "5M");
    EXPECT_EQ(no_room.status, 1);
    EXPECT_EQ(no_room.err, "speedqa: error: out of memory: a thread scoring speed_chroma at this frame size takes 11 MB, and 5 MB "
                           "is available (SPEEDQA_MEMORY_LIMIT)\n");
    EXPECT_FALSE(fs::exists(out));
    const Result bad_limit = run(v1() + speed, "", limit + "12Q");
    EXPECT_EQ(bad_limit.err, "speedqa: error: SPEEDQA_MEMORY_LIMIT=12Q is not a size (expected bytes, or a number with K, M, G or T)\n");
}

// The CPU engine reads a file's frames with pread or through the mapping
// (SPEEDQA_INPUT=read, map; auto, the default, times both): the same scores;
// another value is one line.
TEST_F(Cli, FramesReadOrMappedGiveTheSameScores) {
    expect_same_scores_under(v1() + " --feature motion=motion_five_frame_window=true --feature speed_temporal --feature "
                                    "cambi=full_ref=true --threads 2 --csv -o -",
                             "SPEEDQA_INPUT", {"read", "map", "auto"}, "mmap", "auto, read, map");
}

// The kernels' large scratch on huge pages (the default) or from calloc
// (SPEEDQA_HUGE_PAGES=off): the same scores; another value is one line.
TEST_F(Cli, ScratchOnHugePagesOrNotGivesTheSameScores) {
    // 1080p, where CAMBI's and VIF's largest arrays exceed 2 MiB: a gradient
    // with a little noise, and the same banded
    const int w = 1920, h = 1080;
    std::string ref, dis;
    uint32_t seed = 12345;
    for (int f = 0; f < 2; f++) {
        std::string r(static_cast<size_t>(w * h * 3 / 2), '\x80'), d = r;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                seed = seed * 1664525u + 1013904223u;
                const int v = 16 + (x + 2 * y + 7 * f) * 200 / (w + 2 * h) + static_cast<int>(seed >> 30);
                r[static_cast<size_t>(y * w + x)] = static_cast<char>(v);
                d[static_cast<size_t>(y * w + x)] = static_cast<char>(v / 6 * 6);
            }
        ref += r;
        dis += d;
    }
    write(dir / "hd_ref.yuv", ref);
    write(dir / "hd_dis.yuv", dis);
    expect_same_scores_under(clip("hd", "-w 1920 -h 1080 -p 420 -b 8") +
                                 " --feature cambi=full_ref=true --feature vif --threads 2 --csv -o -",
                             "SPEEDQA_HUGE_PAGES", {"auto", "off"}, "on", "auto, off");
}

// A run killed while it writes its output (here by a file-size limit the
// output exceeds, SIGXFSZ; SIGINT, SIGTERM and SIGHUP are handled alike)
// leaves neither the output nor its hidden temporary.
TEST_F(Cli, KilledWhileWritingLeavesNoFile) {
    const fs::path out_dir = dir / "killed";
    fs::create_directories(out_dir);
    const std::string cmd = "sh -c 'ulimit -f 1; exec " + std::string(SPEEDQA_CLI_PATH) + " " + v1() +
                            " --no_prediction --feature speed_chroma -q --xml -o " + (out_dir / "o.xml").string() + "'";
    const int rc = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(rc));  // (the shell reports the signal as 128 + its number)
    EXPECT_EQ(WEXITSTATUS(rc), 128 + SIGXFSZ);
    EXPECT_TRUE(fs::is_empty(out_dir)) << fs::directory_iterator(out_dir)->path();
}

}  // namespace
}  // namespace speedqa::testing

namespace speedqa::testing {
namespace {

// --jobs: every line's output equals a run of its own; lines that share a
// reference score in one pass; a bad line is reported with its number and
// the others still run (exit 1); -r/-d/-o beside it are refused.
TEST_F(Cli, JobsFileScoresEveryGoodLineAsASingleRunWould) {
    const std::string geometry = " -w 576 -h 324 -p 420 -b 8 --no_prediction --feature speed_chroma --feature speed_temporal --json --precision max";
    const std::string ref = path("v1_ref.yuv"), dis = path("v1_dis.yuv");
    std::filesystem::copy_file(dis, path("v1 dis copy.yuv"), std::filesystem::copy_options::overwrite_existing);
    write(dir / "jobs.txt", "# three good lines, two sharing a reference, and bad ones\n"
                            "\n" + ref + " " + dis + " " + path("j1.json") + "\n" +
                            ref + "\t\"" + path("v1 dis copy.yuv") + "\"  " + path("j2.json") + "\n" +
                            ref + " " + path("missing.yuv") + " " + path("j3.json") + "\n" +
                            dis + " " + ref + " " + path("j4.json") + "\n" +
                            "only two\n" +
                            ref + " " + dis + " " + path("j1.json") + "\n" +
                            ref + " \"" + dis + " " + path("j5.json") + "\n");
    const Result jobs = run("--jobs " + path("jobs.txt") + geometry);
    EXPECT_EQ(jobs.status, 1);
    // the bad lines, each on its own line with its number
    for (const char* m : {"jobs.txt:5: " , "missing.yuv: cannot open", "jobs.txt:7: expected 3 fields", "jobs.txt:8: line 3 already writes",
                          "jobs.txt:9: a quoted field is not closed", "3 lines scored, 4 failed"})
        EXPECT_NE(jobs.err.find(m), std::string::npos) << m << "\n" << jobs.err;
    const Result single = run("-r " + ref + " -d " + dis + geometry + " -o -");
    const Result swapped = run("-r " + dis + " -d " + ref + geometry + " -o -");
    ASSERT_EQ(single.status, 0) << single.err;
    const auto frames_of_file = [&](const char* name) { return parse_json(slurp(dir / name))["frames"]; };
    EXPECT_EQ(frames_of_file("j1.json"), parse_json(single.out)["frames"]);
    EXPECT_EQ(frames_of_file("j2.json"), parse_json(single.out)["frames"]);
    EXPECT_EQ(frames_of_file("j4.json"), parse_json(swapped.out)["frames"]);
    EXPECT_FALSE(std::filesystem::exists(dir / "j3.json"));
    EXPECT_FALSE(std::filesystem::exists(dir / "j5.json"));
    // the command line's files go in the jobs file, not beside it
    const Result both = run("--jobs " + path("jobs.txt") + " -r " + ref + geometry);
    EXPECT_EQ(both.status, 1);
    EXPECT_NE(both.err.find("no -r, -d or -o beside it"), std::string::npos) << both.err;
    const Result none = run("--jobs " + path("no-such-jobs.txt") + geometry);
    EXPECT_EQ(none.status, 1);
    EXPECT_NE(none.err.find("cannot read it"), std::string::npos) << none.err;
    EXPECT_EQ(std::count(none.err.begin(), none.err.end(), '\n'), 1) << none.err;
    const Result neither = run(geometry);
    EXPECT_NE(neither.err.find("--reference is required"), std::string::npos) << neither.err;
}

}  // namespace
}  // namespace speedqa::testing

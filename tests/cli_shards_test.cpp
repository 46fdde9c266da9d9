// --frame_range and `speedqa merge`: a clip scored in shards, cut at random
// points, merges into the file one run of the whole clip writes, byte for
// byte in every layout (the fps line, a timing, aside), on every golden clip,
// with the features whose outputs reach across frames (motion's five-frame
// window and moving average, motion2's next frame, speed_temporal) and a
// whole model; and shards that do not cover the clip once are refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <sstream>

#include "support/cli_fixture.hpp"
#include "support/run_feature.hpp"
#include "support/testdata.hpp"

namespace speedqa::testing {
namespace {

using Result = CommandResult;

class CliShards : public CliTest {
protected:
    static void SetUpTestSuite() { make_dir("speedqa_cli_shards_test"); }
};

// The file without its fps line (XML's <fyi fps=.../>, JSON's "fps": ...).
std::string without_fps(const std::string& text) {
    std::istringstream in(text);
    std::string out, line;
    while (std::getline(in, line))
        if (line.find("fps") == std::string::npos) out += line + "\n";
    return out;
}

std::string slurp_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

TEST_F(CliShards, RandomCutsOfEveryGoldenClipMergeToTheSingleRunsFileInEveryLayout) {
    const std::string root = shared_testdata_dir();
    if (root.empty()) {
        if (in_ci()) FAIL() << "CI=true but the shared test data is absent";
        GTEST_SKIP() << "the shared test data is absent: shards not checked on the golden clips";
    }
    const auto data = TestData::open(root);
    ASSERT_TRUE(data);
    std::mt19937 rng(20261204);
    long long files = 0, shards = 0;
    size_t clips = 0;
    for (const ClipInfo& c : data->clips()) {
        // the sanitizer build, which looks for memory errors, takes every third clip
        if (sanitizer_build() && clips++ % 3) continue;
        const std::string ref = path(c.name + "_ref.yuv"), dis = path(c.name + "_dis.yuv");
        write(ref, load_xz(c.ref_xz));
        write(dis, load_xz(c.dis_xz));
        const VideoFormat& f = c.format;
        std::string args = "-r " + ref + " -d " + dis + " -w " + std::to_string(f.width) + " -h " + std::to_string(f.height) +
                           " -p " + pixel_format_name(f.pix) + " -b " + std::to_string(f.bitdepth) + " -q --threads 2" +
                           " --feature motion=motion_five_frame_window=true:motion_moving_average=true --feature speed_temporal";
        if (std::min(f.width, f.height) >= 216) args += " --feature cambi";  // (libvmaf refuses smaller pictures)
        // two or three cuts, at random, each at least a frame into the clip
        std::vector<int> cuts = {0};
        const int n_cuts = 2 + static_cast<int>(rng() % 2);
        for (int k = 0; k < n_cuts; k++) cuts.push_back(1 + static_cast<int>(rng() % static_cast<unsigned>(c.frames - 1)));
        std::sort(cuts.begin(), cuts.end());
        cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
        std::string shard_list;
        for (size_t i = 0; i < cuts.size(); i++) {
            const std::string range = std::to_string(cuts[i]) + ":" + (i + 1 < cuts.size() ? std::to_string(cuts[i + 1]) : "");
            const std::string shard = path(c.name + "_shard" + std::to_string(i) + ".json");
            const Result r = run(args + " --frame_range " + range + " -o " + shard);
            ASSERT_EQ(r.status, 0) << c.name << " " << range << ": " << r.err;
            shard_list = " " + shard + shard_list;  // (given in reverse: the merge orders them)
            shards++;
        }
        for (const char* layout : {"xml", "json", "csv", "sub"}) {
            const std::string single = path(c.name + "_single." + layout), merged = path(c.name + "_merged." + layout);
            const Result s = run(args + " --" + layout + " -o " + single);
            ASSERT_EQ(s.status, 0) << s.err;
            const Result m = run("merge" + shard_list + " --" + layout + " -o " + merged);
            ASSERT_EQ(m.status, 0) << m.err;
            const std::string a = without_fps(slurp_file(single)), b = without_fps(slurp_file(merged));
            if (a != b) {
                // the first line that differs, not the whole files
                std::istringstream sa(a), sb(b);
                std::string la, lb;
                int line = 1;
                while (std::getline(sa, la) && std::getline(sb, lb) && la == lb) line++;
                std::string cut_text;
                for (int x : cuts) cut_text += " " + std::to_string(x);
                ADD_FAILURE() << c.name << " " << layout << ", cuts" << cut_text << ": line " << line << " differs:\n  single "
                              << la.substr(0, 400) << "\n  merged " << lb.substr(0, 400);
            }
            files++;
        }
    }
    std::printf("[shards] %lld merged files (from %lld shards at random cuts) byte for byte the single run's\n", files, shards);
    EXPECT_GT(files, 0);
}

// Shards that leave a gap, overlap, stop before the clip's end or are not
// shards are refused in one line naming the file.
TEST_F(CliShards, ShardsThatDoNotCoverTheClipOnceAreRefused) {
    const auto data = TestData::open(repo_testdata_dir());
    ASSERT_TRUE(data);
    const ClipInfo* c = data->clip("v1");
    ASSERT_NE(c, nullptr);
    write(path("r.yuv"), load_xz(c->ref_xz));
    write(path("d.yuv"), load_xz(c->dis_xz));
    const std::string args = "-r " + path("r.yuv") + " -d " + path("d.yuv") + " -w 576 -h 324 -p 420 -b 8 -q";
    for (const char* r : {"0:3", "3:6", "6:", "2:5"})
        ASSERT_EQ(run(args + " --frame_range " + std::string(r) + " -o " + path(std::string("s") + r[0] + ".json")).status, 0);
    const struct {
        std::string shards, message;
    } bad[] = {
        {"s0.json s6.json", "frames 3:6 are in no shard"},
        {"s0.json s3.json", "before the clip's end"},
        {"s0.json s2.json s3.json s6.json", "overlap"},
        {"s3.json s6.json", "start at frame 3"},
        {"s0.json " + path("r.yuv"), "not JSON"},
    };
    for (const auto& b : bad) {
        std::string list;
        std::istringstream in(b.shards);
        for (std::string s; in >> s;) list += " " + (s[0] == '/' ? s : path(s));
        const Result m = run("merge" + list + " -o " + path("x.xml"));
        EXPECT_EQ(m.status, 1) << b.shards;
        EXPECT_NE(m.err.find(b.message), std::string::npos) << b.shards << ": " << m.err;
        EXPECT_EQ(std::count(m.err.begin(), m.err.end(), '\n'), 1) << m.err;
        EXPECT_FALSE(std::filesystem::exists(path("x.xml")));
    }
    // the layout is chosen at the merge; a shard needs somewhere to go
    EXPECT_NE(run(args + " --frame_range 0:3 --csv -o " + path("y.csv")).err.find("give the layout"), std::string::npos);
    EXPECT_NE(run(args + " --frame_range 0:3").err.find("needs -o"), std::string::npos);
    EXPECT_NE(run(args + " --frame_range 5:5 -o " + path("z.json")).err.find("holds no frame"), std::string::npos);
    EXPECT_NE(run(args + " --frame_range 40: -o " + path("z.json")).err.find("has only"), std::string::npos);
}

}  // namespace
}  // namespace speedqa::testing

namespace speedqa::testing {
namespace {

// --gpus N: the clip split into N contiguous ranges scored side by side (on
// the CPU engine here; on GPUs where there are: tools/device_check.sh)
// writes the single run's file, whatever N, in every layout but the fps line.
TEST_F(CliShards, GpusSplitWritesTheSingleRunsFile) {
    const auto data = TestData::open(repo_testdata_dir());
    ASSERT_TRUE(data);
    long long files = 0;
    for (const char* name : {"v1", "v4"}) {
        const ClipInfo* c = data->clip(name);
        ASSERT_NE(c, nullptr);
        const std::string ref = path(std::string(name) + "_gref.yuv"), dis = path(std::string(name) + "_gdis.yuv");
        write(ref, load_xz(c->ref_xz));
        write(dis, load_xz(c->dis_xz));
        const VideoFormat& f = c->format;
        const std::string args = "-r " + ref + " -d " + dis + " -w " + std::to_string(f.width) + " -h " +
                                 std::to_string(f.height) + " -p " + pixel_format_name(f.pix) + " -b " +
                                 std::to_string(f.bitdepth) + " -q --feature motion=motion_five_frame_window=true:"
                                 "motion_moving_average=true --feature speed_temporal --feature cambi";
        for (const char* layout : {"json", "xml"}) {
            const std::string single = path(std::string(name) + "_one." + layout);
            ASSERT_EQ(run(args + " --" + layout + " -o " + single).status, 0);
            for (int n : {2, 3, 7}) {
                const std::string split = path(std::string(name) + "_split." + layout);
                const Result r = run(args + " --backend cpu --gpus " + std::to_string(n) + " --" + layout + " -o " + split);
                ASSERT_EQ(r.status, 0) << r.err;
                EXPECT_EQ(without_fps(slurp_file(single)), without_fps(slurp_file(split))) << name << " --gpus " << n;
                files++;
            }
        }
    }
    std::printf("[shards] --gpus: %lld split runs wrote the single run's file\n", files);
    // what it cannot split
    const Result both = run("-r " + path("v1_gref.yuv") + " -d " + path("v1_gdis.yuv") +
                            " -w 576 -h 324 -p 420 -b 8 --gpus 2 --frame_range 0:3 -o " + path("x.json"));
    EXPECT_NE(both.err.find("not with --frame_range"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace speedqa::testing

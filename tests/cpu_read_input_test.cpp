// The CPU engine's reading of frames from their file (cpu/staged_input.hpp):
// pictures that name a file (Picture::fd) are read by the workers with pread.
// Here each such picture's memory holds the other clip's frame (the
// distorted for the reference, and back), its file the true one: the raw
// values must equal, bit for bit, those of the engine given the true frames
// in memory, for every feature and the history it reads, batch sizes and
// thread counts; a value read from the memory instead of the file, or a
// previous frame from the wrong slot, differs. Also: the input probe's
// choice, and the truncation guard its mapping takes.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/cpu_flags.hpp"
#include "core/error.hpp"
#include "core/truncation_guard.hpp"
#include "cpu/cpu_engine.hpp"
#include "features/registry.hpp"
#include "support/run_engine.hpp"
#include "support/run_feature.hpp"
#include "support/testdata.hpp"

namespace speedqa::testing {
namespace {

namespace fs = std::filesystem;

// `bytes` in a file of its own, open for reading (removed at the end).
class ClipFile {
public:
    explicit ClipFile(const std::vector<uint8_t>& bytes, size_t keep = SIZE_MAX) {
        path_ = fs::temp_directory_path() / ("speedqa-read-input-" + std::to_string(::getpid()) + "-" +
                                             std::to_string(counter()++) + ".yuv");
        FILE* f = std::fopen(path_.c_str(), "wb");
        if (!f) throw std::runtime_error("cannot write " + path_.string());
        const size_t n = std::min(keep, bytes.size());
        const bool ok = std::fwrite(bytes.data(), 1, n, f) == n;
        std::fclose(f);
        if (!ok) throw std::runtime_error("cannot write " + path_.string());
        fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd_ < 0) throw std::runtime_error("cannot open " + path_.string());
    }
    ~ClipFile() {
        ::close(fd_);
        fs::remove(path_);
    }
    int fd() const { return fd_; }
    const fs::path& path() const { return path_; }

private:
    static int& counter() {
        static int n = 0;
        return n;
    }
    fs::path path_;
    int fd_ = -1;
};

// The pictures of the frames in `file` (laid out as `truth`), their memory
// being `decoy`'s frames; every `memory_every`-th frame (0: none) is given
// without its file, in memory, true.
std::vector<Picture> in_file(const VideoFormat& f, const std::vector<uint8_t>& truth, const std::vector<uint8_t>& decoy,
                             const ClipFile& file, int memory_every = 0) {
    std::vector<Picture> pics = frames_of(f, decoy);
    const std::vector<Picture> true_pics = frames_of(f, truth);
    for (size_t k = 0; k < pics.size(); k++) {
        if (memory_every && k % static_cast<size_t>(memory_every) == 0) {
            pics[k] = true_pics[k];
            continue;
        }
        pics[k].fd = file.fd();
        for (int p = 0; p < f.plane_count(); p++)
            pics[k].file_offset[p] = static_cast<long long>(true_pics[k].plane[p] - truth.data());
    }
    return pics;
}

struct Clip {
    const ClipInfo* info;
    std::vector<uint8_t> ref, dis;
};

Clip clip(const char* name) {
    const std::string root = shared_testdata_dir();
    static std::optional<TestData> data = TestData::open(root);
    if (!data || !data->clip(name)) return {nullptr, {}, {}};
    const ClipInfo* c = data->clip(name);
    return {c, load_xz(c->ref_xz), load_xz(c->dis_xz)};
}

#define REQUIRE_CLIP(c)                                                                              \
    if (!(c).info) {                                                                                 \
        if (in_ci()) FAIL() << "CI=true but ../shared/testdata is absent";                            \
        GTEST_SKIP() << "../shared/testdata is absent: the engine's file reading was not checked"; \
    }

void expect_identical(const std::vector<std::vector<double>>& want, const std::vector<std::vector<double>>& got,
                      const std::string& what) {
    ASSERT_EQ(want.size(), got.size()) << what;
    for (size_t i = 0; i < want.size(); i++)
        for (size_t m = 0; m < want[i].size(); m++)
            EXPECT_EQ(std::memcmp(&want[i][m], &got[i][m], sizeof(double)), 0)
                << what << ": frame " << i << " value " << m << ": " << got[i][m] << ", in memory " << want[i][m];
}

const std::vector<std::vector<std::string>> kFeatureSets = {
    {"adm", "vif", "motion", "cambi=full_ref=true", "speed_chroma", "speed_temporal"},
    {"motion=motion_five_frame_window=true", "speed_temporal=speed_use_ref_diff=true"},
    {"motion=motion_force_zero=true", "speed_chroma"},
    {"cambi"},
};

void check_clip(const char* name, const std::vector<int>& threads, const std::vector<int>& batches) {
    const Clip c = clip(name);
    ASSERT_TRUE(c.info);
    const VideoFormat& f = c.info->format;
    const ClipFile ref_file(c.ref), dis_file(c.dis);
    const std::vector<Picture> ref = frames_of(f, c.ref), dis = frames_of(f, c.dis);
    for (const auto& args : kFeatureSets) {
        const FeatureSet fs = feature_set(all_features(), args, f);
        cpu::CpuEngine memory(f, fs.list, CpuTarget{host_isa(), Dispatch::scalar}, 2);
        const auto want = run_clip(memory, ref, dis, fs.raw_stride, 4);
        for (int every : {0, 3}) {
            const std::vector<Picture> ref_f = in_file(f, c.ref, c.dis, ref_file, every);
            const std::vector<Picture> dis_f = in_file(f, c.dis, c.ref, dis_file, every);
            for (int t : threads)
                for (int b : batches) {
                    cpu::CpuEngine engine(f, fs.list, CpuTarget{host_isa(), Dispatch::scalar}, t, cpu::InputMode::read);
                    std::string what = std::string(name) + " " + args[0] + (args.size() > 1 ? ", ..." : "") +
                                       ": threads " + std::to_string(t) + ", batches of " + std::to_string(b) +
                                       (every ? ", every third frame in memory" : "");
                    expect_identical(want, run_clip(engine, ref_f, dis_f, fs.raw_stride, b), what);
                }
        }
    }
}

TEST(CpuReadInput, EveryFeatureReadFromTheFileAsFromMemory) {
    REQUIRE_CLIP(clip("v1"));
    // v1: 24 frames, 4:2:0 8-bit
    check_clip("v1", {1, 2, 3}, {1, 5, 24});
}

TEST(CpuReadInput, WideSamplesAndOtherLayouts) {
    REQUIRE_CLIP(clip("v4"));
    check_clip("v4", {2}, {3, 8});  // 4:2:2 10-bit
    check_clip("v3", {2}, {3});     // 4:4:4 8-bit
    check_clip("v9", {3}, {8});     // 4:2:0 16-bit
}

// A file cut short after it was opened: one line naming the frame, no crash.
TEST(CpuReadInput, AFileCutShortIsAnErrorOfOneLine) {
    const Clip c = clip("v1");
    REQUIRE_CLIP(c);
    const VideoFormat& f = c.info->format;
    const ClipFile full(c.dis), cut(c.ref, f.frame_bytes() * 5 + 100);
    const std::vector<Picture> ref = in_file(f, c.ref, c.dis, cut), dis = in_file(f, c.dis, c.ref, full);
    const FeatureSet fs = feature_set(all_features(), {"adm"}, f);
    cpu::CpuEngine engine(f, fs.list, CpuTarget{host_isa(), Dispatch::scalar}, 1, cpu::InputMode::read);
    try {
        run_clip(engine, ref, dis, fs.raw_stride, 8);
        FAIL() << "a file cut short was read";
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_EQ(msg, "frame 5: its file ended before it (the file was cut short while it was scored)");
    }
}

// SPEEDQA_INPUT=auto: the engine times both ways on the first picture in a
// file and takes the cheaper; the values are those of the frames in memory
// whichever it took (the pictures here hold their true frame in memory and
// in the file), and describe() says which and why.
TEST(CpuReadInput, TheAutomaticChoiceGivesTheSameValuesAndSaysWhy) {
    const Clip c = clip("v1");
    REQUIRE_CLIP(c);
    const VideoFormat& f = c.info->format;
    const ClipFile ref_file(c.ref), dis_file(c.dis);
    const std::vector<Picture> ref = frames_of(f, c.ref), dis = frames_of(f, c.dis);
    const std::vector<Picture> ref_f = in_file(f, c.ref, c.ref, ref_file), dis_f = in_file(f, c.dis, c.dis, dis_file);
    const FeatureSet fs = feature_set(all_features(), kFeatureSets[0], f);
    cpu::CpuEngine memory(f, fs.list, CpuTarget{host_isa(), Dispatch::scalar}, 2, cpu::InputMode::map);
    cpu::CpuEngine automatic(f, fs.list, CpuTarget{host_isa(), Dispatch::scalar}, 2, cpu::InputMode::automatic);
    expect_identical(run_clip(memory, ref, dis, fs.raw_stride, 5), run_clip(automatic, ref_f, dis_f, fs.raw_stride, 5),
                     "automatic");
    const std::string d = automatic.describe();
    EXPECT_TRUE(d.find(", frames in a file read with pread (a page ") != std::string::npos ||
                d.find(", frames in a file read through their mapping (a page ") != std::string::npos)
        << d;
    EXPECT_EQ(memory.describe().find("frames in a file"), std::string::npos) << memory.describe();
}

// The probe on whole pages inside the range it is given; a range without a
// whole page, or no file, times nothing and chooses read.
TEST(CpuReadInput, TheProbeTimesWholePagesOfItsRange) {
    const long page = ::sysconf(_SC_PAGESIZE);
    std::vector<uint8_t> bytes(static_cast<size_t>(page) * 20, 7);
    const ClipFile file(bytes);
    const cpu::InputProbe whole = cpu::probe_input(file.fd(), 0, bytes.size());
    EXPECT_EQ(whole.pages, 20);
    EXPECT_GT(whole.map_ns_per_page, 0);
    EXPECT_GT(whole.read_ns_per_page, 0);
    EXPECT_EQ(cpu::probe_input(file.fd(), 100, static_cast<size_t>(page) * 10).pages, 9);  // pages 1..9
    const cpu::InputProbe none = cpu::probe_input(file.fd(), 100, static_cast<size_t>(page));
    EXPECT_EQ(none.pages, 0);
    EXPECT_TRUE(none.read());
    EXPECT_EQ(cpu::probe_input(-1, 0, bytes.size()).pages, 0);
    // past the end of the file: the read comes short, nothing is timed
    EXPECT_EQ(cpu::probe_input(file.fd(), 0, bytes.size() * 2).pages, 0);
}

// The choice from the probe's costs: map up to three times a read page's
// cost, read above it, and read where nothing was timed. The measured
// machines: a Xeon microVM (about 430 against 260 ns: maps), a Zen 5 in a
// nested VM (2,100 against 300: reads).
TEST(CpuReadInput, TheProbeReadsOnlyWhereAMappedPageCostsOverThreeReadOnes) {
    const auto probe = [](double map, double read) { return cpu::InputProbe{64, map, read}; };
    EXPECT_FALSE(probe(430, 260).read());
    EXPECT_TRUE(probe(2100, 300).read());
    EXPECT_FALSE(probe(300, 100).read());
    EXPECT_TRUE(probe(301, 100).read());
    EXPECT_FALSE(probe(100, 200).read());
    EXPECT_TRUE(cpu::InputProbe{}.read());
}

// A guarded mapping of a file that gets shorter faults into the one line
// (status 1); once unguarded, the same fault is SIGBUS again. (The
// input probe maps a file by itself and guards it so.)
TEST(TruncationGuard, AGuardedMappingCutShortIsOneLineAndAnUnguardedOneSigbus) {
    const size_t bytes = 64 * 1024;
    const ClipFile file(std::vector<uint8_t>(bytes, 9));
    void* m = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, file.fd(), 0);
    ASSERT_NE(m, MAP_FAILED);
    guard_mapping(m, bytes);
    if (!guarding_truncation()) {
        unguard_mapping(m);
        ::munmap(m, bytes);
        GTEST_SKIP() << "SIGBUS has a handler of its own in this process (AddressSanitizer's): the guard is not installed";
    }
    ASSERT_EQ(::truncate(file.path().c_str(), 4096), 0);
    const auto* past_the_end = static_cast<const uint8_t*>(m) + 8192;
    EXPECT_EXIT({ [[maybe_unused]] volatile uint8_t v = *past_the_end; std::exit(0); }, ::testing::ExitedWithCode(1),
                "^speedqa: error: an input file got shorter while it was read \\(cut or rewritten by another program\\); "
                "no scores were written\n$");
    unguard_mapping(m);
    EXPECT_EXIT({ [[maybe_unused]] volatile uint8_t v = *past_the_end; std::exit(0); }, ::testing::KilledBySignal(SIGBUS), "");
    ::munmap(m, bytes);
}

}  // namespace
}  // namespace speedqa::testing

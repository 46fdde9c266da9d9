// The host twin of ADM's device part: the stages of cuda/stages.hpp run on
// the host (HostGrid runs each stage's lambda at every point, as CudaGrid
// launches it on the GPU) over batches of frames laid out as the CUDA engine
// stages them (HostInput), then the part's host tail; every raw value must
// be the CPU kernel's (C reference, each libvmaf dispatch), bit for bit:
// every golden clip (the 80x80 one included: libvmaf's SIMD values there are
// a reference defect, ours are defined) with every ADM option set of the
// golden data and of the models, and synthetic video where libvmaf's edge
// cases bite (stale taps, SIMD overreads, tiny and odd sizes, 8-16 bits).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/grid.hpp"
#include "features/adm/adm.hpp"
#include "features/adm/adm_feature.hpp"
#include "features/adm/cuda/stages.hpp"
#include "features/adm/kernels.hpp"
#include "support/host_input.hpp"
#include "support/json.hpp"
#include "support/model_golden.hpp"
#include "support/run_feature.hpp"
#include "support/testdata.hpp"

namespace speedqa::testing {
namespace {

namespace fs = std::filesystem;

struct Tally {
    long long raw = 0, raw_identical = 0, sums = 0, sums_identical = 0, kernel_checks = 0, runs = 0, failures_shown = 0;
    void print(const char* what) const {
        std::printf("[device-twin] adm: %s: %lld runs, %lld raw values and %lld integer sums (%lld frames x %d) compared\n",
                    what, runs, raw, sums, sums / adm::device::kTotals, adm::device::kTotals);
        std::printf("[device-twin] adm: %lld values compared, %lld identical\n", raw + sums, raw_identical + sums_identical);
    }
    bool all_identical() const { return raw == raw_identical && sums == sums_identical; }
};

bool same_bits(double a, double b) { return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b); }

// The CPU driver's values of each frame (what the feature's CPU kernel
// extracts: score_frame with the C row functions, then assemble) and its
// integer sums, in the device's totals layout.
struct CpuFrames {
    std::vector<std::vector<double>> raw;
    std::vector<std::vector<long long>> totals;
};
CpuFrames cpu_frames(const adm::Plan& plan, int raw_count, const std::vector<Picture>& ref, const std::vector<Picture>& dis) {
    CpuFrames out;
    const auto scratch = adm::make_frame_scratch(plan);
    for (size_t i = 0; i < ref.size(); i++) {
        adm::ScaleSums sums;
        adm::ScaleTotals t[4];
        adm::score_frame(plan, adm::row_kernels_c(), *scratch, ref[i], dis[i], sums, t);
        std::vector<double> raw(static_cast<size_t>(raw_count));
        adm::assemble(plan, sums, raw.data());
        out.raw.push_back(std::move(raw));
        std::vector<long long> tot(adm::device::kTotals);
        for (int s = 0; s < 4; s++)
            for (int k = 0; k < 3; k++) {
                tot[static_cast<size_t>(s * 9 + k)] = static_cast<long long>(t[s].den[k]);
                tot[static_cast<size_t>(s * 9 + 3 + k)] = t[s].dlm[k];
                tot[static_cast<size_t>(s * 9 + 6 + k)] = t[s].aim[k];
            }
        out.totals.push_back(std::move(tot));
    }
    return out;
}

// Frames [0, frames) of ref/dis through the device stages on the host, in
// batches of `batch` frames, `chunk` frames a pass through the scratch,
// against the CPU driver (C row functions) of the dispatch: each frame's
// integer sums and raw values. check_kernel: also that the feature's CPU
// kernel (make_cpu_kernel, Isa::c) gives the CPU driver's raw values.
void compare(const Feature& feature, const VideoFormat& format, Dispatch dispatch, const std::vector<Picture>& ref,
             const std::vector<Picture>& dis, int batch, int chunk, bool check_kernel, Tally& t, const std::string& what) {
    const auto& f = dynamic_cast<const AdmFeature&>(feature);
    const adm::Plan plan = adm::make_plan(format, f.adm_options(), dispatch);
    adm::device::DevicePlan d = adm::device::make_device_plan(plan, plan.div_lookup.data());
    d.chunk = chunk;
    std::vector<std::vector<uint64_t>> memory;
    const adm::device::Buffers b = adm::device::make_buffers(d, batch, [&](size_t bytes) -> void* {
        memory.emplace_back((bytes + 7) / 8, uint64_t{0x5a5a5a5a5a5a5a5a});   // not zero: stages must write what they read
        return memory.back().data();
    });
    HostInput input(format, {&feature});
    const int frames = static_cast<int>(ref.size());
    const int raw_count = feature.raw_count();
    const CpuFrames want = cpu_frames(plan, raw_count, ref, dis);
    if (check_kernel) {
        const auto kernel = run_feature(feature, CpuTarget{Isa::c, dispatch}, ref, dis);
        for (int i = 0; i < frames; i++)
            for (int m = 0; m < raw_count; m++) {
                t.kernel_checks++;
                EXPECT_TRUE(same_bits(kernel[static_cast<size_t>(i)][static_cast<size_t>(m)],
                                      want.raw[static_cast<size_t>(i)][static_cast<size_t>(m)]))
                    << what << ": the CPU kernel and the CPU driver differ";
            }
    }
    std::vector<double> raw(static_cast<size_t>(raw_count));
    t.runs++;
    for (int first = 0; first < frames; first += batch) {
        const int count = std::min(batch, frames - first);
        input.fill(ref, dis, first, count);
        adm::device::launch_stages(HostGrid{}, d, b, input.layout(), input.data(), count, [](const char*) {});
        for (int k = 0; k < count; k++) {
            const size_t frame = static_cast<size_t>(first + k);
            const long long* totals = b.totals + static_cast<size_t>(k) * adm::device::kTotals;
            for (int y = 0; y < adm::device::kTotals; y++) {
                t.sums++;
                if (totals[y] == want.totals[frame][static_cast<size_t>(y)])
                    t.sums_identical++;
                else if (t.failures_shown++ < 20)
                    ADD_FAILURE() << what << " " << dispatch_name(dispatch) << " frame " << frame << ": scale " << y / 9
                                  << (y % 9 < 3 ? " den" : (y % 9 < 6 ? " dlm" : " aim")) << " orientation " << y % 3
                                  << ": device " << totals[y] << ", CPU " << want.totals[frame][static_cast<size_t>(y)];
            }
            adm::device::frame_raw(plan, totals, raw.data());
            for (int m = 0; m < raw_count; m++) {
                const double have = raw[static_cast<size_t>(m)], w = want.raw[frame][static_cast<size_t>(m)];
                t.raw++;
                if (same_bits(have, w))
                    t.raw_identical++;
                else if (t.failures_shown++ < 20)
                    ADD_FAILURE() << what << " " << dispatch_name(dispatch) << " frame " << frame << " "
                                  << feature.outputs()[static_cast<size_t>(m)].name << ": device " << std::hexfloat << have
                                  << ", CPU " << w << std::defaultfloat << " (" << have << " vs " << w << ")";
            }
        }
    }
}

constexpr Dispatch kDispatches[] = {Dispatch::scalar, Dispatch::avx2, Dispatch::avx512};

// Every ADM option set the golden data and the models have, as --feature text.
std::vector<std::string> option_sets(const std::string& root) {
    std::vector<std::string> sets = {"adm"};
    std::ifstream in(fs::path(root) / "models" / "feature_optionsets.json");
    if (in) {
        const nlohmann::ordered_json j = parse_ordered_json(in);
        for (auto it = j.begin(); it != j.end(); ++it)
            if (it.key().rfind("adm_", 0) == 0) sets.push_back(it.value().get<std::string>());
    }
    std::set<std::string> seen(sets.begin(), sets.end());
    for (const fs::path& dir : {fs::path(root) / "models", fs::path(root).parent_path() / "models"}) {
        if (!fs::is_directory(dir)) continue;
        std::vector<fs::path> models;
        for (const auto& e : fs::directory_iterator(dir))
            if (e.path().extension() == ".json" && e.path().filename().string().rfind("vmaf", 0) == 0) models.push_back(e.path());
        std::sort(models.begin(), models.end());
        for (const fs::path& m : models) {
            const std::string arg = model_feature_arg(m.string(), "_integer_feature_adm", "adm");
            if (!arg.empty() && seen.insert(arg).second) sets.push_back(arg);
        }
    }
    return sets;
}

TEST(AdmDeviceTwin, GoldenClipsEveryOptionSetAndDispatch) {
    const std::string root = shared_testdata_dir();
    const auto data = TestData::open(root);
    if (!data) {
        if (in_ci()) FAIL() << "the shared test data is absent (set SPEEDQA_SHARED_TESTDATA)";
        GTEST_SKIP() << "the shared test data is absent: no value was checked";
    }
    const std::vector<std::string> sets = option_sets(root);
    Tally t;
    std::set<std::string> canonical;
    for (const ClipInfo& clip : data->clips()) {
        const auto ref_all = clip_pictures(clip, clip.ref_xz), dis_all = clip_pictures(clip, clip.dis_xz);
        for (size_t o = 0; o < sets.size(); o++) {
            const auto feature = feature_from_arg({&adm_feature()}, sets[o], clip.format);
            canonical.insert(feature->canonical());
            // The default options on every frame, in batches of 3 frames
            // that go through the scratch 2 at a time; the other sets on
            // the first 3 frames (one batch; each frame runs the same code
            // on other samples), 1080p on its first.
            const size_t frames = golden_frames(o == 0 ? ref_all.size() : (clip.format.width > 1000 ? 1 : 3));
            const std::vector<Picture> ref(ref_all.begin(), ref_all.begin() + static_cast<long>(frames));
            const std::vector<Picture> dis(dis_all.begin(), dis_all.begin() + static_cast<long>(frames));
            for (Dispatch d : kDispatches)
                compare(*feature, clip.format, d, ref, dis, 3, 2, o == 0, t, clip.name + " " + sets[o]);
        }
    }
    std::printf("[device-twin] adm: golden clips: %zu clips x %zu option sets (%zu distinct) x 3 dispatches; "
                "%lld raw values of the CPU kernel equal the CPU driver's\n",
                data->clips().size(), sets.size(), canonical.size(), t.kernel_checks);
    t.print("golden clips");
    print_golden_frames_note("adm device twin");
    EXPECT_GT(t.raw, 0);
    EXPECT_EQ(canonical.size(), sets.size());
    EXPECT_TRUE(t.all_identical());
}

// A reference with smooth structure, edges and noise, and a distorted
// picture that is, band by band, the same, noisier, sharpened (an
// enhancement: the gain limit's path), blurred, inverted, extreme (0 or the
// maximum) or unrelated.
std::vector<uint8_t> synthetic_clip(const VideoFormat& f, int frames, bool distorted, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<uint8_t> data(f.frame_bytes() * static_cast<size_t>(frames));
    const int maxv = (1 << f.bitdepth) - 1;
    const auto base = [&](int x, int y, int t) {
        double v = 0.5 + 0.3 * std::sin(0.11 * x + 0.4 * t) * std::cos(0.09 * y - 0.3 * t);
        if (((x / 7) + (y / 5) + t) % 4 == 0) v += 0.25;   // edges
        return v;
    };
    uint8_t* p = data.data();
    const int bytes = f.bytes_per_sample();
    const auto put = [&](int sample) {   // little endian (x86)
        const uint16_t v = static_cast<uint16_t>(sample);
        std::memcpy(p, &v, static_cast<size_t>(bytes));
        p += bytes;
    };
    for (int t = 0; t < frames; t++)
        for (int pl = 0; pl < f.plane_count(); pl++) {
            const int w = f.stored_w(pl), h = f.stored_h(pl);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    double v = base(x, y, t) + 0.05 * (u(rng) - 0.5);
                    if (distorted) {
                        switch ((y * 7 / std::max(1, h) + t) % 7) {
                        case 0: break;                                                   // the same (but the noise)
                        case 1: v += 0.1 * (u(rng) - 0.5); break;                        // noisier
                        case 2: v = 0.5 + 1.8 * (base(x, y, t) - 0.5); break;           // sharpened
                        case 3: v = 0.5 * (base(x, y, t) + base(x + 1, y + 1, t)); break;  // blurred
                        case 4: v = 1.0 - v; break;                                      // inverted
                        case 5: v = ((x + y + t) % 2) ? 1.0 : 0.0; break;                // extreme
                        default: v = u(rng); break;                                      // unrelated
                        }
                    }
                    put(std::clamp(static_cast<int>(v * maxv), 0, maxv));
                }
        }
    return data;
}

std::vector<Picture> pictures(const VideoFormat& f, const std::vector<uint8_t>& bytes, int frames) {
    std::vector<Picture> out;
    for (int i = 0; i < frames; i++) out.push_back(picture_in_frame(f, bytes.data() + f.frame_bytes() * static_cast<size_t>(i)));
    return out;
}

TEST(AdmDeviceTwin, SyntheticEdgeCases) {
    const std::string root = shared_testdata_dir();
    std::vector<std::string> sets = root.empty() ? std::vector<std::string>{"adm"} : option_sets(root);
    // options the golden sets leave out, where edge cases of the decoupling bite
    sets.push_back("adm=adm_enhn_gain_limit=1.2:adm_csf_mode=1");
    sets.push_back("adm=adm_csf_mode=2:adm_norm_view_dist=5:adm_ref_display_height=720:debug=true");
    sets.push_back("adm=adm_skip_scale0=true:adm_csf_mode=1");
    sets.push_back("adm=adm_skip_aim=true:adm_csf_mode=3:debug=true");
    // (band widths of scales 0-3; where libvmaf's SIMD DWT overreads
    // (AVX2 / AVX-512) and where that reaches stale taps)
    const std::vector<VideoFormat> formats = {
        {258, 146, PixelFormat::yuv420, 8},    // 129 65 33 17: overreads at 1-3 (0 AVX-512), stale taps at 2, 3
        {130, 80, PixelFormat::yuv420, 10},    // 65 33 17 9: overreads everywhere, stale taps at 2, 3
        {33, 33, PixelFormat::yuv420, 8},      // the smallest picture (17 9 5 3): edge rows and columns everywhere
        {35, 41, PixelFormat::yuv400, 12},     // odd sizes (18 9 5 3), stale taps at 2 (AVX2)
        {65, 37, PixelFormat::yuv444, 8},      // 33 17 9 5: AVX-512's 8-bit overread at 0, stale taps
        {66, 50, PixelFormat::yuv420, 10},     // 33 17 9 5: AVX2's 16-bit overread at 0
        {129, 70, PixelFormat::yuv422, 16},    // 65 33 17 9: AVX-512's 16-bit overread at 0
        {97, 45, PixelFormat::yuv420, 10},     // 49 25 13 7: AVX2 at 0-2
        {147, 99, PixelFormat::yuv420, 12},    // 74 37 19 10: AVX2 at 1 only
        {290, 161, PixelFormat::yuv420, 8},    // 145 73 37 19
        {322, 183, PixelFormat::yuv444, 16},   // 161 81 41 21
        {450, 257, PixelFormat::yuv420, 10},   // 225 113 57 29: overreads without stale taps at 2 (57 wide)
    };
    Tally t;
    uint32_t seed = 7;
    for (const VideoFormat& f : formats) {
        const int frames = static_cast<int>(golden_frames(4));   // two batches (one in a sanitizer build)
        const auto rb = synthetic_clip(f, frames, false, seed++), db = synthetic_clip(f, frames, true, seed++);
        const auto ref = pictures(f, rb, frames), dis = pictures(f, db, frames);
        for (const std::string& s : sets) {
            const auto feature = feature_from_arg({&adm_feature()}, s, f);
            for (Dispatch d : kDispatches)
                compare(*feature, f, d, ref, dis, 3, 1 + static_cast<int>(seed % 2), false, t, f.describe() + " " + s);
        }
    }
    std::printf("[device-twin] adm: synthetic: %zu formats x %zu option sets x 3 dispatches\n", formats.size(), sets.size());
    t.print("synthetic");
    EXPECT_GT(t.raw, 0);
    EXPECT_TRUE(t.all_identical());
}

// The plan of every such size says the edge cases it claims to cover.
TEST(AdmDeviceTwin, SyntheticSizesHitTheEdgeCases) {
    const auto feature = feature_from_arg({&adm_feature()}, "adm", {258, 146, PixelFormat::yuv420, 8});
    const auto& f = dynamic_cast<const AdmFeature&>(*feature);
    EXPECT_TRUE(adm::make_plan({258, 146, PixelFormat::yuv420, 8}, f.adm_options(), Dispatch::avx2).s[3].stale_dis_taps);
    EXPECT_TRUE(adm::make_plan({130, 80, PixelFormat::yuv420, 10}, f.adm_options(), Dispatch::avx2).s[2].stale_dis_taps);
    EXPECT_TRUE(adm::make_plan({66, 50, PixelFormat::yuv420, 10}, f.adm_options(), Dispatch::avx2).s[0].dwt_overread);
    EXPECT_TRUE(adm::make_plan({65, 37, PixelFormat::yuv444, 8}, f.adm_options(), Dispatch::avx512).s[0].dwt_overread);
    EXPECT_TRUE(adm::make_plan({129, 70, PixelFormat::yuv422, 16}, f.adm_options(), Dispatch::avx512).s[0].dwt_overread);
    EXPECT_TRUE(adm::make_plan({290, 161, PixelFormat::yuv420, 8}, f.adm_options(), Dispatch::avx512).s[1].dwt_overread);
}

// The device memory a queue takes (what device_bytes says): a chunk of
// frames' scratch within the budget, plus the batch's totals.
TEST(AdmDeviceTwin, DeviceMemoryOfAQueue) {
    for (const VideoFormat& f : {VideoFormat{3840, 2160, PixelFormat::yuv420, 8}, VideoFormat{1920, 1080, PixelFormat::yuv420, 10},
                                 VideoFormat{33, 33, PixelFormat::yuv420, 8}}) {
        const auto feature = feature_from_arg({&adm_feature()}, "adm", f);
        const adm::Plan plan = adm::make_plan(f, dynamic_cast<const AdmFeature&>(*feature).adm_options(), Dispatch::avx2);
        const adm::device::DevicePlan d = adm::device::make_device_plan(plan, nullptr);
        const int batch = 64;
        size_t bytes = 0;
        adm::device::make_buffers(d, batch, [&](size_t b) -> void* {
            bytes += b;
            return nullptr;
        });
        std::printf("[device-twin] adm: %s: %.1f MB scratch a frame, %d frames a chunk, %.1f MB for a batch of %d\n",
                    f.describe().c_str(), static_cast<double>(adm::device::frame_scratch_bytes(d)) / 1e6, d.chunk,
                    static_cast<double>(bytes) / 1e6, batch);
        EXPECT_GE(d.chunk, 1);
        EXPECT_LE(bytes, adm::device::kChunkBudget + adm::device::frame_scratch_bytes(d) +
                             static_cast<size_t>(batch) * adm::device::kTotals * sizeof(long long));
    }
}

}  // namespace
}  // namespace speedqa::testing

// The device engines against libvmaf's golden values and against the CPU
// engine of the same build, as a table of features x engines x dispatches:
//  - every golden run of whole models and features (models/golden) on the
//    device, through the public Scorer, value for value with ==;
//  - every SpEED golden clip and option set, and every feature on synthetic
//    video of every pixel format and bit depth, raw values of the device
//    engine == the CPU engine's, in each of libvmaf's dispatches, from
//    pageable and from page-locked frames.
// A feature whose module has no part for an engine is listed, not hidden.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <set>

#include "api/engine_factory.hpp"
#include "api/engines.hpp"
#include "core/error.hpp"
#include "cuda/cuda_engine.hpp"
#include "features/registry.hpp"
#include "speedqa/speedqa.hpp"
#include "support/golden_runs.hpp"
#include "support/model_golden.hpp"
#include "support/run_engine.hpp"
#include "support/run_feature.hpp"
#include "support/testdata.hpp"

namespace speedqa::testing {
namespace {

bool have_gpu(std::string* why) { return cuda::device_present(why); }

constexpr Dispatch kDispatches[] = {Dispatch::scalar, Dispatch::avx2, Dispatch::avx512};

// The device engines of the registry (those that run features' parts).
std::vector<const EngineDef*> device_engines() {
    std::vector<const EngineDef*> out;
    for (const EngineDef& d : engine_defs())
        if (d.parts) out.push_back(&d);
    return out;
}

// Values compared per (feature, engine, dispatch): the table printed at the end.
struct Table {
    struct Cell {
        long long runs = 0, values = 0, identical = 0;
    };
    std::map<std::tuple<std::string, std::string, std::string>, Cell> cells;
    std::set<std::string> without_parts;  // "feature (engine)"
    long long direct_batches = 0;
    void print(const char* what) const {
        std::printf("[parity] %s: feature x engine x dispatch: runs, values compared, identical\n", what);
        for (const auto& [key, c] : cells)
            std::printf("[parity]   %-16s %-6s %-7s %5lld %9lld %9lld\n", std::get<0>(key).c_str(), std::get<1>(key).c_str(),
                        std::get<2>(key).c_str(), c.runs, c.values, c.identical);
        for (const std::string& f : without_parts) std::printf("[parity]   no device part: %s\n", f.c_str());
        std::printf("[parity]   %lld batches from page-locked frames\n", direct_batches);
    }
    long long values() const {
        long long n = 0;
        for (const auto& [k, c] : cells) n += c.values;
        return n;
    }
};

// Compares the raw values of one run, feature by feature (each its own row
// of the table).
void compare(const FeatureSet& specs, const std::vector<std::vector<double>>& cpu, const std::vector<std::vector<double>>& dev,
             const std::string& engine, Dispatch d, Table& t, const std::string& what) {
    ASSERT_EQ(cpu.size(), dev.size()) << what;
    size_t offset = 0;
    for (const Feature* f : specs.list) {
        Table::Cell& c = t.cells[{f->name(), engine, dispatch_name(d)}];
        c.runs++;
        for (size_t i = 0; i < cpu.size(); i++)
            for (int m = 0; m < f->raw_count(); m++) {
                c.values++;
                const double a = cpu[i][offset + static_cast<size_t>(m)], b = dev[i][offset + static_cast<size_t>(m)];
                if (std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b))) c.identical++;
                else
                    ADD_FAILURE() << what << " " << f->canonical() << " frame " << i << " value " << m << ": cpu "
                                  << std::hexfloat << a << " " << engine << " " << b;
            }
        offset += static_cast<size_t>(f->raw_count());
    }
}

std::vector<std::vector<double>> run_backend(const std::string& backend, const VideoFormat& f, const FeatureSet& specs,
                                             Dispatch order, const std::vector<Picture>& ref,
                                             const std::vector<Picture>& dis, int batch, int engine_batch = 0,
                                             long long* direct_batches = nullptr) {
    EngineChoice c;
    c.backend = backend;
    c.threads = 2;
    c.dispatch = dispatch_name(order);
    c.batch = engine_batch;
    auto engine = make_engine(f, specs.list, c);
    auto out = run_clip(*engine, ref, dis, specs.raw_stride, batch);
    if (const auto* device = dynamic_cast<const cuda::CudaEngine*>(engine.get()); device && direct_batches)
        *direct_batches += device->batches_copied_directly();
    return out;
}

// A copy of frames in page-locked memory, marked so: the CUDA engine then
// copies their rows straight to the device (its other input path).
class PageLockedFrames {
public:
    PageLockedFrames(const VideoFormat& f, const std::vector<uint8_t>& data, int max_frames = -1) {
        if (cudaMallocHost(&mem_, data.size()) != cudaSuccess) throw Error("cudaMallocHost failed");
        std::memcpy(mem_, data.data(), data.size());
        const std::vector<Picture> pageable = frames_of(f, data, max_frames);
        for (const Picture& p : pageable) {
            Picture q = p;
            for (int i = 0; i < 3; i++)
                if (p.plane[i]) q.plane[i] = static_cast<const uint8_t*>(mem_) + (p.plane[i] - data.data());
            q.page_locked = true;
            pictures.push_back(q);
        }
    }
    ~PageLockedFrames() { cudaFreeHost(mem_); }
    PageLockedFrames(const PageLockedFrames&) = delete;
    PageLockedFrames& operator=(const PageLockedFrames&) = delete;
    std::vector<Picture> pictures;

private:
    void* mem_ = nullptr;
};

// The engine copies rows straight from page-locked frames only where the
// copies are large; the tests take that path at every size.
struct DirectCopiesAlways {
    DirectCopiesAlways() { setenv("SPEEDQA_DIRECT_COPIES", "always", 1); }
    ~DirectCopiesAlways() { unsetenv("SPEEDQA_DIRECT_COPIES"); }
};

// The features of `specs` that some device engine has no part for, noted in
// the table; true when every feature has a part for `engine`.
bool has_parts(const FeatureSet& specs, const EngineDef& engine, Table& t) {
    bool all = true;
    for (const Feature* f : specs.list)
        if (!find_engine_part(*f, engine.parts)) {
            t.without_parts.insert(f->name() + " (" + engine.name + ")");
            all = false;
        }
    return all;
}

// One clip in memory with every device engine in every dispatch, pageable
// and page-locked frames, batches of 7 frames handed over, engine batches
// of 3 (so that history crosses both kinds of boundary).
void run_case(const VideoFormat& format, const std::vector<std::string>& features, const std::vector<uint8_t>& ref_bytes,
              const std::vector<uint8_t>& dis_bytes, int frames, Table& t, const std::string& what) {
    const FeatureSet specs = feature_set(all_features(), features, format);
    const auto ref = frames_of(format, ref_bytes, frames), dis = frames_of(format, dis_bytes, frames);
    const PageLockedFrames locked_ref(format, ref_bytes, frames), locked_dis(format, dis_bytes, frames);
    for (const EngineDef* engine : device_engines()) {
        if (!has_parts(specs, *engine, t)) continue;
        for (Dispatch d : kDispatches) {
            const auto cpu = run_backend("cpu", format, specs, d, ref, dis, 5);
            const auto dev = run_backend(engine->name, format, specs, d, ref, dis, 7, 3);
            compare(specs, cpu, dev, engine->name, d, t, what + " " + dispatch_name(d));
            const auto direct = run_backend(engine->name, format, specs, d, locked_ref.pictures, locked_dis.pictures, 7, 3,
                                            &t.direct_batches);
            compare(specs, cpu, direct, engine->name, d, t, what + " " + dispatch_name(d) + " page-locked");
        }
    }
}

TEST(DeviceGolden, EveryModelAndFeatureRunOfEveryDispatch) {
    std::string why;
    if (!have_gpu(&why)) GTEST_SKIP() << "device golden runs not run: " << why;
    const std::string root = shared_testdata_dir();
    const std::vector<ModelGolden> runs = load_model_golden(root);
    if (runs.empty()) GTEST_SKIP() << "the models' golden files are absent (SPEEDQA_SHARED_TESTDATA)";
    const auto data = TestData::open(root);
    ASSERT_TRUE(data);
    for (const EngineDef* engine : device_engines()) {
        GoldenTally tally;
        std::map<std::string, long long> skipped;  // feature without a part -> runs
        for (const ModelGolden& g : runs) {
            const ClipInfo* clip = data->clip(g.clip);
            ASSERT_NE(clip, nullptr) << g.path;
            std::vector<std::string> features, models;
            golden_scorer_args(g, features, models);
            // a run with a feature the engine has no part for is listed, not run
            try {
                ScorerOptions o;
                o.models = models;
                o.backend = engine->name;
                Scorer probe(clip->format, features, o);
            } catch (const Error& e) {
                const std::string msg = e.what();
                const size_t at = msg.find("has no kernels for ");
                if (at != std::string::npos) {
                    skipped[msg.substr(at + 19, msg.find(" yet", at) - at - 19)]++;
                    continue;
                }
                // refused for the format: check_golden_run expects the same refusal
            }
            GoldenRunOptions o;
            o.backend = engine->name;
            o.batch = 3;
            o.push = 5;
            check_golden_run(g, *clip, o, tally);
        }
        std::printf("[device-golden] %s: %zu files: %lld compared (%lld values, %lld identical; %lld pooled values, %lld "
                    "identical), %lld where libvmaf failed refused clearly, %lld reference-defect runs\n",
                    engine->name, runs.size(), tally.files, tally.values, tally.identical, tally.pooled,
                    tally.pooled_identical, tally.errors, tally.defects);
        for (const auto& [kind, n] : tally.values_by_run)
            std::printf("[device-golden]   %-16s %lld values\n", kind.c_str(), n);
        for (const auto& [features, n] : skipped)
            std::printf("[device-golden]   not run (no %s part for %s): %lld files\n", engine->name, features.c_str(), n);
        EXPECT_EQ(tally.values, tally.identical);
        EXPECT_EQ(tally.pooled, tally.pooled_identical);
    }
}

TEST(DeviceParity, EverySpeedGoldenClipOptionSetAndDispatch) {
    std::string why;
    if (!have_gpu(&why)) GTEST_SKIP() << "device parity not run: " << why;
    const DirectCopiesAlways direct_copies;
    auto data = TestData::open(shared_testdata_dir());
    if (!data) data = TestData::open(repo_testdata_dir());
    ASSERT_TRUE(data);
    Table t;
    for (const GoldenFile& g : data->golden()) {
        if (g.dispatch != "scalar") continue;  // one run per clip and option set, all three dispatches in run_case
        const ClipInfo* clip = data->clip(g.clip);
        ASSERT_NE(clip, nullptr);
        run_case(clip->format, {g.cli_feature_arg()}, load_xz(clip->ref_xz), load_xz(clip->dis_xz), clip->frames, t,
                 g.clip + " " + g.cli_feature_arg());
    }
    t.print("SpEED golden clips");
    EXPECT_GT(t.values(), 0);
    EXPECT_GT(t.direct_batches, 0);
}

// Every model feature at its golden option sets on every visible clip
// (CAMBI only where libvmaf scores the clip).
TEST(DeviceParity, EveryModelFeatureOptionSetClipAndDispatch) {
    std::string why;
    if (!have_gpu(&why)) GTEST_SKIP() << "device parity not run: " << why;
    const DirectCopiesAlways direct_copies;
    const std::string root = shared_testdata_dir();
    const auto data = TestData::open(root);
    const std::vector<ModelGolden> runs = load_model_golden(root, "v");
    if (!data || runs.empty()) GTEST_SKIP() << "the models' golden files are absent (SPEEDQA_SHARED_TESTDATA)";
    Table t;
    std::set<std::pair<std::string, std::string>> done;  // (clip, feature argument)
    for (const ModelGolden& g : runs) {
        const std::string arg = g.feature_arg();
        if (arg.empty() || g.exit_status != 0 || !g.reference_defect.empty() || !done.insert({g.clip, arg}).second) continue;
        const ClipInfo* clip = data->clip(g.clip);
        ASSERT_NE(clip, nullptr);
        run_case(clip->format, {arg}, load_xz(clip->ref_xz), load_xz(clip->dis_xz), clip->frames, t, g.clip + " " + arg);
    }
    t.print("model features on the golden clips");
}

// Synthetic video: smooth moving structure plus noise.
std::vector<uint8_t> synthetic_video(const VideoFormat& f, int frames, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<uint8_t> data(f.frame_bytes() * static_cast<size_t>(frames));
    const int maxv = (1 << f.bitdepth) - 1;
    uint8_t* p = data.data();
    for (int t = 0; t < frames; t++)
        for (int pl = 0; pl < f.plane_count(); pl++) {
            const int w = f.stored_w(pl), h = f.stored_h(pl);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    const double v = 0.5 + 0.3 * std::sin(0.05 * x + 0.3 * t + pl) * std::cos(0.07 * y - 0.2 * t) +
                                     0.15 * (u(rng) - 0.5);
                    const int s = std::clamp(static_cast<int>(v * maxv), 0, maxv);
                    if (f.bitdepth == 8) *p++ = static_cast<uint8_t>(s);
                    else {
                        const uint16_t s16 = static_cast<uint16_t>(s);
                        std::memcpy(p, &s16, 2);
                        p += 2;
                    }
                }
        }
    return data;
}

TEST(DeviceParity, SyntheticFormatsDepthsAndOptions) {
    std::string why;
    if (!have_gpu(&why)) GTEST_SKIP() << "device parity not run: " << why;
    const DirectCopiesAlways direct_copies;
    struct Case {
        VideoFormat f;
        std::vector<std::string> features;
    };
    const std::vector<Case> cases = {
        {{352, 288, PixelFormat::yuv420, 8}, {"speed_chroma", "speed_temporal", "adm", "vif", "motion", "cambi"}},
        {{320, 240, PixelFormat::yuv422, 10},
         {"speed_chroma=speed_weight_var_mode=3:speed_sigma_nn=0.5", "speed_temporal=speed_use_ref_diff=true",
          "adm=adm_csf_mode=1", "vif=vif_enhn_gain_limit=1.0", "motion=motion_five_frame_window=true",
          "cambi=full_ref=true"}},
        {{256, 176, PixelFormat::yuv444, 12},
         {"speed_chroma=speed_kernelscale=1.5", "speed_temporal=speed_kernelscale=0.5", "adm=adm_csf_mode=3:debug=true",
          "vif=debug=true", "motion=motion_moving_average=true:motion_five_frame_window=true", "cambi=eotf=pq"}},
        {{200, 160, PixelFormat::yuv444, 16},
         {"speed_chroma=speed_kernelscale=3", "speed_temporal=speed_kernelscale=2.4", "adm=adm_skip_aim=true:adm_skip_scale0=true",
          "vif=vif_skip_scale0=true", "motion=motion_fps_weight=2.0"}},
        {{333, 251, PixelFormat::yuv420, 8},
         {"speed_chroma=speed_prescale=2:speed_prescale_method=lanczos4",
          "speed_temporal=speed_prescale=2:speed_prescale_method=lanczos4", "adm", "vif", "cambi=enc_bitdepth=8"}},
        {{400, 300, PixelFormat::yuv420, 10},
         {"speed_chroma=speed_prescale=0.7:speed_prescale_method=bicubic",
          "speed_temporal=speed_prescale=0.5:speed_prescale_method=bilinear", "adm=adm_enhn_gain_limit=1.2",
          "cambi=window_size=31:topk=0.2:max_log_contrast=3"}},
        {{400, 300, PixelFormat::yuv444, 8},
         {"speed_chroma=speed_prescale=1.5:speed_prescale_method=nearest:speed_weight_var_mode=6",
          "speed_temporal=speed_prescale=3.1:speed_prescale_method=bicubic", "cambi=enc_width=300:enc_height=200"}},
        {{160, 96, PixelFormat::yuv400, 8}, {"speed_temporal", "speed_temporal=speed_kernelscale=3.71134", "adm", "vif", "motion"}},
        {{258, 146, PixelFormat::yuv420, 8}, {"adm", "adm=adm_csf_mode=1"}},  // libvmaf's stale taps at scales 2-3
        {{130, 80, PixelFormat::yuv420, 10}, {"adm", "adm=adm_csf_mode=1"}},
        {{1920, 1080, PixelFormat::yuv420, 8},
         {"cambi=cambi_high_res_speedup=1080:cambi_vis_lum_threshold=0.06:cambi_max_val=17", "adm", "vif", "motion"}},
    };
    Table t;
    uint32_t seed = 1;
    for (const Case& c : cases) {
        const int frames = 6;
        const auto rbytes = synthetic_video(c.f, frames, seed++);
        const auto dbytes = synthetic_video(c.f, frames, seed++);
        run_case(c.f, c.features, rbytes, dbytes, frames, t, c.f.describe());
    }
    t.print("synthetic video");
    EXPECT_GT(t.direct_batches, 0);
}

TEST(DeviceParity, NoDeviceIsReportedClearly) {
    std::string why;
    if (have_gpu(&why)) GTEST_SKIP() << "a CUDA device is present: the no-device message is tested on machines without one";
    const VideoFormat format{352, 288, PixelFormat::yuv420, 8};
    const FeatureSet specs = feature_set(all_features(), {"speed_chroma"}, format);
    EngineChoice c;
    c.backend = "cuda";
    try {
        make_engine(format, specs.list, c);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        // the one line names the backend and says why, in the words device_present() found
        const std::string msg = e.what();
        EXPECT_NE(msg.find("cuda"), std::string::npos) << msg;
        EXPECT_NE(msg.find(why), std::string::npos) << msg << " (expected the reason: " << why << ")";
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
    c.backend = "auto";
    std::string note;
    auto engine = make_engine(format, specs.list, c, &note);
    EXPECT_NE(note.find("CPU engine"), std::string::npos) << note;
}

}  // namespace
}  // namespace speedqa::testing

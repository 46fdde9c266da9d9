// The CUDA engine against the CPU engine of the same build: every output of
// every frame identical, for every clip and option set of the test data, in
// each covariance order, and for synthetic video of every pixel format, bit
// depth, kernelscale and prescale method.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include "api/engine_factory.hpp"
#include "core/error.hpp"
#include "cpu/cpu_engine.hpp"
#include "cuda/cuda_engine.hpp"
#include "features/registry.hpp"
#include "support/run_engine.hpp"
#include "support/run_feature.hpp"
#include "support/testdata.hpp"

namespace speedqa::testing {
namespace {

bool have_gpu(std::string* why) { return cuda::device_present(why); }

struct Tally {
    long long runs = 0, values = 0, identical = 0, direct_batches = 0;
};

void compare(const std::vector<std::vector<double>>& cpu, const std::vector<std::vector<double>>& gpu, Tally& t,
             const std::string& what) {
    ASSERT_EQ(cpu.size(), gpu.size()) << what;
    t.runs++;
    for (size_t i = 0; i < cpu.size(); i++)
        for (size_t m = 0; m < cpu[i].size(); m++) {
            t.values++;
            const double a = cpu[i][m], b = gpu[i][m];
            if (std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b))) t.identical++;
            else ADD_FAILURE() << what << " frame " << i << " metric " << m << ": cpu " << std::hexfloat << a << " cuda " << b;
        }
}

std::vector<std::vector<double>> run_backend(const std::string& backend, const VideoFormat& f, const FeatureSet& specs,
                                             Dispatch order, const std::vector<Picture>& ref,
                                             const std::vector<Picture>& dis, int batch, int cuda_batch = 0,
                                             long long* direct_batches = nullptr) {
    EngineChoice c;
    c.backend = backend;
    c.threads = 2;
    c.dispatch = dispatch_name(order);
    c.batch = cuda_batch;
    auto engine = make_engine(f, specs.list, c);
    auto out = run_clip(*engine, ref, dis, specs.raw_stride, batch);
    if (const auto* device = dynamic_cast<const cuda::CudaEngine*>(engine.get()); device && direct_batches)
        *direct_batches += device->batches_copied_directly();
    return out;
}

constexpr Dispatch kDispatches[] = {Dispatch::scalar, Dispatch::avx2, Dispatch::avx512};

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

TEST(CudaParity, EveryGoldenClipOptionSetAndOrder) {
    std::string why;
    if (!have_gpu(&why)) GTEST_SKIP() << "CUDA parity not run: " << why;
    const DirectCopiesAlways direct_copies;
    auto data = TestData::open(shared_testdata_dir());
    if (!data) data = TestData::open(repo_testdata_dir());
    ASSERT_TRUE(data);
    Tally t;
    for (const GoldenFile& g : data->golden()) {
        if (g.dispatch != "scalar") continue;  // one run per clip and option set, all three orders below
        const ClipInfo* clip = data->clip(g.clip);
        ASSERT_NE(clip, nullptr);
        const auto ref_bytes = load_xz(clip->ref_xz), dis_bytes = load_xz(clip->dis_xz);
        const auto ref = frames_of(clip->format, ref_bytes, clip->frames);
        const auto dis = frames_of(clip->format, dis_bytes, clip->frames);
        const PageLockedFrames locked_ref(clip->format, ref_bytes, clip->frames), locked_dis(clip->format, dis_bytes, clip->frames);
        const FeatureSet specs = feature_set(all_features(), {g.cli_feature_arg()}, clip->format);
        for (Dispatch order : kDispatches) {
            const auto cpu = run_backend("cpu", clip->format, specs, order, ref, dis, 5);
            const auto gpu = run_backend("cuda", clip->format, specs, order, ref, dis, 7, 3);
            compare(cpu, gpu, t, g.clip + " " + g.cli_feature_arg() + " " + dispatch_name(order));
            // the page-locked input path (rows copied straight from the frames)
            const auto direct = run_backend("cuda", clip->format, specs, order, locked_ref.pictures, locked_dis.pictures, 7, 3,
                                            &t.direct_batches);
            compare(cpu, direct, t, g.clip + " " + g.cli_feature_arg() + " " + dispatch_name(order) + " page-locked");
        }
    }
    std::printf("[parity] golden clips: %lld runs, %lld values compared, %lld identical; %lld batches from page-locked "
                "frames\n",
                t.runs, t.values, t.identical, t.direct_batches);
    EXPECT_GT(t.values, 0);
    EXPECT_GT(t.direct_batches, 0);
    EXPECT_EQ(t.values, t.identical);
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

TEST(CudaParity, SyntheticFormatsDepthsAndOptions) {
    std::string why;
    if (!have_gpu(&why)) GTEST_SKIP() << "CUDA parity not run: " << why;
    const DirectCopiesAlways direct_copies;
    struct Case {
        VideoFormat f;
        std::vector<std::string> features;
    };
    const std::vector<Case> cases = {
        {{352, 288, PixelFormat::yuv420, 8}, {"speed_chroma", "speed_temporal"}},
        {{320, 240, PixelFormat::yuv422, 10},
         {"speed_chroma=speed_weight_var_mode=3:speed_sigma_nn=0.5", "speed_temporal=speed_use_ref_diff=true"}},
        {{256, 176, PixelFormat::yuv444, 12}, {"speed_chroma=speed_kernelscale=1.5", "speed_temporal=speed_kernelscale=0.5"}},
        {{200, 160, PixelFormat::yuv444, 16}, {"speed_chroma=speed_kernelscale=3", "speed_temporal=speed_kernelscale=2.4"}},
        {{333, 251, PixelFormat::yuv420, 8},
         {"speed_chroma=speed_prescale=2:speed_prescale_method=lanczos4", "speed_temporal=speed_prescale=2:speed_prescale_method=lanczos4"}},
        {{400, 300, PixelFormat::yuv420, 10},
         {"speed_chroma=speed_prescale=0.7:speed_prescale_method=bicubic", "speed_temporal=speed_prescale=0.5:speed_prescale_method=bilinear"}},
        {{400, 300, PixelFormat::yuv444, 8},
         {"speed_chroma=speed_prescale=1.5:speed_prescale_method=nearest:speed_weight_var_mode=6",
          "speed_temporal=speed_prescale=3.1:speed_prescale_method=bicubic"}},
        {{160, 96, PixelFormat::yuv400, 8}, {"speed_temporal", "speed_temporal=speed_kernelscale=3.71134"}},
    };
    Tally t;
    uint32_t seed = 1;
    for (const Case& c : cases) {
        const FeatureSet specs = feature_set(all_features(), c.features, c.f);
        const int frames = 6;
        const auto rbytes = synthetic_video(c.f, frames, seed++);
        const auto dbytes = synthetic_video(c.f, frames, seed++);
        const auto ref = frames_of(c.f, rbytes), dis = frames_of(c.f, dbytes);
        const PageLockedFrames locked_ref(c.f, rbytes), locked_dis(c.f, dbytes);
        for (Dispatch order : kDispatches) {
            const auto cpu = run_backend("cpu", c.f, specs, order, ref, dis, 4);
            const auto gpu = run_backend("cuda", c.f, specs, order, ref, dis, 6, 4);
            compare(cpu, gpu, t, c.f.describe() + " " + dispatch_name(order));
            const auto direct = run_backend("cuda", c.f, specs, order, locked_ref.pictures, locked_dis.pictures, 6, 4,
                                            &t.direct_batches);
            compare(cpu, direct, t, c.f.describe() + " " + dispatch_name(order) + " page-locked");
        }
    }
    std::printf("[parity] synthetic: %lld runs, %lld values compared, %lld identical; %lld batches from page-locked frames\n",
                t.runs, t.values, t.identical, t.direct_batches);
    EXPECT_GT(t.direct_batches, 0);
    EXPECT_EQ(t.values, t.identical);
}

TEST(CudaParity, NoDeviceIsReportedClearly) {
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

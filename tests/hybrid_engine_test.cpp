// The auto backend's engine: frames split between a CPU engine and a device
// engine that starts in the background. A second CPU engine stands in for
// the device here (every machine runs this test), so the split itself is
// what is checked: which frames go where, the previous frame each run of
// speed_temporal gets, and the order of the outputs.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "api/hybrid_engine.hpp"
#include "core/error.hpp"
#include "core/cpu_flags.hpp"
#include "cpu/cpu_engine.hpp"
#include "features/registry.hpp"
#include "support/run_feature.hpp"
#include "support/run_engine.hpp"
#include "support/testdata.hpp"

namespace speedqa::testing {
namespace {

// A CPU engine that takes its time, so that the device side surely gets runs.
class SlowEngine final : public Engine {
public:
    explicit SlowEngine(std::unique_ptr<Engine> inner) : inner_(std::move(inner)) {}
    void score(const FrameBatch& b, double* out) override {
        std::this_thread::sleep_for(std::chrono::milliseconds(15));
        inner_->score(b, out);
    }
    std::string describe() const override { return "slow " + inner_->describe(); }

private:
    std::unique_ptr<Engine> inner_;
};

using Features = FeatureSet;

Features features(const VideoFormat& f, const std::vector<std::string>& args) { return feature_set(all_features(), args, f); }

std::unique_ptr<Engine> cpu_engine(const Features& fs, const VideoFormat& format) {
    return std::make_unique<cpu::CpuEngine>(format, fs.list, CpuTarget{host_isa(), libvmaf_dispatch(0)}, 1);
}

struct Clip {
    VideoFormat format;
    std::vector<Picture> ref, dis;
};

Clip v1() {
    const auto data = TestData::open(repo_testdata_dir());
    const ClipInfo* c = data->clip("v1");
    return {c->format, frames_of(c->format, load_xz(c->ref_xz), c->frames), frames_of(c->format, load_xz(c->dis_xz), c->frames)};
}

void expect_identical(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); i++)
        for (size_t m = 0; m < a[i].size(); m++)
            EXPECT_EQ(std::memcmp(&a[i][m], &b[i][m], sizeof(double)), 0) << "frame " << i << " metric " << m;
}

TEST(HybridEngine, SplitBetweenTwoEnginesGivesTheSameValues) {
    const Clip clip = v1();
    const Features specs = features(clip.format, {"speed_chroma", "speed_temporal"});
    const int metrics = specs.raw_stride;
    auto plain = cpu_engine(specs, clip.format);
    const auto expected = run_clip(*plain, clip.ref, clip.dis, metrics, 8);
    long long device_frames = 0, cpu_frames = 0;
    for (int batch : {8, 3, 5}) {
        // the stand-in device takes 40 ms to start, the CPU 15 ms a frame
        HybridEngine hybrid(std::make_unique<SlowEngine>(cpu_engine(specs, clip.format)),
                            [&] {
                                std::this_thread::sleep_for(std::chrono::milliseconds(40));
                                return cpu_engine(specs, clip.format);
                            },
                            metrics, 1);
        const auto got = run_clip(hybrid, clip.ref, clip.dis, metrics, batch);
        expect_identical(expected, got);
        EXPECT_EQ(hybrid.cpu_frames() + hybrid.device_frames(), 8) << "batch " << batch;
        device_frames += hybrid.device_frames();
        cpu_frames += hybrid.cpu_frames();
    }
    std::printf("[hybrid] 3 runs of 8 frames: %lld on the CPU engine, %lld on the stand-in device, values identical\n",
                cpu_frames, device_frames);
    EXPECT_GT(device_frames, 0);
    EXPECT_GT(cpu_frames, 0);
}

// A clip the CPU finishes sooner than a device could start: none is started.
TEST(HybridEngine, AShortClipDoesNotStartTheDevice) {
    const Clip clip = v1();
    const Features specs = features(clip.format, {"speed_chroma"});
    bool started = false;
    HybridEngine hybrid(cpu_engine(specs, clip.format),
                        [&] {
                            started = true;
                            return cpu_engine(specs, clip.format);
                        },
                        3, 2);
    hybrid.expect_frames(8);
    auto plain = cpu_engine(specs, clip.format);
    expect_identical(run_clip(*plain, clip.ref, clip.dis, 3, 8), run_clip(hybrid, clip.ref, clip.dis, 3, 8));
    EXPECT_FALSE(started);
    EXPECT_FALSE(hybrid.device_start_pending());
    EXPECT_NE(hybrid.describe().find("was not started"), std::string::npos) << hybrid.describe();
}

TEST(HybridEngine, ADeviceThatCannotStartLeavesEveryFrameToTheCpu) {
    const Clip clip = v1();
    const Features specs = features(clip.format, {"speed_temporal"});
    auto plain = cpu_engine(specs, clip.format);
    const auto expected = run_clip(*plain, clip.ref, clip.dis, 1, 8);
    HybridEngine hybrid(cpu_engine(specs, clip.format), []() -> std::unique_ptr<Engine> { throw Error("no device here"); }, 1,
                        2);
    hybrid.wait_for_device();
    expect_identical(expected, run_clip(hybrid, clip.ref, clip.dis, 1, 4));
    EXPECT_EQ(hybrid.device_frames(), 0);
    EXPECT_NE(hybrid.describe().find("could not start: no device here"), std::string::npos) << hybrid.describe();
}

}  // namespace
}  // namespace speedqa::testing

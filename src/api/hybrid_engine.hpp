// The engine behind --backend auto: the CPU engine scores from the first
// frame while the CUDA engine starts in the background (driver, context,
// buffers: a few hundred milliseconds); once that engine is ready it takes
// the frames. Both engines give the same bits, so the split changes nothing
// in the output, only how soon it is done. Where the CPU would finish the
// clip sooner than the device can start, the device is not started at all.
#pragma once

#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <string>

#include "core/engine.hpp"

namespace speedqa {

class HybridEngine final : public Engine {
public:
    // make_device builds the device engine (in a background thread); it
    // throws Error when there is none.
    // stride: raw values per frame; cpu_chunk: frames per CPU call, between
    // which the device engine may take over.
    HybridEngine(std::unique_ptr<Engine> cpu, std::function<std::unique_ptr<Engine>()> make_device, int stride,
                 int cpu_chunk);
    ~HybridEngine() override;

    void score(const FrameBatch& batch, double* out) override;
    std::string describe() const override;
    std::vector<std::string> notes() const override;
    int preferred_batch() const override;
    bool device_start_pending() const override;
    bool holds_device() const override { return device_ready(); }
    void expect_frames(long long frames) override;
    // Starts the device engine if not yet, and blocks until it is built or
    // has failed to start.
    void wait_for_device() const;
    long long cpu_frames() const { return cpu_frames_; }
    long long device_frames() const { return device_frames_; }

private:
    bool device_ready() const;  // takes the device engine once it is built
    static FrameBatch part(const FrameBatch& batch, int k, int n);
    void consider_starting_device(double cpu_ms_per_frame);
    void start_device() const;

    static constexpr double kDeviceWorthMs = 400;

    std::unique_ptr<Engine> cpu_;
    std::function<std::unique_ptr<Engine>()> make_device_;
    mutable bool started_ = false;
    long long expected_frames_ = -1;
    std::string skipped_why_;
    mutable std::unique_ptr<Engine> device_;
    mutable std::future<std::unique_ptr<Engine>> starting_;
    mutable std::string device_failure_;
    int stride_, cpu_chunk_;
    std::atomic<long long> cpu_frames_{0}, device_frames_{0};
};

}  // namespace speedqa

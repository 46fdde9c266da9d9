// Where the CUDA engine's time goes, when asked (docs/ENVIRONMENT.md):
// SPEEDQA_CUDA_STAGES=1 times each kernel stage with events; SPEEDQA_TIMING=1
// sums the host's time per phase of a batch. Both print when the engine goes.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "cuda/device_feature.cuh"
#include "cuda/handles.cuh"

namespace speedqa::cuda {

// Events after each stage, summed per stage name. Its memory stays bounded
// on long clips: every 256 marks the finished intervals are summed and their
// events reused.
class EventTimer final : public StageTimer {
public:
    ~EventTimer() override;
    void start(cudaStream_t s);
    void mark(const char* stage, cudaStream_t s) override;

private:
    struct Interval {
        std::string stage;
        size_t begin, end;  // indices into events_
    };
    size_t take();
    void collect();

    std::vector<Event> events_;
    std::vector<size_t> free_;
    std::vector<Interval> pending_;
    size_t last_ = 0;
    bool started_ = false;
    std::map<std::string, double> totals_;
};

// The host's time per phase of score(), summed over batches.
class HostPhases {
public:
    enum Phase { wait_queue, stage, launch, wait_device, tail, kPhases };
    HostPhases();
    ~HostPhases();
    bool on() const { return on_; }
    void add(Phase p, std::chrono::steady_clock::duration d) {
        if (on_) us_[p] += std::chrono::duration_cast<std::chrono::microseconds>(d).count();
    }
    void batch(int frames) {
        if (!on_) return;
        batches_++;
        frames_ += frames;
    }

private:
    bool on_;
    std::atomic<long long> us_[kPhases] = {}, batches_{0}, frames_{0};
};

}  // namespace speedqa::cuda

#include "cuda/timing.cuh"

#include <cstdio>

#include "core/env.hpp"

namespace speedqa::cuda {

size_t EventTimer::take() {
    if (!free_.empty()) {
        const size_t i = free_.back();
        free_.pop_back();
        return i;
    }
    events_.push_back(make_event(cudaEventDefault));
    return events_.size() - 1;
}

void EventTimer::start(cudaStream_t s) {
    if (started_) free_.push_back(last_);
    last_ = take();
    started_ = true;
    SPEEDQA_CUDA_CHECK(cudaEventRecord(events_[last_].get(), s));
}

void EventTimer::mark(const char* stage, cudaStream_t s) {
    if (!started_) start(s);
    const size_t e = take();
    SPEEDQA_CUDA_CHECK(cudaEventRecord(events_[e].get(), s));
    pending_.push_back({stage, last_, e});
    last_ = e;
    if (pending_.size() >= 256) collect();
}

void EventTimer::collect() {
    for (const Interval& p : pending_) {
        float ms = 0;
        cudaEventSynchronize(events_[p.end].get());
        cudaEventElapsedTime(&ms, events_[p.begin].get(), events_[p.end].get());
        totals_[p.stage] += ms;
        if (p.begin != last_) free_.push_back(p.begin);
    }
    pending_.clear();
}

EventTimer::~EventTimer() {
    collect();
    for (const auto& [stage, ms] : totals_) std::fprintf(stderr, "[cuda-stages] %-12s %10.3f ms\n", stage.c_str(), ms);
}

HostPhases::HostPhases() : on_(env_flag("SPEEDQA_TIMING")) {}

HostPhases::~HostPhases() {
    if (!on_ || !batches_) return;
    const double f = static_cast<double>(frames_);
    static const char* const names[kPhases] = {"wait for a free queue", "stage rows into pinned memory",
                                               "launch (copies, graph)", "tail: wait for the device", "tail: host sums"};
    std::fprintf(stderr, "[timing]   cuda host: %lld batches, %lld frames\n", batches_.load(), frames_.load());
    for (int p = 0; p < kPhases; p++)
        std::fprintf(stderr, "[timing]   cuda host: %-30s %9.1f ms  %7.4f ms/frame\n", names[p], us_[p] / 1e3,
                     us_[p] / 1e3 / f);
}

}  // namespace speedqa::cuda

// The CPU engine: frames of a batch run in parallel on a thread pool, each
// worker owning its pipelines (no allocation per frame).
#pragma once

#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include "core/engine.hpp"
#include "core/plan.hpp"
#include "core/thread_pool.hpp"
#include "cpu/image_pipeline.hpp"
#include "cpu/image_source.hpp"

namespace speedqa::cpu {

struct CpuEngineConfig {
    int threads = 1;
    exact::CovOrder order = exact::CovOrder::scalar;
    // The straightforward full-frame path (reference/full_frame.hpp) instead
    // of the fast pipeline: the yardstick for tests and benchmarks.
    bool full_frame = false;
};

// What a worker runs for one image: the fast pipeline or the full-frame path.
class ImageRunner {
public:
    virtual ~ImageRunner() = default;
    virtual void run(const ImageSource& src, ImageStats& out) = 0;
};

class CpuEngine final : public Engine {
public:
    CpuEngine(const VideoFormat& format, const std::vector<FeatureSpec>& features, const CpuEngineConfig& config);
    ~CpuEngine() override;

    void score(const FrameBatch& batch, double* out) override;
    std::string describe() const override;
    long long unconverged_images() const override { return unconverged_; }
    long long singular_images() const override { return singular_; }
    int preferred_batch() const override { return std::max(8, 4 * config_.threads); }

private:
    struct Worker;
    void score_frame(Worker& w, const FrameBatch& batch, int k, double* out);

    VideoFormat format_;
    std::vector<FeatureSpec> features_;
    CpuEngineConfig config_;
    std::vector<ImagePlan> plans_;  // one per feature
    std::vector<const ImagePlan*> plan_ptrs_;
    std::vector<std::unique_ptr<Worker>> workers_;
    ThreadPool pool_;
    int metrics_;
    std::atomic<long long> unconverged_{0}, singular_{0};
};

}  // namespace speedqa::cpu

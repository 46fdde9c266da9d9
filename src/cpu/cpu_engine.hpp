// The CPU engine: the frames of a batch, and the features of each frame, run
// in parallel on a thread pool; each worker owns every kernel's scratch (no
// allocation per frame).
#pragma once

#include <memory>
#include <vector>

#include "core/engine.hpp"
#include "core/thread_pool.hpp"

namespace speedqa::cpu {

class CpuEngine final : public Engine {
public:
    // The features must outlive the engine.
    CpuEngine(std::vector<const Feature*> features, const CpuTarget& target, int threads);
    ~CpuEngine() override;

    void score(const FrameBatch& batch, double* out) override;
    std::string describe() const override;
    std::vector<std::string> notes() const override;
    int preferred_batch() const override { return std::max(8, 4 * pool_.size()); }

private:
    std::vector<const Feature*> features_;
    CpuTarget target_;
    RawLayout layout_;
    std::vector<std::unique_ptr<CpuKernel>> kernels_;                       // per feature
    std::vector<std::vector<std::unique_ptr<KernelScratch>>> scratch_;      // [worker][feature]
    ThreadPool pool_;
};

}  // namespace speedqa::cpu

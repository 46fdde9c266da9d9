// The CPU engine: the frames of a batch, and the features of each frame, run
// in parallel on a thread pool; each worker owns every kernel's scratch (no
// allocation per frame). The workers and their scratch are made on the first
// batch, so that an input without frames costs nothing, and only as many as
// the memory there is then holds. Frames that lie in a file are read by the
// workers themselves, each a run of consecutive frames (staged_input.hpp).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "core/thread_pool.hpp"
#include "cpu/staged_input.hpp"

namespace speedqa::cpu {

class CpuEngine final : public Engine {
public:
    // The features must outlive the engine. `input`: how pictures that lie
    // in a file are taken (staged_input.hpp).
    CpuEngine(const VideoFormat& format, std::vector<const Feature*> features, const CpuTarget& target, int threads,
              InputMode input = input_mode_from_env());
    ~CpuEngine() override;

    void score(const FrameBatch& batch, double* out) override;
    std::string describe() const override;
    std::vector<std::string> notes() const override;
    // (frames in a file: a worker's run of them reads its first one's
    // history again, so the runs are made long)
    int preferred_batch() const override { return std::max(16, 8 * threads()); }

    // Bytes each worker takes beside its kernels' scratch: its stack and
    // the kernels' per-thread buffers.
    static constexpr size_t kThreadBytes = size_t{10} << 20;

private:
    int threads() const { return pool_ ? pool_->size() : threads_; }
    // Weighs the workers' scratch against the memory available now: fewer
    // workers where that makes it fit (said in notes()), Error where one
    // does not fit.
    int threads_that_fit();
    void start_workers();
    // On the first batch: whether pictures in a file are read with pread
    // (InputMode::automatic: probes the first such picture).
    void choose_input(const FrameBatch& batch);
    std::string input_text() const;  // for describe()
    // Whether the batch's frames are read from their file by the workers.
    bool reads_files(const FrameBatch& batch) const;
    void score_read(const FrameBatch& batch, double* out);

    VideoFormat format_;
    std::vector<const Feature*> features_;
    PlaneNeeds needs_;
    InputMode input_mode_;
    bool read_input_ = false;                                               // chosen on the first batch
    InputProbe probe_;                                                      // automatic: what chose it
    std::vector<std::unique_ptr<WorkerFrames>> frames_;                     // [worker], made on its first read
    CpuTarget target_;
    RawLayout layout_;
    std::vector<std::unique_ptr<CpuKernel>> kernels_;                       // per feature
    std::vector<std::vector<std::unique_ptr<KernelScratch>>> scratch_;      // [worker][feature]
    int threads_;                                                           // asked for
    std::string memory_note_;                                               // why fewer
    std::unique_ptr<ThreadPool> pool_;
    // Per feature: nanoseconds its items took, and how many, this batch
    // (summed by the workers) and the order of the features in the next
    // one: the dearest per frame first.
    std::vector<std::atomic<long long>> spent_ns_;
    std::vector<int> order_;
};

}  // namespace speedqa::cpu

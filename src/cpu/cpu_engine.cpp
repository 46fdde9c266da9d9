#include "cpu/cpu_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <numeric>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/zeroed_array.hpp"

namespace speedqa::cpu {
namespace {

const char* isa_text(Isa isa) {
    switch (isa) {
    case Isa::c: return "C kernels";
    case Isa::avx2: return "AVX2 kernels";
    default: return "AVX-512 kernels";
    }
}

}  // namespace

CpuEngine::CpuEngine(const VideoFormat& format, std::vector<const Feature*> features, const CpuTarget& target,
                     int threads, InputMode input)
    : format_(format), features_(std::move(features)), needs_(format_, features_), input_mode_(input),
      target_(target), layout_(features_), threads_(std::max(1, threads)) {
    zeroed_huge_pages();  // (a bad SPEEDQA_HUGE_PAGES fails here, not on a worker)
    for (const Feature* f : features_) kernels_.push_back(f->make_cpu_kernel(target_));
    spent_ns_ = std::vector<std::atomic<long long>>(features_.size());
    order_.resize(features_.size());
    std::iota(order_.begin(), order_.end(), 0);
}

int CpuEngine::threads_that_fit() {
    size_t per_thread = kThreadBytes + (read_input_ ? WorkerFrames::bytes(format_, needs_) : 0);
    std::string names;
    for (size_t f = 0; f < kernels_.size(); f++) {
        per_thread += kernels_[f]->scratch_bytes();
        names += (names.empty() ? "" : ", ") + features_[f]->canonical();
    }
    const AvailableMemory memory = available_memory();
    const size_t available = memory.bytes;
    if (per_thread > available)
        throw Error("out of memory: a thread scoring " + names + " at this frame size takes " + format_bytes(per_thread) +
                    ", and " + format_bytes(available) + " is available (" + memory.bound + ")");
    const int fit = static_cast<int>(std::min<size_t>(static_cast<size_t>(threads_), available / per_thread));
    if (fit < threads_)
        memory_note_ = std::to_string(fit) + " thread" + (fit > 1 ? "s" : "") + " instead of " +
                       std::to_string(threads_) + ": a thread takes " + format_bytes(per_thread) + " and " +
                       format_bytes(available) + " is available (" + memory.bound + ")";
    return fit;
}

void CpuEngine::start_workers() {
    const int n = threads_that_fit();
    const int nk = static_cast<int>(kernels_.size());
    scratch_.resize(static_cast<size_t>(n));
    frames_.resize(static_cast<size_t>(n));
    for (auto& worker : scratch_) worker.resize(kernels_.size());
    pool_ = std::make_unique<ThreadPool>(n);
    // the scratch is made on the workers, side by side: a large one (CAMBI's
    // at 4K is about 110 MB) costs its page faults on as many cores
    pool_->parallel_for(n * nk, [&](int, int item) {
        scratch_[static_cast<size_t>(item / nk)][static_cast<size_t>(item % nk)] =
            kernels_[static_cast<size_t>(item % nk)]->make_scratch();
    });
}

CpuEngine::~CpuEngine() = default;

void CpuEngine::choose_input(const FrameBatch& batch) {
    read_input_ = input_mode_ == InputMode::read;
    if (input_mode_ != InputMode::automatic) return;
    // the first plane read of the first picture that lies in a file: a
    // quarter of a MiB of it (64 pages) tells the two ways apart within a
    // millisecond where pages are dear
    constexpr size_t kProbeBytes = size_t{1} << 18;
    const auto probe = [&](const Picture* pic, unsigned needs) {
        if (!pic || !readable(format_, *pic, needs)) return false;
        for (int p = 0; p < format_.plane_count(); p++)
            if (needs >> p & 1) {
                probe_ = probe_input(pic->fd, pic->file_offset[p], std::min(kProbeBytes, format_.plane_bytes(p)));
                read_input_ = probe_.read();
                return true;
            }
        return false;
    };
    for (int k = 0; k < batch.count; k++)
        if (probe(&batch.ref[k], needs_.ref) || probe(&batch.dis[k], needs_.dis)) return;
    for (int h = 0; h < needs_.history; h++)
        if (probe(batch.prev_ref[h], needs_.prev_ref) || probe(batch.prev_dis[h], needs_.prev_dis)) return;
    // none lies in a file: nothing to read
}

std::string CpuEngine::describe() const {
    const int n = threads();
    return std::string("cpu ") + (target_.straightforward ? "straightforward reference path " : "") + "(" +
           std::to_string(n) + " thread" + (n > 1 ? "s" : "") + ", " + isa_text(target_.isa) + ", libvmaf's " +
           dispatch_name(target_.dispatch) + " dispatch" + input_text() + ")";
}

std::string CpuEngine::input_text() const {
    if (!pool_ || probe_.pages == 0) return read_input_ ? ", frames in a file read with pread" : "";
    char costs[96];
    std::snprintf(costs, sizeof costs, "a page %.0f ns mapped, %.0f ns read", probe_.map_ns_per_page,
                  probe_.read_ns_per_page);
    return std::string(", frames in a file ") + (read_input_ ? "read with pread" : "read through their mapping") + " (" +
           costs + ")";
}

std::vector<std::string> CpuEngine::notes() const {
    std::vector<std::string> out;
    if (!memory_note_.empty()) out.push_back(memory_note_);
    for (const auto& k : kernels_)
        for (std::string& n : k->notes()) out.push_back(std::move(n));
    return out;
}

bool CpuEngine::reads_files(const FrameBatch& batch) const {
    if (!read_input_) return false;
    // (a picture that can be read from its file is never read from memory,
    // not even as another frame's history)
    for (int k = 0; k < batch.count; k++)
        if (readable(format_, batch.ref[k], needs_.ref) || readable(format_, batch.dis[k], needs_.dis)) return true;
    for (int h = 0; h < needs_.history; h++)
        if ((batch.prev_ref[h] && readable(format_, *batch.prev_ref[h], needs_.prev_ref)) ||
            (batch.prev_dis[h] && readable(format_, *batch.prev_dis[h], needs_.prev_dis)))
            return true;
    return false;
}

void CpuEngine::score_read(const FrameBatch& batch, double* out) {
    // a run of consecutive frames per worker; one done takes frames from the
    // end of the run with the most left
    const int runs = std::min(pool_->size(), batch.count);
    std::vector<std::pair<int, int>> left;  // [first, end) of each run not yet taken
    for (int r = 0; r < runs; r++)
        left.emplace_back(static_cast<int>(static_cast<long long>(batch.count) * r / runs),
                          static_cast<int>(static_cast<long long>(batch.count) * (r + 1) / runs));
    std::mutex mu;
    auto take = [&](int run) {
        std::lock_guard<std::mutex> lock(mu);
        auto& own = left[static_cast<size_t>(run)];
        if (own.first < own.second) return own.first++;
        auto most = std::max_element(left.begin(), left.end(), [](const auto& a, const auto& b) {
            return a.second - a.first < b.second - b.first;
        });
        return most->first < most->second ? --most->second : -1;
    };
    pool_->parallel_for(runs, [&](int worker, int run) {
        auto& frames = frames_[static_cast<size_t>(worker)];
        if (!frames) frames = std::make_unique<WorkerFrames>(format_, needs_);
        const StagedRun r{batch, needs_, features_, kernels_, scratch_[static_cast<size_t>(worker)], layout_};
        for (int k; (k = take(run)) >= 0;) r.frame(*frames, k, out);
    });
}

void CpuEngine::score(const FrameBatch& batch, double* out) {
    check_history(batch, features_);
    if (!pool_) {
        choose_input(batch);
        start_workers();
    }
    if (reads_files(batch)) return score_read(batch, out);
    const int nf = static_cast<int>(features_.size());
    for (auto& t : spent_ns_) t = 0;
    // items: feature-major, the dearest feature (of the last batch) first, so
    // that the batch ends on the cheapest items and the workers on it finish
    // close together
    pool_->parallel_for(batch.count * nf, [&](int worker, int item) {
        const int f = order_[static_cast<size_t>(item / batch.count)], k = item % batch.count;
        const FrameView v = batch.view(k, features_[static_cast<size_t>(f)]->history());
        const auto t0 = std::chrono::steady_clock::now();
        kernels_[static_cast<size_t>(f)]->extract(*scratch_[static_cast<size_t>(worker)][static_cast<size_t>(f)], v,
                                                  out + static_cast<size_t>(k) * layout_.stride + layout_.offset[static_cast<size_t>(f)]);
        spent_ns_[static_cast<size_t>(f)] +=
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
    });
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
        return spent_ns_[static_cast<size_t>(a)].load() > spent_ns_[static_cast<size_t>(b)].load();
    });
}

}  // namespace speedqa::cpu

#include "api/hybrid_engine.hpp"

#include <algorithm>
#include <chrono>

namespace speedqa {

HybridEngine::HybridEngine(std::unique_ptr<Engine> cpu, std::function<std::unique_ptr<Engine>()> make_device, int stride,
                           int cpu_chunk)
    : cpu_(std::move(cpu)), make_device_(std::move(make_device)), stride_(stride), cpu_chunk_(std::max(1, cpu_chunk)) {}

HybridEngine::~HybridEngine() {
    if (starting_.valid()) starting_.wait();  // a device engine half-built must finish before it can be released
}

bool HybridEngine::device_ready() const {
    if (device_) return true;
    if (!starting_.valid() || starting_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return false;
    try {
        device_ = starting_.get();
    } catch (const std::exception& e) {
        device_failure_ = e.what();
    }
    return device_ != nullptr;
}

bool HybridEngine::device_start_pending() const {
    return starting_.valid() && starting_.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
}

void HybridEngine::wait_for_device() const {
    start_device();
    if (starting_.valid()) starting_.wait();
    device_ready();
}

// Frames [k, k + n) of `batch` as a batch of their own.
FrameBatch HybridEngine::part(const FrameBatch& batch, int k, int n) {
    FrameBatch p = batch;
    p.ref = batch.ref + k;
    p.dis = batch.dis + k;
    p.count = n;
    p.first_index = batch.first_index + k;
    for (int h = 0; h < 2; h++) {
        const int i = k - 1 - h;  // frame first_index + k - 1 - h
        p.prev_ref[h] = i >= 0 ? &batch.ref[i] : batch.prev_ref[-1 - i];
        p.prev_dis[h] = i >= 0 ? &batch.dis[i] : batch.prev_dis[-1 - i];
    }
    return p;
}

// Until the device engine is up, the CPU scores chunk after chunk; from then
// on the device takes the rest of each batch, unless what is left is so short
// that filling the device's pipeline would take longer than the CPU. (Both at
// once was tried: the CPU engine then slows the host's staging for the
// device by more than it adds.)
void HybridEngine::score(const FrameBatch& batch, double* out) {
    int front = 0;
    while (front < batch.count) {
        const int left = batch.count - front;
        if (device_ready() && left >= std::max(cpu_chunk_, device_->preferred_batch() / 8)) {
            device_->score(part(batch, front, left), out + static_cast<size_t>(front) * stride_);
            device_frames_ += left;
            return;
        }
        const int n = std::min(cpu_chunk_, left);
        const auto t0 = std::chrono::steady_clock::now();
        cpu_->score(part(batch, front, n), out + static_cast<size_t>(front) * stride_);
        cpu_frames_ += n;
        front += n;
        if (!started_) {
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            consider_starting_device(ms / n);
        }
    }
}

// The device pays only when the CPU would need longer for the rest of the
// clip than the device takes to start and, at exit, to be released (a few
// hundred milliseconds). Unknown length (a pipe, the API): start at once.
void HybridEngine::consider_starting_device(double cpu_ms_per_frame) {
    const long long left = expected_frames_ >= 0 ? expected_frames_ - cpu_frames_ : -1;
    if (left >= 0 && left * cpu_ms_per_frame < kDeviceWorthMs) {
        skipped_why_ = "the CPU engine would finish the clip in about " + std::to_string(static_cast<long long>(left * cpu_ms_per_frame)) +
                       " ms, less than a CUDA start and release cost";
        started_ = true;  // decided: not at all
        return;
    }
    start_device();
}

void HybridEngine::start_device() const {
    if (started_) return;
    started_ = true;
    starting_ = std::async(std::launch::async, make_device_);
}

std::string HybridEngine::describe() const {
    device_ready();
    std::string s = "auto: " + std::to_string(cpu_frames_) + " frames on " + cpu_->describe();
    if (device_) s += ", " + std::to_string(device_frames_) + " on " + device_->describe();
    else if (!device_failure_.empty()) s += "; the CUDA engine could not start: " + device_failure_;
    else if (!skipped_why_.empty()) s += "; the CUDA engine was not started: " + skipped_why_;
    else if (started_) s += "; the CUDA engine was still starting when the frames ran out";
    return s;
}

std::vector<std::string> HybridEngine::notes() const {
    std::vector<std::string> out = cpu_->notes();
    if (device_)
        for (std::string& n : device_->notes()) out.push_back(std::move(n));
    return out;
}

int HybridEngine::preferred_batch() const {
    return std::max(cpu_chunk_ * 4, device_ ? device_->preferred_batch() : 0);
}

void HybridEngine::expect_frames(long long frames) { expected_frames_ = frames; }

}  // namespace speedqa

// Getting a batch's rows to the device. The rows the features read are
// gathered from the frames into pinned staging (non-temporal stores, many
// threads), then one copy uploads them; frames already in page-locked memory
// (Picture::page_locked) skip the staging: a few 2D copies a plane go
// straight from them to the device.
#pragma once

#include <cuda_runtime.h>
#include <sys/mman.h>

#include <functional>
#include <set>
#include <vector>

#include "core/video.hpp"
#include "cuda/device_memory.cuh"
#include "core/input_plan.hpp"

namespace speedqa::cuda {

// Page-locked host memory for staging, made of transparent huge pages that
// the host touches first (in parallel, through `touch`) and then registers
// with CUDA: pinning 2 MB pages is far cheaper than the 4 KB pages of
// cudaMallocHost, which is what the engine's start-up is made of. Falls back
// to cudaMallocHost where registration is refused.
class StagingBuffer {
public:
    StagingBuffer() = default;
    ~StagingBuffer() { unmap(); }
    StagingBuffer(StagingBuffer&& o) noexcept
        : fallback_(std::move(o.fallback_)), mapped_(std::exchange(o.mapped_, nullptr)),
          mapped_bytes_(std::exchange(o.mapped_bytes_, 0)) {}
    StagingBuffer& operator=(StagingBuffer&&) = delete;
    // touch(begin, bytes) writes the range once; it may split it across threads
    void allocate(size_t bytes, bool huge_pages, const std::function<void(uint8_t*, size_t)>& touch) {
        unmap();
        fallback_.allocate(0);
        if (bytes == 0) return;
        if (huge_pages) {
            void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (p != MAP_FAILED) {
                madvise(p, bytes, MADV_HUGEPAGE);
                touch(static_cast<uint8_t*>(p), bytes);
                if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) == cudaSuccess) {
                    mapped_ = p;
                    mapped_bytes_ = bytes;
                    return;
                }
                cudaGetLastError();
                munmap(p, bytes);
            }
        }
        fallback_.allocate(bytes);
    }
    template <class T = void>
    T* get() const { return static_cast<T*>(mapped_ ? mapped_ : fallback_.get()); }

private:
    void unmap() {
        if (!mapped_) return;
        cudaHostUnregister(mapped_);
        munmap(mapped_, mapped_bytes_);
        mapped_ = nullptr;
        mapped_bytes_ = 0;
    }
    PinnedBuffer fallback_;  // cudaMallocHost, where registration is refused
    void* mapped_ = nullptr;
    size_t mapped_bytes_ = 0;
};

// The cuda engine's view of the input plan (core/input_plan.hpp): whether
// page-locked frames may go straight to the device.
struct UploadPlan {
    InputPlan plan;
    bool direct_possible = false;  // the 2D copies are large enough to pay (SPEEDQA_DIRECT_COPIES overrides)
};

UploadPlan make_upload_plan(const VideoFormat& format, const InputNeeds& needs);

// Copies the planned rows of `pic` (side 0 ref, 1 dis) into a frame position
// of pinned staging, with non-temporal stores. `planes` selects the planes
// (bit p: plane p).
void stage_picture(const UploadPlan& plan, const Picture& pic, int side, unsigned planes, uint8_t* position);
// Whether `pic` can be copied straight to the device.
bool can_copy_directly(const UploadPlan& plan, const Picture& pic);
// The planned rows of page-locked `pic` straight to a frame position on the device.
void copy_picture_directly(const UploadPlan& plan, const Picture& pic, int side, unsigned planes, uint8_t* position,
                           cudaStream_t stream);

}  // namespace speedqa::cuda

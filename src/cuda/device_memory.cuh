// Owning handles for device and pinned host memory.
#pragma once

#include <cuda_runtime.h>
#include <sys/mman.h>

#include <cstddef>
#include <cstring>
#include <functional>
#include <utility>

#include "cuda/cuda_check.hpp"

namespace speedqa::cuda {

template <bool Pinned>
class Buffer {
public:
    Buffer() = default;
    explicit Buffer(size_t bytes) { allocate(bytes); }
    ~Buffer() { release(); }
    Buffer(Buffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
    Buffer& operator=(Buffer&& o) noexcept {
        if (this != &o) {
            release();
            ptr_ = std::exchange(o.ptr_, nullptr);
            bytes_ = std::exchange(o.bytes_, 0);
        }
        return *this;
    }
    void allocate(size_t bytes) {
        release();
        if (bytes == 0) return;
        if constexpr (Pinned) SPEEDQA_CUDA_CHECK(cudaMallocHost(&ptr_, bytes));
        else SPEEDQA_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
        bytes_ = bytes;
    }
    template <class T = void>
    T* get() const { return static_cast<T*>(ptr_); }
    size_t bytes() const { return bytes_; }

private:
    void release() {
        if (!ptr_) return;
        if constexpr (Pinned) cudaFreeHost(ptr_);
        else cudaFree(ptr_);
        ptr_ = nullptr;
        bytes_ = 0;
    }
    void* ptr_ = nullptr;
    size_t bytes_ = 0;
};

using DeviceBuffer = Buffer<false>;
using PinnedBuffer = Buffer<true>;

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

// Copies a host vector to a new device buffer.
template <class T>
DeviceBuffer upload(const T* data, size_t count) {
    DeviceBuffer b(count * sizeof(T));
    if (count) SPEEDQA_CUDA_CHECK(cudaMemcpy(b.get(), data, count * sizeof(T), cudaMemcpyHostToDevice));
    return b;
}

}  // namespace speedqa::cuda

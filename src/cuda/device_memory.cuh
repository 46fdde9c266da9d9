// Owning handles for device and pinned host memory.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstring>
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

// Copies a host vector to a new device buffer.
template <class T>
DeviceBuffer upload(const T* data, size_t count) {
    DeviceBuffer b(count * sizeof(T));
    if (count) SPEEDQA_CUDA_CHECK(cudaMemcpy(b.get(), data, count * sizeof(T), cudaMemcpyHostToDevice));
    return b;
}

}  // namespace speedqa::cuda

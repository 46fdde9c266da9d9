// Owning handles for CUDA streams, events and graph executables: whatever a
// constructor has made is released when it throws half-way (a device out of
// memory, say), and nothing leaks on the normal path either.
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "cuda/cuda_check.hpp"

namespace speedqa::cuda {

template <class T, cudaError_t (*Destroy)(T)>
class Handle {
public:
    Handle() = default;
    explicit Handle(T h) : h_(h) {}
    ~Handle() { reset(); }
    Handle(Handle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
    Handle& operator=(Handle&& o) noexcept {
        if (this != &o) {
            reset();
            h_ = std::exchange(o.h_, nullptr);
        }
        return *this;
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    T get() const { return h_; }
    explicit operator bool() const { return h_ != nullptr; }
    void reset() {
        if (h_) Destroy(h_);
        h_ = nullptr;
    }

private:
    T h_ = nullptr;
};

using Stream = Handle<cudaStream_t, cudaStreamDestroy>;
using Event = Handle<cudaEvent_t, cudaEventDestroy>;
using GraphExec = Handle<cudaGraphExec_t, cudaGraphExecDestroy>;
using Graph = Handle<cudaGraph_t, cudaGraphDestroy>;

inline Stream make_stream() {
    cudaStream_t s = nullptr;
    SPEEDQA_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return Stream(s);
}

inline Event make_event(unsigned flags = cudaEventDisableTiming) {
    cudaEvent_t e = nullptr;
    SPEEDQA_CUDA_CHECK(cudaEventCreateWithFlags(&e, flags));
    return Event(e);
}

}  // namespace speedqa::cuda

// The CUDA executor of blocks.hpp's block stages: one CUDA block a block,
// body.threads() threads, body.shared_bytes() of dynamic shared memory,
// launched on a stream (capturable into a graph).
#pragma once

#include <cuda_runtime.h>

#include <cstdlib>

#include "cuda/cuda_check.hpp"
#include "features/cambi/cuda/blocks.hpp"

namespace speedqa::cambi::dev {

struct CudaBlock {
    int x = 0, y = 0, z = 0;
    unsigned char* shared = nullptr;
    template <class F>
    __host__ __device__ void each(int n, F&& f) const {
#if defined(__CUDA_ARCH__)
        for (int t = static_cast<int>(threadIdx.x); t < n; t += static_cast<int>(blockDim.x)) f(t);
        __syncthreads();
#else
        (void)n;
        (void)f;
        std::abort();  // device only
#endif
    }
};

template <class Body>
__global__ void k_blocks(Body body) {
    extern __shared__ uint4 block_shared[];
    CudaBlock b;
    b.x = static_cast<int>(blockIdx.x);
    b.y = static_cast<int>(blockIdx.y);
    b.z = static_cast<int>(blockIdx.z);
    b.shared = reinterpret_cast<unsigned char*>(block_shared);
    body(b);
}

struct CudaBlocks {
    cudaStream_t stream = nullptr;
    template <class Body>
    void launch(Extent blocks, const Body& body) const {
        if (blocks.x <= 0 || blocks.y <= 0 || blocks.z <= 0) return;
        const size_t shared = body.shared_bytes();
        if (shared > 48 * 1024)
            SPEEDQA_CUDA_CHECK(cudaFuncSetAttribute(k_blocks<Body>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                    static_cast<int>(shared)));
        k_blocks<<<dim3(static_cast<unsigned>(blocks.x), static_cast<unsigned>(blocks.y), static_cast<unsigned>(blocks.z)),
                   dim3(static_cast<unsigned>(body.threads())), shared, stream>>>(body);
        SPEEDQA_CUDA_CHECK(cudaGetLastError());
    }
};

}  // namespace speedqa::cambi::dev

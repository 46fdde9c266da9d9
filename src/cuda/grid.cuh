// The CUDA executor of core/grid.hpp's stages: one thread a point, blocks
// of 128 x 2 points, launched on a stream (capturable into a graph).
#pragma once

#include <cuda_runtime.h>

#include "core/grid.hpp"
#include "cuda/cuda_check.hpp"

namespace speedqa::cuda {

template <class F>
__global__ void k_for_each(Extent n, F f) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x < n.x && y < n.y) f(x, y, static_cast<int>(blockIdx.z));
}

struct CudaGrid {
    cudaStream_t stream = nullptr;
    template <class F>
    void for_each(Extent n, F f) const {
        if (n.x <= 0 || n.y <= 0 || n.z <= 0) return;
        const dim3 block(128, 2, 1);
        const dim3 grid(static_cast<unsigned>((n.x + 127) / 128), static_cast<unsigned>((n.y + 1) / 2),
                        static_cast<unsigned>(n.z));
        k_for_each<<<grid, block, 0, stream>>>(n, f);
        SPEEDQA_CUDA_CHECK(cudaGetLastError());
    }
};

}  // namespace speedqa::cuda

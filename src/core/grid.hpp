// One source for a device stage and its host twin. A feature's device part
// writes each stage as "for every point (x, y, z) of a grid, do f" with f a
// lambda marked SPEEDQA_HD_LAMBDA, in a plain header templated on the
// executor; the CUDA executor (cuda/grid.cuh: one thread a point) launches
// it, HostGrid below runs the same lambda at every point in order. So the
// host tests (which run without a GPU, in CI) run the device's exact
// statements and indexing, stage by stage, against the CPU kernels; only
// the launch itself is the device's own.
//
// Points of one stage must not depend on each other except through
// atomic_add of integers (any order gives the same sum).
#pragma once

#include <cstdint>

#include "exact/hd.hpp"

#if defined(__CUDACC__)
#define SPEEDQA_HD_LAMBDA __host__ __device__
#else
#define SPEEDQA_HD_LAMBDA
#endif

namespace speedqa {

struct Extent {
    int x = 1, y = 1, z = 1;
};

// The host executor: every point in order, x fastest.
struct HostGrid {
    template <class F>
    void for_each(Extent n, F&& f) const {
        for (int z = 0; z < n.z; z++)
            for (int y = 0; y < n.y; y++)
                for (int x = 0; x < n.x; x++) f(x, y, z);
    }
};

// Integer sums that any order leaves the same. On the device the lanes of a
// warp that all add to one counter (the points of a row adding to the
// row's sum: the usual case) add their sum once, so that a counter takes
// one atomic a warp instead of 32; other lanes add one by one. The sum is
// the same integer either way.
SPEEDQA_HD void atomic_add(unsigned long long* p, unsigned long long v) {
#if defined(__CUDA_ARCH__)
    const unsigned active = __activemask();
    const unsigned peers = __match_any_sync(active, reinterpret_cast<unsigned long long>(p));
    if (peers == 0xffffffffu) {
        for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
        unsigned lane;
        asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
        if (lane == 0) atomicAdd(p, v);
        return;
    }
    atomicAdd(p, v);
#else
    *p += v;
#endif
}
SPEEDQA_HD void atomic_add(long long* p, long long v) {
    // two's complement: the unsigned sum has the signed sum's bits
    atomic_add(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}
SPEEDQA_HD void atomic_max(unsigned* p, unsigned v) {
#if defined(__CUDA_ARCH__)
    atomicMax(p, v);
#else
    if (v > *p) *p = v;
#endif
}

}  // namespace speedqa

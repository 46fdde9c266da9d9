// Stages that need a block's cooperation (shared memory and barriers), with
// one source for the device and the host twin, beside core/grid.hpp's
// point stages: a stage is a body run once per block of a grid of blocks,
//
//   struct Body {
//       int threads() const;        // threads of a block
//       size_t shared_bytes() const;
//       template <class Ctx> SPEEDQA_HD void operator()(const Ctx& ctx) const;
//   };
//
// whose work is a sequence of phases, ctx.each(n, f): f(t) for every t in
// [0, n), then a barrier. HostBlocks (here) runs the blocks in order and
// every phase's f(t) in order of t; CudaBlocks (blocks.cuh) one CUDA block a
// block, its threads taking t = threadIdx.x, + blockDim.x, ... and
// __syncthreads() after each phase. So the rules that make both the same:
// - f(t) of one phase depend on each other only through the atomics below
//   on shared or global memory (integer sums, min and max; double sums only
//   where any order gives the same sum);
// - what a phase leaves for the next goes to shared or global memory, never
//   to a variable of the body (on the device each thread has its own);
// - the body's control flow between phases is the same for every thread
//   (it reads only what the last barrier made final).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/grid.hpp"

namespace speedqa::cambi::dev {

// The host twin's block: phases run in order of t.
struct HostBlock {
    int x = 0, y = 0, z = 0;           // block index
    unsigned char* shared = nullptr;   // shared_bytes(), 16-byte aligned
    template <class F>
    void each(int n, F&& f) const {
        for (int t = 0; t < n; t++) f(t);
    }
};

struct HostBlocks {
    template <class Body>
    void launch(Extent blocks, const Body& body) const {
        std::vector<uint64_t> shared((body.shared_bytes() + 15) / 8 + 2);
        for (int z = 0; z < blocks.z; z++)
            for (int y = 0; y < blocks.y; y++)
                for (int x = 0; x < blocks.x; x++) {
                    // shared memory starts undefined on the device: a body
                    // that reads what it did not write reads garbage here too
                    for (uint64_t& v : shared) v = 0xa5a5a5a5a5a5a5a5u + static_cast<uint64_t>(x + y + z);
                    HostBlock b;
                    b.x = x;
                    b.y = y;
                    b.z = z;
                    b.shared = reinterpret_cast<unsigned char*>(shared.data());
                    body(b);
                }
    }
};

// Atomics of a phase (shared or global memory), beside core/grid.hpp's
// atomic_max of unsigned. The integer ones give the same result in any
// order; add_double only where the sum is exact whatever its order (the
// pooling's sums below 2^53 units of their last place: any other sum is not
// used).
SPEEDQA_HD void add_u32(uint32_t* p, uint32_t v) {
#if defined(__CUDA_ARCH__)
    atomicAdd(p, v);
#else
    *p += v;
#endif
}
SPEEDQA_HD void min_i32(int* p, int v) {
#if defined(__CUDA_ARCH__)
    atomicMin(p, v);
#else
    if (v < *p) *p = v;
#endif
}
SPEEDQA_HD void max_i32(int* p, int v) {
#if defined(__CUDA_ARCH__)
    atomicMax(p, v);
#else
    if (v > *p) *p = v;
#endif
}
SPEEDQA_HD void add_double(double* p, double v) {
#if defined(__CUDA_ARCH__)
    atomicAdd(p, v);
#else
    *p += v;
#endif
}

// The sum of the four bytes of a word.
SPEEDQA_HD uint32_t byte_sum(uint32_t w) {
#if defined(__CUDA_ARCH__)
    return __dp4a(w, 0x01010101u, 0u);
#else
    return (w & 0xffu) + (w >> 8 & 0xffu) + (w >> 16 & 0xffu) + (w >> 24);
#endif
}

}  // namespace speedqa::cambi::dev

#include "cuda/staging.cuh"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <cstring>

#include "core/env.hpp"

namespace speedqa::cuda {
namespace {


// Copies a row into pinned staging with non-temporal stores: the bytes go to
// memory rather than into the CPU's caches, so that the DMA that uploads
// them next does not have to pull dirty lines out of the caches first.
void stream_copy(uint8_t* dst, const uint8_t* src, size_t n) {
#if defined(__SSE2__)
    size_t i = 0;
    while (i < n && (reinterpret_cast<uintptr_t>(dst + i) & 15)) {
        dst[i] = src[i];
        i++;
    }
    for (; i + 64 <= n; i += 64) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
        const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), a);
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
    }
    for (; i + 16 <= n; i += 16)
        _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    for (; i < n; i++) dst[i] = src[i];
#else
    std::memcpy(dst, src, n);
#endif
}

}  // namespace

UploadPlan make_upload_plan(const VideoFormat& format, const InputNeeds& needs) {
    UploadPlan u;
    u.plan = make_input_plan(format, needs);
    const InputPlan& p = u.plan;
    // Each 2D copy costs a few microseconds of host time to queue: straight
    // copies pay only where they are large (at 4K, not at 1080p chroma).
    constexpr size_t kMinBytesPerCopy = size_t{256} << 10;
    u.direct_possible = true;
    for (int q = 0; q < 3; q++) {
        if (!p.plane_used[q]) continue;
        const size_t bytes = p.rows[q].size() * static_cast<size_t>(p.layout.row_bytes[q]);
        if (bytes / p.groups[q].size() < kMinBytesPerCopy) u.direct_possible = false;
    }
    // SPEEDQA_DIRECT_COPIES=always|never overrides that (tests, benchmarks)
    const int force = env_choice("SPEEDQA_DIRECT_COPIES", {"always", "never"}, -1);
    if (force == 0) u.direct_possible = true;
    if (force == 1) u.direct_possible = false;
    return u;
}

void stage_picture(const UploadPlan& up, const Picture& pic, int side, unsigned planes, uint8_t* position) {
    const InputPlan& plan = up.plan;
    for (int p = 0; p < 3; p++) {
        if (!((planes >> p) & 1u) || plan.layout.plane_offset[side][p] < 0) continue;
        uint8_t* dst = position + plan.layout.plane_offset[side][p];
        const size_t rb = static_cast<size_t>(plan.layout.row_bytes[p]);
        if (plan.whole[p] && pic.stride[p] == static_cast<ptrdiff_t>(rb)) {
            stream_copy(dst, pic.plane[p], rb * plan.rows[p].size());
            continue;
        }
        for (size_t r = 0; r < plan.rows[p].size(); r++)
            stream_copy(dst + r * rb, pic.plane[p] + static_cast<ptrdiff_t>(plan.rows[p][r]) * pic.stride[p], rb);
    }
#if defined(__SSE2__)
    _mm_sfence();  // the streamed stores are visible before the upload is queued
#endif
}

bool can_copy_directly(const UploadPlan& up, const Picture& pic) {
    if (!up.direct_possible || !pic.page_locked) return false;
    // a run of several rows is one span only where rows follow each other
    const InputPlan& plan = up.plan;
    for (int p = 0; p < 3; p++)
        if (plan.plane_used[p] && plan.multi_row_runs[p] && pic.stride[p] != plan.layout.row_bytes[p]) return false;
    return true;
}

void copy_picture_directly(const UploadPlan& up, const Picture& pic, int side, unsigned planes, uint8_t* position,
                           cudaStream_t stream) {
    const InputPlan& plan = up.plan;
    for (int p = 0; p < 3; p++) {
        if (!((planes >> p) & 1u) || plan.layout.plane_offset[side][p] < 0) continue;
        uint8_t* dst = position + plan.layout.plane_offset[side][p];
        const size_t rb = static_cast<size_t>(plan.layout.row_bytes[p]);
        const size_t stride = static_cast<size_t>(pic.stride[p]);
        for (const RowGroup& g : plan.groups[p])
            SPEEDQA_CUDA_CHECK(cudaMemcpy2DAsync(dst + g.dst_row * rb, g.run_len * rb,
                                                 pic.plane[p] + static_cast<size_t>(g.first_row) * stride,
                                                 static_cast<size_t>(g.spacing) * stride, g.run_len * rb,
                                                 static_cast<size_t>(g.n_runs), cudaMemcpyHostToDevice, stream));
    }
}

}  // namespace speedqa::cuda

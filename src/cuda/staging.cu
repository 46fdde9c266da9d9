#include "cuda/staging.cuh"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <cstring>

#include "core/env.hpp"

namespace speedqa::cuda {
namespace {

constexpr size_t kAlign = 256;
size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

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

std::vector<RowGroup> row_groups(const std::vector<int>& rows) {
    std::vector<std::pair<int, int>> runs;  // (first row, length)
    for (size_t i = 0; i < rows.size();) {
        size_t j = i + 1;
        while (j < rows.size() && rows[j] == rows[j - 1] + 1) j++;
        runs.emplace_back(rows[i], static_cast<int>(j - i));
        i = j;
    }
    std::vector<RowGroup> groups;
    size_t dst = 0;
    for (size_t i = 0; i < runs.size();) {
        RowGroup g;
        g.first_row = runs[i].first;
        g.run_len = runs[i].second;
        g.n_runs = 1;
        g.dst_row = dst;
        size_t j = i + 1;
        if (j < runs.size() && runs[j].second == g.run_len) {
            g.spacing = runs[j].first - runs[i].first;
            while (j < runs.size() && runs[j].second == g.run_len && runs[j].first - runs[j - 1].first == g.spacing) {
                g.n_runs++;
                j++;
            }
        } else {
            g.spacing = g.run_len;
        }
        dst += static_cast<size_t>(g.run_len) * static_cast<size_t>(g.n_runs);
        groups.push_back(g);
        i = j;
    }
    return groups;
}

}  // namespace

UploadPlan make_upload_plan(const VideoFormat& format, const std::set<int> rows[3]) {
    UploadPlan u;
    InputLayout& L = u.layout;
    L.bitdepth = format.bitdepth;
    for (int p = 0; p < 3; p++) {
        u.plane_used[p] = !rows[p].empty();
        if (!u.plane_used[p]) continue;
        u.rows[p].assign(rows[p].begin(), rows[p].end());
        L.row_bytes[p] = format.feature_w(p) * format.bytes_per_sample();
        u.row_index[p].assign(static_cast<size_t>(format.feature_h(p)), -1);
        for (size_t i = 0; i < u.rows[p].size(); i++) u.row_index[p][static_cast<size_t>(u.rows[p][i])] = static_cast<int>(i);
    }
    size_t off = 0;
    for (int side = 0; side < 2; side++)
        for (int p = 0; p < 3; p++) {
            if (!u.plane_used[p]) continue;
            L.plane_offset[side][p] = off;
            off = align_up(off + u.rows[p].size() * static_cast<size_t>(L.row_bytes[p]));
        }
    L.frame_bytes = align_up(off);
    // Each 2D copy costs a few microseconds of host time to queue: straight
    // copies pay only where they are large (at 4K, not at 1080p chroma).
    constexpr size_t kMinBytesPerCopy = size_t{256} << 10;
    u.direct_possible = true;
    for (int p = 0; p < 3; p++) {
        if (!u.plane_used[p]) continue;
        u.groups[p] = row_groups(u.rows[p]);
        for (const RowGroup& g : u.groups[p]) u.multi_row_runs[p] = u.multi_row_runs[p] || g.run_len > 1;
        const size_t bytes = u.rows[p].size() * static_cast<size_t>(L.row_bytes[p]);
        if (bytes / u.groups[p].size() < kMinBytesPerCopy) u.direct_possible = false;
    }
    // SPEEDQA_DIRECT_COPIES=always|never overrides that (tests, benchmarks)
    const int force = env_choice("SPEEDQA_DIRECT_COPIES", {"always", "never"}, -1);
    if (force == 0) u.direct_possible = true;
    if (force == 1) u.direct_possible = false;
    return u;
}

void stage_picture(const UploadPlan& plan, const Picture& pic, int side, const bool planes[3], uint8_t* position) {
    for (int p = 0; p < 3; p++) {
        if (!plan.plane_used[p] || !planes[p]) continue;
        uint8_t* dst = position + plan.layout.plane_offset[side][p];
        const size_t rb = static_cast<size_t>(plan.layout.row_bytes[p]);
        for (size_t r = 0; r < plan.rows[p].size(); r++)
            stream_copy(dst + r * rb, pic.plane[p] + static_cast<ptrdiff_t>(plan.rows[p][r]) * pic.stride[p], rb);
    }
#if defined(__SSE2__)
    _mm_sfence();  // the streamed stores are visible before the upload is queued
#endif
}

bool can_copy_directly(const UploadPlan& plan, const Picture& pic) {
    if (!plan.direct_possible || !pic.page_locked) return false;
    // a run of several rows is one span only where rows follow each other
    for (int p = 0; p < 3; p++)
        if (plan.plane_used[p] && plan.multi_row_runs[p] && pic.stride[p] != plan.layout.row_bytes[p]) return false;
    return true;
}

void copy_picture_directly(const UploadPlan& plan, const Picture& pic, int side, const bool planes[3], uint8_t* position,
                           cudaStream_t stream) {
    for (int p = 0; p < 3; p++) {
        if (!plan.plane_used[p] || !planes[p]) continue;
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

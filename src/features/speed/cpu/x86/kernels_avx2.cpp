// AVX2 variants of the CPU kernels (compiled with -mavx2 -mfma). Same
// contract and conversion identities as the AVX-512 ones; see kernels.hpp.
#include <immintrin.h>

#include "core/cpu_flags.hpp"
#include "features/speed/cpu/kernels.hpp"
#include "features/speed/cpu/x86/cov_tiles.hpp"
#include "features/speed/exact/convert.hpp"
#include "features/speed/exact/solve.hpp"

#include <algorithm>
#include <utility>

namespace speedqa::cpu {
namespace {

using exact::kBlock;
using exact::kBlockElems;

template <int Mode>  // 0: float rows, 1: u8, 2: u8 diff, 3: u16, 4: u16 diff
inline __m256 load8(const uint8_t* a, const uint8_t* b, int c, __m256 scale, __m256 offset) {
    if constexpr (Mode == 0) {
        return _mm256_loadu_ps(reinterpret_cast<const float*>(a) + c);
    } else if constexpr (Mode == 1) {
        const __m256i s = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(a + c)));
        return _mm256_add_ps(_mm256_cvtepi32_ps(s), offset);
    } else if constexpr (Mode == 2) {
        const __m256i sa = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(a + c)));
        const __m256i sb = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + c)));
        return _mm256_cvtepi32_ps(_mm256_sub_epi32(sa, sb));
    } else if constexpr (Mode == 3) {
        const __m256i s = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + 2 * c)));
        return _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(s), scale), offset);
    } else {
        const __m256i sa = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + 2 * c)));
        const __m256i sb = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 2 * c)));
        return _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(sa, sb)), scale);
    }
}

template <int Mode>
void vertical_mode(const VerticalArgs& g) {
    const __m256 scale = _mm256_set1_ps(1.0f / exact::sample_scaler(g.bitdepth));
    const __m256 offset = _mm256_set1_ps(static_cast<float>(exact::kSampleOffset));
    int c = 0;
    // 32 columns at a time: four independent accumulation chains hide the
    // add latency (each column's taps still add in order)
    constexpr int kBytes = Mode == 0 ? 4 : (Mode <= 2 ? 1 : 2);
    for (; c + 32 <= g.n; c += 32) {
        prefetch_ahead(g, c, 32, kBytes);
        __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
        for (int k = 0; k < g.count; k++) {
            const __m256 t = _mm256_set1_ps(g.taps[k]);
            const uint8_t* a = g.a[k];
            const uint8_t* b = g.diff ? g.b[k] : nullptr;
            for (int q = 0; q < 4; q++)
                acc[q] = _mm256_add_ps(acc[q], _mm256_mul_ps(t, load8<Mode>(a, b, c + 8 * q, scale, offset)));
        }
        for (int q = 0; q < 4; q++) _mm256_storeu_ps(g.v + c + 8 * q, acc[q]);
    }
    for (; c + 8 <= g.n; c += 8) {
        __m256 acc = _mm256_setzero_ps();
        for (int k = 0; k < g.count; k++) {
            const __m256 x = load8<Mode>(g.a[k], g.diff ? g.b[k] : nullptr, c, scale, offset);
            acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_set1_ps(g.taps[k]), x));
        }
        _mm256_storeu_ps(g.v + c, acc);
    }
    vertical_columns_c(g, c);  // the last columns through the C reference
}

void vertical_avx2(const VerticalArgs& g) {
    if (g.rows_are_float) vertical_mode<0>(g);
    else if (g.bitdepth == 8) (g.diff ? vertical_mode<2> : vertical_mode<1>)(g);
    else (g.diff ? vertical_mode<4> : vertical_mode<3>)(g);
}

// The 25 centred samples (x - mean, in double) of every position of the
// row, 32 doubles a position (lanes 25..31 zero).
inline void centred_row(const float* img, int stride, int i, int sub_w, const double* mean, double* out) {
    for (int j = 0; j < sub_w; j++) {
        double* c = out + static_cast<ptrdiff_t>(j) * kCovPad;
        _mm256_storeu_pd(c + 24, _mm256_setzero_pd());
        _mm256_storeu_pd(c + 28, _mm256_setzero_pd());
        for (int rb = 0; rb < kBlock; rb++) {
            const float* p = img + static_cast<ptrdiff_t>(i + rb) * stride + j;
            const __m256d d = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(p)), _mm256_loadu_pd(mean + rb * kBlock));
            _mm256_storeu_pd(c + rb * kBlock, d);
            c[rb * kBlock + 4] = static_cast<double>(p[4]) - mean[rb * kBlock + 4];
        }
    }
}

// (Register tiles as the AVX-512 variant's, for 16 ymm registers: cov_tiles.hpp.)
template <int X0, int X1, bool Fused, size_t... K>
inline void tile_run(double* a, const double* centred, const int* js, int n, std::index_sequence<K...>) {
    constexpr TileMap<4, X0, X1> map;
    __m256d acc[sizeof...(K)];
    ((acc[K] = _mm256_loadu_pd(a + map.x[K] * kCovPad + map.v[K] * 4)), ...);
    for (int p = 0; p < n; p++) {
        const double* c = centred + static_cast<ptrdiff_t>(js[p]) * kCovPad;
        if constexpr (Fused)
            ((acc[K] = _mm256_fmadd_pd(_mm256_broadcast_sd(c + map.x[K]), _mm256_loadu_pd(c + 4 * map.v[K]), acc[K])), ...);
        else
            ((acc[K] = _mm256_add_pd(acc[K], _mm256_mul_pd(_mm256_broadcast_sd(c + map.x[K]), _mm256_loadu_pd(c + 4 * map.v[K])))),
             ...);
    }
    ((_mm256_storeu_pd(a + map.x[K] * kCovPad + map.v[K] * 4, acc[K])), ...);
}

template <int X0, int X1, bool Fused>
inline void tile(double* a, const double* centred, const int* js, int n) {
    tile_run<X0, X1, Fused>(a, centred, js, n, std::make_index_sequence<tile_size<4>(X0, X1)>());
}

// 91 accumulators in 9 tiles of 7 to 12
template <bool Fused>
inline void advance_run(double* a, const double* centred, const int* js, int n) {
    tile<0, 8, Fused>(a, centred, js, n);
    tile<8, 11, Fused>(a, centred, js, n);
    tile<11, 14, Fused>(a, centred, js, n);
    tile<14, 16, Fused>(a, centred, js, n);
    tile<16, 18, Fused>(a, centred, js, n);
    tile<18, 20, Fused>(a, centred, js, n);
    tile<20, 22, Fused>(a, centred, js, n);
    tile<22, 24, Fused>(a, centred, js, n);
    tile<24, 25, Fused>(a, centred, js, n);
}

void cov_rows_avx2(const float* img, int stride, int i0, int rows, int sub_w, const double* mean,
                   const exact::CovLayout& l, double* acc) {
    cov_rows_tiled(img, stride, i0, rows, sub_w, mean, l, acc, centred_row,
                   [](bool fused, double* a, const double* centred, const int* js, int n) {
                       if (fused) advance_run<true>(a, centred, js, n);
                       else advance_run<false>(a, centred, js, n);
                   });
}

void sums_row_avx2(const float* img, int stride, int i, int sub_w, float* sums) {
    // lanes 0..3 of an xmm per row block plus a scalar fifth chain
    __m128 acc[kBlock];
    float fifth[kBlock];
    for (int rb = 0; rb < kBlock; rb++) {
        acc[rb] = _mm_loadu_ps(sums + rb * kBlock);
        fifth[rb] = sums[rb * kBlock + 4];
    }
    for (int j = 0; j < sub_w; j++)
        for (int rb = 0; rb < kBlock; rb++) {
            const float* p = img + static_cast<ptrdiff_t>(i + rb) * stride + j;
            acc[rb] = _mm_add_ps(acc[rb], _mm_loadu_ps(p));
            fifth[rb] += p[4];
        }
    for (int rb = 0; rb < kBlock; rb++) {
        _mm_storeu_ps(sums + rb * kBlock, acc[rb]);
        sums[rb * kBlock + 4] = fifth[rb];
    }
}

// Row i of the product, 32 columns at a time in four ymm accumulators; each
// element: 0, then + x_ik * y_kj in k order. The last columns (under 8) go
// through the C reference's statement.
void matmul_avx2(float* dst, const float* x, const float* y, int rows, int inner, int cols) {
    for (int i = 0; i < rows; i++) {
        const float* xi = x + static_cast<ptrdiff_t>(i) * inner;
        float* di = dst + static_cast<ptrdiff_t>(i) * cols;
        int j0 = 0;
        for (; j0 + 8 <= cols; j0 += 32) {
            const int blocks = std::min(4, (cols - j0) / 8);
            __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
            for (int k = 0; k < inner; k++) {
                const __m256 xik = _mm256_set1_ps(xi[k]);
                const float* yk = y + static_cast<ptrdiff_t>(k) * cols + j0;
                for (int b = 0; b < blocks; b++) acc[b] = _mm256_add_ps(acc[b], _mm256_mul_ps(xik, _mm256_loadu_ps(yk + 8 * b)));
            }
            for (int b = 0; b < blocks; b++) _mm256_storeu_ps(di + j0 + 8 * b, acc[b]);
            if (blocks < 4) {
                j0 += 8 * blocks;
                break;
            }
        }
        for (; j0 < cols; j0++) di[j0] = exact::matmul_element(x, y, inner, cols, i, j0);
    }
}

const Kernels kAvx2{"avx2", vertical_avx2, cov_rows_avx2, sums_row_avx2, matmul_avx2};

}  // namespace

const Kernels* kernels_avx2() { return detect_cpu_flags().avx2 ? &kAvx2 : nullptr; }

}  // namespace speedqa::cpu

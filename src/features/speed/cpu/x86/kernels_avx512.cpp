// AVX-512 variants of the CPU kernels (compiled with -mavx512f/bw/dq/vl).
// Each output element gets the C reference's operations in its order; see
// kernels.hpp. Conversions use exact identities: for every supported depth
// sample / scaler + offset and the difference of two converted samples are
// exact in float, so (a - b) * (1 / scaler) computed in integers first gives
// the same bits as the reference's conv(a) - conv(b).
#include <immintrin.h>

#include <algorithm>
#include <utility>

#include "core/cpu_flags.hpp"
#include "features/speed/cpu/kernels.hpp"
#include "features/speed/cpu/x86/cov_tiles.hpp"
#include "features/speed/exact/convert.hpp"

namespace speedqa::cpu {
namespace {

using exact::kBlock;
using exact::kBlockElems;

template <int Mode>  // 0: float rows, 1: u8, 2: u8 diff, 3: u16, 4: u16 diff
inline __m512 load16(const uint8_t* a, const uint8_t* b, int c, __m512 scale, __m512 offset) {
    if constexpr (Mode == 0) {
        return _mm512_loadu_ps(reinterpret_cast<const float*>(a) + c);
    } else if constexpr (Mode == 1) {
        const __m512i s = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + c)));
        return _mm512_add_ps(_mm512_cvtepi32_ps(s), offset);
    } else if constexpr (Mode == 2) {
        const __m512i sa = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + c)));
        const __m512i sb = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + c)));
        return _mm512_cvtepi32_ps(_mm512_sub_epi32(sa, sb));
    } else if constexpr (Mode == 3) {
        const __m512i s = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + 2 * c)));
        return _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(s), scale), offset);
    } else {
        const __m512i sa = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + 2 * c)));
        const __m512i sb = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 2 * c)));
        return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(sa, sb)), scale);
    }
}

template <int Mode>
void vertical_mode(const VerticalArgs& g) {
    const __m512 scale = _mm512_set1_ps(1.0f / exact::sample_scaler(g.bitdepth));
    const __m512 offset = _mm512_set1_ps(static_cast<float>(exact::kSampleOffset));
    int c = 0;
    // 64 columns at a time: four independent accumulation chains hide the
    // add latency (each column's taps still add in order)
    constexpr int kBytes = Mode == 0 ? 4 : (Mode <= 2 ? 1 : 2);
    for (; c + 64 <= g.n; c += 64) {
        prefetch_ahead(g, c, 64, kBytes);
        __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
        for (int k = 0; k < g.count; k++) {
            const __m512 t = _mm512_set1_ps(g.taps[k]);
            const uint8_t* a = g.a[k];
            const uint8_t* b = g.diff ? g.b[k] : nullptr;
            for (int q = 0; q < 4; q++)
                acc[q] = _mm512_add_ps(acc[q], _mm512_mul_ps(t, load16<Mode>(a, b, c + 16 * q, scale, offset)));
        }
        for (int q = 0; q < 4; q++) _mm512_storeu_ps(g.v + c + 16 * q, acc[q]);
    }
    for (; c + 16 <= g.n; c += 16) {
        __m512 acc = _mm512_setzero_ps();
        for (int k = 0; k < g.count; k++) {
            const __m512 x = load16<Mode>(g.a[k], g.diff ? g.b[k] : nullptr, c, scale, offset);
            acc = _mm512_add_ps(acc, _mm512_mul_ps(_mm512_set1_ps(g.taps[k]), x));
        }
        _mm512_storeu_ps(g.v + c, acc);
    }
    vertical_columns_c(g, c);  // the last columns through the C reference
}

void vertical_avx512(const VerticalArgs& g) {
    if (g.rows_are_float) vertical_mode<0>(g);
    else if (g.bitdepth == 8) (g.diff ? vertical_mode<2> : vertical_mode<1>)(g);
    else (g.diff ? vertical_mode<4> : vertical_mode<3>)(g);
}

// The 25 centred samples (x - mean, in double) of every position of the
// row, 32 doubles a position (lanes 25..31 zero).
inline void centred_row(const float* img, int stride, int i, int sub_w, const double* mean, double* out) {
    for (int j = 0; j < sub_w; j++) {
        double* c = out + static_cast<ptrdiff_t>(j) * kCovPad;
        _mm512_storeu_pd(c + 24, _mm512_setzero_pd());
        for (int rb = 0; rb < kBlock; rb++) {
            const __m256 x = _mm256_maskz_loadu_ps(0x1f, img + static_cast<ptrdiff_t>(i + rb) * stride + j);
            const __m512d d = _mm512_sub_pd(_mm512_cvtps_pd(x), _mm512_maskz_loadu_pd(0x1f, mean + rb * kBlock));
            _mm512_mask_storeu_pd(c + rb * kBlock, 0x1f, d);
        }
    }
}

template <int X0, int X1, bool Fused, size_t... K>
inline void tile_run(double* a, const double* centred, const int* js, int n, std::index_sequence<K...>) {
    constexpr TileMap<8, X0, X1> map;
    constexpr int kVecs = (X1 - 1) / 8 + 1;
    __m512d acc[sizeof...(K)];
    ((acc[K] = _mm512_loadu_pd(a + map.x[K] * kCovPad + map.v[K] * 8)), ...);
    for (int p = 0; p < n; p++) {
        const double* c = centred + static_cast<ptrdiff_t>(js[p]) * kCovPad;
        __m512d cv[kVecs];
        for (int v = 0; v < kVecs; v++) cv[v] = _mm512_loadu_pd(c + 8 * v);
        if constexpr (Fused)
            ((acc[K] = _mm512_fmadd_pd(_mm512_set1_pd(c[map.x[K]]), cv[map.v[K]], acc[K])), ...);
        else
            ((acc[K] = _mm512_add_pd(acc[K], _mm512_mul_pd(_mm512_set1_pd(c[map.x[K]]), cv[map.v[K]]))), ...);
    }
    ((_mm512_storeu_pd(a + map.x[K] * kCovPad + map.v[K] * 8, acc[K])), ...);
}

template <bool Fused>
inline void advance_run(double* a, const double* centred, const int* js, int n) {
    tile_run<0, 16, Fused>(a, centred, js, n, std::make_index_sequence<tile_size<8>(0, 16)>());
    tile_run<16, 22, Fused>(a, centred, js, n, std::make_index_sequence<tile_size<8>(16, 22)>());
    tile_run<22, 25, Fused>(a, centred, js, n, std::make_index_sequence<tile_size<8>(22, 25)>());
}

void cov_rows_avx512(const float* img, int stride, int i0, int rows, int sub_w, const double* mean,
                     const exact::CovLayout& l, double* acc) {
    cov_rows_tiled(img, stride, i0, rows, sub_w, mean, l, acc, centred_row,
                   [](bool fused, double* a, const double* centred, const int* js, int n) {
                       if (fused) advance_run<true>(a, centred, js, n);
                       else advance_run<false>(a, centred, js, n);
                   });
}

void sums_row_avx512(const float* img, int stride, int i, int sub_w, float* sums) {
    __m256 acc[kBlock];
    for (int rb = 0; rb < kBlock; rb++) acc[rb] = _mm256_maskz_loadu_ps(0x1f, sums + rb * kBlock);
    for (int j = 0; j < sub_w; j++)
        for (int rb = 0; rb < kBlock; rb++)
            acc[rb] = _mm256_add_ps(acc[rb], _mm256_maskz_loadu_ps(0x1f, img + static_cast<ptrdiff_t>(i + rb) * stride + j));
    for (int rb = 0; rb < kBlock; rb++) _mm256_mask_storeu_ps(sums + rb * kBlock, 0x1f, acc[rb]);
}

// Row i of the product, 64 columns at a time in four zmm accumulators that
// stay in registers across k; each element: 0, then + x_ik * y_kj in k order.
void matmul_avx512(float* dst, const float* x, const float* y, int rows, int inner, int cols) {
    for (int i = 0; i < rows; i++) {
        const float* xi = x + static_cast<ptrdiff_t>(i) * inner;
        float* di = dst + static_cast<ptrdiff_t>(i) * cols;
        for (int j0 = 0; j0 < cols; j0 += 64) {
            __mmask16 m[4];
            for (int b = 0; b < 4; b++) {
                const int left = cols - j0 - 16 * b;
                m[b] = left >= 16 ? __mmask16(0xffff) : left <= 0 ? __mmask16(0) : __mmask16((1u << left) - 1);
            }
            __m512 acc[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
            for (int k = 0; k < inner; k++) {
                const __m512 xik = _mm512_set1_ps(xi[k]);
                const float* yk = y + static_cast<ptrdiff_t>(k) * cols + j0;
                for (int b = 0; b < 4; b++)
                    if (m[b]) acc[b] = _mm512_add_ps(acc[b], _mm512_mul_ps(xik, _mm512_maskz_loadu_ps(m[b], yk + 16 * b)));
            }
            for (int b = 0; b < 4; b++)
                if (m[b]) _mm512_mask_storeu_ps(di + j0 + 16 * b, m[b], acc[b]);
        }
    }
}

const Kernels kAvx512{"avx512", vertical_avx512, cov_rows_avx512, sums_row_avx512, matmul_avx512};

}  // namespace

const Kernels* kernels_avx512() { return detect_cpu_flags().avx512 ? &kAvx512 : nullptr; }

}  // namespace speedqa::cpu

// The C reference of the CPU kernels: the statements of the reference,
// element by element.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "features/speed/cpu/kernels.hpp"
#include "core/cpu_flags.hpp"
#include "exact/filter.hpp"
#include "features/speed/exact/convert.hpp"
#include "features/speed/exact/sequence.hpp"

namespace speedqa::cpu {
namespace {

using exact::kBlock;
using exact::kBlockElems;

float sample(const uint8_t* row, int c, int bitdepth) {
    if (bitdepth == 8) return exact::convert_8bit(row[c]);
    uint16_t s;
    std::memcpy(&s, row + 2 * c, 2);
    return exact::convert_hbd(s, exact::sample_scaler(bitdepth));
}

void vertical_c(const VerticalArgs& g) { vertical_columns_c(g, 0); }

}  // namespace

void vertical_columns_c(const VerticalArgs& g, int from) {
    for (int c = from; c < g.n; c++) g.v[c] = 0.0f;
    for (int k = 0; k < g.count; k++) {
        const float t = g.taps[k];
        for (int c = from; c < g.n; c++) {
            float x;
            if (g.rows_are_float) x = reinterpret_cast<const float*>(g.a[k])[c];
            else if (g.diff) x = sample(g.a[k], c, g.bitdepth) - sample(g.b[k], c, g.bitdepth);
            else x = sample(g.a[k], c, g.bitdepth);
            g.v[c] = exact::tap_step(g.v[c], t, x);  // tap k of every column's sum
        }
    }
}

namespace {

void cov_rows_c(const float* img, int stride, int i0, int rows, int sub_w, const double* mean,
                const exact::CovLayout& l, double* acc) {
    double c[kBlockElems];
    for (int i = i0; i < i0 + rows; i++)
    for (int j = 0; j < sub_w; j++) {
        for (int b = 0; b < kBlockElems; b++)
            c[b] = static_cast<double>(img[static_cast<ptrdiff_t>(i + b / kBlock) * stride + j + b % kBlock]) - mean[b];
        const int s = l.chain_of(j);
        double* a = acc + static_cast<ptrdiff_t>(s) * kCovChainDoubles;
        for (int x = 0; x < kBlockElems; x++)
            for (int y = 0; y <= x; y++) a[x * kCovPad + y] = exact::cov_term(l.fused(s), a[x * kCovPad + y], c[x], c[y]);
    }
}

void sums_row_c(const float* img, int stride, int i, int sub_w, float* sums) {
    for (int b = 0; b < kBlockElems; b++)
        sums[b] = exact::mean_chain_row(sums[b], img + static_cast<ptrdiff_t>(i + b / kBlock) * stride + b % kBlock, sub_w);
}

void matmul_c(float* dst, const float* x, const float* y, int rows, int inner, int cols) {
    exact::matmul(dst, x, y, rows, inner, cols);
}

const Kernels kC{"c", vertical_c, cov_rows_c, sums_row_c, matmul_c};

}  // namespace

const Kernels& kernels_c() { return kC; }

CovScratch cov_scratch(size_t centred_doubles, size_t js_ints, size_t row_js_ints) {
    thread_local std::vector<double> centred;
    thread_local std::vector<int> js, row_js;
    if (centred.size() < centred_doubles) centred.resize(centred_doubles);
    if (js.size() < js_ints) js.resize(js_ints);
    if (row_js.size() < row_js_ints) row_js.resize(row_js_ints);
    return {centred.data(), js.data(), row_js.data()};
}

#if !defined(SPEEDQA_HAVE_X86_KERNELS)
const Kernels* kernels_avx2() { return nullptr; }
const Kernels* kernels_avx512() { return nullptr; }
#endif

const Kernels& kernels_for(Isa isa) {
    if (isa == Isa::avx512 && kernels_avx512()) return *kernels_avx512();
    if (isa != Isa::c && kernels_avx2()) return *kernels_avx2();
    return kC;
}

const Kernels& best_kernels() { return kernels_for(host_isa()); }

}  // namespace speedqa::cpu

// checkasm for the CPU kernels: every SIMD variant this CPU can run against
// the C reference, bit for bit, on random inputs of awkward sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "features/speed/cpu/kernels.hpp"

namespace speedqa::cpu {
namespace {

std::vector<const Kernels*> variants() {
    std::vector<const Kernels*> v;
    if (kernels_avx2()) v.push_back(kernels_avx2());
    if (kernels_avx512()) v.push_back(kernels_avx512());
    return v;
}

TEST(CpuKernels, VerticalPassEveryModeAndDepth) {
    const auto vs = variants();
    if (vs.empty()) GTEST_SKIP() << "this CPU runs no SIMD variant: only the C reference exists here";
    std::mt19937 rng(3);
    long long checked = 0;
    for (int bitdepth : {8, 10, 12, 16})
        for (int mode = 0; mode < 3; mode++)  // plain, diff, float rows
            for (int n : {1, 7, 8, 15, 16, 17, 33, 100, 257}) {
                const int count = 3 + static_cast<int>(rng() % 35);
                const int bytes = mode == 2 ? 4 : (bitdepth > 8 ? 2 : 1);
                std::vector<std::vector<uint8_t>> ra(static_cast<size_t>(count)), rb(static_cast<size_t>(count));
                std::vector<const uint8_t*> pa, pb;
                std::vector<float> taps(static_cast<size_t>(count));
                std::normal_distribution<float> nd(0, 1);
                for (float& t : taps) t = nd(rng);
                const uint32_t maxv = (1u << bitdepth) - 1;
                for (int k = 0; k < count; k++) {
                    for (auto* r : {&ra[k], &rb[k]}) {
                        r->resize(static_cast<size_t>(n) * bytes);
                        for (int c = 0; c < n; c++) {
                            if (mode == 2) {
                                const float f = nd(rng) * 100;
                                std::memcpy(r->data() + 4 * c, &f, 4);
                            } else if (bytes == 1) {
                                (*r)[static_cast<size_t>(c)] = static_cast<uint8_t>(rng() & maxv);
                            } else {
                                const uint16_t s = static_cast<uint16_t>(rng() & maxv);
                                std::memcpy(r->data() + 2 * c, &s, 2);
                            }
                        }
                    }
                    pa.push_back(ra[k].data());
                    pb.push_back(rb[k].data());
                }
                VerticalArgs g;
                g.n = n;
                g.taps = taps.data();
                g.count = count;
                g.a = pa.data();
                g.b = pb.data();
                g.bitdepth = bitdepth;
                g.diff = mode == 1;
                g.rows_are_float = mode == 2;
                std::vector<float> want(static_cast<size_t>(n)), got(static_cast<size_t>(n));
                g.v = want.data();
                kernels_c().vertical(g);
                for (const Kernels* k : vs) {
                    g.v = got.data();
                    k->vertical(g);
                    ASSERT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * 4))
                        << k->name << " depth " << bitdepth << " mode " << mode << " n " << n;
                    checked += n;
                }
            }
    std::printf("[kernels] vertical: %lld outputs identical to the C reference\n", checked);
}

TEST(CpuKernels, CovarianceRowsAndSumsEveryOrder) {
    const auto vs = variants();
    if (vs.empty()) GTEST_SKIP() << "this CPU runs no SIMD variant: only the C reference exists here";
    std::mt19937 rng(4);
    std::normal_distribution<float> nd(0, 30);
    long long checked = 0;
    for (exact::CovOrder order : {exact::CovOrder::scalar, exact::CovOrder::avx2, exact::CovOrder::avx512})
        for (int sub_w : {1, 3, 4, 7, 8, 12, 15, 16, 23, 24, 31, 61, 236}) {
            const int sub_h = 4, stride = sub_w + 4 + static_cast<int>(rng() % 3);
            std::vector<float> img(static_cast<size_t>(stride) * (sub_h + 4));
            for (float& v : img) v = nd(rng);
            alignas(64) double mean[kCovPad] = {};
            for (int b = 0; b < 25; b++) mean[b] = nd(rng) / 10;
            const exact::CovLayout l = exact::cov_layout(order, sub_w);
            const size_t n = static_cast<size_t>(l.chains()) * kCovChainDoubles;
            std::vector<double> want(n, 0.0);
            float sums_want[25] = {};
            for (int i = 0; i < sub_h; i++) {
                kernels_c().cov_rows(img.data(), stride, i, 1, sub_w, mean, l, want.data());
                kernels_c().sums_row(img.data(), stride, i, sub_w, sums_want);
            }
            for (const Kernels* k : vs) {
                std::vector<double> got(n, 0.0);
                float sums_got[25] = {};
                k->cov_rows(img.data(), stride, 0, 3, sub_w, mean, l, got.data());  // a strip, then single rows
                for (int i = 3; i < sub_h; i++) k->cov_rows(img.data(), stride, i, 1, sub_w, mean, l, got.data());
                for (int i = 0; i < sub_h; i++) k->sums_row(img.data(), stride, i, sub_w, sums_got);
                for (int s = 0; s < l.chains(); s++)
                    for (int x = 0; x < 25; x++)
                        for (int y = 0; y <= x; y++) {
                            const size_t at = static_cast<size_t>(s) * kCovChainDoubles + x * kCovPad + y;
                            ASSERT_EQ(0, std::memcmp(&want[at], &got[at], 8)) << k->name << " w " << sub_w << " chain " << s;
                            checked++;
                        }
                ASSERT_EQ(0, std::memcmp(sums_want, sums_got, sizeof sums_want)) << k->name << " sums w " << sub_w;
            }
        }
    std::printf("[kernels] covariance: %lld chain sums identical to the C reference\n", checked);
}

TEST(CpuKernels, MatrixProductsEveryShape) {
    const auto vs = variants();
    if (vs.empty()) GTEST_SKIP() << "this CPU runs no SIMD variant: only the C reference exists here";
    std::mt19937 rng(5);
    std::normal_distribution<float> nd(0, 3);
    long long checked = 0;
    for (int cols : {1, 5, 7, 8, 15, 16, 17, 25, 31, 33, 64, 65, 72, 100, 312, 1296})
        for (int inner : {1, 25}) {
            const int rows = 25;
            std::vector<float> x(static_cast<size_t>(rows) * inner), y(static_cast<size_t>(inner) * cols);
            for (float& v : x) v = nd(rng);
            for (float& v : y) v = nd(rng) * ((rng() % 7) ? 1.0f : 1e-30f);
            std::vector<float> want(static_cast<size_t>(rows) * cols), got(want.size());
            kernels_c().matmul(want.data(), x.data(), y.data(), rows, inner, cols);
            for (const Kernels* k : vs) {
                std::fill(got.begin(), got.end(), -1.0f);
                k->matmul(got.data(), x.data(), y.data(), rows, inner, cols);
                ASSERT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * 4)) << k->name << " cols " << cols;
                checked += static_cast<long long>(want.size());
            }
        }
    std::printf("[kernels] matmul: %lld elements identical to the C reference\n", checked);
}

}  // namespace
}  // namespace speedqa::cpu

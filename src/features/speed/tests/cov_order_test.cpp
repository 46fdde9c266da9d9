// checkasm for the covariance orders: our chain emulation of each order
// (exact/covariance.hpp, used by every engine) against the reference's
// kernels written out as the reference writes them, with the real
// intrinsics where this CPU has them, on random data of every awkward width.
#include <gtest/gtest.h>

// GCC 12's own _mm512_cvtps_pd trips -Wmaybe-uninitialized (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <cmath>
#include <cstring>
#include <random>

#include "core/cpu_flags.hpp"
#include "features/speed/cpu/est_params.hpp"
#include "features/speed/reference/est_params.hpp"
#include "features/speed/exact/covariance.hpp"

namespace speedqa {
namespace {

using Kernel = double (*)(const float*, const float*, size_t, size_t, size_t, double, double);

double kernel_scalar(const float* x, const float* y, size_t stride, size_t h, size_t w, double mx, double my) {
    double result = 0;
    for (size_t i = 0; i < h; i++)
        for (size_t j = 0; j < w; j++) {
            double vx = x[i * stride + j];
            double vy = y[i * stride + j];
            result += (vx - mx) * (vy - my);
        }
    return result;
}

__attribute__((target("avx2,fma"))) double kernel_avx2(const float* x, const float* y, size_t stride, size_t h,
                                                        size_t w, double mean_x, double mean_y) {
    __m256d acc0 = _mm256_setzero_pd(), acc1 = _mm256_setzero_pd();
    const __m256d mx = _mm256_set1_pd(mean_x), my = _mm256_set1_pd(mean_y);
    double tail = 0.0;
    for (size_t i = 0; i < h; i++) {
        const float* rx = x + i * stride;
        const float* ry = y + i * stride;
        size_t j = 0;
        for (; j + 7 < w; j += 8) {
            __m256d cx0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(rx + j)), mx);
            __m256d cx1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(rx + j + 4)), mx);
            __m256d cy0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(ry + j)), my);
            __m256d cy1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(ry + j + 4)), my);
            acc0 = _mm256_fmadd_pd(cx0, cy0, acc0);
            acc1 = _mm256_fmadd_pd(cx1, cy1, acc1);
        }
        for (; j + 3 < w; j += 4) {
            __m256d cx = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(rx + j)), mx);
            __m256d cy = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(ry + j)), my);
            acc0 = _mm256_fmadd_pd(cx, cy, acc0);
        }
        for (; j < w; j++) {
            double vx = rx[j], vy = ry[j];
            tail += (vx - mean_x) * (vy - mean_y);
        }
    }
    __m256d acc = _mm256_add_pd(acc0, acc1);
    double t[4];
    _mm256_storeu_pd(t, acc);
    return t[0] + t[1] + t[2] + t[3] + tail;
}

__attribute__((target("avx512f,avx512dq,avx512bw,avx512cd,avx512vl"))) double kernel_avx512(
    const float* x, const float* y, size_t stride, size_t h, size_t w, double mean_x, double mean_y) {
    __m512d acc0 = _mm512_setzero_pd(), acc1 = _mm512_setzero_pd();
    const __m512d mx = _mm512_set1_pd(mean_x), my = _mm512_set1_pd(mean_y);
    double tail = 0.0;
    for (size_t i = 0; i < h; i++) {
        const float* rx = x + i * stride;
        const float* ry = y + i * stride;
        size_t j = 0;
        for (; j + 15 < w; j += 16) {
            __m512d cx0 = _mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(rx + j)), mx);
            __m512d cx1 = _mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(rx + j + 8)), mx);
            __m512d cy0 = _mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(ry + j)), my);
            __m512d cy1 = _mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(ry + j + 8)), my);
            acc0 = _mm512_fmadd_pd(cx0, cy0, acc0);
            acc1 = _mm512_fmadd_pd(cx1, cy1, acc1);
        }
        for (; j + 7 < w; j += 8) {
            __m512d cx = _mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(rx + j)), mx);
            __m512d cy = _mm512_sub_pd(_mm512_cvtps_pd(_mm256_loadu_ps(ry + j)), my);
            acc0 = _mm512_fmadd_pd(cx, cy, acc0);
        }
        for (; j < w; j++) {
            double vx = rx[j], vy = ry[j];
            tail += (vx - mean_x) * (vy - mean_y);
        }
    }
    return _mm512_reduce_add_pd(_mm512_add_pd(acc0, acc1)) + tail;
}

// The chain emulation every engine uses, for one pair.
double emulated(exact::CovOrder order, const float* x, const float* y, size_t stride, size_t h, size_t w, double mx,
                double my) {
    const exact::CovLayout l = exact::cov_layout(order, static_cast<int>(w));
    double s[exact::kMaxCovChains] = {};
    for (size_t i = 0; i < h; i++)
        for (size_t j = 0; j < w; j++) {
            const int k = l.chain_of(static_cast<int>(j));
            s[k] = exact::cov_term(l.fused(k), s[k], static_cast<double>(x[i * stride + j]) - mx,
                                   static_cast<double>(y[i * stride + j]) - my);
        }
    return exact::cov_finish(order, s);
}

struct Data {
    std::vector<float> img;
    size_t stride;
};

Data random_data(std::mt19937& rng, size_t w, size_t h) {
    std::normal_distribution<float> n(0, 40);
    Data d{std::vector<float>((h + 4) * (w + 4)), w + 4};
    for (float& v : d.img) v = n(rng);
    return d;
}

void check_order(exact::CovOrder order, Kernel kernel, const char* name) {
    std::mt19937 rng(42 + static_cast<int>(order));
    std::uniform_real_distribution<double> mean(-3, 3);
    long long compared = 0, differs_from_scalar = 0;
    for (size_t w = 1; w <= 70; w++)
        for (size_t h : {1, 2, 5, 9}) {
            const Data d = random_data(rng, w, h);
            const double mx = mean(rng), my = mean(rng);
            const float* x = d.img.data() + 1;
            const float* y = d.img.data() + d.stride + 3;
            const double want = kernel(x, y, d.stride, h, w, mx, my);
            const double got = emulated(order, x, y, d.stride, h, w, mx, my);
            ASSERT_EQ(std::memcmp(&want, &got, sizeof want), 0) << name << " w=" << w << " h=" << h;
            if (want != kernel_scalar(x, y, d.stride, h, w, mx, my)) differs_from_scalar++;
            compared++;
        }
    std::printf("[cov-order] %s: %lld random sums identical to the reference kernel (%lld differ from scalar)\n", name,
                compared, differs_from_scalar);
    if (order != exact::CovOrder::scalar) {
        EXPECT_GT(differs_from_scalar, 0) << "test data cannot tell the orders apart";
    }
}

TEST(CovarianceOrder, ScalarChainMatchesReferenceStatement) {
    check_order(exact::CovOrder::scalar, kernel_scalar, "scalar");
}

TEST(CovarianceOrder, Avx2ChainsMatchAvx2Kernel) {
    if (!detect_cpu_flags().avx2) GTEST_SKIP() << "this CPU has no AVX2: the AVX2 kernel cannot run here";
    check_order(exact::CovOrder::avx2, kernel_avx2, "avx2");
}

TEST(CovarianceOrder, Avx512ChainsMatchAvx512Kernel) {
    if (!detect_cpu_flags().avx512) GTEST_SKIP() << "this CPU has no AVX-512: the AVX-512 kernel cannot run here";
    check_order(exact::CovOrder::avx512, kernel_avx512, "avx512");
}

// Every covariance of est_params (the CPU engine's, all pairs at once, and
// the straightforward path's, pair by pair) against the reference kernels
// applied pair by pair, as compute_covariance_matrix does.
TEST(CovarianceOrder, EstParamsMatrixMatchesPerPairKernels) {
    const CpuFlags flags = detect_cpu_flags();
    std::mt19937 rng(5);
    for (auto [order, kernel, ok] : {std::tuple{exact::CovOrder::scalar, Kernel{kernel_scalar}, true},
                                     std::tuple{exact::CovOrder::avx2, Kernel{kernel_avx2}, flags.avx2},
                                     std::tuple{exact::CovOrder::avx512, Kernel{kernel_avx512}, flags.avx512}}) {
        if (!ok) continue;
        for (int tw : {5, 25, 40, 55}) {
            exact::Dimensions dim = exact::compute_dimensions(tw * 16, 10 * 16, 1.0);
            std::normal_distribution<float> n(0, 30);
            std::vector<float> img(static_cast<size_t>(dim.operating_w) * dim.operating_h);
            for (float& v : img) v = n(rng);
            cpu::EstParams all_pairs(dim, order);
            reference::EstParams per_pair(dim, order);
            const auto check = [&](const auto& est) {
                for (int a = 0; a < 25; a++)
                    for (int b = 0; b <= a; b++) {
                        const float* x = img.data() + (a / 5) * dim.operating_w + a % 5;
                        const float* y = img.data() + (b / 5) * dim.operating_w + b % 5;
                        const double sum = kernel(x, y, static_cast<size_t>(dim.operating_w), static_cast<size_t>(dim.sub_h),
                                                  static_cast<size_t>(dim.sub_w), est.means()[a], est.means()[b]);
                        const float want = static_cast<float>(sum / (dim.sub_w * dim.sub_h));
                        ASSERT_EQ(want, est.covariance()[a * 25 + b]) << "pair " << a << "," << b;
                        ASSERT_EQ(want, est.covariance()[b * 25 + a]);
                    }
            };
            ImageStats st;
            all_pairs.run(img.data(), dim.operating_w, st);
            check(all_pairs);
            per_pair.run(img.data(), dim.operating_w, st);
            check(per_pair);
        }
    }
}

}  // namespace
}  // namespace speedqa

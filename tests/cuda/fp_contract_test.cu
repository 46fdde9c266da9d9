// The device's floating point must be the host's, operation by operation:
// no contraction of a * b + c, IEEE division and square root, in float and
// double, fma only where written, and the conversions the device parts use
// (integer to float and double, double to integer by truncation, rounding
// to nearest even). 2^24 random operands a run, spanning the exponent
// range, compared bit for bit (NaN with NaN).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "features/speed/exact/eigen.hpp"

namespace {

constexpr int kOps = 18;
constexpr size_t kCount = size_t{1} << 24;

// The same expressions on both sides; the host TU is compiled with
// -ffp-contract=off and the device with --fmad=false.
__host__ __device__ inline void evaluate(float a, float b, float c, double da, double db, double dc, long long ia,
                                         double* r) {
    auto put = [r](int op, double v) { r[op] = v; };
    put(0, a * b + c);                                                // float multiply then add
    put(1, a / b);                                                    // float division
    put(2, static_cast<float>(::sqrt(static_cast<double>(::fabsf(a)))));  // sqrt via double
    put(3, a * b - c * a);                                            // two products, one difference
    put(4, speedqa::exact::hypot_float(a, b));                        // sqrt(x*x + y*y)
    put(5, static_cast<float>(1.0 / ::sqrt(static_cast<double>(1 + a * a))));  // Givens' 1.0 / sqrt(1 + t*t)
    put(6, static_cast<float>(-0.5 * static_cast<double>(a) * static_cast<double>(b)));
    put(7, da * db + dc);                                             // double multiply then add
    put(8, da / db);
    put(9, ::sqrt(::fabs(da)));
    put(10, ::fma(da, db, dc));                                       // the explicit fma of the covariance lanes
    put(11, static_cast<float>(da * db + dc));                        // double result rounded to float
    // conversions (ADM's sums to float and double, its rounding of a gain
    // product, VIF's truncations, CAMBI's integer products times a float)
    // (finite and in range: elsewhere C leaves the conversions undefined)
    const double finite = ::isfinite(da) ? da : 0.0;
    const double in_range = ::fmod(finite, 9.0e18), in_int = ::fmod(finite, 2.0e9);
    put(12, static_cast<double>(ia));                                 // int64 -> double
    put(13, static_cast<float>(ia));                                  // int64 -> float
    put(14, static_cast<double>(static_cast<long long>(in_range)));   // double -> int64, truncating
    put(15, ::nearbyint(in_range));                                   // to nearest, ties to even
    put(16, static_cast<double>(static_cast<int>(in_int)));           // double -> int32, truncating
    put(17, static_cast<float>(static_cast<int>(ia >> 40)) * a);     // int -> float, times a float
}

__global__ void k_evaluate(const float* fa, const float* fb, const float* fc, const double* da, const double* db,
                           const double* dc, const long long* ia, double* out, size_t n) {
    const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    evaluate(fa[i], fb[i], fc[i], da[i], db[i], dc[i], ia[i], out + i * kOps);
}

float random_float(std::mt19937_64& rng) {
    // random sign, exponent over the whole normal range and some subnormals, random mantissa
    const uint32_t sign = static_cast<uint32_t>(rng() & 1) << 31;
    const uint32_t exp = static_cast<uint32_t>(rng() % 254);  // 0 (subnormal) .. 253
    const uint32_t mant = static_cast<uint32_t>(rng()) & 0x7fffff;
    const uint32_t bits = sign | (exp << 23) | mant;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

double random_double(std::mt19937_64& rng) {
    const uint64_t sign = (rng() & 1) << 63;
    const uint64_t exp = rng() % 2046;
    const uint64_t mant = rng() & ((uint64_t{1} << 52) - 1);
    const uint64_t bits = sign | (exp << 52) | mant;
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
}

bool same_bits(double x, double y) {
    if (std::isnan(x) && std::isnan(y)) return true;
    return std::memcmp(&x, &y, 8) == 0;
}

template <class T>
T* to_device(const std::vector<T>& v) {
    T* d = nullptr;
    EXPECT_EQ(cudaMalloc(&d, v.size() * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    return d;
}

TEST(DeviceFpContract, EveryOperationMatchesTheHostOn16MOperands) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        cudaGetLastError();
        GTEST_SKIP() << "no CUDA device present: the device FP-contract test did not run";
    }
    std::mt19937_64 rng(2024);
    std::vector<float> fa(kCount), fb(kCount), fc(kCount);
    std::vector<double> da(kCount), db(kCount), dc(kCount);
    std::vector<long long> ia(kCount);
    for (size_t i = 0; i < kCount; i++) {
        // integers of every width up to 64 bits, either sign
        ia[i] = static_cast<long long>(rng()) >> (rng() % 64);
        fa[i] = random_float(rng), fb[i] = random_float(rng), fc[i] = random_float(rng);
        // operands of similar scale half the time, so that sums really round
        if (i % 2) fc[i] = fa[i] * fb[i] * (1 + static_cast<float>(rng() % 1000) / 1e4f);
        da[i] = random_double(rng), db[i] = random_double(rng), dc[i] = random_double(rng);
        if (i % 2) dc[i] = da[i] * db[i] * (1 + static_cast<double>(rng() % 1000) / 1e4);
    }
    double* out = nullptr;
    ASSERT_EQ(cudaMalloc(&out, kCount * kOps * sizeof(double)), cudaSuccess);
    float *dfa = to_device(fa), *dfb = to_device(fb), *dfc = to_device(fc);
    double *dda = to_device(da), *ddb = to_device(db), *ddc = to_device(dc);
    long long* dia = to_device(ia);
    k_evaluate<<<static_cast<unsigned>((kCount + 255) / 256), 256>>>(dfa, dfb, dfc, dda, ddb, ddc, dia, out, kCount);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    std::vector<double> got(kCount * kOps);
    ASSERT_EQ(cudaMemcpy(got.data(), out, got.size() * sizeof(double), cudaMemcpyDeviceToHost), cudaSuccess);
    long long compared = 0, mismatches[kOps] = {};
    for (size_t i = 0; i < kCount; i++) {
        double host[kOps];
        evaluate(fa[i], fb[i], fc[i], da[i], db[i], dc[i], ia[i], host);
        for (int op = 0; op < kOps; op++) {
            compared++;
            if (!same_bits(host[op], got[i * kOps + op]) && mismatches[op]++ < 3)
                ADD_FAILURE() << "op " << op << " operand " << i << ": host " << std::hexfloat << host[op] << " device "
                              << got[i * kOps + op];
        }
    }
    for (int op = 0; op < kOps; op++) EXPECT_EQ(mismatches[op], 0) << "op " << op;
    std::printf("[fp-contract] %lld device results (%zu operand sets x %d operations) identical to the host\n", compared,
                kCount, kOps);
    cudaFree(out);
    cudaFree(dfa), cudaFree(dfb), cudaFree(dfc), cudaFree(dda), cudaFree(ddb), cudaFree(ddc), cudaFree(dia);
}

}  // namespace

// VIF's per-pixel statistic on the device is the host's, bit for bit: its
// double arithmetic (a division, products, conversions to int32 and int64
// by truncation) and its log2 table lookups, on 4M random (sigma1, sigma2,
// sigma12) triples that reach every branch, with vif_enhn_gain_limit 100 and
// 1. (The FP-contract test checks the operations one by one; this checks the
// statement sequence the vif tiles run.)
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <random>
#include <vector>

#include "features/vif/exact/vif_exact.hpp"
#include "features/vif/vif_plan.hpp"

namespace {

namespace ev = speedqa::exact::vif;

constexpr size_t kCount = size_t{1} << 22;

__global__ void k_accumulate(const ev::Sigmas* in, double gain_limit, const uint16_t* table, ev::Sums* out, size_t n) {
    const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    ev::Sums s;
    ev::accumulate(in[i], gain_limit, table, s);
    out[i] = s;
}

// sigma1 around and above the noise floor (2^17), sigma2 and sigma12 of
// either sign and every magnitude up to 2^31
ev::Sigmas random_sigmas(std::mt19937_64& rng) {
    const auto magnitude = [&](int max_bits) {
        const int bits = static_cast<int>(rng() % static_cast<unsigned>(max_bits + 1));
        return bits == 0 ? int32_t{0} : static_cast<int32_t>(rng() & ((uint64_t{1} << bits) - 1));
    };
    ev::Sigmas s;
    s.s1 = (rng() % 8 == 0) ? -magnitude(20) : magnitude(30);
    if (rng() % 4 == 0) s.s1 = ev::kSigmaNsq + static_cast<int32_t>(rng() % 64) - 32;
    s.s2 = (rng() % 5 == 0) ? -magnitude(20) : magnitude(30);
    s.s12 = (rng() % 4 == 0) ? -magnitude(30) : magnitude(30);
    if (rng() % 3 == 0) s.s12 = static_cast<int32_t>(static_cast<double>(s.s1) * (0.01 * static_cast<double>(rng() % 300)));
    return s;
}

TEST(DeviceVifStatistic, AccumulateMatchesTheHostOn4MSigmas) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        cudaGetLastError();
        GTEST_SKIP() << "no CUDA device present: the device VIF statistic test did not run";
    }
    std::mt19937_64 rng(38);
    std::vector<ev::Sigmas> in(kCount);
    for (ev::Sigmas& s : in) s = random_sigmas(rng);
    const std::vector<uint16_t> table = speedqa::vif::make_log2_table();
    ev::Sigmas* d_in = nullptr;
    uint16_t* d_table = nullptr;
    ev::Sums* d_out = nullptr;
    ASSERT_EQ(cudaMalloc(&d_in, kCount * sizeof(ev::Sigmas)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_table, table.size() * sizeof(uint16_t)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_out, kCount * sizeof(ev::Sums)), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d_in, in.data(), kCount * sizeof(ev::Sigmas), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d_table, table.data(), table.size() * sizeof(uint16_t), cudaMemcpyHostToDevice), cudaSuccess);
    long long compared = 0, differ = 0, logs = 0;
    for (const double gain_limit : {100.0, 1.0}) {
        k_accumulate<<<static_cast<unsigned>((kCount + 255) / 256), 256>>>(d_in, gain_limit, d_table, d_out, kCount);
        ASSERT_EQ(cudaGetLastError(), cudaSuccess);
        std::vector<ev::Sums> got(kCount);
        ASSERT_EQ(cudaMemcpy(got.data(), d_out, kCount * sizeof(ev::Sums), cudaMemcpyDeviceToHost), cudaSuccess);
        for (size_t i = 0; i < kCount; i++) {
            ev::Sums want;
            ev::accumulate(in[i], gain_limit, table.data(), want);
            compared++;
            logs += want.num_log != 0;
            if (!(want == got[i]) && differ++ < 5)
                ADD_FAILURE() << "gain limit " << gain_limit << " sigmas (" << in[i].s1 << ", " << in[i].s2 << ", " << in[i].s12
                              << "): host num_log " << want.num_log << " device " << got[i].num_log;
        }
    }
    EXPECT_EQ(differ, 0);
    EXPECT_GT(logs, static_cast<long long>(kCount) / 4);  // the double branch ran often
    std::printf("[vif-statistic] %lld device statistics identical to the host's (%lld through the double branch)\n",
                compared - differ, logs);
    cudaFree(d_in), cudaFree(d_table), cudaFree(d_out);
}

}  // namespace

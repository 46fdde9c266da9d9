// ADM's element arithmetic (exact/arith.hpp) on the device against the
// host, bit for bit, on millions of operands biased to the extremes that
// golden clips rarely reach: the decouplings of every lane kind and gain
// limit (int64 -> float and -> double conversions, the rounding of rst *
// gain, the 1-degree angle test), the CSF of every lane kind and factor, the
// masking terms given a threshold and the denominator terms. A device test:
// it skips, saying so, without a GPU.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "features/adm/exact/arith.hpp"
#include "features/adm/plan.hpp"

namespace {

using namespace speedqa::adm::exact;

struct Operand {
    int16_t o16[3], t16[3];
    int32_t o32[3], t32[3];
    int32_t rf16[3];
    int64_t rf32[3];   // as a lane reads it: unsigned or signed low 32 bits
    int64_t thr;
    double gain;
    int lane;          // 0 scalar, 1 avx2, 2 avx512
    int theta;
    int den_shift_sq, den_shift_cub, shift_cub;
    int64_t add_cub;
};

struct Result {
    int16_t r16[3], a16[3];
    int32_t r32[3], a32[3];
    int32_t csf16[2], csf32[2];
    int64_t cm0[3], cm123[3];
    uint64_t den0, den123;
    int32_t centre0;
    int64_t centre123;
    bool operator==(const Result& o) const { return std::memcmp(this, &o, sizeof(Result)) == 0; }
};

__host__ __device__ inline void evaluate(const Operand& in, const int32_t* div_lookup, Result& out) {
    const Lane lane = static_cast<Lane>(in.lane);
    decouple_scale0(in.o16, in.t16, lane, in.gain, 0.99969541f, div_lookup, out.r16, out.a16);
    decouple_scale123(in.o32, in.t32, lane == Lane::avx512, in.gain, 0.99969541f, div_lookup, out.r32, out.a32);
    const int32_t csf_round[3] = {16384, 16384, 65535};
    const int csf_shift[3] = {15, 15, 17};
    const Csf16 c16 = csf_scale0(in.o16[0], in.rf16[in.theta], csf_round[in.theta], csf_shift[in.theta], lane);
    out.csf16[0] = c16.value;
    out.csf16[1] = c16.filtered;
    const Csf32 c32 = csf_scale123(in.o32[0], in.rf32[in.theta]);
    out.csf32[0] = c32.value;
    out.csf32[1] = c32.filtered;
    const int64_t add_cub3[3] = {in.add_cub, in.add_cub, in.add_cub};
    const int shift_cub3[3] = {in.shift_cub, in.shift_cub, in.shift_cub};
    for (int k = 0; k < 3; ++k) out.cm0[k] = out.cm123[k] = k;
    cm_terms_scale0(in.thr, in.o16, in.rf16, lane, add_cub3, shift_cub3, out.cm0);
    cm_terms_scale123(in.thr, in.o32, in.rf32, lane, in.add_cub, in.shift_cub, out.cm123);
    out.den0 = den_term_scale0(in.o16[1]);
    out.den123 = den_term_scale123(in.o32[1], in.den_shift_sq, static_cast<uint64_t>(in.add_cub), in.den_shift_cub);
    out.centre0 = cm_centre_scale0(in.t16[2], lane);
    out.centre123 = cm_centre_scale123(in.t32[2]);
}

__global__ void k_evaluate(const Operand* in, const int32_t* div_lookup, Result* out, size_t n) {
    const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i < n) evaluate(in[i], div_lookup, out[i]);
}

int16_t random16(std::mt19937_64& rng) {
    static const int16_t extremes[] = {-32768, -32767, -16384, -1, 0, 1, 2, 16384, 32766, 32767};
    switch (rng() % 4) {
    case 0: return static_cast<int16_t>(rng());
    case 1: return static_cast<int16_t>(static_cast<int>(rng() % 129) - 64);
    case 2: return extremes[rng() % 10];
    default: return static_cast<int16_t>(static_cast<int64_t>(rng() % 2001) - 1000);
    }
}
int32_t random32(std::mt19937_64& rng) {
    static const int32_t extremes[] = {INT32_MIN, INT32_MIN + 1, -65536, -32768, -1, 0, 1, 32767, 32768, INT32_MAX};
    switch (rng() % 4) {
    case 0: return static_cast<int32_t>(rng());
    case 1: return static_cast<int32_t>(static_cast<int64_t>(rng() % (uint64_t{1} << (rng() % 31 + 1))) *
                                        (rng() % 2 ? 1 : -1));
    case 2: return extremes[rng() % 10];
    default: return static_cast<int32_t>(static_cast<int64_t>(rng() % 200001) - 100000);
    }
}

Operand random_operand(std::mt19937_64& rng) {
    Operand in{};
    const bool related = rng() % 2;   // t a scaled o (the angle test passes), or independent
    const double scale = 0.25 + static_cast<double>(rng() % 1000) / 250.0;
    for (int k = 0; k < 3; ++k) {
        in.o16[k] = random16(rng);
        in.o32[k] = random32(rng);
        in.t16[k] = related ? static_cast<int16_t>(static_cast<int>(in.o16[k] * scale) + static_cast<int>(rng() % 3) - 1)
                            : random16(rng);
        in.t32[k] = related ? static_cast<int32_t>(static_cast<int64_t>(in.o32[k] * scale) + static_cast<int>(rng() % 3) - 1)
                            : random32(rng);
        in.rf16[k] = static_cast<int32_t>(rng() % 65536);
        const uint32_t u = static_cast<uint32_t>(rng() % 3 == 0 ? (rng() | 0x80000000u) : rng() % (uint64_t{1} << 31));
        in.rf32[k] = rng() % 2 ? static_cast<int64_t>(u) : static_cast<int64_t>(static_cast<int32_t>(u));
    }
    static const double gains[] = {1.0, 1.2, 100.0, 1.5};
    in.gain = rng() % 5 == 4 ? 1.0 + static_cast<double>(rng() % 99000) / 1000.0 : gains[rng() % 4];
    in.lane = static_cast<int>(rng() % 3);
    in.theta = static_cast<int>(rng() % 3);
    in.thr = rng() % 2 ? static_cast<int64_t>(rng() % (uint64_t{1} << 31)) : static_cast<int64_t>(rng() % 100000);
    in.den_shift_sq = 30 + static_cast<int>(rng() % 2);
    in.den_shift_cub = static_cast<int>(rng() % 12);
    in.shift_cub = static_cast<int>(rng() % 12);
    in.add_cub = in.shift_cub > 0 ? int64_t{1} << (in.shift_cub - 1) : 0;
    return in;
}

TEST(AdmDeviceElements, EveryElementFunctionMatchesTheHostOn4MOperands) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
        GTEST_SKIP() << "no CUDA device present: ADM's device element test did not run";
    const speedqa::adm::Plan plan =
        speedqa::adm::make_plan({64, 64, speedqa::PixelFormat::yuv420, 8}, speedqa::adm::Options{}, speedqa::Dispatch::scalar);
    constexpr size_t kCount = size_t{1} << 22;
    std::mt19937_64 rng(20261204);
    std::vector<Operand> in(kCount);
    for (Operand& o : in) o = random_operand(rng);
    Operand* d_in = nullptr;
    Result* d_out = nullptr;
    int32_t* d_div = nullptr;
    ASSERT_EQ(cudaMalloc(&d_in, kCount * sizeof(Operand)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_out, kCount * sizeof(Result)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_div, plan.div_lookup.size() * sizeof(int32_t)), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d_in, in.data(), kCount * sizeof(Operand), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d_div, plan.div_lookup.data(), plan.div_lookup.size() * sizeof(int32_t), cudaMemcpyHostToDevice),
              cudaSuccess);
    ASSERT_EQ(cudaMemset(d_out, 0, kCount * sizeof(Result)), cudaSuccess);
    k_evaluate<<<static_cast<unsigned>((kCount + 255) / 256), 256>>>(d_in, d_div, d_out, kCount);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<Result> got(kCount);
    ASSERT_EQ(cudaMemcpy(got.data(), d_out, kCount * sizeof(Result), cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_div);
    long long identical = 0, shown = 0;
    for (size_t i = 0; i < kCount; i++) {
        Result want;
        std::memset(&want, 0, sizeof want);
        evaluate(in[i], plan.div_lookup.data(), want);
        if (got[i] == want)
            identical++;
        else if (shown++ < 10)
            ADD_FAILURE() << "operand " << i << " (lane " << in[i].lane << ", gain " << in[i].gain << ") differs";
    }
    std::printf("[adm device elements] %zu operands, %lld identical\n", kCount, identical);
    EXPECT_EQ(identical, static_cast<long long>(kCount));
}

}  // namespace

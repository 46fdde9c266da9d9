// The CUDA engine's kernels. The arithmetic is the shared code in src/exact/
// (the same statements the CPU engine runs); these kernels only decide which
// thread evaluates which element. Built with --fmad=false -prec-div=true
// -prec-sqrt=true, so nothing is fused but the covariance lanes' explicit fma.
#include "features/speed/cuda/kernels.cuh"

#include "cuda/cuda_check.hpp"
#include "features/speed/exact/convert.hpp"
#include "features/speed/exact/covariance.hpp"
#include "features/speed/exact/eigen.hpp"
#include "exact/filter.hpp"
#include "features/speed/exact/prescale.hpp"
#include "features/speed/exact/sequence.hpp"

namespace speedqa::cuda {
namespace {

using exact::kBlock;
using exact::kBlockElems;
using exact::kCovPairs;
using exact::kDecimation;
using exact::mirror_index;

__device__ __forceinline__ float sample_at(const uint8_t* input, const InputLayout& L, int position, int side, int plane,
                                           int y, int x) {
    const uint8_t* row = input_row(L, input, position, side, plane, y);
    if (L.bitdepth == 8) return exact::convert_8bit(row[x]);
    return exact::convert_hbd(reinterpret_cast<const uint16_t*>(row)[x], exact::sample_scaler(L.bitdepth));
}

// The image's value at (y, x) of the original plane: a sample, or the
// temporal difference prev - curr.
__device__ __forceinline__ float image_value(const uint8_t* input, const InputLayout& L, const ImageSourceRef& s, int y,
                                             int x) {
    const float a = sample_at(input, L, s.position_a, s.side_a, s.plane, y, x);
    if (!s.diff) return a;
    return a - sample_at(input, L, s.position_b, s.side_b, s.plane, y, x);
}

// Taps staged in shared memory.
struct SharedTaps {
    const float* v;
    int count;
};

// ---- prescale: only the scaled rows x columns the anti-alias filter reads ----
__global__ void k_resample(DevicePlan p, InputLayout L, const uint8_t* input, float* out) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y, img = blockIdx.z;
    if (c >= p.n_cols) return;
    const ImageSourceRef s = image_source(p, L.history, img);
    const float v = exact::interpolate(p.method, p.col_taps[c], p.row_taps[r],
                                       [&](int y, int x) { return image_value(input, L, s, y, x); });
    out[(static_cast<size_t>(img) * p.n_rows + r) * p.n_cols + c] = v;
}

// ---- anti-alias filter at the kept points (every 16th row and column) ----
__global__ void k_antialias(DevicePlan p, InputLayout L, const uint8_t* input, const float* resampled, float* dec) {
    __shared__ float tap_v[exact::kMaxTaps];
    for (int k = threadIdx.x; k < exact::kMaxTaps; k += blockDim.x) tap_v[k] = p.antialias->v[k];
    __syncthreads();
    const SharedTaps taps{tap_v, p.antialias->count};
    const exact::Dimensions& d = p.dim;
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y, img = blockIdx.z;
    if (j >= d.operating_w) return;
    const int radius = taps.count / 2;
    const ImageSourceRef s = image_source(p, L.history, img);
    const float* res = p.resample ? resampled + static_cast<size_t>(img) * p.n_rows * p.n_cols : nullptr;
    // horizontal taps over the vertical pass at each column they read
    const float v = exact::tap_sum(taps.v, taps.count, [&](int k) {
        const int col = mirror_index(j * kDecimation - radius + k, d.scaled_w);
        return exact::tap_sum(taps.v, taps.count, [&](int m) {
            const int row = mirror_index(i * kDecimation - radius + m, d.scaled_h);
            if (p.resample) return res[static_cast<size_t>(p.row_index[row]) * p.n_cols + p.col_index[col]];
            return image_value(input, L, s, row, col);
        });
    });
    dec[(static_cast<size_t>(img) * d.operating_h + i) * d.operating_w + j] = v;
}

// ---- the same, one block per kept row: the vertical pass over every
// column the horizontal taps read is computed once into shared memory with
// coalesced reads, then each kept column sums its horizontal taps from there.
constexpr int kRowThreads = 256;
constexpr size_t kMaxRowSharedBytes = 40 * 1024;  // wider rows (large prescales) use k_antialias

__global__ void __launch_bounds__(kRowThreads) k_antialias_rows(DevicePlan p, InputLayout L, const uint8_t* input,
                                                                const float* resampled, float* dec) {
    extern __shared__ float vrow[];  // p.n_cols floats
    __shared__ float tap_v[exact::kMaxTaps];
    for (int k = threadIdx.x; k < exact::kMaxTaps; k += blockDim.x) tap_v[k] = p.antialias->v[k];
    __syncthreads();
    const SharedTaps taps{tap_v, p.antialias->count};
    const exact::Dimensions& d = p.dim;
    const int i = blockIdx.x, img = blockIdx.y;
    const int radius = taps.count / 2;
    const ImageSourceRef s = image_source(p, L.history, img);
    const float* res = p.resample ? resampled + static_cast<size_t>(img) * p.n_rows * p.n_cols : nullptr;
    // vertical pass at every read column (compact column index c)
    for (int c = threadIdx.x; c < p.n_cols; c += blockDim.x) {
        vrow[c] = exact::tap_sum(taps.v, taps.count, [&](int m) {
            const int row = mirror_index(i * kDecimation - radius + m, d.scaled_h);
            if (p.resample) return res[static_cast<size_t>(p.row_index[row]) * p.n_cols + c];
            return image_value(input, L, s, row, c);
        });
    }
    __syncthreads();
    for (int j = threadIdx.x; j < d.operating_w; j += blockDim.x) {
        const float v = exact::tap_sum(taps.v, taps.count, [&](int k) {
            const int col = mirror_index(j * kDecimation - radius + k, d.scaled_w);
            return vrow[p.resample ? p.col_index[col] : col];
        });
        dec[(static_cast<size_t>(img) * d.operating_h + i) * d.operating_w + j] = v;
    }
}

// ---- local mean on the decimated image, subtracted ----
__global__ void k_local_mean(DevicePlan p, const float* dec, float* centred) {
    __shared__ float tap_v[exact::kMaxTaps];
    for (int k = threadIdx.x; k < exact::kMaxTaps; k += blockDim.x) tap_v[k] = p.local_mean->v[k];
    __syncthreads();
    const SharedTaps taps{tap_v, p.local_mean->count};
    const int w = p.dim.operating_w, h = p.dim.operating_h;
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y, img = blockIdx.z;
    if (j >= w) return;
    const int radius = taps.count / 2;
    const float* D = dec + static_cast<size_t>(img) * w * h;
    const float mean = exact::tap_sum(taps.v, taps.count, [&](int k) {
        const int col = mirror_index(j - radius + k, w);
        return exact::tap_sum(taps.v, taps.count, [&](int m) { return D[mirror_index(i - radius + m, h) * w + col]; });
    });
    centred[(static_cast<size_t>(img) * h + i) * w + j] = D[i * w + j] - mean;
}

// ---- the 25 submatrix means: one sequential float chain each ----
__global__ void k_means(DevicePlan p, const float* centred, float* means, int images) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= images * kBlockElems) return;
    const int img = t / kBlockElems, b = t % kBlockElems;
    const int w = p.dim.operating_w;
    const float* D = centred + static_cast<size_t>(img) * w * p.dim.operating_h + (b / kBlock) * w + b % kBlock;
    float acc = 0;
    for (int i = 0; i < p.dim.sub_h; i++) acc = exact::mean_chain_row(acc, D + i * w, p.dim.sub_w);
    means[t] = exact::mean_normalise(acc, p.dim.sub_count());
}

// ---- covariance: one thread per (image, chain, pair) ----
__global__ void k_cov_chains(DevicePlan p, const float* centred, const float* means, double* chain_sums, int images) {
    const exact::CovLayout& l = p.layout;
    const int chains = l.chains();
    const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= static_cast<long long>(images) * chains * kCovPairs) return;
    const int pair = static_cast<int>(t % kCovPairs);
    const int s = static_cast<int>((t / kCovPairs) % chains);
    const int img = static_cast<int>(t / (static_cast<long long>(kCovPairs) * chains));
    const exact::CovPair pr = exact::cov_pair(pair);
    const int w = p.dim.operating_w;
    const float* D = centred + static_cast<size_t>(img) * w * p.dim.operating_h;
    const float* px = D + (pr.x / kBlock) * w + pr.x % kBlock;
    const float* py = D + (pr.y / kBlock) * w + pr.y % kBlock;
    const double mx = means[img * kBlockElems + pr.x], my = means[img * kBlockElems + pr.y];
    const double acc = exact::cov_chain(p.layout, s, p.dim.sub_w, p.dim.sub_h, [&](int i, int j, double& cx, double& cy) {
        cx = static_cast<double>(__ldg(px + i * w + j)) - mx;
        cy = static_cast<double>(__ldg(py + i * w + j)) - my;
    });
    chain_sums[t] = acc;
}

__global__ void k_cov_finish(DevicePlan p, const double* chain_sums, float* cov, int images) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= images * kCovPairs) return;
    const int img = t / kCovPairs, pair = t % kCovPairs;
    const int chains = p.layout.chains();
    double s[exact::kMaxCovChains];
    for (int k = 0; k < chains; k++) s[k] = chain_sums[(static_cast<size_t>(img) * chains + k) * kCovPairs + pair];
    const float v = exact::cov_normalise(exact::cov_finish(p.order, s), p.dim.sub_count());
    const exact::CovPair pr = exact::cov_pair(pair);
    float* K = cov + static_cast<size_t>(img) * kBlockElems * kBlockElems;
    K[pr.x * kBlockElems + pr.y] = v;
    K[pr.y * kBlockElems + pr.x] = v;
}

// ---- eigenvalues: the sweep is sequential, so one thread per image ----
__global__ void k_eigen(const float* cov, float* out, size_t out_stride, int num_blocks, int images) {
    const int img = blockIdx.x * blockDim.x + threadIdx.x;
    if (img >= images) return;
    exact::EigenScratch scratch;
    float eig[kBlockElems];
    const int sweeps = exact::symmetric_eigenvalues(cov + static_cast<size_t>(img) * kBlockElems * kBlockElems, eig, scratch);
    float* o = out + img * out_stride;
    for (int k = 0; k < kBlockElems; k++) o[k] = eig[k];
    o[kBlockElems + num_blocks + 1] = static_cast<float>(sweeps);
}

// ---- Householder QR of K, then per block column: Q B, back-substitution, S ----
constexpr int kSolveThreads = 256;

// exact::householder_qr_steps on the threads of a block: elements striped
// over the threads, steps ordered by __syncthreads, products element by
// element (each a thread's sequential sum, matmul's bits).
struct BlockMap {
    template <class F>
    __device__ void each(int n, F&& f) {
        for (int e = threadIdx.x; e < n; e += blockDim.x) f(e);
    }
    template <class F>
    __device__ void one(F&& f) {
        if (threadIdx.x == 0) f();
    }
    __device__ void sync() { __syncthreads(); }
    __device__ void product(float* d, const float* x, const float* y, int rows, int inner, int cols) {
        each(rows * cols, [&](int e) { d[e] = exact::matmul_element(x, y, inner, cols, e / cols, e % cols); });
    }
};

__global__ void __launch_bounds__(kSolveThreads) k_solve(DevicePlan p, const float* cov, const float* centred,
                                                         float* out, size_t out_stride) {
    constexpr int n = kBlockElems;
    __shared__ float K[n * n], q[n * n], z[n * n], h[n * n], prod[n * n], r[n * n], vec[n];
    __shared__ int solvable;
    const int img = blockIdx.x;
    const int tid = threadIdx.x;
    float* o = out + img * out_stride;
    const int nb = p.dim.num_blocks;
    BlockMap map;
    map.each(n * n, [&](int e) { K[e] = cov[static_cast<size_t>(img) * n * n + e]; });
    map.one([&] { solvable = exact::eigenvalues_regular(o); });
    map.sync();
    if (solvable) {
        exact::householder_qr_steps(map, K, q, r, z, h, prod, vec);
        map.one([&] { solvable = exact::pivots_usable(r); });
        map.sync();
    }
    const int w = p.dim.operating_w;
    const float* D = centred + static_cast<size_t>(img) * w * p.dim.operating_h;
    for (int j = tid; j < nb; j += blockDim.x) {
        float b[n], x[n], qb[n];
        for (int e = 0; e < n; e++) b[e] = exact::block_sample(D, w, p.dim.blocks_w, e, j);
        if (solvable) {
            for (int i = 0; i < n; i++) qb[i] = exact::matmul_element(q, b, n, 1, i, 0);
            exact::back_substitute_column(r, qb, x, 1, 0);
        } else {
            exact::zero_solution(x, n);
        }
        o[n + j] = exact::block_variance(x, b, 1, 0);
    }
    map.one([&] { o[n + nb] = solvable ? 0.0f : 1.0f; });
}

unsigned blocks_for(long long n, int threads) { return static_cast<unsigned>((n + threads - 1) / threads); }

}  // namespace

void launch_feature_chain(const DevicePlan& p, const InputLayout& layout, const uint8_t* input, const DeviceWork& w,
                          cudaStream_t stream, StageTimer* timer) {
    auto mark = [&](const char* stage) {
        if (timer) timer->mark(stage, stream);
    };
    const exact::Dimensions& d = p.dim;
    const int images = w.images;
    if (p.resample) {
        const dim3 grid(blocks_for(p.n_cols, 128), static_cast<unsigned>(p.n_rows), static_cast<unsigned>(images));
        k_resample<<<grid, 128, 0, stream>>>(p, layout, input, w.resampled);
        SPEEDQA_CUDA_CHECK(cudaGetLastError());
    mark("resample");
    }
    const dim3 dec_grid(blocks_for(d.operating_w, 64), static_cast<unsigned>(d.operating_h), static_cast<unsigned>(images));
    const size_t row_bytes = static_cast<size_t>(p.n_cols) * sizeof(float);
    if (row_bytes <= kMaxRowSharedBytes) {
        k_antialias_rows<<<dim3(static_cast<unsigned>(d.operating_h), static_cast<unsigned>(images)), kRowThreads, row_bytes,
                           stream>>>(p, layout, input, w.resampled, w.decimated);
    } else {
        k_antialias<<<dec_grid, 64, 0, stream>>>(p, layout, input, w.resampled, w.decimated);
    }
    SPEEDQA_CUDA_CHECK(cudaGetLastError());
    mark("antialias");
    k_local_mean<<<dec_grid, 64, 0, stream>>>(p, w.decimated, w.centred);
    SPEEDQA_CUDA_CHECK(cudaGetLastError());
    mark("local_mean");
    k_means<<<blocks_for(static_cast<long long>(images) * kBlockElems, 128), 128, 0, stream>>>(p, w.centred, w.means, images);
    SPEEDQA_CUDA_CHECK(cudaGetLastError());
    mark("means");
    const long long chains = static_cast<long long>(images) * p.layout.chains() * kCovPairs;
    k_cov_chains<<<blocks_for(chains, 128), 128, 0, stream>>>(p, w.centred, w.means, w.chains, images);
    SPEEDQA_CUDA_CHECK(cudaGetLastError());
    mark("cov_chains");
    k_cov_finish<<<blocks_for(static_cast<long long>(images) * kCovPairs, 128), 128, 0, stream>>>(p, w.chains, w.cov, images);
    SPEEDQA_CUDA_CHECK(cudaGetLastError());
    mark("cov_finish");
    k_eigen<<<blocks_for(images, 32), 32, 0, stream>>>(w.cov, w.out, w.out_stride, d.num_blocks, images);
    SPEEDQA_CUDA_CHECK(cudaGetLastError());
    mark("eigen");
    k_solve<<<static_cast<unsigned>(images), kSolveThreads, 0, stream>>>(p, w.cov, w.centred, w.out, w.out_stride);
    SPEEDQA_CUDA_CHECK(cudaGetLastError());
    mark("solve");
}

}  // namespace speedqa::cuda

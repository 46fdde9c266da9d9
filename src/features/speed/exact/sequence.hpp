// The per-image sequence of SpEED that fixes the order of the arithmetic,
// written once for both engines: which images a frame is made of, the
// submatrix mean chains, the regularity test, the block samples, the steps of
// the Householder QR and the rule for a system that cannot be solved.
//
// Steps that compute many independent elements take a Map, which decides
// who computes them: the CPU engine maps them onto loops (SequentialMap,
// below), the CUDA engine onto the threads of a block. A Map has
//   each(n, f)    f(e) for every e in [0, n), in any order, on any thread
//   one(f)        f() once
//   sync()        everything before is complete and visible
//   product(d, x, y, rows, inner, cols)   d = x y with matmul's bits
// The statements inside f are the same on both; only who runs them differs.
#pragma once

#include "features/speed/exact/covariance.hpp"
#include "features/speed/exact/solve.hpp"

namespace speedqa::exact {

// ---- which images a frame is made of ----------------------------------------
// speed_chroma: U ref, U dis, V ref, V dis; speed_temporal: ref difference,
// dis difference (previous frame minus current, and with use_ref_diff the
// distorted image is previous dis minus current ref).
enum class ImageKind : int { chroma = 0, temporal = 1 };

SPEEDQA_HD int images_per_frame(ImageKind k) { return k == ImageKind::chroma ? 4 : 2; }

struct SampleRef {
    int frame;  // 0: the current frame, -1: the one before
    int side;   // 0: reference, 1: distorted
};

struct ImageComposition {
    int plane;
    SampleRef a;
    SampleRef b;  // subtracted from a when diff
    bool diff;
};

SPEEDQA_HD ImageComposition compose_image(ImageKind kind, bool use_ref_diff, int image_in_frame) {
    ImageComposition c{};
    if (kind == ImageKind::chroma) {
        c.plane = 1 + image_in_frame / 2;
        c.a = {0, image_in_frame % 2};
        c.diff = false;
    } else {
        const int side = image_in_frame % 2;
        c.plane = 0;
        c.a = {-1, side};
        c.b = {0, (side == 1 && use_ref_diff) ? 0 : side};
        c.diff = true;
    }
    return c;
}

// ---- the submatrix means: one float chain each, row by row ------------------
// Adds row `row` (sub_w values) of one submatrix to its chain; the loads of 8
// terms go out before their sequential adds.
SPEEDQA_HD float mean_chain_row(float acc, const float* row, int sub_w) {
    int j = 0;
    for (; j + 8 <= sub_w; j += 8) {
        float v[8];
        for (int u = 0; u < 8; u++) v[u] = row[j + u];
        for (int u = 0; u < 8; u++) acc += v[u];
    }
    for (; j < sub_w; j++) acc += row[j];
    return acc;
}

// ---- the covariance chains of one pair -------------------------------------
// Chain s of pair (x, y) over the submatrix rows, its terms in the walk's
// order. `at(i, j, cx, cy)` gives the pair's centred values at row i, column
// j; they are fetched 4 terms ahead of the (sequential) accumulation.
template <class At>
SPEEDQA_HD double cov_chain(const CovLayout& l, int s, int sub_w, int sub_h, At&& at) {
    double acc = 0;
    const bool fused = l.fused(s);
    for (int i = 0; i < sub_h; i++)
        l.chain_runs(s, sub_w, [&](int first, int step, int count) {
            int q = 0;
            for (; q + 4 <= count; q += 4) {
                double cx[4], cy[4];
                for (int u = 0; u < 4; u++) at(i, first + (q + u) * step, cx[u], cy[u]);
                for (int u = 0; u < 4; u++) acc = cov_term(fused, acc, cx[u], cy[u]);
            }
            for (; q < count; q++) {
                double cx, cy;
                at(i, first + q * step, cx, cy);
                acc = cov_term(fused, acc, cx, cy);
            }
        });
    return acc;
}

// ---- regularity and the block samples --------------------------------------
// The reference solves the system only when every eigenvalue is >= 1e-6.
SPEEDQA_HD bool eigenvalues_regular(const float* eig) {
    for (int k = 0; k < kBlockElems; k++)
        if (static_cast<double>(eig[k]) < kEigenEps) return false;
    return true;
}

// Element e of block column j of B: sample (e / 5, e % 5) of block j, blocks
// row-major, from the centred image D (row stride `stride`).
SPEEDQA_HD float block_sample(const float* D, int stride, int blocks_w, int e, int j) {
    const int bi = j / blocks_w, bj = j % blocks_w;
    return D[(kBlock * bi + e / kBlock) * stride + kBlock * bj + e % kBlock];
}

// ---- the Householder QR of K, step by step ----------------------------------
// q ends as H_23 ... H_0, r as q K. z, h, prod, vec are scratch (25x25 and 25).
template <class Map>
SPEEDQA_HD void householder_qr_steps(Map& map, const float* K, float* q, float* r, float* z, float* h, float* prod,
                                     float* vec) {
    constexpr int n = kN;
    map.each(n * n, [&](int e) {
        z[e] = K[e];
        q[e] = (e / n == e % n) ? 1.0f : 0.0f;
    });
    map.sync();
    for (int k = 0; k < n - 1; k++) {
        map.one([&] { householder_vector(z, K[k * n + k], k, vec); });
        map.sync();
        map.each(n * n, [&](int e) { h[e] = reflector_element(vec, e / n, e % n); });
        map.sync();
        map.product(prod, h, z, n, n, n);  // z = H z
        map.sync();
        map.each(n * n, [&](int e) { z[e] = prod[e]; });
        map.sync();
        map.product(prod, h, q, n, n, n);  // q = H q
        map.sync();
        map.each(n * n, [&](int e) { q[e] = prod[e]; });
        map.sync();
    }
    map.product(r, q, K, n, n, n);  // r = q K
    map.sync();
}

// The Householder QR on one thread; `mul` computes the products (matmul,
// or a CPU kernel with matmul's bits).
template <class Mul>
SPEEDQA_HD void householder_qr(const float* K, SolveScratch& s, Mul&& mul);

// A system the reference cannot solve (singular covariance, or a pivot
// under 1e-6) gives X = 0: every block's variance is then 0.
SPEEDQA_HD void zero_solution(float* x, int count) {
    for (int i = 0; i < count; i++) x[i] = 0.0f;
}

// The Map of a single thread: plain loops.
template <class Product>
struct SequentialMap {
    Product product;
    template <class F>
    SPEEDQA_HD void each(int n, F&& f) {
        for (int e = 0; e < n; e++) f(e);
    }
    template <class F>
    SPEEDQA_HD void one(F&& f) {
        f();
    }
    SPEEDQA_HD void sync() {}
};

template <class Mul>
SPEEDQA_HD void householder_qr(const float* K, SolveScratch& s, Mul&& mul) {
    SequentialMap<Mul&> map{mul};
    householder_qr_steps(map, K, s.q, s.r, s.z, s.h, s.prod, s.vec);
}

SPEEDQA_HD void householder_qr(const float* K, SolveScratch& s) {
    householder_qr(K, s, [](float* d, const float* x, const float* y, int r, int i, int c) { matmul(d, x, y, r, i, c); });
}

}  // namespace speedqa::exact

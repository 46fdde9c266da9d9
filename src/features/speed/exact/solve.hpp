// Solving K X = B for the 25x25 covariance K and the 25 x num_blocks block
// samples B, as the reference does: a Householder QR of K built from full
// 25x25 matrix products, then Q B (the reference transposes Q twice), then
// back-substitution on R.
//
// Every product element is a float sum over k = 0.. in order, starting from
// 0.0f, each term a separate multiply and add. The CPU walks i, k, j (rows of
// the result accumulate together, which vectorises over j); the device gives
// each element a thread. Both feed each element the same terms in the same
// order, so they agree bit for bit.
#pragma once

#include "features/speed/exact/constants.hpp"

namespace speedqa::exact {

inline constexpr int kN = kBlockElems;  // 25

// dst = x * y for x (rows x inner), y (inner x cols), all row-major, dense.
SPEEDQA_HD void matmul(float* SPEEDQA_RESTRICT dst, const float* SPEEDQA_RESTRICT x, const float* SPEEDQA_RESTRICT y,
                       int rows, int inner, int cols) {
    for (int i = 0; i < rows * cols; i++) dst[i] = 0;
    for (int i = 0; i < rows; i++)
        for (int k = 0; k < inner; k++) {
            const float xik = x[i * inner + k];
            for (int j = 0; j < cols; j++) dst[i * cols + j] += xik * y[k * cols + j];
        }
}

// One element of the same product, for a thread that owns (i, j).
SPEEDQA_HD float matmul_element(const float* x, const float* y, int inner, int cols, int i, int j) {
    float acc = 0;
    for (int k = 0; k < inner; k++) acc += x[i * inner + k] * y[k * cols + j];
    return acc;
}

SPEEDQA_HD float vector_norm(const float* v, int n) {
    float sum = 0;
    for (int i = 0; i < n; i++) sum += v[i] * v[i];
    return sqrt_via_double(sum);
}

// Step k of the Householder QR, vector part: apply matrix_minor to tmp_z
// (rows and columns before k become the identity), take its column k and
// turn it into the unit reflector vector. `a_kk` is K[k][k] of the original
// matrix (the reference takes the sign from there, not from tmp_z).
SPEEDQA_HD void householder_vector(float* tmp_z, float a_kk, int k, float* vec) {
    const int n = kN;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i < k || j < k) tmp_z[i * n + j] = i == j ? 1.0f : 0.0f;
    for (int i = 0; i < n; i++) vec[i] = tmp_z[i * n + k];
    const float norm = vector_norm(vec, n);
    vec[k] += static_cast<float>(sign_of(a_kk)) * norm;
    const float norm2 = vector_norm(vec, n);
    for (int i = 0; i < n; i++) vec[i] = vec[i] / norm2;
}

// Element (i, j) of the reflector I - 2 v v^T.
SPEEDQA_HD float reflector_element(const float* vec, int i, int j) {
    const float h = -2 * vec[i] * vec[j];
    return i == j ? h + 1 : h;
}

struct SolveScratch {
    float q[kN * kN];      // accumulated product of reflectors
    float r[kN * kN];      // q * K
    float h[kN * kN];      // current reflector
    float z[kN * kN];      // tmp_z
    float prod[kN * kN];   // product before copy-back
    float vec[kN];
};

// X[i][j] for one column j, rows 24 down to 0, from R and QB. Returns false
// when a pivot |R_ii| < 1e-6 (the reference then gives up on the system).
SPEEDQA_HD bool back_substitute_column(const float* R, const float* QB, float* X, int cols, int j) {
    const int n = kN;
    for (int i = n - 1; i >= 0; i--) {
        const float denominator = R[i * n + i];
        if (static_cast<double>(::fabsf(denominator)) < kEigenEps) return false;
        float t = QB[i * cols + j];
        for (int k = i + 1; k < n; k++) t -= X[k * cols + j] * R[i * n + k];
        X[i * cols + j] = t / denominator;
    }
    return true;
}

// The same substitution for all columns at once, row by row (each element
// still subtracts its terms k = i+1.. in order), for a single thread that
// vectorises across columns. Call only when pivots_usable(R).
SPEEDQA_HD void back_substitute_rows(const float* R, const float* QB, float* X, int cols) {
    const int n = kN;
    for (int i = n - 1; i >= 0; i--) {
        const float denominator = R[i * n + i];
        float* xi = X + i * cols;
        for (int j = 0; j < cols; j++) xi[j] = QB[i * cols + j];
        for (int k = i + 1; k < n; k++) {
            const float rik = R[i * n + k];
            const float* xk = X + k * cols;
            for (int j = 0; j < cols; j++) xi[j] -= xk[j] * rik;
        }
        for (int j = 0; j < cols; j++) xi[j] = xi[j] / denominator;
    }
}

// The pivot test alone: the reference checks the pivot of row i before any
// column of that row, so a failing pivot fails the whole system.
SPEEDQA_HD bool pivots_usable(const float* R) {
    for (int i = 0; i < kN; i++)
        if (static_cast<double>(::fabsf(R[i * kN + i])) < kEigenEps) return false;
    return true;
}

// Z = X * B / 25 elementwise, then S[j] = Z[0][j] + Z[1][j] + ... + Z[24][j].
SPEEDQA_HD float block_variance(const float* X, const float* B, int cols, int j) {
    const float denominator = static_cast<float>(kN);
    float s = X[j] * B[j] / denominator;
    for (int i = 1; i < kN; i++) s += X[i * cols + j] * B[i * cols + j] / denominator;
    return s;
}

}  // namespace speedqa::exact

// Eigenvalues of the 25x25 covariance: Householder tridiagonalisation, then
// the implicit symmetric QR iteration with Wilkinson shift (GSL's symmtd and
// symm, as the reference adapted them, in float, with its double
// sub-expressions evaluated in double and rounded once).
#pragma once

#include "features/speed/exact/constants.hpp"

namespace speedqa::exact {

SPEEDQA_HD float hypot_float(float x, float y) { return sqrt_via_double(x * x + y * y); }

// ||A[start_row:size, col]||
SPEEDQA_HD float column_norm(const float* A, int col, int start_row, int size) {
    float norm = 0;
    for (int i = start_row; i < size; i++) norm += A[i * size + col] * A[i * size + col];
    return sqrt_via_double(norm);
}

// Householder vector of A[start_row:size, col], stored in place; returns tau.
SPEEDQA_HD float householder_transform(float* A, int col, int start_row, int size) {
    if (size - start_row == 1) return 0.0f;
    const float xnorm = column_norm(A, col, start_row + 1, size);
    if (xnorm == 0.0f) return 0.0f;
    const float alpha = A[start_row * size + col];
    const float beta = static_cast<float>(-sign_of(alpha)) * hypot_float(alpha, xnorm);
    const float tau = (beta - alpha) / beta;
    const float s = alpha - beta;
    if (s != 0.0f) {
        for (int i = start_row; i < size; i++) A[i * size + col] /= s;
        A[start_row * size + col] = beta;
    }
    return tau;
}

// In place: A becomes tridiagonal; d gets the diagonal, sd the subdiagonal.
// v and x are scratch vectors of `size` floats.
SPEEDQA_HD void tridiagonalize(float* A, int size, float* d, float* sd, float* v, float* x) {
    for (int i = 0; i < size - 2; i++) {
        const float tau = householder_transform(A, i, i + 1, size);
        for (int j = i + 1; j < size; j++) v[j] = A[j * size + i];
        if (tau != 0.0f) {
            A[(i + 1) * size + i] = v[i + 1];
            v[i + 1] = 1.0f;
            const int start = i + 1;
            // x = tau * A * v, each term (tau * A_rj) * v_j
            for (int r = start; r < size; r++) {
                x[r] = 0.0f;
                for (int j = start; j < size; j++) x[r] += tau * A[r * size + j] * v[j];
            }
            float xv = 0;
            for (int r = start; r < size; r++) xv += x[r] * v[r];
            // float alpha = -0.5 * tau * xv: evaluated in double, rounded once
            const float alpha = static_cast<float>(-0.5 * static_cast<double>(tau) * static_cast<double>(xv));
            for (int r = start; r < size; r++) x[r] += alpha * v[r];
            // A -= x v' + v x'
            for (int r = start; r < size; r++)
                for (int j = start; j < size; j++) A[r * size + j] -= x[r] * v[j] + v[r] * x[j];
        }
    }
    for (int i = 0; i < size; i++) d[i] = A[i * size + i];
    for (int i = 0; i < size - 1; i++) sd[i] = A[(i + 1) * size + i];
}

SPEEDQA_HD void chop_small_elements(const float* d, float* sd, int size) {
    for (int i = 0; i < size - 1; i++)
        if (static_cast<double>(::fabsf(sd[i])) < kEigenEps * static_cast<double>(::fabsf(d[i]) + ::fabsf(d[i + 1])))
            sd[i] = 0.0f;
}

SPEEDQA_HD float trailing_eigenvalue(const float* d, const float* sd, int n) {
    const float ta = d[n - 2], tb = d[n - 1], tab = sd[n - 2];
    const float dt = static_cast<float>(static_cast<double>(ta - tb) / 2.0);
    if (dt > 0) return tb - tab * (tab / (dt + hypot_float(dt, tab)));
    if (dt == 0) return tb - ::fabsf(tab);
    return tb + tab * (tab / (-dt + hypot_float(dt, tab)));
}

// Givens rotation zeroing b against a; `1.0 / sqrt(1 + t * t)` is double.
SPEEDQA_HD void givens(float a, float b, float* c, float* s) {
    if (b == 0) {
        *c = 1;
        *s = 0;
    } else if (::fabsf(b) > ::fabsf(a)) {
        const float t = -a / b;
        const float s1 = static_cast<float>(1.0 / ::sqrt(static_cast<double>(1 + t * t)));
        *s = s1;
        *c = s1 * t;
    } else {
        const float t = -b / a;
        const float c1 = static_cast<float>(1.0 / ::sqrt(static_cast<double>(1 + t * t)));
        *c = c1;
        *s = c1 * t;
    }
}

// One implicit QR sweep on the unreduced block d[0..n), sd[0..n-1).
SPEEDQA_HD void qr_sweep(float* d, float* sd, int n) {
    float mu = trailing_eigenvalue(d, sd, n);
    if (kEigenEps * static_cast<double>(::fabsf(mu)) > static_cast<double>(::fabsf(d[0]) + ::fabsf(sd[0]))) mu = 0;

    float x = d[0] - mu;
    float z = sd[0];
    float ak = 0, bk = 0, zk = 0;
    float ap = d[0], bp = sd[0];
    float aq = d[1];

    if (n == 2) {
        float c, s;
        givens(x, z, &c, &s);
        const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
        const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
        const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
        d[0] = ap1;
        sd[0] = bp1;
        d[1] = aq1;
        return;
    }

    float bq = sd[1];
    for (int k = 0; k < n - 1; k++) {
        float c, s;
        givens(x, z, &c, &s);
        const float bk1 = c * bk - s * zk;
        const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
        const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
        const float zp1 = -s * bq;
        const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
        const float bq1 = c * bq;
        ak = ap1;
        bk = bp1;
        zk = zp1;
        ap = aq1;
        bp = bq1;
        if (k < n - 2) aq = d[k + 2];
        if (k < n - 3) bq = sd[k + 2];
        d[k] = ak;
        if (k > 0) sd[k - 1] = bk1;
        if (k < n - 2) sd[k + 1] = bp;
        x = bk;
        z = zk;
    }
    d[n - 1] = ap;
    sd[n - 2] = bk;
}

// Diagonalise the tridiagonal (d, sd) in place; d ends as the eigenvalues.
// Returns the number of sweeps (kMaxEigenSweeps means it stopped short,
// as the reference does, with a warning).
SPEEDQA_HD int tridiagonal_eigenvalues(float* d, float* sd, int size) {
    chop_small_elements(d, sd, size);
    int b = size - 1;
    int iter = 0;
    while (b > 0 && iter < kMaxEigenSweeps) {
        if (sd[b - 1] == 0.0f) {
            b--;
            continue;
        }
        int a = b - 1;
        while (a > 0) {
            if (sd[a - 1] == 0.0f) break;
            a--;
        }
        const int n_block = b - a + 1;
        qr_sweep(d + a, sd + a, n_block);
        chop_small_elements(d + a, sd + a, n_block);
        iter++;
    }
    return iter;
}

// Scratch for symmetric_eigenvalues.
struct EigenScratch {
    float A[kBlockElems * kBlockElems];
    float sd[kBlockElems];
    float v[kBlockElems];
    float x[kBlockElems];
};

// Eigenvalues (unsorted) of the symmetric 25x25 matrix `cov`.
SPEEDQA_HD int symmetric_eigenvalues(const float* cov, float* eigenvalues, EigenScratch& s) {
    const int n = kBlockElems;
    for (int i = 0; i < n * n; i++) s.A[i] = cov[i];
    tridiagonalize(s.A, n, eigenvalues, s.sd, s.v, s.x);
    return tridiagonal_eigenvalues(eigenvalues, s.sd, n);
}

}  // namespace speedqa::exact

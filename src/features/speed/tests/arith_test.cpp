// Each shared arithmetic routine (src/exact/) against a straightforward
// implementation of the reference's statements, written here independently
// in the reference's own shape (Matrix structs, in-place helpers, k-outer
// entropy loop), on random inputs. Equality is bitwise.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "features/speed/exact/entropy.hpp"
#include "features/speed/exact/eigen.hpp"
#include "exact/filter.hpp"
#include "features/speed/exact/sequence.hpp"

namespace speedqa {
namespace {

constexpr int N = 25;

// ---- the reference's statements, straightforwardly --------------------------------
namespace ref {

struct Matrix {
    int rows, cols;
    float* data;
};

void mul(Matrix* dst, const Matrix* x, const Matrix* y) {
    for (int i = 0; i < dst->rows * dst->cols; i++) dst->data[i] = 0;
    for (int i = 0; i < x->rows; i++)
        for (int k = 0; k < x->cols; k++)
            for (int j = 0; j < y->cols; j++) dst->data[i * dst->cols + j] += x->data[i * x->cols + k] * y->data[k * y->cols + j];
}

float norm(const float* x, int n) {
    float s = 0;
    for (int i = 0; i < n; i++) s += x[i] * x[i];
    return sqrt(s);
}

int sgn(float x) { return x >= 0 ? 1 : -1; }
float pyth(float x, float y) { return sqrt(x * x + y * y); }

void qr(const Matrix* A, Matrix* Q, Matrix* R) {
    const int n = A->rows;
    std::vector<float> zb(n * n), hb(n * n), tb(n * n), vec(n);
    Matrix z{n, n, zb.data()}, h{n, n, hb.data()}, t{n, n, tb.data()};
    std::memcpy(z.data, A->data, sizeof(float) * n * n);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) Q->data[i * n + j] = i == j;
    for (int k = 0; k < n - 1; k++) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (i < k || j < k) z.data[i * n + j] = i == j ? 1 : 0;
        for (int i = 0; i < n; i++) vec[i] = z.data[i * n + k];
        float nrm = norm(vec.data(), n);
        int sign = sgn(A->data[k * n + k]);
        vec[k] += sign * nrm;
        float d = norm(vec.data(), n);
        for (int i = 0; i < n; i++) vec[i] = vec[i] / d;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) h.data[i * n + j] = -2 * vec[i] * vec[j];
        for (int i = 0; i < n; i++) h.data[i * n + i] += 1;
        mul(&t, &h, &z);
        std::memcpy(z.data, t.data, sizeof(float) * n * n);
        mul(&t, &h, Q);
        std::memcpy(Q->data, t.data, sizeof(float) * n * n);
    }
    mul(R, Q, A);
}

// Returns 0, or -1 when a pivot is below 1e-6 (X then zeroed by the caller).
int solve(float* A, float* B, int cols, float* X) {
    std::vector<float> qb(N * N), rb(N * N), t(N * cols);
    Matrix a{N, N, A}, q{N, N, qb.data()}, r{N, N, rb.data()}, b{N, cols, B}, tr{N, cols, t.data()};
    qr(&a, &q, &r);
    mul(&tr, &q, &b);
    for (int i = N - 1; i >= 0; i--) {
        float den = r.data[i * N + i];
        if (fabsf(den) < 1e-6) return -1;
        for (int j = 0; j < cols; j++) {
            float it = tr.data[i * cols + j];
            for (int k = i + 1; k < N; k++) it -= (X[k * cols + j] * r.data[i * N + k]);
            X[i * cols + j] = it / den;
        }
    }
    return 0;
}

float householder(float* A, int col, int start, int size) {
    if (size - start == 1) return 0.0f;
    float xn = 0;
    for (int i = start + 1; i < size; i++) xn += A[i * size + col] * A[i * size + col];
    xn = sqrt(xn);
    if (xn == 0.0f) return 0.0f;
    float alpha = A[start * size + col];
    float beta = -sgn(alpha) * pyth(alpha, xn);
    float tau = (beta - alpha) / beta;
    float s = alpha - beta;
    if (s != 0.0f) {
        for (int i = start; i < size; i++) A[i * size + col] /= s;
        A[start * size + col] = beta;
    }
    return tau;
}

void tridiag(float* A, int size, float* d, float* sd) {
    std::vector<float> v(size), x(size);
    for (int i = 0; i < size - 2; i++) {
        float tau = householder(A, i, i + 1, size);
        for (int j = i + 1; j < size; j++) v[j] = A[j * size + i];
        if (tau != 0.0f) {
            A[(i + 1) * size + i] = v[i + 1];
            v[i + 1] = 1.0f;
            for (int r = i + 1; r < size; r++) {
                x[r] = 0.0f;
                for (int j = i + 1; j < size; j++) x[r] += tau * A[r * size + j] * v[j];
            }
            float xv = 0;
            for (int r = i + 1; r < size; r++) xv += x[r] * v[r];
            float alpha = -0.5 * tau * xv;
            for (int r = i + 1; r < size; r++) x[r] += alpha * v[r];
            for (int r = i + 1; r < size; r++)
                for (int j = i + 1; j < size; j++) A[r * size + j] -= x[r] * v[j] + v[r] * x[j];
        }
    }
    for (int i = 0; i < size; i++) d[i] = A[i * size + i];
    for (int i = 0; i < size - 1; i++) sd[i] = A[(i + 1) * size + i];
}

void chop(float* d, float* sd, int n) {
    for (int i = 0; i < n - 1; i++)
        if (fabsf(sd[i]) < 1e-6 * (fabsf(d[i]) + fabsf(d[i + 1]))) sd[i] = 0.0f;
}

float trailing(float* d, float* sd, int n) {
    float ta = d[n - 2], tb = d[n - 1], tab = sd[n - 2];
    float dt = (ta - tb) / 2.0;
    if (dt > 0) return tb - tab * (tab / (dt + pyth(dt, tab)));
    else if (dt == 0) return tb - fabsf(tab);
    else return tb + tab * (tab / (-dt + pyth(dt, tab)));
}

void givens(const float a, const float b, float* c, float* s) {
    if (b == 0) {
        *c = 1;
        *s = 0;
    } else if (fabsf(b) > fabsf(a)) {
        float t = -a / b;
        float s1 = 1.0 / sqrt(1 + t * t);
        *s = s1;
        *c = s1 * t;
    } else {
        float t = -b / a;
        float c1 = 1.0 / sqrt(1 + t * t);
        *c = c1;
        *s = c1 * t;
    }
}

void step(float* d, float* sd, int n) {
    float mu = trailing(d, sd, n);
    if (1e-6 * fabsf(mu) > fabsf(d[0]) + fabsf(sd[0])) mu = 0;
    float x = d[0] - mu, z = sd[0], ak = 0, bk = 0, zk = 0, ap = d[0], bp = sd[0], aq = d[1];
    if (n == 2) {
        float c, s;
        givens(x, z, &c, &s);
        float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
        float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
        float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
        d[0] = ap1;
        sd[0] = bp1;
        d[1] = aq1;
        return;
    }
    float bq = sd[1];
    for (int k = 0; k < n - 1; k++) {
        float c, s;
        givens(x, z, &c, &s);
        float bk1 = c * bk - s * zk;
        float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
        float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
        float zp1 = -s * bq;
        float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
        float bq1 = c * bq;
        ak = ap1, bk = bp1, zk = zp1, ap = aq1, bp = bq1;
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

void eigen(const float* M, float* out) {
    std::vector<float> A(M, M + N * N), d(N), sd(N);
    tridiag(A.data(), N, d.data(), sd.data());
    chop(d.data(), sd.data(), N);
    int b = N - 1, iter = 0;
    while (b > 0 && iter < 500) {
        if (sd[b - 1] == 0.0f) {
            b--;
            continue;
        }
        int a = b - 1;
        while (a > 0) {
            if (sd[a - 1] == 0.0f) break;
            a--;
        }
        step(d.data() + a, sd.data() + a, b - a + 1);
        chop(d.data() + a, sd.data() + a, b - a + 1);
        iter++;
    }
    for (int i = 0; i < N; i++) out[i] = d[i];
}

}  // namespace ref

// A covariance-like matrix of random correlated data (well conditioned),
// or with `rank` < 25 nearly singular.
std::vector<float> random_cov(std::mt19937& rng, int rank = N) {
    std::normal_distribution<float> n(0, 1);
    std::vector<float> basis(static_cast<size_t>(rank) * N);
    for (float& v : basis) v = n(rng) * 3;
    std::vector<float> m(N * N);
    for (int i = 0; i < N; i++)
        for (int j = 0; j <= i; j++) {
            float s = 0;
            for (int k = 0; k < rank; k++) s += basis[k * N + i] * basis[k * N + j];
            m[i * N + j] = m[j * N + i] = s / rank + (i == j ? 0.01f : 0.0f);
        }
    return m;
}

bool same(const float* a, const float* b, size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }

TEST(Arithmetic, EigenvaluesMatchReferenceStatements) {
    std::mt19937 rng(11);
    for (int t = 0; t < 200; t++) {
        const auto m = random_cov(rng, t % 5 == 0 ? 3 + t % 20 : N);
        float want[N], got[N];
        ref::eigen(m.data(), want);
        exact::EigenScratch s;
        exact::symmetric_eigenvalues(m.data(), got, s);
        ASSERT_TRUE(same(want, got, N)) << "matrix " << t;
    }
}

TEST(Arithmetic, HouseholderSolveMatchesReferenceStatements) {
    std::mt19937 rng(12);
    std::normal_distribution<float> n(0, 20);
    int failed = 0;
    for (int t = 0; t < 60; t++) {
        const int cols = 1 + t * 7 % 50;
        auto m = random_cov(rng, t % 6 == 0 ? 2 : N);
        std::vector<float> b(static_cast<size_t>(N) * cols);
        for (float& v : b) v = n(rng);
        std::vector<float> want(b.size(), 0.0f), got(b.size(), 0.0f), qb(b.size()), got_col(b.size(), 0.0f);
        const int err = ref::solve(m.data(), b.data(), cols, want.data());
        exact::SolveScratch s;
        exact::householder_qr(m.data(), s);
        exact::matmul(qb.data(), s.q, b.data(), N, N, cols);
        const bool ok = exact::pivots_usable(s.r);
        ASSERT_EQ(ok, err == 0) << "matrix " << t;
        if (!ok) {
            failed++;
            continue;
        }
        exact::back_substitute_rows(s.r, qb.data(), got.data(), cols);
        for (int j = 0; j < cols; j++) ASSERT_TRUE(exact::back_substitute_column(s.r, qb.data(), got_col.data(), cols, j));
        ASSERT_TRUE(same(want.data(), got.data(), want.size())) << "matrix " << t;
        ASSERT_TRUE(same(want.data(), got_col.data(), want.size())) << "matrix " << t;
        // the per-element product the device uses
        for (int i = 0; i < N; i++)
            for (int j = 0; j < cols; j++)
                ASSERT_EQ(qb[static_cast<size_t>(i) * cols + j], exact::matmul_element(s.q, b.data(), N, cols, i, j));
    }
    std::printf("[arith] solve: %d systems failed a pivot (as the reference would)\n", failed);
}

TEST(Arithmetic, TapSumAndMirrorMatchReferenceStatements) {
    std::mt19937 rng(13);
    std::normal_distribution<float> n(0, 50);
    for (int count : {3, 5, 9, 17, 37}) {
        std::vector<float> taps(static_cast<size_t>(count)), line(200);
        for (float& v : taps) v = n(rng) / 100;
        for (float& v : line) v = n(rng);
        const int w = 200, radius = count / 2;
        for (int j = 0; j < w; j++) {
            float accum = 0;
            for (int fj = 0; fj < count; fj++) {
                int jj = j - count / 2 + fj;
                jj = jj < 0 ? -jj : (jj >= w ? 2 * w - jj - 2 : jj);
                accum += taps[fj] * line[jj];
            }
            const float got = exact::tap_sum(taps.data(), count,
                                             [&](int k) { return line[exact::mirror_index(j - radius + k, w)]; });
            ASSERT_EQ(std::memcmp(&accum, &got, 4), 0);
        }
    }
}

TEST(Arithmetic, EntropyTailAndScoreMatchReferenceStatements) {
    std::mt19937 rng(14);
    std::normal_distribution<float> n(0, 30);
    std::uniform_real_distribution<float> u(0, 1);
    const int nb = 77;
    for (int t = 0; t < 20; t++) {
        float eig_r[N], eig_d[N];
        for (int k = 0; k < N; k++) eig_r[k] = n(rng), eig_d[k] = n(rng);
        std::vector<float> s_r(nb), s_d(nb), e_r(nb, 0.0f), e_d(nb, 0.0f);
        for (int j = 0; j < nb; j++) s_r[j] = u(rng) * 3, s_d[j] = u(rng) * 3 * (j % 7 != 0);
        const float sigma = 0.1f + u(rng), floor_ = u(rng) * (t % 2);
        // update_entropy: eigenvalue k outer, blocks inner
        for (int k = 0; k < N; k++) {
            float lr = eig_r[k] < 0 ? 0 : eig_r[k], ld = eig_d[k] < 0 ? 0 : eig_d[k];
            for (int j = 0; j < nb; j++) {
                e_r[j] += log2(lr * s_r[j] + sigma) + log2(2 * M_PI * M_E);
                e_d[j] += log2(ld * s_d[j] + sigma) + log2(2 * M_PI * M_E);
            }
        }
        for (int j = 0; j < nb; j++) {
            ASSERT_EQ(e_r[j], exact::block_entropy(eig_r, s_r[j], sigma));
            ASSERT_EQ(e_d[j], exact::block_entropy(eig_d, s_d[j], sigma));
        }
        for (int mode = 0; mode <= 6; mode++) {
            float score = 0;
            float base = N * (log2((1 + floor_) * sigma) + log2(2 * M_PI * M_E));
            for (int i = 0; i < nb; i++) {
                if (e_r[i] < base && e_d[i] < base) continue;
                float r = 0, d = 0;
                const float vr = s_r[i], vd = s_d[i];
                switch (mode) {
                case 0: r = e_r[i] * log2(1 + vr); d = e_d[i] * log2(1 + vd); break;
                case 1: r = e_r[i] * log2(1 + vr); d = e_d[i] * log2(1 + vr); break;
                case 2: r = e_r[i] * log2(1 + vd); d = e_d[i] * log2(1 + vd); break;
                case 3: r = e_r[i] * log2(1 + (vr + vd) / 2.0); d = e_d[i] * log2(1 + (vr + vd) / 2.0); break;
                case 4: r = e_r[i] * log2(1 + vr); d = e_d[i] * log2(1 + (vr + vd) / 2.0); break;
                case 5: r = e_r[i] * log2(1 + vr); d = e_d[i] * log2(1 + (0.75 * vr + 0.25 * vd)); break;
                default: r = e_r[i] * log2(1 + vr); d = e_d[i] * log2(1 + (0.25 * vr + 0.75 * vd)); break;
                }
                score += fabsf(r - d);
            }
            score = score / nb;
            ASSERT_EQ(score, exact::speed_score(e_r.data(), s_r.data(), e_d.data(), s_d.data(), nb, sigma, floor_, mode))
                << "mode " << mode;
        }
    }
}

}  // namespace
}  // namespace speedqa

// The pieces of the prediction against what predict.c and svm.cpp do: the
// dense SVR sum against libsvm's sparse walk, the transform's knots and
// rectification, the clip, the flags, the chroma correction.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>

#include "model/model.hpp"
#include "model/svr.hpp"
#include "model/tests/model_test_util.hpp"
#include "model/transform.hpp"
#include "support/json.hpp"

namespace speedqa::model {
namespace {

using testing::read_text;
using testing::repo_models_dir;

struct Node {
    int index;
    double value;
};

// libsvm's RBF kernel as svm.cpp walks two sparse vectors (-1 ends each):
// the oracle for the dense rows of Svr::decision.
double sparse_rbf(const Node* x, const Node* y, double gamma) {
    double sum = 0;
    while (x->index != -1 && y->index != -1) {
        if (x->index == y->index) {
            const double d = x->value - y->value;
            sum += d * d;
            ++x;
            ++y;
        } else if (x->index > y->index) {
            sum += y->value * y->value;
            ++y;
        } else {
            sum += x->value * x->value;
            ++x;
        }
    }
    for (; x->index != -1; ++x) sum += x->value * x->value;
    for (; y->index != -1; ++y) sum += y->value * y->value;
    return std::exp(-gamma * sum);
}

TEST(Svr, DenseRowsGiveLibsvmsSparseSumBitForBit) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> val(-2, 2);
    for (int trial = 0; trial < 200; trial++) {
        const int dims = 1 + static_cast<int>(rng() % 8);
        const int l = 1 + static_cast<int>(rng() % 40);
        const double gamma = std::ldexp(val(rng) + 3, -4);
        const double rho = val(rng);
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", gamma);
        std::string text = std::string("svm_type nu_svr\nkernel_type rbf\ngamma ") + buf + "\nnr_class 2\ntotal_sv " +
                           std::to_string(l) + "\n";
        std::snprintf(buf, sizeof buf, "%.17g", rho);
        text += std::string("rho ") + buf + "\nSV\n";
        std::vector<std::vector<Node>> svs;
        std::vector<double> coefs;
        for (int i = 0; i < l; i++) {
            coefs.push_back(val(rng));
            std::snprintf(buf, sizeof buf, "%.17g", coefs.back());
            text += buf;
            std::vector<Node> sv;
            for (int k = 1; k <= dims; k++) {
                if (rng() % 3 == 0) continue;  // sparse: a third of the components left out
                double v = val(rng);
                if (rng() % 7 == 0) v = 0;  // and some written as 0
                if (rng() % 11 == 0) v = -0.0;
                sv.push_back({k, v});
                std::snprintf(buf, sizeof buf, " %d:%.17g", k, v);
                text += buf;
            }
            sv.push_back({-1, 0});
            svs.push_back(sv);
            text += " \n";
        }
        const Svr svr = Svr::parse(text, dims);
        ASSERT_EQ(svr.support_vectors(), l);
        for (int rep = 0; rep < 20; rep++) {
            std::vector<Node> x;
            std::vector<double> dense;
            for (int k = 1; k <= dims; k++) {
                const double v = rep == 0 ? 0.0 : val(rng);
                x.push_back({k, v});
                dense.push_back(v);
            }
            x.push_back({-1, 0});
            double sum = 0;
            for (int i = 0; i < l; i++) sum += coefs[static_cast<size_t>(i)] * sparse_rbf(x.data(), svs[static_cast<size_t>(i)].data(), gamma);
            sum -= rho;
            const double got = svr.decision(dense.data());
            ASSERT_EQ(got, sum) << std::hexfloat << got << " vs " << sum << "\n" << text;
        }
    }
}

TEST(ScoreTransform, PolynomialTermsOnlyWhereGiven) {
    ScoreTransform t;
    t.enabled = true;
    EXPECT_EQ(t.apply(42.5), 42.5);
    t.has_p1 = true;
    t.p1 = 2;
    EXPECT_EQ(t.apply(3), 6);
    t.has_p0 = true;
    t.p0 = 1;
    t.has_p2 = true;
    t.p2 = 0.5;
    EXPECT_EQ(t.apply(3), 1 + 6 + 0.5 * 3 * 3);
    t.enabled = false;
    EXPECT_EQ(t.apply(3), 3);
}

TEST(ScoreTransform, KnotsInsideBelowAboveAndNaN) {
    ScoreTransform t;
    t.enabled = true;
    t.knots = {{0, 0}, {50, 60}, {100, 100}};
    EXPECT_EQ(t.apply(25), 1.2 * 25 + 0);
    EXPECT_EQ(t.apply(-10), 1.2 * -10 + 0);
    const double slope = (100. - 60.) / (100. - 50.), offset = 60 - 50 * slope;
    EXPECT_EQ(t.apply(75), slope * 75 + offset);
    EXPECT_EQ(t.apply(150), slope * 150 + offset);
    EXPECT_EQ(t.apply(50), slope * 50 + offset);  // shared knot: the later segment
    EXPECT_EQ(t.apply(100), slope * 100 + offset);  // the last knot: inside the last segment
    EXPECT_EQ(t.apply(0), 0.0);
    EXPECT_EQ(t.apply(std::nan("")), 0.0);         // no segment holds NaN: predict.c's 0
    t.knots = {{-5, 10}, {10, 10}, {20, 30}};
    EXPECT_EQ(t.apply(-100), 10);
    EXPECT_EQ(t.apply(-5), 10);  // the first knot: inside the first segment
    EXPECT_EQ(t.apply(3), 10);
    EXPECT_EQ(t.apply(15), 2.0 * 15 + (10 - 10 * 2.0));
}

TEST(ScoreTransform, Rectification) {
    ScoreTransform t;
    t.enabled = true;
    t.has_p1 = true;
    t.p1 = 2;
    t.out_lte_in = true;
    EXPECT_EQ(t.apply(3), 3);
    EXPECT_EQ(t.apply(-3), -6);
    t.out_lte_in = false;
    t.out_gte_in = true;
    EXPECT_EQ(t.apply(3), 6);
    EXPECT_EQ(t.apply(-3), -3);
}

TEST(ScoreClip, ComparesAsPredictC) {
    ScoreClip c{true, 0, 100};
    EXPECT_EQ(c.apply(-1), 0);
    EXPECT_EQ(c.apply(101), 100);
    EXPECT_EQ(c.apply(50), 50);
    EXPECT_TRUE(std::isnan(c.apply(std::nan(""))));
    EXPECT_EQ(c.apply(std::numeric_limits<double>::infinity()), 100);
    ScoreClip inverted{true, 10, 5};
    EXPECT_EQ(inverted.apply(0), 5);
    EXPECT_EQ(inverted.apply(7), 5);
    ScoreClip off;
    EXPECT_EQ(off.apply(1e9), 1e9);
}

// Feature values near a good encode: adm2, motion2, vif0..3.
constexpr double kV061Features[] = {0.99, 4.0, 0.9, 0.98, 0.99, 0.995};
constexpr double kPerfect[] = {1.0, 10.0, 1.0, 1.0, 1.0, 1.0};  // above 100 before the clip

TEST(Predict, FlagsOfTheModelArgument) {
    const std::string path = repo_models_dir() + "/vmaf_v0.6.1.json";
    const Model plain = Model::load_file(path);
    LoadOptions o;
    o.enable_transform = true;
    const Model transformed = Model::load_file(path, o);
    o.enable_transform = false;
    o.disable_clip = true;
    const Model unclipped = Model::load_file(path, o);
    for (const double* f : {kV061Features, kPerfect}) {
        const double raw = unclipped.predict(f);
        EXPECT_EQ(plain.predict(f), std::min(std::max(raw, 0.0), 100.0));
        // v0.6.1's transform (left disabled by the file): p0 + p1 y + p2 y^2, out >= in
        const double poly = 1.70674692 + 1.72643844 * raw + -0.00705305 * raw * raw;
        const double want = std::min(std::max(poly < raw ? raw : poly, 0.0), 100.0);
        EXPECT_EQ(transformed.predict(f), want);
    }
    EXPECT_GT(unclipped.predict(kPerfect), 100.0);  // the clip matters here
    EXPECT_EQ(plain.predict(kPerfect), 100.0);
}

TEST(Predict, ChromaCorrectionWhereSpeedChromaIsZero) {
    const std::string path = repo_models_dir() + "/vmaf_v1.0.16_3d0h.json";
    LoadOptions o;
    o.disable_clip = true;  // keep the scores apart
    const Model m = Model::load_file(path, o);
    const auto j = speedqa::testing::parse_json(read_text(path))["model_dict"];
    const double s_adm = j["slopes"][3], i_adm = j["intercepts"][3];
    for (const double adm3 : {0.95, 0.97, 0.99, 1.0}) {
        // cambi, speed_chroma_uv, adm3, motion3; the guiding adm3 is taken
        // back from its normalised value
        const double guiding = ((s_adm * adm3 + i_adm) - i_adm) / s_adm;
        const double zero[] = {1.24, 0.0, adm3, 4.8};
        const double corrected[] = {1.24, -120.0 * guiding + 120.0, adm3, 4.8};
        EXPECT_EQ(m.predict(zero), m.predict(corrected)) << adm3;
        // a value lost in the intercept comes back as 0 and is corrected too, as in libvmaf
        const double tiny[] = {1.24, 1e-300, adm3, 4.8};
        EXPECT_EQ(m.predict(zero), m.predict(tiny)) << adm3;
        const double other[] = {1.24, 2.96, adm3, 4.8};
        EXPECT_NE(m.predict(zero), m.predict(other)) << adm3;
    }
}

TEST(Predict, NaNFeaturesGiveNaN) {
    const Model m = Model::load_file(repo_models_dir() + "/vmaf_v0.6.1.json");
    const double f[] = {std::nan(""), 4.0, 0.9, 0.98, 0.99, 0.995};
    EXPECT_TRUE(std::isnan(m.predict(f)));
}

// Not a limit, a figure for the report: the per-frame cost of the model
// (a few hundred exp calls) beside the features' milliseconds.
TEST(Predict, CostPerFrame) {
    const Model m = Model::load_file(repo_models_dir() + "/vmaf_v1.0.16_3d0h.json");
    double f[] = {1.24, 2.96, 0.95, 4.8};
    const int n = 20000;
    double sink = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; i++) {
        f[3] = 4.0 + (i & 7) * 0.125;
        sink += m.predict(f);
    }
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
    EXPECT_TRUE(std::isfinite(sink));
    std::printf("[model] predict: %.2f us per frame (vmaf_v1.0.16_3d0h, 215 support vectors)\n", us);
}

}  // namespace
}  // namespace speedqa::model

// checkasm style: every AVX2 and AVX-512 row function against its C reference, on
// random and adversarial inputs (the extremes of each range, flat rows,
// checkerboards, odd and minimal sizes), for each lane kind, with ==.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <array>
#include <random>
#include <string>
#include <vector>

#include "core/cpu_flags.hpp"
#include "features/adm/kernels.hpp"

namespace speedqa::adm {
namespace {

constexpr int kPad = 64;
constexpr Lane kLanes[3] = {Lane::scalar, Lane::avx2, Lane::avx512};

struct Rng {
    std::mt19937_64 g{20261130};
    int64_t in(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(g); }
};

// A row of n values of a pattern within [lo, hi].
template <class T>
std::vector<T> make_row(Rng& r, int n, int pattern, int64_t lo, int64_t hi) {
    std::vector<T> v(static_cast<size_t>(n) + kPad);
    for (int i = 0; i < n + kPad; ++i) {
        int64_t x;
        switch (pattern) {
        case 0: x = r.in(lo, hi); break;                         // uniform
        case 1: x = (i & 1) ? hi : lo; break;                    // checkerboard of the extremes
        case 2: x = r.in(0, 1) ? hi : lo; break;                 // random extremes
        case 3: x = 0; break;                                    // flat zero
        case 4: x = hi; break;                                   // flat maximum
        case 5: x = r.in(-300, 300); break;                      // small
        default: x = r.in(0, 3) == 0 ? r.in(lo, hi) : r.in(-2, 2);   // sparse
        }
        v[static_cast<size_t>(i)] = static_cast<T>(std::clamp(x, lo, hi));
    }
    return v;
}

// The orientation sums (orient_sums0 or orient_sums123 of one
// implementation) of the three filtered rows f3, over [begin, end) of rows n
// long.
template <class T>
std::array<std::vector<int32_t>, 3> three_orient_sums(void (*orient_sums)(Row3<const T>, int, int, int32_t*),
                                                      const Row3<const T> f3[3], size_t n, int begin, int end) {
    std::array<std::vector<int32_t>, 3> out;
    for (int q = 0; q < 3; ++q) {
        out[q].assign(n, 0);
        orient_sums(f3[q], begin, end, out[q].data());
    }
    return out;
}

// The SIMD builds under test: AVX2, and AVX-512 with 2^30 / o read from the
// table by gathers and computed by division (each CPU runs one of the two;
// both run here).
enum class Variant { avx2, avx512, avx512_div };
const char* variant_name(Variant v) { return v == Variant::avx2 ? "avx2" : v == Variant::avx512 ? "avx512" : "avx512_div"; }

// Run for each SIMD build (the parameter); skipped where the CPU lacks it.
class AdmCheckasm : public ::testing::TestWithParam<Variant> {
protected:
    void SetUp() override {
        const CpuFlags f = detect_cpu_flags();
        if (GetParam() != Variant::avx2) {
            if (!f.avx512) GTEST_SKIP() << "no AVX-512 on this CPU";
            avx2_ = row_kernels_avx512_div(GetParam() == Variant::avx512_div);
        } else {
            if (!f.avx2) GTEST_SKIP() << "no AVX2 on this CPU";
            avx2_ = row_kernels_avx2();
        }
        ASSERT_NE(avx2_, nullptr);
        for (int i = 1; i <= 32768; ++i) {
            div_[32768 + i] = static_cast<int32_t>(1073741824 / i);
            div_[32768 - i] = -div_[32768 + i];
        }
    }
    ~AdmCheckasm() override {
        std::printf("[checkasm] %s: %lld cases, %lld values compared\n",
                    ::testing::UnitTest::GetInstance()->current_test_info()->name(), cases_, values_);
    }
    template <class T>
    void expect_equal(const T* a, const T* b, int begin, int end, const char* what) {
        for (int j = begin; j < end; ++j) {
            ++values_;
            if (a[j] != b[j]) {
                ADD_FAILURE() << what << " column " << j << ": C " << int64_t{a[j]} << ", " << variant_name(GetParam()) << " " << int64_t{b[j]};
                return;
            }
        }
    }
    const RowKernels& c_ = row_kernels_c();
    const RowKernels* avx2_ = nullptr;  // the SIMD build under test
    std::vector<int32_t> div_ = std::vector<int32_t>(65537, 0);
    long long cases_ = 0, values_ = 0;
};

const int kWidths[] = {5, 6, 7, 8, 9, 15, 16, 17, 31, 33, 34, 47, 64, 65, 66, 97, 130, 257, 258, 515};

TEST_P(AdmCheckasm, Dwt0) {
    Rng r;
    for (int bitdepth : {8, 10, 12, 16})
        for (int width : kWidths)
            for (int pattern = 0; pattern < 7; ++pattern)
                for (int span = 0; span < 3; ++span) {
                    // v, h, d in all columns, in none, or in a span of them
                    const int w = (width + 1) / 2;
                    const int d0 = span == 0 ? 0 : static_cast<int>(r.in(0, w));
                    const int d1 = span == 0 ? w : (span == 1 ? d0 : static_cast<int>(r.in(d0, w)));
                    // Past the bit depth too for 16-bit containers: libvmaf wraps those.
                    const int64_t max = bitdepth == 8 || pattern == 0 ? (int64_t{1} << bitdepth) - 1 : 65535;
                    std::vector<int16_t> out[2][5];
                    std::vector<int32_t> band_a[2];
                    for (auto& o : out)
                        for (auto& b : o) b.assign(static_cast<size_t>(2 * width + kPad), 0);
                    for (auto& b : band_a) b.assign(static_cast<size_t>(width + kPad), 0);
                    std::vector<std::vector<uint16_t>> rows;
                    for (int q = 0; q < 4; ++q) rows.push_back(make_row<uint16_t>(r, width, pattern, 0, max));
                    for (int impl = 0; impl < 2; ++impl) {
                        const RowKernels& k = impl ? *avx2_ : c_;
                        auto& o = out[impl];
                        if (bitdepth == 8) {
                            std::vector<uint8_t> b[4];
                            const uint8_t* p[4];
                            for (int q = 0; q < 4; ++q) {
                                b[q].assign(rows[q].begin(), rows[q].end());
                                p[q] = b[q].data();
                            }
                            k.dwt0_8(p, width, o[4].data(), band_a[impl].data(), o[1].data(), o[2].data(), o[3].data(), d0, d1);
                        } else {
                            const uint16_t* p[4] = {rows[0].data(), rows[1].data(), rows[2].data(), rows[3].data()};
                            k.dwt0_16(p, width, bitdepth, o[4].data(), band_a[impl].data(), o[1].data(), o[2].data(),
                                      o[3].data(), d0, d1);
                        }
                    }
                    ++cases_;
                    SCOPED_TRACE(testing::Message() << "bitdepth " << bitdepth << " width " << width << " pattern "
                                                    << pattern << " bands' columns [" << d0 << ", " << d1 << ")");
                    expect_equal(band_a[0].data(), band_a[1].data(), 0, w, "a");
                    expect_equal(out[0][4].data(), out[1][4].data(), 0, width, "low pass row");
                    if (d0 < d1) {
                        expect_equal(out[0][1].data(), out[1][1].data(), d0, d1, "v");
                        expect_equal(out[0][2].data(), out[1][2].data(), d0, d1, "h");
                        expect_equal(out[0][3].data(), out[1][3].data(), d0, d1, "d");
                    }
                    if (span == 0) expect_equal(out[0][4].data(), out[1][4].data(), 0, 2 * width, "low and high pass rows");
                }
}

TEST_P(AdmCheckasm, Scale0Rows) {
    Rng r;
    const int32_t rfs[][3] = {{36453, 36453, 49417}, {48227, 48227, 65535}, {1, 1, 1}, {65535, 65535, 65535}};
    const double gains[] = {100.0, 1.0, 1.5, 2.25, 37.7};
    for (int n : {1, 7, 8, 9, 16, 17, 40, 63, 200, 700})   // (700: cm0_avx512 empties its CubeQueue within the row)
        for (int pattern = 0; pattern < 7; ++pattern)
            for (Lane lane : kLanes) {
                const int begin = static_cast<int>(r.in(1, 3)), end = begin + n;
                std::vector<int16_t> in[6];
                for (auto& v : in) v = make_row<int16_t>(r, end + 2, pattern, -32768, 32767);
                if (pattern == 6)   // distorted close to the reference: the gain path
                    for (int t = 0; t < 3; ++t)
                        for (size_t j = 0; j < in[t].size(); ++j)
                            in[3 + t][j] = static_cast<int16_t>(std::clamp<int>(in[t][j] + static_cast<int>(r.in(-3, 3)), -32768, 32767));
                Scale0Consts k{};
                k.gain_limit = gains[r.in(0, 4)];
                k.gain_int = k.gain_limit == std::floor(k.gain_limit) ? static_cast<int32_t>(k.gain_limit) : 0;
                k.cos_1deg_sq = 0.99969541f;
                k.div_lookup = div_.data();
                const int cub[3] = {static_cast<int>(r.in(1, 8)), static_cast<int>(r.in(1, 8)), static_cast<int>(r.in(1, 9))};
                for (int t = 0; t < 3; ++t) {
                    k.rf[t] = rfs[r.in(0, 3)][t];
                    k.shift_cub[t] = cub[t];
                    // libvmaf's half of 2^shift, or any other (then a column under
                    // the threshold adds something: kernels that skip one show)
                    k.add_cub[t] = r.in(0, 3) ? int64_t{1} << (cub[t] - 1) : r.in(0, int64_t{1} << (cub[t] + 3));
                }
                const Row3<const int16_t> ref{{in[0].data(), in[1].data(), in[2].data()}};
                const Row3<const int16_t> dis{{in[3].data(), in[4].data(), in[5].data()}};
                std::vector<std::vector<int16_t>> out[2];
                uint64_t den[2][3] = {};
                int64_t cm[2][3] = {};
                std::array<std::vector<int32_t>, 3> fsums[2];
                for (int impl = 0; impl < 2; ++impl) {
                    const RowKernels& kk = impl ? *avx2_ : c_;
                    out[impl].assign(6, std::vector<int16_t>(in[0].size(), 0));
                    auto& o = out[impl];
                    kk.decouple0(ref, dis, {{o[0].data(), o[1].data(), o[2].data()}}, {{o[3].data(), o[4].data(), o[5].data()}},
                                 begin, end, lane, k);
                    kk.den0(ref, begin, end, den[impl]);
                    // CSF of each orientation, then masking with these rows as all three neighbours.
                    std::vector<int16_t> val[3], flt[3];
                    for (int t = 0; t < 3; ++t) {
                        val[t].assign(in[0].size(), 0);
                        flt[t].assign(in[0].size(), 0);
                        kk.csf0(in[3 + t].data(), val[t].data(), flt[t].data(), begin - 1, end + 1, k.rf[t], t, lane);
                        o.push_back(val[t]);
                        o.push_back(flt[t]);
                    }
                    const Row3<const int16_t> cv{{val[0].data(), val[1].data(), val[2].data()}};
                    const Row3<const int16_t> fl{{flt[0].data(), flt[1].data(), flt[2].data()}};
                    const Row3<const int16_t> fl2{{in[1].data(), in[2].data(), in[0].data()}};   // other rows: raw values
                    const Row3<const int16_t> fl3{{flt[1].data(), flt[2].data(), flt[0].data()}};   // filtered, permuted
                    // three different rows, so that a mix-up of above and below shows
                    const Row3<const int16_t> f3[3] = {fl2, fl, fl3};
                    // their orientation sums, by this implementation (the C cm0 reads flt instead)
                    fsums[impl] = three_orient_sums(kk.orient_sums0, f3, in[0].size(), begin - 1, end + 1);
                    const int32_t* const fs[3] = {fsums[impl][0].data(), fsums[impl][1].data(), fsums[impl][2].data()};
                    kk.cm0(cv, f3, fs, ref, begin, end, lane, k, cm[impl]);
                }
                ++cases_;
                SCOPED_TRACE(testing::Message() << "n " << n << " pattern " << pattern << " lane " << static_cast<int>(lane)
                                                << " gain " << k.gain_limit);
                for (size_t q = 0; q < out[0].size(); ++q) expect_equal(out[0][q].data(), out[1][q].data(), begin, end, "row");
                for (int q = 0; q < 3; ++q) expect_equal(fsums[0][q].data(), fsums[1][q].data(), begin - 1, end + 1, "orient_sums0");
                for (int t = 0; t < 3; ++t) {
                    values_ += 2;
                    EXPECT_EQ(den[0][t], den[1][t]) << "den " << t;
                    EXPECT_EQ(cm[0][t], cm[1][t]) << "cm " << t;
                }
            }
}

// csf0 alone, over many factors, on rows drawn across each factor's int16
// limit (the largest |src| whose d = (src rf + round) >> shift stays within
// int16: past it the truncating and the saturating stores of the lanes
// differ, and a kernel in 16-bit lanes would need 32-bit code), at it,
// within it, and over the whole range.
TEST_P(AdmCheckasm, Csf0) {
    Rng r;
    std::vector<int32_t> rfs = {0, 1, 2, 2184, 20000, 32767, 32768, 32769, 36453, 48227, 49417, 65534, 65535};
    for (int q = 0; q < 24; ++q) rfs.push_back(static_cast<int32_t>(r.in(0, 65535)));
    for (int32_t rf : rfs)
        for (int theta = 0; theta < 3; ++theta)
            for (Lane lane : kLanes)
                for (int mode = 0; mode < 4; ++mode)
                    for (int n : {1, 31, 32, 33, 64, 200}) {
                        const int64_t lim = rf == 0 ? 32768 : std::min<int64_t>(32768, ((int64_t{1} << 30) - 16385) / rf);
                        const int begin = static_cast<int>(r.in(0, 2)), end = begin + n;
                        std::vector<int16_t> src(static_cast<size_t>(end) + kPad);
                        for (auto& x : src) {
                            int64_t v;
                            switch (mode) {
                            case 0: v = r.in(-32768, 32767); break;                                   // anything
                            case 1: v = r.in(-lim - 3, lim + 3); break;                               // across the limit
                            case 2: v = (r.in(0, 1) ? lim : -lim) + r.in(-3, 0) * (r.in(0, 1) ? 1 : -1); break;   // at it
                            default: v = r.in(-lim, lim); break;                                      // within it
                            }
                            x = static_cast<int16_t>(std::clamp<int64_t>(v, -32768, 32767));
                        }
                        std::vector<int16_t> val[2], flt[2];
                        for (int impl = 0; impl < 2; ++impl) {
                            val[impl].assign(src.size(), 0);
                            flt[impl].assign(src.size(), 0);
                            (impl ? *avx2_ : c_).csf0(src.data(), val[impl].data(), flt[impl].data(), begin, end, rf, theta, lane);
                        }
                        ++cases_;
                        SCOPED_TRACE(testing::Message() << "rf " << rf << " theta " << theta << " lane " << static_cast<int>(lane)
                                                        << " mode " << mode << " n " << n);
                        expect_equal(val[0].data(), val[1].data(), begin, end, "csf0 value");
                        expect_equal(flt[0].data(), flt[1].data(), begin, end, "csf0 filtered");
                    }
}

TEST_P(AdmCheckasm, Dwt123) {
    Rng r;
    const int64_t ranges[] = {16384, 1 << 20, 1 << 28, INT32_MAX};
    for (int scale = 1; scale <= 3; ++scale)
        for (int width : kWidths)
            for (int pattern = 0; pattern < 21; ++pattern) {
                // the bands other than a in all columns, in none, or in a span of them
                const int span = pattern % 3, w = (width + 1) / 2;
                const int d0 = span == 0 ? 0 : static_cast<int>(r.in(0, w));
                const int d1 = span == 0 ? w : (span == 1 ? d0 : static_cast<int>(r.in(d0, w)));
                // scale 1's input is scale 0's band_a: int16 values (the
                // kernels pair them in 16-bit halves); scales 2-3 any int32
                const int64_t lim = scale == 1 ? 32767 >> r.in(0, 3) * 4 : ranges[r.in(0, 3)];
                const int64_t low = -lim - (lim == INT32_MAX || lim == 32767);
                std::vector<int32_t> rows[8];
                for (auto& v : rows) v = make_row<int32_t>(r, width, pattern / 3, low, lim);
                const int32_t* ref[4] = {rows[0].data(), rows[1].data(), rows[2].data(), rows[3].data()};
                const int32_t* dis[4] = {rows[4].data(), rows[5].data(), rows[6].data(), rows[7].data()};
                std::vector<int32_t> out[2][9];
                for (int impl = 0; impl < 2; ++impl) {
                    for (auto& o : out[impl]) o.assign(static_cast<size_t>(4 * width + kPad), 0);
                    auto& o = out[impl];
                    (impl ? *avx2_ : c_)
                        .dwt123(ref, dis, width, scale, o[8].data(), {{o[0].data(), o[1].data(), o[2].data()}}, o[3].data(),
                                {{o[4].data(), o[5].data(), o[6].data()}}, o[7].data(), d0, d1);
                }
                ++cases_;
                SCOPED_TRACE(testing::Message() << "scale " << scale << " width " << width << " pattern " << pattern / 3
                                                << " bands' columns [" << d0 << ", " << d1 << ")");
                for (int q : {3, 7}) expect_equal(out[0][q].data(), out[1][q].data(), 0, w, "band a");
                for (int q : {0, 1, 2, 4, 5, 6})
                    if (d0 < d1) expect_equal(out[0][q].data(), out[1][q].data(), d0, d1, "band");
                for (int img = 0; img < 2; ++img)
                    expect_equal(out[0][8].data(), out[1][8].data(), 2 * img * width, (2 * img + 1) * width, "low pass rows");
                if (span == 0) expect_equal(out[0][8].data(), out[1][8].data(), 0, 4 * width, "vertical pass rows");
            }
}

TEST_P(AdmCheckasm, Scale123Rows) {
    Rng r;
    const int64_t ranges[] = {3000, 1 << 20, 1 << 26, INT32_MAX};
    // Q32 factors as the lanes read them: unsigned (scalar code), wrapped or
    // saturated past 1.0, and signed (libvmaf's 32-bit multiplies).
    const int64_t factors[] = {16777216, 181344256, 2693222400, 4191379456, 4294967295, -1601744896, -1, -103587840, 1};
    for (int n : {1, 3, 4, 5, 8, 13, 16, 17, 32, 40, 64, 300})
        for (int pattern = 0; pattern < 8; ++pattern)
            for (Lane lane : kLanes)
                for (int scale = 1; scale <= 3; ++scale) {
                    const int64_t lim = ranges[r.in(0, 3)];
                    const int begin = static_cast<int>(r.in(1, 3)), end = begin + n;
                    std::vector<int32_t> in[6];
                    // (pattern 7: uniform reference rows, the distorted ones as 6)
                    for (auto& v : in) v = make_row<int32_t>(r, end + 2, pattern == 7 ? 0 : pattern, -lim - (lim == INT32_MAX), lim);
                    // The distorted close to the reference, where k leaves its clamps
                    // (t / o in (0, 1)) and at their edges (t near o, near 2 o).
                    if (pattern >= 6)
                        for (int t = 0; t < 3; ++t)
                            for (size_t j = 0; j < in[t].size(); ++j) {
                                const int64_t o = in[t][j];
                                int64_t d;
                                switch (r.in(0, 3)) {
                                case 0: d = o / 2 + r.in(-3, 3); break;
                                case 1: d = static_cast<int64_t>(static_cast<double>(o) * static_cast<double>(r.in(0, 70000)) / 32768.0); break;
                                case 2: d = o + r.in(-4, 4); break;
                                default: d = 2 * o + r.in(-4, 4); break;
                                }
                                in[3 + t][j] = static_cast<int32_t>(std::clamp<int64_t>(d, INT32_MIN, INT32_MAX));
                            }
                    Scale123Consts k{};
                    const double gains[] = {100.0, 1.0, 1.5, 2.25, 37.7};
                    k.gain_limit = gains[r.in(0, 4)];
                    k.gain_int = k.gain_limit == std::floor(k.gain_limit) ? static_cast<int32_t>(k.gain_limit) : 0;
                    k.cos_1deg_sq = 0.99969541f;
                    k.div_lookup = div_.data();
                    for (auto& f : k.rf) f = factors[r.in(0, 8)];
                    if (lane == Lane::scalar)
                        for (auto& f : k.rf) f = f < 0 ? f + 4294967296 : f;
                    k.shift_cub = static_cast<int>(r.in(1, 12));
                    k.add_cub = r.in(0, 3) ? int64_t{1} << (k.shift_cub - 1) : r.in(0, int64_t{1} << (k.shift_cub + 3));
                    const int sq[3] = {31, 30, 31};
                    k.den_shift_sq = sq[scale - 1];
                    k.den_shift_cub = static_cast<int>(r.in(1, 12));
                    k.den_add_cub = r.in(0, 3) ? uint64_t{1} << (k.den_shift_cub - 1)
                                               : static_cast<uint64_t>(r.in(0, int64_t{1} << (k.den_shift_cub + 3)));
                    const Row3<const int32_t> ref{{in[0].data(), in[1].data(), in[2].data()}};
                    const Row3<const int32_t> dis{{in[3].data(), in[4].data(), in[5].data()}};
                    std::vector<int32_t> flt_row[3];
                    for (auto& v : flt_row) v = make_row<int32_t>(r, end + 2, pattern, -71582789, 71582788);
                    std::vector<int32_t> out[2][12];
                    uint64_t den[2][3] = {};
                    int64_t cm[2][3] = {}, cm_xs[3] = {};
                    std::array<std::vector<int32_t>, 3> fsums[2];
                    const bool round_first = r.in(0, 1) == 1;
                    for (int impl = 0; impl < 2; ++impl) {
                        const RowKernels& kk = impl ? *avx2_ : c_;
                        auto& o = out[impl];
                        for (auto& v : o) v.assign(in[0].size(), 0);
                        kk.decouple123(ref, dis, {{o[0].data(), o[1].data(), o[2].data()}},
                                       {{o[3].data(), o[4].data(), o[5].data()}}, begin, end, round_first, k);
                        kk.den123(ref, begin, end, k, den[impl]);
                        for (int t = 0; t < 3; ++t)
                            kk.csf123(in[3 + t].data(), o[6 + t].data(), o[9 + t].data(), begin - 1, end + 1, k.rf[t]);
                        const Row3<const int32_t> cv{{o[6].data(), o[7].data(), o[8].data()}};
                        const Row3<const int32_t> fl{{o[9].data(), o[10].data(), o[11].data()}};
                        // Another row of filtered values: any within their range.
                        const Row3<const int32_t> other{{flt_row[0].data(), flt_row[1].data(), flt_row[2].data()}};
                        const Row3<const int32_t> other2{{flt_row[1].data(), flt_row[2].data(), flt_row[0].data()}};
                        // three different rows, so that a mix-up of above and below shows
                        const Row3<const int32_t> f3[3] = {fl, other, other2};
                        fsums[impl] = three_orient_sums(kk.orient_sums123, f3, in[0].size(), begin - 1, end + 1);
                        const int32_t* const fs[3] = {fsums[impl][0].data(), fsums[impl][1].data(), fsums[impl][2].data()};
                        kk.cm123(cv, f3, fs, ref, {{nullptr, nullptr, nullptr}}, begin, end, lane, k, cm[impl]);
                        if (impl == 1) {
                            // with the products given: csf123's values of the masked
                            // coefficients (the C reference's, with the same factors)
                            std::vector<int32_t> xv[3], xf(in[0].size());
                            for (int t = 0; t < 3; ++t) {
                                xv[t].assign(in[0].size(), 0);
                                c_.csf123(in[t].data(), xv[t].data(), xf.data(), begin, end, k.rf[t]);
                            }
                            kk.cm123(cv, f3, fs, ref, {{xv[0].data(), xv[1].data(), xv[2].data()}}, begin, end, lane, k, cm_xs);
                        }
                    }
                    ++cases_;
                    SCOPED_TRACE(testing::Message() << "n " << n << " pattern " << pattern << " lane "
                                                    << static_cast<int>(lane) << " scale " << scale << " range " << lim);
                    for (int q = 0; q < 6; ++q) expect_equal(out[0][q].data(), out[1][q].data(), begin, end, "decoupled");
                    for (int q = 6; q < 12; ++q) expect_equal(out[0][q].data(), out[1][q].data(), begin - 1, end + 1, "csf");
                    for (int q = 0; q < 3; ++q)
                        expect_equal(fsums[0][q].data(), fsums[1][q].data(), begin - 1, end + 1, "orient_sums123");
                    for (int t = 0; t < 3; ++t) {
                        values_ += 2;
                        EXPECT_EQ(den[0][t], den[1][t]) << "den " << t;
                        EXPECT_EQ(cm[0][t], cm[1][t]) << "cm " << t;
                        EXPECT_EQ(cm[0][t], cm_xs[t]) << "cm with the products given " << t;
                    }
                }
}

// Each way the AVX-512 decouplings find 2^30 / d (recip30_avx512), over
// every d they ask for, 1 .. 2^15, against libvmaf's table (integer
// division): in order (whole vectors of d <= 64, of d > 64, one of both) and
// shuffled (most vectors mixed), each row ending with a partial vector whose
// lanes past it must stay untouched.
TEST(AdmRecip30, EveryDivisorEveryKind) {
    if (!detect_cpu_flags().avx512) GTEST_SKIP() << "no AVX-512 on this CPU";
    std::vector<int32_t> table(65537, 0);
    for (int i = 1; i <= 32768; ++i) {
        table[32768 + i] = static_cast<int32_t>(1073741824 / i);
        table[32768 - i] = -table[32768 + i];
    }
    std::vector<int32_t> sorted(32768);
    for (int i = 0; i < 32768; ++i) sorted[i] = i + 1;
    std::vector<int32_t> shuffled = sorted;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(20261203));
    long long values = 0;
    for (int kind = 0; kind < 3; ++kind) {
        const Recip30Row f = recip30_avx512(kind);
        ASSERT_NE(f, nullptr);
        for (const auto* d : {&sorted, &shuffled}) {
            const int n = static_cast<int>(d->size()) - 5;
            std::vector<int32_t> out(d->size(), -1);
            f(d->data(), n, table.data() + 32768, out.data());
            for (int i = 0; i < static_cast<int>(d->size()); ++i) {
                const int32_t want = i < n ? table[32768 + (*d)[i]] : -1;
                ++values;
                if (out[i] != want) {
                    ADD_FAILURE() << "kind " << kind << " d " << (*d)[i] << ": " << out[i] << ", want " << want;
                    break;
                }
            }
        }
    }
    std::printf("[checkasm] recip30: %lld values compared\n", values);
}

// The SIMD decoupling at scale 0 skips the angle test where
// adm_enhn_gain_limit is 1: the gain bound (min(rst, t) for rst > 0, max for
// rst < 0) then never changes rst. Every o, against the t where it could:
// around o and -o (where k leaves its clamps), the extremes, and a spread.
// (All 2^32 pairs were checked once, outside the suite: none changed.)
TEST(AdmGainOne, BoundLeavesScale0RstAsIs) {
    constexpr double kGain = 1.0;
    std::vector<int32_t> div(65537, 0);
    for (int i = 1; i <= 32768; ++i) {
        div[32768 + i] = static_cast<int32_t>(1073741824 / i);
        div[32768 - i] = -div[32768 + i];
    }
    std::vector<int> ts;
    for (int t = -32768; t <= 32767; t += 1031) ts.push_back(t);
    for (int t : {-32768, -32767, -2, -1, 0, 1, 2, 32766, 32767}) ts.push_back(t);
    long long checked = 0;
    for (int o = -32768; o <= 32767; ++o) {
        std::vector<int> near = ts;
        for (int d = -4; d <= 4; ++d)
            for (int base : {o, -o, o / 2, -o / 2})
                if (base + d >= -32768 && base + d <= 32767) near.push_back(base + d);
        for (int t : near) {
            const int32_t kk = exact::k_scale0(static_cast<int16_t>(o), static_cast<int16_t>(t), div.data());
            const int64_t rst = (int64_t{kk} * o + 16384) >> 15;
            const float rst_f = (static_cast<float>(kk) / 32768) * (static_cast<float>(o) / 64);
            for (bool round_first : {false, true}) {
                if (rst_f != 0.f) {
                    ASSERT_EQ(exact::gain_bound(rst, t, kGain, rst_f > 0.f, round_first), rst) << "o " << o << " t " << t;
                }
                ++checked;
            }
        }
    }
    std::printf("[adm gain 1] %lld (o, t, rounding) checked\n", checked);
}

INSTANTIATE_TEST_SUITE_P(Isa, AdmCheckasm, ::testing::Values(Variant::avx2, Variant::avx512, Variant::avx512_div),
                         [](const ::testing::TestParamInfo<Variant>& i) { return std::string(variant_name(i.param)); });

}  // namespace
}  // namespace speedqa::adm

#include "features/speed/taps.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "features/speed/exact/constants.hpp"

namespace speedqa {
namespace {

// round_up_to_odd(float): ceil in double, converted to int, bumped if even.
int round_up_to_odd(float f) {
    int ceiling = static_cast<int>(std::ceil(static_cast<double>(f)));
    return ceiling % 2 == 0 ? ceiling + 1 : ceiling;
}

// exp(-0.5 * (x - mean) / stdev * (x - mean) / stdev) / (1 / (stdev * sqrt(2 pi))),
// with the reference's float/double mix: the exponent is evaluated in double
// left to right, the two factors are rounded to float, the quotient is float.
float gaussian_pdf(float x, float mean, float stdev) {
    const double d = static_cast<double>(x - mean);
    const double exponent = -0.5 * d / static_cast<double>(stdev) * d / static_cast<double>(stdev);
    const float num = static_cast<float>(std::exp(exponent));
    const float den = static_cast<float>(1 / (static_cast<double>(stdev) * std::sqrt(2 * M_PI)));
    return num / den;
}

exact::Taps gaussian_taps(int size, float stdev) {
    assert(size % 2 == 1 && size <= exact::kMaxTaps);
    exact::Taps t;
    t.count = size;
    float sum = 0;
    const int k = (size - 1) / 2;
    for (int i = 0; i < size; i++) {
        t.v[i] = gaussian_pdf(static_cast<float>(i - k), 0, stdev);
        sum += t.v[i];
    }
    for (int i = 0; i < size; i++) t.v[i] /= sum;
    return t;
}

constexpr float kValidKernelscales[] = {
    1.0,          1.0f / 2.0f,  3.0f / 2.0f,  2.0f,     2.0f / 3.0f,   24.0f / 10.0f, 360.0f / 97.0f,
    4.0f / 3.0f,  3.5f / 3.0f,  3.75f / 3.0f, 4.25f / 3.0f, 5.0f / 3.0f, 3.0f,       1.0f / 2.25f,
    1.4746f,      1.54f,        1.6f,         1.06667f, 0.711111f,     0.740740f,     1.111111f,
};

}  // namespace

int filter_size(int scale, float kernelscale) {
    const int n = (1 << (exact::kNumScales - scale)) + 1;
    return std::max(round_up_to_odd(static_cast<float>(n) * kernelscale), 3);
}

exact::Taps antialias_taps(float kernelscale) {
    const int size = filter_size(1, kernelscale);
    // sqrt(scale) * window_size / 5.0f, evaluated in double, rounded to float.
    const float sigma = static_cast<float>(std::sqrt(static_cast<double>(exact::kNumScales)) * size / 5.0f);
    return gaussian_taps(size, sigma);
}

exact::Taps local_mean_taps(float kernelscale) {
    const int size = filter_size(exact::kNumScales, kernelscale);
    return gaussian_taps(size, static_cast<float>(size) / 5.0f);
}

bool kernelscale_is_valid(float kernelscale) {
    for (float v : kValidKernelscales)
        if (std::fabs(kernelscale - v) < 1e-3) return true;
    return false;
}

}  // namespace speedqa

#include "features/speed/prescale_tables.hpp"

#include <algorithm>
#include <cmath>

namespace speedqa {
namespace {

using exact::AxisTaps;
using exact::PrescaleMethod;

// mirror(float i, float left, float right) with left = 0, then the reference's
// conversion to int. The clamp never moves a valid plane's index (the smallest
// plane the options allow is 20 samples wide) but keeps any read in bounds.
int mirrored(float i, int size) {
    const float right = static_cast<float>(size - 1);
    const float m = i < 0 ? -i : (i > right ? 2 * right - i : i);
    return std::clamp(static_cast<int>(m), 0, size - 1);
}

float bicubic_kernel(float t) {
    const float a = -0.75;
    if (t < 0) t = -t;
    if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
    if (t < 2) return (((t - 5) * t + 8) * t - 4) * a;
    return 0;
}

float lanczos4_kernel(float x, float a) {
    if (x == 0.0) return 1.0;
    if (x > -a && x < a)
        return static_cast<float>(a * std::sin(M_PI * x) * std::sin(M_PI * x / a) / (M_PI * M_PI * x * x));
    return 0.0;
}

}  // namespace

std::vector<AxisTaps> prescale_axis_taps(PrescaleMethod method, int src, int dst) {
    std::vector<AxisTaps> taps(static_cast<size_t>(dst));
    const float ratio = static_cast<float>(src) / static_cast<float>(dst);
    for (int x = 0; x < dst; x++) {
        AxisTaps& t = taps[static_cast<size_t>(x)];
        std::fill(std::begin(t.idx), std::end(t.idx), 0);
        std::fill(std::begin(t.w), std::end(t.w), 0.0f);
        if (method == PrescaleMethod::nearest) {
            // (int)(x * ratio): the product is a float.
            t.idx[0] = std::clamp(static_cast<int>(static_cast<float>(x) * ratio), 0, src - 1);
            continue;
        }
        // (x + 0.5) * ratio - 0.5 in double, rounded to float.
        const float xx = static_cast<float>((x + 0.5) * ratio - 0.5);
        if (method == PrescaleMethod::bilinear) {
            t.idx[0] = mirrored(static_cast<float>(std::floor(xx)), src);
            t.idx[1] = mirrored(static_cast<float>(std::ceil(xx)), src);
            t.w[0] = xx - static_cast<float>(t.idx[0]);
            continue;
        }
        const int x0 = static_cast<int>(std::floor(xx));
        const float dx = xx - static_cast<float>(x0);
        if (method == PrescaleMethod::bicubic) {
            for (int i = -1; i <= 2; i++) {
                t.w[i + 1] = bicubic_kernel(static_cast<float>(i) - dx);
                t.idx[i + 1] = mirrored(static_cast<float>(x0 + i), src);
            }
        } else {
            const int a = 4;
            for (int i = -a; i <= a; i++) {
                t.w[i + a] = lanczos4_kernel(static_cast<float>(i) - dx, static_cast<float>(a));
                t.idx[i + a] = mirrored(static_cast<float>(x0 + i), src);
            }
        }
    }
    return taps;
}

}  // namespace speedqa

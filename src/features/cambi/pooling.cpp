#include "features/cambi/pooling.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "features/cambi/exact/arith.hpp"

namespace speedqa::cambi {

bool order_free(double sum, float smallest) { return sum < std::ldexp(1.0, 53 - 23 + std::ilogb(smallest)); }

bool mean_after_zero_pivot(const float* a, int n, int k, double* mean) {
    if (k >= n || a[k] != 0.0f) return false;
    // The t-th zero from the left (at x) is swapped with a[n - t] while
    // x <= n - t: the pointers meet after s swaps, and the pass ends with its
    // right pointer at n - s - 1.
    long long s = 0;
    for (int x = 0; x < n; x++) {
        if (a[x] != 0.0f) continue;
        if (x + s + 1 > n) break;
        s++;
    }
    const int front = n - static_cast<int>(s);
    if (front - 1 >= k) return false;  // the next pass would partition [0, n - s - 1]
    // Everything from `front` on is zero and stays in place: the k values in
    // front are a[0, front) after the swaps, summed in order (zeros add
    // nothing).
    double sum = 0;
    int tail = n - 1;
    for (int x = 0; x < front; x++) {
        const float v = a[x] != 0.0f ? a[x] : a[tail--];
        if (v != 0.0f) sum += v;
    }
    *mean = sum / k;
    return true;
}

double topk_mean(float* values, int n, const BandingStats& st, double topk, float* selection) {
    const int k = topk_count(topk, n);
    if (st.nonzero == 0) return 0.0;
    if (st.nonzero <= k) {
        // The k largest are every nonzero value and zeros.
        if (order_free(st.sum, st.smallest)) return st.sum / k;
    } else {
        float* end = std::copy_if(values, values + n, selection, [](float v) { return v != 0.0f; });
        std::nth_element(selection, selection + (k - 1), end, std::greater<float>());
        double sum = 0;
        for (int i = 0; i < k; i++) sum += selection[i];
        if (order_free(sum, selection[k - 1])) return sum / k;
    }
    double mean = 0;
    if (mean_after_zero_pivot(values, n, k, &mean)) return mean;
    select_largest(values, n, k);
    return mean_of_first(values, k);
}

}  // namespace speedqa::cambi

#include "features/cambi/pooling.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>

#include "features/cambi/exact/arith.hpp"

namespace speedqa::cambi {
namespace {

// Set bits of a word (inline: without a popcnt instruction in the baseline
// ISA, std::popcount is a library call).
int ones(uint64_t m) {
    m = m - (m >> 1 & 0x5555555555555555u);
    m = (m & 0x3333333333333333u) + (m >> 2 & 0x3333333333333333u);
    m = (m + (m >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    return static_cast<int>(m * 0x0101010101010101u >> 56);
}

bool is_set(const uint64_t* bits, long long i) { return bits[i / 64] >> (i % 64) & 1; }

// Bits of word w that stand for pixels below `end`.
uint64_t below(int w, long long end) {
    const long long base = static_cast<long long>(w) * 64;
    return end - base >= 64 ? ~uint64_t{0} : end <= base ? 0 : (uint64_t{1} << (end - base)) - 1;
}

// The nonzero pixels from `from` down, one by one.
struct Downward {
    const uint64_t* bits;
    int word;
    uint64_t left;
    Downward(const uint64_t* b, long long from) : bits(b), word(static_cast<int>(from / 64)), left(b[from / 64] & below(word, from + 1)) {}
    long long next() {  // -1 when none is left
        while (!left) {
            if (--word < 0) return -1;
            left = bits[word];
        }
        const int top = 63 - std::countl_zero(left);
        left &= ~(uint64_t{1} << top);
        return static_cast<long long>(word) * 64 + top;
    }
};

}  // namespace

bool order_free(double sum, float smallest) { return sum < std::ldexp(1.0, 53 - 23 + std::ilogb(smallest)); }

bool mean_after_zero_pivot(const uint64_t* nonzero, const float* values, long long count, int n, int k, double* mean) {
    if (k >= n || is_set(nonzero, k)) return false;
    // The t-th zero from the left (at x) is swapped with a[n - t] while
    // x <= n - t: the pointers meet after s swaps, and the pass ends with its
    // right pointer at n - s - 1.
    const int words = (n + 63) / 64;
    long long s = 0;
    for (int w = 0; w < words; w++) {
        uint64_t zeros = ~nonzero[w] & below(w, n);
        if (!zeros) continue;
        const long long base = static_cast<long long>(w) * 64;
        const int z = ones(zeros);
        if (base + (63 - std::countl_zero(zeros)) + s + z <= n) {
            s += z;
            continue;
        }
        for (; zeros && base + std::countr_zero(zeros) + s + 1 <= n; zeros &= zeros - 1) s++;
        break;
    }
    const long long front = n - s;
    if (front - 1 >= k) return false;  // the next pass would partition [0, n - s - 1]
    // Everything from `front` on is zero and stays: the front is a[0, front)
    // after the swaps, summed in order (zeros add nothing). The nonzero
    // values of the tail land on the zero slots of ranks n - y, in the order
    // of y from the top.
    Downward tail(nonzero, n - 1);
    long long y = tail.next(), left = 0, last = count - 1, zeros_before = 0;
    double sum = 0;
    for (int w = 0; w < words && static_cast<long long>(w) * 64 < front; w++) {
        const uint64_t in = below(w, front);
        const uint64_t own = nonzero[w] & in, slots = ~nonzero[w] & in;
        const int z = ones(slots);
        uint64_t moved = 0, walk = slots;
        for (long long passed = 0; y >= front && n - y <= zeros_before + z; y = tail.next()) {
            for (; passed < n - y - zeros_before - 1; passed++) walk &= walk - 1;
            moved |= walk & (~walk + 1);
        }
        for (uint64_t all = own | moved; all; all &= all - 1) {
            // the next value from the front or from the tail, without a branch
            const long long mine = (own & all & (~all + 1)) != 0;
            sum += values[mine ? left : last];
            left += mine;
            last -= 1 - mine;
        }
        zeros_before += z;
    }
    *mean = sum / k;
    return true;
}

bool order_free_mean(const ScaleSummary& s, int k, double* mean) {
    if (s.count == 0) {
        *mean = 0.0;
        return true;
    }
    // Below k nonzero values the k largest are every nonzero value and zeros.
    const double sum = s.count <= k ? s.sum : s.top_sum;
    if (!order_free(sum, s.count <= k ? s.smallest : s.kth)) return false;
    *mean = sum / k;
    return true;
}

double ordered_topk_mean(const uint64_t* nonzero, const float* values, int n, long long count, int k, float* scratch) {
    double mean = 0;
    if (mean_after_zero_pivot(nonzero, values, count, n, k, &mean)) return mean;
    // libvmaf's quickselect on the whole picture's values.
    for (long long i = 0, next = 0; i < n; i++) scratch[i] = is_set(nonzero, i) ? values[next++] : 0.0f;
    select_largest(scratch, n, k);
    return mean_of_first(scratch, k);
}

double topk_mean(const uint64_t* nonzero, const float* values, int n, const BandingStats& st, double topk,
                 float* scratch) {
    const int k = topk_count(topk, n);
    ScaleSummary s;
    s.count = st.nonzero;
    s.smallest = st.smallest;
    s.sum = st.sum;
    if (st.nonzero > k) {
        std::copy(values, values + st.nonzero, scratch);
        std::nth_element(scratch, scratch + (k - 1), scratch + st.nonzero, std::greater<float>());
        for (int i = 0; i < k; i++) s.top_sum += scratch[i];
        s.kth = scratch[k - 1];
    }
    double mean = 0;
    if (order_free_mean(s, k, &mean)) return mean;
    return ordered_topk_mean(nonzero, values, n, st.nonzero, k, scratch);
}

}  // namespace speedqa::cambi

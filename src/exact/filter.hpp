// Separable Gaussian filtering as the reference does it (vif_filter1d_s and
// its AVX twin, which give the same bits): every output is a sum from tap 0,
// each term a separate multiply then add, starting from 0.0f; borders mirror
// without repeating the edge sample.
#pragma once

#include "exact/hd.hpp"

namespace speedqa::exact {

inline constexpr int kMaxTaps = 128;  // the reference's filter arrays hold 128 taps

// Reflect an index into [0, n): -1 -> 1, n -> n - 2.
SPEEDQA_HD int mirror_index(int i, int n) {
    return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i);
}

// One term of a tap sum: a separate multiply, then the add.
SPEEDQA_HD float tap_step(float acc, float tap, float x) { return acc + tap * x; }

// One output of a 1-D pass. `fetch(k)` returns the sample under tap k. Loops
// that run many outputs' sums at once (tap k of every column, then tap k + 1)
// give each output the same steps, in the same order, through tap_step.
template <class Fetch>
SPEEDQA_HD float tap_sum(const float* taps, int count, Fetch&& fetch) {
    float acc = 0.0f;
    for (int k = 0; k < count; ++k) acc = tap_step(acc, taps[k], fetch(k));
    return acc;
}

// A filter: taps[0..count), centred, radius count / 2.
struct Taps {
    float v[kMaxTaps];
    int count = 0;
    SPEEDQA_HD int radius() const { return count / 2; }
};

}  // namespace speedqa::exact

// SpEED's working sizes: 5x5 blocks, 25 shifted submatrices, a 25x25
// covariance and 25 eigenvalues per image.
#pragma once

#include "exact/hd.hpp"

namespace speedqa::exact {

inline constexpr int kBlock = 5;
inline constexpr int kBlockElems = kBlock * kBlock;
inline constexpr int kCovPairs = kBlockElems * (kBlockElems + 1) / 2;  // 325
inline constexpr int kNumScales = 4;   // decimation by 2^4 = 16
inline constexpr int kDecimation = 1 << kNumScales;
inline constexpr double kEigenEps = 1e-6;
inline constexpr int kMaxEigenSweeps = 500;

}  // namespace speedqa::exact

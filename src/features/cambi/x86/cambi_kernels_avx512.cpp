// CAMBI's kernels of cambi_kernels_avx2.cpp built with the AVX-512 flags (F,
// BW, DQ, VL, CD) as kernels_avx512(): see the note at that file's top.
// Checked against the C kernels like the AVX2 build (tests/checkasm_test.cpp).
#include "cambi_kernels_avx2.cpp"  // NOLINT(bugprone-suspicious-include): the same source, another instruction set

// The ADM row functions of kernels_avx2.cpp built with the AVX-512 flags (F,
// BW, DQ, VL, CD) as row_kernels_avx512(): see the note at that file's top.
// Checked against the C functions like the AVX2 build (tests/checkasm_test.cpp).
#define SPEEDQA_ADM_ROW_KERNELS row_kernels_avx512
#include "kernels_avx2.cpp"  // NOLINT(bugprone-suspicious-include): the same source, another instruction set

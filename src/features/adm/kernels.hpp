// The row functions of integer ADM: a C reference and an AVX2 version of
// each (a table of function pointers per ISA, as dav1d's), called by one
// driver (frame.cpp) that streams the picture through all stages row by row.
//
// Each function computes a span of columns [begin, end) of one row. Where
// libvmaf's SIMD kernels evaluate elements differently from its scalar ones,
// the function takes the Lane of the span: the driver splits each row at the
// column where libvmaf's vector loop ends (plan.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/feature.hpp"
#include "features/adm/plan.hpp"
#include "features/adm/tail.hpp"

namespace speedqa::adm {

// Per-row parameters of scale 0.
struct Scale0Consts {
    double gain_limit;
    int32_t gain_int;       // gain_limit when it is a whole number (then rst * gain is exact in 32 bits), else 0
    float cos_1deg_sq;
    const int32_t* div_lookup;
    int32_t rf[3];          // CSF factor of h, v, d (Q21, Q21, Q23)
    int shift_cub[3];       // masking: cube shifts of h, v, d
    int64_t add_cub[3];
};

// Per-row parameters of scales 1-3.
struct Scale123Consts {
    double gain_limit;
    int32_t gain_int;       // gain_limit when it is a whole number, else 0
    float cos_1deg_sq;
    const int32_t* div_lookup;
    int64_t rf[3];          // CSF factor as the span's lanes read it (Q32)
    int shift_cub;
    int64_t add_cub;
    int den_shift_sq, den_shift_cub;
    uint64_t den_add_cub;
};

// Three orientations: h (horizontal edges), v, d.
template <class T>
struct Row3 {
    T* p[3];
};

struct RowKernels {
    // --- scale 0 (16-bit coefficients)
    // One output row of the DWT of rows r[0..3] (mirrored by the caller): a
    // (16-bit values widened for the next scale) in all w = (width + 1) / 2
    // columns; v, h, d only in the columns [d0, d1) (none where d0 >= d1):
    // the later stages read them in their region alone. tmp holds 2 * width
    // int16_t: the low then the high vertical pass (libvmaf's order); the
    // high pass is made only where those columns read it.
    void (*dwt0_8)(const uint8_t* const r[4], int width, int16_t* tmp, int32_t* a, int16_t* v, int16_t* h, int16_t* d,
                   int d0, int d1);
    void (*dwt0_16)(const uint16_t* const r[4], int width, int bitdepth, int16_t* tmp, int32_t* a, int16_t* v,
                    int16_t* h, int16_t* d, int d0, int d1);
    // Restored (r) and additive (a) parts of the distorted coefficients.
    void (*decouple0)(Row3<const int16_t> ref, Row3<const int16_t> dis, Row3<int16_t> r, Row3<int16_t> a, int begin,
                      int end, Lane lane, const Scale0Consts& k);
    // Adds the sums of |coefficient|^3 of the span to sums[3].
    void (*den0)(Row3<const int16_t> ref, int begin, int end, uint64_t sums[3]);
    // CSF: weighted coefficients and their 1/30 copies, one orientation.
    void (*csf0)(const int16_t* src, int16_t* value, int16_t* filtered, int begin, int end, int32_t rf, int theta,
                 Lane lane);
    // The sum of a filtered row's three orientations at the columns
    // [begin, end) (int32, wrapping): what the masking's threshold adds up,
    // made once a row instead of for each of the three rows that read it.
    void (*orient_sums0)(Row3<const int16_t> flt, int begin, int end, int32_t* out);
    // Contrast masking of one row's interior columns (1 <= begin, end <= w - 1):
    // adds each orientation's cubed excess over the masking threshold to
    // sums[3]. csf: the row's CSF values; flt: the filtered rows above, at
    // and below (edges already mirrored), and flt_sums their orient_sums0
    // (columns begin - 1 .. end; the SIMD versions read these, the C
    // reference adds flt up itself); src: the coefficients masked.
    void (*cm0)(Row3<const int16_t> csf, const Row3<const int16_t> flt[3], const int32_t* const flt_sums[3],
                Row3<const int16_t> src, int begin, int end, Lane lane, const Scale0Consts& k, int64_t sums[3]);

    // --- scales 1-3 (32-bit coefficients)
    // One output row of the DWT of two images (ref, dis) at once, the bands
    // other than a in the columns [d0, d1) only (as dwt0_8); tmp holds
    // 4 * width int32_t: low ref, high ref, low dis, high dis. At scale 1
    // the input rows (scale 0's band_a) hold int16 values, which the SIMD
    // versions rely on.
    void (*dwt123)(const int32_t* const ref[4], const int32_t* const dis[4], int width, int scale, int32_t* tmp,
                   Row3<int32_t> ref_out, int32_t* ref_a, Row3<int32_t> dis_out, int32_t* dis_a, int d0, int d1);
    void (*decouple123)(Row3<const int32_t> ref, Row3<const int32_t> dis, Row3<int32_t> r, Row3<int32_t> a, int begin,
                        int end, bool round_first, const Scale123Consts& k);
    void (*den123)(Row3<const int32_t> ref, int begin, int end, const Scale123Consts& k, uint64_t sums[3]);
    void (*csf123)(const int32_t* src, int32_t* value, int32_t* filtered, int begin, int end, int64_t rf);
    void (*orient_sums123)(Row3<const int32_t> flt, int begin, int end, int32_t* out);
    // flt: values csf123 makes (|v| < 2^26.1). xs, where xs.p[0] is not
    // null: csf123's values of src with the factors k.rf (in [begin, end)),
    // which are the masking's products within its 32-bit range: the SIMD
    // versions read them there instead of multiplying again (the C reference
    // does not read them).
    void (*cm123)(Row3<const int32_t> csf, const Row3<const int32_t> flt[3], const int32_t* const flt_sums[3],
                  Row3<const int32_t> src, Row3<const int32_t> xs, int begin, int end, Lane lane, const Scale123Consts& k,
                  int64_t sums[3]);
};

// The columns [x0, x1) of the vertical high pass that the bands' columns
// [d0, d1) of a DWT row read (taps 2j - 1 .. 2j + 2, mirrored at the edges):
// none where d0 >= d1. (static: each kernel file its own copy, no shared
// code between objects built for different instruction sets.)
struct HighSpan {
    int x0 = 0, x1 = 0;
};
static inline HighSpan high_span(int d0, int d1, int width) {
    if (d0 >= d1) return {};
    return {d0 > 0 ? 2 * d0 - 1 : 0, 2 * d1 + 1 < width ? 2 * d1 + 1 : width};
}

const RowKernels& row_kernels_c();
// nullptr where the AVX2 versions are not built (non-x86).
const RowKernels* row_kernels_avx2();
// The same built for AVX-512; nullptr where not built. The caller checks
// that the CPU has AVX-512 (F, BW, DQ, VL, CD). Its decouplings read 2^30 / o
// from libvmaf's table by gathers, or, where the CPU's gathers are slow
// (CpuFlags::slow_gather), compute it by division: row_kernels_avx512_div
// gives either (for the tests, which check both against the C functions).
const RowKernels* row_kernels_avx512();
const RowKernels* row_kernels_avx512_div(bool divide);

// libvmaf's 2^30 / d truncated for n values d in [1, 2^15], as the AVX-512
// decouplings find it: 0, read from the table by gathers (decouple0, and
// decouple123 for d <= 64); 1, by double division (both, on CPUs with slow
// gathers); 2, by float division, the table read for d <= 64 only
// (decouple123 on the others). d_table is libvmaf's table at d = 0. For
// checkasm, which runs each over every d; nullptr where not built.
using Recip30Row = void (*)(const int32_t* d, int n, const int32_t* d_table, int32_t* out);
Recip30Row recip30_avx512(int kind);

// Buffers of one worker, sized once by the plan.
std::unique_ptr<KernelScratch> make_frame_scratch(const Plan& plan);
// The bytes make_frame_scratch() allocates.
size_t frame_scratch_bytes(const Plan& plan);
// All scales of one frame; totals (where not null): each scale's integer sums.
void score_frame(const Plan& plan, const RowKernels& k, KernelScratch& scratch, const Picture& ref,
                 const Picture& dis, ScaleSums& out, ScaleTotals* totals = nullptr);

}  // namespace speedqa::adm

// Everything about a CAMBI request that depends only on the video format and
// the options, worked out once in the factory: the sizes of each scale, the
// windows, the visibility thresholds and the tables of the banding value.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/option_table.hpp"
#include "core/video.hpp"
#include "features/cambi/exact/arith.hpp"

namespace speedqa::cambi {

// One picture's way through CAMBI: the distorted picture at the encoding
// size, or with full_ref the reference at the source size.
struct ImagePlan {
    int width = 0, height = 0;       // CAMBI's size (enc_* or src_*)
    bool resampled = false;          // differs from the video's size: nearest neighbour
    std::vector<int> source_column;  // per output column, when resampled
    std::vector<int> source_row;     // per output row, when resampled
    int window = 0;                  // adjusted window, odd
    int mask_threshold = 0;
    std::array<int, kScales> scale_w{}, scale_h{};
};

// Histogram levels: a pixel value v that can reach the score is counted at
// level v - band_base + margin; `margin` empty levels on each side let the
// window of levels read around any counted value stay inside the row, and
// one more level past them (`uncounted`) takes the pixels that are masked
// out or outside the band.
struct Levels {
    int band_base = 0;   // smallest value that can reach the score
    int band_size = 0;   // values band_base .. band_base + band_size - 1
    int margin = 0;      // also the number of levels tracked around a pixel (a multiple of 16)
    int uncounted = 0;   // band_size + 2 * margin
    int row = 0;         // levels per histogram column, uncounted included, rounded up to 32
};

struct Plan {
    int video_width = 0, video_height = 0;
    int bitdepth = 8;           // of the video
    bool antidither = false;    // enc_bitdepth < 10: a 2x2 mean first
    bool speedup = false;       // cambi_high_res_speedup in effect
    bool full_ref = false;
    double topk = 0.6;          // the effective ratio (topk, else cambi_topk)
    double max_val = 1000.0;
    ImagePlan dis, src;         // src only with full_ref

    int num_diffs = 4;                     // 1 << max_log_contrast
    std::array<int, kMaxDiffs> weight{};   // contrast_weight(d)
    // Visibility: a difference of d + 1 levels counts at value v when
    // v + num_diffs <= tvi[d] and v + num_diffs + d + 1 > vlt_luma (libvmaf
    // keeps the thresholds shifted up by num_diffs).
    std::array<int, kMaxDiffs> tvi{};
    int vlt_luma = 0;
    Levels levels;
    // Per histogram level: the smallest level difference index d whose
    // visibility conditions hold for that value (num_diffs: none). The
    // conditions hold for every d from there on (checked in make_plan).
    std::vector<uint8_t> first_diff;
    std::vector<float> reciprocal;         // kReciprocals entries

    int largest_width() const;             // of the pictures CAMBI works on
    int largest_height() const;
};

// Throws Error (one line naming cambi and the limit) where libvmaf refuses the
// request, or would read outside its pictures.
Plan make_plan(const VideoFormat& format, const OptionValues& options);

// libvmaf's reciprocal table: 1/n printed with 9 significant digits and read
// back as float (entry 0 is 0).
std::vector<float> reciprocal_table();

// Internals of make_plan, exposed for the tests: the 10-bit visibility
// thresholds of libvmaf's luminance tools.
int tvi_for_diff(int diff, double tvi_threshold, bool pq);
int visibility_luma(double luminance_threshold, bool pq);

}  // namespace speedqa::cambi

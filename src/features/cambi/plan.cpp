#include "features/cambi/plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "core/error.hpp"

namespace speedqa::cambi {
namespace {

// libvmaf's luminance tools at 10 bits, limited range: 64 .. 940.
constexpr int kFoot = 64;
constexpr int kHead = 940;
constexpr int kMaxValue = 1023;

std::string size_text(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

// BT.1886 with white 300 cd/m2 and black 0.01 cd/m2; each call recomputes
// its constants as libvmaf does (the same C library pow, the same bits).
double bt1886(double v) {
    const double gamma = 2.4, white = 300.0, black = 0.01;
    const double a = std::pow(std::pow(white, 1.0 / gamma) - std::pow(black, 1.0 / gamma), gamma);
    const double b = std::pow(black, 1.0 / gamma) / (std::pow(white, 1.0 / gamma) - std::pow(black, 1.0 / gamma));
    const double base = v + b;
    return a * std::pow(base > 0 ? base : 0, gamma);
}

// SMPTE ST 2084 (PQ).
double pq(double v) {
    const double m1 = 0.1593017578125, m2 = 78.84375;
    const double c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875;
    const double num = std::pow(v, 1.0 / m2) - c1;
    const double clipped = num > 0 ? num : 0;
    const double den = c2 - c3 * std::pow(v, 1.0 / m2);
    return 10000 * std::pow(clipped / den, 1.0 / m1);
}

double luminance(int sample, bool use_pq) {
    const int clipped = std::clamp(sample, kFoot, kHead);
    const double v = static_cast<double>(clipped - kFoot) / (kHead - kFoot);
    return use_pq ? pq(v) : bt1886(v);
}

// A difference of `diff` levels at `sample` is visible: the luminance step
// exceeds the threshold times the luminance.
bool visible(int sample, int diff, double threshold, bool use_pq) {
    const double mean = luminance(sample, use_pq);
    const double stepped = luminance(sample + diff, use_pq);
    return stepped - mean > threshold * mean;
}

enum class Bisect { too_small, found, too_big };

Bisect probe(int sample, int diff, double threshold, bool use_pq) {
    if (!visible(sample, diff, threshold, use_pq)) return Bisect::too_big;
    if (visible(sample + 1, diff, threshold, use_pq)) return Bisect::too_small;
    return Bisect::found;
}

struct Sizes {
    int w, h;
};

// enc_* / src_*: both given, else the video's. The encoding size is never
// larger than the video (an upscaled encode is scored at the video's size).
Sizes requested(const OptionValues& o, const char* wname, const char* hname, const VideoFormat& f) {
    const int w = o.integer(wname), h = o.integer(hname);
    if (w == 0 || h == 0) return {f.width, f.height};
    return {w, h};
}

int round_up(int v, int m) { return (v + m - 1) / m * m; }

ImagePlan image_plan(const VideoFormat& f, Sizes s, int window_option, bool speedup, bool with_maps) {
    ImagePlan p;
    p.width = s.w;
    p.height = s.h;
    p.resampled = s.w != f.width || s.h != f.height;
    if (with_maps && p.resampled) {
        p.source_column.resize(static_cast<size_t>(s.w));
        p.source_row.resize(static_cast<size_t>(s.h));
        nearest_sources(f.width, s.w, p.source_column.data());
        nearest_sources(f.height, s.h, p.source_row.data());
    }
    p.window = adjusted_window(window_option, static_cast<unsigned>(s.w), static_cast<unsigned>(s.h), speedup);
    p.mask_threshold = mask_threshold(static_cast<unsigned>(s.w), static_cast<unsigned>(s.h));
    scale_sizes(s.w, s.h, speedup, p.scale_w.data(), p.scale_h.data());
    return p;
}

// libvmaf's histogram pass reads rows 0 .. pad-1 and columns 0 .. pad-1 of
// every scale unconditionally: a scale smaller than half the window makes it
// read outside the picture (other scales' data, or past the buffer).
void check_window_fits(const ImagePlan& p, const char* what) {
    const int pad = p.window >> 1;
    for (int s = 0; s < kScales; s++)
        if (p.scale_w[s] < pad || p.scale_h[s] < pad)
            throw Error("cambi: the " + std::string(what) + " picture at " + size_text(p.width, p.height) +
                        " is too small for its window of " + std::to_string(p.window) + " pixels: scale " +
                        std::to_string(s) + " is " + size_text(p.scale_w[s], p.scale_h[s]) +
                        ", under half the window (libvmaf reads outside its pictures there)");
}

bool high_res_speedup(int option, int pixels) {
    switch (option) {
    case 1080: return pixels >= 1920 * 1080;
    case 1440: return pixels >= 2560 * 1440;
    case 2160: return pixels >= 3840 * 2160;
    default: return false;  // other values are ignored by libvmaf
    }
}

Levels make_levels(int vlt_luma, int num_diffs, int last_tvi) {
    Levels l;
    l.band_base = std::max(0, vlt_luma - 3 * num_diffs + 1);
    // A band the thresholds leave empty: no difference is ever visible and
    // every banding value is 0 (libvmaf's unsigned size wraps there, with the
    // same zeros).
    l.band_size = std::max(0, last_tvi + 1 - l.band_base);
    l.margin = round_up(2 * num_diffs + 8, 16);
    l.uncounted = l.band_size + 2 * l.margin;
    l.row = round_up(l.uncounted + 1, 32);
    return l;
}

}  // namespace

int Plan::largest_width() const { return full_ref ? std::max(dis.width, src.width) : dis.width; }
int Plan::largest_height() const { return full_ref ? std::max(dis.height, src.height) : dis.height; }

std::vector<float> reciprocal_table() {
    std::vector<float> t(kReciprocals, 0.0f);
    for (int n = 1; n < kReciprocals; n++) {
        char text[32];
        std::snprintf(text, sizeof text, "%.9g", 1.0 / n);
        t[static_cast<size_t>(n)] = std::strtof(text, nullptr);
    }
    return t;
}

// The largest sample at which a step of `diff` levels is still visible,
// found by bisection between foot and head as libvmaf does it (0 when not
// even the foot sees it, 1023 when the head still does).
int tvi_for_diff(int diff, double threshold, bool use_pq) {
    int foot = kFoot, head = kHead - diff - 1;
    Bisect b = probe(foot, diff, threshold, use_pq);
    if (b == Bisect::too_big) return 0;
    if (b == Bisect::found) return foot;
    b = probe(head, diff, threshold, use_pq);
    if (b == Bisect::too_small) return kMaxValue;
    if (b == Bisect::found) return head;
    for (;;) {
        const int mid = foot + (head - foot) / 2;
        b = probe(mid, diff, threshold, use_pq);
        if (b == Bisect::too_big) head = mid;
        else if (b == Bisect::too_small) foot = mid;
        else return mid;
    }
}

// The smallest sample whose luminance reaches the threshold (0 when the foot
// already does). The head's luminance is exactly 300 (BT.1886) or 10000 (PQ),
// so the option's range keeps this finite.
int visibility_luma(double threshold, bool use_pq) {
    uint16_t sample = kFoot;
    while (luminance(sample, use_pq) < threshold) sample++;
    return sample == kFoot ? 0 : sample;
}

Plan make_plan(const VideoFormat& f, const OptionValues& o) {
    if (!o.is_default("heatmaps_path"))
        throw Error("cambi: heatmaps_path is not supported (speedqa does not write CAMBI heatmaps)");
    Plan p;
    p.video_width = f.width;
    p.video_height = f.height;
    p.bitdepth = f.bitdepth;
    p.full_ref = o.flag("full_ref");
    const int enc_bitdepth = o.integer("enc_bitdepth") == 0 ? f.bitdepth : o.integer("enc_bitdepth");
    p.antidither = enc_bitdepth < 10;

    Sizes enc = requested(o, "enc_width", "enc_height", f);
    if (enc.w > f.width || enc.h > f.height) enc = {f.width, f.height};
    const Sizes src = requested(o, "src_width", "src_height", f);
    if (enc.w < kMinSide && enc.h < kMinSide)
        throw Error("cambi: the picture to score (" + size_text(enc.w, enc.h) + ") is too small: libvmaf's CAMBI needs a width or a height of at least " +
                    std::to_string(kMinSide));
    if (src.w < kMinSide && src.h < kMinSide)
        throw Error("cambi: the source size " + size_text(src.w, src.h) + " is too small: libvmaf's CAMBI needs a width or a height of at least " +
                    std::to_string(kMinSide));
    if ((src.w > enc.w && src.h < enc.h) || (src.w < enc.w && src.h > enc.h))
        throw Error("cambi: the source size " + size_text(src.w, src.h) + " and the encoding size " + size_text(enc.w, enc.h) +
                    " must not be larger in one direction and smaller in the other (libvmaf refuses them)");

    p.speedup = high_res_speedup(o.integer("cambi_high_res_speedup"), enc.w * enc.h);
    const int window = o.integer("window_size");
    p.dis = image_plan(f, enc, window, p.speedup, true);
    p.src = image_plan(f, src, window, p.speedup, p.full_ref);
    const int widest = std::max(p.dis.window, p.src.window);
    if (widest * widest >= kReciprocals)
        throw Error("cambi: window_size " + std::to_string(window) + " becomes " + std::to_string(widest) +
                    " pixels at " + size_text(std::max(enc.w, src.w), std::max(enc.h, src.h)) +
                    ": libvmaf's CAMBI allows at most 65 (use a smaller window_size or cambi_high_res_speedup)");
    check_window_fits(p.dis, "distorted");
    if (p.full_ref) check_window_fits(p.src, "reference");
    // libvmaf copies a 10-bit picture at its own size with one memcpy of the
    // whole plane, which assumes its buffer has the picture's row pitch; with
    // full_ref and a wider source size the buffer is wider and the rows land
    // shifted (the rest of the buffer keeps earlier frames' data).
    const auto pitch = [](int w) { return (w + 31) / 32; };
    if (p.full_ref && f.bitdepth == 10 && !p.dis.resampled && pitch(std::max(src.w, enc.w)) != pitch(f.width))
        throw Error("cambi: full_ref with src_width " + std::to_string(src.w) + " wider than the " +
                    std::to_string(f.width) + "-pixel 10-bit video is not supported (libvmaf copies the distorted "
                    "picture with the wrong row pitch there)");

    const double topk = o.real("topk");
    p.topk = topk != 0.6 ? topk : o.real("cambi_topk");
    p.max_val = o.real("cambi_max_val");

    p.num_diffs = 1 << o.integer("max_log_contrast");
    for (int d = 0; d < p.num_diffs; d++) p.weight[static_cast<size_t>(d)] = contrast_weight(d);
    const bool use_pq = (o.text("cambi_eotf") != "bt1886" ? o.text("cambi_eotf") : o.text("eotf")) == "pq";
    const double tvi_threshold = o.real("tvi_threshold");
    std::array<int, kMaxDiffs>& tvi = p.tvi;
    for (int d = 0; d < p.num_diffs; d++) {
        tvi[static_cast<size_t>(d)] = tvi_for_diff(d + 1, tvi_threshold, use_pq) + p.num_diffs;
        // Larger steps stay visible up to higher samples; the band and the
        // histogram bounds rest on it (it holds for both curves at every
        // threshold of the option's range that we tried).
        if (d > 0 && tvi[static_cast<size_t>(d)] < tvi[static_cast<size_t>(d - 1)])
            throw Error("cambi: tvi_threshold " + std::to_string(tvi_threshold) +
                        " gives visibility thresholds that fall with the step size; not supported");
    }
    const int vlt = p.vlt_luma = visibility_luma(o.real("cambi_vis_lum_threshold"), use_pq);
    p.levels = make_levels(vlt, p.num_diffs, tvi[static_cast<size_t>(p.num_diffs - 1)]);

    // Difference index d counts for value v when v + num_diffs <= tvi[d] and
    // v + num_diffs + d + 1 > vlt: both hold from some d on.
    const Levels& l = p.levels;
    p.first_diff.assign(static_cast<size_t>(l.row), static_cast<uint8_t>(p.num_diffs));
    for (int i = 0; i < l.band_size; i++) {
        const int value = l.band_base + i + p.num_diffs;
        int first = p.num_diffs;
        for (int d = p.num_diffs - 1; d >= 0; d--) {
            if (value <= tvi[static_cast<size_t>(d)] && value + d + 1 > vlt) first = d;
            else break;
        }
        for (int d = 0; d < first; d++)
            if (value <= tvi[static_cast<size_t>(d)] && value + d + 1 > vlt)
                throw std::logic_error("cambi: visibility conditions are not a tail of the differences");
        p.first_diff[static_cast<size_t>(l.margin + i)] = static_cast<uint8_t>(first);
    }
    p.reciprocal = reciprocal_table();
    return p;
}

}  // namespace speedqa::cambi

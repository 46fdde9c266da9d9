#include "features/vif/vif.hpp"

#include <memory>
#include <string>
#include <vector>

#include "features/vif/vif_kernels.hpp"
#include "features/vif/vif_plan.hpp"

namespace speedqa {
namespace {

namespace ev = exact::vif;
using vif::Plan;

// integer_vif.c's options, in its order.
constexpr OptionDef kOptions[] = {
    {.name = "debug", .type = OptionType::boolean, .def = 0, .feature_param = false,
     .help = "debug mode: enable additional output"},
    {.name = "vif_enhn_gain_limit", .type = OptionType::real, .def = 100.0, .min = 1.0, .max = 100.0,
     .alias = "egl",
     .help = "enhancement gain imposed on vif, must be >= 1.0, where 1.0 means the gain is completely disabled"},
    {.name = "vif_skip_scale0", .type = OptionType::boolean, .def = 0, .alias = "ssclz",
     .help = "when set, skip scale 0 calculations"},
};

const std::vector<std::string> kScaleOutputs = {
    "VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_vif_scale1_score",
    "VMAF_integer_feature_vif_scale2_score", "VMAF_integer_feature_vif_scale3_score"};
const std::vector<std::string> kDebugOutputs = {
    "integer_vif",            "integer_vif_num",        "integer_vif_den",        "integer_vif_num_scale0",
    "integer_vif_den_scale0", "integer_vif_num_scale1", "integer_vif_den_scale1", "integer_vif_num_scale2",
    "integer_vif_den_scale2", "integer_vif_num_scale3", "integer_vif_den_scale3"};

// Buffers of one worker: the halved images (scales 1..3) and the kernels'
// row lanes.
class Scratch final : public KernelScratch {
public:
    explicit Scratch(const Plan& plan) {
        size_t lane_len = 0;
        for (int s = 0; s < ev::kScales; s++) {
            const vif::ScaleGeometry& g = plan.scales[s];
            lane_len = std::max(lane_len, vif::row_lane_len(g.w));
            if (s > 0)
                for (auto& img : images[s]) img.assign(static_cast<size_t>(g.w) * g.h, 0);
        }
        lane_storage.assign(5 * lane_len, 0);
        wide_storage.assign(3 * lane_len, 0.0);
        rows.lane_len = lane_len;
        for (int q = 0; q < 5; q++) rows.lanes[q] = lane_storage.data() + q * lane_len;
        for (int q = 0; q < 3; q++) rows.wide[q] = wide_storage.data() + q * lane_len;
    }
    std::vector<uint16_t> images[ev::kScales][2];  // [scale][ref, dis]
    std::vector<uint32_t> lane_storage;
    std::vector<double> wide_storage;
    vif::RowScratch rows;
};

// One scale's image of ref and dis: row r of each.
struct Image {
    const uint8_t* data[2] = {nullptr, nullptr};
    ptrdiff_t stride[2] = {0, 0};  // bytes
    int bits = 8;                  // of the samples: 8 (uint8), else uint16
    const void* row(int which, int r) const { return data[which] + stride[which] * r; }
};

// The filter's rows around output row `centre` (through the padding map).
void gather_rows(const Image& img, const vif::ScaleGeometry& g, int centre, int radius, const void** ref,
                 const void** dis) {
    const int* src = g.row_src.data() + ev::kMaxRadius;
    for (int k = -radius; k <= radius; k++) {
        ref[k + radius] = img.row(0, src[centre + k]);
        dis[k + radius] = img.row(1, src[centre + k]);
    }
}

class Kernel final : public CpuKernel {
public:
    Kernel(std::shared_ptr<const Plan> plan, const vif::Kernels& k) : plan_(std::move(plan)), k_(k) {}

    std::unique_ptr<KernelScratch> make_scratch() const override { return std::make_unique<Scratch>(*plan_); }

    void extract(KernelScratch& scratch, const FrameView& frame, double* raw) const override {
        Scratch& s = static_cast<Scratch&>(scratch);
        const Plan& p = *plan_;
        Image img;
        img.data[0] = frame.ref->plane[0];
        img.data[1] = frame.dis->plane[0];
        img.stride[0] = frame.ref->stride[0];
        img.stride[1] = frame.dis->stride[0];
        img.bits = p.bitdepth;
        ev::Sums sums[ev::kScales];
        for (int scale = 0; scale < ev::kScales; scale++) {
            if (scale > 0) img = halve(s, img, scale);
            if (scale > 0 || !p.skip_scale0) sums[scale] = statistic(s, img, scale);
        }
        write_outputs(sums, raw);
    }

private:
    // Image `scale` from image scale - 1.
    Image halve(Scratch& s, const Image& in, int scale) const {
        const Plan& p = *plan_;
        const vif::ScaleGeometry& gin = p.scales[scale - 1];
        const vif::ScaleGeometry& gout = p.scales[scale];
        vif::HalveRowArgs a;
        a.bits = in.bits;
        a.w_in = gin.w;
        a.filter = ev::filter(scale);
        a.vertical = ev::halving_rounding(scale, p.bitdepth);
        a.col_src = gin.col_src.data() + ev::kMaxRadius;
        const void* ref_rows[ev::kMaxTaps];
        const void* dis_rows[ev::kMaxTaps];
        a.ref_rows = ref_rows;
        a.dis_rows = dis_rows;
        uint16_t* out[2] = {s.images[scale][0].data(), s.images[scale][1].data()};
        for (int i = 0; i < gout.h; i++) {
            gather_rows(in, gin, 2 * i, a.filter.radius(), ref_rows, dis_rows);
            a.ref_out = out[0] + static_cast<size_t>(i) * gout.w;
            a.dis_out = out[1] + static_cast<size_t>(i) * gout.w;
            k_.halve_row(a, s.rows);
        }
        Image img;
        for (int q = 0; q < 2; q++) {
            img.data[q] = reinterpret_cast<const uint8_t*>(out[q]);
            img.stride[q] = static_cast<ptrdiff_t>(gout.w) * 2;
        }
        img.bits = 16;
        return img;
    }

    ev::Sums statistic(Scratch& s, const Image& img, int scale) const {
        const Plan& p = *plan_;
        const vif::ScaleGeometry& g = p.scales[scale];
        vif::StatRowArgs a;
        a.bits = img.bits;
        a.w = g.w;
        a.filter = ev::filter(scale);
        a.rounding = ev::stat_rounding(scale, p.bitdepth);
        a.col_src = g.col_src.data() + ev::kMaxRadius;
        a.gain_limit = p.gain_limit;
        a.log2_table = p.log2_table.data();
        const void* ref_rows[ev::kMaxTaps];
        const void* dis_rows[ev::kMaxTaps];
        a.ref_rows = ref_rows;
        a.dis_rows = dis_rows;
        ev::Sums sums;
        for (int i = 0; i < g.h; i++) {
            gather_rows(img, g, i, a.filter.radius(), ref_rows, dis_rows);
            k_.stat_row(a, s.rows, sums);
        }
        return sums;
    }

    // write_scores of integer_vif.c: float num / den per scale; the debug
    // sums in double.
    void write_outputs(const ev::Sums* sums, double* raw) const {
        const Plan& p = *plan_;
        float num[ev::kScales] = {}, den[ev::kScales] = {};
        for (int s = p.skip_scale0 ? 1 : 0; s < ev::kScales; s++) {
            num[s] = ev::scale_num(sums[s]);
            den[s] = ev::scale_den(sums[s]);
        }
        int o = 0;
        raw[o++] = p.skip_scale0 ? 0.0 : static_cast<double>(num[0] / den[0]);
        for (int s = 1; s < ev::kScales; s++) raw[o++] = static_cast<double>(num[s] / den[s]);
        if (!p.debug) return;
        double score_num = 0, score_den = 0;
        if (p.skip_scale0) {
            score_num = static_cast<double>(num[1]) + static_cast<double>(num[2]) + static_cast<double>(num[3]);
            score_den = static_cast<double>(den[1]) + static_cast<double>(den[2]) + static_cast<double>(den[3]);
        } else {
            score_num = static_cast<double>(num[0]) + static_cast<double>(num[1]) + static_cast<double>(num[2]) +
                        static_cast<double>(num[3]);
            score_den = static_cast<double>(den[0]) + static_cast<double>(den[1]) + static_cast<double>(den[2]) +
                        static_cast<double>(den[3]);
        }
        raw[o++] = score_den == 0.0 ? 1.0 : score_num / score_den;
        raw[o++] = score_num;
        raw[o++] = score_den;
        // with scale 0 skipped the reference reports num 0 and den -1 for it
        raw[o++] = p.skip_scale0 ? 0.0 : static_cast<double>(num[0]);
        raw[o++] = p.skip_scale0 ? -1.0 : static_cast<double>(den[0]);
        for (int s = 1; s < ev::kScales; s++) {
            raw[o++] = static_cast<double>(num[s]);
            raw[o++] = static_cast<double>(den[s]);
        }
    }

    std::shared_ptr<const Plan> plan_;
    const vif::Kernels& k_;
};

class VifFeature final : public Feature {
public:
    VifFeature(const OptionValues& options, Plan plan)
        : Feature(options, outputs_for(names(plan.debug), options)),
          plan_(std::make_shared<const Plan>(std::move(plan))) {}

    std::unique_ptr<CpuKernel> make_cpu_kernel(const CpuTarget& target) const override {
        // the reference's scalar, AVX2 and AVX-512 VIF give the same
        // integers, so every dispatch is served by the same kernels
        return std::make_unique<Kernel>(plan_, vif::kernels_for(target.isa));
    }

private:
    static std::vector<std::string> names(bool debug) {
        std::vector<std::string> n = kScaleOutputs;
        if (debug) n.insert(n.end(), kDebugOutputs.begin(), kDebugOutputs.end());
        return n;
    }
    std::shared_ptr<const Plan> plan_;
};

std::unique_ptr<Feature> create(const VideoFormat& format, const OptionValues& options) {
    Plan plan = vif::make_plan(format, options.flag("vif_skip_scale0"), options.flag("debug"),
                               options.real("vif_enhn_gain_limit"));
    return std::make_unique<VifFeature>(options, std::move(plan));
}

}  // namespace

const FeatureDef& vif_feature() {
    static const FeatureDef def{"vif", kOptions, create};
    return def;
}

}  // namespace speedqa

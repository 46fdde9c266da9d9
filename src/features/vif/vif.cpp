#include "features/vif/vif.hpp"

#include <memory>
#include <string>
#include <vector>

#include "core/zeroed_array.hpp"
#include "features/vif/vif_feature.hpp"
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

// Buffers of one worker: the halved images (scales 1..3), the row tables
// through the padding, and the kernels' own.
class Scratch final : public KernelScratch {
public:
    Scratch(const Plan& plan, const vif::Kernels& k) : kernel(k.make_scratch(plan.scales[0].w)) {
        for (int s = 1; s < ev::kScales; s++)
            for (auto& img : images[s]) img = ZeroedArray<uint16_t>(image_elements(plan, s));
        for (auto& r : rows) r.assign(row_entries(plan), nullptr);
    }
    static size_t image_elements(const Plan& plan, int scale) {
        return static_cast<size_t>(plan.scales[scale].w) * plan.scales[scale].h;
    }
    static size_t row_entries(const Plan& plan) { return static_cast<size_t>(plan.scales[0].h) + 2 * ev::kMaxRadius; }
    static size_t bytes(const Plan& plan, const vif::Kernels& k) {
        size_t images = 0;
        for (int s = 1; s < ev::kScales; s++) images += 2 * image_elements(plan, s);
        return images * sizeof(uint16_t) + 2 * row_entries(plan) * sizeof(const void*) + k.scratch_bytes(plan.scales[0].w);
    }
    ZeroedArray<uint16_t> images[ev::kScales][2];  // [scale][ref, dis]
    std::vector<const void*> rows[2];              // ref, dis
    std::unique_ptr<vif::ScaleScratch> kernel;
};

class Kernel final : public CpuKernel {
public:
    Kernel(std::shared_ptr<const Plan> plan, const vif::Kernels& k) : plan_(std::move(plan)), k_(k) {}

    std::unique_ptr<KernelScratch> make_scratch() const override { return std::make_unique<Scratch>(*plan_, k_); }
    size_t scratch_bytes() const override { return Scratch::bytes(*plan_, k_); }

    void extract(KernelScratch& scratch, const FrameView& frame, double* raw) const override {
        Scratch& s = static_cast<Scratch&>(scratch);
        const Plan& p = *plan_;
        // image 0 is the pictures' luma; image s + 1 is written by scale s
        const uint8_t* data[2] = {frame.ref->plane[0], frame.dis->plane[0]};
        ptrdiff_t stride[2] = {frame.ref->stride[0], frame.dis->stride[0]};
        int bits = p.bitdepth;
        ev::Sums sums[ev::kScales];
        for (int scale = 0; scale < ev::kScales; scale++) {
            const vif::ScaleGeometry& g = p.scales[scale];
            vif::ScaleArgs a;
            for (int q = 0; q < 2; q++) {
                const int* src = g.row_src.data() + ev::kMaxRadius;
                const void** rows = s.rows[q].data() + ev::kMaxRadius;
                for (int r = -ev::kMaxRadius; r < g.h + ev::kMaxRadius; r++) rows[r] = data[q] + stride[q] * src[r];
            }
            a.in.ref_rows = s.rows[0].data() + ev::kMaxRadius;
            a.in.dis_rows = s.rows[1].data() + ev::kMaxRadius;
            a.in.bits = bits;
            a.in.w = g.w;
            a.in.h = g.h;
            a.in.col_src = g.col_src.data() + ev::kMaxRadius;
            a.scale = scale;
            a.stat = scale > 0 || !p.skip_scale0;
            a.rounding = ev::stat_rounding(scale, p.bitdepth);
            a.gain_limit = p.gain_limit;
            a.log2_table = p.log2_table.data();
            a.halve = scale + 1 < ev::kScales;
            if (a.halve) {
                a.halve_rounding = ev::halving_rounding(scale + 1, p.bitdepth);
                a.ref_out = s.images[scale + 1][0].data();
                a.dis_out = s.images[scale + 1][1].data();
                a.out_stride = p.scales[scale + 1].w;
            }
            k_.scale_pass(a, *s.kernel, sums[scale]);
            if (a.halve)
                for (int q = 0; q < 2; q++) {
                    data[q] = reinterpret_cast<const uint8_t*>(s.images[scale + 1][q].data());
                    stride[q] = static_cast<ptrdiff_t>(p.scales[scale + 1].w) * 2;
                }
            bits = 16;
        }
        vif::write_outputs(*plan_, sums, raw);
    }

private:
    std::shared_ptr<const Plan> plan_;
    const vif::Kernels& k_;
};

std::vector<std::string> output_names(bool debug) {
    std::vector<std::string> n = kScaleOutputs;
    if (debug) n.insert(n.end(), kDebugOutputs.begin(), kDebugOutputs.end());
    return n;
}

std::unique_ptr<Feature> create(const VideoFormat& format, const OptionValues& options) {
    Plan plan = vif::make_plan(format, options.flag("vif_skip_scale0"), options.flag("debug"),
                               options.real("vif_enhn_gain_limit"));
    return std::make_unique<vif::VifFeature>(options, std::move(plan));
}

}  // namespace

vif::VifFeature::VifFeature(const OptionValues& options, Plan plan)
    : Feature(options, outputs_for(output_names(plan.debug), options)),
      plan_(std::make_shared<const Plan>(std::move(plan))) {}

std::unique_ptr<CpuKernel> vif::VifFeature::make_cpu_kernel(const CpuTarget& target) const {
    return std::make_unique<Kernel>(plan_, vif::kernels_for(kernel_target(target).isa));
}

// write_scores of integer_vif.c: float num / den per scale; the debug
// sums in double.
void vif::write_outputs(const Plan& p, const ev::Sums* sums, double* raw) {
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

const FeatureDef& vif_feature() {
    static const FeatureDef def{"vif", kOptions, create};
    return def;
}

}  // namespace speedqa

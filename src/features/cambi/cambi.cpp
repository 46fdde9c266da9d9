#include "features/cambi/cambi.hpp"

#include <algorithm>
#include <memory>

#include "features/cambi/cambi_feature.hpp"
#include "features/cambi/kernels.hpp"
#include "features/cambi/picture_score.hpp"
#include "features/cambi/plan.hpp"

namespace speedqa {
namespace {

const char* const kEotfs[] = {"bt1886", "pq", nullptr};

// libvmaf's table: names, types, defaults, ranges, aliases and which options
// show in the metric names.
const OptionDef kOptions[] = {
    {"cambi_max_val", OptionType::real, 1000.0, "", 0.0, 1000.0, "cmxv", true, nullptr,
     "maximum value allowed; larger values are clipped to it"},
    {"enc_width", OptionType::integer, 0, "", 180, 7680, "encw", true, nullptr, "encoding width"},
    {"enc_height", OptionType::integer, 0, "", 150, 7680, "ench", true, nullptr, "encoding height"},
    {"enc_bitdepth", OptionType::integer, 0, "", 6, 16, "encbd", true, nullptr, "encoding bit depth"},
    {"src_width", OptionType::integer, 0, "", 320, 7680, "srcw", true, nullptr, "source width (full_ref only)"},
    {"src_height", OptionType::integer, 0, "", 200, 4320, "srch", true, nullptr, "source height (full_ref only)"},
    {"window_size", OptionType::integer, 65, "", 15, 127, "ws", true, nullptr,
     "window size: 65 is about one degree at 4K"},
    {"topk", OptionType::real, 0.6, "", 0.0001, 1.0, nullptr, true, nullptr, "ratio of pixels the pooling averages"},
    {"cambi_topk", OptionType::real, 0.6, "", 0.0001, 1.0, "ctpk", true, nullptr,
     "ratio of pixels the pooling averages (topk wins when it is not at its default)"},
    {"tvi_threshold", OptionType::real, 0.019, "", 0.0001, 1.0, "tvit", true, nullptr,
     "visibility threshold of a luminance step, relative to the luminance"},
    {"cambi_vis_lum_threshold", OptionType::real, 0.0, "", 0.0, 300.0, "vlt", true, nullptr,
     "luminance below which banding is taken as invisible"},
    {"max_log_contrast", OptionType::integer, 2, "", 0, 5, "mlc", true, nullptr,
     "largest contrast considered, log2 of 10-bit levels"},
    {"heatmaps_path", OptionType::text, 0, "", 0, 0, nullptr, false, nullptr, "not supported: speedqa writes no heatmaps"},
    {"full_ref", OptionType::boolean, 0, "", 0, 0, nullptr, false, nullptr,
     "also score the reference, and the distorted score less the reference's"},
    {"eotf", OptionType::text, 0, "bt1886", 0, 0, nullptr, true, kEotfs, "EOTF of the visibility thresholds"},
    {"cambi_eotf", OptionType::text, 0, "bt1886", 0, 0, "ceot", true, kEotfs,
     "EOTF of the visibility thresholds (wins over eotf when not at its default)"},
    {"cambi_high_res_speedup", OptionType::integer, 0, "", 0, 2160, "hrs", true, nullptr,
     "halve the picture after the spatial mask from this height on: 1080, 1440 or 2160 (others: off)"},
};

const char* const kScore = "Cambi_feature_cambi_score";

class CambiKernel final : public CpuKernel {
public:
    CambiKernel(std::shared_ptr<const cambi::Plan> plan, const cambi::Kernels& k) : plan_(std::move(plan)), k_(k) {}

    std::unique_ptr<KernelScratch> make_scratch() const override { return std::make_unique<Scratch>(*plan_); }
    size_t scratch_bytes() const override { return cambi::Workspace::bytes(*plan_); }

    void extract(KernelScratch& scratch, const FrameView& frame, double* raw) const override {
        cambi::Workspace& ws = static_cast<Scratch&>(scratch).ws;
        const cambi::Plan& p = *plan_;
        const double dis = cambi::picture_score(*frame.dis, p.dis, p, k_, ws, frame.index);
        const double src = p.full_ref ? cambi::picture_score(*frame.ref, p.src, p, k_, ws, frame.index) : 0.0;
        cambi::write_raw(p, dis, src, raw);
    }

private:
    struct Scratch final : KernelScratch {
        explicit Scratch(const cambi::Plan& p) : ws(p) {}
        cambi::Workspace ws;
    };
    std::shared_ptr<const cambi::Plan> plan_;
    const cambi::Kernels& k_;
};

}  // namespace

namespace cambi {

CambiFeature::CambiFeature(const OptionValues& options, Plan plan)
    : Feature(options, outputs(options, plan.full_ref)), plan_(std::make_shared<const Plan>(std::move(plan))) {}

std::unique_ptr<CpuKernel> CambiFeature::make_cpu_kernel(const CpuTarget& target) const {
    const Kernels* k = nullptr;
    if (target.isa == Isa::avx512) k = kernels_avx512();
    if (!k && target.isa != Isa::c) k = kernels_avx2();
    return std::make_unique<CambiKernel>(plan_, k ? *k : kernels_c());
}

std::vector<FeatureOutput> CambiFeature::outputs(const OptionValues& options, bool full_ref) {
    std::vector<FeatureOutput> out = outputs_for({kScore}, options);
    // libvmaf writes these two under fixed names, without the option suffix.
    if (full_ref) {
        out.push_back({"cambi_source", "cambi_source", false});
        out.push_back({"cambi_full_reference", "cambi_full_reference", false});
    }
    return out;
}

}  // namespace cambi

namespace {

std::unique_ptr<Feature> create(const VideoFormat& format, const OptionValues& options) {
    return std::make_unique<cambi::CambiFeature>(options, cambi::make_plan(format, options));
}

}  // namespace

const FeatureDef& cambi_feature() {
    static const FeatureDef def{"cambi", kOptions, create};
    return def;
}

}  // namespace speedqa

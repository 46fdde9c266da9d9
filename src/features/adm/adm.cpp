#include "features/adm/adm.hpp"

#include <memory>

#include "features/adm/adm_feature.hpp"
#include "features/adm/kernels.hpp"
#include "features/adm/plan.hpp"

namespace speedqa {
namespace {

// libvmaf's table (integer_adm.c): names, types, defaults, ranges, aliases
// and which options show in the metric names.
const OptionDef kOptions[] = {
    {"debug", OptionType::boolean, 0, "", 0, 0, nullptr, false, nullptr, "debug mode: enable additional output"},
    {"adm_csf_scale", OptionType::real, 1.0, "", 0.0, 50.0, "scf", true, nullptr,
     "scale coefficient for the horizontal & vertical direction terms of CSF"},
    {"adm_csf_diag_scale", OptionType::real, 1.0, "", 0.0, 50.0, "scfd", true, nullptr,
     "scale coefficient for the diagonal direction term of CSF"},
    {"adm_dlm_weight", OptionType::real, 0.5, "", 0.0, 1.0, "dlmw", true, nullptr,
     "linear weighting between DLM and AIM; 1 corresponds to DLM-only"},
    {"adm_enhn_gain_limit", OptionType::real, 100.0, "", 1.0, 100.0, "egl", true, nullptr,
     "enhancement gain imposed on adm, must be >= 1.0, where 1.0 means the gain is completely disabled"},
    {"adm_norm_view_dist", OptionType::real, 3.0, "", 0.75, 24.0, "nvd", true, nullptr,
     "normalized viewing distance = viewing distance / ref display's physical height"},
    {"adm_ref_display_height", OptionType::integer, 1080, "", 1, 4320, "rdh", true, nullptr,
     "reference display height in pixels"},
    {"adm_csf_mode", OptionType::integer, 0, "", 0, 3, "csf", true, nullptr, "contrast sensitivity function"},
    {"adm_noise_weight", OptionType::real, 0.03125, "", 0.0, 1500.0, "nw", true, nullptr, "noise weight"},
    {"adm_skip_aim", OptionType::boolean, 0, "", 0, 0, nullptr, false, nullptr, "skip the calculation of AIM"},
    {"adm_skip_scale0", OptionType::boolean, 0, "", 0, 0, "ssz", true, nullptr, "skip the calculation of scale 0"},
    {"adm_min_val", OptionType::real, 0.0, "", 0.0, 1.0, "min", true, nullptr,
     "minimum value allowed; lower values will be clipped to this value"},
};

// libvmaf's provided features, in the order it appends them; the last 11
// only with debug=true.
const std::vector<std::string> kProvided = {
    "VMAF_integer_feature_adm2_score", "VMAF_integer_feature_aim_score", "VMAF_integer_feature_adm3_score",
    "integer_adm_scale0", "integer_adm_scale1", "integer_adm_scale2", "integer_adm_scale3"};
const std::vector<std::string> kProvidedDebug = {
    "integer_adm", "integer_adm_num", "integer_adm_den", "integer_adm_num_scale0", "integer_adm_den_scale0",
    "integer_adm_num_scale1", "integer_adm_den_scale1", "integer_adm_num_scale2", "integer_adm_den_scale2",
    "integer_adm_num_scale3", "integer_adm_den_scale3"};

class AdmKernel final : public CpuKernel {
public:
    AdmKernel(adm::Plan plan, const adm::RowKernels& k) : plan_(std::move(plan)), k_(k) {}

    std::unique_ptr<KernelScratch> make_scratch() const override { return adm::make_frame_scratch(plan_); }
    size_t scratch_bytes() const override { return adm::frame_scratch_bytes(plan_); }

    void extract(KernelScratch& scratch, const FrameView& frame, double* raw) const override {
        adm::ScaleSums sums;
        adm::score_frame(plan_, k_, scratch, *frame.ref, *frame.dis, sums);
        adm::assemble(plan_, sums, raw);
    }

private:
    adm::Plan plan_;
    const adm::RowKernels& k_;
};

std::vector<FeatureOutput> adm_outputs(const OptionValues& options, bool debug) {
    std::vector<std::string> provided = kProvided;
    if (debug) provided.insert(provided.end(), kProvidedDebug.begin(), kProvidedDebug.end());
    return Feature::outputs_for(provided, options);
}

std::unique_ptr<Feature> create(const VideoFormat& format, const OptionValues& options) {
    const adm::Options opt = adm::read_options(options);
    adm::check_supported(format, opt);
    return std::make_unique<AdmFeature>(options, format, opt);
}

}  // namespace

AdmFeature::AdmFeature(const OptionValues& options, const VideoFormat& format, const adm::Options& opt)
    : Feature(options, adm_outputs(options, opt.debug)), format_(format), opt_(opt) {}

std::unique_ptr<CpuKernel> AdmFeature::make_cpu_kernel(const CpuTarget& target) const {
    // Our ISA and libvmaf's dispatch are independent: every kernel
    // reproduces any dispatch (the plan says how).
    const adm::RowKernels* k = target.isa == Isa::avx512 ? adm::row_kernels_avx512()
                               : target.isa == Isa::avx2 ? adm::row_kernels_avx2()
                                                         : nullptr;
    return std::make_unique<AdmKernel>(adm::make_plan(format_, opt_, target.dispatch), k ? *k : adm::row_kernels_c());
}

const FeatureDef& adm_feature() {
    static const FeatureDef def{"adm", kOptions, create};
    return def;
}

}  // namespace speedqa

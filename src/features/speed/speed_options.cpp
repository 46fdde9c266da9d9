#include "features/speed/speed_options.hpp"

namespace speedqa {
namespace {

const char* const kPrescaleMethods[] = {"nearest", "bilinear", "bicubic", "lanczos4", nullptr};

// speed.c: options_chroma[] and the temporal options[], in libvmaf's order.
constexpr OptionDef kKernelscale{.name = "speed_kernelscale", .type = OptionType::real, .def = 1.0, .min = 0.1, .max = 4.0,
                                 .alias = "ks", .help = "Gaussian kernel scale (one of libvmaf's 21)"};
constexpr OptionDef kPrescale{.name = "speed_prescale", .type = OptionType::real, .def = 1.0, .min = 0.1, .max = 4.0,
                              .alias = "ps", .help = "resize factor before filtering"};
constexpr OptionDef kPrescaleMethod{.name = "speed_prescale_method", .type = OptionType::text, .def_text = "nearest",
                                    .alias = "psm", .choices = kPrescaleMethods, .help = "resampling of the prescale"};
constexpr OptionDef kSigmaNn{.name = "speed_sigma_nn", .type = OptionType::real, .def = 0.29, .min = 0.1, .max = 2.0,
                             .alias = "snn", .help = "neural noise sigma"};
constexpr OptionDef kNnFloor{.name = "speed_nn_floor", .type = OptionType::real, .def = 0.0, .min = 0.0, .max = 1.0,
                             .alias = "nnf", .help = "neural noise floor"};
constexpr OptionDef kMaxVal{.name = "speed_max_val", .type = OptionType::real, .def = 1000.0, .min = 0.0, .max = 1000.0,
                            .alias = "mxv", .help = "scores are clipped to this (speed_chroma)"};
constexpr OptionDef kWeightVarMode{.name = "speed_weight_var_mode", .type = OptionType::integer, .def = 0, .min = 0,
                                   .max = 6, .alias = "wvm", .help = "block weighting"};
constexpr OptionDef kUseRefDiff{.name = "speed_use_ref_diff", .type = OptionType::boolean, .def = 0, .alias = "urd",
                                .help = "distorted difference taken against the reference frame"};

constexpr OptionDef kChroma[] = {kKernelscale, kPrescale, kPrescaleMethod, kSigmaNn, kNnFloor, kMaxVal, kWeightVarMode};
constexpr OptionDef kTemporal[] = {kKernelscale, kPrescale, kPrescaleMethod, kSigmaNn, kNnFloor, kMaxVal, kUseRefDiff};

}  // namespace

exact::PrescaleMethod SpeedOptions::method() const {
    if (prescale_method == "bilinear") return exact::PrescaleMethod::bilinear;
    if (prescale_method == "bicubic") return exact::PrescaleMethod::bicubic;
    if (prescale_method == "lanczos4") return exact::PrescaleMethod::lanczos4;
    return exact::PrescaleMethod::nearest;
}

std::span<const OptionDef> speed_chroma_options() { return kChroma; }
std::span<const OptionDef> speed_temporal_options() { return kTemporal; }

SpeedSpec speed_spec(SpeedKind kind, const OptionValues& v) {
    SpeedSpec s;
    s.kind = kind;
    SpeedOptions& o = s.options;
    o.kernelscale = v.real("speed_kernelscale");
    o.prescale = v.real("speed_prescale");
    o.prescale_method = v.text("speed_prescale_method");
    o.sigma_nn = v.real("speed_sigma_nn");
    o.nn_floor = v.real("speed_nn_floor");
    o.max_val = v.real("speed_max_val");
    if (kind == SpeedKind::chroma) o.weight_var_mode = v.integer("speed_weight_var_mode");
    else o.use_ref_diff = v.flag("speed_use_ref_diff");
    return s;
}

}  // namespace speedqa

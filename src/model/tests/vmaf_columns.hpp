// Test-only: the column libvmaf prints for a model feature (alias + option
// suffix), from copies of the option tables of the extractors the model
// files use, so the model module's tests need no feature module.
#pragma once

#include <gtest/gtest.h>

#include <span>
#include <string>

#include "core/option_table.hpp"
#include "model/model.hpp"

namespace speedqa::model::testing {

// Test-only copies of the options the model files set, with libvmaf's
// names, aliases, defaults and ranges (integer_adm.c, integer_vif.c,
// integer_motion.c, cambi.c, speed.c): enough to name the golden columns
// as libvmaf does (alias + suffix) without the feature modules.
inline constexpr OptionDef kAdm[] = {
    {.name = "debug", .type = OptionType::boolean, .feature_param = false},
    {.name = "adm_csf_scale", .def = 1.0, .max = 50.0, .alias = "scf"},
    {.name = "adm_csf_diag_scale", .def = 1.0, .max = 50.0, .alias = "scfd"},
    {.name = "adm_dlm_weight", .def = 0.5, .max = 1.0, .alias = "dlmw"},
    {.name = "adm_enhn_gain_limit", .def = 100.0, .min = 1.0, .max = 100.0, .alias = "egl"},
    {.name = "adm_norm_view_dist", .def = 3.0, .min = 0.75, .max = 24.0, .alias = "nvd"},
    {.name = "adm_ref_display_height", .type = OptionType::integer, .def = 1080, .min = 1, .max = 4320, .alias = "rdh"},
    {.name = "adm_csf_mode", .type = OptionType::integer, .def = 0, .max = 3, .alias = "csf"},
    {.name = "adm_noise_weight", .def = 0.03125, .max = 1500.0, .alias = "nw"},
    {.name = "adm_skip_aim", .type = OptionType::boolean, .feature_param = false},
    {.name = "adm_skip_scale0", .type = OptionType::boolean, .alias = "ssz"},
    {.name = "adm_min_val", .def = 0.0, .max = 1.0, .alias = "min"},
};
inline constexpr OptionDef kVif[] = {
    {.name = "debug", .type = OptionType::boolean, .feature_param = false},
    {.name = "vif_enhn_gain_limit", .def = 100.0, .min = 1.0, .max = 100.0, .alias = "egl"},
    {.name = "vif_skip_scale0", .type = OptionType::boolean, .alias = "ssclz"},
};
inline constexpr OptionDef kMotion[] = {
    {.name = "motion_force_zero", .type = OptionType::boolean, .alias = "force_0"},
    {.name = "motion_blend_factor", .def = 1.0, .max = 1.0, .alias = "mbf"},
    {.name = "motion_blend_offset", .def = 40.0, .max = 1000.0, .alias = "mbo"},
    {.name = "motion_fps_weight", .def = 1.0, .max = 5.0, .alias = "mfw"},
    {.name = "motion_max_val", .def = 10000.0, .max = 10000.0, .alias = "mmxv"},
    {.name = "motion_five_frame_window", .type = OptionType::boolean, .alias = "mffw"},
    {.name = "motion_moving_average", .type = OptionType::boolean, .alias = "mma"},
    {.name = "debug", .type = OptionType::boolean, .feature_param = false},
};
inline constexpr OptionDef kCambi[] = {
    {.name = "cambi_max_val", .def = 1000.0, .max = 1000.0, .alias = "cmxv"},
    {.name = "cambi_vis_lum_threshold", .def = 0.0, .max = 300.0, .alias = "vlt"},
    {.name = "cambi_high_res_speedup", .type = OptionType::integer, .def = 0, .max = 2160, .alias = "hrs"},
};
inline constexpr const char* kPrescaleMethods[] = {"nearest", "bilinear", "bicubic", "lanczos4", nullptr};
inline constexpr OptionDef kSpeedChroma[] = {
    {.name = "speed_kernelscale", .def = 1.0, .min = 0.1, .max = 4.0, .alias = "ks"},
    {.name = "speed_prescale", .def = 1.0, .min = 0.1, .max = 4.0, .alias = "ps"},
    {.name = "speed_prescale_method", .type = OptionType::text, .def_text = "nearest", .alias = "psm",
     .choices = kPrescaleMethods},
    {.name = "speed_sigma_nn", .def = 0.29, .min = 0.1, .max = 2.0, .alias = "snn"},
    {.name = "speed_nn_floor", .def = 0.0, .max = 1.0, .alias = "nnf"},
    {.name = "speed_max_val", .def = 1000.0, .max = 1000.0, .alias = "mxv"},
    {.name = "speed_weight_var_mode", .type = OptionType::integer, .def = 0, .max = 6, .alias = "wvm"},
};

inline std::span<const OptionDef> options_of(const std::string& extractor) {
    if (extractor == "adm") return kAdm;
    if (extractor == "vif") return kVif;
    if (extractor == "motion") return kMotion;
    if (extractor == "cambi") return kCambi;
    if (extractor == "speed_chroma") return kSpeedChroma;
    ADD_FAILURE() << "no test table for " << extractor;
    return {};
}

// The column libvmaf prints for a model feature: alias + option suffix.
inline std::string column_of(const ModelFeature& f) {
    OptionValues values(f.extractor, options_of(f.extractor));
    for (const auto& [key, text] : f.options) values.set(key, text);
    return vmaf_metric_name(f.provided, values);
}

}  // namespace speedqa::model::testing

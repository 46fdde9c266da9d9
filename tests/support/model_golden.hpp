// The golden values of whole models and of the adm, vif, motion and cambi
// features (../shared/testdata/models/golden, README there): one file per
// clip, run and dispatch.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/feature.hpp"
#include "core/video.hpp"
#include "support/testdata.hpp"

namespace speedqa::testing {

struct ModelGolden {
    std::string path, clip, run, dispatch;  // run: "vmaf_v0.6.1", "feature_adm", "feature_adm_o2", ...
    unsigned cpumask = 0;
    std::vector<std::string> args;          // vmaf's arguments after the inputs
    int exit_status = 0;
    std::string reference_defect;           // non-empty: libvmaf's values are not a target
    std::vector<std::string> keys;          // per-frame metric names, in vmaf's order (frameNum left out)
    std::vector<std::vector<double>> frames;  // [frame][key]; NaN where libvmaf printed null (not finite)
    // pooled_metrics: name -> {min, max, mean, harmonic_mean}
    std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>> pooled;

    Dispatch dispatch_value() const;
    // For runs "feature_<name>[_oN]": the --feature argument ("adm",
    // "adm=adm_csf_mode=1"); "" for model runs.
    std::string feature_arg() const;
    // Index of a key, -1 if absent.
    int key_index(const std::string& key) const;
};

// The golden files under <testdata>/models/golden whose name starts with
// `prefix` ("" = all), sorted by name. Empty when the folder is absent.
std::vector<ModelGolden> load_model_golden(const std::string& testdata_root, const std::string& prefix = "");

// The options a model file's feature_opts_dicts gives the feature whose
// provided name contains `marker` (e.g. "_vif_"), as (name, value) texts (a
// string value unquoted); nullopt where the model does not use that feature.
std::optional<std::vector<std::pair<std::string, std::string>>> model_feature_options(const std::string& model_path,
                                                                                      const std::string& marker);
// The same as --feature text ("adm", "adm=adm_csf_mode=2:..."), "" where the
// model does not use the feature.
std::string model_feature_arg(const std::string& model_path, const std::string& marker, const std::string& feature);

// The frames of a clip's .xz file, as pictures into load_xz's bytes.
std::vector<Picture> clip_pictures(const ClipInfo& clip, const std::string& xz);

}  // namespace speedqa::testing

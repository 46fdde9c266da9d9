// The golden values of whole models and of the adm, vif, motion and cambi
// features (../shared/testdata/models/golden, README there): one file per
// clip, run and dispatch.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/feature.hpp"

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

}  // namespace speedqa::testing

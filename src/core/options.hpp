// The two features, their options as libvmaf defines them, and the metric
// names libvmaf gives them.
#pragma once

#include <string>
#include <vector>

#include "exact/prescale.hpp"

namespace speedqa {

enum class FeatureKind { chroma, temporal };

struct FeatureOptions {
    double kernelscale = 1.0;
    double prescale = 1.0;
    std::string prescale_method = "nearest";
    double sigma_nn = 0.29;
    double nn_floor = 0.0;
    double max_val = 1000.0;
    int weight_var_mode = 0;   // speed_chroma only
    bool use_ref_diff = false; // speed_temporal only

    exact::PrescaleMethod method() const;
};

struct FeatureSpec {
    FeatureKind kind = FeatureKind::chroma;
    FeatureOptions options;
    // Options given explicitly, in libvmaf's normalised text form, by full name.
    std::vector<std::pair<std::string, std::string>> given;

    std::string feature_name() const { return kind == FeatureKind::chroma ? "speed_chroma" : "speed_temporal"; }
    // Output metric names, libvmaf style: "speed_chroma_u", or with the
    // non-default options appended, e.g. "speed_chroma_u_mxv_45_nnf_0.1".
    std::vector<std::string> metric_names() const;
};

// Parses "speed_chroma", "speed_chroma=speed_weight_var_mode=5:mxv=45" etc.
// Option keys may be full names or libvmaf's aliases. Values go through
// libvmaf's normalisation (numbers are read as float and reprinted with %g)
// and range checks. Throws speedqa::Error naming the problem.
FeatureSpec parse_feature(const std::string& text);

}  // namespace speedqa

// speed_chroma and speed_temporal: their options as libvmaf defines them
// (speed.c's option tables) and what the pipeline takes from them.
#pragma once

#include <span>
#include <string>

#include "core/option_table.hpp"
#include "features/speed/exact/prescale.hpp"

namespace speedqa {

enum class SpeedKind { chroma, temporal };

struct SpeedOptions {
    double kernelscale = 1.0;
    double prescale = 1.0;
    std::string prescale_method = "nearest";
    double sigma_nn = 0.29;
    double nn_floor = 0.0;
    double max_val = 1000.0;
    int weight_var_mode = 0;    // speed_chroma only
    bool use_ref_diff = false;  // speed_temporal only

    exact::PrescaleMethod method() const;
};

// One configured SpEED feature.
struct SpeedSpec {
    SpeedKind kind = SpeedKind::chroma;
    SpeedOptions options;
};

// libvmaf's option tables of the two features.
std::span<const OptionDef> speed_chroma_options();
std::span<const OptionDef> speed_temporal_options();

SpeedSpec speed_spec(SpeedKind kind, const OptionValues& values);

}  // namespace speedqa

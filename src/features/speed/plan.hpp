// Everything about one image's pipeline that depends only on the plane size
// and the options, computed once per geometry on the host and shared by
// both engines: dimensions, taps, resampling tables, and which rows and
// columns of the (prescaled) plane the decimated filter reads.
#pragma once

#include <string>
#include <vector>

#include "features/speed/speed_options.hpp"
#include "core/video.hpp"
#include "features/speed/exact/dimensions.hpp"
#include "exact/filter.hpp"
#include "features/speed/exact/prescale.hpp"

namespace speedqa {

struct ImagePlan {
    exact::Dimensions dim;
    exact::Taps antialias;   // scale-1 size, applied at the kept points
    exact::Taps local_mean;  // scale-4 size, applied on the decimated image
    exact::PrescaleMethod method = exact::PrescaleMethod::nearest;
    float sigma_nn = 0, nn_floor = 0;
    int weight_var_mode = 0;

    // Rows and columns of the scaled plane that the anti-alias filter reads
    // at the kept points (sorted, unique), and, for each scaled coordinate,
    // its position in those lists (-1 where not read). Without prescale the
    // column list is every column: converting whole rows is cheaper than
    // gathering.
    std::vector<int> rows, cols;
    std::vector<int> row_index, col_index;
    // For kept column j and tap k, the index into the vertical pass's row
    // (plan.cols order) that the horizontal anti-alias tap reads:
    // col_index[mirror(16 j - radius + k)], at [j * taps + k].
    std::vector<int> kept_col_taps;
    // Resampling taps for each entry of rows / cols (prescale only).
    std::vector<exact::AxisTaps> row_taps, col_taps;
    // Identity resampling: the reference copies the plane when the scaled
    // size equals the original in both directions.
    bool resample = false;

    int kept_rows() const { return dim.operating_h; }
    int kept_cols() const { return dim.operating_w; }
};

// Builds the plan for a plane of w x h. Throws speedqa::Error, naming the
// feature (`what`), for inputs the reference cannot compute: a plane under 80
// samples after prescale, an invalid kernelscale, a prescale within 1e-3 of 1
// that still changes the size.
ImagePlan make_plan(int w, int h, const SpeedOptions& options, const std::string& what);

// The plan of a feature on a video: chroma planes for speed_chroma (refused
// for 4:0:0 input), luma for speed_temporal.
ImagePlan make_feature_plan(const VideoFormat& format, const SpeedSpec& spec);

}  // namespace speedqa

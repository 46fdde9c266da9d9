#include "features/motion/motion.hpp"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "features/motion/exact/motion_exact.hpp"
#include "features/motion/motion_feature.hpp"
#include "features/motion/motion_kernels.hpp"

namespace speedqa {
namespace {

using motion::MotionFeature;
using motion::Params;

// integer_motion.c's options, in its order.
constexpr OptionDef kOptions[] = {
    {.name = "motion_force_zero", .type = OptionType::boolean, .def = 0, .alias = "force_0",
     .help = "forcing motion score to zero"},
    {.name = "motion_blend_factor", .type = OptionType::real, .def = 1.0, .min = 0.0, .max = 1.0, .alias = "mbf",
     .help = "blend motion score given an offset"},
    {.name = "motion_blend_offset", .type = OptionType::real, .def = 40.0, .min = 0.0, .max = 1000.0, .alias = "mbo",
     .help = "blend motion score starting from this offset"},
    {.name = "motion_fps_weight", .type = OptionType::real, .def = 1.0, .min = 0.0, .max = 5.0, .alias = "mfw",
     .help = "fps-aware multiplicative weight/correction"},
    {.name = "motion_max_val", .type = OptionType::real, .def = 10000.0, .min = 0.0, .max = 10000.0,
     .alias = "mmxv", .help = "maximum value allowed; larger values will be clipped to this value"},
    {.name = "motion_five_frame_window", .type = OptionType::boolean, .def = 0, .alias = "mffw",
     .help = "use five-frame temporal window"},
    {.name = "motion_moving_average", .type = OptionType::boolean, .def = 0, .alias = "mma",
     .help = "use moving average for motion scores after first frame"},
    {.name = "debug", .type = OptionType::boolean, .def = 0, .feature_param = false,
     .help = "debug mode: enable additional output"},
};

class Scratch final : public KernelScratch {
public:
    explicit Scratch(int w) : row(motion::row_len(w), 0) {}
    std::vector<int32_t> row;
};

class Kernel final : public CpuKernel {
public:
    Kernel(const Params& p, const motion::Kernels& k) : p_(p), k_(k) {}

    std::unique_ptr<KernelScratch> make_scratch() const override { return std::make_unique<Scratch>(p_.w); }
    size_t scratch_bytes() const override { return motion::row_len(p_.w) * sizeof(int32_t); }

    // The frame's score: 0 when forced or before the first frame with a
    // predecessor at the window's distance.
    void extract(KernelScratch& scratch, const FrameView& frame, double* raw) const override {
        if (!p_.scores(frame.index)) {
            raw[0] = p_.raw_value(frame.index, 0);
            return;
        }
        const Picture* prev = frame.prev_ref[p_.distance() - 1];
        if (!prev) throw std::logic_error("motion: frame " + std::to_string(frame.index) + " lacks its previous frame");
        motion::SadArgs a;
        a.prev = prev->plane[0];
        a.prev_stride = prev->stride[0];
        a.cur = frame.ref->plane[0];
        a.cur_stride = frame.ref->stride[0];
        a.w = p_.w;
        a.h = p_.h;
        a.bitdepth = p_.bitdepth;
        a.row = static_cast<Scratch&>(scratch).row.data();
        raw[0] = p_.raw_value(frame.index, k_.sad(a));
    }

private:
    Params p_;
    const motion::Kernels& k_;
};

// The score now (again as integer_motion with debug), motion2 and motion3
// when libvmaf's flush writes them.
std::vector<FeatureOutput> output_list(const OptionValues& o, bool debug) {
    std::vector<std::string> now = {"VMAF_integer_feature_motion_sad_score"};
    if (debug) now.push_back("VMAF_integer_feature_motion_score");
    std::vector<FeatureOutput> out = Feature::outputs_for(now, o);
    for (FeatureOutput& d :
         Feature::outputs_for({"VMAF_integer_feature_motion2_score", "VMAF_integer_feature_motion3_score"}, o, true))
        out.push_back(std::move(d));
    return out;
}

std::unique_ptr<Feature> create(const VideoFormat& format, const OptionValues& o) {
    // the 5-tap mirror reads 2 samples beyond each side
    if (format.width < 3 || format.height < 3)
        throw Error("motion: the frame is " + std::to_string(format.width) + "x" + std::to_string(format.height) +
                    "; integer motion needs at least 3x3 (its 5-tap blur mirrors 2 samples at each border)");
    Params p;
    p.seq.five_frame_window = o.flag("motion_five_frame_window");
    p.seq.moving_average = o.flag("motion_moving_average");
    p.seq.blend_factor = o.real("motion_blend_factor");
    p.seq.blend_offset = o.real("motion_blend_offset");
    p.seq.max_val = o.real("motion_max_val");
    p.seq.debug = o.flag("debug");
    p.force_zero = o.flag("motion_force_zero");
    p.fps_weight = o.real("motion_fps_weight");
    p.w = format.width;
    p.h = format.height;
    p.bitdepth = format.bitdepth;
    return std::make_unique<MotionFeature>(o, p);
}

}  // namespace

motion::MotionFeature::MotionFeature(const OptionValues& o, const Params& p)
    : Feature(o, output_list(o, p.seq.debug)), p_(p) {}

InputNeeds motion::MotionFeature::input_needs() const {
    InputNeeds n;
    if (p_.force_zero) return n;
    n.planes[0][0] = 1;
    n.planes[p_.distance()][0] = 1;
    return n;
}

std::unique_ptr<CpuKernel> motion::MotionFeature::make_cpu_kernel(const CpuTarget& target) const {
    return std::make_unique<Kernel>(p_, motion::kernels_for(kernel_target(target).isa));
}

const FeatureDef& motion_feature() {
    static const FeatureDef def{"motion", kOptions, create};
    return def;
}

}  // namespace speedqa

// A feature as the engines and the API see it: one small interface.
//
// A feature module (src/features/<name>/) provides a FeatureDef: its name, its
// options table and a factory. The factory checks the video format and the
// options and returns a Feature, which says what it outputs (libvmaf's names,
// in libvmaf's order), how many previous frames it reads, and makes
//  - a CpuKernel: the per-frame work, run by the CPU engine on many frames at
//    once (each worker with its own scratch); it writes `raw_count()` values
//    per frame;
//  - a Sequencer: the per-clip work that must see the frames in order (motion2
//    is the smaller of two neighbouring frames' values); it turns the raw
//    values into the outputs. For most features it passes them through.
// Engines know features only through this header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/option_table.hpp"
#include "core/video.hpp"

namespace speedqa {

// Instruction sets the host may use for our own kernels.
enum class Isa { c, avx2, avx512 };
// The libvmaf dispatch whose values are reproduced: libvmaf picks its kernels
// by the CPU and --cpumask, and where its scalar and SIMD kernels sum in a
// different order (speed's covariance, ADM with adm_csf_mode=1) the values
// differ. Independent of Isa: any dispatch can be reproduced on any CPU.
enum class Dispatch { scalar, avx2, avx512 };
const char* dispatch_name(Dispatch d);  // "scalar", "avx2", "avx512"

struct CpuTarget {
    Isa isa = Isa::c;
    Dispatch dispatch = Dispatch::scalar;
    // The straightforward implementation, where a feature has one (the
    // yardstick of tests and benchmarks: --backend cpu-reference).
    bool straightforward = false;
};

// One frame as a kernel sees it. prev_ref[0] / prev_dis[0] are the frame
// before, [1] the one before that; nullptr where the clip has none (frame 0,
// or a history the feature did not ask for).
struct FrameView {
    long long index = 0;
    const Picture* ref = nullptr;
    const Picture* dis = nullptr;
    const Picture* prev_ref[2] = {nullptr, nullptr};
    const Picture* prev_dis[2] = {nullptr, nullptr};
};

// Per-worker scratch of a kernel (buffers sized once, reused every frame).
class KernelScratch {
public:
    virtual ~KernelScratch() = default;
};

class CpuKernel {
public:
    virtual ~CpuKernel() = default;
    virtual std::unique_ptr<KernelScratch> make_scratch() const = 0;
    // Bytes one make_scratch() takes, with what it grows to on the first
    // frames, computed from the plan without allocating: the CPU engine
    // weighs its workers' scratch against the memory there is before it
    // makes any. The default, 0, is for scratch of a few rows.
    virtual size_t scratch_bytes() const { return 0; }
    // Writes the frame's raw_count() values. Called from several threads at
    // once, for different frames, each with its own scratch.
    virtual void extract(KernelScratch& scratch, const FrameView& frame, double* raw) const = 0;
    // Lines for the user once the clip is done (warnings), if any.
    virtual std::vector<std::string> notes() const { return {}; }
};

// Turns each frame's raw values into its outputs, frames in order.
using EmitFn = std::function<void(long long index, const double* outputs)>;
class Sequencer {
public:
    virtual ~Sequencer() = default;
    // Raw values of frame `index` (0, 1, 2, ... in order). Calls emit for
    // every frame whose outputs are now final, in order.
    virtual void push(long long index, const double* raw, const EmitFn& emit) = 0;
    // The clip has ended: emits every frame not yet emitted.
    virtual void finish(const EmitFn& emit) = 0;
};

// The rows of one plane that a feature reads.
struct RowSet {
    bool all = true;        // every row
    std::vector<int> rows;  // else these, ascending, without repeats
    static RowSet only(std::vector<int> rows);  // sorts them and drops repeats
    void add(const RowSet& o);                  // the union
    bool operator==(const RowSet& o) const { return all == o.all && (all || rows == o.rows); }
};

// What a feature reads of the frames around the one it scores: at distance d
// (0 the frame itself, 1 the frame before, 2 the one before that), per side
// (0 reference, 1 distorted) the planes (bit p: plane p); per plane the rows
// (the same rows at every distance and side that reads the plane).
struct InputNeeds {
    static constexpr int kMaxDistance = 2;
    unsigned planes[kMaxDistance + 1][2] = {};
    RowSet rows[3];
    // The farthest distance read (0 when only the frame itself is).
    int history() const;
    void add(const InputNeeds& o);  // the union
};

// One output of a feature.
struct FeatureOutput {
    std::string provided;   // libvmaf's provided-feature name, e.g. "VMAF_integer_feature_adm2_score"; models name it so
    std::string name;       // as libvmaf prints it: alias + option suffix, e.g. "integer_adm2_egl_1"
    // libvmaf writes it only when the clip ends (motion2, motion3): its
    // columns follow every feature's other outputs.
    bool deferred = false;
};

class Feature {
public:
    virtual ~Feature() = default;

    const std::string& name() const { return options_.feature(); }  // "adm", as --feature takes it
    const OptionValues& options() const { return options_; }
    // "adm=adm_csf_mode=1": equal for two requests that compute the same values.
    std::string canonical() const { return options_.canonical(); }
    const std::vector<FeatureOutput>& outputs() const { return outputs_; }

    // Previous frames the kernel reads (0, 1 or 2).
    virtual int history() const { return 0; }
    // The frames around a frame that its outputs depend on, kernel and
    // sequencer together: a run that starts `before` frames ahead of frame A
    // and reads `after` frames past frame B - 1 gives frames A .. B - 1 the
    // outputs a run of the whole clip gives them (--frame_range). Default:
    // the kernel's history, nothing after.
    struct Context {
        int before = 0, after = 0;
    };
    virtual Context context() const { return {history(), 0}; }
    // The planes the kernel reads (bit p: plane p): an engine may hand it
    // pictures whose other planes are null.
    struct PlanesRead {
        unsigned ref = 7, dis = 7;            // the frame's
        unsigned prev_ref = 7, prev_dis = 7;  // the previous frames' (history())
    };
    virtual PlanesRead planes_read() const { return {}; }
    // What the feature reads, finer than planes_read(): per distance and
    // side, the planes, and per plane the rows. Device engines upload no
    // more than this (core/input_plan.hpp). Default: planes_read() at every
    // distance up to history(), whole planes.
    virtual InputNeeds input_needs() const;
    // Values the kernel writes per frame (the sequencer's input).
    virtual int raw_count() const { return static_cast<int>(outputs_.size()); }
    virtual std::unique_ptr<CpuKernel> make_cpu_kernel(const CpuTarget& target) const = 0;
    // The target whose kernel make_cpu_kernel(t) builds. A feature whose
    // kernels do not depend on libvmaf's dispatch, or that has no kernel of
    // its own for an ISA, maps t onto the target it does use; runs with equal
    // kernel targets compute the same values (the golden tests compute them
    // once). Such a feature builds its kernel from kernel_target(t).
    virtual CpuTarget kernel_target(const CpuTarget& t) const { return t; }
    // Default: the raw values are the outputs, emitted at once.
    virtual std::unique_ptr<Sequencer> make_sequencer() const;

    // The outputs for libvmaf's provided-feature names, named as libvmaf names
    // them with these options.
    static std::vector<FeatureOutput> outputs_for(const std::vector<std::string>& provided, const OptionValues& options,
                                                  bool deferred = false);

protected:
    Feature(OptionValues options, std::vector<FeatureOutput> outputs)
        : options_(std::move(options)), outputs_(std::move(outputs)) {}

private:
    OptionValues options_;
    std::vector<FeatureOutput> outputs_;
};

// A feature module's entry: what --feature NAME finds.
struct FeatureDef {
    const char* name;
    std::span<const OptionDef> options;
    // Builds the feature for a video format; throws Error (one line naming
    // the feature and the limit) where the format or options cannot be scored.
    std::unique_ptr<Feature> (*create)(const VideoFormat& format, const OptionValues& options);
};

// Parses the options of a request against a feature's table (Error on an
// unknown key, an alias, a bad value) and builds the feature.
std::unique_ptr<Feature> make_feature(const FeatureDef& def, const VideoFormat& format,
                                      const std::vector<std::pair<std::string, std::string>>& options);

}  // namespace speedqa

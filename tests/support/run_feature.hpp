// Running one feature over a clip in memory, frame by frame in order: its
// CPU kernel, then its sequencer. The yardstick for a feature's golden tests
// (the engines run the same kernel on many frames at once).
#pragma once

#include <string>
#include <vector>

#include "core/engine.hpp"
#include "core/feature.hpp"

namespace speedqa::testing {

// Outputs [frame][output] (Feature::outputs() order) of every frame.
std::vector<std::vector<double>> run_feature(const Feature& feature, const CpuTarget& target,
                                             const std::vector<Picture>& ref, const std::vector<Picture>& dis);

// run_feature, computed once per process for each clip, Feature::canonical()
// (equal for two requests that compute the same values) and kernel target
// (Feature::kernel_target: the ISA and dispatch the kernel really uses):
// golden files that ask for the same run (the model runs whose models give a
// feature the same options, the dispatches of a feature whose kernels ignore
// the dispatch) are compared with one computation, every value still
// compared. `clip` names the frames ref and dis hold (the same frames for a
// name, through a process).
const std::vector<std::vector<double>>& run_feature_once(const std::string& clip, const Feature& feature,
                                                         const CpuTarget& target, const std::vector<Picture>& ref,
                                                         const std::vector<Picture>& dis);
// Prints "[golden-models] WHAT: N runs computed for M comparisons": how
// many runs run_feature_once computed, and how many it was asked for, since
// the last call; then starts the counts again.
void print_run_feature_once_counts(const char* what);

// Frame 2 of three, with frames 1 and 0 as its history (ref[k], dis[k]: frame k).
FrameView third_frame_view(const Picture* const ref[3], const Picture* const dis[3]);

// The feature a --feature argument names ("adm", "adm=adm_csf_mode=1"),
// looked up among `defs` by name.
std::unique_ptr<Feature> feature_from_arg(const std::vector<const FeatureDef*>& defs, const std::string& arg,
                                          const VideoFormat& format);

// Features built from --feature arguments, and the list engines take.
struct FeatureSet {
    std::vector<std::unique_ptr<Feature>> owned;
    std::vector<const Feature*> list;
    int raw_stride = 0;  // raw values per frame of the whole list
};
FeatureSet feature_set(const std::vector<const FeatureDef*>& defs, const std::vector<std::string>& args,
                       const VideoFormat& format);

// Every CpuTarget this host can run for a dispatch: Isa::c always, AVX2 and
// AVX-512 where the CPU has them.
std::vector<CpuTarget> host_targets(Dispatch d);
const char* isa_name(Isa isa);

// Whether this build runs under AddressSanitizer (tools/test.sh's second
// build, which also has UBSan).
constexpr bool sanitizer_build() {
#if defined(__SANITIZE_ADDRESS__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return true;
#else
    return false;
#endif
#else
    return false;
#endif
}

// The comparisons with libvmaf's golden files in ../shared/testdata run once,
// in the release build, which compares every value; a sanitizer build skips
// them with the reason this returns (nullptr in other builds, or where
// SPEEDQA_SANITIZER_GOLDEN=1 asks for them, with the turns below). Its memory
// checks of the same code paths come from the repository subset's golden
// test (every clip, SpEED option set and dispatch), the checkasm tests, the
// command's tests with the models, and the fuzzers (docs/TESTING.md).
const char* golden_skip_in_sanitizer_build();

// The targets a golden test runs a golden file of dispatch d with: every
// one of host_targets(d), or, in a sanitizer build, one: `turn` counts the
// test's golden files, which come in threes (a run's three dispatches); each
// three take the next target. The release build compares every value of
// every target; the sanitizer build, which looks for memory errors, still
// runs every target with every dispatch on every clip (each clip has many
// runs), at about a third of the cost.
std::vector<CpuTarget> golden_targets(Dispatch d, long long turn);
// The rule of those turns: which of n choices golden file `turn` takes in a
// sanitizer build, the same for the three files of a run and the next one
// for the next run ((turn / 3) % n).
long long sanitizer_turn(long long turn, long long n);
// Says, in a sanitizer build, that `what` ran one target per golden file in
// turn (nothing otherwise).
void print_golden_targets_note(const char* what);

// The frames of a clip a golden test of a feature without history runs: all,
// or in a sanitizer build the first kSanitizerFrames (every frame runs the
// same code on other samples; the release build compares every frame).
inline constexpr size_t kSanitizerFrames = 3;
size_t golden_frames(size_t clip_frames);
// The first golden_frames() of a clip's pictures.
std::vector<Picture> first_golden_frames(std::vector<Picture> pictures);
// Says so, in a sanitizer build.
void print_golden_frames_note(const char* what);

}  // namespace speedqa::testing

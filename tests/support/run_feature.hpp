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

}  // namespace speedqa::testing

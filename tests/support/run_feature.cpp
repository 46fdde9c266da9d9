#include "support/run_feature.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string_view>
#include <tuple>

#include "core/cpu_flags.hpp"

namespace speedqa::testing {

std::vector<std::vector<double>> run_feature(const Feature& feature, const CpuTarget& target,
                                             const std::vector<Picture>& ref, const std::vector<Picture>& dis) {
    const auto kernel = feature.make_cpu_kernel(target);
    const auto scratch = kernel->make_scratch();
    const auto seq = feature.make_sequencer();
    const size_t n = std::min(ref.size(), dis.size());
    const size_t outputs = feature.outputs().size();
    std::vector<std::vector<double>> out(n);
    std::vector<bool> seen(n, false);
    const EmitFn emit = [&](long long index, const double* values) {
        if (index < 0 || static_cast<size_t>(index) >= n || seen[static_cast<size_t>(index)])
            throw std::logic_error(feature.name() + ": sequencer emitted frame " + std::to_string(index) + " wrongly");
        seen[static_cast<size_t>(index)] = true;
        out[static_cast<size_t>(index)].assign(values, values + outputs);
    };
    std::vector<double> raw(static_cast<size_t>(feature.raw_count()));
    const int history = feature.history();
    for (size_t i = 0; i < n; i++) {
        FrameView v;
        v.index = static_cast<long long>(i);
        v.ref = &ref[i];
        v.dis = &dis[i];
        for (int h = 0; h < 2 && h < history; h++)
            if (i >= static_cast<size_t>(h) + 1) {
                v.prev_ref[h] = &ref[i - static_cast<size_t>(h) - 1];
                v.prev_dis[h] = &dis[i - static_cast<size_t>(h) - 1];
            }
        kernel->extract(*scratch, v, raw.data());
        seq->push(static_cast<long long>(i), raw.data(), emit);
    }
    seq->finish(emit);
    for (size_t i = 0; i < n; i++)
        if (!seen[i]) throw std::logic_error(feature.name() + ": sequencer never emitted frame " + std::to_string(i));
    return out;
}

namespace {
struct {
    long long computed = 0, asked = 0;
} once_counts;
}

const std::vector<std::vector<double>>& run_feature_once(const std::string& clip, const Feature& feature,
                                                         const CpuTarget& target, const std::vector<Picture>& ref,
                                                         const std::vector<Picture>& dis) {
    using Key = std::tuple<std::string, std::string, Isa, Dispatch, bool>;
    static std::map<Key, std::vector<std::vector<double>>> done;
    once_counts.asked++;
    const CpuTarget k = feature.kernel_target(target);
    const Key key{clip, feature.canonical(), k.isa, k.dispatch, k.straightforward};
    auto it = done.find(key);
    if (it == done.end()) {
        it = done.emplace(key, run_feature(feature, target, ref, dis)).first;
        once_counts.computed++;
    }
    return it->second;
}

void print_run_feature_once_counts(const char* what) {
    std::printf("[golden-models] %s: %lld kernel runs computed for %lld golden comparisons (the others shared a clip, "
                "options and kernel target with one computed: Feature::kernel_target)\n",
                what, once_counts.computed, once_counts.asked);
    once_counts = {};
}

FrameView third_frame_view(const Picture* const ref[3], const Picture* const dis[3]) {
    FrameView v;
    v.index = 2;
    v.ref = ref[2];
    v.dis = dis[2];
    for (int h = 0; h < 2; h++) {
        v.prev_ref[h] = ref[1 - h];
        v.prev_dis[h] = dis[1 - h];
    }
    return v;
}

std::unique_ptr<Feature> feature_from_arg(const std::vector<const FeatureDef*>& defs, const std::string& arg,
                                          const VideoFormat& format) {
    const FeatureRequest r = parse_feature_request(arg);
    for (const FeatureDef* d : defs)
        if (r.name == d->name) return make_feature(*d, format, r.options);
    throw std::runtime_error("no feature named " + r.name);
}

FeatureSet feature_set(const std::vector<const FeatureDef*>& defs, const std::vector<std::string>& args,
                       const VideoFormat& format) {
    FeatureSet s;
    for (const std::string& a : args) {
        s.owned.push_back(feature_from_arg(defs, a, format));
        s.list.push_back(s.owned.back().get());
    }
    s.raw_stride = RawLayout(s.list).stride;
    return s;
}

std::vector<CpuTarget> host_targets(Dispatch d) {
    std::vector<CpuTarget> t{{Isa::c, d}};
    const CpuFlags f = detect_cpu_flags();
    if (f.avx2) t.push_back({Isa::avx2, d});
    if (f.avx512) t.push_back({Isa::avx512, d});
    return t;
}

std::vector<CpuTarget> golden_targets(Dispatch d, long long turn) {
    std::vector<CpuTarget> all = host_targets(d);
    if (!sanitizer_build()) return all;
    // the three files of a run (its dispatches) share a target (one run
    // where the kernel ignores the dispatch), and the next three take the
    // next one, so that every target meets every dispatch
    return {all[static_cast<size_t>(sanitizer_turn(turn, static_cast<long long>(all.size())))]};
}

long long sanitizer_turn(long long turn, long long n) { return (turn / 3) % n; }

const char* golden_skip_in_sanitizer_build() {
    if (!sanitizer_build()) return nullptr;
    const char* all = std::getenv("SPEEDQA_SANITIZER_GOLDEN");
    if (all && std::string_view(all) == "1") return nullptr;
    return "sanitizer build: the comparison with libvmaf's golden files runs in the release build "
           "(SPEEDQA_SANITIZER_GOLDEN=1 runs it here too)";
}

size_t golden_frames(size_t clip_frames) {
    return sanitizer_build() ? std::min(clip_frames, kSanitizerFrames) : clip_frames;
}

void print_golden_targets_note(const char* what) {
    if (sanitizer_build())
        std::printf("[golden] %s: sanitizer build: each golden file with one of the host's %zu kernel targets, in "
                    "turn (the release build compares every target)\n",
                    what, host_targets(Dispatch::scalar).size());
}

std::vector<Picture> first_golden_frames(std::vector<Picture> pictures) {
    pictures.resize(golden_frames(pictures.size()));
    return pictures;
}

void print_golden_frames_note(const char* what) {
    if (sanitizer_build())
        std::printf("[golden] %s: sanitizer build: the first %zu frames of each clip (the release build compares "
                    "every frame)\n",
                    what, kSanitizerFrames);
}

const char* isa_name(Isa isa) {
    switch (isa) {
    case Isa::c: return "c";
    case Isa::avx2: return "avx2";
    default: return "avx512";
    }
}

}  // namespace speedqa::testing

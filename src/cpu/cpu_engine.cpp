#include "cpu/cpu_engine.hpp"

#include <algorithm>

namespace speedqa::cpu {
namespace {

const char* isa_text(Isa isa) {
    switch (isa) {
    case Isa::c: return "C kernels";
    case Isa::avx2: return "AVX2 kernels";
    default: return "AVX-512 kernels";
    }
}

}  // namespace

CpuEngine::CpuEngine(std::vector<const Feature*> features, const CpuTarget& target, int threads)
    : features_(std::move(features)), target_(target), layout_(features_), pool_(std::max(1, threads)) {
    for (const Feature* f : features_) kernels_.push_back(f->make_cpu_kernel(target_));
    scratch_.resize(static_cast<size_t>(pool_.size()));
    for (auto& worker : scratch_)
        for (const auto& k : kernels_) worker.push_back(k->make_scratch());
}

CpuEngine::~CpuEngine() = default;

std::string CpuEngine::describe() const {
    const int n = pool_.size();
    return std::string("cpu ") + (target_.straightforward ? "straightforward reference path " : "") + "(" +
           std::to_string(n) + " thread" + (n > 1 ? "s" : "") + ", " + isa_text(target_.isa) + ", libvmaf's " +
           dispatch_name(target_.dispatch) + " dispatch)";
}

std::vector<std::string> CpuEngine::notes() const {
    std::vector<std::string> out;
    for (const auto& k : kernels_)
        for (std::string& n : k->notes()) out.push_back(std::move(n));
    return out;
}

void CpuEngine::score(const FrameBatch& batch, double* out) {
    check_history(batch, features_);
    const int nf = static_cast<int>(features_.size());
    // items: frame-major, so that a frame's features run close together
    pool_.parallel_for(batch.count * nf, [&](int worker, int item) {
        const int k = item / nf, f = item % nf;
        const FrameView v = batch.view(k, features_[static_cast<size_t>(f)]->history());
        kernels_[static_cast<size_t>(f)]->extract(*scratch_[static_cast<size_t>(worker)][static_cast<size_t>(f)], v,
                                                  out + static_cast<size_t>(k) * layout_.stride + layout_.offset[static_cast<size_t>(f)]);
    });
}

}  // namespace speedqa::cpu

#include "api/frame_assembler.hpp"

#include <stdexcept>

namespace speedqa {

FrameAssembler::FrameAssembler(const std::vector<const Feature*>& features, std::vector<const ColumnModel*> models)
    : features_(features), models_(std::move(models)), layout_(features) {
    column_.resize(features_.size());
    for (int pass = 0; pass < 2; pass++)  // outputs written per frame, then the deferred ones
        for (size_t f = 0; f < features_.size(); f++) {
            const auto& outs = features_[f]->outputs();
            column_[f].resize(outs.size(), -1);
            for (size_t o = 0; o < outs.size(); o++)
                if (outs[o].deferred == (pass == 1)) {
                    column_[f][o] = static_cast<int>(names_.size());
                    names_.push_back(outs[o].name);
                }
        }
    feature_columns_ = static_cast<int>(names_.size());
    for (const ColumnModel* m : models_) names_.push_back(m->name());
    for (const Feature* f : features_) sequencers_.push_back(f->make_sequencer());
}

void FrameAssembler::emit(size_t feature, long long index, const double* outputs, std::vector<FrameScores>& done) {
    const long long at = index - first_pending_;
    if (at < 0 || at >= static_cast<long long>(pending_.size()))
        throw std::logic_error(features_[feature]->name() + ": its sequencer emitted frame " + std::to_string(index) +
                               " out of order");
    Pending& p = pending_[static_cast<size_t>(at)];
    const auto& cols = column_[feature];
    for (size_t o = 0; o < cols.size(); o++) p.values[static_cast<size_t>(cols[o])] = outputs[o];
    p.features_done++;
    while (!pending_.empty() && pending_.front().features_done == static_cast<int>(features_.size())) {
        Pending& front = pending_.front();
        for (size_t m = 0; m < models_.size(); m++) {
            const ColumnModel& model = *models_[m];
            inputs_.resize(model.input_columns.size());
            for (size_t i = 0; i < inputs_.size(); i++) inputs_[i] = front.values[static_cast<size_t>(model.input_columns[i])];
            front.values[static_cast<size_t>(feature_columns_) + m] = model.predict(inputs_.data());
        }
        done.push_back({first_pending_, std::move(front.values)});
        pending_.pop_front();
        first_pending_++;
    }
}

void FrameAssembler::push(long long index, const double* raw, std::vector<FrameScores>& done) {
    if (index != first_pending_ + static_cast<long long>(pending_.size()))
        throw std::logic_error("frames must reach the assembler in order");
    pending_.push_back({std::vector<double>(names_.size(), 0.0), 0});
    for (size_t f = 0; f < features_.size(); f++)
        sequencers_[f]->push(index, raw + layout_.offset[f],
                             [&](long long i, const double* outputs) { emit(f, i, outputs, done); });
}

void FrameAssembler::finish(std::vector<FrameScores>& done) {
    for (size_t f = 0; f < features_.size(); f++)
        sequencers_[f]->finish([&](long long i, const double* outputs) { emit(f, i, outputs, done); });
    if (!pending_.empty()) throw std::logic_error("a feature's sequencer held frames back after the end of the clip");
}

}  // namespace speedqa

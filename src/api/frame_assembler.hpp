// From each frame's raw feature values to its row of printed values: every
// feature's sequencer (frames in order), libvmaf's column order, then each
// model's prediction from the finished values. Engines fill the raw values
// (many frames at once, in any engine); this runs on the host, frames in
// order.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "core/engine.hpp"
#include "speedqa/speedqa.hpp"

namespace speedqa {

// A model as the assembler sees it: its column name, and a prediction from
// the values of some columns.
class ColumnModel {
public:
    virtual ~ColumnModel() = default;
    virtual const std::string& name() const = 0;
    // Called from one thread at a time; `inputs` in the order of input_columns.
    virtual double predict(const double* inputs) const = 0;
    std::vector<int> input_columns;  // set by the caller: indices into the feature columns
};

class FrameAssembler {
public:
    // Features in libvmaf's registration order; models after them.
    FrameAssembler(const std::vector<const Feature*>& features, std::vector<const ColumnModel*> models);

    // libvmaf's order: every feature's outputs written per frame (feature by
    // feature), then those it writes at the end of the clip (motion2,
    // motion3), then the models' scores.
    const std::vector<std::string>& columns() const { return names_; }
    // The column of output `output` of feature `feature`.
    int column_of(int feature, int output) const { return column_[static_cast<size_t>(feature)][static_cast<size_t>(output)]; }

    // Frame `index`'s raw values (RawLayout of the features); frames in order.
    void push(long long index, const double* raw, std::vector<FrameScores>& done);
    // End of the clip.
    void finish(std::vector<FrameScores>& done);

private:
    struct Pending {
        std::vector<double> values;
        int features_done = 0;
    };
    void emit(size_t feature, long long index, const double* outputs, std::vector<FrameScores>& done);

    std::vector<const Feature*> features_;
    std::vector<const ColumnModel*> models_;
    RawLayout layout_;
    std::vector<std::unique_ptr<Sequencer>> sequencers_;
    std::vector<std::vector<int>> column_;  // [feature][output] -> column
    std::vector<std::string> names_;
    int feature_columns_ = 0;
    std::deque<Pending> pending_;  // frames first_pending_, first_pending_ + 1, ...
    long long first_pending_ = 0;
    std::vector<double> inputs_;
};

}  // namespace speedqa

#include "core/feature.hpp"

#include <algorithm>
#include <iterator>

namespace speedqa {
namespace {

class Passthrough final : public Sequencer {
public:
    void push(long long index, const double* raw, const EmitFn& emit) override { emit(index, raw); }
    void finish(const EmitFn&) override {}
};

}  // namespace

const char* dispatch_name(Dispatch d) {
    switch (d) {
    case Dispatch::scalar: return "scalar";
    case Dispatch::avx2: return "avx2";
    default: return "avx512";
    }
}

std::unique_ptr<Sequencer> Feature::make_sequencer() const { return std::make_unique<Passthrough>(); }

RowSet RowSet::only(std::vector<int> rows) {
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    RowSet r;
    r.all = false;
    r.rows = std::move(rows);
    return r;
}

void RowSet::add(const RowSet& o) {
    if (all) return;
    if (o.all) {
        all = true;
        rows.clear();
        return;
    }
    std::vector<int> u;
    std::set_union(rows.begin(), rows.end(), o.rows.begin(), o.rows.end(), std::back_inserter(u));
    rows = std::move(u);
}

int InputNeeds::history() const {
    for (int d = kMaxDistance; d > 0; d--)
        if (planes[d][0] | planes[d][1]) return d;
    return 0;
}

void InputNeeds::add(const InputNeeds& o) {
    // a plane no one read so far takes the other's rows as they are
    unsigned read = 0, read_o = 0;
    for (int d = 0; d <= kMaxDistance; d++)
        for (int s = 0; s < 2; s++) {
            read |= planes[d][s];
            read_o |= o.planes[d][s];
            planes[d][s] |= o.planes[d][s];
        }
    for (int p = 0; p < 3; p++) {
        if (!((read_o >> p) & 1u)) continue;
        if ((read >> p) & 1u) rows[p].add(o.rows[p]);
        else rows[p] = o.rows[p];
    }
}

InputNeeds Feature::input_needs() const {
    InputNeeds n;
    const PlanesRead r = planes_read();
    n.planes[0][0] = r.ref;
    n.planes[0][1] = r.dis;
    for (int d = 1; d <= history() && d <= InputNeeds::kMaxDistance; d++) {
        n.planes[d][0] = r.prev_ref;
        n.planes[d][1] = r.prev_dis;
    }
    return n;
}

std::vector<FeatureOutput> Feature::outputs_for(const std::vector<std::string>& provided, const OptionValues& options,
                                                bool deferred) {
    std::vector<FeatureOutput> out;
    for (const std::string& p : provided) out.push_back({p, vmaf_metric_name(p, options), deferred});
    return out;
}

std::unique_ptr<Feature> make_feature(const FeatureDef& def, const VideoFormat& format,
                                      const std::vector<std::pair<std::string, std::string>>& options) {
    OptionValues values(def.name, def.options);
    for (const auto& [key, text] : options) values.set(key, text);
    return def.create(format, values);
}

}  // namespace speedqa

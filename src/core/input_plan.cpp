#include "core/input_plan.hpp"

#include <stdexcept>
#include <string>

namespace speedqa {
namespace {

constexpr size_t kAlign = 256;
size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

std::vector<RowGroup> row_groups(const std::vector<int>& rows) {
    std::vector<std::pair<int, int>> runs;  // (first row, length)
    for (size_t i = 0; i < rows.size();) {
        size_t j = i + 1;
        while (j < rows.size() && rows[j] == rows[j - 1] + 1) j++;
        runs.emplace_back(rows[i], static_cast<int>(j - i));
        i = j;
    }
    std::vector<RowGroup> groups;
    size_t dst = 0;
    for (size_t i = 0; i < runs.size();) {
        RowGroup g;
        g.first_row = runs[i].first;
        g.run_len = runs[i].second;
        g.n_runs = 1;
        g.dst_row = dst;
        size_t j = i + 1;
        if (j < runs.size() && runs[j].second == g.run_len) {
            g.spacing = runs[j].first - runs[i].first;
            while (j < runs.size() && runs[j].second == g.run_len && runs[j].first - runs[j - 1].first == g.spacing) {
                g.n_runs++;
                j++;
            }
        } else {
            g.spacing = g.run_len;
        }
        dst += static_cast<size_t>(g.run_len) * static_cast<size_t>(g.n_runs);
        groups.push_back(g);
        i = j;
    }
    return groups;
}

}  // namespace

InputNeeds input_needs_of(const std::vector<const Feature*>& features) {
    InputNeeds n;
    for (const Feature* f : features) n.add(f->input_needs());
    return n;
}

size_t InputPlan::bytes_per_frame() const {
    size_t bytes = 0;
    for (int side = 0; side < 2; side++)
        for (int p = 0; p < 3; p++)
            if ((staged[0][side] >> p) & 1u) bytes += rows[p].size() * static_cast<size_t>(layout.row_bytes[p]);
    return bytes;
}

InputPlan make_input_plan(const VideoFormat& format, const InputNeeds& needs) {
    InputPlan u;
    InputLayout& L = u.layout;
    L.bitdepth = format.bitdepth;
    L.history = needs.history();
    // which planes of which side each kind of position holds: the batch's own
    // frames are read at every distance; the history position e before the
    // first at the distances e and beyond
    for (int d = 0; d <= InputNeeds::kMaxDistance; d++)
        for (int side = 0; side < 2; side++) {
            const unsigned p = needs.planes[d][side] & (format.plane_count() == 1 ? 1u : 7u);
            u.staged[0][side] |= p;
            for (int e = 1; e <= d; e++) u.staged[e][side] |= p;
        }
    for (int p = 0; p < 3; p++) {
        for (int side = 0; side < 2; side++) u.plane_used[p] = u.plane_used[p] || ((u.staged[0][side] >> p) & 1u);
        if (!u.plane_used[p]) continue;
        const int h = format.feature_h(p);
        L.width[p] = format.feature_w(p);
        L.height[p] = h;
        L.row_bytes[p] = format.feature_w(p) * format.bytes_per_sample();
        if (needs.rows[p].all) {
            u.rows[p].resize(static_cast<size_t>(h));
            for (int y = 0; y < h; y++) u.rows[p][static_cast<size_t>(y)] = y;
        } else {
            for (int y : needs.rows[p].rows)
                if (y < 0 || y >= h) throw std::logic_error("input plan: row " + std::to_string(y) + " outside plane " + std::to_string(p));
            u.rows[p] = needs.rows[p].rows;
        }
        u.whole[p] = static_cast<int>(u.rows[p].size()) == h;
        u.row_index[p].assign(static_cast<size_t>(h), -1);
        for (size_t i = 0; i < u.rows[p].size(); i++) u.row_index[p][static_cast<size_t>(u.rows[p][i])] = static_cast<int>(i);
        u.groups[p] = row_groups(u.rows[p]);
        for (const RowGroup& g : u.groups[p]) u.multi_row_runs[p] = u.multi_row_runs[p] || g.run_len > 1;
    }
    size_t off = 0;
    for (int side = 0; side < 2; side++)
        for (int p = 0; p < 3; p++) {
            if (!((u.staged[0][side] >> p) & 1u)) continue;
            L.plane_offset[side][p] = static_cast<long long>(off);
            off = align_up(off + u.rows[p].size() * static_cast<size_t>(L.row_bytes[p]));
        }
    L.frame_bytes = align_up(off);
    return u;
}

}  // namespace speedqa

// Score files read back for plotting: the JSON, XML and CSV that speedqa and
// libvmaf's vmaf command write (--json, --xml, --csv), recognised by content.
#pragma once

#include <string>
#include <vector>

#include "io/pooling.hpp"

namespace speedqa::plot {

struct MetricScores {
    std::string name;
    std::vector<double> values;  // one per frame of ScoreFile::frame_nums; NaN where the file has null
    io::Pooled pooled;           // the file's pooled values; pooled here from `values` where it has none (CSV)
};

struct ScoreFile {
    std::string path;
    std::vector<long long> frame_nums;  // ascending (fewer than the clip's under --subsample)
    std::vector<MetricScores> metrics;  // in the file's order

    const MetricScores* find(const std::string& metric) const;
};

// Throws speedqa::Error, one line naming the file, on anything it cannot use.
ScoreFile read_score_file(const std::string& path);
// The same from text already in memory (`name` names it in errors).
ScoreFile parse_score_text(const std::string& text, const std::string& name);

}  // namespace speedqa::plot

#include "plot/chart.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <set>

#include "core/error.hpp"

namespace speedqa::plot {
namespace {

constexpr double kMargin = 16;
constexpr double kTitleSize = 18, kLegendSize = 13, kHeaderSize = 13, kTickSize = 11, kTableSize = 11.5;
constexpr double kLegendRow = 22, kSwatch = 22;
constexpr double kPlotHeight = 120;  // at least; more when the table beside it needs it
constexpr double kTableRow = 16;
constexpr double kPanelGap = 18, kColumnGap = 40;

const Color kText{0x22, 0x22, 0x22}, kMuted{0x66, 0x66, 0x66}, kGrid{0xe4, 0xe4, 0xe4}, kAxis{0x99, 0x99, 0x99},
    kWhite{0xff, 0xff, 0xff};

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

std::string base_name(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The files' names, or their paths where two names agree.
std::vector<std::string> default_labels(const std::vector<ScoreFile>& files) {
    std::vector<std::string> out;
    std::set<std::string> seen, twice;
    for (const ScoreFile& f : files)
        if (!seen.insert(base_name(f.path)).second) twice.insert(base_name(f.path));
    for (const ScoreFile& f : files) out.push_back(twice.count(base_name(f.path)) ? f.path : base_name(f.path));
    return out;
}

// Every metric of the files, first seen first, models' scores (vmaf...) ahead.
std::vector<std::string> all_metrics(const std::vector<ScoreFile>& files) {
    std::vector<std::string> out;
    for (const ScoreFile& f : files)
        for (const MetricScores& m : f.metrics)
            if (std::find(out.begin(), out.end(), m.name) == out.end()) out.push_back(m.name);
    std::stable_partition(out.begin(), out.end(), [](const std::string& m) { return starts_with(m, "vmaf"); });
    return out;
}

// Positions of the `count` worst finite values, worst first (earlier frames
// first among equals), leaving out frames within `tolerance` of the best one
// (on a flat curve no frame is worse than another).
std::vector<size_t> worst_frames(const std::vector<double>& v, Worse worse, int count, double tolerance) {
    std::vector<size_t> idx;
    if (worse == Worse::neither || count <= 0) return idx;
    const auto worse_than = [&](size_t a, size_t b) {
        if (v[a] != v[b]) return worse == Worse::lower ? v[a] < v[b] : v[a] > v[b];
        return a < b;
    };
    for (size_t i = 0; i < v.size(); i++)
        if (std::isfinite(v[i])) idx.push_back(i);
    if (idx.empty()) return idx;
    const size_t best = *std::max_element(idx.begin(), idx.end(), worse_than);
    std::erase_if(idx, [&](size_t i) { return std::abs(v[i] - v[best]) <= tolerance; });
    const size_t n = std::min(idx.size(), static_cast<size_t>(count));
    std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(n), idx.end(), worse_than);
    idx.resize(n);
    return idx;
}

std::string frame_text(long long n) { return std::to_string(n); }

std::string frame_count_text(size_t n) {
    std::string s = "(";  // (appends: GCC 12 warns falsely on "(" + std::string)
    s += std::to_string(n);
    s += " frames)";
    return s;
}

}  // namespace

Worse worse_direction(const std::string& metric) {
    if (metric.find("motion") != std::string::npos) return Worse::neither;
    // cambi: banding; SpEED-QA: entropy differences; aim: ADM's additive impairment
    if (starts_with(metric, "cambi") || starts_with(metric, "speed_") || starts_with(metric, "integer_aim") ||
        metric.find("_aim_") != std::string::npos)
        return Worse::higher;
    return Worse::lower;
}

Color Chart::color(size_t file) {
    // Okabe and Ito's colour-blind-safe palette (without its yellow, too pale on white)
    static const Color kPalette[] = {{0x00, 0x72, 0xb2}, {0xd5, 0x5e, 0x00}, {0x00, 0x9e, 0x73}, {0xcc, 0x79, 0xa7},
                                     {0xe6, 0x9f, 0x00}, {0x56, 0xb4, 0xe9}, {0x00, 0x00, 0x00}};
    return kPalette[file % std::size(kPalette)];
}

Chart::Chart(const std::vector<ScoreFile>& files, const ChartOptions& options) : files_(files), options_(options) {
    if (files.empty()) throw Error("no score files to plot");
    labels_ = options.labels.empty() ? default_labels(files) : options.labels;
    if (labels_.size() != files.size())
        throw Error(std::to_string(labels_.size()) + " labels for " + std::to_string(files.size()) + " score files");
    title_ = !options.title.empty() ? options.title
             : files.size() == 1    ? "Scores per frame: " + labels_[0]
                                    : "Scores per frame: " + std::to_string(files.size()) + " files";
    const std::vector<std::string> known = all_metrics(files);
    metrics_ = options.metrics.empty() ? known : options.metrics;
    for (const std::string& m : metrics_)
        if (std::find(known.begin(), known.end(), m) == known.end()) {
            std::string list;
            for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
            throw Error("no score file has the metric \"" + m + "\" (they have " + list + ")");
        }
    if (options_.columns <= 0) options_.columns = metrics_.size() <= 4 ? 1 : 2;
    options_.columns = std::min<int>(options_.columns, static_cast<int>(metrics_.size()));
    width_ = options.width > 0 ? options.width : options_.columns == 1 ? 1100 : 1600;
    layout_legend();
    layout_panels();
}

void Chart::layout_legend() {
    double x = kMargin, y = kMargin + kTitleSize + 14 + kLegendSize;
    for (size_t i = 0; i < files_.size(); i++) {
        const double w = kSwatch + 6 + text_width(labels_[i], kLegendSize) + 5 +
                         text_width(frame_count_text(files_[i].frame_nums.size()), kLegendSize - 1) + 20;
        if (x > kMargin && x + w > width_ - kMargin) {
            x = kMargin;
            y += kLegendRow;
        }
        legend_at_.push_back({x, y});
        x += w;
    }
    legend_bottom_ = y + 10;
}

void Chart::layout_panels() {
    first_frame_ = static_cast<double>(files_[0].frame_nums.front());
    last_frame_ = static_cast<double>(files_[0].frame_nums.back());
    for (const ScoreFile& f : files_) {
        first_frame_ = std::min(first_frame_, static_cast<double>(f.frame_nums.front()));
        last_frame_ = std::max(last_frame_, static_cast<double>(f.frame_nums.back()));
    }
    // each panel's value axis, series and worst frames; the widest texts set
    // the columns, the same in every panel so that panels line up
    double tick_w = 0, mean_w = text_width("mean", kTableSize), worst_w = text_width("worst", kTableSize),
           frame_w = text_width("frame", kTableSize);
    for (const std::string& metric : metrics_) {
        Panel p;
        p.metric = metric;
        p.worse = worse_direction(metric);
        double lo = INFINITY, hi = -INFINITY;
        for (const ScoreFile& f : files_)
            if (const MetricScores* m = f.find(metric))
                for (double v : m->values)
                    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
        p.y = nice_axis(lo, hi, 5);
        for (size_t i = 0; i < files_.size(); i++) {
            Series s;
            s.file = i;
            s.scores = files_[i].find(metric);
            if (s.scores) {
                // differences under a thousandth of the axis do not show, nor make a frame the worst
                s.worst = worst_frames(s.scores->values, p.worse, options_.worst, (p.y.hi - p.y.lo) * 1e-3);
                s.worst_value = p.worse == Worse::higher ? s.scores->pooled.max : s.scores->pooled.min;
                if (!s.worst.empty()) s.worst_value = s.scores->values[s.worst[0]];
            }
            p.series.push_back(std::move(s));
        }
        for (double t : p.y.ticks) tick_w = std::max(tick_w, text_width(format_fixed(t, p.y.decimals), kTickSize));
        for (const Series& s : p.series) {
            if (!s.scores) continue;
            mean_w = std::max(mean_w, text_width(format_value(s.scores->pooled.mean, p.y), kTableSize));
            worst_w = std::max(worst_w, text_width(format_value(s.worst_value, p.y), kTableSize));
            if (!s.worst.empty())
                frame_w = std::max(frame_w, text_width(frame_text(files_[s.file].frame_nums[s.worst[0]]), kTableSize));
        }
        panels_.push_back(std::move(p));
    }
    // a grid of cells: tick labels | plot | swatch, mean, worst, frame
    const int columns = options_.columns;
    const double cell = (width_ - 2 * kMargin - kColumnGap * (columns - 1)) / columns;
    const double table_w = 10 + 12 + mean_w + 14 + worst_w + 14 + frame_w;
    const double plot_h = std::max(kPlotHeight, kTableRow * static_cast<double>(files_.size() + 1) + 4);
    const double row_h = kHeaderSize + 9 + plot_h + kTickSize + 8 + kPanelGap;
    const size_t rows = (panels_.size() + columns - 1) / columns;
    for (size_t i = 0; i < panels_.size(); i++) {
        Panel& p = panels_[i];
        const double left = kMargin + static_cast<double>(i % columns) * (cell + kColumnGap);
        p.top = legend_bottom_ + 8 + static_cast<double>(i / columns) * row_h;
        p.plot_top = p.top + kHeaderSize + 9;
        p.plot_bottom = p.plot_top + plot_h;
        p.plot_left = left + tick_w + 8;
        p.col_frame = left + cell;
        p.col_worst = p.col_frame - frame_w - 14;
        p.col_mean = p.col_worst - worst_w - 14;
        p.table_left = left + cell - table_w;
        p.plot_right = p.table_left - 22;
        p.bottom_row = i / columns == rows - 1 || i + columns >= panels_.size();
    }
    const double plot_w = panels_[0].plot_right - panels_[0].plot_left;
    x_ = nice_axis(first_frame_, last_frame_, std::max(2, static_cast<int>(plot_w / 90)), true);
    std::erase_if(x_.ticks, [&](double t) { return t < first_frame_ || t > last_frame_; });
    height_ = legend_bottom_ + 8 + static_cast<double>(rows) * row_h - kPanelGap + kTickSize + kMargin;
}

double Chart::plot_x(const Panel& p, double frame) const {
    const double at = last_frame_ > first_frame_ ? (frame - first_frame_) / (last_frame_ - first_frame_) : 0.5;
    return p.plot_left + at * (p.plot_right - p.plot_left);
}

void Chart::draw(Canvas& c) const {
    c.rect(0, 0, width_, height_, kWhite);
    c.text({kMargin, kMargin + kTitleSize}, title_, {kTitleSize, kText, Anchor::start, true});
    draw_legend(c);
    for (const Panel& p : panels_) draw_panel(c, p);
}

void Chart::draw_legend(Canvas& c) const {
    c.begin_group({{"class", "legend"}});
    for (size_t i = 0; i < files_.size(); i++) {
        const Point at = legend_at_[i];
        c.begin_group({{"class", "legend-entry"}, {"data-file", std::to_string(i)}});
        c.tooltip(files_[i].path);
        c.line({at.x, at.y - 4.5}, {at.x + kSwatch, at.y - 4.5}, {color(i), 3, false, 1});
        c.text({at.x + kSwatch + 6, at.y}, labels_[i], {kLegendSize, kText, Anchor::start, false});
        // (SVG drops a text's leading space: the gap is in x)
        c.text({at.x + kSwatch + 6 + text_width(labels_[i], kLegendSize) + 5, at.y},
               frame_count_text(files_[i].frame_nums.size()), {kLegendSize - 1, kMuted, Anchor::start, false});
        c.end_group();
    }
    c.end_group();
}

namespace {

// The points of a curve, split where values are missing. Where frames
// outnumber pixels, each pixel column keeps its first, lowest, highest and
// last point, which draws the same picture (worst frames stay visible).
std::vector<std::vector<Point>> curve_runs(const std::vector<long long>& frames, const std::vector<double>& values,
                                           const std::function<double(double)>& to_x, const std::function<double(double)>& to_y) {
    std::vector<std::vector<Point>> runs(1);
    std::vector<Point> column;  // the points falling in the current pixel column
    long long pixel = LLONG_MIN;
    const auto flush_column = [&] {
        if (column.empty()) return;
        auto lo = std::min_element(column.begin(), column.end(), [](Point a, Point b) { return a.y > b.y; });
        auto hi = std::min_element(column.begin(), column.end(), [](Point a, Point b) { return a.y < b.y; });
        std::vector<Point>& run = runs.back();
        run.push_back(column.front());
        if (lo < hi) run.push_back(*lo), run.push_back(*hi);
        else if (hi < lo) run.push_back(*hi), run.push_back(*lo);
        if (column.size() > 1) run.push_back(column.back());
        column.clear();
    };
    for (size_t i = 0; i < frames.size(); i++) {
        if (!std::isfinite(values[i])) {
            flush_column();
            if (!runs.back().empty()) runs.emplace_back();
            continue;
        }
        const Point p{to_x(static_cast<double>(frames[i])), to_y(values[i])};
        const long long px = static_cast<long long>(std::floor(p.x));
        if (px != pixel) flush_column();
        pixel = px;
        column.push_back(p);
    }
    flush_column();
    if (runs.back().empty()) runs.pop_back();
    return runs;
}

}  // namespace

void Chart::draw_panel(Canvas& c, const Panel& p) const {
    const auto to_y = [&](double v) {
        const double at = (std::clamp(v, p.y.lo, p.y.hi) - p.y.lo) / (p.y.hi - p.y.lo);
        return p.plot_bottom - at * (p.plot_bottom - p.plot_top);
    };
    const auto to_x = [&](double f) { return plot_x(p, f); };
    c.begin_group({{"class", "panel"}, {"data-metric", p.metric}});
    c.text({p.plot_left, p.top + kHeaderSize}, p.metric, {kHeaderSize, kText, Anchor::start, true});
    if (p.worse != Worse::neither)
        c.text({p.plot_right, p.top + kHeaderSize}, p.worse == Worse::lower ? "lower is worse" : "higher is worse",
               {kTickSize, kMuted, Anchor::end, false});

    c.begin_group({{"class", "axis y"}});
    for (double t : p.y.ticks) {
        c.line({p.plot_left, to_y(t)}, {p.plot_right, to_y(t)}, {kGrid, 1, false, 1});
        c.text({p.plot_left - 6, to_y(t) + 4}, format_fixed(t, p.y.decimals), {kTickSize, kMuted, Anchor::end, false});
    }
    c.end_group();
    c.begin_group({{"class", "axis x"}});
    for (double t : x_.ticks) {
        c.line({to_x(t), p.plot_bottom}, {to_x(t), p.plot_bottom + 4}, {kAxis, 1, false, 1});
        c.text({to_x(t), p.plot_bottom + 5 + kTickSize}, format_fixed(t, 0), {kTickSize, kMuted, Anchor::middle, false});
    }
    c.line({p.plot_left, p.plot_bottom}, {p.plot_right, p.plot_bottom}, {kAxis, 1, false, 1});
    if (p.bottom_row)
        c.text({p.plot_right, p.plot_bottom + 5 + 2 * kTickSize + 4}, "frame", {kTickSize, kMuted, Anchor::end, false});
    c.end_group();

    for (const Series& s : p.series)
        if (s.scores && std::isfinite(s.scores->pooled.mean)) {
            const double y = to_y(s.scores->pooled.mean);
            c.begin_group({{"class", "mean"}, {"data-file", std::to_string(s.file)}});
            c.tooltip(labels_[s.file] + ": pooled mean " + format_value(s.scores->pooled.mean, p.y));
            c.line({p.plot_left, y}, {p.plot_right, y}, {color(s.file), 1, true, 0.7});
            c.end_group();
        }
    for (const Series& s : p.series)
        if (s.scores) {
            c.begin_group({{"class", "curve"}, {"data-file", std::to_string(s.file)}});
            c.tooltip(labels_[s.file]);
            c.path(curve_runs(files_[s.file].frame_nums, s.scores->values, to_x, to_y), {color(s.file), 1.5, s.file >= 7, 1});
            c.end_group();
        }
    for (const Series& s : p.series)
        for (size_t k = 0; k < s.worst.size(); k++) {
            const size_t i = s.worst[k];
            const double frame = static_cast<double>(files_[s.file].frame_nums[i]);
            c.begin_group({{"class", "worst"}, {"data-file", std::to_string(s.file)}, {"data-frame", frame_text(files_[s.file].frame_nums[i])}});
            c.tooltip(labels_[s.file] + ": frame " + frame_text(files_[s.file].frame_nums[i]) + ", " + p.metric + " " +
                      format_value(s.scores->values[i], p.y) + (k == 0 ? " (the worst)" : ""));
            c.circle({to_x(frame), to_y(s.scores->values[i])}, k == 0 ? 4 : 3, color(s.file), {kWhite, 1.2, false, 1});
            c.end_group();
        }
    draw_side_table(c, p);
    c.end_group();
}

// Beside the panel: each file's pooled mean and its worst frame.
void Chart::draw_side_table(Canvas& c, const Panel& p) const {
    c.begin_group({{"class", "pooled"}});
    const Font head{kTableSize, kMuted, Anchor::end, false};
    double y = p.plot_top + kTableSize;
    c.text({p.col_mean, y}, "mean", head);
    if (p.worse != Worse::neither) {
        c.text({p.col_worst, y}, "worst", head);
        c.text({p.col_frame, y}, "frame", head);
    }
    for (const Series& s : p.series) {
        y += kTableRow;
        const Font f{kTableSize, color(s.file), Anchor::end, false};
        c.line({p.table_left, y - 4}, {p.table_left + 10, y - 4}, {color(s.file), 3, false, 1});
        if (!s.scores) {
            c.text({p.col_mean, y}, "-", f);
            continue;
        }
        c.text({p.col_mean, y}, format_value(s.scores->pooled.mean, p.y), f);
        if (p.worse != Worse::neither) {
            c.text({p.col_worst, y}, format_value(s.worst_value, p.y), f);
            // a flat curve has no worst frame
            c.text({p.col_frame, y}, s.worst.empty() ? "-" : frame_text(files_[s.file].frame_nums[s.worst[0]]), f);
        }
    }
    c.end_group();
}

}  // namespace speedqa::plot

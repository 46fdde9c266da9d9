// A chart of score files: one panel per metric (small multiples over one
// frame axis), each file a curve in its colour with its pooled mean as a
// dashed line and its worst frames marked, and beside each panel every file's
// mean and worst value. Laid out once, drawn on any Canvas.
#pragma once

#include <string>
#include <vector>

#include "plot/canvas.hpp"
#include "plot/score_file.hpp"
#include "plot/ticks.hpp"

namespace speedqa::plot {

struct ChartOptions {
    std::string title;                 // "": from the files
    std::vector<std::string> metrics;  // shown, in this order; empty: every metric, models (vmaf...) first
    std::vector<std::string> labels;   // one per file; empty: the file names
    int worst = 3;                     // worst frames marked per curve
    int columns = 0;                   // panels side by side; 0: one up to 4 metrics, else two
    double width = 0;                  // pixels; 0: 1100 a column, 1600 for two or more
};

// Which way a metric gets worse: quality scores (vmaf, adm, vif, psnr, ...)
// go down, distortion measures (cambi, SpEED-QA) go up, and motion measures
// the content, not its quality.
enum class Worse { lower, higher, neither };
Worse worse_direction(const std::string& metric);

struct Series {
    size_t file = 0;
    const MetricScores* scores = nullptr;  // null: this file has no such metric
    // Positions in the file's frames, worst first; only frames worse than the
    // file's best (a flat curve has none).
    std::vector<size_t> worst;
    double worst_value = 0;  // the worst value (NaN: none finite)
};

// Where a panel lies: its header at `top`, the plot inside [plot_left,
// plot_right] x [plot_top, plot_bottom], tick labels left of it, the table of
// pooled values right of it (each column's right edge).
struct Panel {
    std::string metric;
    Worse worse = Worse::lower;
    Axis y;
    std::vector<Series> series;  // one per file
    double top = 0, plot_top = 0, plot_bottom = 0;
    double plot_left = 0, plot_right = 0, table_left = 0, col_mean = 0, col_worst = 0, col_frame = 0;
    bool bottom_row = false;
};

class Chart {
public:
    // Throws Error for a metric no file has, or labels that do not match the files.
    Chart(const std::vector<ScoreFile>& files, const ChartOptions& options);

    double width() const { return width_; }
    double height() const { return height_; }
    const std::string& title() const { return title_; }
    const std::vector<std::string>& labels() const { return labels_; }
    const std::vector<Panel>& panels() const { return panels_; }
    const std::vector<ScoreFile>& files() const { return files_; }
    static Color color(size_t file);

    void draw(Canvas& c) const;

private:
    void layout_legend();
    void layout_panels();
    double plot_x(const Panel& p, double frame) const;
    void draw_legend(Canvas& c) const;
    void draw_panel(Canvas& c, const Panel& p) const;
    void draw_side_table(Canvas& c, const Panel& p) const;

    const std::vector<ScoreFile>& files_;
    ChartOptions options_;
    std::string title_;
    std::vector<std::string> labels_;
    std::vector<std::string> metrics_;
    double width_ = 0, height_ = 0;
    // the legend's entries, placed in rows
    std::vector<Point> legend_at_;
    double legend_bottom_ = 0;
    Axis x_;  // frames
    double first_frame_ = 0, last_frame_ = 0;
    std::vector<Panel> panels_;
};

}  // namespace speedqa::plot

// Writing scores in the layouts of libvmaf's output.c (XML, JSON, CSV, SUB),
// byte for byte at the default precision.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace speedqa::io {

enum class OutputFormat { xml, json, csv, sub };

// Default (-1, false): libvmaf's printing ("%.6f", or "%.16f" for values
// with more than 6 leading zeros after the point). digits N: "%.Nf".
// max: "%.17g" (round-trip exact).
struct Precision {
    int digits = -1;
    bool max = false;
};

struct ScoreTable {
    std::vector<std::string> metric_names;    // column order, e.g. speed_chroma_u, ..., speed_temporal
    std::vector<std::vector<double>> frames;  // frames[i][m] for frame index i (0-based)
    int width = 0, height = 0;                // XML params
    double fps = 0;                           // "%.2f" (null in JSON when inf/nan)
    std::string version;                      // where libvmaf prints vmaf_version()
    unsigned subsample = 0;                   // when > 1 only frames i % n == 0 are printed and pooled
};

// The table in the given layout. Throws speedqa::Error if writing fails.
void write_scores(std::FILE* out, OutputFormat fmt, const ScoreTable& t, Precision p);

// The same into `path`, atomically: written to a temporary file in the same
// directory, then renamed over `path`; on any failure the temporary is
// removed and Error is thrown, so no partial file is left looking complete.
// "-" is standard output; an existing non-regular file (/dev/stdout, a FIFO)
// is written in place.
void write_scores_file(const std::string& path, OutputFormat fmt, const ScoreTable& t, Precision p);

// Any text (a picture, a page) into `path` the same way.
void write_file(const std::string& path, const std::string& text);

// Throws Error unless write_scores_file(path, ...) can create its file:
// called before the work, so that a run cannot end on an unwritable path.
void check_output_writable(const std::string& path);

// The text write_scores() writes (for tests and for callers that want it).
std::string format_scores(OutputFormat fmt, const ScoreTable& t, Precision p);

// A shard of a clip's scores (--frame_range): frames [first, first +
// t.frames.size()) of the clip, every value exact, and what `speedqa
// merge` needs to write the file a run of the whole clip writes. JSON:
//   {"version": ..., "speedqa_shard": {"first", "end", "clip_end",
//    "seconds", "width", "height"}, "frames": [{"frameNum": i, "metrics":
//    {name: %.17g value, ...}}, ...], "nonfinite": [[frame, name, "inf" |
//    "-inf" | "nan" | "-nan"], ...]}
// (non-finite values print as null among the metrics, as in libvmaf's JSON,
// and are given exactly in "nonfinite").
struct ShardInfo {
    long long first = 0;    // the clip's index of the shard's first frame
    bool clip_end = false;  // the shard's last frame is the clip's last
    double seconds = 0;     // the run's scoring time (merged fps)
};
std::string format_shard(const ScoreTable& t, const ShardInfo& info);

}  // namespace speedqa::io

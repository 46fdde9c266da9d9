// The speedqa command line: the vmaf CLI's flags, plus --backend,
// --precision, --dispatch, --model_dir and several distorted videos; and
// the plot subcommand's. (Both parsers are in cli_options.cpp, the one file
// that compiles CLI11, a header-only library.)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "io/score_writer.hpp"
#include "io/video_reader.hpp"
#include "plot/chart.hpp"

namespace speedqa::cli {

struct Settings {
    std::string reference;
    std::vector<std::string> distorted;  // one or more, each scored against the reference
    std::optional<io::RawParams> raw;  // set when any of -w -h -p -b is given
    std::vector<std::string> features;
    std::string output;                // -o as given: "" = no file (pooled means go to stdout)
    std::vector<std::string> outputs;  // the output file of each distorted video (%s replaced)
    io::OutputFormat format = io::OutputFormat::xml;
    io::Precision precision;
    int threads = 0;  // not given: CPU engine 1 thread (vmaf's default); cuda and auto every core
    unsigned cpumask = 0;
    unsigned gpumask = 0;  // vmaf's: non-zero forbids the GPU
    unsigned frame_cnt = 0, frame_skip_ref = 0, frame_skip_dist = 0, subsample = 0;
    bool quiet = false;
    std::string backend = "cpu";
    std::string dispatch;              // "": libvmaf's on this CPU under --cpumask
    std::vector<std::string> models;   // --model arguments (default: version=vmaf_v0.6.1, as vmaf)
    std::vector<std::string> model_dirs;
    bool no_prediction = false;
    int batch = 0;
    bool parity = false;  // run the CPU and CUDA engines and compare every value
    std::string jobs_file;  // --jobs: lines of reference, distorted, output (replaces -r, -d, -o)
    // --frame_range A:B: frames [range_first, range_end) of the clip (-1: to
    // its end), written as a shard (io::format_shard) for `speedqa merge`
    bool ranged = false;
    long long range_first = 0, range_end = -1;
    bool exit_when_done = true;  // run() may leave the process once its output is written
    // --gpus N|all: the clip's frames split into contiguous ranges, one a GPU
    // (0: not asked; -1: every GPU), scored side by side and written as one
    int gpus = 0;
    int device = 0;  // the GPU of this run (a range of --gpus)
    // a range's scores for run_split(), instead of a shard file
    io::ScoreTable* capture = nullptr;
};

enum class ParseResult { run, exit_ok, exit_error };

// Parses argv. On --help / --version prints and returns exit_ok; on a bad
// command line prints one clear line (with a hint) to stderr and returns exit_error.
ParseResult parse_command_line(int argc, char** argv, Settings& out);

// `speedqa plot SCORES... -o OUT [options]`.
struct PlotSettings {
    std::vector<std::string> inputs;
    std::string output;
    plot::ChartOptions chart;
    double scale = 1;
};

// Parses the plot subcommand's arguments (argv[0] is "plot"), as
// parse_command_line does the main command's.
ParseResult parse_plot_command_line(int argc, char** argv, PlotSettings& out);

// `speedqa merge SHARD... -o OUT [--xml|--json|--csv|--sub] [--precision] [--subsample]`.
struct MergeSettings {
    std::vector<std::string> shards;
    std::string output;
    io::OutputFormat format = io::OutputFormat::xml;
    io::Precision precision;
    unsigned subsample = 0;
};
ParseResult parse_merge_command_line(int argc, char** argv, MergeSettings& out);

// Prints "speedqa: <kind>: <message>" on stderr as one line: a newline or
// other control character in the message (a file name may hold one) is
// written as an escape (\n, \xNN).
void print_error(const char* kind, const std::string& message);

}  // namespace speedqa::cli

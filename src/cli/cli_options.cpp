#include "cli/cli_options.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>

#include "speedqa/speedqa.hpp"

namespace speedqa::cli {
namespace {

std::string feature_list() {
    std::string out;
    for (const std::string& n : feature_names()) out += (out.empty() ? "" : ", ") + n;
    return out;
}

// vmaf parses unsigned values with strtoul(base 0): 16, 0x10 and 020 all work.
unsigned parse_unsigned(const std::string& flag, const std::string& text) {
    char* end = nullptr;
    errno = 0;
    const unsigned long v = std::strtoul(text.c_str(), &end, 0);
    if (text.empty() || *end || errno || text[0] == '-' || v > 0xffffffffUL)
        throw CLI::ValidationError(flag, "invalid argument \"" + text + "\"; should be an unsigned integer");
    return static_cast<unsigned>(v);
}

// A distorted video's name in its output path: the file name without
// folder and extension.
std::string stem(const std::string& path) {
    if (path == "-") return "stdin";
    std::string name = path.substr(path.rfind('/') + 1);
    const size_t dot = name.rfind('.');
    if (dot != std::string::npos && dot > 0) name.resize(dot);
    return name;
}

// The output file of each distorted video: -o with %s replaced by its name.
std::vector<std::string> output_paths(const std::string& pattern, const std::vector<std::string>& distorted) {
    if (pattern.empty()) return std::vector<std::string>(distorted.size());  // none: pooled means on stdout
    if (distorted.size() > 1 && pattern.find("%s") == std::string::npos)
        throw CLI::ValidationError("--output", "with several distorted videos it needs %s, where each one's file name "
                                               "goes (e.g. -o scores_%s.json)");
    std::vector<std::string> paths;
    for (const std::string& d : distorted) {
        std::string p = pattern;
        for (size_t at = p.find("%s"); at != std::string::npos; at = p.find("%s", at + 1)) p.replace(at, 2, stem(d));
        for (size_t i = 0; i < paths.size(); i++)
            if (paths[i] == p)
                throw CLI::ValidationError("--output", "\"" + distorted[i] + "\" and \"" + d + "\" would both write " + p);
        paths.push_back(p);
    }
    return paths;
}

// --help, and the width of the help's option column.
void set_help(CLI::App& app, size_t column_width) {
    app.set_help_flag("--help", "Print this help and exit");
    app.get_formatter()->column_width(column_width);
}

}  // namespace

void print_error(const char* kind, const std::string& message) {
    std::string line;
    for (const char c : message) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '\n') line += "\\n";
        else if (c == '\r') line += "\\r";
        else if (u < 0x20 || u == 0x7f) {
            char esc[8];
            std::snprintf(esc, sizeof esc, "\\x%02x", u);
            line += esc;
        } else line += c;
    }
    std::fprintf(stderr, "speedqa: %s: %s\n", kind, line.c_str());
}

ParseResult parse_command_line(int argc, char** argv, Settings& s) {
    CLI::App app{"speedqa: Netflix libvmaf's features and VMAF models, exact (the same bits as libvmaf), on CPU and CUDA.\n"
                 "A drop-in for the `vmaf` command. Pictures of score files: speedqa plot --help",
                 "speedqa"};
    set_help(app, 34);

    std::string width, height, pix, bitdepth, cpumask, gpumask, threads, frame_cnt, skip_ref, skip_dist, subsample, precision;
    bool xml = false, json = false, csv = false, sub = false, version = false;

    app.add_option("-r,--reference", s.reference,
                   "Reference: .y4m, raw .yuv (with -w -h -p -b) or encoded video ('-' = y4m on standard input)")
        ->type_name("PATH");
    app.add_option("-d,--distorted", s.distorted,
                   "Distorted video(s), as the reference; several (-d a.mp4 b.mp4 or -d a.mp4 -d b.mp4): each is\n"
                   "scored against the one decoded reference, into its own -o file (%s in -o: its name)")
        ->type_name("PATH ...");
    std::string frame_range, gpus;
    app.add_option("--gpus", gpus,
                   "Split the clip's frames into contiguous ranges, one per GPU of this host (N, or all),\n"
                   "scored side by side (each with the warm-up its temporal features need) and written in\n"
                   "frame order; the values are a single run's. Files whose length is known (.yuv, .y4m)")
        ->type_name("N|all");
    app.add_option("--frame_range", frame_range,
                   "Score frames A to B-1 of the clip (A: to its end), reading the frames before and after them\n"
                   "that temporal features need, into a shard: -o gets a JSON file of exact values that\n"
                   "`speedqa merge` joins into the file one run of the whole clip writes")
        ->type_name("A:B");
    app.add_option("--jobs", s.jobs_file,
                   "A catalogue in one run: each line of FILE a reference, a distorted video and an output path\n"
                   "(quote paths with spaces; # comments); the other flags apply to every line; lines that share\n"
                   "a reference decode it once; a bad line is reported and the others still run")
        ->type_name("FILE");
    app.add_option("-w,--width", width, "Width (raw .yuv)")->type_name("INT");
    app.add_option("-h,--height", height, "Height (raw .yuv)")->type_name("INT");
    app.add_option("-p,--pixel_format", pix, "Pixel format of raw .yuv: 420, 422, 444 (or 400)")->type_name("{420,422,444,400}");
    app.add_option("-b,--bitdepth", bitdepth, "Bit depth of raw .yuv: 8, 10, 12, 16")->type_name("{8,10,12,16}");
    app.add_option("--feature", s.features,
                   "A feature, optionally with options: NAME=opt=val:opt=val (repeatable). Features:\n"
                   + feature_list())->type_name("NAME[=OPT=VALUE:...]");
    app.add_option("-m,--model", s.models,
                   "A VMAF model, as vmaf takes it: version=NAME or path=FILE, with :name=LABEL and the other\n"
                   "vmaf model options (repeatable). Default: version=vmaf_v0.6.1, unless --no_prediction")->type_name("TEXT");
    app.add_option("--model_dir", s.model_dirs, "A folder where version=NAME finds NAME.json (repeatable; then $SPEEDQA_MODEL_DIR and the installed models)")->type_name("PATH");
    app.add_flag("-n,--no_prediction", s.no_prediction, "Features only: no model (vmaf's flag)");
    app.add_option("-o,--output", s.output,
                   "Output file ('-' = standard output); %s is replaced by the distorted video's file name\n"
                   "without folder and extension (needed with several distorted videos)")->type_name("PATH");
    app.add_flag("--xml", xml, "Write XML (default)");
    app.add_flag("--json", json, "Write JSON");
    app.add_flag("--csv", csv, "Write CSV");
    app.add_flag("--sub", sub, "Write subtitles");
    app.add_option("--precision", precision, "Digits after the point for every value, or 'max' (%.17g, round-trip)")->type_name("INT|max");
    app.add_option("--threads", threads, "Threads: frames in parallel on the CPU engine (default 1, as vmaf); host threads of the CUDA engine (default: every core)")->type_name("INT");
    app.add_option("--cpumask", cpumask, "Restrict instruction sets like libvmaf: 8 = no AVX2, 16 = no AVX-512")->type_name("INT");
    app.add_option("--gpumask", gpumask,
                   "Restrict GPU use like vmaf: 0 (default) = as --backend says, any other value = no GPU\n"
                   "(auto scores on the CPU; cuda and --parity are refused)")->type_name("INT");
    app.add_option("--frame_cnt", frame_cnt, "Score at most this many frames")->type_name("INT");
    app.add_option("--frame_skip_ref", skip_ref, "Skip the first N reference frames")->type_name("INT");
    app.add_option("--frame_skip_dist", skip_dist, "Skip the first N distorted frames")->type_name("INT");
    app.add_option("--subsample", subsample, "Report every Nth frame")->type_name("INT");
    // the choices and their help from the library's engine registry
    std::vector<std::string> backend_names;
    std::string backend_help = "Which engine scores:";
    for (const BackendInfo& b : backends()) {
        backend_names.push_back(b.name);
        backend_help += "\n  " + b.name + ": " + b.summary;
    }
    app.add_option("--backend", s.backend, backend_help)->type_name("")->check(CLI::IsMember(backend_names));
    app.add_option("--dispatch", s.dispatch,
                   "Reproduce libvmaf's values of this dispatch: scalar, avx2, avx512 (default: the one libvmaf picks on\n"
                   "this CPU under --cpumask; they differ for SpEED's covariance sums and ADM with adm_csf_mode=1)")->type_name("")
        ->check(CLI::IsMember({"scalar", "avx2", "avx512"}));
    app.add_option("--cov_order", s.dispatch, "Same as --dispatch (its former name)")->type_name("")->check(CLI::IsMember({"scalar", "avx2", "avx512"}));
    app.add_option("--batch", s.batch, "Frames per engine call (default: the engine's choice)")->type_name("INT")->check(CLI::Range(1, 4096));
    app.add_flag("--parity", s.parity,
                 "Run the CPU and the CUDA engine on the input and compare every value; exit 0 only if all are identical");
    app.add_flag("-q,--quiet", s.quiet, "No progress meter");
    app.add_flag("-v,--version", version, "Print the version and exit");

    try {
        // --version needs no other flag
        for (int i = 1; i < argc; i++) {
            const std::string a = argv[i];
            if (a == "-v" || a == "--version") {
                std::printf("speedqa %s\n", speedqa::version());
                return ParseResult::exit_ok;
            }
        }
        app.parse(argc, argv);
        if (!width.empty() || !height.empty() || !pix.empty() || !bitdepth.empty()) {
            if (width.empty() || height.empty() || pix.empty() || bitdepth.empty())
                throw CLI::ValidationError("raw .yuv input", "needs all of --width, --height, --pixel_format, --bitdepth");
            io::RawParams r;
            r.width = static_cast<int>(parse_unsigned("--width", width));
            r.height = static_cast<int>(parse_unsigned("--height", height));
            if (r.width <= 0 || r.height <= 0 || r.width > 65536 || r.height > 65536)
                throw CLI::ValidationError("--width/--height", "must be between 1 and 65536");
            if (pix == "420") r.pix = PixelFormat::yuv420;
            else if (pix == "422") r.pix = PixelFormat::yuv422;
            else if (pix == "444") r.pix = PixelFormat::yuv444;
            else if (pix == "400") r.pix = PixelFormat::yuv400;
            else throw CLI::ValidationError("--pixel_format", "invalid argument \"" + pix + "\"; should be 420, 422 or 444");
            r.bitdepth = static_cast<int>(parse_unsigned("--bitdepth", bitdepth));
            if (r.bitdepth != 8 && r.bitdepth != 10 && r.bitdepth != 12 && r.bitdepth != 16)
                throw CLI::ValidationError("--bitdepth", "invalid argument \"" + bitdepth + "\"; should be 8, 10, 12 or 16");
            s.raw = r;
        }
        const int formats = xml + json + csv + sub;
        if (formats > 1) throw CLI::ValidationError("--xml/--json/--csv/--sub", "choose one output format");
        s.format = json ? io::OutputFormat::json : csv ? io::OutputFormat::csv : sub ? io::OutputFormat::sub
                                                                                    : io::OutputFormat::xml;
        if (!precision.empty()) {
            if (precision == "max") s.precision.max = true;
            else {
                const unsigned p = parse_unsigned("--precision", precision);
                if (p > 17) throw CLI::ValidationError("--precision", "should be 0..17 or max");
                s.precision.digits = static_cast<int>(p);
            }
        }
        if (!threads.empty()) {
            s.threads = static_cast<int>(parse_unsigned("--threads", threads));
            if (s.threads < 1) s.threads = 1;  // vmaf: 0 threads = run in the calling thread
            if (s.threads > max_threads)
                throw CLI::ValidationError("--threads", "at most " + std::to_string(max_threads));
        }
        if (!cpumask.empty()) s.cpumask = parse_unsigned("--cpumask", cpumask);
        if (!gpumask.empty()) s.gpumask = parse_unsigned("--gpumask", gpumask);
        if (s.gpumask && (s.backend == "cuda" || s.parity))
            throw CLI::ValidationError("--gpumask", gpumask + " forbids the GPU, which " +
                                                       (s.parity ? "--parity" : "--backend cuda") + " needs");
        if (s.parity && s.distorted.size() > 1)
            throw CLI::ValidationError("--parity", "compares the engines on one distorted video");
        if (!s.jobs_file.empty()) {
            if (!s.reference.empty() || !s.distorted.empty() || !s.output.empty())
                throw CLI::ValidationError("--jobs", "takes the references, distorted videos and outputs from the file: "
                                                     "no -r, -d or -o beside it");
            if (s.parity) throw CLI::ValidationError("--jobs", "cannot be combined with --parity");
        } else {
            if (s.reference.empty()) throw CLI::RequiredError("--reference");
            if (s.distorted.empty()) throw CLI::RequiredError("--distorted");
        }
        if (!frame_range.empty()) {
            const size_t colon = frame_range.find(':');
            if (colon == std::string::npos)
                throw CLI::ValidationError("--frame_range", "\"" + frame_range + "\" is not A:B (or A: for the rest of the clip)");
            s.ranged = true;
            s.range_first = parse_unsigned("--frame_range", frame_range.substr(0, colon));
            const std::string end = frame_range.substr(colon + 1);
            if (!end.empty()) {
                s.range_end = parse_unsigned("--frame_range", end);
                if (s.range_end <= s.range_first)
                    throw CLI::ValidationError("--frame_range", frame_range + " holds no frame (B must be above A)");
            }
            if (formats > 0 || !precision.empty() || !subsample.empty())
                throw CLI::ValidationError("--frame_range", "writes a shard (exact values in JSON): give the layout, "
                                                            "--precision and --subsample to speedqa merge");
            if (s.output.empty() && s.jobs_file.empty())
                throw CLI::ValidationError("--frame_range", "needs -o for its shard");
            if (s.parity) throw CLI::ValidationError("--frame_range", "cannot be combined with --parity");
        }
        if (!gpus.empty()) {
            if (gpus == "all") s.gpus = -1;
            else {
                s.gpus = static_cast<int>(parse_unsigned("--gpus", gpus));
                if (s.gpus < 1 || s.gpus > 64) throw CLI::ValidationError("--gpus", "should be 1..64 or all");
            }
            if (s.ranged || s.parity || !s.jobs_file.empty() || s.distorted.size() > 1)
                throw CLI::ValidationError("--gpus", "splits one clip: not with --frame_range, --parity, --jobs or "
                                                     "several distorted videos");
        }
        s.outputs = output_paths(s.output, s.distorted);
        if (!frame_cnt.empty()) s.frame_cnt = parse_unsigned("--frame_cnt", frame_cnt);
        if (!skip_ref.empty()) s.frame_skip_ref = parse_unsigned("--frame_skip_ref", skip_ref);
        if (!skip_dist.empty()) s.frame_skip_dist = parse_unsigned("--frame_skip_dist", skip_dist);
        if (!subsample.empty()) s.subsample = parse_unsigned("--subsample", subsample);
        if (s.no_prediction && !s.models.empty())
            throw CLI::ValidationError("--no_prediction", "cannot be combined with --model");
        // vmaf computes vmaf_v0.6.1 unless told otherwise
        if (!s.no_prediction && s.models.empty()) s.models.push_back("version=vmaf_v0.6.1");
        if (s.no_prediction && s.features.empty())
            throw CLI::ValidationError("--no_prediction", "needs at least one --feature");
    } catch (const CLI::CallForHelp&) {
        std::printf("%s", app.help().c_str());
        return ParseResult::exit_ok;
    } catch (const CLI::ParseError& e) {
        print_error("error", std::string(e.what()) + " (see speedqa --help)");
        return ParseResult::exit_error;
    }
    return ParseResult::run;
}

ParseResult parse_plot_command_line(int argc, char** argv, PlotSettings& s) {
    CLI::App app{"speedqa plot: per-frame curves of score files (speedqa's or vmaf's JSON, XML or CSV), one panel per\n"
                 "metric, several files overlaid (an encoding ladder), with each file's pooled mean and worst frames.",
                 "speedqa plot"};
    set_help(app, 30);
    app.add_option("scores", s.inputs, "Score files")->required();
    app.add_option("-o,--output", s.output, "plot.svg, plot.png or report.html (SVG inline and a table of the pooled values)")
        ->required();
    app.add_option("--metric", s.chart.metrics, "Plot this metric (repeatable; default: all, VMAF first)");
    app.add_option("--label", s.chart.labels, "A name for each file, in order (default: the file names)");
    app.add_option("--title", s.chart.title, "The title");
    app.add_option("--worst", s.chart.worst, "Worst frames marked per curve (default 3)")->check(CLI::Range(0, 100));
    app.add_option("--columns", s.chart.columns, "Panels side by side (default: 1 up to 4 metrics, else 2)")
        ->check(CLI::Range(1, 6));
    app.add_option("--width", s.chart.width, "Width in pixels (default: 1100 a column, 1600 for more)")
        ->check(CLI::Range(640.0, 8000.0));
    app.add_option("--scale", s.scale, "PNG pixels per chart pixel (default 1; 2 for high-density screens)")
        ->check(CLI::Range(0.25, 4.0));
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::printf("%s", app.help().c_str());
        return ParseResult::exit_ok;
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "speedqa plot: error: %s\nRun 'speedqa plot --help' for usage.\n", e.what());
        return ParseResult::exit_error;
    }
    return ParseResult::run;
}

ParseResult parse_merge_command_line(int argc, char** argv, MergeSettings& s) {
    CLI::App app{"speedqa merge: joins the shards of a clip (speedqa --frame_range A:B ... -o SHARD) into the file one\n"
                 "run of the whole clip writes, in any layout, every per-frame and pooled value the same.",
                 "speedqa merge"};
    set_help(app, 30);
    std::string precision, subsample;
    bool xml = false, json = false, csv = false, sub = false;
    app.add_option("shards", s.shards, "The shards, in any order; together they cover the clip once")->required();
    app.add_option("-o,--output", s.output, "Output file ('-' = standard output)")->type_name("PATH")->required();
    app.add_flag("--xml", xml, "Write XML (default)");
    app.add_flag("--json", json, "Write JSON");
    app.add_flag("--csv", csv, "Write CSV");
    app.add_flag("--sub", sub, "Write subtitles");
    app.add_option("--precision", precision, "Digits after the point for every value, or 'max' (%.17g, round-trip)")->type_name("INT|max");
    app.add_option("--subsample", subsample, "Report every Nth frame")->type_name("INT");
    try {
        app.parse(argc, argv);
        if (xml + json + csv + sub > 1) throw CLI::ValidationError("--xml/--json/--csv/--sub", "choose one output format");
        s.format = json ? io::OutputFormat::json : csv ? io::OutputFormat::csv : sub ? io::OutputFormat::sub : io::OutputFormat::xml;
        if (precision == "max") s.precision.max = true;
        else if (!precision.empty()) {
            const unsigned p = parse_unsigned("--precision", precision);
            if (p > 17) throw CLI::ValidationError("--precision", "should be 0..17 or max");
            s.precision.digits = static_cast<int>(p);
        }
        if (!subsample.empty()) s.subsample = parse_unsigned("--subsample", subsample);
    } catch (const CLI::CallForHelp&) {
        std::printf("%s", app.help().c_str());
        return ParseResult::exit_ok;
    } catch (const CLI::ParseError& e) {
        print_error("error", std::string(e.what()) + " (see speedqa merge --help)");
        return ParseResult::exit_error;
    }
    return ParseResult::run;
}

}  // namespace speedqa::cli

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

}  // namespace

ParseResult parse_command_line(int argc, char** argv, Settings& s) {
    CLI::App app{"speedqa: Netflix libvmaf's features and VMAF models, exact (the same bits as libvmaf), on CPU and CUDA.\n"
                 "A drop-in for the `vmaf` command. Pictures of score files: speedqa plot --help",
                 "speedqa"};
    app.set_help_flag("--help", "Print this help and exit");
    app.get_formatter()->column_width(34);

    std::string width, height, pix, bitdepth, cpumask, threads, frame_cnt, skip_ref, skip_dist, subsample, precision;
    bool xml = false, json = false, csv = false, sub = false, version = false;

    app.add_option("-r,--reference", s.reference, "Reference .y4m or .yuv ('-' = y4m on standard input)")->required();
    app.add_option("-d,--distorted", s.distorted, "Distorted .y4m or .yuv ('-' = y4m on standard input)")->required();
    app.add_option("-w,--width", width, "Width (raw .yuv)");
    app.add_option("-h,--height", height, "Height (raw .yuv)");
    app.add_option("-p,--pixel_format", pix, "Pixel format of raw .yuv: 420, 422, 444 (or 400)");
    app.add_option("-b,--bitdepth", bitdepth, "Bit depth of raw .yuv: 8, 10, 12, 16");
    app.add_option("--feature", s.features,
                   "A feature, optionally with options: NAME=opt=val:opt=val (repeatable). Features:\n"
                   + feature_list());
    app.add_option("-m,--model", s.models,
                   "A VMAF model, as vmaf takes it: version=NAME or path=FILE, with :name=LABEL and the other\n"
                   "vmaf model options (repeatable). Default: version=vmaf_v0.6.1, unless --no_prediction");
    app.add_option("--model_dir", s.model_dirs, "A folder where version=NAME finds NAME.json (repeatable; then $SPEEDQA_MODEL_DIR and the installed models)");
    app.add_flag("-n,--no_prediction", s.no_prediction, "Features only: no model (vmaf's flag)");
    app.add_option("-o,--output", s.output, "Output file ('-' = standard output)");
    app.add_flag("--xml", xml, "Write XML (default)");
    app.add_flag("--json", json, "Write JSON");
    app.add_flag("--csv", csv, "Write CSV");
    app.add_flag("--sub", sub, "Write subtitles");
    app.add_option("--precision", precision, "Digits after the point for every value, or 'max' (%.17g, round-trip)");
    app.add_option("--threads", threads, "Threads: frames in parallel on the CPU engine (default 1, as vmaf); host threads of the CUDA engine (default: every core)");
    app.add_option("--cpumask", cpumask, "Restrict instruction sets like libvmaf: 8 = no AVX2, 16 = no AVX-512");
    app.add_option("--frame_cnt", frame_cnt, "Score at most this many frames");
    app.add_option("--frame_skip_ref", skip_ref, "Skip the first N reference frames");
    app.add_option("--frame_skip_dist", skip_dist, "Skip the first N distorted frames");
    app.add_option("--subsample", subsample, "Report every Nth frame");
    app.add_option("--backend", s.backend,
                   "cpu, cuda or auto (default cpu); cpu-reference = the straightforward full-frame path, for comparison")
        ->check(CLI::IsMember({"cpu", "cuda", "auto", "cpu-reference"}));
    app.add_option("--dispatch", s.dispatch,
                   "Reproduce libvmaf's values of this dispatch: scalar, avx2, avx512 (default: the one libvmaf picks on\n"
                   "this CPU under --cpumask; they differ for SpEED's covariance sums and ADM with adm_csf_mode=1)")
        ->check(CLI::IsMember({"scalar", "avx2", "avx512"}));
    app.add_option("--cov_order", s.dispatch, "Same as --dispatch (its former name)")->check(CLI::IsMember({"scalar", "avx2", "avx512"}));
    app.add_option("--batch", s.batch, "Frames per engine call (default: the engine's choice)")->check(CLI::Range(1, 4096));
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
            if (s.threads > 256) throw CLI::ValidationError("--threads", "at most 256");
        }
        if (!cpumask.empty()) s.cpumask = parse_unsigned("--cpumask", cpumask);
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
        std::fprintf(stderr, "speedqa: error: %s\nRun 'speedqa --help' for usage.\n", e.what());
        return ParseResult::exit_error;
    }
    return ParseResult::run;
}

}  // namespace speedqa::cli

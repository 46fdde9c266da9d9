#include "cli/cli_options.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>

#include "speedqa/speedqa.hpp"

namespace speedqa::cli {
namespace {

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
    CLI::App app{"speedqa: SpEED-QA features of Netflix libvmaf (speed_chroma, speed_temporal), exact, on CPU and CUDA.\n"
                 "A drop-in for `vmaf` with these features.",
                 "speedqa"};
    app.set_help_flag("--help", "Print this help and exit");
    app.get_formatter()->column_width(34);

    std::string width, height, pix, bitdepth, cpumask, threads, frame_cnt, skip_ref, skip_dist, subsample, precision;
    bool xml = false, json = false, csv = false, sub = false, version = false, no_prediction = false;
    std::vector<std::string> models;

    app.add_option("-r,--reference", s.reference, "Reference .y4m or .yuv ('-' = y4m on standard input)")->required();
    app.add_option("-d,--distorted", s.distorted, "Distorted .y4m or .yuv ('-' = y4m on standard input)")->required();
    app.add_option("-w,--width", width, "Width (raw .yuv)");
    app.add_option("-h,--height", height, "Height (raw .yuv)");
    app.add_option("-p,--pixel_format", pix, "Pixel format of raw .yuv: 420, 422, 444 (or 400)");
    app.add_option("-b,--bitdepth", bitdepth, "Bit depth of raw .yuv: 8, 10, 12, 16");
    app.add_option("--feature", s.features,
                   "speed_chroma or speed_temporal, optionally =opt=val:opt=val (repeatable)\n"
                   "options: speed_kernelscale (ks), speed_prescale (ps), speed_prescale_method (psm:\n"
                   "nearest|bilinear|bicubic|lanczos4), speed_sigma_nn (snn), speed_nn_floor (nnf),\n"
                   "speed_max_val (mxv), speed_weight_var_mode (wvm, chroma 0..6), speed_use_ref_diff (urd)");
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
    app.add_option("--cov_order", s.cov_order, "Force the covariance order: scalar, avx2, avx512 (default: as libvmaf on this CPU)")
        ->check(CLI::IsMember({"scalar", "avx2", "avx512"}));
    app.add_option("--batch", s.batch, "Frames per engine call (default: the engine's choice)")->check(CLI::Range(1, 4096));
    app.add_flag("--parity", s.parity,
                 "Run the CPU and the CUDA engine on the input and compare every value; exit 0 only if all are identical");
    app.add_option("-m,--model", models, "Not supported: speedqa extracts features only");
    app.add_flag("-n,--no_prediction", no_prediction, "Accepted for compatibility (speedqa never predicts)");
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
        if (!models.empty()) throw CLI::ValidationError("--model", "models are not supported: speedqa extracts the "
                                                                   "speed_chroma and speed_temporal features only");
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
        if (s.features.empty())
            throw CLI::ValidationError("--feature", "required: give --feature speed_chroma and/or --feature speed_temporal");
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

// speedqa: a drop-in for the `vmaf` command.
#include <cstdio>
#include <exception>
#include <string_view>

#include "cli/cli_options.hpp"
#include "cli/jobs.hpp"
#include "cli/merge_command.hpp"
#include "cli/plot_command.hpp"
#include "cli/run.hpp"
#include "speedqa/error.hpp"

#if defined(__SANITIZE_ADDRESS__)
// In the AddressSanitizer build: fontconfig, which cairo's text drawing
// (speedqa plot -o x.png) initialises, keeps its caches until exit on purpose.
// Those are not ours to free; every other leak still fails the run.
extern "C" const char* __lsan_default_suppressions() { return "leak:libfontconfig.so\n"; }
#endif

int main(int argc, char** argv) {
    if (argc > 1 && std::string_view(argv[1]) == "plot") return speedqa::cli::plot_main(argc - 1, argv + 1);
    if (argc > 1 && std::string_view(argv[1]) == "merge") return speedqa::cli::merge_main(argc - 1, argv + 1);
    speedqa::cli::Settings settings;
    try {
        switch (speedqa::cli::parse_command_line(argc, argv, settings)) {
        case speedqa::cli::ParseResult::exit_ok: speedqa::cli::flush_stdout(); return 0;
        case speedqa::cli::ParseResult::exit_error: return 1;
        case speedqa::cli::ParseResult::run: break;
        }
        const int status = settings.jobs_file.empty() ? speedqa::cli::run(settings) : speedqa::cli::run_jobs(settings);
        speedqa::cli::flush_stdout();
        return status;
    } catch (const speedqa::Error& e) {
        speedqa::cli::print_error("error", e.what());
        return 1;
    } catch (const std::bad_alloc&) {
        speedqa::cli::print_error("error", "out of memory");
        return 2;
    } catch (const std::exception& e) {
        speedqa::cli::print_error("internal error", e.what());
        return 2;
    }
}

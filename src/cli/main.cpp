// speedqa: a drop-in for the `vmaf` command for speed_chroma and speed_temporal.
#include <cstdio>
#include <exception>
#include <string_view>

#include "cli/cli_options.hpp"
#include "cli/plot_command.hpp"
#include "cli/run.hpp"
#include "speedqa/error.hpp"

int main(int argc, char** argv) {
    if (argc > 1 && std::string_view(argv[1]) == "plot") return speedqa::cli::plot_main(argc - 1, argv + 1);
    speedqa::cli::Settings settings;
    switch (speedqa::cli::parse_command_line(argc, argv, settings)) {
    case speedqa::cli::ParseResult::exit_ok: return 0;
    case speedqa::cli::ParseResult::exit_error: return 1;
    case speedqa::cli::ParseResult::run: break;
    }
    try {
        return speedqa::cli::run(settings);
    } catch (const speedqa::Error& e) {
        std::fprintf(stderr, "speedqa: error: %s\n", e.what());
        return 1;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "speedqa: error: out of memory\n");
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "speedqa: internal error: %s\n", e.what());
        return 2;
    }
}

#include "cli/merge_command.hpp"

#include "cli/cli_options.hpp"
#include "cli/run.hpp"
#include "io/score_writer.hpp"
#include "plot/shards.hpp"
#include "speedqa/error.hpp"

namespace speedqa::cli {

int merge_main(int argc, char** argv) {
    MergeSettings s;
    switch (parse_merge_command_line(argc, argv, s)) {
    case ParseResult::exit_ok: return 0;
    case ParseResult::exit_error: return 1;
    case ParseResult::run: break;
    }
    try {
        io::ScoreTable t = plot::merge_shards(s.shards);
        t.subsample = s.subsample;
        io::check_output_writable(s.output);
        io::write_scores_file(s.output, s.format, t, s.precision);
        flush_stdout();
    } catch (const Error& e) {
        print_error("merge: error", e.what());
        return 1;
    }
    return 0;
}

}  // namespace speedqa::cli

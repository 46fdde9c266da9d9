// The speedqa command's main job: read both videos, score every frame pair,
// write the scores.
#pragma once

#include "cli/cli_options.hpp"

namespace speedqa::cli {

// Returns the process exit status. Throws speedqa::Error on bad input. With
// s.exit_when_done and a GPU held, leaves the process at once once the
// output is written (releasing a GPU costs tens of milliseconds).
int run(const Settings& s);

// Flushes standard output; throws Error when what was printed there did not
// arrive (a full disk, a closed file), so that such a run does not exit 0.
void flush_stdout();

}  // namespace speedqa::cli

// The speedqa command's main job: read both videos, score every frame pair,
// write the scores.
#pragma once

#include "cli/cli_options.hpp"

namespace speedqa::cli {

// Returns the process exit status. Throws speedqa::Error on bad input.
int run(const Settings& s);

}  // namespace speedqa::cli

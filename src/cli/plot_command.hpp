// `speedqa plot SCORES... -o OUT`: pictures of score files.
#pragma once

namespace speedqa::cli {

// argv[0] is "plot". Returns the process exit status; prints one line on error.
int plot_main(int argc, char** argv);

}  // namespace speedqa::cli

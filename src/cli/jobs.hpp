// `speedqa --jobs FILE`: a catalogue in one process, so that its start-up
// (a GPU's driver and context above all) is paid once. Each line of FILE is
// a reference, a distorted video and an output path; the command line's
// other flags apply to every line. Lines that share a reference are scored
// in one pass over it (decoded once); a bad line is reported, with its line
// number, and the others still run.
#pragma once

#include <string>
#include <vector>

#include "cli/cli_options.hpp"

namespace speedqa::cli {

struct JobLine {
    int line = 0;  // 1-based, in the file
    std::string reference, distorted, output;
    std::string error;  // a line that could not be read: why (the others are scored)
};

// The lines of a jobs file: blank lines and lines starting with '#' are
// skipped; fields are separated by spaces or tabs, and a field may be
// double-quoted (\" and \\ escapes inside) to hold spaces. Throws Error
// when the file cannot be read.
std::vector<JobLine> read_jobs_file(const std::string& path);

// Runs every line; returns the exit status (0 when every line was scored,
// 1 otherwise, after all lines).
int run_jobs(const Settings& s);

}  // namespace speedqa::cli

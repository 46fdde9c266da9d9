// Running commands from tests: the speedqa command line end to end, and the
// `ffmpeg` command that makes encoded test videos and is the oracle of the
// decoded input.
#pragma once

#include <filesystem>
#include <string>

namespace speedqa::testing {

std::string slurp(const std::filesystem::path& p);

struct CommandResult {
    int status = -1;  // exit status, 128 + signal when killed
    std::string out, err;
};

// `command args` through the shell, standard output and error caught in
// files in `scratch`; standard input from `stdin_file` when given.
CommandResult run_command(const std::string& command, const std::string& args, const std::filesystem::path& scratch,
                          const std::string& stdin_file = "");

// Whether an `ffmpeg` command is on the PATH.
bool have_ffmpeg();
// ffmpeg quietly with these arguments (-y, errors only); true when it succeeded.
bool ffmpeg(const std::string& args);

}  // namespace speedqa::testing

#include "support/command.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

namespace speedqa::testing {

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

CommandResult run_command(const std::string& command, const std::string& args, const std::filesystem::path& scratch,
                          const std::string& stdin_file) {
    const std::filesystem::path out = scratch / "stdout.txt", err = scratch / "stderr.txt";
    std::string cmd = command + " " + args + " >" + out.string() + " 2>" + err.string();
    if (!stdin_file.empty()) cmd = "cat " + stdin_file + " | " + cmd;
    const int rc = std::system(cmd.c_str());
    CommandResult r;
    r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
}

bool have_ffmpeg() { return std::system("ffmpeg -version >/dev/null 2>&1") == 0; }

bool ffmpeg(const std::string& args) { return std::system(("ffmpeg -nostdin -v error -y " + args).c_str()) == 0; }

}  // namespace speedqa::testing

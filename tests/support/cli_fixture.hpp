// What the command's end-to-end test suites share: a scratch folder per
// suite, the repository's test clips written there as raw files, and the
// command run with its output caught. Header-only: SPEEDQA_CLI_PATH is
// defined by each test program that runs the command.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include "support/command.hpp"
#include "support/testdata.hpp"

namespace speedqa::testing {

class CliTest : public ::testing::Test {
protected:
    inline static std::filesystem::path dir;

    // A fresh scratch folder for the suite; each named clip of the repository's
    // test data written there as NAME_ref.yuv and NAME_dis.yuv.
    static void make_dir(const std::string& suite, std::initializer_list<const char*> clips = {}) {
        dir = std::filesystem::temp_directory_path() / (suite + "_" + std::to_string(getpid()));
        std::filesystem::create_directories(dir);
        if (clips.size() == 0) return;
        const auto data = TestData::open(repo_testdata_dir());
        ASSERT_TRUE(data);
        for (const char* name : clips) {
            const ClipInfo* c = data->clip(name);
            ASSERT_NE(c, nullptr) << name;
            write(dir / (std::string(name) + "_ref.yuv"), load_xz(c->ref_xz));
            write(dir / (std::string(name) + "_dis.yuv"), load_xz(c->dis_xz));
        }
    }
    static void TearDownTestSuite() { std::filesystem::remove_all(dir); }

    static void write(const std::filesystem::path& p, const std::vector<uint8_t>& bytes) {
        std::ofstream out(p, std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    static void write(const std::filesystem::path& p, const std::string& bytes) {
        std::ofstream(p, std::ios::binary) << bytes;
    }

    // `env`: VAR=value for the command; `before`: shell commands ahead of it
    // (then the command's standard input is best given in `args`).
    static CommandResult run(const std::string& args, const std::string& stdin_file = "", const std::string& env = "",
                             const std::string& before = "") {
        return run_command(before + env + " " + SPEEDQA_CLI_PATH, args, dir, stdin_file);
    }
    static std::string path(const std::string& name) { return (dir / name).string(); }

    // -r/-d of a clip written by make_dir, with its raw geometry flags.
    static std::string clip(const std::string& name, const std::string& geometry) {
        return "-r " + path(name + "_ref.yuv") + " -d " + path(name + "_dis.yuv") + " " + geometry;
    }
    static std::string v1() { return clip("v1", "-w 576 -h 324 -p 420 -b 8"); }
};

}  // namespace speedqa::testing

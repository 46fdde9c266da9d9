// Shared by the model module's tests: where the model files are, and a check
// that a call fails with one clear line.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "support/testdata.hpp"

namespace speedqa::model::testing {

// The repository's copies of Netflix's model files (models/ at the root).
inline std::string repo_models_dir() { return std::string(SPEEDQA_SOURCE_DIR) + "/models"; }

// ../shared/models beside the shared test data, or "" when absent.
inline std::string shared_models_dir() {
    const std::string td = speedqa::testing::shared_testdata_dir();
    if (td.empty()) return "";
    const std::filesystem::path p = std::filesystem::path(td) / ".." / "models";
    return std::filesystem::is_directory(p) ? std::filesystem::weakly_canonical(p).string() : "";
}

// Skips the test where the shared data is absent, fails where CI=true.
#define SPEEDQA_REQUIRE_SHARED(dir)                                                              \
    do {                                                                                         \
        if ((dir).empty()) {                                                                     \
            const char* ci = std::getenv("CI");                                                  \
            if (ci && std::string(ci) == "true") FAIL() << "shared test data missing under CI";  \
            GTEST_SKIP() << "no shared test data (set SPEEDQA_SHARED_TESTDATA)";                 \
        }                                                                                        \
    } while (0)

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The message of the speedqa::Error `f` throws ("" if it throws none); any
// other exception fails the test.
template <typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "not a speedqa::Error: " << e.what();
        return e.what();
    }
    return "";
}

// `f` throws one line that starts with `prefix` and contains `part`.
template <typename F>
void expect_error(F&& f, const std::string& prefix, const std::string& part) {
    const std::string msg = error_of(f);
    EXPECT_NE(msg, "") << "no error; expected one containing: " << part;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_EQ(msg.rfind(prefix, 0), 0u) << msg;
    EXPECT_NE(msg.find(part), std::string::npos) << msg << "\n  expected to contain: " << part;
}

}  // namespace speedqa::model::testing

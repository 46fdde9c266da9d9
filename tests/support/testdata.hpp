// Access to the clips and golden values: ../shared/testdata when present
// (the whole visible set), and the subset that ships in the repository.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/video.hpp"

namespace speedqa::testing {

struct ClipInfo {
    std::string name;
    VideoFormat format;
    int frames = 0;
    std::string ref_xz, dis_xz;  // paths
};

struct GoldenFile {
    std::string path, clip, optionset, feature, options, dispatch;
    unsigned cpumask = 0;
    int exit_status = 0;
    std::vector<std::string> metrics;                 // feature's output keys, in CLI order
    std::vector<std::string> metric_keys;             // names the CLI printed, same order
    std::vector<std::vector<double>> frames;          // [frame][metric]
    std::string cli_feature_arg() const { return options.empty() ? feature : feature + "=" + options; }
};

class TestData {
public:
    // Loads the manifest and golden files under `root` (a testdata folder).
    static std::optional<TestData> open(const std::string& root);
    const std::string& root() const { return root_; }
    const std::vector<ClipInfo>& clips() const { return clips_; }
    const ClipInfo* clip(const std::string& name) const;
    const std::vector<GoldenFile>& golden() const { return golden_; }

private:
    std::string root_;
    std::vector<ClipInfo> clips_;
    std::vector<GoldenFile> golden_;
};

// The folder of the shared test data (SPEEDQA_SHARED_TESTDATA or
// <source>/../shared/testdata), or "" when absent.
std::string shared_testdata_dir();
// Whether this is a CI run (CI=true), where missing shared test data is a
// failure, not a skip.
bool in_ci();
// The subset in the repository (<source>/testdata).
std::string repo_testdata_dir();

// Decompressed raw bytes of an .xz file (cached for the process).
const std::vector<uint8_t>& load_xz(const std::string& path);

}  // namespace speedqa::testing

// One golden run of libvmaf's whole models or of its adm, vif, motion and
// cambi features (../shared/testdata/models/golden), through the public
// Scorer as the speedqa command runs it, on a backend: the same metric names
// in the same order, every per-frame value and every pooled value ==; runs
// where libvmaf failed give one clean error instead. The CPU's golden test
// (tests/golden_runs_test.cpp) and the device's (tests/cuda/) share it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "support/model_golden.hpp"
#include "support/testdata.hpp"

namespace speedqa::testing {

struct GoldenTally {
    long long files = 0, values = 0, identical = 0, pooled = 0, pooled_identical = 0, errors = 0, defects = 0;
    std::map<std::string, long long> values_by_run;  // run kind -> values compared
};

struct GoldenRunOptions {
    std::string backend = "cpu";
    int batch = 0;    // ScorerOptions::batch
    int push = 1 << 30;  // frames a push_batch carries
};

// The Scorer's arguments for a golden run: its --feature and --model values.
void golden_scorer_args(const ModelGolden& g, std::vector<std::string>& features, std::vector<std::string>& models);
// "models", or the feature of a feature run ("feature_adm").
std::string golden_run_kind(const std::string& run);
// Compares one run (gtest failures for each difference).
void check_golden_run(const ModelGolden& g, const ClipInfo& clip, const GoldenRunOptions& run, GoldenTally& t);

}  // namespace speedqa::testing

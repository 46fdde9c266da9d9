// The engine registry: every backend a run can name (--backend, the API's
// ScorerOptions::backend, Python's backend=), what it is, whether it can run
// here, and how it is built. The CLI's choices, the API's checks and the
// layering test (engines' folders) all read this one table.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api/engine_factory.hpp"
#include "core/engine.hpp"

namespace speedqa {

struct EngineDef {
    const char* name;     // as --backend takes it
    const char* folder;   // its source folder under src/ (device parts live in features/<name>/<folder>/); "" for a policy over others
    const char* summary;  // one line for --help
    // The device engine whose feature parts it runs ("cuda"); nullptr for
    // the CPU engine (every feature has CPU kernels) and for policies.
    const char* parts;
    // Whether it can run here; otherwise `why` says plainly what is missing.
    bool (*available)(std::string* why);
    // Builds it for the features; throws Error (one line) where it cannot.
    // `note` receives a line for the user about the choice made (auto).
    std::unique_ptr<Engine> (*make)(const VideoFormat& format, const std::vector<const Feature*>& features,
                                    const EngineChoice& choice, std::string* note);
};

// Every engine, in the order --help lists them.
const std::vector<EngineDef>& engine_defs();
// nullptr when no engine has that name.
const EngineDef* find_engine(const std::string& name);
// The features of `features` whose modules have no part for a device
// engine's parts ("cuda"), by name, comma-separated ("" if none).
std::string features_without_parts(const std::vector<const Feature*>& features, const std::string& engine);

}  // namespace speedqa

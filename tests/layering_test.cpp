// The folder rules of the source tree, checked on every #include "..." of
// src/ and include/: data flows one way (exact <- core <- features <- the
// engines <- api <- cli, and io, model <- plot <- cli), exact arithmetic
// includes nothing of ours outside exact folders, the CPU and CUDA engines
// never include each other, io knows only the types, and no two folders
// include each other, directly or through others.
//
// Inside a feature (src/features/<name>/) every folder is a module of its
// own, and the dependencies point one way, towards the root:
//   - the root (the files in <name>/ itself) names the options, the outputs
//     and the plan (and, for features that have no cpu/ folder yet, holds
//     the CPU kernels' C reference): it includes core/, exact/ and its own
//     exact/, never one of its folders below;
//   - each part below it (cpu/, cuda/, reference/, x86/, cpu/x86/, bench/)
//     includes the root, its own exact/ and the parts above it (cpu/x86/ ->
//     cpu/), never a sibling (reference/ -> cpu/ is refused); cuda/ parts
//     also include the CUDA engine's device helpers (src/cuda/);
//   - the wiring, the file <name>.cpp in the root, builds the feature
//     objects and their kernels (which path runs what): it alone may include
//     every part of its feature; it is a module of its own, <name>/<name>.cpp.
// tests/ folders may include anything.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <set>

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = SPEEDQA_SOURCE_DIR;

// The module a path (relative to the repository) belongs to: a top folder
// of src/ ("core", "api", ...), "include", "tests", "features" (the
// registry), or inside a feature "features/<name>" (its root),
// "features/<name>/<folder>[/<folder>...]" (a part, e.g.
// "features/speed/cpu/x86") or "features/<name>/<name>.cpp" (its wiring).
std::string module_of(const std::string& rel) {
    if (rel.rfind("include/", 0) == 0) return "include";
    if (rel.rfind("src/", 0) != 0) return "";
    if (rel.find("/tests/") != std::string::npos) return "tests";  // a module's tests may use any layer
    const std::string p = rel.substr(4);
    const size_t slash = p.find('/');
    if (slash == std::string::npos) return "";
    const std::string top = p.substr(0, slash);
    if (top != "features") return top;
    const std::string rest = p.substr(slash + 1);
    const size_t s2 = rest.find('/');
    if (s2 == std::string::npos) return "features";  // the registry
    const std::string name = rest.substr(0, s2);
    const std::string sub = rest.substr(s2 + 1);
    const size_t last = sub.rfind('/');
    if (last == std::string::npos) return sub == name + ".cpp" ? "features/" + name + "/" + sub : "features/" + name;
    return "features/" + name + "/" + sub.substr(0, last);
}

// "features/<name>" of a module inside a feature.
std::string feature_root(const std::string& module) {
    const size_t s = module.find('/', 9);
    return s == std::string::npos ? module : module.substr(0, s);
}

bool is_exact(const std::string& m) { return m == "exact" || m.ends_with("/exact"); }

// Whether module `from` may include a file of module `to`.
bool allowed(const std::string& from, const std::string& to) {
    if (from == to || to.empty() || from == "tests") return true;
    if (is_exact(from)) return to == "exact" || (from != "exact" && to == from);
    if (from == "include") return false;
    if (from == "core") return to == "exact" || to == "include";
    if (from == "io" || from == "cpu") return to == "core" || to == "include";
    if (from == "model") return to == "core" || to == "exact" || to == "include";
    if (from == "cuda") return to == "core" || to == "exact" || to == "include";
    if (from == "cli") return to == "io" || to == "plot" || to == "core" || to == "include";
    if (from == "plot") return to == "io" || to == "model" || to == "core" || to == "include";
    if (from == "api") return to != "cli";
    if (from == "features") return to.rfind("features/", 0) == 0 || to == "core" || to == "include";
    if (from.rfind("features/", 0) == 0) {
        const std::string root = feature_root(from);
        if (to == "core" || to == "exact" || to == "include" || to == root + "/exact") return true;
        if (from == root) return false;                            // the root sees none of its parts
        if (from.ends_with(".cpp")) return to.rfind(root + "/", 0) == 0 || to == root;  // the wiring: all of them
        if (to == root || (to.rfind(root + "/", 0) == 0 && from.rfind(to + "/", 0) == 0)) return true;  // root, parents
        return from.ends_with("/cuda") && to == "cuda";
    }
    return false;
}

struct Include {
    std::string file, target;
};

// The name in a line `#include "name"` (spaces and tabs allowed before and
// after '#', at least one before the quote), or "".
std::string quoted_include(const std::string& line) {
    const auto skip = [&](size_t p) { return p == std::string::npos ? p : line.find_first_not_of(" \t", p); };
    size_t p = skip(0);
    if (p == std::string::npos || line[p] != '#') return "";
    p = skip(p + 1);
    if (p == std::string::npos || line.compare(p, 7, "include") != 0) return "";
    p += 7;
    const size_t q = skip(p);
    if (q == std::string::npos || q == p || line[q] != '"') return "";
    const size_t end = line.find('"', q + 1);
    if (end == std::string::npos || end == q + 1) return "";
    return line.substr(q + 1, end - q - 1);
}

// The string literals of a line, quotes included, leftmost first (a quote
// that no later one closes starts none).
std::vector<std::string> string_literals(const std::string& line) {
    std::vector<std::string> out;
    size_t i = 0;
    while ((i = line.find('"', i)) != std::string::npos) {
        size_t j = i + 1;
        while (j < line.size() && line[j] != '"') j += line[j] == '\\' ? 2 : 1;
        if (j >= line.size()) {
            i++;
            continue;
        }
        out.push_back(line.substr(i, j - i + 1));
        i = j + 1;
    }
    return out;
}

// Whether text holds a flag: "--" and a lower-case letter.
bool names_flag(const std::string& text) {
    for (size_t p = text.find("--"); p != std::string::npos; p = text.find("--", p + 1))
        if (p + 2 < text.size() && text[p + 2] >= 'a' && text[p + 2] <= 'z') return true;
    return false;
}

std::vector<Include> all_includes() {
    std::vector<Include> out;
    for (const char* top : {"src", "include"})
        for (const auto& e : fs::recursive_directory_iterator(kRoot / top)) {
            const std::string ext = e.path().extension().string();
            if (ext != ".hpp" && ext != ".cpp" && ext != ".h" && ext != ".cu" && ext != ".cuh") continue;
            const std::string rel = fs::relative(e.path(), kRoot).string();
            std::ifstream in(e.path());
            std::string line;
            while (std::getline(in, line))
                if (const std::string t = quoted_include(line); !t.empty()) {
                    std::string target;
                    if (fs::exists(kRoot / "src" / t)) target = "src/" + t;
                    else if (fs::exists(kRoot / "include" / t)) target = "include/" + t;
                    else if (fs::exists(e.path().parent_path() / t))
                        target = fs::relative(e.path().parent_path() / t, kRoot).lexically_normal().string();
                    out.push_back({rel, target});  // "" for generated headers (version.hpp)
                }
        }
    return out;
}

TEST(Layering, EveryIncludeFollowsTheFolderRules) {
    const std::vector<Include> includes = all_includes();
    ASSERT_GT(includes.size(), 100u);
    int bad = 0;
    for (const Include& i : includes) {
        const std::string from = module_of(i.file), to = i.target.empty() ? "" : module_of(i.target);
        if (!allowed(from, to)) {
            ADD_FAILURE() << i.file << " (" << from << ") includes " << i.target << " (" << to << ")";
            bad++;
        }
    }
    std::printf("[layering] %zu includes checked, %d break the folder rules\n", includes.size(), bad);
}

// A cycle of the graph as "a -> b -> ... -> a", or "" (depth-first search
// for a back edge).
std::string find_cycle(const std::map<std::string, std::set<std::string>>& edges) {
    std::map<std::string, int> state;  // 0 new, 1 on the path, 2 done
    std::vector<std::string> path;
    std::string cycle;
    std::function<void(const std::string&)> visit = [&](const std::string& n) {
        state[n] = 1;
        path.push_back(n);
        if (const auto e = edges.find(n); e != edges.end())
            for (const std::string& m : e->second) {
                if (!cycle.empty()) break;
                if (state[m] == 1) {
                    for (auto it = std::find(path.begin(), path.end(), m); it != path.end(); ++it) cycle += *it + " -> ";
                    cycle += m;
                } else if (state[m] == 0) {
                    visit(m);
                }
            }
        path.pop_back();
        state[n] = 2;
    };
    for (const auto& [n, _] : edges)
        if (state[n] == 0 && cycle.empty()) visit(n);
    return cycle;
}

// Modules are the nodes: every folder, a feature's folders each on its own
// (so that the root and cpu/ including each other is a cycle), and a
// feature's wiring file.
TEST(Layering, NoFolderCycles) {
    std::map<std::string, std::set<std::string>> edges;
    for (const Include& i : all_includes()) {
        if (i.target.empty()) continue;
        const std::string a = module_of(i.file), b = module_of(i.target);
        if (!a.empty() && !b.empty() && a != b && a != "tests") edges[a].insert(b);
    }
    const std::string cycle = find_cycle(edges);
    EXPECT_EQ(cycle, "") << "folder cycle";
    std::printf("[layering] %zu folders, %s\n", edges.size(), cycle.empty() ? "no cycle" : ("cycle " + cycle).c_str());
}

// The library's messages are in its own words: a command-line flag in one
// (`--model ...`) means nothing to a program calling the API; the command
// adds its flags itself. Checks every string literal of the library's code
// (not the command, its readers and writers, tests or benchmarks).
TEST(Layering, LibraryMessagesNameNoCommandLineFlags) {
    int files = 0;
    std::string found;
    for (const auto& e : fs::recursive_directory_iterator(kRoot / "src")) {
        const std::string ext = e.path().extension().string();
        if (ext != ".hpp" && ext != ".cpp" && ext != ".cu" && ext != ".cuh") continue;
        const std::string rel = fs::relative(e.path(), kRoot).string();
        const std::string m = module_of(rel);
        if (m.empty() || m == "cli" || m == "io" || m == "tests" || rel.find("/bench/") != std::string::npos) continue;
        files++;
        std::ifstream in(e.path());
        std::string line;
        while (std::getline(in, line)) {
            const size_t start = line.find_first_not_of(" \t");
            if (start != std::string::npos && (line.compare(start, 2, "//") == 0 || line[start] == '*')) continue;
            for (const std::string& lit : string_literals(line))
                if (names_flag(lit)) found += "\n  " + rel + ": " + lit;
        }
    }
    EXPECT_GT(files, 50);
    EXPECT_EQ(found, "") << "library messages that name a command-line flag";
    std::printf("[layering] %d library files, %s\n", files, found.empty() ? "no message names a flag" : "messages name flags");
}

// The rules themselves: a few includes that must be refused.
TEST(Layering, TheRulesRefuseWhatTheIssueForbids) {
    EXPECT_FALSE(allowed("features/speed/exact", "core"));
    EXPECT_FALSE(allowed("exact", "features/speed/exact"));
    EXPECT_FALSE(allowed("cpu", "cuda"));
    EXPECT_FALSE(allowed("cuda", "cpu"));
    EXPECT_FALSE(allowed("cpu", "features/speed"));
    EXPECT_FALSE(allowed("core", "cpu"));
    EXPECT_FALSE(allowed("io", "cpu"));
    EXPECT_FALSE(allowed("features/speed", "cpu"));
    EXPECT_FALSE(allowed("features/speed", "features/adm"));
    EXPECT_FALSE(allowed("features/speed", "cuda"));
    EXPECT_FALSE(allowed("cli", "api"));
    EXPECT_FALSE(allowed("plot", "api"));
    EXPECT_FALSE(allowed("io", "plot"));
    EXPECT_TRUE(allowed("features/speed/cuda", "cuda"));
    EXPECT_TRUE(allowed("api", "cpu"));
    // inside a feature: the root sees none of its parts, a part sees the
    // root and the parts above it but no sibling, only the wiring sees all
    EXPECT_FALSE(allowed("features/speed", "features/speed/cpu"));
    EXPECT_FALSE(allowed("features/speed", "features/speed/reference"));
    EXPECT_FALSE(allowed("features/speed", "features/speed/cuda"));
    EXPECT_FALSE(allowed("features/speed", "features/speed/speed.cpp"));
    EXPECT_FALSE(allowed("features/adm", "features/adm/x86"));
    EXPECT_FALSE(allowed("features/speed/reference", "features/speed/cpu"));
    EXPECT_FALSE(allowed("features/speed/cpu", "features/speed/reference"));
    EXPECT_FALSE(allowed("features/speed/cpu", "features/speed/cuda"));
    EXPECT_FALSE(allowed("features/speed/cuda", "features/speed/cpu"));
    EXPECT_FALSE(allowed("features/speed/cpu", "features/speed/cpu/x86"));
    EXPECT_FALSE(allowed("features/speed/cpu", "cuda"));
    EXPECT_FALSE(allowed("features/speed/cpu", "features/adm"));
    EXPECT_FALSE(allowed("features/speed/cpu", "features/adm/exact"));
    EXPECT_FALSE(allowed("features/speed/speed.cpp", "features/adm"));
    EXPECT_FALSE(allowed("features/speed/speed.cpp", "cpu"));
    EXPECT_FALSE(allowed("features/speed/cpu/x86", "features/speed/reference"));
    EXPECT_TRUE(allowed("features/speed/cpu", "features/speed"));
    EXPECT_TRUE(allowed("features/speed/cpu/x86", "features/speed/cpu"));
    EXPECT_TRUE(allowed("features/speed/cpu/x86", "features/speed"));
    EXPECT_TRUE(allowed("features/speed/reference", "features/speed"));
    EXPECT_TRUE(allowed("features/speed/cuda", "features/speed"));
    EXPECT_TRUE(allowed("features/adm/x86", "features/adm"));
    EXPECT_TRUE(allowed("features/speed/cpu", "features/speed/exact"));
    EXPECT_TRUE(allowed("features/speed/speed.cpp", "features/speed/cpu"));
    EXPECT_TRUE(allowed("features/speed/speed.cpp", "features/speed/reference"));
    EXPECT_TRUE(allowed("features/speed/speed.cpp", "features/speed/cuda"));
    EXPECT_TRUE(allowed("features/speed/speed.cpp", "features/speed"));
    EXPECT_TRUE(allowed("features", "features/speed/cpu"));
}

// Which module a file is in: a feature's folders are told apart.
TEST(Layering, ModulesSeeInsideFeatures) {
    EXPECT_EQ(module_of("src/features/speed/plan.hpp"), "features/speed");
    EXPECT_EQ(module_of("src/features/speed/speed_feature.hpp"), "features/speed");
    EXPECT_EQ(module_of("src/features/speed/speed.cpp"), "features/speed/speed.cpp");
    EXPECT_EQ(module_of("src/features/speed/speed.hpp"), "features/speed");
    EXPECT_EQ(module_of("src/features/speed/cpu/est_params.cpp"), "features/speed/cpu");
    EXPECT_EQ(module_of("src/features/speed/cpu/x86/kernels_avx2.cpp"), "features/speed/cpu/x86");
    EXPECT_EQ(module_of("src/features/speed/reference/full_frame.cpp"), "features/speed/reference");
    EXPECT_EQ(module_of("src/features/speed/cuda/kernels.cu"), "features/speed/cuda");
    EXPECT_EQ(module_of("src/features/speed/exact/solve.hpp"), "features/speed/exact");
    EXPECT_EQ(module_of("src/features/adm/adm.cpp"), "features/adm/adm.cpp");
    EXPECT_EQ(module_of("src/features/adm/kernels_c.cpp"), "features/adm");
    EXPECT_EQ(module_of("src/features/adm/x86/kernels_avx2.cpp"), "features/adm/x86");
    EXPECT_EQ(module_of("src/features/adm/bench/adm_bench.cpp"), "features/adm/bench");
    EXPECT_EQ(module_of("src/features/speed/tests/golden_test.cpp"), "tests");
    EXPECT_EQ(module_of("src/features/registry.cpp"), "features");
    EXPECT_EQ(module_of("src/core/x86/vec.hpp"), "core");
    EXPECT_EQ(module_of("src/exact/filter.hpp"), "exact");
}

// The cycle search finds the cycle SpEED's folders had (the root included
// cpu/ and reference/, which included the root, reference/ also cpu/) and
// none in the same folders with the root's edges on the wiring; one edge
// back from exact/ makes one again.
TEST(Layering, TheCycleSearchFindsAFeaturesCycle) {
    std::map<std::string, std::set<std::string>> before = {
        {"features/speed", {"features/speed/cpu", "features/speed/reference", "features/speed/exact"}},
        {"features/speed/cpu", {"features/speed", "features/speed/exact"}},
        {"features/speed/reference", {"features/speed", "features/speed/cpu"}},
    };
    EXPECT_EQ(find_cycle(before), "features/speed -> features/speed/cpu -> features/speed");
    std::map<std::string, std::set<std::string>> after = {
        {"features/speed/speed.cpp", {"features/speed", "features/speed/cpu", "features/speed/reference"}},
        {"features/speed", {"features/speed/exact"}},
        {"features/speed/cpu", {"features/speed", "features/speed/exact"}},
        {"features/speed/reference", {"features/speed", "features/speed/exact"}},
    };
    EXPECT_EQ(find_cycle(after), "");
    after["features/speed/exact"].insert("features/speed/reference");
    EXPECT_EQ(find_cycle(after),
              "features/speed -> features/speed/exact -> features/speed/reference -> features/speed");
}

}  // namespace

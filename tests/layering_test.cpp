// The folder rules of the source tree, checked on every #include "..." of
// src/ and include/: data flows one way (exact <- core <- features <- the
// engines <- api <- cli, and io, model <- plot <- cli), exact arithmetic
// includes nothing of ours outside exact folders, the CPU and CUDA engines
// never include each other, io knows only the types, and no two folders
// include each other, directly or through others.
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

// The module a path (relative to the repository) belongs to.
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
    if (sub.rfind("exact/", 0) == 0) return "features/" + name + "/exact";
    if (sub.rfind("cuda/", 0) == 0) return "features/" + name + "/cuda";
    return "features/" + name;
}

std::string folder_of(const std::string& module) {
    if (module.rfind("features/", 0) == 0) {
        const std::string rest = module.substr(9);
        const size_t s = rest.find('/');
        return s == std::string::npos ? module : "features/" + rest.substr(0, s) + (rest.ends_with("/exact") ? "/exact" : "");
    }
    return module;
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
        const std::string base = from.ends_with("/cuda") ? from.substr(0, from.size() - 5) : from;
        if (to == "core" || to == "exact" || to == "include" || to == base + "/exact") return true;
        if (from.ends_with("/cuda")) return to == base || to == "cuda";
        return false;
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

TEST(Layering, NoFolderCycles) {
    std::map<std::string, std::set<std::string>> edges;
    for (const Include& i : all_includes()) {
        if (i.target.empty()) continue;
        const std::string a = folder_of(module_of(i.file)), b = folder_of(module_of(i.target));
        if (!a.empty() && !b.empty() && a != b && a != "tests") edges[a].insert(b);
    }
    // depth-first search for a back edge
    std::map<std::string, int> state;  // 0 new, 1 on the path, 2 done
    std::vector<std::string> path;
    std::string cycle;
    std::function<void(const std::string&)> visit = [&](const std::string& n) {
        state[n] = 1;
        path.push_back(n);
        for (const std::string& m : edges[n]) {
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
}

}  // namespace

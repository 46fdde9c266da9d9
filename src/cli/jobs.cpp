#include "cli/jobs.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>

#include "cli/run.hpp"
#include "speedqa/error.hpp"

namespace speedqa::cli {
namespace {

// The fields of a line, or an error.
std::vector<std::string> split_fields(const std::string& line, std::string& error) {
    std::vector<std::string> fields;
    size_t i = 0;
    while (true) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) i++;
        if (i >= line.size()) break;
        std::string f;
        if (line[i] == '"') {
            bool closed = false;
            for (i++; i < line.size(); i++) {
                if (line[i] == '\\' && i + 1 < line.size() && (line[i + 1] == '"' || line[i + 1] == '\\')) {
                    f += line[++i];
                } else if (line[i] == '"') {
                    closed = true;
                    i++;
                    break;
                } else {
                    f += line[i];
                }
            }
            if (!closed) {
                error = "a quoted field is not closed";
                return {};
            }
            if (i < line.size() && line[i] != ' ' && line[i] != '\t') {
                error = "a quoted field runs into the next one";
                return {};
            }
        } else {
            while (i < line.size() && line[i] != ' ' && line[i] != '\t') f += line[i++];
        }
        fields.push_back(f);
    }
    return fields;
}

// "jobs FILE:LINE: "
std::string where(const Settings& s, int line) { return "jobs " + s.jobs_file + ":" + std::to_string(line) + ": "; }

// Runs lines that share a reference in one pass; returns how many failed
// (each reported with its line).
int run_group(const Settings& s, const std::vector<const JobLine*>& lines) {
    Settings g = s;
    g.reference = lines.front()->reference;
    g.distorted.clear();
    g.outputs.clear();
    for (const JobLine* l : lines) {
        g.distorted.push_back(l->distorted);
        g.outputs.push_back(l->output);
    }
    g.exit_when_done = false;
    try {
        return run(g) == 0 ? 0 : static_cast<int>(lines.size());
    } catch (const Error& e) {
        if (lines.size() == 1) {
            print_error("error", where(s, lines.front()->line) + e.what());
            return 1;
        }
    }
    // one of them failed the pass: each line on its own, so that the others still run
    int failed = 0;
    for (const JobLine* l : lines) failed += run_group(s, {l});
    return failed;
}

}  // namespace

std::vector<JobLine> read_jobs_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error("jobs file " + path + ": cannot read it");
    std::vector<JobLine> out;
    std::string text;
    for (int n = 1; std::getline(in, text); n++) {
        if (!text.empty() && text.back() == '\r') text.pop_back();
        const size_t first = text.find_first_not_of(" \t");
        if (first == std::string::npos || text[first] == '#') continue;
        JobLine l;
        l.line = n;
        const std::vector<std::string> f = split_fields(text, l.error);
        if (l.error.empty() && f.size() != 3)
            l.error = "expected 3 fields (reference, distorted, output), found " + std::to_string(f.size());
        if (l.error.empty()) {
            l.reference = f[0];
            l.distorted = f[1];
            l.output = f[2];
            if (l.reference == "-" || l.distorted == "-") l.error = "standard input cannot be read from a jobs file";
        }
        out.push_back(std::move(l));
    }
    if (in.bad()) throw Error("jobs file " + path + ": cannot read it");
    return out;
}

int run_jobs(const Settings& s) {
    std::vector<JobLine> lines = read_jobs_file(s.jobs_file);
    if (lines.empty()) throw Error("jobs file " + s.jobs_file + ": no jobs in it");
    // a second line writing an output an earlier line writes is refused
    std::map<std::string, int> writers;
    for (JobLine& l : lines) {
        if (!l.error.empty() || l.output == "-") continue;
        const auto [it, fresh] = writers.emplace(l.output, l.line);
        if (!fresh) l.error = "line " + std::to_string(it->second) + " already writes " + l.output;
    }
    // a file that cannot be opened fails its line before the passes (it
    // would make the pass of its reference run again line by line)
    for (JobLine& l : lines)
        for (const std::string* path : {&l.reference, &l.distorted}) {
            if (!l.error.empty()) break;
            if (FILE* f = std::fopen(path->c_str(), "rb")) std::fclose(f);
            else l.error = *path + ": cannot open: " + std::strerror(errno);
        }
    // lines that share a reference, in the order of their first line
    std::vector<std::string> order;
    std::map<std::string, std::vector<const JobLine*>> groups;
    int failed = 0;
    for (const JobLine& l : lines) {
        if (!l.error.empty()) {
            print_error("error", where(s, l.line) + l.error);
            failed++;
            continue;
        }
        if (!groups.count(l.reference)) order.push_back(l.reference);
        groups[l.reference].push_back(&l);
    }
    for (const std::string& ref : order) failed += run_group(s, groups[ref]);
    if (!s.quiet)
        std::fprintf(stderr, "jobs %s: %zu line%s scored, %d failed\n", s.jobs_file.c_str(), lines.size() - failed,
                     lines.size() - failed == 1 ? "" : "s", failed);
    return failed == 0 ? 0 : 1;
}

}  // namespace speedqa::cli

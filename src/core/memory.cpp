#include "core/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace speedqa {
namespace {

constexpr size_t kUnknown = std::numeric_limits<size_t>::max();

// The first whitespace-separated number after `key` in a file of "key
// value" lines (/proc/meminfo, memory.stat), times `unit`; kUnknown if absent.
size_t keyed_value(const std::string& path, const std::string& key, size_t unit) {
    std::ifstream in(path);
    std::string k;
    unsigned long long v = 0;
    while (in >> k) {
        if (k == key && in >> v) return static_cast<size_t>(v) * unit;
        in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    return kUnknown;
}

// A file holding one number ("max" and absent files: kUnknown).
size_t file_value(const std::string& path) {
    std::ifstream in(path);
    unsigned long long v = 0;
    return in >> v ? static_cast<size_t>(v) : kUnknown;
}

// What a cgroup folder allows beyond what it uses: limit - (usage - the
// inactive page cache the kernel reclaims before it fails an allocation).
size_t cgroup_headroom(const std::string& dir, const char* limit_file, const char* usage_file,
                       const char* inactive_key) {
    const size_t limit = file_value(dir + "/" + limit_file);
    if (limit == kUnknown || limit >= (size_t{1} << 60)) return kUnknown;  // v1 writes "no limit" as ~2^63
    size_t usage = file_value(dir + "/" + usage_file);
    if (usage == kUnknown) return kUnknown;
    const size_t inactive = keyed_value(dir + "/memory.stat", inactive_key, 1);
    if (inactive != kUnknown) usage -= std::min(usage, inactive);
    return limit > usage ? limit - usage : 0;
}

// The least headroom of the process's cgroup and each cgroup above it
// (v2 and v1's memory controller; a container may show its own cgroup as
// the root of the mount).
size_t cgroup_available() {
    std::ifstream self("/proc/self/cgroup");
    std::string line;
    size_t best = kUnknown;
    while (std::getline(self, line)) {
        const size_t a = line.find(':'), b = line.find(':', a + 1);
        if (a == std::string::npos || b == std::string::npos) continue;
        const std::string controllers = line.substr(a + 1, b - a - 1);
        std::string path = line.substr(b + 1);
        const bool v2 = controllers.empty();
        if (!v2 && controllers.find("memory") == std::string::npos) continue;
        const std::string root = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
        for (;;) {
            const size_t h = v2 ? cgroup_headroom(root + path, "memory.max", "memory.current", "inactive_file")
                                : cgroup_headroom(root + path, "memory.limit_in_bytes", "memory.usage_in_bytes",
                                                  "total_inactive_file");
            best = std::min(best, h);
            if (path.empty() || path == "/") break;
            path = path.substr(0, path.rfind('/'));
        }
    }
    return best;
}

// RLIMIT_AS minus the address space in use.
size_t address_space_available() {
    struct rlimit r;
    if (::getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return kUnknown;
    std::ifstream statm("/proc/self/statm");
    size_t pages = 0;
    statm >> pages;
    const size_t used = pages * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    return r.rlim_cur > used ? static_cast<size_t>(r.rlim_cur) - used : 0;
}

// SPEEDQA_MEMORY_LIMIT: bytes, or a number with K, M, G or T (powers of 1024).
size_t configured_limit() {
    const char* v = std::getenv("SPEEDQA_MEMORY_LIMIT");
    if (!v || !*v) return kUnknown;
    const std::string text = v;
    char* end = nullptr;
    const double n = std::strtod(text.c_str(), &end);
    const std::string suffix = end ? std::string(end) : "";
    const char* units = "KMGT";
    double scale = 1;
    bool ok = end != text.c_str() && n >= 0 && suffix.size() <= 1;
    if (ok && suffix.size() == 1) {
        const char* u = std::strchr(units, std::toupper(static_cast<unsigned char>(suffix[0])));
        ok = u && *u;
        if (ok) scale = static_cast<double>(size_t{1} << (10 * (u - units + 1)));
    }
    if (!ok || !(n * scale < 1.8e19))
        throw Error("SPEEDQA_MEMORY_LIMIT=" + text + " is not a size (expected bytes, or a number with K, M, G or T)");
    return static_cast<size_t>(n * scale);
}

}  // namespace

AvailableMemory available_memory() {
    const AvailableMemory bounds[] = {
        {configured_limit(), "SPEEDQA_MEMORY_LIMIT"},
        {cgroup_available(), "the cgroup's memory limit"},
        {address_space_available(), "the address-space limit, ulimit -v"},
        {keyed_value("/proc/meminfo", "MemAvailable:", 1024), "the system's available memory"},
    };
    AvailableMemory least{kUnknown, "no limit known"};
    for (const AvailableMemory& b : bounds)
        if (b.bytes < least.bytes) least = b;
    return least;
}

std::string format_bytes(size_t bytes) {
    char buf[32];
    const double b = static_cast<double>(bytes);
    if (b >= 1e9) std::snprintf(buf, sizeof buf, "%.1f GB", b / 1e9);
    else if (b >= 1e6) std::snprintf(buf, sizeof buf, "%.0f MB", b / 1e6);
    else if (b >= 1e3) std::snprintf(buf, sizeof buf, "%.0f KB", b / 1e3);
    else std::snprintf(buf, sizeof buf, "%zu bytes", bytes);
    return buf;
}

}  // namespace speedqa

// write_file(), write_scores_file(): a file appears complete or not at all.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>

#include "core/error.hpp"
#include "io/score_writer.hpp"

namespace speedqa::io {

namespace {

std::string errno_text() { return std::strerror(errno); }

// Writes all of `text` to fd, a megabyte at a time (a signal that comes
// meanwhile is handled between two writes); false (errno set) on failure.
bool write_all(int fd, const std::string& text) {
    constexpr size_t kChunk = size_t{1} << 20;
    size_t done = 0;
    while (done < text.size()) {
        ssize_t n = ::write(fd, text.data() + done, std::min(text.size() - done, kChunk));
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        done += static_cast<size_t>(n);
    }
    return true;
}

// The process umask, read without changing it (umask() would, briefly, for
// every thread); 022 when /proc is not there.
mode_t current_umask() {
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "Umask:") {
            unsigned mask = 022;
            status >> std::oct >> mask;
            return static_cast<mode_t>(mask & 0777);
        }
    }
    return 022;
}

// An existing file that is not a regular one (/dev/stdout, /dev/null, a
// FIFO) cannot be replaced: it is written where it is.
void write_in_place(const std::string& path, const std::string& text) {
    int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) throw Error(path + ": cannot open for writing: " + errno_text());
    bool ok = write_all(fd, text);
    std::string why = ok ? "" : errno_text();
    if (::close(fd) != 0 && ok) {
        ok = false;
        why = errno_text();
    }
    if (!ok) throw Error(path + ": cannot write: " + why);
}

// Where writing `path` puts the file: through symbolic links, dangling ones
// included, as fopen() would (and, as fopen(), not through a loop).
std::string follow_links(const std::string& path) {
    std::string t = path;
    for (int hops = 0; hops <= 40; hops++) {
        struct stat st;
        if (::lstat(t.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return t;
        std::string link(PATH_MAX, '\0');
        ssize_t n = ::readlink(t.c_str(), link.data(), link.size());
        if (n <= 0 || static_cast<size_t>(n) >= link.size()) return t;
        link.resize(static_cast<size_t>(n));
        const size_t slash = t.rfind('/');
        if (link[0] != '/' && slash != std::string::npos) link = t.substr(0, slash + 1) + link;
        t = link;
    }
    throw Error(path + ": too many levels of symbolic links");
}

// The temporary being written, for the signal handler to remove. One at a
// time (writes take turns): a fixed buffer and lock-free atomics are all a
// handler may touch.
enum TempState { kIdle, kCreating, kArmed };
char g_temp_path[PATH_MAX + 1];
std::atomic<int> g_temp_state{kIdle};
std::atomic<int> g_deferred_signal{0};  // a signal that came while the temporary was being created
static_assert(std::atomic<int>::is_always_lock_free);

// Signals whose default action ends the process: ^C, kill, a closed
// terminal, a file-size limit (ulimit -f) met by the write itself.
constexpr int kFatalSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ};

extern "C" void remove_temp_and_die(int sig) {
    const int state = g_temp_state.load();
    if (state == kCreating) {
        // the file may exist under a name not known yet: the writer acts
        // on the signal as soon as it knows it
        g_deferred_signal.store(sig);
        return;
    }
    if (state == kArmed) ::unlink(g_temp_path);
    // SA_RESETHAND restored the default action; the signal is blocked while
    // this runs and is delivered again, now fatal, when it returns
    ::raise(sig);
}

// While it lives, those of the signals that would end the process with
// their default action remove the temporary first (a handler an
// application installed, or an ignored signal, is left alone). It starts
// in the state "creating": a signal then waits for arm().
class TempFileGuard {
public:
    TempFileGuard() : lock_(mutex()) {
        g_deferred_signal.store(0);
        g_temp_state.store(kCreating);
        struct sigaction ours {};
        ours.sa_handler = remove_temp_and_die;
        ours.sa_flags = SA_RESETHAND;
        sigemptyset(&ours.sa_mask);
        for (size_t i = 0; i < std::size(kFatalSignals); i++) {
            struct sigaction old {};
            installed_[i] = ::sigaction(kFatalSignals[i], nullptr, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
                            old.sa_handler == SIG_DFL && ::sigaction(kFatalSignals[i], &ours, nullptr) == 0;
        }
    }
    ~TempFileGuard() {
        disarm();
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        for (size_t i = 0; i < std::size(kFatalSignals); i++)
            if (installed_[i]) ::sigaction(kFatalSignals[i], &dfl, nullptr);
    }
    TempFileGuard(const TempFileGuard&) = delete;
    TempFileGuard& operator=(const TempFileGuard&) = delete;

    // The temporary `path` exists: a signal removes it (and one that came
    // while it was being created does so now).
    void arm(const std::string& path) {
        if (path.size() < sizeof g_temp_path) {  // (mkstemp never makes a longer one)
            std::memcpy(g_temp_path, path.c_str(), path.size() + 1);
            g_temp_state.store(kArmed);
        }
        if (const int sig = g_deferred_signal.exchange(0)) {
            ::unlink(path.c_str());
            ::raise(sig);
        }
    }
    // No temporary any more (renamed, removed, or never created).
    void disarm() {
        g_temp_state.store(kIdle);
        if (const int sig = g_deferred_signal.exchange(0)) ::raise(sig);
    }

private:
    static std::mutex& mutex() {
        static std::mutex m;
        return m;
    }
    std::lock_guard<std::mutex> lock_;
    bool installed_[std::size(kFatalSignals)] = {};
};

// Where a score file for `path` goes.
struct Target {
    enum Kind { standard_output, in_place, replaced } kind;
    std::string path;     // in_place: `path`; replaced: the file the links lead to
    std::string dir;      // replaced: the folder of `path`, where the temporary file goes
    std::string tmp;      // replaced: mkstemp's template of the temporary file
    mode_t mode = 0;      // replaced: the mode the file gets
};

Target resolve(const std::string& path) {
    if (path == "-") return {Target::standard_output, path, "", "", 0};
    if (path.empty()) throw Error("the output path is empty");
    // /dev/stdout and friends stand for an open file, maybe a regular one
    // the shell redirected to: replacing it would lose the output. Other
    // existing files that are not regular (FIFOs) cannot be replaced either.
    if (path.starts_with("/dev/") || path.starts_with("/proc/")) return {Target::in_place, path, "", "", 0};
    Target t{Target::replaced, follow_links(path), "", "", 0666 & ~current_umask()};
    struct stat st;
    if (::stat(t.path.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) throw Error(path + ": is a directory");
        if (!S_ISREG(st.st_mode)) return {Target::in_place, path, "", "", 0};
        t.mode = st.st_mode & 07777;  // a replaced file keeps its mode
    }
    if (t.path.back() == '/') throw Error(path + ": is a directory");
    const size_t slash = t.path.rfind('/');
    t.dir = slash == std::string::npos ? "." : slash == 0 ? "/" : t.path.substr(0, slash);
    const std::string base = slash == std::string::npos ? t.path : t.path.substr(slash + 1);
    t.tmp = (slash == std::string::npos ? std::string() : t.path.substr(0, slash + 1)) + "." + base.substr(0, 200) +
            ".tmp-XXXXXX";
    return t;
}

// A new temporary file beside the target (its name is left in t.tmp).
int create_temporary(const std::string& path, Target& t) {
    int fd = ::mkstemp(t.tmp.data());
    if (fd < 0) throw Error(path + ": cannot create a file in " + t.dir + ": " + errno_text());
    return fd;
}

}  // namespace

void check_output_writable(const std::string& path) {
    Target t = resolve(path);
    switch (t.kind) {
    case Target::standard_output: return;
    case Target::in_place:
        if (::access(path.c_str(), W_OK) != 0) throw Error(path + ": cannot open for writing: " + errno_text());
        return;
    case Target::replaced: {
        // what writing it at the end will do: create a file in that folder
        TempFileGuard guard;
        const int fd = create_temporary(path, t);
        guard.arm(t.tmp);
        ::close(fd);
        ::unlink(t.tmp.c_str());
        return;
    }
    }
}

void write_scores_file(const std::string& path, OutputFormat fmt, const ScoreTable& table, Precision p) {
    write_file(path, format_scores(fmt, table, p));
}

void write_file(const std::string& path, const std::string& text) {
    Target t = resolve(path);
    if (t.kind == Target::standard_output) {
        if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
            throw Error("stdout: cannot write: " + errno_text());
        return;
    }
    if (t.kind == Target::in_place) return write_in_place(path, text);
    TempFileGuard guard;
    const int fd = create_temporary(path, t);
    guard.arm(t.tmp);

    // No fsync: the rename makes the file appear whole or not at all for any
    // reader; flushing to the disk is the system's business (vmaf does not
    // either), and on ext4 an fsync can wait for unrelated dirty data.
    bool ok = write_all(fd, text) && ::fchmod(fd, t.mode) == 0;
    std::string why = ok ? "" : errno_text();
    if (::close(fd) != 0 && ok) {
        ok = false;
        why = errno_text();
    }
    if (ok && ::rename(t.tmp.c_str(), t.path.c_str()) != 0) {
        ok = false;
        why = errno_text();
    }
    if (ok) return guard.disarm();
    ::unlink(t.tmp.c_str());
    guard.disarm();
    throw Error(path + ": cannot write: " + why);
}

}  // namespace speedqa::io

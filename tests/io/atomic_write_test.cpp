// write_scores_file(): complete files or none.
#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <thread>

#include "core/error.hpp"
#include "io/score_writer.hpp"
#include "io_test_util.hpp"

namespace speedqa::io {
namespace {

using test::error_of;
using test::TempDir;

ScoreTable table() {
    ScoreTable t;
    t.metric_names = {"speed_chroma_uv"};
    t.frames = {{1.0}, {2.0}};
    t.version = "3.0.0";
    return t;
}

const std::string kCsv = "Frame,speed_chroma_uv,\n0,1.000000,\n1,2.000000,\n";

TEST(AtomicWrite, WritesAndReplaces) {
    TempDir dir;
    std::string path = dir.file("out.csv");
    write_scores_file(path, OutputFormat::csv, table(), {});
    EXPECT_EQ(test::read_file(path), kCsv);
    EXPECT_EQ(dir.list(), std::vector<std::string>{"out.csv"});  // no temporary left

    test::write_file(path, std::string(10000, 'o'));  // longer: must not leave a tail
    ::chmod(path.c_str(), 0640);
    write_scores_file(path, OutputFormat::csv, table(), {});
    EXPECT_EQ(test::read_file(path), kCsv);
    struct stat st;
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0640u);  // a replaced file keeps its mode
    EXPECT_EQ(dir.list(), std::vector<std::string>{"out.csv"});
}

TEST(AtomicWrite, NewFileModeFollowsTheUmask) {
    TempDir dir;
    mode_t old = ::umask(027);
    write_scores_file(dir.file("a.json"), OutputFormat::json, table(), {});
    ::umask(old);
    struct stat st;
    ASSERT_EQ(::stat(dir.file("a.json").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST(AtomicWrite, RelativePath) {
    TempDir dir;
    auto cwd = std::filesystem::current_path();
    std::filesystem::current_path(dir.path());
    write_scores_file("rel.sub", OutputFormat::sub, table(), {});
    std::filesystem::current_path(cwd);
    EXPECT_EQ(test::read_file(dir.file("rel.sub")), "{0}{1}frame: 0|speed_chroma_uv: 1.000000|\n"
                                                     "{1}{2}frame: 1|speed_chroma_uv: 2.000000|\n");
}

TEST(AtomicWrite, ThroughASymlink) {
    TempDir dir;
    test::write_file(dir.file("real.csv"), "old");
    ASSERT_EQ(::symlink("real.csv", dir.file("link.csv").c_str()), 0);
    write_scores_file(dir.file("link.csv"), OutputFormat::csv, table(), {});
    EXPECT_EQ(test::read_file(dir.file("real.csv")), kCsv);
    EXPECT_TRUE(std::filesystem::is_symlink(dir.file("link.csv")));
    EXPECT_EQ(dir.list(), (std::vector<std::string>{"link.csv", "real.csv"}));

    // A dangling one creates its target.
    ASSERT_EQ(::symlink("new.csv", dir.file("to_new.csv").c_str()), 0);
    write_scores_file(dir.file("to_new.csv"), OutputFormat::csv, table(), {});
    EXPECT_EQ(test::read_file(dir.file("new.csv")), kCsv);
    EXPECT_TRUE(std::filesystem::is_symlink(dir.file("to_new.csv")));
    EXPECT_EQ(dir.list(), (std::vector<std::string>{"link.csv", "new.csv", "real.csv", "to_new.csv"}));
}

TEST(AtomicWrite, Fifo) {
    TempDir dir;
    std::string fifo = dir.file("out.fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string got;
    std::thread reader([&] { got = test::read_file(fifo); });
    write_scores_file(fifo, OutputFormat::csv, table(), {});
    reader.join();
    EXPECT_EQ(got, kCsv);
}

TEST(AtomicWrite, FailuresLeaveNothing) {
    TempDir dir;
    std::string missing_dir = dir.file("no/such/dir/out.xml");
    std::string e = error_of([&] { write_scores_file(missing_dir, OutputFormat::xml, table(), {}); });
    EXPECT_EQ(e, missing_dir + ": cannot create a file in " + dir.file("no/such/dir") + ": No such file or directory");

    test::write_file(dir.file("plain"), "x");
    e = error_of([&] { write_scores_file(dir.file("plain/out.xml"), OutputFormat::xml, table(), {}); });
    EXPECT_NE(e.find(": Not a directory"), std::string::npos) << e;

    // The target is a directory: refused before anything is written.
    std::filesystem::create_directory(dir.file("sub"));
    e = error_of([&] { write_scores_file(dir.file("sub"), OutputFormat::xml, table(), {}); });
    EXPECT_EQ(e, dir.file("sub") + ": is a directory");
    e = error_of([&] { write_scores_file(dir.file("sub") + "/", OutputFormat::xml, table(), {}); });
    EXPECT_NE(e.find("is a directory"), std::string::npos) << e;

    // A dangling symlink is followed, as fopen() would: into a missing
    // directory it fails, leaving nothing behind.
    ASSERT_EQ(::symlink("gone/x.csv", dir.file("dangling").c_str()), 0);
    e = error_of([&] { write_scores_file(dir.file("dangling"), OutputFormat::csv, table(), {}); });
    EXPECT_EQ(e, dir.file("dangling") + ": cannot create a file in " + dir.file("gone") + ": No such file or directory");
    EXPECT_TRUE(std::filesystem::is_symlink(dir.file("dangling")));

    EXPECT_EQ(dir.list(), (std::vector<std::string>{"dangling", "plain", "sub"}));
    EXPECT_TRUE(std::filesystem::is_empty(dir.file("sub")));
    EXPECT_EQ(error_of([&] { write_scores_file("", OutputFormat::csv, table(), {}); }), "the output path is empty");
}

TEST(AtomicWrite, UnwritableDirectory) {
    if (::geteuid() == 0) GTEST_SKIP() << "root may write anywhere";
    TempDir dir;
    std::filesystem::create_directory(dir.file("ro"));
    ::chmod(dir.file("ro").c_str(), 0555);
    std::string path = dir.file("ro/out.json");
    EXPECT_EQ(error_of([&] { write_scores_file(path, OutputFormat::json, table(), {}); }),
              path + ": cannot create a file in " + dir.file("ro") + ": Permission denied");
    EXPECT_TRUE(std::filesystem::is_empty(dir.file("ro")));
    ::chmod(dir.file("ro").c_str(), 0755);
}

TEST(AtomicWrite, DevicesAreWrittenInPlace) {
    EXPECT_EQ(error_of([&] { write_scores_file("/dev/null", OutputFormat::csv, table(), {}); }), "");
    EXPECT_EQ(error_of([&] { write_scores_file("/dev/full", OutputFormat::csv, table(), {}); }),
              "/dev/full: cannot write: No space left on device");
}

// Links are followed, as vmaf's fopen() does, but the target is replaced
// atomically and the link stays a link: through a chain of links, and
// relative ones resolved from the folder of the link.
TEST(AtomicWrite, ThroughAChainOfRelativeSymlinks) {
    TempDir dir;
    std::filesystem::create_directories(dir.file("a/b"));
    test::write_file(dir.file("a/real.csv"), "old");
    ASSERT_EQ(::symlink("../real.csv", dir.file("a/b/first").c_str()), 0);   // -> a/real.csv
    ASSERT_EQ(::symlink("a/b/first", dir.file("second").c_str()), 0);        // -> a/b/first
    write_scores_file(dir.file("second"), OutputFormat::csv, table(), {});
    EXPECT_EQ(test::read_file(dir.file("a/real.csv")), kCsv);
    EXPECT_TRUE(std::filesystem::is_symlink(dir.file("second")));
    EXPECT_TRUE(std::filesystem::is_symlink(dir.file("a/b/first")));
    EXPECT_EQ(dir.list(), (std::vector<std::string>{"a", "second"}));
}

TEST(AtomicWrite, SymlinkLoopIsRefused) {
    TempDir dir;
    ASSERT_EQ(::symlink("two", dir.file("one").c_str()), 0);
    ASSERT_EQ(::symlink("one", dir.file("two").c_str()), 0);
    EXPECT_EQ(error_of([&] { write_scores_file(dir.file("one"), OutputFormat::csv, table(), {}); }),
              dir.file("one") + ": too many levels of symbolic links");
    EXPECT_TRUE(std::filesystem::is_symlink(dir.file("one")));
    EXPECT_TRUE(std::filesystem::is_symlink(dir.file("two")));
    EXPECT_EQ(dir.list(), (std::vector<std::string>{"one", "two"}));
}

// A table whose text (55 MB of XML) takes tens of milliseconds to write:
// time for the signal to arrive on a loaded machine (5 MB were not always).
ScoreTable large_table() {
    ScoreTable t;
    t.metric_names = {"a", "b", "c", "d"};
    t.frames.assign(640000, std::vector<double>{0.25, 0.5, 0.75, 1.0});
    return t;
}

// SIGINT or SIGTERM while the scores are written: the process dies of the
// signal as it would have, and the temporary beside the output is gone too.
// The signal is sent as soon as the temporary appears, and as soon as its
// first bytes are written (inotify).
TEST(AtomicWrite, KilledWhileWritingLeavesNothing) {
    const ScoreTable big = large_table();
    for (const auto& [sig, event] : {std::pair{SIGINT, IN_CREATE}, std::pair{SIGTERM, IN_CREATE},
                                     std::pair{SIGINT, IN_MODIFY}, std::pair{SIGTERM, IN_MODIFY}}) {
        SCOPED_TRACE(std::string(strsignal(sig)) + (event == IN_CREATE ? " on creation" : " while writing"));
        TempDir dir;
        test::write_file(dir.file("out.xml"), "old");
        const int watch = ::inotify_init1(IN_CLOEXEC);
        ASSERT_GE(watch, 0);
        ASSERT_GE(::inotify_add_watch(watch, dir.path().c_str(), event), 0);
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            std::thread([watch, sig = sig] {
                char event[4096];
                if (::read(watch, event, sizeof event) > 0) ::kill(::getpid(), sig);
            }).detach();
            try {
                write_scores_file(dir.file("out.xml"), OutputFormat::xml, big, {});
            } catch (...) {
            }
            ::pause();  // the signal is on its way
            ::_exit(0);
        }
        ::close(watch);
        int status = 0;
        ASSERT_EQ(::waitpid(child, &status, 0), child);
        ASSERT_TRUE(WIFSIGNALED(status)) << "exited with " << WEXITSTATUS(status);
        EXPECT_EQ(WTERMSIG(status), sig);
        EXPECT_EQ(dir.list(), std::vector<std::string>{"out.xml"}) << "a temporary was left behind";
        EXPECT_TRUE(test::read_file(dir.file("out.xml")) == "old") << "the signal came after the rename";
    }
}

}  // namespace
}  // namespace speedqa::io

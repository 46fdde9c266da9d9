// write_scores_file(): complete files or none.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

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

}  // namespace
}  // namespace speedqa::io

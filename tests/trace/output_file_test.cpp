// OutputFile (trace/output_file.h): a file is emptied only when the run starts, an
// unstarted file is left as it was (or removed when it was created), and a write
// error is reported with its reason and removes the partial file.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "trace/output_file.h"

namespace x86lab {
namespace {

std::string contents(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

bool exists(const std::string& path) {
  struct stat status;
  return stat(path.c_str(), &status) == 0;
}

std::string fresh_path(const std::string& name) {
  const std::string path = ::testing::TempDir() + name;
  std::remove(path.c_str());
  return path;
}

TEST(OutputFile, AnExistingFileIsUntouchedWhenTheRunNeverStarts) {
  const std::string path = fresh_path("output_existing.txt");
  std::ofstream(path) << "precious";
  {
    OutputFile output(path, "trace file");
    std::fputs("header written before the run", output.stream());  // dropped
  }
  EXPECT_EQ(contents(path), "precious");
}

TEST(OutputFile, AFileItCreatedIsRemovedWhenTheRunNeverStarts) {
  const std::string path = fresh_path("output_created.txt");
  { OutputFile output(path, "trace file"); }
  EXPECT_FALSE(exists(path));
}

TEST(OutputFile, StartEmptiesTheFileAndFinishKeepsWhatWasWritten) {
  const std::string path = fresh_path("output_started.txt");
  std::ofstream(path) << "an older and longer content";
  OutputFile output(path, "trace file");
  output.start();
  std::fputs("new", output.stream());
  output.finish();
  EXPECT_EQ(contents(path), "new");
}

TEST(OutputFile, FinishWithoutStartReplacesTheOldContents) {
  const std::string path = fresh_path("output_unstarted.txt");
  std::ofstream(path) << "an older and longer content";
  OutputFile output(path, "trace file");
  std::fputs("new", output.stream());
  output.finish();
  EXPECT_EQ(contents(path), "new");
}

TEST(OutputFile, AWriteErrorNamesTheFileAndTheReason) {
  OutputFile output("/dev/full", "trace file");
  output.start();
  std::fputs("anything", output.stream());
  try {
    output.finish();
    FAIL() << "no error writing /dev/full";
  } catch (const OutputError& error) {
    EXPECT_EQ(std::string(error.what()), "cannot write trace file '/dev/full': No space left on device");
  }
}

// Writes 4000 bytes to an OutputFile at `path` under a file size limit of 1000 bytes
// (as a full disk would stop it); returns finish()'s OutputError message, or "".
std::string write_past_a_size_limit(const std::string& path) {
  rlimit old_limit;
  if (getrlimit(RLIMIT_FSIZE, &old_limit) != 0) return "getrlimit failed";
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit limit = old_limit;
  limit.rlim_cur = 1000;
  if (setrlimit(RLIMIT_FSIZE, &limit) != 0) return "setrlimit failed";
  std::string message;
  {
    OutputFile output(path, "trace file");
    output.start();
    const std::string block(4000, 'x');
    std::fwrite(block.data(), 1, block.size(), output.stream());
    try {
      output.finish();
    } catch (const OutputError& error) {
      message = error.what();
    }
  }
  setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  return message;
}

// A regular file that cannot be written to the end is removed: no half-written output.
TEST(OutputFile, APartlyWrittenRegularFileIsRemoved) {
  const std::string path = fresh_path("output_too_large.bin");
  EXPECT_EQ(write_past_a_size_limit(path), "cannot write trace file '" + path + "': File too large");
  EXPECT_FALSE(exists(path));
}

// A symbolic link to the output stays when the file it names is removed after a write
// error (the link itself was removed before).
TEST(OutputFile, AFailedWriteThroughASymbolicLinkRemovesTheFileNotTheLink) {
  const std::string target = fresh_path("output_link_target.bin"), link = fresh_path("output_link.bin");
  std::ofstream(target) << "old";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  EXPECT_EQ(write_past_a_size_limit(link), "cannot write trace file '" + link + "': File too large");
  struct stat status;
  EXPECT_EQ(lstat(link.c_str(), &status), 0) << "the link was removed";
  EXPECT_FALSE(exists(target)) << "the partial file was kept";
  std::remove(link.c_str());
}

TEST(OutputFile, ADanglingSymbolicLinkGetsItsFileCreated) {
  const std::string target = fresh_path("output_dangling_target.txt"), link = fresh_path("output_dangling.txt");
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  {
    OutputFile output(link, "trace file");
    output.start();
    std::fputs("new", output.stream());
    output.finish();
  }
  EXPECT_EQ(contents(target), "new");
  std::remove(link.c_str());
}

// /dev/fd/N (like /dev/stdout and /dev/stderr) is a stream the caller opened, maybe for
// appending: it is neither emptied nor removed.
TEST(OutputFile, AStreamUnderDevIsNotEmptied) {
  const std::string path = fresh_path("output_appended.log");
  std::ofstream(path) << "earlier\n";
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  {
    OutputFile output("/dev/fd/" + std::to_string(fd), "trace file");
    output.start();
    std::fputs("later\n", output.stream());
    output.finish();
  }
  close(fd);
  EXPECT_EQ(contents(path), "earlier\nlater\n");
}

TEST(OutputFile, AMissingDirectoryIsAnErrorAtOpen) {
  try {
    OutputFile output(::testing::TempDir() + "no/such/dir/out.txt", "--stats-json file");
    FAIL() << "opened a file in a missing directory";
  } catch (const OutputError& error) {
    EXPECT_EQ(std::string(error.what()),
              "cannot open --stats-json file '" + ::testing::TempDir() + "no/such/dir/out.txt': No such file or directory");
  }
}

}  // namespace
}  // namespace x86lab

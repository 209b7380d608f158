// OutputFile (trace/output_file.h): a file is emptied only when the run starts, an
// unstarted file is left as it was (or removed when it was created), and a write
// error is reported with its reason and removes the partial file.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

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

// A regular file that cannot be written to the end (here over the process's file
// size limit, as a full disk would stop it) is removed: no half-written output.
TEST(OutputFile, APartlyWrittenRegularFileIsRemoved) {
  const std::string path = fresh_path("output_too_large.bin");
  rlimit old_limit;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit limit = old_limit;
  limit.rlim_cur = 1000;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limit), 0);
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
  EXPECT_EQ(message, "cannot write trace file '" + path + "': File too large");
  EXPECT_FALSE(exists(path));
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

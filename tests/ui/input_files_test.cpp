// Input files that are not regular files, or are too large, are refused in one line
// with exit status 2 before anything reads them (trace/input_file.h): a directory, a
// FIFO without a writer (which would block a plain open), an oversized initrd.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "run_x86lab.h"

namespace x86lab::testing {
namespace {

const std::string kDemo = std::string(X86LAB_ROM_DIR) + "/demo.bin";
const std::string kTimerKernel = std::string(X86LAB_ROM_DIR) + "/multiboot/timer_kernel.elf";

// Each command line names `path` once where an input file is expected, and the role
// x86lab calls that file in its message.
struct InputUse {
  std::string arguments_before, arguments_after, role;
};

std::vector<InputUse> input_uses(const std::string& empty_script) {
  return {
      {"run --bios ", "", "ROM"},
      {"run --kernel ", "", "kernel"},
      {"run --kernel " + kTimerKernel + " --initrd ", "", "initrd"},
      {"run --bios " + kDemo + " --profile ", "", "cost file"},
      {"trace dump ", "", "trace"},
      {"gui --bios " + kDemo + " --script ", "", "script"},
      {"gui --bios " + kDemo + " --script " + empty_script + " --symbols ", "", "symbol file"},
  };
}

class InputFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per test: ctest runs the tests in parallel.
    folder_ = ::testing::TempDir() + "input_files_" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(folder_);
    std::filesystem::create_directories(folder_ + "/dir");
    ASSERT_EQ(mkfifo((folder_ + "/fifo").c_str(), 0600), 0);
    std::ofstream(folder_ + "/empty.script");
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }
  std::string folder_;
};

TEST_F(InputFiles, ADirectoryIsNamedAsOne) {
  const std::string dir = folder_ + "/dir";
  for (const InputUse& use : input_uses(folder_ + "/empty.script"))
    expect_rejected(use.arguments_before + dir + use.arguments_after, use.role + " '" + dir + "' is a directory");
  expect_rejected("run --bios " + kDemo + " --serial-input " + dir, "serial input file '" + dir + "' is a directory");
}

TEST_F(InputFiles, AFifoIsRefusedWithoutWaitingForAWriter) {
  const std::string fifo = folder_ + "/fifo";
  for (const InputUse& use : input_uses(folder_ + "/empty.script"))
    expect_rejected(use.arguments_before + fifo + use.arguments_after,
                    use.role + " '" + fifo + "' is not a regular file (a FIFO, socket or device)");
}

TEST_F(InputFiles, AScenarioManifestThatIsADirectoryIsNamed) {
  std::filesystem::create_directories(folder_ + "/scenarios/selftest/variants.json");
  expect_rejected("compare selftest --scenario-dir " + folder_ + "/scenarios --no-files",
                  "manifest '" + folder_ + "/scenarios/selftest/variants.json' is a directory");
}

// The initrd's size is checked against RAM before it is read: a sparse 1 GiB file is
// refused at once (it was read whole, 1 GiB of memory, before the check).
// A generated file whose size reads as 0 (/proc) is read to its end, not taken as empty.
TEST_F(InputFiles, AGeneratedFileIsReadToItsEnd) {
  expect_rejected("gui --bios " + kDemo + " --script /proc/cpuinfo",
                  "script '/proc/cpuinfo' line 1: unknown command 'processor'");
}

TEST_F(InputFiles, AnInitrdLargerThanRamIsRefusedBeforeItIsRead) {
  const std::string big = folder_ + "/big.initrd";
  std::ofstream{big};
  std::filesystem::resize_file(big, 1ull << 30);
  expect_rejected("run --memory 64 --kernel " + kTimerKernel + " --initrd " + big,
                  "initrd '" + big + "' is 1073741824 bytes; --memory gives 64 MiB of RAM");
  expect_rejected("run --memory 64 --kernel " + big,
                  "kernel '" + big + "' is 1073741824 bytes; --memory gives 64 MiB of RAM");
}

}  // namespace
}  // namespace x86lab::testing

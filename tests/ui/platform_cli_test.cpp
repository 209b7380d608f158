// The platform options' bad-input contract (one line naming the file or option, exit
// status 2) and a --kernel run of the Multiboot timer kernel through the CLI.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <string>

namespace {

struct Outcome {
  int status;
  std::string output;
};

Outcome run(const std::string& arguments) {
  const std::string command = std::string(X86LAB_BINARY) + " " + arguments + " 2>&1 </dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  Outcome outcome{-1, {}};
  if (!pipe) return outcome;
  std::array<char, 512> buffer;
  while (fgets(buffer.data(), buffer.size(), pipe)) outcome.output += buffer.data();
  const int raw = pclose(pipe);
  outcome.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return outcome;
}

const std::string kTimerKernel = std::string(X86LAB_ROM_DIR) + "/multiboot/timer_kernel.elf";

TEST(PlatformCli, MissingKernelIsOneLineAndStatus2) {
  const Outcome o = run("run --kernel /nonexistent/vmlinuz");
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.output, "x86lab: cannot open kernel '/nonexistent/vmlinuz': No such file or directory\n");
}

TEST(PlatformCli, KernelThatIsNeitherBzImageNorMultibootIsRejected) {
  const std::string path = ::testing::TempDir() + "junk.kernel";
  std::ofstream(path, std::ios::binary) << std::string(20000, '\x90');
  const Outcome o = run("run --kernel " + path);
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.output, "x86lab: kernel '" + path + "' is neither a bzImage (no HdrS setup header) nor a Multiboot kernel\n");
}

TEST(PlatformCli, MissingInitrdIsRejected) {
  const Outcome o = run("run --kernel " + kTimerKernel + " --initrd /nonexistent/initrd.gz");
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.output, "x86lab: cannot open initrd '/nonexistent/initrd.gz': No such file or directory\n");
}

TEST(PlatformCli, InitrdWithoutKernelIsRejected) {
  const Outcome o = run(std::string("run --bios ") + X86LAB_ROM_DIR + "/demo.bin --initrd x");
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.output, "x86lab: --initrd and --append need --kernel\n");
}

TEST(PlatformCli, BadSerialSpecIsRejected) {
  const Outcome o = run("run --kernel " + kTimerKernel + " --serial tcp:1234");
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.output, "x86lab: --serial must be stdio, file:PATH or none, not 'tcp:1234'\n");
}

TEST(PlatformCli, CpuMhzOutOfRangeIsRejected) {
  const Outcome o = run("run --kernel " + kTimerKernel + " --cpu-mhz 0");
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.output, "x86lab: --cpu-mhz must be between 1 and 100000, not 0\n");
}

TEST(PlatformCli, NeitherBiosNorKernelIsRejected) {
  const Outcome o = run("run");
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.output, "x86lab: run needs --bios FILE or --kernel FILE (x86lab run --help lists the options)\n");
}

TEST(PlatformCli, MultibootKernelRunsToPass) {
  const Outcome o = run("run --kernel " + kTimerKernel + " --serial none --debugcon stdio");
  EXPECT_EQ(o.status, 33) << o.output;
  EXPECT_NE(o.output.find("PASS"), std::string::npos);
}

TEST(PlatformCli, SerialFileReceivesCom1Output) {
  const std::string path = ::testing::TempDir() + "com1.txt";
  const Outcome o = run("run --kernel " + kTimerKernel + " --serial file:" + path + " --debugcon none");
  EXPECT_EQ(o.status, 33) << o.output;
  std::ifstream file(path);
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("timer_kernel: Multiboot magic 2BADB002"), std::string::npos) << text;
}

TEST(PlatformCli, VgaDumpPrintsTheScreenAtExit) {
  const Outcome o = run("run --kernel " + kTimerKernel + " --serial none --debugcon none --vga-dump");
  EXPECT_EQ(o.status, 33);
  EXPECT_NE(o.output.find("---- VGA text screen ----"), std::string::npos) << o.output;
}

}  // namespace

// The platform options' bad-input contract (one line naming the file or option, exit
// status 2) and a --kernel run of the Multiboot timer kernel through the CLI.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "run_x86lab.h"

namespace x86lab::testing {
namespace {

Outcome run(const std::string& arguments) { return run_x86lab(arguments); }

const std::string kTimerKernel = std::string(X86LAB_ROM_DIR) + "/multiboot/timer_kernel.elf";

const Rejection kRejections[] = {
    {"MissingKernel", "run --kernel /nonexistent/vmlinuz",
     "cannot open kernel '/nonexistent/vmlinuz': No such file or directory"},
    {"MissingInitrd", "run --kernel " + kTimerKernel + " --initrd /nonexistent/initrd.gz",
     "cannot open initrd '/nonexistent/initrd.gz': No such file or directory"},
    {"InitrdWithoutKernel", "run --bios " + std::string(X86LAB_ROM_DIR) + "/demo.bin --initrd x",
     "--initrd and --append need --kernel"},
    {"BadSerialSpec", "run --kernel " + kTimerKernel + " --serial tcp:1234",
     "--serial must be stdio, file:PATH or none, not 'tcp:1234'"},
    {"EmptySerialPrompt", "run --kernel " + kTimerKernel + " --serial-input /dev/null --serial-expect ''",
     "--serial-expect needs a non-empty TEXT (the guest's prompt)"},
    {"SerialPromptWithoutInput", "run --kernel " + kTimerKernel + " --serial none --serial-expect '# '",
     "--serial-expect needs an input: --serial-input FILE or --serial stdio"},
    {"BadSerialIrqWiring", "run --kernel " + kTimerKernel + " --serial-irq ungated",
     "--serial-irq must be auto, out2 or direct, not 'ungated'"},
    {"CpuMhzOutOfRange", "run --kernel " + kTimerKernel + " --cpu-mhz 0",
     "--cpu-mhz must be between 1 and 100000, not 0"},
    {"NeitherBiosNorKernel", "run", "run needs --bios FILE, --kernel FILE, a boot device or --load-snapshot FILE (x86lab run --help lists the options)"},
    {"GuiNeedsAMachine", "gui",
     "gui needs --bios FILE, --kernel FILE, a boot device (--hda, --cdrom, --fda, ...), --load-snapshot FILE or "
     "--scenario NAME (x86lab gui --help lists the options)"},
    {"RtcStartBeyond2099", "run --kernel " + kTimerKernel + " --rtc-start 9223372036854775807",
     "--rtc-start must be between 0 and 4102444799, not 9223372036854775807"},
    {"MissingFloppyImage", "run --kernel " + kTimerKernel + " --fda /nonexistent/a.img",
     "--fda '/nonexistent/a.img': No such file or directory"},
    {"FloppyImageIsADirectory", "run --kernel " + kTimerKernel + " --fdb /",
     "--fdb '/': is a directory, not an image file"},
    {"RtcStartBeyond64Bits", "run --kernel " + kTimerKernel + " --rtc-start 99999999999999999999",
     "--rtc-start must be between 0 and 4102444799, not 99999999999999999999"},
};
INSTANTIATE_TEST_SUITE_P(PlatformCli, RejectedCommandLine, ::testing::ValuesIn(kRejections), rejection_name);

TEST(PlatformCli, KernelThatIsNeitherBzImageNorMultibootIsRejected) {
  const std::string path = ::testing::TempDir() + "junk.kernel";
  std::ofstream(path, std::ios::binary) << std::string(20000, '\x90');
  expect_rejected("run --kernel " + path,
                  "kernel '" + path + "' is neither a bzImage (no HdrS setup header) nor a Multiboot kernel");
}

// DiskImage::open's floppy sizes (720 KiB, 1.44 MB, 2.88 MB): 1.2 MB is refused with
// one line naming the option and the file.
TEST(PlatformCli, FloppyImageOfAnotherSizeIsRejected) {
  const std::string path = ::testing::TempDir() + "floppy_1200k.img";
  {
    std::ofstream file(path, std::ios::binary);
    file.seekp(1'228'800 - 1);
    file.put('\0');
  }
  const Outcome o = expect_rejected_in_one_line("run --kernel " + kTimerKernel + " --fda " + path);
  EXPECT_NE(o.output.find("--fda '" + path + "'"), std::string::npos) << o.output;
}

TEST(PlatformCli, MultibootKernelRunsToPass) {
  const Outcome o = run("run --kernel " + kTimerKernel + " --serial none --debugcon stdio");
  EXPECT_EQ(o.status, 33) << o.output;
  EXPECT_NE(o.output.find("PASS"), std::string::npos);
}

// The device clock is the profile's cpu-mhz unless --cpu-mhz is given: the timer
// kernel measures the cycles between PIT interrupts (1193 PIT clocks of 1/1193182 s:
// 1,666,746 cycles at k7's 1667 MHz, 99,985 at 100 MHz).
unsigned long long cycles_per_timer_interrupt(const std::string& options) {
  const Outcome o = run("run --kernel " + kTimerKernel + " --serial none --debugcon stdio " + options);
  EXPECT_EQ(o.status, 33) << o.output;
  const std::string key = "TSC cycles per interrupt ";
  const std::size_t at = o.output.find(key);
  return at == std::string::npos ? 0 : std::stoull(o.output.substr(at + key.size()));
}

TEST(PlatformCli, TheProfileSetsTheClockAndCpuMhzOverridesIt) {
  EXPECT_NEAR(static_cast<double>(cycles_per_timer_interrupt("--profile k7")), 1'666'746.0, 200.0);
  EXPECT_NEAR(static_cast<double>(cycles_per_timer_interrupt("--profile k7 --cpu-mhz 100")), 99'985.0, 50.0);
  EXPECT_NEAR(static_cast<double>(cycles_per_timer_interrupt("")), 499'924.0, 50.0);
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
}  // namespace x86lab::testing

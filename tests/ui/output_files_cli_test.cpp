// The run's output files through the CLI (trace/output_file.h): a write error is one
// line naming the file and the reason with exit status 2; bad input found after the
// outputs were opened leaves an existing file as it was and no new one behind; an
// unwritable --stats-json path fails before the run.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <string>

#include "run_x86lab.h"

namespace x86lab::testing {
namespace {

const std::string kDemo = std::string("--bios ") + X86LAB_ROM_DIR + "/demo.bin";

bool exists(const std::string& path) {
  struct stat status;
  return stat(path.c_str(), &status) == 0;
}

// Each output option writing to /dev/full (always "No space left on device").
TEST(OutputFilesCli, AWriteErrorIsOneLineAndStatus2) {
  const std::pair<std::string, std::string> cases[] = {
      {"--trace bin:/dev/full", "cannot write trace file '/dev/full': No space left on device"},
      {"--trace text:/dev/full", "cannot write trace file '/dev/full': No space left on device"},
      {"--trace perfetto:/dev/full", "cannot write trace file '/dev/full': No space left on device"},
      {"--stats-json /dev/full", "cannot write --stats-json file '/dev/full': No space left on device"},
      {"--debugcon file:/dev/full", "cannot write debug console file '/dev/full': No space left on device"},
  };
  for (const auto& [option, message] : cases) {
    SCOPED_TRACE(option);
    const std::string console = option.starts_with("--debugcon") ? "" : " --debugcon none";
    const Outcome o = run_x86lab("run " + kDemo + console + " " + option);
    EXPECT_EQ(o.status, 2);
    EXPECT_EQ(o.output, "x86lab: " + message + "\n");
  }
}

TEST(OutputFilesCli, AFullStandardOutputIsAnError) {
  const std::string command = std::string(X86LAB_BINARY) + " run " + kDemo + " >/dev/full 2>&1";
  // stderr goes to /dev/full too, so only the status is seen: 2, not the ROM's 0.
  const int raw = std::system(command.c_str());
  EXPECT_EQ(WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, 2);
}

// Bad input after the outputs were opened (a kernel that is no kernel; a second trace
// file in a missing directory): the existing files keep their contents, a new one is
// not left behind.
TEST(OutputFilesCli, BadInputLeavesTheOutputFilesAsTheyWere) {
  const std::string dir = ::testing::TempDir();
  const std::string kept = dir + "kept_serial.txt", trace = dir + "kept_trace.bin", fresh = dir + "fresh_debugcon.txt";
  std::remove(fresh.c_str());
  std::ofstream(kept) << "precious\n";
  std::ofstream(trace) << "precious\n";
  const std::string not_a_kernel = dir + "not_a_kernel.bin";
  std::ofstream(not_a_kernel) << std::string(4096, 'x');
  Outcome o = run_x86lab("run --kernel " + not_a_kernel + " --serial file:" + kept + " --debugcon file:" + fresh);
  EXPECT_EQ(o.status, 2) << o.output;
  EXPECT_EQ(read_file(kept), "precious\n");
  EXPECT_FALSE(exists(fresh));
  o = run_x86lab("run " + kDemo + " --trace bin:" + trace + " --trace text:" + dir + "no/such/dir/t.txt");
  EXPECT_EQ(o.status, 2) << o.output;
  EXPECT_EQ(read_file(trace), "precious\n");
  // A bad --gdb is found when the stub starts, after the outputs are open.
  o = run_x86lab("run " + kDemo + " --trace bin:" + trace + " --serial file:" + kept + " --gdb 99999");
  EXPECT_EQ(o.status, 2) << o.output;
  EXPECT_EQ(read_file(trace), "precious\n");
  EXPECT_EQ(read_file(kept), "precious\n");
}

TEST(OutputFilesCli, AnUnwritableStatsJsonPathFailsBeforeTheRun) {
  const std::string trace = ::testing::TempDir() + "before_stats_json.bin";
  std::remove(trace.c_str());
  const std::string missing = ::testing::TempDir() + "no/such/dir/stats.json";
  const Outcome o = run_x86lab("run " + kDemo + " --trace bin:" + trace + " --stats-json " + missing);
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.output, "x86lab: cannot open --stats-json file '" + missing + "': No such file or directory\n");
  EXPECT_FALSE(exists(trace)) << "the run went ahead and wrote its trace";
}

TEST(OutputFilesCli, TwoOutputsToOneFileAreRejected) {
  const std::string path = ::testing::TempDir() + "one_file.out";
  const Outcome o = run_x86lab("run " + kDemo + " --trace bin:" + path + " --stats-json " + path);
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.output, "x86lab: --trace bin:" + path + " and --stats-json " + path + " would write the same file\n");
  // A device may be shared.
  EXPECT_EQ(run_x86lab("run " + kDemo + " --debugcon none --trace bin:/dev/null --trace text:/dev/null").status, 0);
}

// The same file by device and inode: a hard link, and an input that an output would
// overwrite (the ROM replaced by the trace before).
TEST(OutputFilesCli, OneFileUnderTwoNamesOrAsInputAndOutputIsRejected) {
  const std::string dir = ::testing::TempDir();
  const std::string file = dir + "linked_once.out", hard_link = dir + "linked_twice.out";
  std::remove(file.c_str());
  std::remove(hard_link.c_str());
  std::ofstream(file) << "old";
  ASSERT_EQ(link(file.c_str(), hard_link.c_str()), 0);
  Outcome o = run_x86lab("run " + kDemo + " --trace text:" + file + " --stats-json " + hard_link);
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.output, "x86lab: --trace text:" + file + " and --stats-json " + hard_link + " would write the same file\n");
  const std::string rom = dir + "rom_and_trace.bin";
  std::ofstream(rom, std::ios::binary) << read_file(std::string(X86LAB_ROM_DIR) + "/demo.bin");
  o = run_x86lab("run --bios " + rom + " --trace bin:" + rom);
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.output, "x86lab: --trace bin:" + rom + " would overwrite the input file of --bios " + rom + "\n");
}

// Whether process `pid` catches SIGINT yet (/proc/PID/status SigCgt, bit 1).
bool catches_sigint(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("SigCgt:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> 1) & 1;
  return false;
}

// Ctrl-C (SIGINT) stops the machine and the run closes its outputs whole: the Perfetto
// JSON ends with its closing brackets, the statistics are written; status 128 + 2.
// Before, the default action killed the process mid-write.
TEST(OutputFilesCli, AnInterruptedRunClosesItsOutputsWhole) {
  const std::string dir = ::testing::TempDir();
  const std::string rom = dir + "spin.rom", perfetto = dir + "interrupted.json", stats = dir + "interrupted_stats.json";
  std::string image(65536, '\0');
  image[0xFFF0] = '\xEB';  // jmp $ at the reset vector
  image[0xFFF1] = '\xFE';
  std::ofstream(rom, std::ios::binary) << image;
  const std::string log = dir + "interrupted.log";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    freopen(log.c_str(), "w", stderr);
    execl(X86LAB_BINARY, X86LAB_BINARY, "run", "--bios", rom.c_str(), "--debugcon", "none", "--trace",
          ("perfetto:" + perfetto).c_str(), "--stats-json", stats.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  for (int i = 0; i < 2000 && !catches_sigint(pid); ++i) usleep(10000);  // at most 20 s to start
  kill(pid, SIGINT);
  int raw = 0;
  waitpid(pid, &raw, 0);
  ASSERT_TRUE(WIFEXITED(raw)) << "killed by signal " << (WIFSIGNALED(raw) ? WTERMSIG(raw) : 0);
  EXPECT_EQ(WEXITSTATUS(raw), 130);
  EXPECT_NE(read_file(log).find("x86lab: interrupted by a signal (Ctrl-C or SIGTERM) at f000:fff0 after "),
            std::string::npos)
      << read_file(log);
  const std::string trace = read_file(perfetto);
  EXPECT_TRUE(trace.ends_with("\n]}\n")) << trace.substr(trace.size() > 40 ? trace.size() - 40 : 0);
  EXPECT_NE(read_file(stats).find("\"instructions\""), std::string::npos);
}

// The inspector's script captures go through the same checks.
TEST(OutputFilesCli, AScreenshotOrDumpThatCannotBeWrittenIsStatus2) {
  setenv("SDL_VIDEODRIVER", "offscreen", 1);
  for (const std::string verb : {"screenshot", "dump"}) {
    SCOPED_TRACE(verb);
    const std::string script = ::testing::TempDir() + "full_" + verb + ".txt";
    std::ofstream(script) << verb << " /dev/full\nquit\n";
    const Outcome o = run_x86lab("gui " + kDemo + " --no-layout --script " + script);
    EXPECT_EQ(o.status, 2);
    EXPECT_NE(o.output.find("cannot write " + verb + " '/dev/full': No space left on device"), std::string::npos)
        << o.output;
  }
}

}  // namespace
}  // namespace x86lab::testing

// --record and --replay of the RTC start (docs/snapshots.md "Record and replay"): a
// session recorded with --rtc-start host and replayed (with --rtc-start 0, ignored)
// powers on with the same RTC registers, read through ports 70h/71h as a guest does.
#include <gtest/gtest.h>

#include <boost/program_options.hpp>
#include <filesystem>

#include "platform/replay/input_log.h"
#include "ui/cli.h"
#include "ui/platform_options.h"

namespace po = boost::program_options;

namespace x86lab {
namespace {

po::variables_map parse(const std::vector<std::string>& args) {
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(machine_options()).run(), vm);
  po::notify(vm);
  return vm;
}

// Seconds, minutes, hours, day of month, month and year (registers 0, 2, 4, 7, 8, 9).
std::vector<u8> rtc_registers(Machine& machine) {
  std::vector<u8> values;
  for (u8 reg : {0x00, 0x02, 0x04, 0x07, 0x08, 0x09}) {
    machine.ports.write(0x70, 1, reg);
    values.push_back(static_cast<u8>(machine.ports.read(0x71, 1)));
  }
  return values;
}

TEST(ReplayOptions, RtcStartHostIsReplayedFromTheLog) {
  const std::string log = (std::filesystem::temp_directory_path() / "x86lab_replay_options_test.log").string();
  MachineConfig recorded_config;
  std::vector<u8> recorded;
  {
    PlatformSession session;
    session.configure(parse({"--rtc-start", "host", "--serial", "none", "--record", log}), recorded_config);
    Machine machine(recorded_config);
    session.connect(machine);
    session.start();
    recorded = rtc_registers(machine);
    session.finish(machine);
  }
  const InputLog read = InputLog::read(log);
  EXPECT_EQ(read.rtc_start, recorded_config.rtc_start);
  EXPECT_TRUE(read.rtc_from_host);
  MachineConfig replayed_config;
  PlatformSession session;
  session.configure(parse({"--rtc-start", "0", "--serial", "none", "--replay", log}), replayed_config);
  EXPECT_EQ(replayed_config.rtc_start, recorded_config.rtc_start);
  Machine machine(replayed_config);
  session.connect(machine);
  EXPECT_EQ(rtc_registers(machine), recorded);
  std::filesystem::remove(log);
}

}  // namespace
}  // namespace x86lab

// Record and replay of a run's nondeterministic inputs (docs/snapshots.md "Record and
// replay"): the bytes the host's serial input gave COM1's receiver, each with the
// modeled cycle and step at which the UART took it, the end of that input, and the RTC's
// start time. A run's guest-visible behaviour depends on nothing else from the host:
// --realtime only sleeps between events and never moves or reorders them
// (Machine::run), so it has nothing to record.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "platform/devices/uart.h"

namespace x86lab {

struct InputLog {
  static constexpr char kMagic[8] = {'X', '8', '6', 'L', 'R', 'E', 'P', 'L'};
  static constexpr u32 kVersion = 1;
  // One byte the host's serial input gave the UART: the `call`-th (from 0) call of
  // SerialHost::receive() returned it, at modeled cycle `cycle` and step `step`.
  struct SerialByte {
    u64 call = 0;
    u64 cycle = 0;
    u64 step = 0;
    u8 byte = 0;
  };
  i64 rtc_start = 0;       // MachineConfig::rtc_start, seconds since 1970 UTC
  bool rtc_from_host = false;  // --rtc-start host gave it
  std::vector<SerialByte> serial;
  // The end of the serial input: how many receive() calls had been made, and the
  // modeled cycle, when input_open() first answered false. None: the input was still
  // open when the run ended.
  struct SerialEnd {
    u64 call = 0;
    u64 cycle = 0;
  };
  std::optional<SerialEnd> serial_end;

  // The file's bytes (the format of docs/snapshots.md).
  std::vector<u8> encode() const;
  // Parses a log file's bytes; throws InputError with the problem (truncated, CRC-32,
  // not a log, another version) without the file's name.
  static InputLog decode(const std::vector<u8>& bytes);
  // Reads and parses `path`; throws InputError "replay log 'PATH': PROBLEM".
  static InputLog read(const std::string& path);
};

// Where the modeled time of an input comes from: the CPU's cycle and step counts.
struct InputClock {
  std::function<u64()> cycle;
  std::function<u64()> step;
};

// Passes every call to `host` and logs what its input gave the guest into `log`.
class RecordingSerialHost : public SerialHost {
 public:
  RecordingSerialHost(SerialHost& host, InputLog& log) : host_(host), log_(log) {}
  void set_clock(InputClock clock) { clock_ = std::move(clock); }
  void transmit(u8 byte) override { host_.transmit(byte); }
  std::optional<u8> receive() override;
  bool input_open() const override;
  InputPosition input_position() const override { return host_.input_position(); }
  void resume_input(const InputPosition& position) override { host_.resume_input(position); }

 private:
  SerialHost& host_;
  InputLog& log_;
  InputClock clock_;
  u64 calls_ = 0;
};

// The serial input of a recorded run, from its log: the k-th logged byte is returned by
// the receive() call with the logged number, and the input ends where it ended. A call
// at another cycle than the logged one means the replayed run is not the recorded one
// (another guest, other options): throws InputError naming the cycles.
// Transmitted bytes go to `output` (the session's console).
class ReplaySerialHost : public SerialHost {
 public:
  ReplaySerialHost(SerialHost& output, const InputLog& log) : output_(output), log_(log) {}
  void set_clock(InputClock clock) { clock_ = std::move(clock); }
  void transmit(u8 byte) override { output_.transmit(byte); }
  std::optional<u8> receive() override;
  bool input_open() const override;

 private:
  SerialHost& output_;
  const InputLog& log_;
  InputClock clock_;
  u64 calls_ = 0;
  std::size_t next_ = 0;
};

}  // namespace x86lab

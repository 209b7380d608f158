// The replay log (docs/snapshots.md "Record and replay"): a run's nondeterministic
// inputs, each at the machine's step and modeled cycle where the guest got it: the
// bytes the host's serial input gave COM1's receiver, the end of that input, the PC
// keys typed into the inspector's VGA text screen (the 8042's input), and the RTC's
// start time. A run's guest-visible behaviour depends on nothing else from the host:
// --realtime only sleeps between events and never moves or reorders them
// (Machine::run), so it has nothing to record. Consumed by platform/replay/input_journal.h.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "trace/types.h"

namespace x86lab {

// Where in a run an input happened: the step count (Cpu::steps) and the modeled clock
// (VirtualClock::now, 1/256 cycles) at that moment. Ordered by step, then cycle.
struct InputMoment {
  u64 step = 0;
  u64 cycle = 0;
  auto operator<=>(const InputMoment&) const = default;
};

// How far a run has consumed a log: the serial bytes and the keys taken so far, counted
// from the log's first event of each kind as numbered in the recorded run (a log recorded
// from a loaded snapshot starts at that snapshot's position, InputLog::first).
struct InputCursor {
  u64 serial = 0;
  u64 keys = 0;
  bool operator==(const InputCursor&) const = default;
};

struct InputLog {
  static constexpr char kMagic[8] = {'X', '8', '6', 'L', 'R', 'E', 'P', 'L'};
  static constexpr u32 kVersion = 2;
  // One byte the host's serial input gave the UART's receiver (a poll of the host).
  struct SerialByte {
    InputMoment at;
    u8 byte = 0;
  };
  // One PC key going down or up (i8042::key's arguments).
  struct Key {
    InputMoment at;
    u8 set1 = 0;  // scan code set 1 make code
    bool extended = false;
    bool released = false;
  };
  i64 rtc_start = 0;           // MachineConfig::rtc_start, seconds since 1970 UTC
  bool rtc_from_host = false;  // --rtc-start host gave it
  InputCursor first;           // the position of the run's first event (0, 0 from reset)
  std::vector<SerialByte> serial;
  std::vector<Key> keys;
  // Where the host's serial input was first seen ended; none: still open at the end.
  std::optional<InputMoment> serial_end;

  // The file's bytes (the format of docs/snapshots.md); events in moment order.
  std::vector<u8> encode() const;
  // Parses a log file's bytes; throws InputError with the problem (truncated, CRC-32,
  // not a log, another version, events out of order) without the file's name.
  static InputLog decode(const std::vector<u8>& bytes);
  // Reads and parses `path`; throws InputError "replay log 'PATH': PROBLEM".
  static InputLog read(const std::string& path);
};

}  // namespace x86lab

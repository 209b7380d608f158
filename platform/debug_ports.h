// The debugging ports of Bochs and QEMU: the debug console at port E9h (each byte
// written is printed; reads return E9h so guests can detect it), POST codes at port
// 80h, and QEMU's isa-debug-exit at port F4h (writing V ends the run with exit status
// (V << 1) | 1). Port 402h is a second debug console port (SeaBIOS's).
#pragma once
#include "trace/state_archive.h"
#include <cstdio>
#include <functional>
#include <optional>

#include "mmu/port_bus.h"

namespace x86lab {

class Cpu;

class DebugPorts : public BusDevice {
 public:
  // SeaBIOS's debug output port (QEMU's debugcon convention at 402h): the same console
  // as port E9h, and the same read-back (E9h) by which SeaBIOS finds it.
  static constexpr u16 kSeaBiosDebugPort = 0x402;
  // `console` receives port E9h output (may be null to drop it); `post` prints
  // "POST xx" lines on stderr for port 80h writes; `before_output` (may be empty) is
  // called before either is written, with the byte (a POST line's '\n').
  DebugPorts(std::FILE* console, bool post, Cpu& cpu, std::function<void(u8)> before_output = {})
      : console_(console), post_(post), cpu_(cpu), before_output_(std::move(before_output)) {}

  u32 read(u32 port, unsigned size) override;
  void write(u32 port, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "debug-ports"; }

  // The exit status requested through port F4h, if any.
  std::optional<int> exit_status() const { return exit_status_; }
  // Saves, checks or loads the exit port's status (a snapshot of a run that ended there
  // ends there again when continued).
  void transfer_state(StateArchive& archive) {
    bool exited = exit_status_.has_value();
    int status = exit_status_.value_or(0);
    archive.local(exited, "exit port");
    archive.local(status, "exit port status", 511);
    if (archive.loading()) exit_status_ = exited ? std::optional<int>(status) : std::nullopt;
  }

 private:
  std::FILE* console_;
  bool post_;
  Cpu& cpu_;
  std::function<void(u8)> before_output_;
  std::optional<int> exit_status_;
};

}  // namespace x86lab

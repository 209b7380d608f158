// The 16550A UART of a PC serial port (COM1 at 3F8h on IRQ 4, COM2 at 2F8h on IRQ 3):
// receive and transmit FIFOs, the interrupt identification priorities, line and
// modem status, loopback, and the OUT2 gate of the PC's IRQ line (National
// Semiconductor PC16550D data sheet: "Registers", "FIFO Interrupt Mode Operation";
// the gate is the board's, IrqGate below).
#pragma once
#include "trace/state_archive.h"
#include <deque>
#include <functional>
#include <optional>

#include <vector>

#include "mmu/port_bus.h"
#include "platform/clock.h"

namespace x86lab {

// The host side of a serial line: where transmitted bytes go and received bytes
// come from.
class SerialHost {
 public:
  virtual ~SerialHost() = default;
  virtual void transmit(u8 byte) = 0;
  // The next byte typed or scripted on the host, if one is available now.
  virtual std::optional<u8> receive() = 0;
  // False once the input has ended (no more polling).
  virtual bool input_open() const = 0;

  // The input a machine snapshot saves (platform/snapshot/machine_state.h): bytes the
  // host has read from its source and not delivered yet, how many bytes it has read
  // from the source, and whether the source has ended.
  struct InputPosition {
    std::vector<u8> pending;
    u64 read = 0;
    bool ended = false;
  };
  virtual InputPosition input_position() const { return {}; }
  // Continues from a saved position: the pending bytes come first; a source that can
  // seek (a regular file) goes on at byte `read`. Throws InputError when it cannot.
  virtual void resume_input(const InputPosition&) {}
};

class Uart16550 : public BusDevice {
 public:
  static constexpr u64 kInputClockHz = 1'843'200;  // baud = 115200 / divisor
  static constexpr unsigned kFifoBytes = 16;
  // How often an idle host input is polled, in nanoseconds of virtual time.
  static constexpr u64 kIdlePollNs = 1'000'000;

  // How the chip's INTR output reaches the PC's IRQ line. The PC16550D's INTR pin goes
  // active whenever an enabled interrupt is pending (data sheet, "Pin Descriptions":
  // INTR; in loopback "the receiver and transmitter interrupts are fully operational");
  // OUT2 is "an auxiliary user-designated output" of the chip.
  //   Out2    the IBM PC serial adapter and the Super I/O UARTs of later boards: a
  //           buffer enabled by OUT2 (MCR bit 3) drives the IRQ line, so the line is
  //           INTR AND OUT2; loopback forces OUT2 inactive, so no IRQ in loopback.
  //           The default.
  //   Direct  INTR drives the line whatever OUT2, also in loopback: the wiring of
  //           QEMU's PC, which guests written against it rely on (xv6's uartinit
  //           writes MCR 00h and then expects receive interrupts on IRQ 4).
  enum class IrqGate : u8 { Out2, Direct };

  // `base`: the first of the 8 ports; `irq` receives the PC IRQ line level.
  Uart16550(VirtualClock& clock, u16 base, std::function<void(bool)> irq);

  // Connects the host side (may be null: output dropped, no input).
  void attach_host(SerialHost* host);
  // The board's wiring of INTR to the IRQ line (a machine's configuration, not state:
  // snapshots do not save it). Re-evaluates the line at once.
  void set_irq_gate(IrqGate gate);
  IrqGate irq_gate() const { return gate_; }

  // A byte arriving on the receive line. In FIFO mode a full FIFO overruns (the
  // byte is lost and LSR.OE set), as does a full holding register without FIFO.
  void receive(u8 byte);
  // Whether a byte would be accepted without an overrun.
  bool receiver_has_room() const;

  u32 read(u32 port, unsigned size) override;
  void write(u32 port, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "uart"; }

  u16 base() const { return base_; }
  bool irq_level() const { return irq_level_; }
  // One character's time on the line at the programmed baud rate and format, in ns.
  u64 character_ns() const;
  // Saves, checks or loads the device's state (a machine snapshot, trace/state_archive.h).
  void transfer_state(StateArchive& archive);

 private:
  u8 interrupt_identification() const;
  bool fifo_enabled() const { return fcr_ & 0x01; }
  bool loopback() const { return mcr_ & 0x10; }
  unsigned trigger_level() const;
  void update_modem_status();
  void update_irq();
  void transmit(u8 byte);
  u8 read_rbr();
  void schedule_timeout();
  void timeout_event();
  void arm_input_poll();
  void schedule_input_poll(u64 delay_ns);
  void input_poll_event();

  VirtualClock& clock_;
  u16 base_;
  std::function<void(bool)> irq_;
  SerialHost* host_ = nullptr;
  std::deque<u8> rx_;
  u8 ier_ = 0, lcr_ = 0, mcr_ = 0, fcr_ = 0, scr_ = 0;
  u8 line_errors_ = 0;  // LSR OE/PE/FE/BI, cleared by reading LSR
  u8 msr_ = 0;          // MSR: current lines in bits 7-4, deltas in bits 3-0
  u16 divisor_ = 12;    // 9600 baud
  bool thre_pending_ = false;
  bool timeout_pending_ = false;
  bool irq_level_ = false;
  IrqGate gate_ = IrqGate::Out2;
  VirtualClock::EventId timeout_event_, input_event_;
};

}  // namespace x86lab

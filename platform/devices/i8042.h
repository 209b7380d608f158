// The 8042 keyboard controller of a PC/AT at ports 60h (data) and 64h (status and
// command) with an attached keyboard and a PS/2 mouse on the auxiliary port
// (platform/devices/ps2_mouse.h): the controller command byte, the self tests, the
// output port with the A20 gate and the CPU reset line, the keyboard's reset and
// identify answers, and the mouse's commands through D4h (IBM PC/AT Technical Reference, "Keyboard
// Controller"; IBM PS/2 Hardware Interface Technical Reference, "Keyboard/Auxiliary
// Device Controller"). IRQ 1 for keyboard bytes, IRQ 12 for auxiliary bytes.
#pragma once
#include "trace/state_archive.h"
#include <deque>
#include <functional>

#include "mmu/port_bus.h"
#include "platform/devices/ps2_mouse.h"

namespace x86lab {

class I8042 : public BusDevice {
 public:
  struct Wiring {
    std::function<void(unsigned irq, bool level)> irq;  // IRQ 1 and IRQ 12 levels
    std::function<void(bool)> a20;                       // output port bit 1
    std::function<void()> reset;                         // output port bit 0 driven low
  };
  explicit I8042(Wiring wiring);

  u32 read(u32 port, unsigned size) override;
  void write(u32 port, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "i8042"; }

  // A byte from the keyboard (a scan code of the active set); dropped while the
  // keyboard's scanning is disabled (command F5h).
  void keyboard_byte(u8 byte) {
    if (keyboard_scanning_) enqueue(byte, false);
  }
  // A key pressed or released on the keyboard, numbered by its set 1 make code
  // (platform/devices/scan_codes.h; `extended` for the E0-prefixed keys). The keyboard
  // sends it in the scan code set the guest chose (command F0h): set 1 as [E0] code,
  // releases with bit 7 set; set 2 as [E0] [F0] code (DEVIATION: set 3 is sent as set
  // 2). With the command byte's translate bit the controller passes set 2 on as set 1,
  // as the PC/AT's 8042 does. Dropped while scanning is disabled (F5h); held while the
  // controller's keyboard interface is disabled (command ADh, command byte bit 4) and
  // sent when it is enabled again. An unknown code is ignored.
  void key(u8 set1_code, bool extended, bool released);
  // The user moved the mouse, turned its wheel or pressed or released buttons (the
  // host side for the GUI; Ps2Mouse::move says the units). The report goes to the
  // guest as auxiliary bytes (IRQ 12 with command byte bit 1); it is held while the
  // auxiliary interface is disabled (command A7h, command byte bit 5) and sent when it
  // is enabled again.
  void mouse_move(int dx, int dy, int dz, u8 buttons) { mouse_sends(mouse_.move(dx, dy, dz, buttons)); }
  const Ps2Mouse& mouse() const { return mouse_; }
  // The scan code set the keyboard sends (1-3; 2 after a reset).
  u8 scancode_set() const { return scancode_set_; }

  u8 command_byte() const { return command_byte_; }
  u8 output_port() const { return output_port_; }
  u8 status() const;
  // Saves, checks or loads the device's state (a machine snapshot, trace/state_archive.h).
  void transfer_state(StateArchive& archive);

 private:
  void enqueue(u8 byte, bool aux);
  void refill();
  void update_irqs();
  void controller_command(u8 command);
  void controller_data(u8 value);
  void keyboard_command(u8 value);
  void write_output_port(u8 value);
  void keyboard_sends(u8 byte);
  void release_held_keys();
  void mouse_sends(const std::vector<u8>& bytes);
  void release_held_mouse_bytes();

  Wiring wiring_;
  std::deque<std::pair<u8, bool>> queue_;  // bytes waiting for the output buffer (byte, from aux)
  u8 output_buffer_ = 0;
  bool output_full_ = false, output_aux_ = false;
  bool timeout_ = false;
  bool last_was_command_ = false;  // status bit 3 (A2)
  u8 command_byte_ = 0x65;  // as a BIOS leaves it: translate, aux disabled, system flag, IRQ 1 on
  u8 output_port_ = 0xCF;   // reset line high (inactive), A20 enabled
  u8 pending_command_ = 0;  // controller command waiting for its data byte
  u8 keyboard_pending_ = 0; // keyboard command waiting for its argument
  u8 keyboard_last_ = 0xFA; // for the resend command
  bool keyboard_scanning_ = true;
  u8 scancode_set_ = 2;
  u8 ram_[32] = {};         // controller RAM bytes 1-31 (byte 0 is the command byte)
  std::deque<u8> held_;     // key bytes the keyboard holds while its interface is disabled
  bool break_prefix_ = false;  // translation: an F0h was seen, the next code is a release
  Ps2Mouse mouse_;
  std::deque<u8> mouse_held_;  // mouse bytes held while the auxiliary interface is disabled
};

}  // namespace x86lab

// The VGA in 80x25 color text mode as a guest and the --vga-dump option see it: the
// text buffer at B8000h is ordinary RAM, and the register files behind ports
// 3C0h-3CFh and 3D4h-3DAh keep what is written so that drivers can read it back
// (IBM VGA Technical Reference, "CRT Controller Registers", "Attribute Controller",
// "Input Status Register One"). Nothing is drawn yet; the GUI shows it later.
#pragma once
#include "trace/state_archive.h"
#include <array>
#include <string>

#include "mmu/physical_bus.h"
#include "mmu/port_bus.h"

namespace x86lab {

class VgaText : public BusDevice {
 public:
  static constexpr u32 kTextBuffer = 0xB8000;
  static constexpr unsigned kColumns = 80, kRows = 25;

  explicit VgaText(PhysicalBus& bus) : bus_(bus) {}

  u32 read(u32 port, unsigned size) override;
  void write(u32 port, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "vga"; }

  // The 25 text rows from the CRTC start address, one line each, trailing blanks
  // removed; characters outside printable ASCII appear as '.'. No side effects.
  std::string text() const;
  // Display start (CRTC registers 0Ch/0Dh) as a character offset. No side effects.
  u16 start_address() const { return static_cast<u16>(crtc_[0x0C] << 8 | crtc_[0x0D]); }
  // Cursor position (CRTC registers 0Eh/0Fh) as a character offset.
  u16 cursor() const { return static_cast<u16>(crtc_[0x0E] << 8 | crtc_[0x0F]); }
  // Saves, checks or loads the device's state (a machine snapshot, trace/state_archive.h).
  void transfer_state(StateArchive& archive);

 private:
  PhysicalBus& bus_;
  std::array<u8, 32> crtc_{};
  std::array<u8, 32> attribute_{};
  std::array<u8, 8> sequencer_{};
  std::array<u8, 16> graphics_{};
  std::array<u8, 768> dac_{};
  u8 crtc_index_ = 0, attribute_index_ = 0, sequencer_index_ = 0, graphics_index_ = 0;
  bool attribute_data_next_ = false;  // the attribute controller's index/data flip-flop
  u8 misc_output_ = 0x67;             // color addressing (3Dxh), as after mode 3
  u16 dac_read_ = 0, dac_write_ = 0;  // DAC index * 3 + component
  u8 status_toggle_ = 0;
};

}  // namespace x86lab

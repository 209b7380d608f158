// The VGA's other bus faces (the DISPI ports, the A0000h window, the linear frame
// buffer) and its built-in font: internal to platform/devices/vga/.
#pragma once
#include <span>

#include "platform/devices/vga/vga.h"

namespace x86lab {

// The 8x16 font (256 characters, 16 bytes each, top line first, bit 7 leftmost) that
// the power-up state holds in plane 2: taken at build time from the VGA BIOS of
// Debian's seabios package (vgabios-stdvga.bin), the font that BIOS loads for mode 3
// (cmake/extract_vga_font.cmake). Empty when the build found no such BIOS.
std::span<const u8> vga_builtin_font();

// Ports 1CEh (index) and 1CFh (data) of the Bochs VBE interface, 16 bits wide.
class Vga::DispiPorts final : public BusDevice {
 public:
  explicit DispiPorts(Vga& vga) : vga_(vga) {}
  u32 read(u32 port, unsigned size) override;
  void write(u32 port, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "vbe-dispi"; }

 private:
  Vga& vga_;
};

// The A0000h-BFFFFh window on the physical bus (offsets 0-1FFFFh).
class Vga::MemoryWindow final : public BusDevice {
 public:
  explicit MemoryWindow(Vga& vga) : vga_(vga) {}
  u32 read(u32 offset, unsigned size) override;
  void write(u32 offset, unsigned size, u32 value) override;
  bool debug_read(u32 offset, u8& value) const override;
  bool debug_write(u32 offset, u8 value) override;
  std::string_view device_name() const override { return "vga-memory"; }

 private:
  Vga& vga_;
};

// The 16 MiB linear frame buffer: the video memory as bytes (offsets 0-FFFFFFh).
class Vga::LinearFrameBuffer final : public BusDevice {
 public:
  explicit LinearFrameBuffer(Vga& vga) : vga_(vga) {}
  u32 read(u32 offset, unsigned size) override;
  void write(u32 offset, unsigned size, u32 value) override;
  bool debug_read(u32 offset, u8& value) const override;
  bool debug_write(u32 offset, u8 value) override;
  std::string_view device_name() const override { return "vga-lfb"; }

 private:
  Vga& vga_;
};

}  // namespace x86lab

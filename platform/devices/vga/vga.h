// The VGA with the Bochs VBE "DISPI" extension, as the QEMU "-vga std" / Bochs adapter
// presents it to software (IBM VGA Technical Reference: "Programming Considerations",
// "General Registers", "Sequencer Registers", "CRT Controller Registers", "Graphics
// Controller Registers", "Attribute Controller Registers", "Video Digital-to-Analog
// Converter"; the Bochs VBE interface as its vbe_display_api.txt describes it).
//
// Shapes: 16 MiB of video memory. The VGA's four planes are its first 256 KiB, byte
// lane p of each 32-bit word being plane p (plane p, plane address a is vram[4a + p]),
// as the VGA's 32-bit memory interface arranges them; the DISPI modes and the linear
// frame buffer see the whole 16 MiB as bytes. The device answers on:
//   - the I/O ports 3B4h/3B5h, 3BAh, 3C0h-3CFh, 3D4h/3D5h, 3DAh (this BusDevice);
//   - 1CEh/1CFh, the DISPI index and data registers (dispi_ports());
//   - the A0000h-BFFFFh memory window (memory_window()), which the graphics
//     controller's memory map select decodes;
//   - the linear frame buffer (linear_frame_buffer()), 16 MiB, mapped by the PCI BAR0.
// Power-up state: the registers hold what a VGA BIOS programs for mode 3 (80x25 text,
// 9x16 cells, colour addressing at 3Dxh, text at B8000h), so that a kernel booted
// without a BIOS finds the screen a PC's BIOS would have left it (DEVIATION: a real
// VGA powers up unprogrammed; its BIOS sets mode 3 before anything runs). Plane 2
// then holds no font (a BIOS loads one); the renderer draws text without a loaded font
// with a built-in 8x16 font (vga_font.cpp) until plane 2 holds a nonzero glyph.
#pragma once
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "mmu/bus_device.h"
#include "mmu/physical_bus.h"
#include "mmu/port_bus.h"
#include "platform/clock.h"
#include "trace/state_archive.h"

namespace x86lab {

// A rendered screen: width x height pixels, row-major, 3 bytes R, G, B each (0-255).
struct VgaScreen {
  unsigned width = 0, height = 0;
  std::vector<u8> rgb;
};

class Vga : public BusDevice {
 public:
  static constexpr u32 kVramBytes = 16u << 20;    // video memory (VBE_DISPI_VIDEO_MEMORY_64K = 256)
  static constexpr u32 kPlaneBytes = 64u << 10;   // one VGA plane
  static constexpr u32 kWindowBase = 0xA0000;     // the legacy memory window, A0000h-BFFFFh
  static constexpr u32 kWindowBytes = 0x20000;
  static constexpr u32 kTextBuffer = 0xB8000;     // where mode 3's text lies
  static constexpr unsigned kColumns = 80, kRows = 25;
  // DISPI limits: what GETCAPS reports (XRES, YRES, BPP).
  static constexpr u16 kDispiMaxXres = 2560, kDispiMaxYres = 1600, kDispiMaxBpp = 32;
  // DISPI register indexes (port 1CEh) and ENABLE bits.
  enum DispiIndex : u16 {
    kDispiId = 0, kDispiXres, kDispiYres, kDispiBpp, kDispiEnable, kDispiBank, kDispiVirtWidth, kDispiVirtHeight,
    kDispiXOffset, kDispiYOffset, kDispiVideoMemory64k, kDispiRegisterCount
  };
  static constexpr u16 kDispiEnabled = 0x01, kDispiGetCaps = 0x02, kDispi8BitDac = 0x20, kDispiLfbEnabled = 0x40,
                       kDispiNoClearMem = 0x80;

  // `clock` times the input status registers' retrace and display-enable bits.
  explicit Vga(VirtualClock& clock);
  ~Vga() override;

  // The VGA's I/O ports (3B4h-3DAh; absolute port numbers, 1 or 2 bytes: a 16-bit OUT
  // to an index port writes the index and then the data port, as the VGA's byte-wide
  // bus splits it). Ports of the other addressing (3Bxh while colour is selected and
  // the reverse) read FFh and ignore writes, per the misc output register's bit 0.
  u32 read(u32 port, unsigned size) override;
  void write(u32 port, unsigned size, u32 value) override;
  std::string_view device_name() const override { return "vga"; }

  // The other faces of the adapter (owned by it, valid while it lives).
  BusDevice& dispi_ports();
  BusDevice& memory_window();
  BusDevice& linear_frame_buffer();
  // Attaches the ports and maps the A0000h window: the ISA (legacy) decoding, which
  // a PCI VGA also claims while its I/O and memory space are enabled.
  void attach_legacy(PortBus& ports, PhysicalBus& memory);

  // ---- CPU accesses through the memory window (offset from A0000h, 0-1FFFFh) ----
  // One byte, with the graphics controller's memory map select, chain-4, odd/even,
  // the latches, the read modes 0-1 and the write modes 0-3 (IBM VGA Technical
  // Reference, "Graphics Controller Registers": Mode Register; "Sequencer": Memory Mode).
  // Offsets outside the selected map read FFh and drop writes.
  u8 window_read(u32 offset);
  void window_write(u32 offset, u8 value);
  // The byte a read would return, without loading the latches (debuggers).
  u8 window_peek(u32 offset) const;

  // ---- state views (no side effects) ----
  u8 misc_output() const { return misc_output_; }
  u8 sequencer(unsigned index) const { return sequencer_[index % sequencer_.size()]; }
  u8 crtc(unsigned index) const { return crtc_[index % crtc_.size()]; }
  u8 graphics(unsigned index) const { return graphics_[index % graphics_.size()]; }
  u8 attribute(unsigned index) const { return attribute_[index % attribute_.size()]; }
  u8 attribute_index() const { return attribute_index_; }
  bool attribute_flip_flop_data() const { return attribute_data_next_; }
  // DAC entry `index` (0-255), component c (0 red, 1 green, 2 blue): 6 bits (8 with
  // DISPI's 8-bit DAC).
  u8 dac(unsigned index, unsigned component) const { return dac_[(index % 256) * 3 + component % 3]; }
  u8 plane_byte(unsigned plane, u32 address) const { return vram_[(address % kPlaneBytes) * 4 + plane % 4]; }
  u8 latch(unsigned plane) const { return latches_[plane % 4]; }
  u16 dispi(unsigned index) const { return dispi_[index % kDispiRegisterCount]; }
  bool dispi_enabled() const { return dispi_[kDispiEnable] & kDispiEnabled; }
  const u8* vram() const { return vram_.get(); }
  // Display start (CRTC 0Ch/0Dh) and cursor location (0Eh/0Fh), in character clocks.
  u16 start_address() const { return static_cast<u16>(crtc_[0x0C] << 8 | crtc_[0x0D]); }
  u16 cursor() const { return static_cast<u16>(crtc_[0x0E] << 8 | crtc_[0x0F]); }

  // ---- output ----
  // The visible screen of the current mode as RGB pixels (vga_render.cpp), at the dots
  // the monitor receives: DISPI modes at XRES x YRES; VGA modes at (CRTC 01h + 1)
  // character clocks of 8 dots (graphics) or 8/9 dots (text), doubled with the dot
  // clock halved, by the displayed scanlines (vertical display end + 1): mode 3
  // 720x400, mode 12h 640x480, mode 13h 640x400 (a 256-colour pixel is 2 dots wide and
  // its row shows on 2 scanlines). A screen turned off (sequencer clocking mode bit 5,
  // or the attribute controller's palette address source clear) is black at the
  // mode's size. Blinking and the cursor follow the modeled clock (the VGA's frame
  // counter: the cursor blinks every 16 frames, blinking characters every 32). Width
  // and height are capped at 2560x1600.
  VgaScreen render() const;
  // The text rows from the CRTC start address, one line each (text modes; the rows and
  // columns that the CRTC displays), trailing blanks removed; characters outside
  // printable ASCII appear as '.'. No side effects. In a graphics mode: an empty line.
  std::string text() const;
  // Frames displayed since power-up at the current modeled time (the frame counter
  // behind blinking), from the CRTC's totals and the dot clock that the misc output
  // register selects.
  u64 frame_count() const;

  // Saves, checks or loads the device's state: registers, the DISPI registers, the
  // latches and the video memory up to the highest byte ever written.
  void transfer_state(StateArchive& archive);

 private:
  class DispiPorts;
  class MemoryWindow;
  class LinearFrameBuffer;
  friend class DispiPorts;
  friend class MemoryWindow;
  friend class LinearFrameBuffer;

  void reset_to_mode3();
  bool color_addressing() const { return misc_output_ & 1; }
  u8 input_status_1() const;
  // The window decode: the plane address and the byte lane(s) for `offset`.
  bool window_decode(u32 offset, u32& address) const;
  u16 dispi_read_data();
  void dispi_write_data(u16 value);
  void dispi_enable(u16 value);
  void crtc_write(u8 value);
  void touch(u32 byte) { if (byte >= vram_extent_) vram_extent_ = byte + 1; }
  // Position of the beam: scanline and dot within the frame at the current time.
  void beam(u64& line, u64& dot) const;

  // Rendering parts (vga_render.cpp).
  void render_text(VgaScreen& screen) const;
  void render_graphics(VgaScreen& screen) const;
  void render_dispi(VgaScreen& screen) const;
  std::array<u8, 3> dac_rgb(u8 index) const;
  u32 display_address(u32 ma, unsigned row_scan) const;

  VirtualClock& clock_;
  std::unique_ptr<u8[]> vram_;
  u32 vram_extent_ = 4 * kPlaneBytes;  // bytes that may be nonzero (saved in snapshots)
  std::array<u8, 4> latches_{};
  u8 misc_output_ = 0, feature_control_ = 0, vga_enable_ = 1;
  std::array<u8, 5> sequencer_{};
  std::array<u8, 25> crtc_{};
  std::array<u8, 9> graphics_{};
  std::array<u8, 21> attribute_{};
  u8 sequencer_index_ = 0, crtc_index_ = 0, graphics_index_ = 0, attribute_index_ = 0;
  bool attribute_data_next_ = false;  // the attribute controller's index/data flip-flop
  // The DAC (IBM VGA Technical Reference, "Video DAC"): 256 entries of R, G, B.
  std::array<u8, 768> dac_{};
  u8 dac_mask_ = 0xFF, dac_read_index_ = 0, dac_write_index_ = 0, dac_component_ = 0;
  bool dac_reading_ = false;          // DAC state register: last index written was 3C7h
  std::array<u8, 3> dac_pending_{};   // a write cycle's first components
  std::array<u16, kDispiRegisterCount> dispi_{};
  u16 dispi_index_ = 0;

  std::unique_ptr<DispiPorts> dispi_ports_;
  std::unique_ptr<MemoryWindow> memory_window_;
  std::unique_ptr<LinearFrameBuffer> lfb_;
};

}  // namespace x86lab

// The VGA's register files behind its I/O ports and their power-up (mode 3) values
// (IBM VGA Technical Reference: "General Registers", "Sequencer Registers", "CRT
// Controller Registers", "Graphics Controller Registers", "Attribute Controller
// Registers", "Video DAC"; the mode 3 values of its "BIOS Video Mode" tables).
#include "platform/devices/vga/vga.h"

#include <cstring>

#include "platform/devices/vga/vga_parts.h"

namespace x86lab {

namespace {
// Mode 3 (80x25 colour text, 720x400, 70 Hz): misc output 67h, then the register
// files in index order.
constexpr u8 kMode3Misc = 0x67;
constexpr std::array<u8, 5> kMode3Sequencer = {0x03, 0x00, 0x03, 0x00, 0x02};
constexpr std::array<u8, 25> kMode3Crtc = {0x5F, 0x4F, 0x50, 0x82, 0x55, 0x81, 0xBF, 0x1F, 0x00, 0x4F, 0x0D, 0x0E, 0x00,
                                           0x00, 0x00, 0x00, 0x9C, 0x8E, 0x8F, 0x28, 0x1F, 0x96, 0xB9, 0xA3, 0xFF};
constexpr std::array<u8, 9> kMode3Graphics = {0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x0E, 0x00, 0xFF};
constexpr std::array<u8, 21> kMode3Attribute = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x14, 0x07, 0x38, 0x39, 0x3A,
                                                0x3B, 0x3C, 0x3D, 0x3E, 0x3F, 0x0C, 0x00, 0x0F, 0x08, 0x00};
// Writable bits of each register (the others read 0).
constexpr std::array<u8, 5> kSequencerMask = {0x03, 0x3D, 0x0F, 0x3F, 0x0E};
constexpr std::array<u8, 9> kGraphicsMask = {0x0F, 0x0F, 0x0F, 0x1F, 0x03, 0x7B, 0x0F, 0x0F, 0xFF};
constexpr std::array<u8, 21> kAttributeMask = {0x3F, 0x3F, 0x3F, 0x3F, 0x3F, 0x3F, 0x3F, 0x3F, 0x3F, 0x3F, 0x3F,
                                               0x3F, 0x3F, 0x3F, 0x3F, 0x3F, 0xEF, 0xFF, 0x3F, 0x0F, 0x0F};
}  // namespace

Vga::Vga(VirtualClock& clock)
    : clock_(clock),
      vram_(new u8[kVramBytes]()),
      dispi_ports_(std::make_unique<DispiPorts>(*this)),
      memory_window_(std::make_unique<MemoryWindow>(*this)),
      lfb_(std::make_unique<LinearFrameBuffer>(*this)) {
  reset_to_mode3();
}

Vga::~Vga() = default;

BusDevice& Vga::dispi_ports() { return *dispi_ports_; }
BusDevice& Vga::memory_window() { return *memory_window_; }
BusDevice& Vga::linear_frame_buffer() { return *lfb_; }

void Vga::attach_legacy(PortBus& ports, PhysicalBus& memory) {
  ports.attach(0x3B4, 0x3B5, this);
  ports.attach(0x3BA, 0x3BA, this);
  ports.attach(0x3C0, 0x3CF, this);
  ports.attach(0x3D4, 0x3D5, this);
  ports.attach(0x3DA, 0x3DA, this);
  ports.attach(0x1CE, 0x1CF, dispi_ports_.get());
  memory.map_mmio(kWindowBase, kWindowBytes, memory_window_.get());
}

void Vga::reset_to_mode3() {
  misc_output_ = kMode3Misc;
  sequencer_ = kMode3Sequencer;
  crtc_ = kMode3Crtc;
  graphics_ = kMode3Graphics;
  attribute_ = kMode3Attribute;
  attribute_index_ = 0x20;  // palette address source set: the screen shows
  // The BIOS's 64-entry palette for the 16 text colours (IBM VGA Technical Reference,
  // "Video DAC": the EGA-compatible default): bits 0/3 blue, 1/4 green, 2/5 red, the
  // low bit of each pair worth 2Ah and the high bit 15h.
  for (unsigned i = 0; i < 64; ++i) {
    dac_[i * 3 + 0] = static_cast<u8>(((i >> 2) & 1) * 0x2A + ((i >> 5) & 1) * 0x15);
    dac_[i * 3 + 1] = static_cast<u8>(((i >> 1) & 1) * 0x2A + ((i >> 4) & 1) * 0x15);
    dac_[i * 3 + 2] = static_cast<u8>((i & 1) * 0x2A + ((i >> 3) & 1) * 0x15);
  }
  // The 8x16 font in character map 0 of plane 2 (32 bytes a character), as the BIOS
  // loads it.
  const std::span<const u8> font = vga_builtin_font();
  for (unsigned c = 0; c < 256 && (c + 1) * 16 <= font.size(); ++c)
    for (unsigned line = 0; line < 16; ++line) vram_[(c * 32 + line) * 4 + 2] = font[c * 16 + line];
  dispi_[kDispiId] = 0xB0C5;
  dispi_[kDispiXres] = 640;
  dispi_[kDispiYres] = 480;
  dispi_[kDispiBpp] = 8;
  dispi_[kDispiVirtWidth] = 640;
  dispi_[kDispiVirtHeight] = 480;
  dispi_[kDispiVideoMemory64k] = kVramBytes >> 16;
}

u32 Vga::read(u32 port, unsigned size) {
  if (size > 1) {
    u32 value = 0;
    for (unsigned i = 0; i < size; ++i) value |= read(port + i, 1) << (8 * i);
    return value;
  }
  // The CRTC and input status 1 answer only at the addressing the misc output selects.
  const bool mono_port = port == 0x3B4 || port == 0x3B5 || port == 0x3BA;
  const bool color_port = port == 0x3D4 || port == 0x3D5 || port == 0x3DA;
  if ((mono_port && color_addressing()) || (color_port && !color_addressing())) return 0xFF;
  switch (port) {
    case 0x3C0: return attribute_index_;
    case 0x3C1: {
      const unsigned index = attribute_index_ & 0x1F;
      return index < attribute_.size() ? attribute_[index] : 0;
    }
    case 0x3C2: return 0x00;  // input status 0: no CRT interrupt pending, switch sense 0
    case 0x3C3: return vga_enable_;
    case 0x3C4: return sequencer_index_;
    case 0x3C5: return sequencer_index_ < sequencer_.size() ? sequencer_[sequencer_index_] : 0;
    case 0x3C6: return dac_mask_;
    case 0x3C7: return dac_reading_ ? 0x03 : 0x00;  // DAC state: 11b after a read index, 00b after a write index
    case 0x3C8: return dac_write_index_;
    case 0x3C9: {
      // Each read returns the next component; after blue the read index advances.
      const u8 value = dac_[dac_read_index_ * 3 + dac_component_];
      if (++dac_component_ == 3) {
        dac_component_ = 0;
        ++dac_read_index_;
      }
      return value;
    }
    case 0x3CA: return feature_control_;
    case 0x3CC: return misc_output_;
    case 0x3CE: return graphics_index_;
    case 0x3CF: return graphics_index_ < graphics_.size() ? graphics_[graphics_index_] : 0;
    case 0x3B4: case 0x3D4: return crtc_index_;
    case 0x3B5: case 0x3D5: return crtc_index_ < crtc_.size() ? crtc_[crtc_index_] : 0;
    case 0x3BA: case 0x3DA:
      attribute_data_next_ = false;  // reading input status 1 resets the flip-flop to "index"
      return input_status_1();
    default: return 0xFF;
  }
}

void Vga::write(u32 port, unsigned size, u32 value) {
  if (size > 1) {
    for (unsigned i = 0; i < size; ++i) write(port + i, 1, (value >> (8 * i)) & 0xFF);
    return;
  }
  const u8 byte = static_cast<u8>(value);
  const bool mono_port = port == 0x3B4 || port == 0x3B5 || port == 0x3BA;
  const bool color_port = port == 0x3D4 || port == 0x3D5 || port == 0x3DA;
  if ((mono_port && color_addressing()) || (color_port && !color_addressing())) return;
  switch (port) {
    case 0x3C0:
      if (attribute_data_next_) {
        const unsigned index = attribute_index_ & 0x1F;
        // QUIRK: while the palette address source bit is set, the palette registers
        // (00h-0Fh) cannot be written; the other registers can.
        if (index < attribute_.size() && !(index < 16 && (attribute_index_ & 0x20)))
          attribute_[index] = byte & kAttributeMask[index];
      } else {
        attribute_index_ = byte & 0x3F;
      }
      attribute_data_next_ = !attribute_data_next_;
      break;
    case 0x3C2: misc_output_ = byte & 0xEF; break;
    case 0x3C3: vga_enable_ = byte & 1; break;
    case 0x3C4: sequencer_index_ = byte & 0x07; break;
    case 0x3C5:
      if (sequencer_index_ < sequencer_.size()) sequencer_[sequencer_index_] = byte & kSequencerMask[sequencer_index_];
      break;
    case 0x3C6: dac_mask_ = byte; break;
    case 0x3C7:
      dac_read_index_ = byte;
      dac_component_ = 0;
      dac_reading_ = true;
      break;
    case 0x3C8:
      dac_write_index_ = byte;
      dac_component_ = 0;
      dac_reading_ = false;
      break;
    case 0x3C9: {
      // The three components of an entry are collected and written together after
      // blue; then the write index advances (wrapping from 255 to 0).
      const bool eight_bit = dispi_[kDispiEnable] & kDispi8BitDac;
      dac_pending_[dac_component_] = eight_bit ? byte : byte & 0x3F;
      if (++dac_component_ == 3) {
        std::memcpy(&dac_[dac_write_index_ * 3], dac_pending_.data(), 3);
        dac_component_ = 0;
        ++dac_write_index_;
      }
      break;
    }
    case 0x3CE: graphics_index_ = byte & 0x0F; break;
    case 0x3CF:
      if (graphics_index_ < graphics_.size()) graphics_[graphics_index_] = byte & kGraphicsMask[graphics_index_];
      break;
    case 0x3B4: case 0x3D4: crtc_index_ = byte & 0x3F; break;
    case 0x3B5: case 0x3D5: crtc_write(byte); break;
    case 0x3BA: case 0x3DA: feature_control_ = byte & 0x03; break;
    default: break;
  }
}

void Vga::crtc_write(u8 value) {
  if (crtc_index_ >= crtc_.size()) return;
  // The protect bit (CRTC 11h bit 7) write-protects registers 00h-07h, except the
  // line compare bit 8 in the overflow register (07h bit 4).
  if ((crtc_[0x11] & 0x80) && crtc_index_ <= 0x07) {
    if (crtc_index_ == 0x07) crtc_[0x07] = static_cast<u8>((crtc_[0x07] & ~0x10) | (value & 0x10));
    return;
  }
  crtc_[crtc_index_] = value;
}

void Vga::beam(u64& line, u64& dot) const {
  // Dot clock: misc output bits 3-2 select 25.175 MHz (00b) or 28.322 MHz (01b).
  const u64 dot_hz = (misc_output_ & 0x0C) == 0x04 ? 28'322'000 : 25'175'000;
  const u64 char_dots = (sequencer_[1] & 1) ? 8 : 9;
  const u64 line_dots = (crtc_[0x00] + 5u) * char_dots * ((sequencer_[1] & 0x08) ? 2 : 1);
  const u64 lines = (crtc_[0x06] | (crtc_[0x07] & 0x01) << 8 | (crtc_[0x07] & 0x20) << 4) + 2u;
  const u64 dots = clock_.ticks_at(clock_.now(), dot_hz);
  line = (dots / line_dots) % lines;
  dot = dots % line_dots;
}

u64 Vga::frame_count() const {
  const u64 dot_hz = (misc_output_ & 0x0C) == 0x04 ? 28'322'000 : 25'175'000;
  const u64 char_dots = (sequencer_[1] & 1) ? 8 : 9;
  const u64 line_dots = (crtc_[0x00] + 5u) * char_dots * ((sequencer_[1] & 0x08) ? 2 : 1);
  const u64 lines = (crtc_[0x06] | (crtc_[0x07] & 0x01) << 8 | (crtc_[0x07] & 0x20) << 4) + 2u;
  return clock_.ticks_at(clock_.now(), dot_hz) / (line_dots * lines);
}

u8 Vga::input_status_1() const {
  // Bit 3: vertical retrace, from CRTC 10h (start, with overflow bits 2 and 7) for
  // the lines that 11h bits 3-0 count. Bit 0: display disabled (any blanking period:
  // beyond the horizontal display end, 01h, or the vertical display end, 12h).
  u64 line = 0, dot = 0;
  beam(line, dot);
  const u32 retrace_start = crtc_[0x10] | (crtc_[0x07] & 0x04) << 6 | (crtc_[0x07] & 0x80) << 2;
  const u32 retrace_lines = ((crtc_[0x11] & 0x0F) - (retrace_start & 0x0F)) & 0x0F;
  const u32 display_end = crtc_[0x12] | (crtc_[0x07] & 0x02) << 7 | (crtc_[0x07] & 0x40) << 3;
  const u64 char_dots = (sequencer_[1] & 1) ? 8 : 9;
  const u64 h_display_dots = (crtc_[0x01] + 1u) * char_dots * ((sequencer_[1] & 0x08) ? 2 : 1);
  const bool retrace = line >= retrace_start && line < retrace_start + (retrace_lines ? retrace_lines : 16);
  const bool blank = line > display_end || dot >= h_display_dots;
  return static_cast<u8>((retrace ? 0x08 : 0) | (blank || retrace ? 0x01 : 0));
}

void Vga::transfer_state(StateArchive& a) {
  a.field(misc_output_, "VGA miscellaneous output");
  a.field(feature_control_, "VGA feature control");
  a.field(vga_enable_, "VGA enable");
  a.array(sequencer_, "VGA sequencer");
  a.array(crtc_, "VGA CRTC");
  a.array(graphics_, "VGA graphics controller");
  a.array(attribute_, "VGA attribute controller");
  a.field(sequencer_index_, "VGA sequencer index", 7);
  a.field(crtc_index_, "VGA CRTC index", 0x3F);
  a.field(graphics_index_, "VGA graphics index", 0x0F);
  a.field(attribute_index_, "VGA attribute index", 0x3F);
  a.field(attribute_data_next_, "VGA attribute flip-flop");
  a.array(dac_, "VGA DAC");
  a.field(dac_mask_, "VGA DAC mask");
  a.field(dac_read_index_, "VGA DAC read index");
  a.field(dac_write_index_, "VGA DAC write index");
  a.field(dac_component_, "VGA DAC component", 2);
  a.field(dac_reading_, "VGA DAC state");
  a.array(dac_pending_, "VGA DAC write cycle");
  a.array(latches_, "VGA latches");
  a.array(dispi_, "VBE DISPI registers");
  a.field(dispi_index_, "VBE DISPI index");
  // Video memory: the bytes below the highest one ever written (the rest are zero).
  u32 extent = vram_extent_;
  a.local(extent, "VGA video memory extent", kVramBytes);
  a.raw(vram_.get(), extent, "VGA video memory");
  if (a.loading()) {
    if (extent < vram_extent_) std::memset(vram_.get() + extent, 0, vram_extent_ - extent);
    vram_extent_ = extent;
  }
}

}  // namespace x86lab

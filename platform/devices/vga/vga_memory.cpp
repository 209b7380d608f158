// The VGA's video memory as the CPU reaches it: the A0000h-BFFFFh window through the
// graphics controller (memory map select, read modes 0-1 with the latches and colour
// compare, write modes 0-3 with set/reset, data rotate, the logical function and the
// bit mask) and the sequencer (map mask, chain-4, odd/even) — IBM VGA Technical
// Reference, "Graphics Controller Registers" and "Sequencer Registers" — and the Bochs
// VBE interface's registers, banked window and linear frame buffer.
#include <algorithm>
#include <cstring>

#include "platform/devices/vga/vga.h"
#include "platform/devices/vga/vga_parts.h"

namespace x86lab {

namespace {
// A byte with bit p of `nibble` replicated to all 8 bits of lane p, p = 0-3.
constexpr u8 expand_bit(u8 nibble, unsigned plane) { return (nibble >> plane) & 1 ? 0xFF : 0x00; }
constexpr u8 rotate_right(u8 value, unsigned count) {
  count &= 7;
  return static_cast<u8>((value >> count) | (value << ((8 - count) & 7)));
}
}  // namespace

// Graphics controller misc register (06h) bits 3-2, the memory map select:
//   00b A0000h-BFFFFh (128K), 01b A0000h-AFFFFh (64K), 10b B0000h-B7FFFh (32K),
//   11b B8000h-BFFFFh (32K).
// `offset` is from A0000h; `address` becomes the offset inside the selected map.
bool Vga::window_decode(u32 offset, u32& address) const {
  switch ((graphics_[6] >> 2) & 3) {
    case 0: address = offset; return offset < 0x20000;
    case 1: address = offset; return offset < 0x10000;
    case 2: address = offset - 0x10000; return offset - 0x10000 < 0x8000;
    default: address = offset - 0x18000; return offset - 0x18000 < 0x8000;
  }
}

u8 Vga::window_read(u32 offset) {
  if (dispi_enabled()) {
    // The banked window: 64 KiB at A0000h of the linear video memory, BANK x 64 KiB on.
    if (offset >= 0x10000) return 0xFF;
    return vram_[(u32{dispi_[kDispiBank]} * 0x10000 + offset) % kVramBytes];
  }
  u32 address = 0;
  if (!window_decode(offset, address)) return 0xFF;
  const bool chain4 = sequencer_[4] & 0x08;
  const bool odd_even = graphics_[5] & 0x10;  // the graphics controller's host odd/even (reads)
  unsigned plane = graphics_[4] & 3;          // read map select
  if (chain4) {
    plane = address & 3;
    address &= ~3u;
  } else if (odd_even) {
    plane = (plane & 2) | (address & 1);
    address &= ~1u;
  }
  address %= kPlaneBytes;
  std::memcpy(latches_.data(), &vram_[address * 4], 4);  // every read loads the four latches
  if (!(graphics_[5] & 0x08)) return latches_[plane];   // read mode 0
  // Read mode 1: a bit is 1 where every plane that colour don't care (07h) includes
  // matches colour compare (02h).
  u8 result = 0xFF;
  for (unsigned p = 0; p < 4; ++p)
    if (graphics_[7] & (1u << p)) result &= static_cast<u8>(~(latches_[p] ^ expand_bit(graphics_[2], p)));
  return result;
}

u8 Vga::window_peek(u32 offset) const {
  if (dispi_enabled()) return offset < 0x10000 ? vram_[(u32{dispi_[kDispiBank]} * 0x10000 + offset) % kVramBytes] : 0xFF;
  u32 address = 0;
  if (!window_decode(offset, address)) return 0xFF;
  unsigned plane = graphics_[4] & 3;
  if (sequencer_[4] & 0x08) {
    plane = address & 3;
    address &= ~3u;
  } else if (graphics_[5] & 0x10) {
    plane = (plane & 2) | (address & 1);
    address &= ~1u;
  }
  return vram_[(address % kPlaneBytes) * 4 + plane];
}

void Vga::window_write(u32 offset, u8 value) {
  if (dispi_enabled()) {
    if (offset >= 0x10000) return;
    const u32 at = (u32{dispi_[kDispiBank]} * 0x10000 + offset) % kVramBytes;
    vram_[at] = value;
    touch(at);
    return;
  }
  u32 address = 0;
  if (!window_decode(offset, address)) return;
  u8 planes = sequencer_[2] & 0x0F;  // map mask
  if (sequencer_[4] & 0x08) {        // chain-4: A1-A0 select the plane
    planes &= static_cast<u8>(1u << (address & 3));
    address &= ~3u;
  } else if (!(sequencer_[4] & 0x04)) {  // odd/even: A0 selects planes 0/2 or 1/3
    planes &= (address & 1) ? 0x0A : 0x05;
    address &= ~1u;
  }
  address %= kPlaneBytes;
  const unsigned mode = graphics_[5] & 3;
  const u8 set_reset = graphics_[0], enable = graphics_[1];
  const unsigned function = (graphics_[3] >> 3) & 3;  // 00 replace, 01 AND, 10 OR, 11 XOR
  const u8 rotated = rotate_right(value, graphics_[3] & 7);
  u8 bit_mask = graphics_[8];
  for (unsigned p = 0; p < 4; ++p) {
    if (!(planes & (1u << p))) continue;
    u8 data;
    switch (mode) {
      case 0: data = (enable & (1u << p)) ? expand_bit(set_reset, p) : rotated; break;
      case 1: vram_[address * 4 + p] = latches_[p]; continue;  // the latches, unchanged
      case 2: data = expand_bit(value, p); break;
      default: data = expand_bit(set_reset, p); break;
    }
    const u8 mask = mode == 3 ? static_cast<u8>(bit_mask & rotated) : bit_mask;
    switch (function) {
      case 1: data &= latches_[p]; break;
      case 2: data |= latches_[p]; break;
      case 3: data ^= latches_[p]; break;
      default: break;
    }
    vram_[address * 4 + p] = static_cast<u8>((data & mask) | (latches_[p] & ~mask));
  }
  touch(address * 4 + 3);
}

// ---- the memory window, the linear frame buffer ----

u32 Vga::MemoryWindow::read(u32 offset, unsigned size) {
  u32 value = 0;
  for (unsigned i = 0; i < size; ++i) value |= u32{vga_.window_read(offset + i)} << (8 * i);
  return value;
}

void Vga::MemoryWindow::write(u32 offset, unsigned size, u32 value) {
  for (unsigned i = 0; i < size; ++i) vga_.window_write(offset + i, static_cast<u8>(value >> (8 * i)));
}

bool Vga::MemoryWindow::debug_read(u32 offset, u8& value) const {
  value = vga_.window_peek(offset);
  return true;
}

// A debugger's write: into the plane a CPU read would read (read map select, chain-4,
// odd/even), with no write mode, latch or mask.
bool Vga::MemoryWindow::debug_write(u32 offset, u8 value) {
  Vga& v = vga_;
  if (v.dispi_enabled()) {
    if (offset < 0x10000) v.vram_[(u32{v.dispi_[kDispiBank]} * 0x10000 + offset) % kVramBytes] = value;
    return true;
  }
  u32 address = 0;
  if (!v.window_decode(offset, address)) return true;
  unsigned plane = v.graphics_[4] & 3;
  if (v.sequencer_[4] & 0x08) {
    plane = address & 3;
    address &= ~3u;
  } else if (!(v.sequencer_[4] & 0x04)) {
    plane = (plane & 2) | (address & 1);
    address &= ~1u;
  }
  v.vram_[(address % kPlaneBytes) * 4 + plane] = value;
  return true;
}

u32 Vga::LinearFrameBuffer::read(u32 offset, unsigned size) {
  u32 value = 0;
  for (unsigned i = 0; i < size; ++i) value |= u32{vga_.vram_[(offset + i) % kVramBytes]} << (8 * i);
  return value;
}

void Vga::LinearFrameBuffer::write(u32 offset, unsigned size, u32 value) {
  for (unsigned i = 0; i < size; ++i) {
    const u32 at = (offset + i) % kVramBytes;
    vga_.vram_[at] = static_cast<u8>(value >> (8 * i));
    vga_.touch(at);
  }
}

bool Vga::LinearFrameBuffer::debug_read(u32 offset, u8& value) const {
  value = vga_.vram_[offset % kVramBytes];
  return true;
}

bool Vga::LinearFrameBuffer::debug_write(u32 offset, u8 value) {
  vga_.vram_[offset % kVramBytes] = value;
  vga_.touch(offset % kVramBytes);
  return true;
}

// ---- the Bochs VBE interface (DISPI) ----

u32 Vga::DispiPorts::read(u32 port, unsigned) {
  if (port == 0x1CE) return vga_.dispi_index_;
  return vga_.dispi_read_data();
}

void Vga::DispiPorts::write(u32 port, unsigned, u32 value) {
  if (port == 0x1CE) vga_.dispi_index_ = static_cast<u16>(value);
  else vga_.dispi_write_data(static_cast<u16>(value));
}

u16 Vga::dispi_read_data() {
  if (dispi_index_ >= kDispiRegisterCount) return 0;
  // With ENABLE's GETCAPS bit set, XRES, YRES and BPP read their maxima.
  if (dispi_[kDispiEnable] & kDispiGetCaps) {
    if (dispi_index_ == kDispiXres) return kDispiMaxXres;
    if (dispi_index_ == kDispiYres) return kDispiMaxYres;
    if (dispi_index_ == kDispiBpp) return kDispiMaxBpp;
  }
  return dispi_[dispi_index_];
}

void Vga::dispi_write_data(u16 value) {
  switch (dispi_index_) {
    case kDispiId:
      if (value >= 0xB0C0 && value <= 0xB0C5) dispi_[kDispiId] = value;  // the versions this interface speaks
      break;
    case kDispiXres: case kDispiYres: case kDispiBpp:
      // Mode registers change only while the interface is disabled.
      if (!dispi_enabled()) {
        if (dispi_index_ == kDispiBpp && value == 0) value = 8;
        dispi_[dispi_index_] = value;
      }
      break;
    case kDispiEnable: dispi_enable(value); break;
    case kDispiBank:
      dispi_[kDispiBank] = static_cast<u16>(value % (kVramBytes / 0x10000));
      break;
    case kDispiVirtWidth: case kDispiXOffset: case kDispiYOffset:
      dispi_[dispi_index_] = value;
      if (dispi_index_ == kDispiVirtWidth) {
        const unsigned bytes = std::max(1u, (dispi_[kDispiBpp] + 7u) / 8);
        dispi_[kDispiVirtHeight] = static_cast<u16>(std::min<u32>(0xFFFF, kVramBytes / (std::max<u16>(value, 1) * bytes)));
      }
      break;
    default: break;  // VIRT_HEIGHT and VIDEO_MEMORY_64K are read-only
  }
}

void Vga::dispi_enable(u16 value) {
  const bool was = dispi_enabled();
  dispi_[kDispiEnable] = value & (kDispiEnabled | kDispiGetCaps | kDispi8BitDac | kDispiLfbEnabled | kDispiNoClearMem);
  if (!(value & kDispiEnabled) || was) return;
  // Enabling: the resolution within the limits, the virtual size from it, offsets 0,
  // and the video memory cleared unless NOCLEARMEM.
  u16& bpp = dispi_[kDispiBpp];
  if (bpp != 4 && bpp != 8 && bpp != 15 && bpp != 16 && bpp != 24 && bpp != 32) bpp = 8;
  dispi_[kDispiXres] = std::clamp<u16>(static_cast<u16>(dispi_[kDispiXres] & ~7u), 8, kDispiMaxXres);
  dispi_[kDispiYres] = std::clamp<u16>(dispi_[kDispiYres], 1, kDispiMaxYres);
  const u32 bytes = (bpp + 7u) / 8;
  dispi_[kDispiVirtWidth] = dispi_[kDispiXres];
  dispi_[kDispiVirtHeight] = static_cast<u16>(std::min<u32>(0xFFFF, kVramBytes / (dispi_[kDispiXres] * bytes)));
  dispi_[kDispiXOffset] = dispi_[kDispiYOffset] = 0;
  dispi_[kDispiBank] = 0;
  if (!(value & kDispiNoClearMem)) {
    std::memset(vram_.get(), 0, vram_extent_);
  }
}

}  // namespace x86lab

// What the VGA sends to the monitor, as RGB pixels: the CRT controller's addressing
// (start address, offset, word/byte/doubleword mode, the CGA-compatible row-scan
// substitutions, line compare, double scanning), the attribute controller's text and
// graphics paths (palette, colour plane enable, mode control, colour select), the
// character generator reading plane 2, and the DAC (IBM VGA Technical Reference, "CRT
// Controller Registers", "Attribute Controller Registers", "Video DAC"); and the
// Bochs VBE interface's packed-pixel modes.
#include <algorithm>

#include "platform/devices/vga/vga.h"

namespace x86lab {

namespace {
constexpr unsigned kMaxWidth = 2560, kMaxHeight = 1600;
// A DAC or direct-colour component of `bits` bits as 0-255 (the nearest of the
// analogue level v / (2^bits - 1)).
constexpr u8 scale(u32 value, unsigned bits) {
  const u32 top = (1u << bits) - 1;
  return static_cast<u8>(((value & top) * 255 + top / 2) / top);
}
void put(VgaScreen& s, unsigned x, unsigned y, const std::array<u8, 3>& rgb) {
  u8* at = &s.rgb[(std::size_t{y} * s.width + x) * 3];
  at[0] = rgb[0];
  at[1] = rgb[1];
  at[2] = rgb[2];
}
}  // namespace

std::array<u8, 3> Vga::dac_rgb(u8 index) const {
  index &= dac_mask_;
  const unsigned bits = (dispi_[kDispiEnable] & kDispi8BitDac) ? 8 : 6;
  return {scale(dac_[index * 3], bits), scale(dac_[index * 3 + 1], bits), scale(dac_[index * 3 + 2], bits)};
}

// The plane address that the CRTC fetches for character clock address `ma` on row
// scan `row_scan` (CRTC 17h bits 0, 1, 5, 6 and 14h bit 6).
u32 Vga::display_address(u32 ma, unsigned row_scan) const {
  const u8 mode = crtc_[0x17];
  if (!(mode & 0x01)) ma = (ma & ~(1u << 13)) | (row_scan & 1) << 13;         // CMS: MA13 = row scan bit 0
  if (!(mode & 0x02)) ma = (ma & ~(1u << 14)) | ((row_scan >> 1) & 1) << 14;  // SRS: MA14 = row scan bit 1
  u32 address;
  if (crtc_[0x14] & 0x40) address = ma << 2 | ((ma >> 14) & 3);                      // doubleword mode
  else if (!(mode & 0x40)) address = ma << 1 | ((mode & 0x20 ? ma >> 15 : ma >> 13) & 1);  // word mode
  else address = ma;                                                                   // byte mode
  return address % kPlaneBytes;
}

namespace {
// One displayed row of the CRTC: its character clock address and its row scan.
struct CrtcLine {
  u32 ma;
  unsigned row_scan;
};

// The CRTC's walk down the frame: every scanline up to the vertical display end, with
// double scanning (each row scan shown on two scanlines), the maximum scan line,
// preset row scan and line compare (which restarts the display at address 0).
std::vector<CrtcLine> crtc_lines(const std::array<u8, 25>& crtc) {
  const unsigned scanlines = std::min<unsigned>(
      (crtc[0x12] | (crtc[0x07] & 0x02) << 7 | (crtc[0x07] & 0x40) << 3) + 1u, kMaxHeight);
  const unsigned line_compare = crtc[0x18] | (crtc[0x07] & 0x10) << 4 | (crtc[0x09] & 0x40) << 3;
  const bool double_scan = crtc[0x09] & 0x80;
  const unsigned max_scan = crtc[0x09] & 0x1F;
  const u32 row_bytes = 2u * crtc[0x13];
  u32 ma = static_cast<u32>(crtc[0x0C] << 8 | crtc[0x0D]);
  unsigned row_scan = crtc[0x08] & 0x1F;
  std::vector<CrtcLine> lines;
  for (unsigned line = 0; line < scanlines; ++line) {
    if (line == line_compare) {
      ma = 0;
      row_scan = 0;
    }
    lines.push_back({ma, row_scan});
    if (double_scan && !(line & 1)) continue;  // the same row scan once more
    if (row_scan >= max_scan) {
      row_scan = 0;
      ma += row_bytes;
    } else {
      ++row_scan;
    }
  }
  return lines;
}
}  // namespace

VgaScreen Vga::render() const {
  VgaScreen screen;
  if (dispi_enabled()) render_dispi(screen);
  else if (graphics_[6] & 1) render_graphics(screen);
  else render_text(screen);
  screen.width = std::min(screen.width, kMaxWidth);
  screen.height = std::min(screen.height, kMaxHeight);
  if (screen.rgb.size() != std::size_t{screen.width} * screen.height * 3) screen.rgb.assign(std::size_t{screen.width} * screen.height * 3, 0);
  // Screen off (clocking mode bit 5) or the palette given to the CPU (palette address
  // source clear): the monitor sees black.
  if (!dispi_enabled() && ((sequencer_[1] & 0x20) || !(attribute_index_ & 0x20)))
    std::fill(screen.rgb.begin(), screen.rgb.end(), 0);
  return screen;
}

void Vga::render_text(VgaScreen& screen) const {
  const unsigned columns = crtc_[0x01] + 1u;
  const unsigned char_dots = (sequencer_[1] & 1) ? 8 : 9;
  const unsigned stretch = (sequencer_[1] & 0x08) ? 2 : 1;  // dot clock / 2: 40-column modes
  const std::vector<CrtcLine> lines = crtc_lines(crtc_);
  screen.width = std::min(columns * char_dots * stretch, kMaxWidth);
  screen.height = static_cast<unsigned>(lines.size());
  screen.rgb.assign(std::size_t{screen.width} * screen.height * 3, 0);
  // Character map select (sequencer 03h): map A (bits 5, 3-2) for attribute bit 3 set,
  // map B (bits 4, 1-0) for it clear; map n lies at 16K * (n & 3) + 8K * (n >> 2) of plane 2.
  const u8 select = sequencer_[3];
  const unsigned map_a = ((select >> 2) & 3) | ((select >> 3) & 4), map_b = (select & 3) | ((select >> 2) & 4);
  const auto map_base = [](unsigned map) { return (map & 3) * 0x4000u + (map >> 2) * 0x2000u; };
  const u8 mode = attribute_[0x10];
  const u64 frames = frame_count();
  const bool blink_visible = !((frames >> 4) & 1), cursor_visible = !((frames >> 3) & 1);
  const unsigned cursor_start = crtc_[0x0A] & 0x1F, cursor_end = crtc_[0x0B] & 0x1F;
  const bool cursor_on = !(crtc_[0x0A] & 0x20) && cursor_visible;
  const u32 cursor_at = cursor() + ((crtc_[0x0B] >> 5) & 3);
  const unsigned underline = crtc_[0x14] & 0x1F;
  const auto color = [this](unsigned index) {
    u8 v = attribute_[index & attribute_[0x12] & 0x0F];
    if (attribute_[0x10] & 0x80) v = static_cast<u8>((v & 0x0F) | (attribute_[0x14] & 3) << 4);
    return dac_rgb(static_cast<u8>((v & 0x3F) | (attribute_[0x14] & 0x0C) << 4));
  };
  for (unsigned y = 0; y < screen.height; ++y) {
    const CrtcLine& line = lines[y];
    for (unsigned column = 0; column * char_dots * stretch < screen.width; ++column) {
      const u32 ma = line.ma + column;
      const u32 address = display_address(ma, line.row_scan);
      const u8 character = plane_byte(0, address), attr = plane_byte(1, address);
      const unsigned font = map_base((attr & 0x08) ? map_a : map_b);
      const u8 glyph = plane_byte(2, font + character * 32u + line.row_scan);
      unsigned foreground = attr & 0x0F, background = attr >> 4;
      if (mode & 0x08) {  // blink enable: attribute bit 7 blinks the character
        background &= 7;
        if ((attr & 0x80) && !blink_visible) foreground = background;
      }
      bool underlined = line.row_scan == underline && (attr & 0x77) == 0x01;
      bool cursor_here = cursor_on && (ma & 0xFFFF) == cursor_at && line.row_scan >= cursor_start &&
                         line.row_scan <= cursor_end;
      const auto fg = color(foreground), bg = color(background);
      for (unsigned dot = 0; dot < char_dots; ++dot) {
        bool on;
        if (dot < 8) on = (glyph >> (7 - dot)) & 1;
        else on = (mode & 0x04) && character >= 0xC0 && character <= 0xDF && (glyph & 1);  // line graphics
        on = on || underlined || cursor_here;
        for (unsigned s = 0; s < stretch; ++s) {
          const unsigned x = (column * char_dots + dot) * stretch + s;
          if (x < screen.width) put(screen, x, y, on ? fg : bg);
        }
      }
    }
  }
}

void Vga::render_graphics(VgaScreen& screen) const {
  const unsigned columns = crtc_[0x01] + 1u;
  const u8 shift = (graphics_[5] >> 5) & 3;  // 00 planar, 01 interleaved (CGA 4-colour), 1x 256-colour
  const bool color256 = shift & 2;
  const std::vector<CrtcLine> lines = crtc_lines(crtc_);
  // Each character clock is 8 dots (16 with the dot clock halved); a 256-colour pixel
  // is two dots (the attribute controller joins two 4-bit dots into one 8-bit pixel).
  const unsigned per_clock = color256 ? 4 : 8;
  const unsigned dots = ((sequencer_[1] & 0x08) ? 16 : 8) / per_clock;  // dots per pixel
  const unsigned pan = color256 ? 0 : attribute_[0x13] & 7;
  screen.width = std::min(columns * 8 * ((sequencer_[1] & 0x08) ? 2 : 1), kMaxWidth);
  screen.height = static_cast<unsigned>(lines.size());
  screen.rgb.assign(std::size_t{screen.width} * screen.height * 3, 0);
  const unsigned count_by = (crtc_[0x17] & 0x08) ? 2 : (crtc_[0x14] & 0x20) ? 4 : 1;
  std::array<std::array<u8, 3>, 16> palette;
  for (unsigned i = 0; i < 16; ++i) {
    u8 v = attribute_[i];
    if (attribute_[0x10] & 0x80) v = static_cast<u8>((v & 0x0F) | (attribute_[0x14] & 3) << 4);
    palette[i] = dac_rgb(static_cast<u8>((v & 0x3F) | (attribute_[0x14] & 0x0C) << 4));
  }
  const u8 plane_enable = attribute_[0x12] & 0x0F;
  std::vector<u8> row((columns + 1) * per_clock);
  for (unsigned y = 0; y < screen.height; ++y) {
    const CrtcLine& line = lines[y];
    for (unsigned clock = 0; clock <= columns; ++clock) {
      const u32 address = display_address(line.ma + clock / count_by, line.row_scan);
      u8 p[4];
      for (unsigned plane = 0; plane < 4; ++plane) p[plane] = plane_byte(plane, address);
      u8* out = &row[clock * per_clock];
      if (color256) {
        for (unsigned i = 0; i < 4; ++i) out[i] = p[i];
      } else if (shift == 1) {
        for (unsigned i = 0; i < 8; ++i) {
          const unsigned bit = 6 - 2 * (i & 3);
          const u8 low = i < 4 ? p[0] : p[1], high = i < 4 ? p[2] : p[3];
          out[i] = static_cast<u8>(((low >> bit) & 3) | ((high >> bit) & 3) << 2);
        }
      } else {
        for (unsigned i = 0; i < 8; ++i) {
          const unsigned bit = 7 - i;
          out[i] = static_cast<u8>(((p[0] >> bit) & 1) | ((p[1] >> bit) & 1) << 1 | ((p[2] >> bit) & 1) << 2 |
                                   ((p[3] >> bit) & 1) << 3);
        }
      }
    }
    for (unsigned x = 0; x < screen.width; ++x) {
      const u8 value = row[x / dots + pan];
      put(screen, x, y, color256 ? dac_rgb(value) : palette[value & plane_enable]);
    }
  }
}

void Vga::render_dispi(VgaScreen& screen) const {
  const unsigned bpp = dispi_[kDispiBpp];
  screen.width = std::min<unsigned>(dispi_[kDispiXres], kMaxWidth);
  screen.height = std::min<unsigned>(dispi_[kDispiYres], kMaxHeight);
  screen.rgb.assign(std::size_t{screen.width} * screen.height * 3, 0);
  if (bpp == 4) return;  // DEVIATION: the planar 4-bit DISPI modes are not drawn
  const u64 bytes = (bpp + 7) / 8;
  const u64 stride = u64{std::max(dispi_[kDispiVirtWidth], dispi_[kDispiXres])} * bytes;
  const u64 start = u64{dispi_[kDispiYOffset]} * stride + u64{dispi_[kDispiXOffset]} * bytes;
  for (unsigned y = 0; y < screen.height; ++y) {
    for (unsigned x = 0; x < screen.width; ++x) {
      const u64 at = start + y * stride + x * bytes;
      const auto byte = [&](unsigned i) { return vram_[(at + i) % kVramBytes]; };
      std::array<u8, 3> rgb;
      switch (bpp) {
        case 8: rgb = dac_rgb(byte(0)); break;
        case 15: {
          const u32 v = byte(0) | byte(1) << 8;
          rgb = {scale(v >> 10, 5), scale(v >> 5, 5), scale(v, 5)};
          break;
        }
        case 16: {
          const u32 v = byte(0) | byte(1) << 8;
          rgb = {scale(v >> 11, 5), scale(v >> 5, 6), scale(v, 5)};
          break;
        }
        default: rgb = {byte(2), byte(1), byte(0)}; break;  // 24 and 32: B, G, R (, unused)
      }
      put(screen, x, y, rgb);
    }
  }
}

std::string Vga::text() const {
  if (dispi_enabled() || (graphics_[6] & 1)) return "\n";
  const unsigned columns = crtc_[0x01] + 1u;
  const unsigned cell = (crtc_[0x09] & 0x1F) + 1u;
  const std::vector<CrtcLine> lines = crtc_lines(crtc_);
  std::string out;
  for (std::size_t y = 0; y + cell <= lines.size(); y += cell) {
    std::string row;
    for (unsigned column = 0; column < columns; ++column) {
      const u8 character = plane_byte(0, display_address(lines[y].ma + column, 0));
      row += character >= 0x20 && character < 0x7F ? static_cast<char>(character) : character == 0 ? ' ' : '.';
    }
    row.erase(row.find_last_not_of(' ') + 1);
    out += row + "\n";
  }
  return out;
}

}  // namespace x86lab

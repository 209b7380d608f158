// VGA register files and the text dump. Input status 1 alternates its display-enable
// and vertical-retrace bits on each read so that polling loops finish.
#include "platform/devices/vga_text.h"

namespace x86lab {

u32 VgaText::read(u32 port, unsigned) {
  switch (port) {
    case 0x3C0: return attribute_index_;
    case 0x3C1: return attribute_[attribute_index_ & 0x1F];
    case 0x3C4: return sequencer_index_;
    case 0x3C5: return sequencer_[sequencer_index_ & 7];
    case 0x3C7: return 0;  // DAC state: in write mode
    case 0x3C8: return static_cast<u8>(dac_write_ / 3);
    case 0x3C9: {
      const u8 value = dac_[dac_read_ % dac_.size()];
      dac_read_ = static_cast<u16>((dac_read_ + 1) % dac_.size());
      return value;
    }
    case 0x3CC: return misc_output_;
    case 0x3CE: return graphics_index_;
    case 0x3CF: return graphics_[graphics_index_ & 0xF];
    case 0x3B4: case 0x3D4: return crtc_index_;
    case 0x3B5: case 0x3D5: return crtc_[crtc_index_ & 0x1F];
    case 0x3BA: case 0x3DA:
      attribute_data_next_ = false;  // reading input status 1 resets the flip-flop
      status_toggle_ ^= 0x09;
      return status_toggle_;
    default: return 0xFF;
  }
}

void VgaText::write(u32 port, unsigned size, u32 value) {
  const u8 byte = static_cast<u8>(value);
  switch (port) {
    case 0x3C0:
      if (attribute_data_next_) attribute_[attribute_index_ & 0x1F] = byte;
      else attribute_index_ = byte & 0x3F;
      attribute_data_next_ = !attribute_data_next_;
      break;
    case 0x3C2: misc_output_ = byte; break;
    case 0x3C4: sequencer_index_ = byte; break;
    case 0x3C5: sequencer_[sequencer_index_ & 7] = byte; break;
    case 0x3C7: dac_read_ = static_cast<u16>(byte * 3); break;
    case 0x3C8: dac_write_ = static_cast<u16>(byte * 3); break;
    case 0x3C9:
      dac_[dac_write_ % dac_.size()] = byte & 0x3F;
      dac_write_ = static_cast<u16>((dac_write_ + 1) % dac_.size());
      break;
    case 0x3CE: graphics_index_ = byte; break;
    case 0x3CF: graphics_[graphics_index_ & 0xF] = byte; break;
    case 0x3B4: case 0x3D4:
      crtc_index_ = byte;
      // A 16-bit OUT to the index port writes the data port too.
      if (size >= 2) crtc_[crtc_index_ & 0x1F] = static_cast<u8>(value >> 8);
      break;
    case 0x3B5: case 0x3D5: crtc_[crtc_index_ & 0x1F] = byte; break;
    default: break;
  }
}

std::string VgaText::text() const {
  const u32 start = static_cast<u32>(crtc_[0x0C] << 8 | crtc_[0x0D]);  // in characters
  std::string out;
  for (unsigned row = 0; row < kRows; ++row) {
    std::string line;
    for (unsigned column = 0; column < kColumns; ++column) {
      const u32 cell = (start + row * kColumns + column) % 0x4000;  // 32 KiB window
      const u8 character = bus_.peek(kTextBuffer + cell * 2);
      line += character >= 0x20 && character < 0x7F ? static_cast<char>(character) : character == 0 ? ' ' : '.';
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

void VgaText::transfer_state(StateArchive& a) {
  a.array(crtc_, "VGA CRTC");
  a.array(attribute_, "VGA attribute controller");
  a.array(sequencer_, "VGA sequencer");
  a.array(graphics_, "VGA graphics controller");
  a.array(dac_, "VGA DAC");
  a.field(crtc_index_, "VGA CRTC index");
  a.field(attribute_index_, "VGA attribute index");
  a.field(sequencer_index_, "VGA sequencer index");
  a.field(graphics_index_, "VGA graphics index");
  a.field(attribute_data_next_, "VGA attribute flip-flop");
  a.field(misc_output_, "VGA miscellaneous output");
  a.field(dac_read_, "VGA DAC read index", 767);
  a.field(dac_write_, "VGA DAC write index", 767);
  a.field(status_toggle_, "VGA status");
}

}  // namespace x86lab

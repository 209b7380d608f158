// COM1's host side for the Serial console window.
#include "ui/gui/gui_serial_host.h"

namespace x86lab::gui {

void GuiSerialHost::transmit(u8 byte) {
  if (forward_) forward_->transmit(byte);
  output_.push_back(static_cast<char>(byte));
  if (output_.size() > keep_bytes_) output_.erase(0, output_.size() - keep_bytes_ / 2);
}

std::optional<u8> GuiSerialHost::receive() {
  if (!input_.empty()) {
    const u8 byte = input_.front();
    input_.pop_front();
    return byte;
  }
  if (forward_ && forward_->input_open()) return forward_->receive();
  return std::nullopt;
}

}  // namespace x86lab::gui

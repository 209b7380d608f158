// The host side of COM1 in the GUI: transmitted bytes are kept for the Serial console
// window (and copied to the --serial stream when one was given), typed bytes are
// queued for the guest to receive.
#pragma once
#include <deque>
#include <string>

#include "platform/devices/uart.h"

namespace x86lab::gui {

class GuiSerialHost : public SerialHost {
 public:
  // `forward` gets a copy of every transmitted byte (may be null); at most
  // `keep_bytes` of output are kept (older output is dropped from the front).
  explicit GuiSerialHost(SerialHost* forward = nullptr, std::size_t keep_bytes = 1 << 16)
      : forward_(forward), keep_bytes_(keep_bytes) {}

  void transmit(u8 byte) override;
  std::optional<u8> receive() override;
  bool input_open() const override { return true; }

  // Queues bytes for the guest (the Serial console's input line).
  void type(std::string_view text) { input_.insert(input_.end(), text.begin(), text.end()); }
  const std::string& output() const { return output_; }
  // Forgets the output and the input not yet received (a restarted machine).
  void clear() {
    output_.clear();
    input_.clear();
  }
  std::size_t pending_input() const { return input_.size(); }

 private:
  SerialHost* forward_;
  std::size_t keep_bytes_;
  std::string output_;
  std::deque<u8> input_;
};

}  // namespace x86lab::gui

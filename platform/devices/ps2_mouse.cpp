// The PS/2 mouse's commands and data reports (IBM PS/2 Hardware Interface Technical
// Reference, "Pointing Device": "Commands", "Data Report", "Status Request").
#include "platform/devices/ps2_mouse.h"

#include <algorithm>
#include <cstdlib>

namespace x86lab {

namespace {
constexpr u8 kAck = 0xFA, kResend = 0xFE, kSelfTestPassed = 0xAA;

// 2:1 scaling of stream reports ("Scaling").
int scaled(int counts) {
  const int magnitude = std::abs(counts);
  static constexpr int kTable[6] = {0, 1, 1, 3, 6, 9};
  const int value = magnitude < 6 ? kTable[magnitude] : 2 * magnitude;
  return counts < 0 ? -value : value;
}
}  // namespace

void Ps2Mouse::set_defaults() {
  sample_rate_ = 100;
  resolution_ = 2;
  scaling_2_to_1_ = false;
  reporting_ = false;
  remote_ = false;
  dx_ = dy_ = dz_ = 0;
}

std::vector<u8> Ps2Mouse::command(u8 byte) {
  std::vector<u8> out;
  if (wrap_ && byte != 0xEC && byte != 0xFF) {  // wrap mode: every byte comes back
    out = {byte};
    last_ = out;
    return out;
  }
  if (pending_) {
    const u8 command = pending_;
    pending_ = 0;
    if (command == 0xE8) resolution_ = byte & 3;
    if (command == 0xF3) {
      sample_rate_ = byte;
      rates_[0] = rates_[1];
      rates_[1] = rates_[2];
      rates_[2] = byte;
      if (rates_[0] == 200 && rates_[1] == 100 && rates_[2] == 80) device_id_ = 3;
    }
    out = {kAck};
  } else {
    switch (byte) {
      case 0xFF:  // reset: acknowledge, basic assurance test passed, ID
        set_defaults();
        wrap_ = false;
        device_id_ = 0;
        out = {kAck, kSelfTestPassed, 0x00};
        break;
      case 0xFE: return last_;  // resend
      case 0xF6: set_defaults(); out = {kAck}; break;
      case 0xF5: reporting_ = false; dx_ = dy_ = dz_ = 0; out = {kAck}; break;
      case 0xF4: reporting_ = true; dx_ = dy_ = dz_ = 0; out = {kAck}; break;
      case 0xF3: case 0xE8: pending_ = byte; out = {kAck}; break;
      case 0xF2: out = {kAck, device_id_}; break;
      case 0xF0: remote_ = true; dx_ = dy_ = dz_ = 0; out = {kAck}; break;
      case 0xEE: wrap_ = true; dx_ = dy_ = dz_ = 0; out = {kAck}; break;
      case 0xEC: wrap_ = false; dx_ = dy_ = dz_ = 0; out = {kAck}; break;
      case 0xEB: {  // read data: the report follows the acknowledge
        out = {kAck};
        const std::vector<u8> data = report();
        out.insert(out.end(), data.begin(), data.end());
        break;
      }
      case 0xEA: remote_ = false; dx_ = dy_ = dz_ = 0; out = {kAck}; break;
      case 0xE9:  // status request: mode, enable, scaling, buttons; resolution; rate
        out = {kAck,
               static_cast<u8>((remote_ ? 0x40 : 0) | (reporting_ ? 0x20 : 0) | (scaling_2_to_1_ ? 0x10 : 0) |
                               ((buttons_ & kLeft) ? 0x04 : 0) | ((buttons_ & kMiddle) ? 0x02 : 0) |
                               ((buttons_ & kRight) ? 0x01 : 0)),
               resolution_, sample_rate_};
        break;
      case 0xE7: scaling_2_to_1_ = true; out = {kAck}; break;
      case 0xE6: scaling_2_to_1_ = false; out = {kAck}; break;
      default: out = {kResend}; break;
    }
  }
  last_ = out;
  return out;
}

std::vector<u8> Ps2Mouse::move(int dx, int dy, int dz, u8 buttons) {
  // Movement not yet reported stays within the report's range of a few overflows.
  dx_ = std::clamp(dx_ + std::clamp(dx, -4096, 4096), -4096, 4096);
  dy_ = std::clamp(dy_ + std::clamp(dy, -4096, 4096), -4096, 4096);
  dz_ = std::clamp(dz_ + std::clamp(dz, -4096, 4096), -4096, 4096);
  const bool changed = dx || dy || dz || (buttons & 7) != buttons_;
  buttons_ = buttons & 7;
  if (remote_ || !reporting_ || wrap_ || !changed) return {};
  std::vector<u8> data = report();
  last_ = data;
  return data;
}

// The data report ("Data Report"): byte 1 overflow, sign, always-1 and button bits,
// bytes 2 and 3 the X and Y counts (9-bit two's complement with the sign bits), and
// with device ID 3 byte 4 the wheel.
std::vector<u8> Ps2Mouse::report() {
  int x = dx_, y = dy_;
  if (scaling_2_to_1_ && !remote_) {
    x = scaled(x);
    y = scaled(y);
  }
  const bool x_overflow = x < -256 || x > 255, y_overflow = y < -256 || y > 255;
  x = std::clamp(x, -256, 255);
  y = std::clamp(y, -256, 255);
  const u8 first = static_cast<u8>((y_overflow ? 0x80 : 0) | (x_overflow ? 0x40 : 0) | (y < 0 ? 0x20 : 0) |
                                   (x < 0 ? 0x10 : 0) | 0x08 | ((buttons_ & kMiddle) ? 0x04 : 0) |
                                   ((buttons_ & kRight) ? 0x02 : 0) | ((buttons_ & kLeft) ? 0x01 : 0));
  std::vector<u8> data = {first, static_cast<u8>(x), static_cast<u8>(y)};
  if (device_id_ == 3) data.push_back(static_cast<u8>(std::clamp(dz_, -8, 7)));
  dx_ = dy_ = dz_ = 0;
  return data;
}

void Ps2Mouse::transfer_state(StateArchive& a) {
  a.field(pending_, "mouse pending command");
  a.field(reporting_, "mouse reporting");
  a.field(remote_, "mouse remote");
  a.field(scaling_2_to_1_, "mouse scaling");
  a.field(wrap_, "mouse wrap");
  a.field(sample_rate_, "mouse sample rate");
  a.field(resolution_, "mouse resolution", 3);
  a.field(device_id_, "mouse ID");
  a.array(rates_, "mouse rates");
  a.field(buttons_, "mouse buttons", 7);
  a.field(dx_, "mouse dx");
  a.field(dy_, "mouse dy");
  a.field(dz_, "mouse dz");
  a.sequence(last_, "mouse last bytes", 8);
}

}  // namespace x86lab

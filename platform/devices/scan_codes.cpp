// Scan code tables of the PC keyboard (see scan_codes.h).
#include "platform/devices/scan_codes.h"

#include <array>

namespace x86lab {

namespace {
// Index: set 1 make code 00h-58h; value: the set 2 make code (0: no key).
constexpr std::array<u8, 0x59> kSet2 = {
    0x00, 0x76, 0x16, 0x1E, 0x26, 0x25, 0x2E, 0x36,  // 00 -, Esc, 1 2 3 4 5 6
    0x3D, 0x3E, 0x46, 0x45, 0x4E, 0x55, 0x66, 0x0D,  // 08 7 8 9 0 - = Backspace Tab
    0x15, 0x1D, 0x24, 0x2D, 0x2C, 0x35, 0x3C, 0x43,  // 10 Q W E R T Y U I
    0x44, 0x4D, 0x54, 0x5B, 0x5A, 0x14, 0x1C, 0x1B,  // 18 O P [ ] Enter LCtrl A S
    0x23, 0x2B, 0x34, 0x33, 0x3B, 0x42, 0x4B, 0x4C,  // 20 D F G H J K L ;
    0x52, 0x0E, 0x12, 0x5D, 0x1A, 0x22, 0x21, 0x2A,  // 28 ' ` LShift \ Z X C V
    0x32, 0x31, 0x3A, 0x41, 0x49, 0x4A, 0x59, 0x7C,  // 30 B N M , . / RShift KP*
    0x11, 0x29, 0x58, 0x05, 0x06, 0x04, 0x0C, 0x03,  // 38 LAlt Space CapsLock F1 F2 F3 F4 F5
    0x0B, 0x83, 0x0A, 0x01, 0x09, 0x77, 0x7E, 0x6C,  // 40 F6 F7 F8 F9 F10 NumLock ScrollLock KP7
    0x75, 0x7D, 0x7B, 0x6B, 0x73, 0x74, 0x79, 0x69,  // 48 KP8 KP9 KP- KP4 KP5 KP6 KP+ KP1
    0x72, 0x7A, 0x70, 0x71, 0x00, 0x00, 0x61, 0x78,  // 50 KP2 KP3 KP0 KP. -, -, 102nd key, F11
    0x07,                                            // 58 F12
};

constexpr std::array<u8, 256> inverse() {
  std::array<u8, 256> set1{};
  for (std::size_t i = 0; i < set1.size(); ++i) set1[i] = static_cast<u8>(i);  // no key: unchanged
  for (std::size_t code = 1; code < kSet2.size(); ++code)
    if (kSet2[code]) set1[kSet2[code]] = static_cast<u8>(code);
  return set1;
}
constexpr std::array<u8, 256> kSet1 = inverse();
}  // namespace

std::optional<u8> set2_make_code(u8 set1) {
  if (set1 >= kSet2.size() || kSet2[set1] == 0) return std::nullopt;
  return kSet2[set1];
}

u8 translate_set2_to_set1(u8 set2) { return kSet1[set2]; }

}  // namespace x86lab

// The host keyboard as the guest's PC keyboard: SDL's key positions (USB HID usages)
// as PC keys numbered by their scan code set 1 make code (platform/devices/scan_codes.h),
// for the 8042 (the VGA text screen window sends the keys typed into it).
#pragma once
#include <SDL.h>

#include <optional>

#include "trace/types.h"

namespace x86lab::gui {

struct PcKey {
  u8 set1 = 0;            // set 1 make code
  bool extended = false;  // sent with the E0h prefix
};

// The PC key at `key`'s position on a US keyboard; empty for keys a PC/AT keyboard
// does not have (the GUI keys, media keys).
std::optional<PcKey> pc_key_of(SDL_Scancode key);

}  // namespace x86lab::gui

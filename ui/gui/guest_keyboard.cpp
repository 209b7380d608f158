// SDL key positions to PC keys (see guest_keyboard.h).
#include "ui/gui/guest_keyboard.h"

namespace x86lab::gui {

std::optional<PcKey> pc_key_of(SDL_Scancode key) {
  // Letters A-Z in SDL's order, as set 1 codes.
  static constexpr u8 kLetters[26] = {0x1E, 0x30, 0x2E, 0x20, 0x12, 0x21, 0x22, 0x23, 0x17, 0x24, 0x25, 0x26, 0x32,
                                      0x31, 0x18, 0x19, 0x10, 0x13, 0x1F, 0x14, 0x16, 0x2F, 0x11, 0x2D, 0x15, 0x2C};
  if (key >= SDL_SCANCODE_A && key <= SDL_SCANCODE_Z) return PcKey{kLetters[key - SDL_SCANCODE_A]};
  if (key >= SDL_SCANCODE_1 && key <= SDL_SCANCODE_0) return PcKey{static_cast<u8>(0x02 + (key - SDL_SCANCODE_1))};
  if (key >= SDL_SCANCODE_F1 && key <= SDL_SCANCODE_F10) return PcKey{static_cast<u8>(0x3B + (key - SDL_SCANCODE_F1))};
  switch (key) {
    case SDL_SCANCODE_ESCAPE: return PcKey{0x01};
    case SDL_SCANCODE_MINUS: return PcKey{0x0C};
    case SDL_SCANCODE_EQUALS: return PcKey{0x0D};
    case SDL_SCANCODE_BACKSPACE: return PcKey{0x0E};
    case SDL_SCANCODE_TAB: return PcKey{0x0F};
    case SDL_SCANCODE_LEFTBRACKET: return PcKey{0x1A};
    case SDL_SCANCODE_RIGHTBRACKET: return PcKey{0x1B};
    case SDL_SCANCODE_RETURN: return PcKey{0x1C};
    case SDL_SCANCODE_LCTRL: return PcKey{0x1D};
    case SDL_SCANCODE_SEMICOLON: return PcKey{0x27};
    case SDL_SCANCODE_APOSTROPHE: return PcKey{0x28};
    case SDL_SCANCODE_GRAVE: return PcKey{0x29};
    case SDL_SCANCODE_LSHIFT: return PcKey{0x2A};
    case SDL_SCANCODE_BACKSLASH: return PcKey{0x2B};
    case SDL_SCANCODE_COMMA: return PcKey{0x33};
    case SDL_SCANCODE_PERIOD: return PcKey{0x34};
    case SDL_SCANCODE_SLASH: return PcKey{0x35};
    case SDL_SCANCODE_RSHIFT: return PcKey{0x36};
    case SDL_SCANCODE_KP_MULTIPLY: return PcKey{0x37};
    case SDL_SCANCODE_LALT: return PcKey{0x38};
    case SDL_SCANCODE_SPACE: return PcKey{0x39};
    case SDL_SCANCODE_CAPSLOCK: return PcKey{0x3A};
    case SDL_SCANCODE_NUMLOCKCLEAR: return PcKey{0x45};
    case SDL_SCANCODE_SCROLLLOCK: return PcKey{0x46};
    case SDL_SCANCODE_KP_7: return PcKey{0x47};
    case SDL_SCANCODE_KP_8: return PcKey{0x48};
    case SDL_SCANCODE_KP_9: return PcKey{0x49};
    case SDL_SCANCODE_KP_MINUS: return PcKey{0x4A};
    case SDL_SCANCODE_KP_4: return PcKey{0x4B};
    case SDL_SCANCODE_KP_5: return PcKey{0x4C};
    case SDL_SCANCODE_KP_6: return PcKey{0x4D};
    case SDL_SCANCODE_KP_PLUS: return PcKey{0x4E};
    case SDL_SCANCODE_KP_1: return PcKey{0x4F};
    case SDL_SCANCODE_KP_2: return PcKey{0x50};
    case SDL_SCANCODE_KP_3: return PcKey{0x51};
    case SDL_SCANCODE_KP_0: return PcKey{0x52};
    case SDL_SCANCODE_KP_PERIOD: return PcKey{0x53};
    case SDL_SCANCODE_NONUSBACKSLASH: return PcKey{0x56};
    case SDL_SCANCODE_F11: return PcKey{0x57};
    case SDL_SCANCODE_F12: return PcKey{0x58};
    // The extended keys: E0 and the code of the key they share it with.
    case SDL_SCANCODE_KP_ENTER: return PcKey{0x1C, true};
    case SDL_SCANCODE_RCTRL: return PcKey{0x1D, true};
    case SDL_SCANCODE_KP_DIVIDE: return PcKey{0x35, true};
    case SDL_SCANCODE_RALT: return PcKey{0x38, true};
    case SDL_SCANCODE_HOME: return PcKey{0x47, true};
    case SDL_SCANCODE_UP: return PcKey{0x48, true};
    case SDL_SCANCODE_PAGEUP: return PcKey{0x49, true};
    case SDL_SCANCODE_LEFT: return PcKey{0x4B, true};
    case SDL_SCANCODE_RIGHT: return PcKey{0x4D, true};
    case SDL_SCANCODE_END: return PcKey{0x4F, true};
    case SDL_SCANCODE_DOWN: return PcKey{0x50, true};
    case SDL_SCANCODE_PAGEDOWN: return PcKey{0x51, true};
    case SDL_SCANCODE_INSERT: return PcKey{0x52, true};
    case SDL_SCANCODE_DELETE: return PcKey{0x53, true};
    default: return std::nullopt;
  }
}

}  // namespace x86lab::gui

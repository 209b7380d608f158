// The PC keyboard's scan code sets 1 and 2 and the 8042's translation of set 2 into
// set 1 (IBM PS/2 Hardware Interface Technical Reference, "Keyboard and Auxiliary
// Device Controller" and the keyboard's scan code tables). Keys are numbered by their
// set 1 make code (the PC/XT numbering); the extended keys (arrows, Insert, Delete,
// Home, End, Page Up/Down, right Ctrl and Alt, keypad Enter and /) are the E0-prefixed
// codes of the key they share a code with in both sets.
#pragma once
#include <optional>

#include "trace/types.h"

namespace x86lab {

// The set 2 make code of the key with set 1 make code `set1` (01h-58h); empty for a
// code no key has.
std::optional<u8> set2_make_code(u8 set1);

// What the 8042 turns a set 2 byte into when its command byte's translate bit is set:
// the set 1 code of the same key (83h, F7's set 2 code, becomes 41h); bytes that are
// no set 2 make code (E0h, acknowledgements) pass unchanged. The controller's F0h
// break prefix is folded by the caller into bit 7 of the next code.
u8 translate_set2_to_set1(u8 set2);

}  // namespace x86lab

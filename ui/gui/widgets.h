// Small drawing helpers the windows share: hex values, change highlights, badges and
// the palette (ImGui 1.86).
#pragma once
#include <imgui.h>

#include <optional>
#include <string>

#include "trace/types.h"

namespace x86lab::gui {

// Colours with a meaning, used the same way in every window.
inline const ImVec4 kChanged{1.0f, 0.55f, 0.25f, 1.0f};   // changed since the last stop
inline const ImVec4 kStale{1.0f, 0.35f, 0.35f, 1.0f};     // cache differs from the table
inline const ImVec4 kSet{0.45f, 0.85f, 0.45f, 1.0f};      // a flag that is set, Accessed/Busy bits
inline const ImVec4 kDim{0.55f, 0.55f, 0.6f, 1.0f};       // clear flags, unmapped memory
inline const ImVec4 kCurrent{0.95f, 0.9f, 0.35f, 1.0f};   // EIP, the entry the last instruction touched
inline const ImVec4 kLock{0.95f, 0.4f, 0.95f, 1.0f};      // LOCK badge

// "%0*X" formatting.
std::string hex(u64 value, int digits);
// Text in `colour` when `highlight`, else normal text.
void text_maybe(bool highlight, const ImVec4& colour, const char* format, ...) IM_FMTARGS(3);
// A small framed label (for "LOCK", "stale", "A", "B").
void badge(const char* label, const ImVec4& colour);
// Parses a hex address typed by the user ("1000", "0x1000", "1000h"); empty when invalid.
std::optional<u32> parse_hex(const char* text);
// Before the next item: keeps it on the line of the last one when `width` pixels still
// fit in the window, else starts a new line (rows of buttons and checkboxes that wrap).
void same_line_if_fits(float width);
// A button that draws faded and does nothing while not `enabled`; true when pressed.
bool button_if(const char* label, bool enabled);
// The width of a checkbox or button with `label`.
float checkbox_width(const char* label);
float button_width(const char* label);

// Starts a bordered table with row backgrounds; returns ImGui::BeginTable's result.
bool begin_table(const char* id, int columns, float height = 0.0f);

}  // namespace x86lab::gui

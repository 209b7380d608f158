// Shared drawing helpers for the GUI windows.
#include "ui/gui/widgets.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace x86lab::gui {

std::string hex(u64 value, int digits) {
  char text[24];
  std::snprintf(text, sizeof text, "%0*llX", digits, static_cast<unsigned long long>(value));
  return text;
}

void text_maybe(bool highlight, const ImVec4& colour, const char* format, ...) {
  va_list args;
  va_start(args, format);
  if (highlight) ImGui::PushStyleColor(ImGuiCol_Text, colour);
  ImGui::TextV(format, args);
  if (highlight) ImGui::PopStyleColor();
  va_end(args);
}

void badge(const char* label, const ImVec4& colour) {
  ImGui::PushStyleColor(ImGuiCol_Text, colour);
  ImGui::TextUnformatted("[");
  ImGui::SameLine(0, 0);
  ImGui::TextUnformatted(label);
  ImGui::SameLine(0, 0);
  ImGui::TextUnformatted("]");
  ImGui::PopStyleColor();
}

std::optional<u32> parse_hex(const char* text) {
  while (*text == ' ') ++text;
  if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text += 2;
  std::size_t length = std::strlen(text);
  while (length && text[length - 1] == ' ') --length;
  if (length && (text[length - 1] == 'h' || text[length - 1] == 'H')) --length;
  if (length == 0 || length > 8) return std::nullopt;
  u32 value = 0;
  for (std::size_t i = 0; i < length; ++i) {
    const char c = text[i];
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (digit < 0) return std::nullopt;
    value = value << 4 | static_cast<u32>(digit);
  }
  return value;
}

void same_line_if_fits(float width) {
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  if (ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + width <= right) ImGui::SameLine();
}

float checkbox_width(const char* label) {
  return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label).x;
}

float button_width(const char* label) { return ImGui::CalcTextSize(label).x + 2 * ImGui::GetStyle().FramePadding.x; }

bool begin_table(const char* id, int columns, float height) {
  ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  if (height > 0) flags |= ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX;
  return ImGui::BeginTable(id, columns, flags, ImVec2(0, height));
}

bool button_if(const char* label, bool enabled) {
  if (!enabled) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, ImGui::GetStyle().Alpha * 0.45f);
  const bool pressed = ImGui::Button(label) && enabled;
  if (!enabled) ImGui::PopStyleVar();
  return pressed;
}

}  // namespace x86lab::gui
